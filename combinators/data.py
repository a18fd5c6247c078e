"""Plain and persistent data: the few operations every combinator is built on.

Documents are JSON-like trees of maps (``dict`` or pyrsistent ``PMap``), lists
(``list``, ``tuple`` or ``PVector``) and scalars. Two worlds never mix: a plain
document gets plain values inserted, a persistent one gets frozen values.

pyrsistent is imported only when something is frozen: until some module
imports it no value can be a ``PMap`` or a ``PVector``, so :func:`is_pmap`
and :func:`is_pvector` answer from ``sys.modules``, and ``import
combinators`` stays cheap.

Edits are copy-on-write. ``owned`` (an :class:`~combinators.owned.Owned`)
records the containers the current application of a transform made itself:
nobody else has seen them yet, so later steps of the same application may
change them in place instead of copying them again. Everything else is
copied before it is changed, so inputs are never mutated. The functions
here go through ``owned``'s methods; no caller touches the record itself.

>>> doc = {"spec": {"nodeSelector": {}}, "metadata": {}}
>>> new = set_key(doc, "kind", "Pod", Owned())
>>> new is doc, "kind" in doc, new["metadata"] is doc["metadata"]
(False, False, True)
"""

from __future__ import annotations

import sys

from combinators._typing import TYPE_CHECKING
from combinators.errors import NestingError
from combinators.limits import MAX_DEPTH, short_repr
from combinators.owned import Owned
from combinators.paths import Index, Key, Path

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

__all__ = (
    "MISSING",
    "REMOVE",
    "Owned",
    "is_map",
    "is_seq",
    "is_pmap",
    "is_pvector",
    "is_persistent",
    "kind_name",
    "strict_equal",
    "strict_key",
    "copy_plain",
    "thaw_plain",
    "freeze_value",
    "frozen_map",
    "frozen_list",
    "set_key",
    "delete_key",
    "rebuild_seq",
    "extend_seq",
    "empty_map",
    "empty_seq",
    "Template",
    "merge_value",
)


class _Sentinel:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name

    def __reduce__(self) -> str:
        return self.name


MISSING: Any = _Sentinel("MISSING")
"""Stands for a key or element that is not there."""

REMOVE: Any = _Sentinel("REMOVE")
"""Returned by a leaf operation to delete what the path points at."""


_SCALARS = frozenset({str, int, float, bool, type(None), bytes})


class _Never:
    """A type nothing is an instance of: pyrsistent's types before it is imported."""

    __slots__ = ()


def is_pmap(value: Any) -> bool:
    """Whether ``value`` is a pyrsistent ``PMap``; imports nothing.

    >>> is_pmap({}), is_pmap(__import__("pyrsistent").pmap())
    (False, True)
    """
    module = sys.modules.get("pyrsistent")
    return module is not None and isinstance(value, getattr(module, "PMap", _Never))


def is_pvector(value: Any) -> bool:
    """Whether ``value`` is a pyrsistent ``PVector``; imports nothing.

    >>> is_pvector([]), is_pvector(__import__("pyrsistent").pvector())
    (False, True)
    """
    module = sys.modules.get("pyrsistent")
    return module is not None and isinstance(value, getattr(module, "PVector", _Never))


def is_persistent(value: Any) -> bool:
    """Whether ``value`` is a pyrsistent ``PMap`` or ``PVector``; imports nothing.

    >>> is_persistent(({}, [])), is_persistent(__import__("pyrsistent").pvector())
    (False, True)
    """
    cls = type(value)
    if cls is dict or cls is list or cls in _SCALARS:
        return False
    # is_pmap and is_pvector inlined, here and below: persistent documents ask often
    module = sys.modules.get("pyrsistent")
    return module is not None and isinstance(
        value, (getattr(module, "PMap", _Never), getattr(module, "PVector", _Never))
    )


def is_map(value: Any) -> bool:
    """Whether ``value`` is a map this library edits: ``dict`` or ``PMap``."""
    cls = type(value)
    if cls is dict:
        return True
    if cls is list or cls in _SCALARS:
        return False
    if isinstance(value, dict):
        return True
    module = sys.modules.get("pyrsistent")
    return module is not None and isinstance(value, getattr(module, "PMap", _Never))


def is_seq(value: Any) -> bool:
    """Whether ``value`` is a list this library edits: ``list``, ``tuple`` or ``PVector``."""
    cls = type(value)
    if cls is list:
        return True
    if cls is dict or cls in _SCALARS:
        return False
    if isinstance(value, (list, tuple)):
        return True
    module = sys.modules.get("pyrsistent")
    return module is not None and isinstance(value, getattr(module, "PVector", _Never))


def kind_name(value: Any) -> str:
    """A short name of what ``value`` is, for error messages.

    >>> kind_name({}), kind_name([1]), kind_name("x"), kind_name(None)
    ('a map', 'a list', "a string ('x')", 'null')
    """
    if is_map(value):
        return "a map"
    if is_seq(value):
        return "a list"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({value!r})"
    if isinstance(value, (int, float)):
        return f"a number ({short_repr(value)})"
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:37] + "..."
        return f"a string ({text!r})"
    return f"a {type(value).__name__}"


def strict_equal(a: Any, b: Any) -> bool:
    """Deep equality that also compares kinds: ``1`` is not ``True`` nor ``1.0``.

    A ``PMap`` equals a ``dict`` and a ``PVector`` a ``list`` with the same items.

    >>> strict_equal({"a": [1, 2]}, {"a": [1, 2]}), strict_equal(1, True), strict_equal(1, 1.0)
    (True, False, False)
    """
    if a is b:
        return True
    cls = type(a)
    if cls in _SCALARS:
        return cls is type(b) and bool(a == b)
    if is_map(a):
        if not is_map(b) or len(a) != len(b):
            return False
        for key, value in a.items():
            other = b.get(key, MISSING)
            if other is MISSING or not strict_equal(value, other):
                return False
        return True
    if is_seq(a):
        if not is_seq(b) or len(a) != len(b):
            return False
        return all(strict_equal(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is not type(b):
        return False
    return bool(a == b)


_BOOL, _INT, _FLOAT, _NULL, _MAP, _SEQ, _OTHER = range(7)
_KEY_DEPTH = 101  # one level more than combinators.limits.MAX_DEPTH


class _Opaque:
    """The key of an unhashable value of another kind: equal by :func:`strict_equal`."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return type(other) is _Opaque and strict_equal(self.value, other.value)

    def __hash__(self) -> int:
        return hash(type(self.value).__name__)


def strict_key(value: Any, depth: int = _KEY_DEPTH) -> Any:
    """A hashable stand-in for ``value``: equal keys exactly when :func:`strict_equal` holds.

    Lists of items can then be searched in a set or a dict, once, instead of
    comparing every pair. Only a value nested deeper than ``depth`` levels
    (more than any value a transform may insert, or a cycle) gets a key
    equal to nothing else, so looking for an inserted value stays exact.

    >>> strict_key(1) == strict_key(True), strict_key(1) == strict_key(1.0)
    (False, False)
    >>> strict_key({"a": [1, "x"], "b": None}) == strict_key({"b": None, "a": [1, "x"]})
    True
    >>> len({strict_key({"k": "a"}), strict_key({"k": "a"}), strict_key({"k": "b"})})
    2
    """
    cls = type(value)
    if cls is str:
        return value  # no key below is a string
    if cls is bool:
        return (_BOOL, value)
    if cls is int:
        return (_INT, value)
    if cls is float:
        return (_FLOAT, value)
    if value is None:
        return (_NULL,)
    if depth <= 0:
        return object()  # deeper than anything inserted: equal to nothing
    if is_map(value):
        return (
            _MAP,
            frozenset([(key, strict_key(item, depth - 1)) for key, item in value.items()]),
        )
    if is_seq(value):
        return (_SEQ, tuple([strict_key(item, depth - 1) for item in value]))
    try:
        hash(value)
    except TypeError:
        return _Opaque(value)
    return (_OTHER, cls, value)


def copy_plain(value: Any) -> Any:
    """A fresh plain copy: dicts and lists are new, scalars shared; keeps key order.

    Frozen input (``PMap``/``PVector``) is thawed on the way. A value nested
    deeper than :data:`~combinators.limits.MAX_DEPTH` levels, or containing
    itself, is a :class:`~combinators.errors.NestingError` naming where.

    >>> loop = {"a": 1}; loop["self"] = loop
    >>> copy_plain({"metadata": {"labels": loop}})
    Traceback (most recent call last):
      ...
    combinators.errors.NestingError: metadata.labels is a cycle: metadata.labels.self is metadata.labels again
    """
    try:
        return _copy_plain(value, MAX_DEPTH)
    except _Deeper as deeper:
        raise nesting_error(value, deeper.trail) from None


class _Deeper(Exception):
    """Deeper than allowed; ``trail`` (keys and indexes) gathers the way as it travels up."""

    def __init__(self) -> None:
        super().__init__()
        self.trail: list[Any] = []


def _copy_plain(value: Any, room: int) -> Any:
    cls = type(value)
    if cls in _SCALARS:
        return value
    if room <= 0:
        raise _Deeper
    room -= 1
    if cls is dict:
        # copy() runs in C; only nested containers need another look
        new = value.copy()
        for key, item in new.items():
            if type(item) not in _SCALARS:
                try:
                    new[key] = _copy_plain(item, room)
                except _Deeper as deeper:
                    deeper.trail.append(key)
                    raise
        return new
    if cls is list:
        new_list = value.copy()
        for position, item in enumerate(new_list):
            if type(item) not in _SCALARS:
                try:
                    new_list[position] = _copy_plain(item, room)
                except _Deeper as deeper:
                    deeper.trail.append(position)
                    raise
        return new_list
    mapping = is_map(value)
    if mapping or is_seq(value):
        items = value.items() if mapping else enumerate(value)
        copied = {}
        for key, item in items:
            try:
                copied[key] = _copy_plain(item, room)
            except _Deeper as deeper:
                deeper.trail.append(key)
                raise
        return copied if mapping else list(copied.values())
    return value


def nesting_error(root: Any, trail: list[Any]) -> NestingError:
    """The error for ``root``, too deep along ``trail`` (innermost step first).

    A cycle when a container on the way is one of its own ancestors, naming
    it and the place it comes back at; else plain depth, naming the place.
    """
    steps = trail[::-1]
    seen: dict[int, int] = {}
    node = root
    for level in range(len(steps) + 1):
        first = seen.setdefault(id(node), level)
        if first != level:
            where, back = _place(steps[:first]), _place(steps[:level])
            return NestingError(
                f"{where} is a cycle: {back} is {where} again",
                path=_path(steps[:first]),
                cycle=True,
            )
        if level < len(steps):
            node = node[steps[level]]
    return NestingError(f"{_place(steps)} nests deeper than {MAX_DEPTH} levels", path=_path(steps))


def _path(steps: list[Any]) -> Path:
    return Path(Index(step) if type(step) is int else Key(str(step)) for step in steps)


def _place(steps: list[Any]) -> str:
    text = str(_path(steps)) or "the document"
    if len(text) > 160:
        text = f"{text[:78]}...{text[-78:]} ({len(steps)} levels)"
    return text


thaw_plain = copy_plain


def freeze_value(value: Any) -> Any:
    """Freeze a value with pyrsistent (maps to ``PMap``, lists and tuples to ``PVector``).

    The first call imports pyrsistent.

    >>> freeze_value({"a": [1]})
    pmap({'a': pvector([1])})
    """
    import pyrsistent  # not "from pyrsistent import": that costs a call into importlib each time

    return pyrsistent.freeze(value)


def frozen_map(items: Any = None) -> Any:
    """A pyrsistent ``PMap`` of ``items`` (a mapping); the first call imports pyrsistent.

    >>> frozen_map({"a": 1})
    pmap({'a': 1})
    """
    import pyrsistent

    return pyrsistent.pmap(items)


def frozen_list(items: Iterable[Any] = ()) -> Any:
    """A pyrsistent ``PVector`` of ``items``; the first call imports pyrsistent.

    >>> frozen_list([1, 2])
    pvector([1, 2])
    """
    import pyrsistent

    return pyrsistent.pvector(items)


def empty_map(persistent: bool) -> Any:
    return frozen_map() if persistent else {}


def empty_seq(persistent: bool) -> Any:
    return frozen_list() if persistent else []


def set_key(mapping: Any, key: Any, value: Any, owned: Owned) -> Any:
    """``mapping`` with ``key`` set to ``value``; copies unless ``mapping`` is owned."""
    if type(mapping) is not dict and is_pmap(mapping):
        return mapping.set(key, value)
    new = owned.writable_map(mapping)
    new[key] = value
    return new


def delete_key(mapping: Any, key: Any, owned: Owned) -> Any:
    """``mapping`` without ``key``; copies unless ``mapping`` is owned."""
    if type(mapping) is not dict and is_pmap(mapping):
        return mapping.discard(key)
    new = owned.writable_map(mapping)
    del new[key]
    return new


def rebuild_seq(seq: Any, changes: dict[int, Any], removed: Iterable[int], owned: Owned) -> Any:
    """``seq`` with some elements replaced (``changes``) and some removed (by index)."""
    gone = set(removed)
    if type(seq) is list and not gone:
        target = owned.writable_list(seq)
        for index, value in changes.items():
            target[index] = value
        return target
    if type(seq) is not list and is_pvector(seq):
        if not gone:
            evolver = seq.evolver()
            for index, value in changes.items():
                evolver[index] = value
            return evolver.persistent()
        return frozen_list(changes.get(i, item) for i, item in enumerate(seq) if i not in gone)
    items = [changes.get(i, item) for i, item in enumerate(seq) if i not in gone]
    if isinstance(seq, tuple):
        return tuple(items)
    return owned.adopt(items)


def extend_seq(seq: Any, items: list[Any], at: int | None, owned: Owned) -> Any:
    """``seq`` with ``items`` inserted at position ``at`` (``None``: at the end)."""
    if type(seq) is not list and is_pvector(seq):
        if at is None:
            return seq.extend(items)
        as_list = list(seq)
        as_list[at:at] = items
        return frozen_list(as_list)
    if isinstance(seq, tuple):
        as_list = list(seq)
        position = len(as_list) if at is None else at
        as_list[position:position] = items
        return tuple(as_list)
    # a list (or a list subclass, which comes out a plain list)
    new = owned.writable_list(seq)
    if at is None:
        new.extend(items)
    else:
        new[at:at] = items
    return new


class Template:
    """A value a transform inserts: kept as a private plain copy (frozen when first needed).

    ``fresh`` gives what to insert: a new plain copy for a plain document (so
    no two places, and no caller, ever share it) or the frozen value, which
    may be shared freely, for a persistent one.
    """

    __slots__ = ("plain", "_frozen", "is_container", "flat")

    def __init__(self, value: Any, *, private: bool = False) -> None:
        # ``private``: ``value`` is a plain copy already made for this template alone
        self._frozen: Any = MISSING
        if type(value) in _SCALARS:  # a string, a number: shared, never copied
            self.plain, self.is_container, self.flat = value, False, False
            return
        self.plain = value if private else copy_plain(value)
        self.is_container = is_map(self.plain) or is_seq(self.plain)
        # a map or list of scalars only: a shallow copy is a full copy
        self.flat = self.is_container and all(
            type(item) in _SCALARS
            for item in (self.plain.values() if is_map(self.plain) else self.plain)
        )

    @property
    def frozen(self) -> Any:
        """The value frozen with pyrsistent, for persistent documents (made on first use)."""
        if self._frozen is MISSING:
            self._frozen = freeze_value(self.plain)
        return self._frozen

    def fresh(self, persistent: bool) -> Any:
        if persistent:
            return self.frozen
        if self.flat:
            return self.plain.copy()
        return copy_plain(self.plain) if self.is_container else self.plain


def merge_value(old: Any, plain: Any, frozen: Any, persistent: bool, owned: Owned) -> Any:
    """Merge ``plain`` into ``old``: maps key by key, recursively; anything else replaces.

    ``frozen`` is ``plain`` frozen (used for persistent documents). Returns
    ``old`` itself when nothing changes.

    >>> old = {"a": {"x": 1}, "b": [1]}
    >>> merge_value(old, {"a": {"y": 2}}, None, False, Owned())
    {'a': {'x': 1, 'y': 2}, 'b': [1]}
    >>> merge_value(old, {"b": [1]}, None, False, Owned()) is old
    True
    """
    if type(plain) is dict:
        if type(old) is not dict and (old is MISSING or old is None or not is_map(old)):
            return frozen if persistent else copy_plain(plain)
        result = old
        for key, value in plain.items():
            current = result.get(key, MISSING)
            if type(value) in _SCALARS:
                if current is value or (type(current) is type(value) and current == value):
                    continue
                merged = frozen[key] if persistent else value
            else:
                merged = merge_value(
                    current, value, frozen[key] if persistent else None, persistent, owned
                )
                if merged is current:
                    continue
            result = set_key(result, key, merged, owned)
        return result
    if old is not MISSING and strict_equal(old, plain):
        return old
    if persistent:
        return frozen
    return copy_plain(plain) if type(plain) is list else plain
