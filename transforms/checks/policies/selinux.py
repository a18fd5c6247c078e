"""Rule ``selinux`` (baseline): no custom SELinux user or role, and only container SELinux types.

>>> from transforms.checks.policies._pod import PodView
>>> pod = {"spec": {"securityContext": {"seLinuxOptions": {"type": "spc_t", "level": "s0:c1"}}}}
>>> [p.path for p in check(PodView.of(pod, "baseline"))]
['spec.securityContext.seLinuxOptions.type']
"""

from __future__ import annotations

from collections.abc import Iterator

from combinators.limits import short_repr
from transforms.checks.policies._pod import PodView, security_settings
from transforms.checks.problems import Problem

__all__ = ("ID", "PROFILE", "DESCRIPTION", "OVERRIDES", "check")

ID = "selinux"
PROFILE = "baseline"
DESCRIPTION = (
    "seLinuxOptions.type is unset or a container type; seLinuxOptions.user and .role are unset"
)
OVERRIDES: tuple[str, ...] = ()

#: The SELinux types a pod may ask for (``container_engine_t`` since Kubernetes 1.31).
TYPES = ("", "container_t", "container_init_t", "container_kvm_t", "container_engine_t")


def check(pod: PodView) -> Iterator[Problem]:
    """Each SELinux type outside :data:`TYPES`, and each user or role set."""
    for trail, security, _ in security_settings(pod):
        options = security.get("seLinuxOptions")
        if type(options) is not dict:
            continue
        where = (trail, "seLinuxOptions")
        found = options.get("type")
        if found is not None and found not in TYPES:
            yield pod.problem(
                ID,
                where,
                "type",
                f"SELinux type {short_repr(found)} is not allowed; allowed: "
                f"{', '.join(t for t in TYPES if t)}",
                found,
            )
        for field in ("user", "role"):
            if options.get(field) not in (None, ""):
                yield pod.problem(
                    ID, where, field, f"a custom SELinux {field} is not allowed", options[field]
                )
