"""Rule ``seccomp-baseline`` (baseline): seccomp is not explicitly turned off.

>>> from transforms.checks.policies._pod import PodView
>>> pod = {"spec": {"containers": [{"name": "c",
...        "securityContext": {"seccompProfile": {"type": "Unconfined"}}}]}}
>>> [p.path for p in check(PodView.of(pod, "baseline"))]
['spec.containers[name=c].securityContext.seccompProfile.type']
"""

from __future__ import annotations

from collections.abc import Iterator

from transforms.checks.policies._pod import PodView, security_settings
from transforms.checks.problems import Problem

__all__ = ("ID", "PROFILE", "DESCRIPTION", "OVERRIDES", "check", "unconfined")

ID = "seccomp-baseline"
PROFILE = "baseline"
DESCRIPTION = "seccompProfile.type is not Unconfined, for the pod and every container"
OVERRIDES: tuple[str, ...] = ()


def unconfined(pod: PodView, rule_id: str) -> Iterator[Problem]:
    """Each seccomp profile type set to ``Unconfined``."""
    for trail, security, _ in security_settings(pod):
        profile = security.get("seccompProfile")
        if type(profile) is dict and profile.get("type") == "Unconfined":
            yield pod.problem(
                rule_id,
                (trail, "seccompProfile"),
                "type",
                "seccomp profile 'Unconfined' is not allowed",
                "Unconfined",
            )


def check(pod: PodView) -> Iterator[Problem]:
    """:func:`unconfined`."""
    yield from unconfined(pod, ID)
