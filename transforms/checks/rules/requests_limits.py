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
"""

from __future__ import annotations

from typing import Any

from transforms.checks.problems import Raw, Trail
from transforms.checks.rules._spec import Spec
from transforms.kube.quantity import QuantityRangeError, quantity_value

__all__ = ("ID", "DESCRIPTION", "check")

ID = "requests-within-limits"
DESCRIPTION = "no resource request exceeds its limit"


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
    if type(requests) is not dict or type(limits) is not dict:
        return
    for resource, request in requests.items():
        if resource not in limits:
            continue
        limit_text = limits[resource]
        if request == limit_text:
            continue
        try:
            wanted, limit = quantity_value(request), quantity_value(limit_text)
        except QuantityRangeError:
            continue
        if wanted is not None and limit is not None and wanted > limit:
            out.append(((here, "requests"), resource,
                        f"request {request} for {resource} exceeds its limit {limit_text}",
                        request, "error"))
