"""Rule ``privileged`` (baseline): no privileged container.

>>> from transforms.checks.policies._pod import PodView
>>> pod = {"spec": {"initContainers": [{"name": "i", "securityContext": {"privileged": True}}]}}
>>> [p.path for p in check(PodView.of(pod, "baseline"))]
['spec.initContainers[name=i].securityContext.privileged']
"""

from __future__ import annotations

from collections.abc import Iterator

from transforms.checks.policies._pod import PodView
from transforms.checks.problems import Problem

__all__ = ("ID", "PROFILE", "DESCRIPTION", "OVERRIDES", "check")

ID = "privileged"
PROFILE = "baseline"
DESCRIPTION = "securityContext.privileged is unset or false in every container"
OVERRIDES: tuple[str, ...] = ()


def check(pod: PodView) -> Iterator[Problem]:
    """Each container whose ``securityContext.privileged`` is anything but ``false``."""
    for trail, _, container in pod.containers:
        security = container.get("securityContext")
        if type(security) is dict and security.get("privileged") not in (None, False):
            found = security["privileged"]
            yield pod.problem(
                ID,
                (trail, "securityContext"),
                "privileged",
                "privileged containers are not allowed",
                found,
            )
