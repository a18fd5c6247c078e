"""Kubernetes resource quantities (``500m``, ``2Gi``, ``1e3``): recognise them, value them safely.

A quantity is a decimal number with an optional suffix: a binary one
(``Ki Mi Gi Ti Pi Ei``), a decimal one (``n u m k M G T P E``) or an exponent
(``e3``, ``E-2``); the API also takes plain numbers.

A quantity is valued as the API server keeps it (``resource.Quantity``): no
magnitude above 2^63-1 (:data:`MAX_QUANTITY`), and a fraction of a nano unit
rounded up, away from zero (``0.1n`` is ``1n``). podfold refuses what is out
of range, where Kubernetes would cap it or silently overflow. The work is
bounded by the length of the text, never by the value it writes: ``"1e999999999"``
is refused at once, and a quantity written with 5,000 digits is valued from
the few dozen that count.

>>> quantity_value("1Gi") == quantity_value("1024Mi")
True
>>> quantity_value("500m"), quantity_value(2), quantity_value("2 GB")
(Fraction(1, 2), Fraction(2, 1), None)
>>> is_quantity("1.5Gi"), is_quantity("1GB"), is_quantity("")
(True, False, False)
>>> quantity_value("1e999999999")
Traceback (most recent call last):
  ...
transforms.kube.quantity.QuantityRangeError: quantity '1e999999999' is out of range: Kubernetes keeps at most 2^63-1 (9223372036854775807) in magnitude

Factories that take a quantity as an argument check it with
:func:`check_quantity` (an :class:`~combinators.errors.ArgumentError` naming
the argument) and value it with :func:`parse_quantity`:

>>> parse_quantity("16Gi"), check_quantity("size", 8)
(Fraction(17179869184, 1), '8')
>>> check_quantity("size", "8 GB")
Traceback (most recent call last):
  ...
combinators.errors.ArgumentError: size must be a Kubernetes quantity such as '1Gi', '500m' or '2', got '8 GB'
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from typing import Any

from combinators.errors import ArgumentError, ArgumentTypeError, TransformError
from combinators.limits import short_repr
from combinators.paths import PathLike, as_path

__all__ = (
    "MAX_QUANTITY",
    "QuantityRangeError",
    "is_quantity",
    "quantity_value",
    "parse_quantity",
    "check_quantity",
)

MAX_QUANTITY = 2**63 - 1
"""The largest magnitude a Kubernetes quantity holds (``resource.Quantity``'s documented bound)."""

_QUANTITY = re.compile(
    r"(?P<sign>[+-]?)(?P<whole>[0-9]*)(?:\.(?P<fraction>[0-9]*))?"
    r"(?P<suffix>[KMGTPE]i|[numkMGTPE]|[eE](?P<exponent>[+-]?[0-9]+))?\Z"
)
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_NANO = Fraction(1, 10**9)
# Digits below 10**_CUT only decide a rounding up; keeping down to 10**-70 makes a
# nano unit a whole multiple of the smallest step kept, even times 2**60 (Ei).
_CUT = -70


class QuantityRangeError(TransformError, ValueError):
    """A quantity beyond what Kubernetes holds (more than 2^63-1 in magnitude).

    ``value`` is the quantity as written; ``path`` where it is, when known.

    >>> err = QuantityRangeError("-1e20", path="spec.containers[0].resources.limits.cpu")
    >>> print(err)
    quantity '-1e20' is out of range: Kubernetes keeps at most 2^63-1 (9223372036854775807) in magnitude (in spec.containers[0].resources.limits.cpu)
    >>> err.value, str(err.path)
    ('-1e20', 'spec.containers[0].resources.limits.cpu')
    """

    def __init__(self, value: Any, *, path: PathLike | None = None) -> None:
        super().__init__(
            f"quantity {short_repr(value, 60)} is out of range: Kubernetes keeps "
            f"at most "
            f"2^63-1 ({MAX_QUANTITY}) in magnitude",
            path=None if path is None else as_path(path, "path"),
        )
        self.value = value


def is_quantity(text: str) -> bool:
    """Whether the text ``text`` is written as a Kubernetes quantity (whatever its size).

    >>> is_quantity("1e999999999"), is_quantity("."), is_quantity("5.")
    (True, False, True)
    """
    found = _QUANTITY.match(text)
    return found is not None and bool(found["whole"] or found["fraction"])


def quantity_value(value: Any, *, path: PathLike | None = None) -> Fraction | None:
    """The value of a quantity (text or number) as Kubernetes keeps it, or ``None`` if it is none.

    A quantity beyond 2^63-1 in magnitude is a :class:`QuantityRangeError`
    (naming ``path`` when given); a fraction of a nano unit is rounded up,
    away from zero, as the API server does.

    >>> quantity_value("0.5Ki"), quantity_value("-1.5"), quantity_value("1e-999999999")
    (Fraction(512, 1), Fraction(-3, 2), Fraction(1, 1000000000))
    >>> quantity_value(float("nan")), quantity_value(True), quantity_value("1" + "0" * 5000 + "e-4990")
    (None, None, Fraction(10000000000, 1))
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        if -MAX_QUANTITY <= value <= MAX_QUANTITY:
            return Fraction(value)
        raise QuantityRangeError(value, path=path)
    if isinstance(value, float):
        value = repr(value)  # the shortest text that reads back as this float; 'nan' is none
    elif not isinstance(value, str):
        return None
    found = _text_value(value)
    if found is _OUT_OF_RANGE:
        raise QuantityRangeError(value, path=path)
    return found  # type: ignore[return-value]


def parse_quantity(text: str) -> Fraction:
    """The value of the quantity ``text`` as Kubernetes keeps it; an :class:`ArgumentError`
    (a ``ValueError``) if it is none, or beyond 2^63-1 in magnitude.

    >>> parse_quantity("1e3"), parse_quantity("0.5Ki")
    (Fraction(1000, 1), Fraction(512, 1))
    >>> parse_quantity("2 GB")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: parse_quantity(): text: not a Kubernetes quantity: '2 GB'
    """
    try:
        value = quantity_value(text) if isinstance(text, str) else None
    except QuantityRangeError as err:
        raise ArgumentError(
            err.message, argument="text", factory="parse_quantity", value=text
        ) from None
    if value is None:
        raise ArgumentError(
            f"not a Kubernetes quantity: {text!r}",
            argument="text",
            factory="parse_quantity",
            value=text,
        )
    return value


def check_quantity(argument: str, value: object, *, positive: bool = False) -> str:
    """``value`` as quantity text, or an :class:`ArgumentError` (:class:`ArgumentTypeError`
    for a value of the wrong type) naming ``argument``; the caller names its factory.

    Integers and floats are accepted and written as text. With
    ``positive=True`` zero and negative quantities are refused.

    >>> check_quantity("size", "-1Gi", positive=True)
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: size must be a positive quantity, got '-1Gi'
    >>> check_quantity("size", "1e999999999")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: size: quantity '1e999999999' is out of range: Kubernetes keeps at most 2^63-1 (9223372036854775807) in magnitude
    """
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ArgumentTypeError(
            f"{argument} must be a quantity (text such as '1Gi', or a "
            f"number), got {type(value).__name__}: {short_repr(value)}",
            argument=argument,
            value=value,
        )
    if isinstance(value, int) and value.bit_length() > 63:  # str() fails past 4,300 digits
        raise ArgumentError(
            f"{argument}: quantity {short_repr(value)} is out of range: "
            f"Kubernetes keeps at most 2^63-1 ({MAX_QUANTITY}) in magnitude",
            argument=argument,
            value=value,
        )
    text = (
        value
        if isinstance(value, str)
        else (str(value) if isinstance(value, int) or not value.is_integer() else str(int(value)))
    )
    if not is_quantity(text):
        raise ArgumentError(
            f"{argument} must be a Kubernetes quantity such as '1Gi', '500m' "
            f"or '2', got {short_repr(value)}",
            argument=argument,
            value=value,
        )
    try:
        amount = quantity_value(text)
    except QuantityRangeError as err:
        raise ArgumentError(f"{argument}: {err.message}", argument=argument, value=value) from None
    if positive and amount is not None and amount <= 0:
        raise ArgumentError(
            f"{argument} must be a positive quantity, got {value!r}", argument=argument, value=value
        )
    return text


_OUT_OF_RANGE = object()


@lru_cache(maxsize=1024)
def _text_value(text: str) -> Fraction | object | None:
    found = _QUANTITY.match(text)
    if found is None:
        return None
    whole, fraction = found["whole"], found["fraction"] or ""
    if not whole and not fraction:
        return None
    digits = (whole + fraction).lstrip("0")
    trimmed = digits.rstrip("0")
    if not trimmed:
        return Fraction(0)
    # the value is int(trimmed) * 10**exponent * 2**bits, trimmed free of end zeros
    suffix = found["suffix"] or ""
    bits = _BINARY.get(suffix, 0)
    if found["exponent"] is not None:
        written = found["exponent"].lstrip("+-").lstrip("0") or "0"
        if len(written) > 12:  # far beyond any bound: no need to read it
            return _OUT_OF_RANGE if not found["exponent"].startswith("-") else _tiny(found)
        exponent = int(found["exponent"])
    else:
        exponent = _DECIMAL.get(suffix, 0)
    exponent += len(digits) - len(trimmed) - len(fraction)
    # 10**(len - 1 + exponent) <= magnitude, and 2**63 < 10**19
    if len(trimmed) - 1 + exponent + (bits * 3 + 9) // 10 > 19:
        return _OUT_OF_RANGE
    if len(trimmed) + exponent + (bits + 2) // 3 < _CUT:  # below 10**_CUT
        return _tiny(found)
    inexact = False
    if exponent < _CUT:  # keep the digits down to 10**_CUT; the rest only round up
        kept = len(trimmed) - (_CUT - exponent)
        inexact = True  # trimmed ends in a non-zero digit, now dropped
        trimmed, exponent = trimmed[:kept] or "0", _CUT
    magnitude = Fraction(int(trimmed)) * Fraction(10) ** exponent * 2**bits
    nanos = magnitude / _NANO
    if nanos.denominator != 1 or inexact:  # round up to a whole nano unit, away from zero
        nanos = Fraction(int(nanos) + 1)
    magnitude = nanos * _NANO
    if magnitude > MAX_QUANTITY:
        return _OUT_OF_RANGE
    value: Fraction = -magnitude if found["sign"] == "-" else magnitude
    return value


def _tiny(found: re.Match[str]) -> Fraction:
    """A non-zero quantity far below a nano unit: one nano unit, as Kubernetes rounds it."""
    return -_NANO if found["sign"] == "-" else _NANO
