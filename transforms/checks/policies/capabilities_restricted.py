"""Rule ``capabilities-restricted`` (restricted): containers drop ``ALL`` and add back at most
``NET_BIND_SERVICE``; replaces ``capabilities-baseline``.

A Linux-only control: a pod with ``spec.os.name: windows`` is held only to
the baseline rule, whose problems it reports.

>>> from transforms.checks.policies._pod import PodView
>>> pod = {"spec": {"containers": [{"name": "c", "securityContext": {"capabilities":
...        {"drop": ["NET_RAW"], "add": ["NET_BIND_SERVICE", "CHOWN"]}}}]}}
>>> [p.path for p in check(PodView.of(pod, "restricted"))]
['spec.containers[name=c].securityContext.capabilities.drop', 'spec.containers[name=c].securityContext.capabilities.add[1]']
"""

from __future__ import annotations

from collections.abc import Iterator

from combinators.limits import short_repr
from transforms.checks.policies import capabilities_baseline
from transforms.checks.policies._pod import PodView
from transforms.checks.problems import Problem

__all__ = ("ID", "PROFILE", "DESCRIPTION", "OVERRIDES", "check")

ID = "capabilities-restricted"
PROFILE = "restricted"
DESCRIPTION = (
    "capabilities.drop includes ALL and capabilities.add names at most "
    "NET_BIND_SERVICE, in every container (Linux pods)"
)
OVERRIDES: tuple[str, ...] = ("capabilities-baseline",)


def check(pod: PodView) -> Iterator[Problem]:
    """Each container that does not drop ``ALL``, and each capability added but ``NET_BIND_SERVICE``."""
    if pod.windows:
        yield from capabilities_baseline.check(pod)  # the baseline control still holds
        return
    for trail, _, container in pod.containers:
        security = container.get("securityContext")
        capabilities = security.get("capabilities") if type(security) is dict else None
        drop = capabilities.get("drop") if type(capabilities) is dict else None
        if type(drop) is not list or "ALL" not in drop:
            yield pod.problem(
                ID,
                ((trail, "securityContext"), "capabilities"),
                "drop",
                f"capabilities.drop must include ALL, found "
                f"{'it unset' if drop is None else repr(drop)}",
                drop,
            )
    for trail, index, capability in capabilities_baseline.added(pod):
        if capability != "NET_BIND_SERVICE":
            yield pod.problem(
                ID,
                trail,
                index,
                f"adding capability {short_repr(capability)} is not "
                f"allowed; a container may add only NET_BIND_SERVICE",
                capability,
            )
