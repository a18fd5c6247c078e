"""Kubernetes resource quantities (``500m``, ``2Gi``, ``1e3``): recognise them, value them exactly.

A quantity is a decimal number with an optional suffix: a binary one
(``Ki Mi Gi Ti Pi Ei``), a decimal one (``n u m k M G T P E``) or an exponent
(``e3``, ``E-2``); the API also takes plain numbers.

>>> quantity_value("1Gi") == quantity_value("1024Mi")
True
>>> quantity_value("500m"), quantity_value(2), quantity_value("2 GB")
(Fraction(1, 2), Fraction(2, 1), None)
>>> is_quantity("1.5Gi"), is_quantity("1GB"), is_quantity("")
(True, False, False)
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from typing import Any

__all__ = ("is_quantity", "quantity_value")

_QUANTITY = re.compile(
    r"(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?P<suffix>[KMGTPE]i|[numkMGTPE]|[eE][+-]?[0-9]+)?\Z")
_BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15,
            "E": 18}


def is_quantity(text: str) -> bool:
    """Whether the text ``text`` is a Kubernetes quantity."""
    return _QUANTITY.match(text) is not None


def quantity_value(value: Any) -> Fraction | None:
    """The exact value of a quantity (text or number), or ``None`` if it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(str(value))
    if not isinstance(value, str):
        return None
    return _text_value(value)


@lru_cache(maxsize=1024)
def _text_value(text: str) -> Fraction | None:
    found = _QUANTITY.match(text)
    if found is None:
        return None
    number = Fraction(found.group("number"))
    suffix = found.group("suffix") or ""
    if suffix in _BINARY:
        return number * Fraction(1024) ** _BINARY[suffix]
    if suffix in _DECIMAL:
        return number * Fraction(10) ** _DECIMAL[suffix]
    return number * Fraction(10) ** int(suffix[1:])
