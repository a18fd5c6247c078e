"""Rule ``capabilities-baseline`` (baseline): containers add no capability beyond the default set.

>>> from transforms.checks.policies._pod import PodView
>>> pod = {"spec": {"containers": [{"name": "c", "securityContext":
...        {"capabilities": {"add": ["CHOWN", "SYS_ADMIN"]}}}]}}
>>> [p.path for p in check(PodView.of(pod, "baseline"))]
['spec.containers[name=c].securityContext.capabilities.add[1]']
"""

from __future__ import annotations

from collections.abc import Iterator

from combinators.limits import short_repr
from transforms.checks.policies._pod import PodView
from transforms.checks.problems import Problem, Trail

__all__ = ("ID", "PROFILE", "DESCRIPTION", "OVERRIDES", "ALLOWED", "check", "added")

ID = "capabilities-baseline"
PROFILE = "baseline"
DESCRIPTION = "capabilities.add names only capabilities of the container runtime's default set"
OVERRIDES: tuple[str, ...] = ()

#: What a container may add under the baseline profile.
ALLOWED = frozenset(
    {
        "AUDIT_WRITE",
        "CHOWN",
        "DAC_OVERRIDE",
        "FOWNER",
        "FSETID",
        "KILL",
        "MKNOD",
        "NET_BIND_SERVICE",
        "SETFCAP",
        "SETGID",
        "SETPCAP",
        "SETUID",
        "SYS_CHROOT",
    }
)


def added(pod: PodView) -> Iterator[tuple[Trail, int, object]]:
    """``(trail of the add list, index, capability)`` for every capability a container adds."""
    for trail, _, container in pod.containers:
        security = container.get("securityContext")
        capabilities = security.get("capabilities") if type(security) is dict else None
        adds = capabilities.get("add") if type(capabilities) is dict else None
        if type(adds) is list:
            add_trail = (((trail, "securityContext"), "capabilities"), "add")
            for index, capability in enumerate(adds):
                yield add_trail, index, capability


def check(pod: PodView) -> Iterator[Problem]:
    """Each added capability outside :data:`ALLOWED`."""
    for trail, index, capability in added(pod):
        if capability not in ALLOWED:
            yield pod.problem(
                ID,
                trail,
                index,
                f"adding capability {short_repr(capability)} is not allowed; a container may "
                f"add only: {', '.join(sorted(ALLOWED))}",
                capability,
            )
