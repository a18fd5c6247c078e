"""The bounds podfold keeps on hostile input, in one place.

Kubernetes objects are shallow: a pod nests about a dozen levels deep, a
workload wrapping pod templates twice that. Anything nested deeper than
:data:`MAX_DEPTH` levels (a value a transform inserts, a path, a document a
function is given) is refused, naming where, long before Python's recursion
limit could end in a bare ``RecursionError``; a structure that contains
itself is refused as a cycle.

Error messages stay short on any input. Whatever a user gave that goes into
a message or a ``repr`` (a value, a name, a path's text) is written by
:func:`short_repr`, at most :data:`MAX_REPR` characters, which never
recurses without bound either; a list of names (near misses, what is
present) by :func:`short_names`, the first :data:`MAX_LISTED` of them and
how many more. No line of a :class:`~combinators.TransformError`'s message
is longer than :data:`MAX_LINE` characters, whatever built it: a last
resort, cutting a line that the rules above did not keep short.

>>> MAX_DEPTH
100
>>> deep = []
>>> for _ in range(10_000):
...     deep = [deep]
>>> short_repr(deep)
'[[[[[[[...]]]]]]]'
>>> loop = {}; loop["self"] = loop
>>> short_repr(loop)
"{'self': {'self': {'self': {'self': {'self': {'self': {...}}}}}}}"
>>> text = short_repr("x" * 100_000)
>>> len(text), text[:5], text[-5:]
(80, "'xxxx", "xxxx'")
>>> short_repr(10**5000)
'10000000000000000000...(5,001 digits)'
>>> short_names([f"trainer-{i}" for i in range(10_000)], limit=3)
'trainer-0, trainer-1, trainer-2 and 9,997 more'
"""

from __future__ import annotations

import itertools
import reprlib

from combinators._typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

__all__ = (
    "MAX_DEPTH",
    "MAX_REPR",
    "MAX_NAME",
    "MAX_LISTED",
    "MAX_LINE",
    "short_repr",
    "short_names",
    "short_line",
)

MAX_DEPTH = 100
"""The deepest nesting podfold accepts, in levels of maps and lists (and in parts of a path)."""

MAX_REPR = 240
"""The longest ``repr`` of a value that goes into an error message, in characters."""

MAX_NAME = 60
"""The longest a name in a list of names (:func:`short_names`) is written, in characters."""

MAX_LISTED = 10
"""The most names a message lists (near misses, what is present); it says how many more."""

MAX_LINE = 1_000
"""The longest line of an error message, in characters: a few values, a path, the
steps around them fit; whatever is longer is cut (:func:`short_line`)."""

_LOG10_2 = 0.30102999566398120
_EXACT_BITS = 1 << 20  # past a million bits, digits are counted approximately (1 s at 10M)


def _int_text(value: int, limit: int) -> str:
    """``value``'s digits, or its first 20 and how many there are: ``repr`` of an
    int past 4,300 digits raises (Python's guard against quadratic conversion)."""
    size = -value if value < 0 else value
    bits = size.bit_length()
    if bits * _LOG10_2 < limit + 1:  # at most limit + 1 digits: repr is cheap and allowed
        text = int.__repr__(value)
        if len(text) <= limit:
            return text
    sign = "-" if value < 0 else ""
    digits = int(bits * _LOG10_2) + 1
    if bits > _EXACT_BITS:
        return f"<{sign}an integer of about {digits:,} digits>"
    power = 10 ** (digits - 1)
    if size < power:  # the estimate is one too many just above a power of two
        digits -= 1
        power //= 10
    head = size // (power // 10**19)
    return f"{sign}{head}...({digits:,} digits)"


class _Short(reprlib.Repr):
    """``reprlib`` with room for a pod's worth of detail, bounded in length and in work.

    One is made per call: it counts what its leaves have written, and once past
    ``budget`` characters writes ``...`` for everything left, so twelve lists of
    twelve lists six levels deep cost what the first ``budget`` characters cost
    (``reprlib`` alone wrote all 3 million leaves, then cut). Maps keep their
    order, as written.
    """

    def __init__(self, budget: int) -> None:
        super().__init__()
        self.maxlevel = 6
        self.maxdict = 12
        self.maxlist = 12
        self.maxtuple = 12
        self.maxset = 12
        self.maxfrozenset = 12
        self.maxdeque = 12
        self.maxarray = 12
        # a string or an object is cut to fit the limit itself, keeping its ends
        self.maxstring = min(80, max(budget, 8))
        self.maxlong = 60
        self.maxother = min(80, max(budget, 8))
        self.budget = budget
        self.used = 0

    def repr1(self, x: Any, level: int) -> str:
        if self.used > self.budget:
            return "..."
        text = super().repr1(x, level)
        # a container's length is its brackets' and its leaves', counted where written
        self.used += 2 if type(x) in _NESTING else len(text)
        return text

    def repr_dict(self, x: Any, level: int) -> str:
        if not x:
            return "{}"
        if level <= 0:
            return "{...}"
        pieces = [
            f"{self.repr1(key, level - 1)}: {self.repr1(x[key], level - 1)}"
            for key in itertools.islice(x, self.maxdict)
        ]
        if len(x) > self.maxdict:
            pieces.append("...")
        return "{" + ", ".join(pieces) + "}"

    def repr_int(self, value: int, level: int) -> str:
        return _int_text(value, self.maxlong)

    def repr_instance(self, value: Any, level: int) -> str:
        # pyrsistent values, markers, transforms: their own repr, cut short
        try:
            text = repr(value)
        except (RecursionError, ValueError):  # deep, or an int past Python's digit guard
            return f"<{type(value).__name__}>"
        limit = self.maxother
        return text if len(text) <= limit else text[: limit - 3] + "..."


_NESTING = frozenset((list, tuple, dict, set, frozenset))


def _cut(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its start and end around ``...``."""
    if len(text) <= limit:
        return text
    head = max(0, (limit - 3) // 2)
    return text[:head] + "..." + text[len(text) - max(0, limit - 3 - head) :]


def short_repr(value: Any, limit: int = MAX_REPR, *, quoted: bool = True) -> str:
    """``repr(value)``, nested at most a few levels and at most ``limit`` characters.

    Safe on values nested any depth, on cycles, on integers of any size and on
    strings of any length (a string longer than 80 characters keeps its start
    and its end): what goes into an error message or a transform's ``repr``.
    With ``quoted=False`` a string, or the text of any other value (``str``:
    a path, say), is written as it is, cut the same way.

    >>> short_repr({"a": [1, 2, 3]})
    "{'a': [1, 2, 3]}"
    >>> short_repr("spec.containers[name=" + "x" * 1000 + "].image", 40, quoted=False)
    'spec.containers[na...xxxxxxxxxxxx].image'
    """
    if not quoted:
        try:
            text = value if isinstance(value, str) else str(value)
        except (RecursionError, ValueError):
            text = f"<{type(value).__name__}>"
        return _cut(text, limit)
    try:
        text = _Short(limit).repr(value)
    except (RecursionError, ValueError):  # a custom repr that recurses or fails: the type only
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def short_names(names: Iterable[Any], limit: int = MAX_LISTED) -> str:
    """The first ``limit`` of ``names``, joined by ``, ``, each written at most
    :data:`MAX_NAME` characters long (:func:`short_repr` unquoted), and how many
    more there are: the list an error message gives of what is present or close.

    >>> short_names(["trainer", "sidecar"])
    'trainer, sidecar'
    >>> short_names(["a", "b", "c"], limit=2)
    'a, b and 1 more'
    >>> short_names([])
    ''
    """
    shown: list[str] = []
    more = 0
    for name in names:
        if len(shown) < limit:
            shown.append(short_repr(name, MAX_NAME, quoted=False))
        else:
            more += 1
    return ", ".join(shown) + (f" and {more:,} more" if more else "")


def short_line(line: str, limit: int = MAX_LINE) -> str:
    """``line`` cut to ``limit`` characters, saying how many were left out.

    >>> short_line("x" * 1200, 60)
    'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (1,169 more characters)'
    >>> short_line("short")
    'short'
    """
    if len(line) <= limit:
        return line
    tail = " more characters)"
    keep = max(0, limit - len(tail) - 12)
    while True:  # the count's own digits take room: settle on a keep that fits
        note = f"... ({len(line) - keep:,}{tail}"
        if keep + len(note) <= limit or keep == 0:
            return line[:keep] + note
        keep -= 1
