"""Rule ``host-process`` (baseline): no Windows HostProcess containers, for the pod or any container.

>>> from transforms.checks.policies._pod import PodView
>>> pod = {"spec": {"securityContext": {"windowsOptions": {"hostProcess": True}}}}
>>> [str(p) for p in check(PodView.of(pod, "baseline"))]
['spec.securityContext.windowsOptions.hostProcess: HostProcess containers are not allowed, found true (baseline profile, rule host-process)']
"""

from __future__ import annotations

from collections.abc import Iterator

from transforms.checks.policies._pod import PodView, security_settings
from transforms.checks.problems import Problem

__all__ = ("ID", "PROFILE", "DESCRIPTION", "OVERRIDES", "check")

ID = "host-process"
PROFILE = "baseline"
DESCRIPTION = "windowsOptions.hostProcess is unset or false, for the pod and every container"
OVERRIDES: tuple[str, ...] = ()


def check(pod: PodView) -> Iterator[Problem]:
    """Each ``windowsOptions.hostProcess`` set to anything but ``false``."""
    for trail, security, _ in security_settings(pod):
        options = security.get("windowsOptions")
        if type(options) is dict and options.get("hostProcess") not in (None, False):
            found = options["hostProcess"]
            yield pod.problem(
                ID,
                (trail, "windowsOptions"),
                "hostProcess",
                f"HostProcess containers are not allowed, found {_text(found)}",
                found,
            )


def _text(value: object) -> str:
    return "true" if value is True else repr(value)
