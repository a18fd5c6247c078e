"""Rule ``probes``: probes and lifecycle hooks as the API server checks them
(``validateProbe``, ``validateHandler``, ``validateLifecycle``, ``validateInitContainers``).

A probe, a ``postStart`` or a ``preStop`` has exactly one handler (a merge
that adds ``httpGet`` to a probe with ``exec`` keeps both); its port is
1-65535 or a port name; its counts and seconds are not negative;
``successThreshold`` is 1 for liveness and startup probes; a readiness probe
has no ``terminationGracePeriodSeconds``, other probes a positive one; a
``sleep`` lasts no longer than the pod's grace period. An init container
has no probes nor lifecycle unless it is a sidecar (``restartPolicy: Always``).

>>> out = []
>>> check(Spec({"containers": [{"livenessProbe": {"exec": {"command": ["true"]},
...                                               "httpGet": {"port": 80}}}]}, None), out)
>>> [(key, message) for _, key, message, _, _ in out]
[('httpGet', 'livenessProbe has more than one handler: exec and httpGet; a probe takes one')]
"""

from __future__ import annotations

from typing import Any, TypeGuard

from combinators.limits import short_repr
from transforms.checks.problems import Raw, Trail
from transforms.checks.rules._formats import port_name
from transforms.checks.rules._spec import Spec

__all__ = ("ID", "DESCRIPTION", "check")

ID = "probes"
DESCRIPTION = (
    "a probe or lifecycle hook has one handler; probe counts are not negative; "
    "successThreshold is 1 for liveness and startup probes; init containers but "
    "sidecars have neither"
)

_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
_PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
_HOOK_HANDLERS = ("exec", "httpGet", "tcpSocket", "sleep")
_COUNTS = (
    "initialDelaySeconds",
    "timeoutSeconds",
    "periodSeconds",
    "successThreshold",
    "failureThreshold",
)
_DEFAULT_GRACE = 30  # the API server's default terminationGracePeriodSeconds


def _number(value: Any) -> TypeGuard[float]:
    return type(value) is int or type(value) is float


def check(pod: Spec, out: list[Raw]) -> None:
    """Report every probe and lifecycle hook the API server refuses."""
    grace: Any = None
    for here, list_name, container in pod.containers:
        if list_name == "ephemeralContainers":
            continue  # an ephemeral container cannot be created with its pod
        init = list_name == "initContainers" and container.get("restartPolicy") != "Always"
        for field in _PROBES:
            probe = container.get(field)
            if probe is None:
                continue
            if init:
                out.append(
                    (
                        here,
                        field,
                        f"an init container has no {field} unless it is a "
                        f"sidecar (restartPolicy: Always)",
                        probe,
                        "error",
                    )
                )
            elif type(probe) is dict:
                _probe(probe, field, (here, field), out)
        lifecycle = container.get("lifecycle")
        if lifecycle is None:
            continue
        if init:
            out.append(
                (
                    here,
                    "lifecycle",
                    "an init container has no lifecycle unless it is a "
                    "sidecar (restartPolicy: Always)",
                    lifecycle,
                    "error",
                )
            )
        elif type(lifecycle) is dict:
            for hook in ("postStart", "preStop"):
                handler = lifecycle.get(hook)
                if type(handler) is dict:
                    if grace is None:
                        grace = pod.spec.get("terminationGracePeriodSeconds")
                        grace = grace if _number(grace) else _DEFAULT_GRACE
                    _hook(handler, hook, ((here, "lifecycle"), hook), grace, pod.release, out)


def _handlers(
    handler: dict[str, Any], names: tuple[str, ...], what: str, trail: Trail, out: list[Raw]
) -> None:
    found = [name for name in names if handler.get(name) is not None]
    if not found:
        out.append(
            (
                trail[0],
                trail[1],
                f"{what} needs a handler, one of: {', '.join(names)}",
                handler,
                "error",
            )
        )
        return
    if len(found) > 1:
        kind = "a probe" if names is _PROBE_HANDLERS else "a lifecycle hook"
        out.append(
            (
                trail,
                found[1],
                f"{what} has more than one handler: {' and '.join(found)}; {kind} takes one",
                found,
                "error",
            )
        )
    for name in found:
        action = handler[name]
        if name in ("httpGet", "tcpSocket", "grpc") and type(action) is dict:
            _port(action.get("port"), (trail, name), out)


def _port(port: Any, trail: Trail, out: list[Raw]) -> None:
    if type(port) is str:
        if (wrong := port_name(port)) is not None:
            out.append(
                (
                    trail,
                    "port",
                    f"port {short_repr(port)} is no port number, and as a port name it {wrong}",
                    port,
                    "error",
                )
            )
    elif type(port) is int and not 1 <= port <= 65535:
        out.append(
            (
                trail,
                "port",
                f"port must be between 1 and 65535, inclusive; found {short_repr(port)}",
                port,
                "error",
            )
        )


def _probe(probe: dict[str, Any], field: str, trail: Trail, out: list[Raw]) -> None:
    _handlers(probe, _PROBE_HANDLERS, field, trail, out)
    for count in _COUNTS:
        value = probe.get(count)
        if _number(value) and value < 0:
            out.append(
                (
                    trail,
                    count,
                    f"{count} must not be negative; found {short_repr(value)}",
                    value,
                    "error",
                )
            )
    success = probe.get("successThreshold")
    # 0 is unset: the API server makes it 1
    if field != "readinessProbe" and _number(success) and success > 1:
        out.append(
            (
                trail,
                "successThreshold",
                f"successThreshold of a {field} must be 1; found {short_repr(success)}",
                success,
                "error",
            )
        )
    grace = probe.get("terminationGracePeriodSeconds")
    if grace is not None:
        if field == "readinessProbe":
            out.append(
                (
                    trail,
                    "terminationGracePeriodSeconds",
                    "a readinessProbe has no terminationGracePeriodSeconds",
                    grace,
                    "error",
                )
            )
        elif _number(grace) and grace <= 0:
            out.append(
                (
                    trail,
                    "terminationGracePeriodSeconds",
                    f"terminationGracePeriodSeconds"
                    f" of a probe must be greater than 0; found {short_repr(grace)}",
                    grace,
                    "error",
                )
            )


def _hook(
    handler: dict[str, Any],
    hook: str,
    trail: Trail,
    grace: Any,
    release: tuple[int, ...],
    out: list[Raw],
) -> None:
    _handlers(handler, _HOOK_HANDLERS, hook, trail, out)
    sleep = handler.get("sleep")
    if type(sleep) is dict and _number(seconds := sleep.get("seconds")):
        # a zero sleep is allowed since Kubernetes 1.33
        least = 0 if release >= (1, 33) else 1
        if seconds < least or seconds > grace:
            out.append(
                (
                    (trail, "sleep"),
                    "seconds",
                    f"sleep seconds must be at least {least} "
                    f"and at most terminationGracePeriodSeconds ({short_repr(grace)}); found {short_repr(seconds)}",
                    seconds,
                    "error",
                )
            )
