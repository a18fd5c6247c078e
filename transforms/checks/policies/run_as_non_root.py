"""Rule ``run-as-non-root`` (restricted): containers must run as non-root users.

``runAsNonRoot: true`` at the pod level covers every container that leaves
it unset; ``false`` anywhere is a violation, even where every container sets
``true`` (as the admission controller rules).

>>> from transforms.checks.policies._pod import PodView
>>> pod = {"spec": {"securityContext": {"runAsNonRoot": True},
...        "containers": [{"name": "a"}, {"name": "b", "securityContext": {"runAsNonRoot": False}}]}}
>>> [p.path for p in check(PodView.of(pod, "restricted"))]
['spec.containers[name=b].securityContext.runAsNonRoot']
"""

from __future__ import annotations

from collections.abc import Iterator

from combinators.limits import short_repr
from transforms.checks.policies._pod import PodView
from transforms.checks.problems import Problem

__all__ = ("ID", "PROFILE", "DESCRIPTION", "OVERRIDES", "check")

ID = "run-as-non-root"
PROFILE = "restricted"
DESCRIPTION = "runAsNonRoot is true for the pod, or for every container; never false"
OVERRIDES: tuple[str, ...] = ()


def check(pod: PodView) -> Iterator[Problem]:
    """A ``runAsNonRoot`` set to anything but ``true``, and each container left uncovered."""
    at_pod = pod.pod_security.get("runAsNonRoot")
    if at_pod is not None and at_pod is not True:
        yield pod.problem(
            ID,
            pod.pod_security_trail,
            "runAsNonRoot",
            f"runAsNonRoot must be true, found {short_repr(at_pod)}",
            at_pod,
        )
    for trail, _, container in pod.containers:
        security = container.get("securityContext")
        found = security.get("runAsNonRoot") if type(security) is dict else None
        if found is None:
            if at_pod is not True:
                yield pod.problem(
                    ID,
                    (trail, "securityContext"),
                    "runAsNonRoot",
                    "runAsNonRoot must be true here or in the pod's "
                    "securityContext, found it unset in both",
                    None,
                )
        elif found is not True:
            yield pod.problem(
                ID,
                (trail, "securityContext"),
                "runAsNonRoot",
                f"runAsNonRoot must be true, found {short_repr(found)}",
                found,
            )
