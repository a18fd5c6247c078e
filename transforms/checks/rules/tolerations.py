"""Rule ``tolerations``: tolerations as the API server checks them (``ValidateTolerations``).

A ``key`` is a qualified name (as a label key); a toleration without a key
has ``operator: Exists`` (it tolerates every taint); ``Exists`` goes with no
``value``, ``Equal`` (the default) with a label value; ``tolerationSeconds``
goes with ``effect: NoExecute`` only.

>>> out = []
>>> check(Spec({"tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule",
...                              "tolerationSeconds": 60}]}, None), out)
>>> [(key, message) for _, key, message, _, _ in out]
[('effect', "effect must be NoExecute when tolerationSeconds is set; found 'NoSchedule'")]
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from combinators.limits import short_repr
from transforms.checks.problems import Raw
from transforms.checks.rules._formats import label_value, qualified_name
from transforms.checks.rules._spec import Spec

__all__ = ("ID", "DESCRIPTION", "check")

ID = "tolerations"
DESCRIPTION = (
    "toleration keys are qualified names; no key means operator Exists; Exists has "
    "no value; tolerationSeconds goes with effect NoExecute"
)


def check(pod: Spec, out: list[Raw]) -> None:
    """Report every toleration the API server refuses."""
    tolerations = pod.spec.get("tolerations")
    if type(tolerations) is not list:
        return
    trail = (pod.trail, "tolerations")
    for index, toleration in enumerate(tolerations):
        if type(toleration) is not dict:
            continue
        try:  # pods repeat a handful of tolerations: each is looked at once
            found = _verdict(tuple(toleration.items()))
        except TypeError:  # a value that is no scalar (the schema check's): look anyway
            found = _look(toleration)
        for key, message, value in found:
            out.append(((trail, index), key, message, value, "error"))


@lru_cache(maxsize=4096)
def _verdict(items: tuple[tuple[str, Any], ...]) -> tuple[tuple[str, str, Any], ...]:
    return _look(dict(items))


def _look(toleration: dict[str, Any]) -> tuple[tuple[str, str, Any], ...]:
    """``(field, message, what was found)`` for each thing wrong with ``toleration``."""
    found: list[tuple[str, str, Any]] = []
    key, operator = toleration.get("key"), toleration.get("operator")
    if not (key is None or type(key) is str) or not (operator is None or type(operator) is str):
        return ()  # the schema check's to report
    if key:
        if (wrong := qualified_name(key)) is not None:
            found.append(("key", f"toleration key {short_repr(key)} {wrong}", key))
    elif operator != "Exists":
        found.append(
            (
                "operator",
                f"operator must be Exists when key is empty (a toleration of "
                f"every taint); found {short_repr(operator or 'Equal')}",
                operator,
            )
        )
    value = toleration.get("value")
    if value and type(value) is str:  # an empty value goes with either operator
        if operator in (None, "", "Equal") and (wrong := label_value(value)) is not None:
            found.append(("value", f"toleration value {short_repr(value)} {wrong}", value))
        elif operator == "Exists":
            found.append(
                (
                    "value",
                    f"value must be empty when operator is Exists; found {short_repr(value)}",
                    value,
                )
            )
    if toleration.get("tolerationSeconds") is not None:
        effect = toleration.get("effect")
        if effect != "NoExecute":
            found.append(
                (
                    "effect",
                    f"effect must be NoExecute when tolerationSeconds is set; "
                    f"found {repr(effect) if effect else 'none'}",
                    effect,
                )
            )
    return tuple(found)
