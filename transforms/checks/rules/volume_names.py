"""Rule ``volume-names``: no two volumes of a pod share a name.

>>> out = []
>>> check(Spec({"volumes": [{"name": "a"}, {"name": "a"}]}, None), out)
>>> [(key, message) for _, key, message, _, _ in out]
[('name', "duplicate volume name 'a'")]
"""

from __future__ import annotations

from transforms.checks.problems import Raw
from transforms.checks.rules._spec import Spec

__all__ = ("ID", "DESCRIPTION", "check")

ID = "volume-names"
DESCRIPTION = "volume names are unique"


def check(pod: Spec, out: list[Raw]) -> None:
    """Report every volume whose name an earlier volume already has."""
    volumes = pod.spec.get("volumes")
    names = pod.volume_names
    if type(volumes) is not list or len(set(names)) == len(names):
        return
    volumes_trail = (pod.trail, "volumes")
    seen: set[str] = set()
    for index, volume in enumerate(volumes):
        if type(volume) is dict and type(name := volume.get("name")) is str:
            if name in seen:
                out.append(((volumes_trail, index), "name", f"duplicate volume name {name!r}",
                            name, "error"))
            seen.add(name)
