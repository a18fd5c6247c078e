"""Rule ``sysctls`` (baseline): the pod sets only sysctls that are safe (namespaced, isolated).

>>> from transforms.checks.policies._pod import PodView
>>> pod = {"spec": {"securityContext": {"sysctls": [
...        {"name": "net.ipv4.tcp_syncookies", "value": "1"}, {"name": "kernel.msgmax", "value": "1"}]}}}
>>> [p.path for p in check(PodView.of(pod, "baseline"))]
['spec.securityContext.sysctls[name=kernel.msgmax].name']
"""

from __future__ import annotations

from collections.abc import Iterator

from combinators.limits import short_repr
from transforms.checks.policies._pod import PodView
from transforms.checks.problems import Problem

__all__ = ("ID", "PROFILE", "DESCRIPTION", "OVERRIDES", "SAFE", "check")

ID = "sysctls"
PROFILE = "baseline"
DESCRIPTION = "securityContext.sysctls names only the safe sysctls"
OVERRIDES: tuple[str, ...] = ()

#: The safe sysctls: the documented list (with the additions of Kubernetes 1.27 and
#: 1.29), and ``net.ipv4.tcp_rmem`` / ``tcp_wmem``, which the admission controller
#: allows since 1.32.
SAFE = frozenset(
    {
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.ip_unprivileged_port_start",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_local_reserved_ports",
        "net.ipv4.tcp_keepalive_time",
        "net.ipv4.tcp_fin_timeout",
        "net.ipv4.tcp_keepalive_intvl",
        "net.ipv4.tcp_keepalive_probes",
        "net.ipv4.tcp_rmem",
        "net.ipv4.tcp_wmem",
    }
)


def check(pod: PodView) -> Iterator[Problem]:
    """Each sysctl whose name is not in :data:`SAFE`."""
    found = pod.pod_security.get("sysctls")
    if type(found) is not list:
        return
    for index, sysctl in enumerate(found):
        if type(sysctl) is dict and sysctl.get("name") is not None and sysctl["name"] not in SAFE:
            yield pod.problem(
                ID,
                ((pod.pod_security_trail, "sysctls"), index),
                "name",
                f"sysctl {short_repr(sysctl['name'])} is not allowed; only the safe sysctls are",
                sysctl["name"],
            )
