"""Rule ``host-path-volumes`` (baseline): no hostPath volume.

>>> from transforms.checks.policies._pod import PodView
>>> pod = {"spec": {"volumes": [{"name": "logs", "hostPath": {"path": "/var/log"}}]}}
>>> [p.path for p in check(PodView.of(pod, "baseline"))]
['spec.volumes[name=logs].hostPath']
"""

from __future__ import annotations

from collections.abc import Iterator

from transforms.checks.policies._pod import PodView
from transforms.checks.problems import Problem

__all__ = ("ID", "PROFILE", "DESCRIPTION", "OVERRIDES", "check")

ID = "host-path-volumes"
PROFILE = "baseline"
DESCRIPTION = "no volume is a hostPath"
OVERRIDES: tuple[str, ...] = ()


def check(pod: PodView) -> Iterator[Problem]:
    """Each volume with a ``hostPath``."""
    volumes = pod.spec.get("volumes")
    if type(volumes) is not list:
        return
    for index, volume in enumerate(volumes):
        if type(volume) is dict and volume.get("hostPath") is not None:
            yield pod.problem(
                ID,
                ((pod.spec_trail, "volumes"), index),
                "hostPath",
                "hostPath volumes are not allowed",
                volume["hostPath"],
            )
