"""Rule ``host-ports`` (baseline): no container port is bound to a port of the host.

>>> from transforms.checks.policies._pod import PodView
>>> pod = {"spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80, "hostPort": 80}]}]}}
>>> [p.path for p in check(PodView.of(pod, "baseline"))]
['spec.containers[name=c].ports[0].hostPort']
"""

from __future__ import annotations

from collections.abc import Iterator

from combinators.limits import short_repr
from transforms.checks.policies._pod import PodView
from transforms.checks.problems import Problem

__all__ = ("ID", "PROFILE", "DESCRIPTION", "OVERRIDES", "check")

ID = "host-ports"
PROFILE = "baseline"
DESCRIPTION = "ports[*].hostPort is unset or 0 in every container"
OVERRIDES: tuple[str, ...] = ()


def check(pod: PodView) -> Iterator[Problem]:
    """Each ``hostPort`` set to anything but ``0``."""
    for trail, _, container in pod.containers:
        ports = container.get("ports")
        if type(ports) is not list:
            continue
        for index, port in enumerate(ports):
            if type(port) is dict and port.get("hostPort") not in (None, 0):
                yield pod.problem(
                    ID,
                    ((trail, "ports"), index),
                    "hostPort",
                    f"host ports are not allowed, found {short_repr(port['hostPort'])}",
                    port["hostPort"],
                )
