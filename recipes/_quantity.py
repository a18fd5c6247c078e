"""Kubernetes resource quantities: parse and check them, as the API server does.

A quantity is a decimal number with an optional suffix: a binary one
(``Ki Mi Gi Ti Pi Ei``), a decimal one (``n u m k M G T P E``) or an exponent
(``e3``, ``E-2``).

>>> parse_quantity("16Gi")
Fraction(17179869184, 1)
>>> parse_quantity("500m")
Fraction(1, 2)
>>> check_quantity("size", 8)
'8'
>>> check_quantity("size", "8 GB")
Traceback (most recent call last):
  ...
combinators.errors.ArgumentError: size must be a Kubernetes quantity such as '1Gi', '500m' or '2', got '8 GB'
"""

from __future__ import annotations

from fractions import Fraction

from combinators.errors import ArgumentError, ArgumentTypeError
from combinators.limits import short_repr
from transforms.kube.quantity import QuantityRangeError, is_quantity, quantity_value

__all__ = ("parse_quantity", "check_quantity", "is_quantity")


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
            f"Kubernetes keeps at most 2^63-1 ({2**63 - 1}) in magnitude",
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
