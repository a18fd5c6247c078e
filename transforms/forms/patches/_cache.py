"""Building a patch once per distinct patch: its exact value as a cache key.

A patch built per call (a recipe that makes one from its arguments, a fold
that loads an overlay for every pod) would be checked and compiled again
each time. Patches are immutable values, so equal ones can be one object:
the builders keep the last few hundred they built, by :func:`exact_key`.

The key is *exact*, not merely equal: ``1``, ``1.0`` and ``True`` differ, as
do ``0.0`` and ``-0.0``, and the order of a map's keys counts (a patch adds
new keys in its order). A value the key cannot stand for exactly (a tuple, a
persistent map, a subclass, nesting deeper than any patch may have) has no
key, and is built as it always was; so has a patch of more than
:data:`MAX_NODES` values, which the cache would keep alive for nothing.

>>> key = exact_key({"spec": {"hostIPC": True, "priority": 1}})
>>> key == exact_key({"spec": {"hostIPC": True, "priority": 1}})
True
>>> key == exact_key({"spec": {"priority": 1, "hostIPC": True}})
False
>>> key == exact_key({"spec": {"hostIPC": 1, "priority": 1}})
False
>>> from_key(key)
{'spec': {'hostIPC': True, 'priority': 1}}
>>> exact_key(({"op": "add"},)) is None, exact_key([{}] * (MAX_NODES + 1)) is None
(True, True)
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from combinators.limits import MAX_DEPTH

__all__ = ("exact_key", "from_key", "MAX_NODES")

_MAP, _LIST, _FLOAT = "m", "l", "f"

MAX_NODES = 5_000
"""The most values (maps, lists and scalars) a patch with a key holds."""


class _NoKey(Exception):
    """The value has no exact key."""


def exact_key(value: Any) -> Hashable | None:
    """A hashable stand-in for the JSON ``value``, equal only for the very same value
    written the same way; ``None`` where there is none (see the module)."""
    try:
        return _key(value, MAX_DEPTH + 1, [MAX_NODES])
    except _NoKey:
        return None


def _key(value: Any, room: int, left: list[int]) -> Hashable:
    cls = type(value)
    if cls is str:
        text: str = value
        return text  # every other key is a tuple
    if cls is dict or cls is list:
        left[0] -= len(value) + 1
        if room <= 0 or left[0] < 0:
            raise _NoKey
        if cls is list:
            return (_LIST, tuple([_key(item, room - 1, left) for item in value]))
        items = []
        for key, item in value.items():
            if type(key) is not str:
                raise _NoKey
            items.append((key, _key(item, room - 1, left)))
        return (_MAP, tuple(items))
    if cls is bool or cls is int or value is None:
        return (cls, value)
    if cls is float:
        return (_FLOAT, value.hex())  # keeps -0.0 apart from 0.0, and NaN equal to itself
    raise _NoKey


def from_key(key: Any) -> Any:
    """The value ``key`` stands for: a fresh plain copy of it.

    >>> from_key(exact_key([1, 1.0, True, None, "x", {"a": -0.0}]))
    [1, 1.0, True, None, 'x', {'a': -0.0}]
    """
    if type(key) is str:
        return key
    tag, content = key
    if tag == _MAP:
        return {name: from_key(item) for name, item in content}
    if tag == _LIST:
        return [from_key(item) for item in content]
    if tag == _FLOAT:
        return float.fromhex(content)
    return content
