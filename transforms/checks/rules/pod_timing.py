"""Rule ``pod-timing``: the pod's deadline and grace period, as the API server reads them.

``activeDeadlineSeconds`` is 1 to 2147483647 (``ValidatePodSpec`` refuses
0, which would end the pod at once). A negative
``terminationGracePeriodSeconds`` is a *warning*: the API server accepts it,
treats it as 1 and warns, so this rule does too.

>>> out = []
>>> check(Spec({"activeDeadlineSeconds": 0, "terminationGracePeriodSeconds": -1}, None), out)
>>> [(key, message, severity) for _, key, message, _, severity in out]
[('activeDeadlineSeconds', 'activeDeadlineSeconds must be between 1 and 2147483647, inclusive; found 0', 'error'), ('terminationGracePeriodSeconds', 'terminationGracePeriodSeconds must be >= 0; the API server treats -1 as 1', 'warning')]
"""

from __future__ import annotations

from combinators.limits import short_repr
from transforms.checks.problems import Raw
from transforms.checks.rules._spec import Spec

__all__ = ("ID", "DESCRIPTION", "check")

ID = "pod-timing"
DESCRIPTION = (
    "activeDeadlineSeconds is 1 to 2147483647; a negative "
    "terminationGracePeriodSeconds is a warning"
)

_MAX_INT32 = 2**31 - 1


def check(pod: Spec, out: list[Raw]) -> None:
    """Report an activeDeadlineSeconds out of range; warn of a negative grace period."""
    deadline = pod.spec.get("activeDeadlineSeconds")
    if (type(deadline) is int or type(deadline) is float) and not 1 <= deadline <= _MAX_INT32:
        out.append(
            (
                pod.trail,
                "activeDeadlineSeconds",
                f"activeDeadlineSeconds must be between "
                f"1 and {_MAX_INT32}, inclusive; found {_text(deadline)}",
                deadline,
                "error",
            )
        )
    grace = pod.spec.get("terminationGracePeriodSeconds")
    if (type(grace) is int or type(grace) is float) and grace < 0:
        out.append(
            (
                pod.trail,
                "terminationGracePeriodSeconds",
                f"terminationGracePeriodSeconds"
                f" must be >= 0; the API server treats {_text(grace)} as 1",
                grace,
                "warning",
            )
        )


def _text(number: float) -> str:
    if type(number) is int:  # float() of an int past 1e308 overflows
        return short_repr(number)
    return str(int(number)) if number.is_integer() else str(number)
