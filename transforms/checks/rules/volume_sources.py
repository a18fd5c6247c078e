"""Rule ``volume-sources``: a volume has one source (``emptyDir``, ``hostPath``, ``secret``, ...).

The API server refuses a second one ("may not specify more than 1 volume
type"), which is what a merge brings when it meets a volume by name and adds
its own source beside the one already there. A volume with no source at all
is no problem: the API server makes it an ``emptyDir``. The sources are the
fields of the schema's ``Volume`` but ``name``; a field set to null is unset.

>>> out = []
>>> check(Spec({"volumes": [{"name": "data", "hostPath": {"path": "/d"}, "emptyDir": {}}]}, None), out)
>>> [(key, message) for _, key, message, _, _ in out]
[('emptyDir', "volume 'data' has more than one source: hostPath and emptyDir; a volume takes one")]
"""

from __future__ import annotations

from functools import cache

from combinators.limits import short_repr
from transforms.checks.problems import Raw
from transforms.checks.rules._spec import Spec
from transforms.kube.schema import schema_for

__all__ = ("ID", "DESCRIPTION", "check")

ID = "volume-sources"
DESCRIPTION = "a volume has at most one source"


def check(pod: Spec, out: list[Raw]) -> None:
    """Report, at its second source, every volume with more than one source."""
    volumes = pod.spec.get("volumes")
    if type(volumes) is not list:
        return
    sources: frozenset[str] | None = None
    for index, volume in enumerate(volumes):
        if type(volume) is not dict or len(volume) <= 2:
            continue  # a name and a source: the usual case
        if sources is None:
            sources = _sources(pod.version)
        found = [key for key, value in volume.items() if key in sources and value is not None]
        if len(found) > 1:
            name = volume.get("name")
            what = f"volume {short_repr(name)}" if type(name) is str else "a volume"
            out.append(
                (
                    ((pod.trail, "volumes"), index),
                    found[1],
                    f"{what} has more than one source: {' and '.join(found)}; a volume takes one",
                    found,
                    "error",
                )
            )


@cache
def _sources(version: str) -> frozenset[str]:
    volume = schema_for(version).type_at("PodSpec", ("volumes", None))
    assert volume is not None
    return frozenset(volume.fields) - {"name"}
