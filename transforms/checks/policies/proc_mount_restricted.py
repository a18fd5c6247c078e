"""Rule ``proc-mount-restricted`` (restricted): containers keep the default ``/proc`` masks, with no
exemption for user namespaces; replaces ``proc-mount``.

>>> from transforms.checks.policies._pod import PodView
>>> pod = {"spec": {"hostUsers": False, "containers": [{"name": "c",
...        "securityContext": {"procMount": "Unmasked"}}]}}
>>> [p.rule for p in check(PodView.of(pod, "restricted"))]
['proc-mount-restricted']
"""

from __future__ import annotations

from collections.abc import Iterator

from transforms.checks.policies._pod import PodView
from transforms.checks.policies.proc_mount import unmasked
from transforms.checks.problems import Problem

__all__ = ("ID", "PROFILE", "DESCRIPTION", "OVERRIDES", "check")

ID = "proc-mount-restricted"
PROFILE = "restricted"
DESCRIPTION = "securityContext.procMount is unset or Default, also in a user namespace"
OVERRIDES: tuple[str, ...] = ("proc-mount",)


def check(pod: PodView) -> Iterator[Problem]:
    """Each container whose ``procMount`` is anything but unset or ``Default``."""
    yield from unmasked(pod, ID)
