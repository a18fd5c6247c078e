"""Rule ``volume-types`` (restricted): volumes only of the core types; replaces ``host-path-volumes``.

Allowed: configMap, csi, downwardAPI, emptyDir, ephemeral, image (allowed by
the admission controller since Kubernetes 1.33), persistentVolumeClaim,
projected, secret.

>>> from transforms.checks.policies._pod import PodView
>>> pod = {"spec": {"volumes": [{"name": "data", "nfs": {"server": "nas", "path": "/"}},
...                             {"name": "cache", "emptyDir": {}}]}}
>>> [str(p) for p in check(PodView.of(pod, "restricted"))]
["spec.volumes[name=data].nfs: volume type 'nfs' is not allowed; allowed: configMap, csi, downwardAPI, emptyDir, ephemeral, image, persistentVolumeClaim, projected, secret (restricted profile, rule volume-types)"]
"""

from __future__ import annotations

from collections.abc import Iterator

from combinators.limits import short_repr
from transforms.checks.policies._pod import PodView
from transforms.checks.problems import Problem

__all__ = ("ID", "PROFILE", "DESCRIPTION", "OVERRIDES", "ALLOWED", "check")

ID = "volume-types"
PROFILE = "restricted"
DESCRIPTION = (
    "every volume is of a core type (configMap, csi, downwardAPI, emptyDir, ephemeral, "
    "image, persistentVolumeClaim, projected, secret)"
)
OVERRIDES: tuple[str, ...] = ("host-path-volumes",)

ALLOWED = (
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "image",
    "persistentVolumeClaim",
    "projected",
    "secret",
)


def check(pod: PodView) -> Iterator[Problem]:
    """Each volume that sets none of :data:`ALLOWED`, named by the source it sets instead."""
    volumes = pod.spec.get("volumes")
    if type(volumes) is not list:
        return
    allowed = ", ".join(ALLOWED)
    for index, volume in enumerate(volumes):
        if type(volume) is not dict or any(volume.get(kind) is not None for kind in ALLOWED):
            continue
        where = ((pod.spec_trail, "volumes"), index)
        sources = [key for key, value in volume.items() if key != "name" and value is not None]
        if not sources:
            yield pod.problem(ID, where[0], index, f"a volume must set one of: {allowed}", None)
        for source in sources:
            yield pod.problem(
                ID,
                where,
                source,
                f"volume type {short_repr(source)} is not allowed; allowed: {allowed}",
                volume[source],
            )
