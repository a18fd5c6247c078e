"""Rule ``host-namespaces`` (baseline): the pod shares no host namespace (network, PID, IPC).

>>> from transforms.checks.policies._pod import PodView
>>> [p.path for p in check(PodView.of({"spec": {"hostNetwork": True, "hostIPC": False}}, "baseline"))]
['spec.hostNetwork']
"""

from __future__ import annotations

from collections.abc import Iterator

from transforms.checks.policies._pod import PodView
from transforms.checks.problems import Problem

__all__ = ("ID", "PROFILE", "DESCRIPTION", "OVERRIDES", "check")

ID = "host-namespaces"
PROFILE = "baseline"
DESCRIPTION = "hostNetwork, hostPID and hostIPC are unset or false"
OVERRIDES: tuple[str, ...] = ()

_FIELDS = ("hostNetwork", "hostPID", "hostIPC")


def check(pod: PodView) -> Iterator[Problem]:
    """Each host namespace field set to anything but ``false``."""
    for field in _FIELDS:
        found = pod.spec.get(field)
        if found not in (None, False):
            yield pod.problem(
                ID,
                pod.spec_trail,
                field,
                f"sharing the host's namespaces is not allowed, found {field}: "
                f"{'true' if found is True else repr(found)}",
                found,
            )
