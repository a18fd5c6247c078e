"""Rule ``resource-names``: what a container requests and limits, as the API server checks it
(``validateContainerResourceName``, ``ValidateResourceQuantityValue``).

A resource without a domain is a standard one (``cpu``, ``memory``,
``ephemeral-storage``, ``hugepages-<size>``): ``gpu`` is refused, where
``nvidia.com/gpu`` was meant; one with a domain is a qualified name. No
request or limit is negative, in containers or the pod's own ``resources``;
huge pages go with a cpu or memory request or limit.

>>> out = []
>>> check(Spec({"containers": [{"resources": {"limits": {"gpu": 1, "cpu": "-1"}}}]}, None), out)
>>> [(key, message) for _, key, message, _, _ in out]
[('gpu', "'gpu' is no standard resource of a container (cpu, memory, ephemeral-storage, hugepages-<size>); other resources have a domain, such as nvidia.com/gpu"), ('cpu', 'cpu -1 must not be negative')]
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from combinators.limits import short_repr
from transforms.checks.problems import Raw, Trail
from transforms.checks.rules._formats import qualified_name
from transforms.checks.rules._spec import Spec
from transforms.kube.quantity import QuantityRangeError, quantity_value

__all__ = ("ID", "DESCRIPTION", "check")

ID = "resource-names"
DESCRIPTION = (
    "requests and limits name standard resources or qualified ones, none negative; "
    "huge pages go with cpu or memory"
)

_STANDARD = frozenset({"cpu", "memory", "ephemeral-storage"})


def check(pod: Spec, out: list[Raw]) -> None:
    """Report every resource name a container may not use, and every negative quantity."""
    for here, list_name, container in pod.containers:
        resources = container.get("resources")
        if type(resources) is dict and list_name != "ephemeralContainers":
            _resources(resources, (here, "resources"), True, out)
    resources = pod.spec.get("resources")
    if type(resources) is dict:
        _resources(resources, (pod.trail, "resources"), False, out)


def _resources(resources: dict[str, Any], trail: Trail, named: bool, out: list[Raw]) -> None:
    huge_pages = cpu_or_memory = False
    for which in ("requests", "limits"):
        amounts = resources.get(which)
        if type(amounts) is not dict:
            continue
        for resource, amount in amounts.items():
            if resource in _STANDARD:
                if resource != "ephemeral-storage":
                    cpu_or_memory = True
            elif type(resource) is str:
                if resource.startswith("hugepages-"):
                    huge_pages = True
                elif named and (wrong := _name(resource)) is not None:
                    out.append(((trail, which), resource, wrong, resource, "error"))
            # a quantity as text is negative only with a '-': the usual case, settled at once
            if (type(amount) is str and "-" in amount and _negative(amount)) or (
                (type(amount) is int or type(amount) is float) and amount < 0
            ):
                out.append(
                    (
                        (trail, which),
                        resource,
                        f"{resource} {amount} must not be negative",
                        amount,
                        "error",
                    )
                )
    if named and huge_pages and not cpu_or_memory:
        out.append(
            (
                trail[0],
                trail[1],
                "huge pages need a cpu or memory request or limit beside them",
                None,
                "error",
            )
        )


def _negative(amount: Any) -> bool:
    if type(amount) is str:
        try:
            value = quantity_value(amount)
        except QuantityRangeError:
            return False  # the schema check's to report
        return value is not None and value < 0
    return (type(amount) is int or type(amount) is float) and amount < 0


@lru_cache(maxsize=4096)
def _name(resource: str) -> str | None:
    """What keeps ``resource`` from naming a resource of a container (``None``: nothing)."""
    if "/" not in resource:
        return (
            f"{short_repr(resource)} is no standard resource of a container (cpu, memory, "
            f"ephemeral-storage, hugepages-<size>); other resources have a domain, such as "
            f"nvidia.com/gpu"
        )
    if (wrong := qualified_name(resource)) is not None:
        return f"resource name {short_repr(resource)} {wrong}"
    if "kubernetes.io/" not in resource and (
        resource.startswith("requests.") or qualified_name(f"requests.{resource}") is not None
    ):
        return (
            f"resource name {short_repr(resource)} is no extended resource name (a domain outside "
            f"kubernetes.io, not starting with 'requests.')"
        )
    return None
