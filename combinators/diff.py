"""The one diff: what changed from one document to another, key by key, element by element.

:func:`diff` lists every change as a :class:`Change` whose path is written in
podfold's path grammar. Conflicts between the steps of a fold
(:mod:`combinators.conflicts`), ``explain``, footprints, path policies and the
walk of who wrote what all read it; what a list's elements are called comes in
as a table (``keys``), so that nothing here knows Kubernetes. Subtrees the two
documents share (the very same objects, as copy-on-write leaves them) are not
read: the cost follows what changed.

What it reports:

* a key added or removed is one change, whatever it holds; scalars that differ
  (by kind too: ``1`` is not ``True``) are one change;
* the elements of a list whose elements all have distinct identities on both
  sides (their key fields: ``name`` unless ``keys`` says otherwise) are matched
  by identity and named by it, ``[name=trainer]``; an identity is made of
  strings and integers only: a boolean (YAML's unquoted ``name: true``) names
  no element, as no Kubernetes name is one, and a string that reads like one is
  quoted, ``[name="true"]``, so the path reads back as the string;
* a list of named elements whose order changed is one change of the list
  marked ``reordered`` (the list's values before and after), and the changes
  inside its elements come after it, each by name: moving ``env`` entries is a
  real change (``$(VAR)`` expands only variables defined earlier), and nothing
  inside a moved element changed unless a change says so;
* other lists are compared by position: in place where their lengths agree,
  elements added or dropped at the end by index; an element inserted or removed
  elsewhere moves the indices of those after it, so the list is one change,
  unless the caller asks for the ``moves``: then it gets the removals (at their
  index before) and additions (at their index after) and where the elements
  after them moved, as :func:`~combinators.conflicts.checked_fold` follows them.

>>> before = {"spec": {"containers": [{"name": "a", "image": "a:1"}, {"name": "b"}]}}
>>> after = {"spec": {"containers": [{"name": "b"}, {"name": "a", "image": "a:2"}]}}
>>> for change in diff(before, after):
...     print(change)
spec.containers: reordered: [{'name': 'a', 'image': 'a:1'}, {'name': 'b'}] -> [{'name': 'b'}, ...
spec.containers[name=a].image: 'a:1' -> 'a:2'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from combinators.data import MISSING, copy_plain, is_map, is_seq, strict_equal
from combinators.paths import Index, Key, Match, Part, Path

__all__ = ("BY_NAME", "Change", "Keys", "Move", "diff", "element_name")

Keys = tuple[tuple[str, bool], ...]
"""The key fields that identify an element of a list: each field's name, and whether an
element may leave it out (the API server defaults it: a port's ``protocol``)."""

BY_NAME: Keys = (("name", False),)
"""The key of a list the table does not name: ``name``."""

_Parts = tuple[Part, ...]
"""A path as its parts while walking: a ``Path`` is built (and rendered) only for a change."""

Move = tuple[_Parts, int, int]
"""Where a list's elements moved: ``(the list's path parts, first index that moved, by how much)``."""


@dataclass(frozen=True, repr=False)
class Change:
    """One change: ``before`` and ``after`` are the values at ``path``, ``MISSING`` where
    there was, or is, nothing; ``reordered`` where only the order of the named elements
    of the list at ``path`` changed there (what changed inside them is said apart).

    >>> from combinators import path
    >>> Change(path("spec.hostIPC"), True, MISSING)
    Change(path=path('spec.hostIPC'), before=True, after=MISSING)
    >>> print(Change(path("spec.hostIPC"), True, MISSING))
    spec.hostIPC: True -> (absent)
    """

    path: Path
    before: Any
    after: Any
    reordered: bool = False

    def __repr__(self) -> str:
        flag = ", reordered=True" if self.reordered else ""
        return f"Change(path={self.path!r}, before={self.before!r}, after={self.after!r}{flag})"

    def __str__(self) -> str:
        how = "reordered: " if self.reordered else ""
        return f"{self.path or '(the document)'}: {how}{_show(self.before)} -> {_show(self.after)}"


def _show(value: Any, width: int = 70) -> str:
    if value is MISSING:
        return "(absent)"
    text = repr(copy_plain(value))
    return text if len(text) <= width else text[: width - 3] + "..."


def diff(
    before: Any,
    after: Any,
    *,
    at: Path | None = None,
    keys: Mapping[str, Keys] | None = None,
    moves: list[Move] | None = None,
) -> list[Change]:
    """The changes from ``before`` to ``after``, in document order (see the top of
    :mod:`combinators.diff` for what counts as one).

    ``at`` is where the two lie in a larger document: the changes' paths start
    with it, and it names the first list's field. ``keys`` gives the key fields
    of a list by its field's name (``{"volumeMounts": (("mountPath", False),)}``);
    a list it does not name is keyed by ``name``. ``moves``, where given, is
    filled with where the elements of positional lists moved, and those lists'
    insertions and removals are reported one by one; without it such a list is
    one change. Removals and changes are at their place in ``before``, additions
    at theirs in ``after``.

    >>> diff({"l": [{"key": "a"}]}, {"l": [{"key": "z"}, {"key": "a"}]})
    [Change(path=path('l'), before=[{'key': 'a'}], after=[{'key': 'z'}, {'key': 'a'}])]
    >>> moved: list[Move] = []
    >>> diff({"l": [{"key": "a"}]}, {"l": [{"key": "z"}, {"key": "a"}]}, moves=moved), moved
    ([Change(path=path('l[0]'), before=MISSING, after={'key': 'z'})], [((Key('l'),), 0, 1)])
    >>> diff({"env": []}, {"env": [{"name": "true", "value": "1"}]})
    [Change(path=path('env[name="true"]'), before=MISSING, after={'name': 'true', 'value': '1'})]
    >>> spec = {"containers": []}
    >>> diff({"spec": spec}, {"spec": spec})
    []
    """
    out: list[Change] = []
    _Differ({} if keys is None else keys, moves, out).walk(
        before, after, () if at is None else at.parts
    )
    return out


def element_name(
    where: Path | str | None, element: Any, keys: Mapping[str, Keys] | None = None
) -> Match | None:
    """The selector that names ``element`` of the list at ``where`` (its path, or its
    field's name) in a change's path, by the key fields ``keys`` gives that field
    (``name`` where it gives none); ``None`` for an element that lacks a key, holds
    one that is neither a string nor an integer, or is no map.

    >>> element_name("env", {"name": "true"}).text()
    '[name="true"]'
    >>> element_name("env", {"name": True}) is None
    True
    >>> element_name("mounts", {"name": "d", "path": "/d"}, {"mounts": (("path", False),)}).text()
    '[path=/d]'
    """
    parts = where.parts if isinstance(where, Path) else where
    identity = _identity(element, _keys_of({} if keys is None else keys, parts))
    return None if identity is None else Match(identity)


def _keys_of(table: Mapping[str, Keys], where: _Parts | str | None) -> Keys:
    """The key fields of the list at ``where`` (its parts, or its field's name)."""
    if not isinstance(where, str):
        last = where[-1] if where else None
        where = last.name if isinstance(last, Key) else None
    return BY_NAME if where is None else table.get(where, BY_NAME)


def _identity(element: Any, keys: Keys) -> tuple[tuple[str, Any], ...] | None:
    if not is_map(element):
        return None
    fields = []
    for key, optional in keys:
        value = element.get(key, MISSING)
        if value is MISSING and optional:
            continue
        if type(value) not in (str, int):  # not bool: True would equal 1 as a key
            return None
        fields.append((key, value))
    return tuple(fields) or None


def _identities(seq: Any, keys: Keys) -> list[Any] | None:
    """The identity of every element, if every element has a distinct one: for a list of
    one key each element must hold (most lists), that key's value, else the fields'
    ``(field, value)`` pairs (:func:`_selector` makes either a ``Match``)."""
    if len(keys) == 1 and not keys[0][1]:
        key = keys[0][0]
        values = []
        for element in seq:
            if type(element) is not dict and not is_map(element):
                return None
            value = element.get(key, MISSING)
            if type(value) is not str and type(value) is not int:  # a string is no integer
                return None
            values.append(value)
        return values if len(set(values)) == len(values) else None
    found = []
    for element in seq:
        identity = _identity(element, keys)
        if identity is None:
            return None
        found.append(identity)
    return found if len(set(found)) == len(found) else None


def _selector(identity: Any, keys: Keys) -> Match:
    if len(keys) == 1 and not keys[0][1]:
        return Match(((keys[0][0], identity),))
    return Match(identity)


def _same(a: Any, b: Any) -> bool:
    return a is b or strict_equal(a, b)


class _Differ:
    """One walk: the key table, where moves go (``None``: lists that move are one change)
    and the changes found."""

    __slots__ = ("keys", "moves", "out")

    def __init__(self, keys: Mapping[str, Keys], moves: list[Move] | None, out: list[Change]):
        self.keys = keys
        self.moves = moves
        self.out = out

    def walk(self, before: Any, after: Any, where: _Parts) -> None:
        if before is after:
            return  # shared, so untouched: copy-on-write keeps what it does not change
        if is_map(before) and is_map(after):
            out = self.out
            for key, old in before.items():
                new = after.get(key, MISSING)
                if new is MISSING:
                    out.append(Change(Path((*where, Key(str(key)))), old, MISSING))
                elif new is not old:
                    self.walk(old, new, (*where, Key(str(key))))
            for key, new in after.items():
                if key not in before:
                    out.append(Change(Path((*where, Key(str(key)))), MISSING, new))
            return
        if is_seq(before) and is_seq(after):
            if not self.named(before, after, where):
                self.positional(before, after, where)
            return
        if not strict_equal(before, after):
            self.out.append(Change(Path(where), before, after))

    def named(self, before: Any, after: Any, where: _Parts) -> bool:
        """Compare two lists element by element by identity; ``False`` where they have none."""
        keys = _keys_of(self.keys, where)
        old_ids = _identities(before, keys)
        if old_ids is None:
            return False
        new_ids = _identities(after, keys)
        if new_ids is None or not (old_ids or new_ids):
            return False
        out = self.out
        old_set, new_set = set(old_ids), set(new_ids)
        if [i for i in old_ids if i in new_set] != [i for i in new_ids if i in old_set]:
            out.append(Change(Path(where), before, after, reordered=True))
        new_by_id = dict(zip(new_ids, after, strict=True))
        for identity, old in zip(old_ids, before, strict=True):
            new = new_by_id.get(identity, MISSING)
            if new is MISSING:
                out.append(Change(Path((*where, _selector(identity, keys))), old, MISSING))
            elif new is not old:
                self.walk(old, new, (*where, _selector(identity, keys)))
        for identity, new in zip(new_ids, after, strict=True):
            if identity not in old_set:
                out.append(Change(Path((*where, _selector(identity, keys))), MISSING, new))
        return True

    def positional(self, before: Any, after: Any, where: _Parts) -> None:
        out = self.out
        if len(before) == len(after):
            for index, (old, new) in enumerate(zip(before, after, strict=True)):
                if old is not new:
                    self.walk(old, new, (*where, Index(index)))
            return
        shortest = min(len(before), len(after))
        start = 0
        while start < shortest and _same(before[start], after[start]):
            start += 1
        if start < shortest and self.moves is None:
            out.append(Change(Path(where), before, after))  # indices moved: the list, whole
            return
        tail = 0
        while tail < shortest - start and _same(before[-1 - tail], after[-1 - tail]):
            tail += 1
        for index in range(start, len(before) - tail):
            out.append(Change(Path((*where, Index(index))), before[index], MISSING))
        for index in range(start, len(after) - tail):
            out.append(Change(Path((*where, Index(index))), MISSING, after[index]))
        if tail and self.moves is not None:
            self.moves.append((where, len(before) - tail, len(after) - len(before)))
