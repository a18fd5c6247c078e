"""Rule ``volume-names``: volume names are DNS-1123 labels (as the API server requires:
lower-case letters, digits and '-', at most 63 characters), and no two volumes share one.

>>> out = []
>>> check(Spec({"volumes": [{"name": "a"}, {"name": "a"}, {"name": "Data"}]}, None), out)
>>> [(key, message) for _, key, message, _, _ in out]
[('name', "duplicate volume name 'a'"), ('name', "volume name 'Data' must consist of lower-case letters, digits and '-', and start and end with a letter or digit (such as 'my-name' or '123-abc')")]
"""

from __future__ import annotations

from combinators.limits import short_repr
from transforms.checks.problems import Raw
from transforms.checks.rules._formats import dns_label
from transforms.checks.rules._spec import Spec

__all__ = ("ID", "DESCRIPTION", "check")

ID = "volume-names"
DESCRIPTION = "volume names are DNS-1123 labels, unique"


def check(pod: Spec, out: list[Raw]) -> None:
    """Report every volume whose name is no DNS-1123 label, or one an earlier volume has."""
    volumes = pod.spec.get("volumes")
    names = pod.volume_names
    # the usual case, settled at once: every name unique, and none with a verdict against it
    if type(volumes) is not list or (
        len(set(names)) == len(names) and not any(map(dns_label, names))
    ):
        return
    volumes_trail = (pod.trail, "volumes")
    seen: set[str] = set()
    for index, volume in enumerate(volumes):
        if type(volume) is dict and type(name := volume.get("name")) is str:
            if name in seen:
                out.append(
                    (
                        (volumes_trail, index),
                        "name",
                        f"duplicate volume name {short_repr(name)}",
                        name,
                        "error",
                    )
                )
            elif (wrong := dns_label(name)) is not None:
                out.append(
                    (
                        (volumes_trail, index),
                        "name",
                        f"volume name {short_repr(name)} {wrong}",
                        name,
                        "error",
                    )
                )
            seen.add(name)
