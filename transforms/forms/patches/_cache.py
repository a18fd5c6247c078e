"""Building a patch once per distinct patch: its exact value as a cache key.

A patch built per call (a recipe that makes one from its arguments, a fold
that builds its overlays for every pod) would be checked again each time,
and applied the general way. Patches are immutable values, so equal ones can
be one object: a builder keeps the last few hundred it built, by
:func:`exact_key`, and the one found again is applied by its compiled plan.

The key is *exact*, not merely equal: it is the value pickled, so ``1``,
``1.0`` and ``True`` differ, as do ``0.0`` and ``-0.0``, a string and an
instance of a subclass of ``str``, a list and a tuple, and the order of a
map's keys counts (a patch adds new keys in its order). Equal pickles
unpickle to values alike in every respect, so a patch found by its key is
the very patch the caller would have built. A value that does not pickle
has no key, nor has one whose pickle is longer than :data:`MAX_BYTES` (which
the cache would keep alive for nothing): it is built as it always was.

>>> key = exact_key({"spec": {"hostIPC": True, "priority": 1}})
>>> key == exact_key({"spec": {"hostIPC": True, "priority": 1}})
True
>>> key == exact_key({"spec": {"priority": 1, "hostIPC": True}})
False
>>> key == exact_key({"spec": {"hostIPC": 1, "priority": 1}})
False
>>> exact_key({"f": lambda: 1}) is None, exact_key(["x" * MAX_BYTES]) is None
(True, True)
"""

from __future__ import annotations

import pickle
from typing import Any

__all__ = ("exact_key", "keyed", "Keyed", "MAX_BYTES")

MAX_BYTES = 64 * 1024
"""The longest pickle of a patch with a key."""


def exact_key(value: Any) -> bytes | None:
    """A hashable stand-in for ``value``, equal only for the very same value written
    the same way; ``None`` where there is none (see the module)."""
    try:
        key = pickle.dumps(value, protocol=5)
    except Exception:  # anything that does not pickle (a function, a lock): no key
        return None
    return key if len(key) <= MAX_BYTES else None


class Keyed:
    """A patch with its exact key, for ``functools.lru_cache``: hashed and compared by
    the key. The builder takes the patch itself (:meth:`take`) when the cache has none
    for the key yet, so the cache keeps the key, not the caller's patch.

    >>> first = keyed({"a": [1]})
    >>> first == keyed({"a": [1]}), first == keyed({"a": [True]}), first.take()
    (True, False, {'a': [1]})
    >>> first.take() is None
    True
    """

    __slots__ = ("key", "value", "_hash")

    def __init__(self, key: bytes, value: Any) -> None:
        self.key = key
        self.value = value
        self._hash = hash(key)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return type(other) is Keyed and self._hash == other._hash and self.key == other.key

    def take(self) -> Any:
        """The patch, once: the cache holds on to this object, not to the caller's patch."""
        value, self.value = self.value, None
        return value


def keyed(value: Any) -> Keyed | None:
    """``value`` with its exact key, or ``None`` where it has none."""
    key = exact_key(value)
    return None if key is None else Keyed(key, value)
