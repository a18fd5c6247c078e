"""Rule ``privilege-escalation`` (restricted): every container sets ``allowPrivilegeEscalation: false``.

A Linux-only control: a pod with ``spec.os.name: windows`` is exempt.

>>> from transforms.checks.policies._pod import PodView
>>> [str(p) for p in check(PodView.of({"spec": {"containers": [{"name": "c"}]}}, "restricted"))]
['spec.containers[name=c].securityContext.allowPrivilegeEscalation: allowPrivilegeEscalation must be false, found it unset (restricted profile, rule privilege-escalation)']
"""

from __future__ import annotations

from collections.abc import Iterator

from transforms.checks.policies._pod import PodView
from transforms.checks.problems import Problem

__all__ = ("ID", "PROFILE", "DESCRIPTION", "OVERRIDES", "check")

ID = "privilege-escalation"
PROFILE = "restricted"
DESCRIPTION = "securityContext.allowPrivilegeEscalation is false in every container (Linux pods)"
OVERRIDES: tuple[str, ...] = ()


def check(pod: PodView) -> Iterator[Problem]:
    """Each container that does not set ``allowPrivilegeEscalation`` to ``false``."""
    if pod.windows:
        return
    for trail, _, container in pod.containers:
        security = container.get("securityContext")
        found = security.get("allowPrivilegeEscalation") if type(security) is dict else None
        if found is not False:
            shown = "it unset" if found is None else repr(found)
            yield pod.problem(
                ID,
                (trail, "securityContext"),
                "allowPrivilegeEscalation",
                f"allowPrivilegeEscalation must be false, found {shown}",
                found,
            )
