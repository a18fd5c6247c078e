"""The bounds podfold keeps on hostile input, in one place.

Kubernetes objects are shallow: a pod nests about a dozen levels deep, a
workload wrapping pod templates twice that. Anything nested deeper than
:data:`MAX_DEPTH` levels (a value a transform inserts, a path, a document a
function is given) is refused, naming where, long before Python's recursion
limit could end in a bare ``RecursionError``; a structure that contains
itself is refused as a cycle. Text that goes into an error message or a
``repr`` is cut to a bounded length by :func:`short_repr`, which never
recurses without bound either.

>>> MAX_DEPTH
100
>>> deep = []
>>> for _ in range(10_000):
...     deep = [deep]
>>> short_repr(deep)
'[[[[[[...]]]]]]'
>>> loop = {}; loop["self"] = loop
>>> short_repr(loop)
"{'self': {'self': {...}}}"
>>> short_repr("x" * 500)[-5:]
"xx...'"
"""

from __future__ import annotations

import reprlib

TYPE_CHECKING = False  # not typing's: see combinators/__init__.py
if TYPE_CHECKING:
    from typing import Any

__all__ = ("MAX_DEPTH", "MAX_REPR", "short_repr")

MAX_DEPTH = 100
"""The deepest nesting podfold accepts, in levels of maps and lists (and in parts of a path)."""

MAX_REPR = 240
"""The longest ``repr`` of a value that goes into an error message, in characters."""


class _Short(reprlib.Repr):
    """``reprlib`` with room for a pod's worth of detail, still bounded."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 6
        self.maxdict = 12
        self.maxlist = 12
        self.maxtuple = 12
        self.maxset = 12
        self.maxfrozenset = 12
        self.maxstring = 80
        self.maxlong = 60
        self.maxother = 80

    def repr_instance(self, value: Any, level: int) -> str:
        # pyrsistent values, markers, transforms: their own repr, cut short
        try:
            text = repr(value)
        except RecursionError:
            return f"<{type(value).__name__}>"
        limit = self.maxother
        return text if len(text) <= limit else text[:limit - 3] + "..."


_SHORT = _Short()


def short_repr(value: Any, limit: int = MAX_REPR) -> str:
    """``repr(value)``, nested at most a few levels and at most ``limit`` characters.

    Safe on values nested any depth and on cycles: what goes into an error
    message or a transform's ``repr``.

    >>> short_repr({"a": [1, 2, 3]})
    "{'a': [1, 2, 3]}"
    """
    try:
        text = _SHORT.repr(value)
    except RecursionError:  # a custom repr that recurses: name the type only
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit - 3] + "..."
