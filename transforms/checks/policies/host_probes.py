"""Rule ``host-probes`` (baseline, Kubernetes 1.34+): probes and lifecycle hooks name no host.

>>> from transforms.checks.policies._pod import PodView
>>> pod = {"spec": {"containers": [{"name": "c",
...        "livenessProbe": {"httpGet": {"host": "10.0.0.1", "port": 80}}}]}}
>>> [p.path for p in check(PodView.of(pod, "baseline"))]
['spec.containers[name=c].livenessProbe.httpGet.host']
"""

from __future__ import annotations

from collections.abc import Iterator

from combinators.limits import short_repr
from transforms.checks.policies._pod import PodView
from transforms.checks.problems import Problem

__all__ = ("ID", "PROFILE", "DESCRIPTION", "OVERRIDES", "check")

ID = "host-probes"
PROFILE = "baseline"
DESCRIPTION = "the host field of probes (httpGet, tcpSocket) and lifecycle hooks is unset or empty"
OVERRIDES: tuple[str, ...] = ()

_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
_HOOKS = ("postStart", "preStop")
_ACTIONS = ("httpGet", "tcpSocket")


def check(pod: PodView) -> Iterator[Problem]:
    """Each probe or hook action whose ``host`` is anything but unset or ``""``."""
    for trail, _, container in pod.containers:
        handlers = [((trail, probe), container.get(probe)) for probe in _PROBES]
        lifecycle = container.get("lifecycle")
        if type(lifecycle) is dict:
            handlers += [(((trail, "lifecycle"), hook), lifecycle.get(hook)) for hook in _HOOKS]
        for handler_trail, handler in handlers:
            if type(handler) is not dict:
                continue
            for action in _ACTIONS:
                found = handler.get(action)
                if type(found) is dict and found.get("host") not in (None, ""):
                    yield pod.problem(
                        ID,
                        (handler_trail, action),
                        "host",
                        f"probes and lifecycle hooks may not name a host, "
                        f"found {short_repr(found['host'])}",
                        found["host"],
                    )
