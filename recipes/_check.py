"""Checks of recipe arguments: fail at construction, naming the argument,
what was given and what is allowed.

>>> check_choice("operator", "Exist", ("Exists", "Equal"))
Traceback (most recent call last):
  ...
ValueError: operator must be one of 'Exists', 'Equal', got 'Exist' (did you mean 'Exists'?)
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

__all__ = ("check_choice", "check_text", "check_int", "check_bool", "check_dns_label",
           "check_qualified_name", "check_label_value", "check_string_map", "scalar_text",
           "merge_kwargs")

T = TypeVar("T")

_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")
_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\Z")


def check_choice(argument: str, value: Any, allowed: Iterable[T]) -> T:
    """``value`` if it is one of ``allowed``, else a ``ValueError`` listing them."""
    options = tuple(allowed)
    for option in options:
        if type(option) is type(value) and option == value:
            return option
    listed = ", ".join(repr(option) for option in options)
    close = difflib.get_close_matches(str(value), [str(o) for o in options], n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ValueError(f"{argument} must be one of {listed}, got {value!r}{hint}")


def check_text(argument: str, value: Any) -> str:
    """``value`` if it is a non-empty string.

    >>> check_text("image", "")
    Traceback (most recent call last):
      ...
    ValueError: image must be a non-empty string, got ''
    """
    if not isinstance(value, str):
        raise TypeError(f"{argument} must be a string, got {type(value).__name__}: {value!r}")
    if not value:
        raise ValueError(f"{argument} must be a non-empty string, got ''")
    return value


def check_int(argument: str, value: Any, *, minimum: int = 0) -> int:
    """``value`` if it is an int of at least ``minimum`` (``bool`` is refused).

    >>> check_int("count", 0, minimum=1)
    Traceback (most recent call last):
      ...
    ValueError: count must be an integer >= 1, got 0
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{argument} must be an integer, got {type(value).__name__}: {value!r}")
    if value < minimum:
        raise ValueError(f"{argument} must be an integer >= {minimum}, got {value!r}")
    return value


def check_bool(argument: str, value: Any) -> bool:
    """``value`` if it is ``True`` or ``False``."""
    if not isinstance(value, bool):
        raise TypeError(f"{argument} must be true or false, got {type(value).__name__}: "
                        f"{value!r}")
    return value


def check_dns_label(argument: str, value: Any) -> str:
    """``value`` if it is a DNS-1123 label (lower case, digits, '-'; at most 63).

    >>> check_dns_label("volume", "Data_1")
    Traceback (most recent call last):
      ...
    ValueError: volume must be a DNS-1123 label (lower case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters), got 'Data_1'
    """
    check_text(argument, value)
    if len(value) > 63 or not _DNS_LABEL.match(value):
        raise ValueError(f"{argument} must be a DNS-1123 label (lower case letters, digits "
                         f"and '-', starting and ending with a letter or digit, at most 63 "
                         f"characters), got {value!r}")
    return str(value)


def check_dns_subdomain(argument: str, value: Any) -> str:
    """``value`` if it is a DNS-1123 subdomain (labels joined by '.'; at most 253)."""
    check_text(argument, value)
    if len(value) > 253 or not _DNS_SUBDOMAIN.match(value):
        raise ValueError(f"{argument} must be a DNS-1123 subdomain (lower case letters, "
                         f"digits, '-' and '.'), got {value!r}")
    return str(value)


def check_qualified_name(argument: str, value: Any) -> str:
    """``value`` if it is a label key / resource name: ``[prefix/]name``.

    >>> check_qualified_name("label", "cloud.google.com/gke-accelerator")
    'cloud.google.com/gke-accelerator'
    >>> check_qualified_name("label", "gpu type")
    Traceback (most recent call last):
      ...
    ValueError: label must be a qualified name such as 'gpu' or 'example.com/gpu' (letters, digits, '-', '_', '.'; at most 63 after an optional DNS prefix and '/'), got 'gpu type'
    """
    check_text(argument, value)
    prefix, _, name = value.rpartition("/")
    if (("/" in value and (not prefix or len(prefix) > 253 or not _DNS_SUBDOMAIN.match(prefix)))
            or len(name) > 63 or not _NAME.match(name)):
        raise ValueError(f"{argument} must be a qualified name such as 'gpu' or "
                         f"'example.com/gpu' (letters, digits, '-', '_', '.'; at most 63 after "
                         f"an optional DNS prefix and '/'), got {value!r}")
    return str(value)


def check_label_value(argument: str, value: Any) -> str:
    """``value`` if it is a valid label value (empty, or at most 63 name characters)."""
    if not isinstance(value, str):
        raise TypeError(f"{argument} must be a string, got {type(value).__name__}: {value!r}")
    if value and (len(value) > 63 or not _NAME.match(value)):
        raise ValueError(f"{argument} must be a label value (letters, digits, '-', '_', '.', "
                         f"starting and ending with a letter or digit, at most 63), "
                         f"got {value!r}")
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
    raise TypeError(f"{argument} must be a string, a number or a boolean, "
                    f"got {type(value).__name__}: {value!r}")


def merge_kwargs(argument: str, given: Mapping[str, Any] | None,
                 keywords: Mapping[str, Any]) -> dict[str, Any]:
    """One map from a positional map and keyword arguments, refusing a key given twice.

    >>> merge_kwargs("labels", {"a.b/c": "1"}, {"team": "ml"})
    {'a.b/c': '1', 'team': 'ml'}
    """
    if given is None:
        given = {}
    if not isinstance(given, Mapping):
        raise TypeError(f"{argument} must be a map, got {type(given).__name__}: {given!r}")
    twice = sorted(set(given) & set(keywords))
    if twice:
        raise ValueError(f"{argument}: {', '.join(twice)} given both in the map and as keywords")
    merged = {**given, **keywords}
    for key in merged:
        if not isinstance(key, str):
            raise TypeError(f"{argument} keys must be strings, got {key!r}")
    return merged


def check_string_map(argument: str, value: Mapping[str, Any] | None) -> dict[str, str]:
    """A map of names to scalars, as text; ``None`` is empty."""
    return {key: scalar_text(f"{argument}[{key!r}]", item)
            for key, item in merge_kwargs(argument, value, {}).items()}
