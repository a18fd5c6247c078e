"""Rule ``run-as-user`` (restricted): neither the pod nor a container sets ``runAsUser: 0``.

>>> from transforms.checks.policies._pod import PodView
>>> pod = {"spec": {"securityContext": {"runAsUser": 1000},
...        "containers": [{"name": "c", "securityContext": {"runAsUser": 0}}]}}
>>> [p.path for p in check(PodView.of(pod, "restricted"))]
['spec.containers[name=c].securityContext.runAsUser']
"""

from __future__ import annotations

from collections.abc import Iterator

from transforms.checks.policies._pod import PodView, security_settings
from transforms.checks.problems import Problem

__all__ = ("ID", "PROFILE", "DESCRIPTION", "OVERRIDES", "check")

ID = "run-as-user"
PROFILE = "restricted"
DESCRIPTION = "runAsUser is unset or non-zero, for the pod and every container"
OVERRIDES: tuple[str, ...] = ()


def check(pod: PodView) -> Iterator[Problem]:
    """Each ``runAsUser`` set to ``0`` (root)."""
    for trail, security, _ in security_settings(pod):
        found = security.get("runAsUser")
        if type(found) is int and not isinstance(found, bool) and found == 0:
            yield pod.problem(
                ID, trail, "runAsUser", "running as root (runAsUser: 0) is not allowed", found
            )
