"""Rule ``containers-required``: a pod runs at least one container.

The schema makes ``containers`` a required field, so a pod without the key
is refused there; an empty list passes the schema, and the API server
refuses it (``spec.containers: Required value``). An overlay that removes
the last container (``remove_at("spec.containers[name=app]")``, ``containers:
!replace []``) leaves one.

>>> out = []
>>> check(Spec({"containers": []}, None), out)
>>> [(key, message) for _, key, message, _, _ in out]
[('containers', 'a pod needs at least one container; the list is empty')]
>>> out = []
>>> check(Spec({"containers": [{"name": "c", "image": "x"}]}, None), out)
>>> out
[]
"""

from __future__ import annotations

from transforms.checks.problems import Raw
from transforms.checks.rules._spec import Spec

__all__ = ("ID", "DESCRIPTION", "check")

ID = "containers-required"
DESCRIPTION = "a pod has at least one container"


def check(pod: Spec, out: list[Raw]) -> None:
    """Report an empty ``containers`` list (a missing one is the schema check's)."""
    containers = pod.spec.get("containers")
    if type(containers) is list and not containers:
        out.append(
            (
                pod.trail,
                "containers",
                "a pod needs at least one container; the list is empty",
                containers,
                "error",
            )
        )
