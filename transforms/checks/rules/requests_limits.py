"""Rule ``requests-within-limits``: no resource request exceeds its limit.

Quantities compare by value (``"1Gi"`` equals ``"1024Mi"``), as Kubernetes
keeps them, in time bounded by their text (``"1e999999999"`` builds no huge
number); checked for every container and for the pod-level ``resources``. A
request or limit that is no quantity, or one out of range, is the schema
check's to report, not this rule's.

>>> out = []
>>> check(Spec({"containers": [{"resources": {"requests": {"cpu": "2"},
...                                           "limits": {"cpu": "1500m"}}}]}, None), out)
>>> [message for _, _, message, _, _ in out]
['request 2 for cpu exceeds its limit 1500m']

Extended resources (a name with a domain outside ``kubernetes.io``, such as
``nvidia.com/gpu``) and huge pages cannot be overcommitted: the API server
refuses a request that differs from its limit, or has none, and an extended
resource in a fraction of a unit.

>>> out = []
>>> check(Spec({"containers": [{"resources": {"requests": {"nvidia.com/gpu": "1"},
...                                           "limits": {"nvidia.com/gpu": "2"}}}]}, None), out)
>>> [message for _, _, message, _, _ in out]
['request 1 for nvidia.com/gpu must equal its limit 2 (an extended resource cannot be overcommitted)']
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from combinators.limits import short_repr
from transforms.checks.problems import Raw, Trail
from transforms.checks.rules._spec import Spec
from transforms.kube.quantity import QuantityRangeError, quantity_value

__all__ = ("ID", "DESCRIPTION", "check")

ID = "requests-within-limits"
DESCRIPTION = (
    "no resource request exceeds its limit; extended resources and huge pages: "
    "the request equals the limit, in whole units for extended resources"
)


def check(pod: Spec, out: list[Raw]) -> None:
    """Report every request above its limit, in each container, then the pod's own."""
    for here, _, container in pod.containers:
        resources = container.get("resources")
        if type(resources) is dict:
            _within_limits(resources, (here, "resources"), out)
    resources = pod.spec.get("resources")
    if type(resources) is dict:
        _within_limits(resources, (pod.trail, "resources"), out)


def _within_limits(resources: dict[str, Any], here: Trail, out: list[Raw]) -> None:
    requests, limits = resources.get("requests"), resources.get("limits")
    if type(limits) is not dict:
        limits = None
    else:
        for resource, limit_text in limits.items():
            if "/" in resource:  # only an extended resource is counted in whole units
                _whole(resource, limit_text, (here, "limits"), out)
    if type(requests) is not dict:
        return
    for resource, request in requests.items():
        limit_text = limits.get(resource, _NONE) if limits is not None else _NONE
        if request == limit_text:
            continue  # the usual case: equal as written, whole if the limit is
        special = "/" in resource or resource.startswith("hugepages-")
        if special and _whole(resource, request, (here, "requests"), out):
            continue
        fixed = _fixed(resource) if special else ""
        if limit_text is _NONE:
            if fixed:
                out.append(
                    (
                        (here, "requests"),
                        resource,
                        f"request {_shown(request)} for {_shown(resource)} needs a limit, "
                        f"equal to it ({fixed} "
                        f"cannot be overcommitted)",
                        request,
                        "error",
                    )
                )
            continue
        try:
            order = _order(request, limit_text)
        except TypeError:  # a request or limit that is no scalar: the schema check's
            continue
        if order is None:
            continue
        if fixed and order != 0:
            out.append(
                (
                    (here, "requests"),
                    resource,
                    f"request {_shown(request)} for {_shown(resource)} must equal its "
                    f"limit {_shown(limit_text)} ({fixed} cannot be overcommitted)",
                    request,
                    "error",
                )
            )
        elif order > 0:
            out.append(
                (
                    (here, "requests"),
                    resource,
                    f"request {_shown(request)} for {_shown(resource)} exceeds its limit "
                    f"{_shown(limit_text)}",
                    request,
                    "error",
                )
            )


_NONE: Any = object()  # no limit for the resource


@lru_cache(maxsize=4096)
def _order(request: Any, limit: Any) -> int | None:
    """-1, 0 or 1 as ``request`` is below, equal to or above ``limit`` by value; ``None`` when
    either is no quantity, or one out of range (the schema check's to report).

    Pods repeat a handful of request and limit pairs: each is compared once (comparing
    the exact values they stand for is most of what this rule costs).
    """
    try:
        wanted, limit_value = quantity_value(request), quantity_value(limit)
    except QuantityRangeError:
        return None
    if wanted is None or limit_value is None:
        return None
    return (wanted > limit_value) - (wanted < limit_value)


def _fixed(resource: Any) -> str:
    """What keeps ``resource``'s request equal to its limit, as the API server's
    validation reads the name: an extended resource or huge pages; ``''`` for others."""
    if not isinstance(resource, str):
        return ""
    if resource.startswith("hugepages-"):
        return "huge pages"
    if (
        "/" in resource
        and "kubernetes.io/" not in resource
        and not resource.startswith("requests.")
    ):
        return "an extended resource"
    return ""


def _whole(resource: Any, value: Any, here: Trail, out: list[Raw]) -> bool:
    """Report an extended resource's quantity that is no whole number; whether it did."""
    if (
        type(value) is int
        or (type(value) is str and value.isdigit())
        or _fixed(resource) != "an extended resource"
    ):
        return False  # a whole number as written: the usual case, settled without a parse
    try:
        amount = quantity_value(value)
    except QuantityRangeError:
        return False
    if amount is None or amount.denominator == 1:
        return False
    out.append(
        (
            here,
            resource,
            f"{_shown(value)} of {_shown(resource)} is not a whole number "
            f"(an extended "
            f"resource is counted in units)",
            value,
            "error",
        )
    )
    return True


def _shown(value: Any) -> str:
    """``value`` as a message writes it: a quantity's text as it is, a number's digits,
    short either way (an int past 4,300 digits cannot even be written)."""
    return short_repr(value, quoted=type(value) is not str)
