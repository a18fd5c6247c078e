"""Rule ``seccomp-restricted`` (restricted): a seccomp profile, RuntimeDefault or Localhost, is set
for every container, directly or through the pod; replaces ``seccomp-baseline``.

A Linux-only control: a pod with ``spec.os.name: windows`` is held only to
the baseline rule (no ``Unconfined``), whose problems it reports.

>>> from transforms.checks.policies._pod import PodView
>>> pod = {"spec": {"containers": [{"name": "a", "securityContext": {"seccompProfile":
...        {"type": "RuntimeDefault"}}}, {"name": "b"}]}}
>>> [p.path for p in check(PodView.of(pod, "restricted"))]
['spec.containers[name=b].securityContext.seccompProfile.type']
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from combinators.limits import short_repr
from transforms.checks.policies import seccomp_baseline
from transforms.checks.policies._pod import PodView
from transforms.checks.problems import Problem

__all__ = ("ID", "PROFILE", "DESCRIPTION", "OVERRIDES", "check")

ID = "seccomp-restricted"
PROFILE = "restricted"
DESCRIPTION = (
    "seccompProfile.type is RuntimeDefault or Localhost for every container, set on it "
    "or on the pod (Linux pods)"
)
OVERRIDES: tuple[str, ...] = ("seccomp-baseline",)

_TYPES = ("RuntimeDefault", "Localhost")


def _type(security: Any) -> Any:
    profile = security.get("seccompProfile") if type(security) is dict else None
    return profile.get("type") if type(profile) is dict else None


def check(pod: PodView) -> Iterator[Problem]:
    """A pod-level type outside the allowed ones, and each container with no allowed type."""
    if pod.windows:
        yield from seccomp_baseline.check(pod)  # the baseline control still holds
        return
    at_pod = _type(pod.pod_security)
    if at_pod is not None and at_pod not in _TYPES:
        yield pod.problem(
            ID,
            (pod.pod_security_trail, "seccompProfile"),
            "type",
            f"seccomp profile {short_repr(at_pod)} is not allowed; allowed: {', '.join(_TYPES)}",
            at_pod,
        )
    for trail, _, container in pod.containers:
        found = _type(container.get("securityContext"))
        where = ((trail, "securityContext"), "seccompProfile")
        if found is None:
            if at_pod not in _TYPES:
                yield pod.problem(
                    ID,
                    where,
                    "type",
                    "a seccomp profile (RuntimeDefault or Localhost) must be set "
                    "here or in the pod's securityContext, found none",
                    None,
                )
        elif found not in _TYPES:
            yield pod.problem(
                ID,
                where,
                "type",
                f"seccomp profile {short_repr(found)} is not allowed; allowed: {', '.join(_TYPES)}",
                found,
            )
