"""Conflicts between the steps of a fold: two steps that write different values at one path.

:func:`checked_fold` applies the steps one by one, as :func:`~combinators.fold`
does, and compares each step's result with its input (subtrees they share are
not read, so the cost follows what changed). What counts:

* **a conflict**: a step changes or removes a value that an earlier step
  wrote: two different scalars at one path, a map or list replaced, a value
  removed (or one a step removed, set again by a later one);
* **no conflict**: a later step writing the very value already there (it
  changes nothing), or adding to what an earlier step wrote (a key into a map
  it created, an item to a list it created or appended to), or changing what
  no step wrote (the document's own values: overriding them is what overlays
  are for).

Each step's changes are :func:`~combinators.diff.diff`'s, the one diff podfold
has: paths name list elements by ``[name=...]`` where the elements of a list
have distinct names, by index otherwise; elements inserted or removed before
others shift the indices of the others, and the record of who wrote what
follows them. A step that only reorders named elements wrote no value: it
conflicts only with a step that wrote the whole list before.

>>> from combinators import append_at, replace_at, upsert
>>> doc = {"spec": {}}
>>> checked_fold([upsert("spec.nodeSelector", {"gpu": "a100"}),
...               append_at("spec.tolerations", {"key": "gpu"}),
...               upsert("spec.nodeSelector", {"gpu": "h100"})], doc,
...              mode="error", labels=["a100.yaml:3", "gpu.yaml:1", "h100.yaml:2"])
Traceback (most recent call last):
  ...
combinators.conflicts.ConflictError: 1 conflict between steps:
  spec.nodeSelector.gpu: a100.yaml:3 wrote 'a100', then h100.yaml:2 wrote 'h100'
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from combinators.data import MISSING, copy_plain, is_map, is_seq, strict_equal
from combinators.diff import Change, Keys, Move, diff
from combinators.documents import adapter_for
from combinators.errors import ArgumentError, ArgumentTypeError, TransformError
from combinators.near import did_you_mean, near_misses
from combinators.paths import Index, Key, Match, Part, Path
from combinators.transform import TransformLike, chain, describe_step

__all__ = (
    "MODES",
    "Conflict",
    "ConflictError",
    "ConflictWarning",
    "Write",
    "checked_fold",
    "writes",
)

#: The modes of :func:`checked_fold`.
MODES = ("error", "warn")

_JSON_SCALARS = (str, int, float, bool, type(None))


@dataclass(frozen=True)
class Conflict:
    """Two steps wrote different values at ``path``: ``first`` (a label) wrote ``first_value``,
    then ``second`` wrote ``second_value``; ``MISSING`` where one removed it.

    >>> from combinators import path
    >>> print(Conflict(path("spec.hostIPC"), "base.yaml:2", "debug.yaml:1", False, True))
    spec.hostIPC: base.yaml:2 wrote False, then debug.yaml:1 wrote True
    """

    path: Path
    first: str
    second: str
    first_value: Any
    second_value: Any

    def __str__(self) -> str:
        return (
            f"{self.path or '(the document)'}: {self.first} {_wrote(self.first_value)}, "
            f"then {self.second} {_wrote(self.second_value)}"
        )


def _wrote(value: Any) -> str:
    if value is MISSING:
        return "removed it"
    text = repr(copy_plain(value))
    return "wrote " + (text if len(text) <= 70 else text[:67] + "...")


class ConflictError(TransformError, ValueError):
    """Steps of a fold wrote different values at the same paths; ``conflicts`` lists them all.

    >>> from combinators import path
    >>> err = ConflictError([Conflict(path("a"), "step 1", "step 2", 1, 2)])
    >>> print(err)
    1 conflict between steps:
      a: step 1 wrote 1, then step 2 wrote 2
    >>> isinstance(err, ValueError), err.conflicts[0].second
    (True, 'step 2')
    """

    def __init__(self, found: Sequence[Conflict]) -> None:
        count = len(found)
        lines = [f"{count} conflict{'s' if count != 1 else ''} between steps:"]
        lines += [f"  {conflict}" for conflict in found]
        super().__init__("\n".join(lines))
        self.conflicts = tuple(found)


class ConflictWarning(UserWarning):
    """One conflict between steps of a fold, in mode ``"warn"``; ``conflict`` holds it."""

    def __init__(self, conflict: Conflict) -> None:
        super().__init__(str(conflict))
        self.conflict = conflict


Write = Change
"""One thing a step did at a path: a :class:`~combinators.diff.Change` of :mod:`combinators.diff`."""


def writes(before: Any, after: Any, *, keys: Mapping[str, Keys] | None = None) -> list[Write]:
    """What changed from ``before`` to ``after``, finely: key by key, element by element,
    as :func:`~combinators.diff.diff` finds it, following the elements that moved.

    Keys and elements added or removed are one write each; elements of a list
    whose elements all have distinct names (``keys`` gives other key fields by
    the list's field name) are matched by name, others by position, with the
    elements both lists share at their start and end kept in place. A list whose
    named elements only moved writes no value: its reorder is left out (the
    changes inside its elements are not). Subtrees the two share (the very same
    objects) are not read. Removals and changes are at their place in
    ``before``, additions at theirs in ``after``.

    >>> before = {"spec": {"tolerations": [{"key": "a"}], "hostIPC": True}}
    >>> after = {"spec": {"tolerations": [{"key": "z"}, {"key": "a"}]}}
    >>> for write in writes(before, after):
    ...     print(write.path, write.before, "->", write.after)
    spec.tolerations[0] MISSING -> {'key': 'z'}
    spec.hostIPC True -> MISSING
    """
    found = diff(before, after, keys=keys, moves=[])
    return [write for write in found if not write.reordered]


def _get(value: Any, parts: tuple[Part, ...]) -> Any:
    """The value at relative ``parts`` inside ``value``; ``MISSING`` where there is none."""
    for part in parts:
        if isinstance(part, Key):
            value = value.get(part.name, MISSING) if is_map(value) else MISSING
        elif isinstance(part, Index):
            value = value[part.index] if is_seq(value) and part.index < len(value) else MISSING
        elif isinstance(part, Match) and is_seq(value):
            value = next((element for element in value if part.matches(element)), MISSING)
        else:
            value = MISSING
        if value is MISSING:
            return MISSING
    return value


_Parts = tuple[Part, ...]

#: A write recorded: ``(when it was recorded, step number, value written)``.
_Entry = tuple[int, int, Any]


class _Node:
    """One path of the record: the write at it, if any, and the paths one part below."""

    __slots__ = ("entry", "children")

    def __init__(self) -> None:
        self.entry: _Entry | None = None
        self.children: dict[Part, _Node] = {}


class _Record:
    """Who last wrote what: a tree of path parts, each write ``(step number, value written)``.

    A tree, not a table of whole paths: finding the writes under a path, and dropping
    them, costs what is under it, where scanning every write recorded for each write
    made a fold of n writes n² work. The writes under a path come in the order they
    were recorded (a write moved with its list's elements counts as recorded again)."""

    __slots__ = ("root", "count")

    def __init__(self) -> None:
        self.root = _Node()
        self.count = 0

    def _node(self, parts: _Parts) -> _Node | None:
        node = self.root
        for part in parts:
            child = node.children.get(part)
            if child is None:
                return None
            node = child
        return node

    def get(self, parts: _Parts) -> tuple[int, Any] | None:
        """The write at ``parts``, if any."""
        node = self._node(parts)
        entry = None if node is None else node.entry
        return None if entry is None else (entry[1], entry[2])

    def covering(self, parts: _Parts) -> tuple[_Parts, int, Any] | None:
        """The nearest write at ``parts`` or above it."""
        node = self.root
        found = None if node.entry is None else (0, node.entry)
        for length, part in enumerate(parts, 1):
            child = node.children.get(part)
            if child is None:
                break
            node = child
            if node.entry is not None:
                found = (length, node.entry)
        if found is None:
            return None
        return parts[: found[0]], found[1][1], found[1][2]

    def under(self, parts: _Parts) -> list[tuple[_Parts, int, Any]]:
        """The writes strictly under ``parts``."""
        node = self._node(parts)
        if node is None:
            return []
        found = sorted(_entries(node, parts, include=False), key=lambda item: item[1][0])
        return [(key, entry[1], entry[2]) for key, entry in found]

    def forget(self, parts: _Parts) -> None:
        """Drop the writes at and under ``parts``."""
        if not parts:
            self.root = _Node()
            return
        parent = self._node(parts[:-1])
        if parent is not None:
            parent.children.pop(parts[-1], None)

    def put(self, parts: _Parts, step: int, value: Any) -> None:
        """Record that ``step`` wrote ``value`` at ``parts``."""
        node = self.root
        for part in parts:
            child = node.children.get(part)
            if child is None:
                child = node.children[part] = _Node()
            node = child
        if node.entry is None:
            self.count += 1
            node.entry = (self.count, step, value)
        else:  # written again: it keeps its place in the order
            node.entry = (node.entry[0], step, value)

    def shift(self, where: _Parts, start: int, delta: int) -> None:
        """Move the writes under elements ``start`` and after of the list at ``where`` by ``delta``."""
        node = self._node(where)
        if node is None:
            return
        kept: dict[Part, _Node] = {}
        moved: dict[Part, _Node] = {}
        for part, child in node.children.items():
            if isinstance(part, Index) and part.index >= start:
                moved[Index(part.index + delta)] = child
            else:
                kept[part] = child
        if not moved:
            return
        node.children = {**kept, **moved}
        nodes = [found for child in moved.values() for found in _nodes(child)]
        nodes.sort(key=lambda found: found.entry[0] if found.entry is not None else 0)
        for found in nodes:
            if found.entry is not None:
                self.count += 1
                found.entry = (self.count, *found.entry[1:])


def _entries(node: _Node, parts: _Parts, include: bool) -> list[tuple[_Parts, _Entry]]:
    """The writes at (if ``include``) and under ``node``, which is at ``parts``."""
    found: list[tuple[_Parts, _Entry]] = []
    stack = [(node, parts, include)]
    while stack:
        current, at, counted = stack.pop()
        if counted and current.entry is not None:
            found.append((at, current.entry))
        stack.extend((child, (*at, part), True) for part, child in current.children.items())
    return found


def _nodes(node: _Node) -> list[_Node]:
    """``node`` and every node under it."""
    found = []
    stack = [node]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(current.children.values())
    return found


#: A conflict found, its steps by number: ``(path, first, second, first value, second value)``.
_Found = tuple[Path, int, int, Any, Any]


def _conflicts(step: int, found: list[Write], moves: list[Move], record: _Record) -> list[_Found]:
    conflicts: list[_Found] = []
    for write in found:
        if write.before is MISSING:
            continue
        parts = write.path.parts
        nearest = record.covering(parts)
        if nearest is not None and nearest[1] != step:
            conflicts.append((write.path, nearest[1], step, write.before, write.after))
        if write.reordered:
            # the elements moved, no value was written: a conflict only with a step that
            # wrote the list whole (above); what was written inside stays recorded
            continue
        for key, earlier, value in record.under(parts):
            now = _get(write.after, key[len(parts) :]) if write.after is not MISSING else MISSING
            if earlier != step and not (
                now is value
                or (now is not MISSING and value is not MISSING and strict_equal(now, value))
            ):
                conflicts.append((Path(key), earlier, step, value, now))
        record.forget(parts)
    for where, start, delta in moves:
        record.shift(where, start, delta)
    for write in found:
        if write.reordered:
            continue
        parts = write.path.parts
        if write.before is MISSING and parts and not isinstance(parts[-1], Index):
            again = record.get(parts)
            if again is not None and again[1] is MISSING and again[0] != step:
                conflicts.append((write.path, again[0], step, MISSING, write.after))
        record.put(parts, step, write.after)
    return conflicts


def _mode(mode: object) -> str:
    if type(mode) is str and mode in MODES:
        return mode
    if not isinstance(mode, str):
        raise ArgumentTypeError(
            f"mode must be one of {', '.join(MODES)}, got {type(mode).__name__}: {mode!r}",
            argument="mode",
            factory="checked_fold",
            value=mode,
        )
    hint = did_you_mean(near_misses(mode, MODES, n=2))
    raise ArgumentError(
        f"unknown mode {mode!r}; modes are: {', '.join(MODES)}{hint}",
        argument="mode",
        factory="checked_fold",
        value=mode,
    )


def _steps(transforms: Any) -> list[TransformLike]:
    if (
        callable(transforms)
        or not isinstance(transforms, Iterable)
        or isinstance(transforms, (str, bytes))
    ):
        raise ArgumentTypeError(
            f"transforms must be a list of transforms, got "
            f"{type(transforms).__name__}: {transforms!r}",
            argument="transforms",
            factory="checked_fold",
            value=transforms,
        )
    steps = list(transforms)
    for number, step in enumerate(steps, 1):
        if not callable(step):
            raise ArgumentTypeError(
                f"transforms: step {number} must be a transform or a "
                f"callable doc -> doc, got {type(step).__name__}: {step!r}",
                argument="transforms",
                factory="checked_fold",
                value=step,
            )
    return steps


def _label(steps: list[TransformLike], labels: list[str] | None, index: int) -> str:
    if labels is not None:
        return labels[index]
    return f"step {index + 1} ({describe_step(steps[index])})"


def _labels(labels: Sequence[str] | None, steps: list[TransformLike]) -> list[str] | None:
    if labels is None:
        return None  # described only where needed: describing every step costs
    if (
        isinstance(labels, (str, bytes))
        or not isinstance(labels, Sequence)
        or not all(isinstance(label, str) for label in labels)
    ):
        raise ArgumentTypeError(
            f"labels must be a list of strings, one per step, got {labels!r}",
            argument="labels",
            factory="checked_fold",
            value=labels,
        )
    if len(labels) != len(steps):
        raise ArgumentError(
            f"labels: {len(labels)} labels for {len(steps)} steps; give one per step",
            argument="labels",
            factory="checked_fold",
            value=labels,
        )
    return list(labels)


def checked_fold(
    transforms: Iterable[TransformLike],
    doc: Any,
    *,
    mode: str,
    labels: Sequence[str] | None = None,
    stacklevel: int = 2,
    keys: Mapping[str, Keys] | None = None,
) -> Any:
    """:func:`~combinators.fold`, step by step, finding the paths two steps wrote differently.

    ``mode`` ``"error"`` raises a :class:`ConflictError` listing every
    conflict (after all steps applied); ``"warn"`` emits one
    :class:`ConflictWarning` per conflict and returns the result. ``labels``
    name the steps in messages (a file and line, a recipe and step), one per
    step; by default ``step N (the step)``. ``keys`` names the elements of
    lists by other fields than ``name``, by the list's field name, as
    :func:`~combinators.diff.diff` takes them. The result equals the plain
    fold's, and ``doc`` is left as it was. What counts as a conflict is said at
    the top of :mod:`combinators.conflicts`.

    >>> from combinators import append_at, fold, upsert
    >>> doc = {"spec": {}}
    >>> steps = [append_at("spec.tolerations", {"key": "a"}),
    ...          append_at("spec.tolerations", {"key": "b"}),
    ...          upsert("spec.nodeSelector", {"gpu": "a100"}),
    ...          upsert("spec.nodeSelector", {"gpu": "a100"})]
    >>> checked_fold(steps, doc, mode="error") == fold(steps, doc)
    True
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     result = checked_fold([upsert("spec.hostIPC", True), upsert("spec.hostIPC", False)],
    ...                           doc, mode="warn")
    >>> result, [str(w.message) for w in caught]
    ({'spec': {'hostIPC': False}}, ["spec.hostIPC: step 1 (upsert('spec.hostIPC', True)) wrote True, then step 2 (upsert('spec.hostIPC', False)) wrote False"])
    """
    if type(transforms) not in (list, tuple):  # the order before 0.2: (doc, transforms)
        from combinators.order import transforms_first

        transforms, doc = transforms_first("checked_fold", transforms, doc)
    chosen = _mode(mode)
    steps = _steps(transforms)
    names = _labels(labels, steps)
    adapter = None
    data = doc
    if not (is_map(doc) or is_seq(doc) or isinstance(doc, _JSON_SCALARS)):
        adapter = adapter_for(doc)
        data = adapter.to_data(doc)
    record = _Record()
    numbered: list[_Found] = []
    current = data
    for number, step in enumerate(steps):
        try:
            result = chain(step)(current)
        except TransformError as err:
            raise err.with_step(
                f"step {number + 1} of {len(steps)}: {_label(steps, names, number)}"
            ) from None
        moves: list[Move] = []
        changes = diff(current, result, keys=keys, moves=moves)
        numbered += _conflicts(number, changes, moves, record)
        current = result
    found = [
        Conflict(where, _label(steps, names, first), _label(steps, names, second), old, new)
        for where, first, second, old, new in numbered
    ]
    if found:
        if chosen == "error":
            raise ConflictError(found)
        for conflict in found:
            warnings.warn(ConflictWarning(conflict), stacklevel=stacklevel)
    if adapter is None:
        return current
    return doc if current is data else adapter.from_data(current, like=doc)
