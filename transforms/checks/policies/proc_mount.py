"""Rule ``proc-mount`` (baseline): containers keep the default ``/proc`` masks.

Exempt, as since Kubernetes 1.35: a pod in its own user namespace
(``spec.hostUsers: false``). The restricted profile replaces this rule with
``proc-mount-restricted``, which has no exemption.

>>> from transforms.checks.policies._pod import PodView
>>> pod = {"spec": {"containers": [{"name": "c", "securityContext": {"procMount": "Unmasked"}}]}}
>>> [p.path for p in check(PodView.of(pod, "baseline"))]
['spec.containers[name=c].securityContext.procMount']
>>> list(check(PodView.of({"spec": {"hostUsers": False, **pod["spec"]}}, "baseline")))
[]
"""

from __future__ import annotations

from collections.abc import Iterator

from combinators.limits import short_repr
from transforms.checks.policies._pod import PodView
from transforms.checks.problems import Problem

__all__ = ("ID", "PROFILE", "DESCRIPTION", "OVERRIDES", "check", "unmasked")

ID = "proc-mount"
PROFILE = "baseline"
DESCRIPTION = "securityContext.procMount is unset or Default (any value in a user namespace)"
OVERRIDES: tuple[str, ...] = ()


def unmasked(pod: PodView, rule_id: str) -> Iterator[Problem]:
    """Each container whose ``procMount`` is anything but unset or ``Default``."""
    for trail, _, container in pod.containers:
        security = container.get("securityContext")
        if type(security) is dict and security.get("procMount") not in (None, "Default"):
            yield pod.problem(
                rule_id,
                (trail, "securityContext"),
                "procMount",
                f"procMount {short_repr(security['procMount'])} is not allowed; allowed: Default",
                security["procMount"],
            )


def check(pod: PodView) -> Iterator[Problem]:
    """:func:`unmasked`, unless the pod runs in its own user namespace."""
    if not pod.user_namespace:
        yield from unmasked(pod, ID)
