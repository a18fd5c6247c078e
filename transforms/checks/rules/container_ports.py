"""Rule ``container-ports``: container ports as the API server checks them
(``validateContainerPorts``, ``checkHostPortConflicts``, ``validatePodHostNetworkDeps``).

A port's ``name`` is an IANA service name (at most 15 characters, lower-case
letters, digits and '-', at least one letter) and unique in its container;
``containerPort`` is 1 to 65535, and so is ``hostPort`` when set; no two
containers take one ``hostPort`` (with its protocol and ``hostIP``; each
init container on its own, as they run one by one); with ``hostNetwork``,
a container's ``hostPort`` is its ``containerPort``.

The same ``containerPort`` and protocol declared twice in a pod is a
*warning*: the API server accepts it and warns, so this rule does too.

>>> out = []
>>> check(Spec({"containers": [{"ports": [{"containerPort": 80, "name": "http"},
...                                       {"containerPort": 81, "name": "http"}]}]}, None), out)
>>> [(key, message) for _, key, message, _, _ in out]
[('name', "port name 'http' is already the name of ports[0] of this container")]
"""

from __future__ import annotations

from typing import Any

from combinators.limits import short_repr
from transforms.checks.problems import Raw
from transforms.checks.rules._formats import port_name
from transforms.checks.rules._spec import Spec

__all__ = ("ID", "DESCRIPTION", "check")

ID = "container-ports"
DESCRIPTION = (
    "port names are IANA service names, unique per container; port numbers are "
    "1-65535; no two containers take one hostPort; with hostNetwork, hostPort is "
    "containerPort (a containerPort declared twice is a warning)"
)

_RANGE = "must be between 1 and 65535, inclusive"

Where = tuple[str, Any, int]  # a port: its container's list, the container's name, its index


def _number(value: Any) -> int | None:
    """``value`` as a port number to check; ``None`` for no number, or one out of int32's
    range (the schema check's to report)."""
    if type(value) is float and value.is_integer():
        value = int(value)
    return value if type(value) is int and -(2**31) <= value < 2**31 else None


def _where(where: Where) -> str:
    list_name, name, index = where
    container = (
        f"{list_name}[name={short_repr(name, quoted=False)}]" if type(name) is str else list_name
    )
    return f"{container}.ports[{index}]"


def check(pod: Spec, out: list[Raw]) -> None:
    """Report every port the API server refuses, and warn of ports declared twice."""
    host_network = pod.spec.get("hostNetwork") is True
    host_ports: dict[tuple[Any, Any, int], Where] = {}
    declared: dict[tuple[int, Any], list[tuple[Where, Any, int]]] = {}
    for here, list_name, container in pod.containers:
        ports = container.get("ports")
        if type(ports) is not list or not ports:
            continue
        # init containers run one by one: only their own ports can clash
        taken = {} if list_name == "initContainers" else host_ports
        names: dict[str, int] = {}
        ports_trail = (here, "ports")
        for index, port in enumerate(ports):
            if type(port) is not dict:
                continue
            name = port.get("name")
            if name and type(name) is str:  # an empty name is no name
                if (wrong := port_name(name)) is not None:
                    out.append(
                        (
                            (ports_trail, index),
                            "name",
                            f"port name {short_repr(name)} {wrong}",
                            name,
                            "error",
                        )
                    )
                elif name in names:
                    out.append(
                        (
                            (ports_trail, index),
                            "name",
                            f"port name {short_repr(name)} is already "
                            f"the name of ports[{names[name]}] of this container",
                            name,
                            "error",
                        )
                    )
                else:
                    names[name] = index
            number = port.get("containerPort")
            if type(number) is not int or not 0 < number < 65536:
                number = _number(number)
                if number is not None and not 0 < number < 65536:
                    out.append(
                        (
                            (ports_trail, index),
                            "containerPort",
                            f"containerPort {_RANGE}; found {number}",
                            number,
                            "error",
                        )
                    )
                    number = None
            protocol = port.get("protocol") or "TCP"
            host_ip = port.get("hostIP") or ""
            if type(protocol) is not str or type(host_ip) is not str:
                continue  # the schema check's to report; no clash to tell without them
            host = port.get("hostPort")
            if host is not None:
                host = _number(host)
                if host is not None and host != 0 and not 0 < host < 65536:
                    out.append(
                        (
                            (ports_trail, index),
                            "hostPort",
                            f"hostPort {_RANGE}; found {host}",
                            host,
                            "error",
                        )
                    )
                    host = None
            if host:
                where = (list_name, container.get("name"), index)
                if list_name != "ephemeralContainers":
                    key = (protocol, host_ip, host)
                    if key in taken:
                        out.append(
                            (
                                (ports_trail, index),
                                "hostPort",
                                f"hostPort {host}/"
                                f"{protocol} is already taken by {_where(taken[key])}",
                                host,
                                "error",
                            )
                        )
                    else:
                        taken[key] = where
                if (
                    host_network
                    and list_name == "containers"
                    and number is not None
                    and host != number
                ):
                    out.append(
                        (
                            (ports_trail, index),
                            "hostPort",
                            f"hostPort must match "
                            f"containerPort ({number}) when hostNetwork is true; found "
                            f"{host}",
                            host,
                            "error",
                        )
                    )
            else:
                host = 0
            if number is not None:
                others = declared.get((number, protocol))
                where = (list_name, container.get("name"), index)
                if others is None:
                    declared[(number, protocol)] = [(where, host_ip, host)]
                else:
                    _declared(others, where, number, host_ip, host, (ports_trail, index), out)


def _declared(
    others: list[tuple[Where, Any, int]],
    where: Where,
    number: int,
    host_ip: Any,
    host: int,
    at: Any,
    out: list[Raw],
) -> None:
    """Warn, as the API server does, of a containerPort and protocol declared before."""
    for other, other_ip, other_host in others:
        if host_ip == other_ip and host == other_host:
            how = "duplicate"
        elif host == 0 or other_host == 0:
            how = "overlapping"
        elif host == other_host and (host_ip == "") != (other_ip == ""):
            how = "dangerously ambiguous"
        else:
            continue
        out.append(
            (at, "containerPort", f"{how} port definition with {_where(other)}", number, "warning")
        )
        break
    others.append((where, host_ip, host))
