"""Checks of recipe arguments: fail at construction, naming the argument,
what was given and what is allowed.

A bad value raises :class:`~combinators.ArgumentError`, a value of the wrong
type :class:`~combinators.ArgumentTypeError` (a ``ValueError`` and a
``TypeError`` too); the recipe that was called adds its name.

>>> check_choice("operator", "Exist", ("Exists", "Equal"))
Traceback (most recent call last):
  ...
combinators.errors.ArgumentError: operator must be one of 'Exists', 'Equal', got 'Exist'; did you mean Exists?
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, NoReturn, TypeVar

from combinators.errors import ArgumentError, ArgumentTypeError
from combinators.limits import MAX_NAME, short_names, short_repr
from combinators.near import did_you_mean, near_misses

__all__ = (
    "check_choice",
    "check_nonempty_string",
    "check_int",
    "INT64_MAX",
    "check_bool",
    "check_dns_label",
    "check_qualified_name",
    "check_label_value",
    "check_string_map",
    "scalar_text",
    "merge_kwargs",
    "bad_value",
    "bad_type",
    "naming_factory",
)

T = TypeVar("T")

_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")
_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\Z")


def _named(argument: str) -> str:
    """An argument's name, for a message: a recipe may name it by a user's key
    (``label 'team'``), of any length."""
    return short_repr(argument, MAX_NAME, quoted=False)


def bad_value(argument: str, value: Any, message: str) -> NoReturn:
    """Raise an :class:`ArgumentError`: ``argument`` was given ``value``, which ``message`` faults.

    >>> bad_value("weight", 101, "weight must be between 1 and 100, got 101")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: weight must be between 1 and 100, got 101
    """
    raise ArgumentError(message, argument=argument, value=value)


def bad_type(argument: str, value: Any, wanted: str) -> NoReturn:
    """Raise an :class:`ArgumentTypeError`: ``argument`` must be ``wanted``, and ``value`` is not.

    >>> bad_type("count", "8", "an integer")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentTypeError: count must be an integer, got str: '8'
    """
    raise ArgumentTypeError(
        f"{_named(argument)} must be {wanted}, got {type(value).__name__}: {short_repr(value)}",
        argument=argument,
        value=value,
    )


@contextmanager
def naming_factory(factory: str) -> Iterator[None]:
    """Within the block, an :class:`ArgumentError` names ``factory`` (unless it names one already).

    >>> with naming_factory("SecretKey"):
    ...     check_nonempty_string("name", "")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: SecretKey(): name must be a non-empty string, got ''
    """
    try:
        yield
    except ArgumentError as err:
        err.in_factory(factory)
        raise


def check_choice(argument: str, value: Any, allowed: Iterable[T]) -> T:
    """``value`` if it is one of ``allowed``, else an error listing them.

    A value of a type none of ``allowed`` has is an :class:`ArgumentTypeError`.

    >>> check_choice("policy", 1, ("Always", "Never"))
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentTypeError: policy must be one of 'Always', 'Never', got int: 1
    """
    options = tuple(allowed)
    for option in options:
        if type(option) is type(value) and option == value:
            return option
    listed = ", ".join(repr(option) for option in options)
    if not any(type(option) is type(value) for option in options):
        bad_type(argument, value, f"one of {listed}")
    hint = did_you_mean(near_misses(str(value), [str(o) for o in options], n=1))
    bad_value(
        argument,
        value,
        f"{_named(argument)} must be one of {listed}, got {short_repr(value)}{hint}",
    )


def check_nonempty_string(argument: str, value: Any) -> str:
    """``value`` if it is a non-empty string.

    >>> check_nonempty_string("image", "")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: image must be a non-empty string, got ''
    """
    if not isinstance(value, str):
        bad_type(argument, value, "a string")
    if not value:
        bad_value(argument, value, f"{_named(argument)} must be a non-empty string, got ''")
    return value


INT64_MAX = 2**63 - 1
"""The largest integer Kubernetes keeps (an int64 field); a larger argument is refused."""


def check_int(argument: str, value: Any, *, minimum: int = 0) -> int:
    """``value`` if it is an int of at least ``minimum`` and at most :data:`INT64_MAX`
    (``bool`` is refused): no field of a pod holds more, and an integer of 5,000
    digits could not even be written into one (Python refuses to print it).

    >>> check_int("count", 0, minimum=1)
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: count must be an integer >= 1, got 0
    >>> check_int("count", 10**5000)
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: count must be an integer <= 2^63-1 (9223372036854775807), got 10000000000000000000...(5,001 digits)
    """
    if isinstance(value, bool) or not isinstance(value, int):
        bad_type(argument, value, "an integer")
    if value < minimum:
        bad_value(
            argument,
            value,
            f"{_named(argument)} must be an integer >= {minimum}, got {short_repr(value)}",
        )
    if value > INT64_MAX:
        bad_value(
            argument,
            value,
            f"{_named(argument)} must be an integer <= 2^63-1 "
            f"({INT64_MAX}), got {short_repr(value)}",
        )
    return value


def check_bool(argument: str, value: Any) -> bool:
    """``value`` if it is ``True`` or ``False``."""
    if not isinstance(value, bool):
        bad_type(argument, value, "true or false")
    return value


def check_dns_label(argument: str, value: Any) -> str:
    """``value`` if it is a DNS-1123 label (lower case, digits, '-'; at most 63).

    >>> check_dns_label("volume", "Data_1")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: volume must be a DNS-1123 label (lower case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters), got 'Data_1'
    """
    check_nonempty_string(argument, value)
    if len(value) > 63 or not _DNS_LABEL.match(value):
        bad_value(
            argument,
            value,
            f"{_named(argument)} must be a DNS-1123 label (lower case "
            f"letters, "
            f"digits and '-', starting and ending with a letter or digit, at most 63 "
            f"characters), got {short_repr(value)}",
        )
    return str(value)


def check_dns_subdomain(argument: str, value: Any) -> str:
    """``value`` if it is a DNS-1123 subdomain (labels joined by '.'; at most 253)."""
    check_nonempty_string(argument, value)
    if len(value) > 253 or not _DNS_SUBDOMAIN.match(value):
        bad_value(
            argument,
            value,
            f"{_named(argument)} must be a DNS-1123 subdomain (lower case "
            f"letters, digits, '-' and '.'), got {short_repr(value)}",
        )
    return str(value)


def check_qualified_name(argument: str, value: Any) -> str:
    """``value`` if it is a label key / resource name: ``[prefix/]name``.

    >>> check_qualified_name("label", "cloud.google.com/gke-accelerator")
    'cloud.google.com/gke-accelerator'
    >>> check_qualified_name("label", "gpu type")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: label must be a qualified name such as 'gpu' or 'example.com/gpu' (letters, digits, '-', '_', '.'; at most 63 after an optional DNS prefix and '/'), got 'gpu type'
    """
    check_nonempty_string(argument, value)
    prefix, _, name = value.rpartition("/")
    if (
        ("/" in value and (not prefix or len(prefix) > 253 or not _DNS_SUBDOMAIN.match(prefix)))
        or len(name) > 63
        or not _NAME.match(name)
    ):
        bad_value(
            argument,
            value,
            f"{_named(argument)} must be a qualified name such as 'gpu' or "
            f"'example.com/gpu' (letters, digits, '-', '_', '.'; at most 63 after an "
            f"optional DNS prefix and '/'), got {short_repr(value)}",
        )
    return str(value)


def check_label_value(argument: str, value: Any) -> str:
    """``value`` if it is a valid label value (empty, or at most 63 name characters)."""
    if not isinstance(value, str):
        bad_type(argument, value, "a string")
    if value and (len(value) > 63 or not _NAME.match(value)):
        bad_value(
            argument,
            value,
            f"{_named(argument)} must be a label value (letters, "
            f"digits, '-', "
            f"'_', '.', starting and ending with a letter or digit, at most 63), "
            f"got {short_repr(value)}",
        )
    return value


def scalar_text(argument: str, value: Any) -> str:
    """A scalar as the text Kubernetes wants: booleans as ``true``/``false``.

    >>> scalar_text("A", True), scalar_text("B", 8), scalar_text("C", "x")
    ('true', '8', 'x')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    bad_type(argument, value, "a string, a number or a boolean")


def merge_kwargs(
    argument: str, given: Mapping[str, Any] | None, keywords: Mapping[str, Any]
) -> dict[str, Any]:
    """One map from a positional map and keyword arguments, refusing a key given twice.

    >>> merge_kwargs("labels", {"a.b/c": "1"}, {"team": "ml"})
    {'a.b/c': '1', 'team': 'ml'}
    """
    if given is None:
        given = {}
    if not isinstance(given, Mapping):
        bad_type(argument, given, "a map")
    twice = sorted(set(given) & set(keywords))
    if twice:
        bad_value(
            argument,
            given,
            f"{_named(argument)}: {short_names(twice)} given both in the map and as keywords",
        )
    merged = {**given, **keywords}
    for key in merged:
        if not isinstance(key, str):
            raise ArgumentTypeError(
                f"{_named(argument)} keys must be strings, got {short_repr(key)}",
                argument=argument,
                value=given,
            )
    return merged


def check_string_map(argument: str, value: Mapping[str, Any] | None) -> dict[str, str]:
    """A map of names to scalars, as text; ``None`` is empty."""
    return {
        key: scalar_text(f"{_named(argument)}[{short_repr(key, MAX_NAME)}]", item)
        for key, item in merge_kwargs(argument, value, {}).items()
    }
