"""Who wrote each part of a document: the one walk behind ``--blame`` and ``(written by ...)``.

:class:`Writers` follows a document through its states (the document, then what
each step made of it) and records every step's changes
(:func:`~transforms.analysis.explanation.changes_between`: subtrees a step
shares with its input are not read) in a tree of paths, a later write inside a
path above an earlier one. Asked about a path, it names every step that wrote
what is there now, or removed what was there: one :class:`Blame` where one step
wrote it all, else one per part where the writers differ, list elements named
as :func:`~transforms.analysis.explanation.element_name` names them
(``spec.volumes[name=dshm]``, ``volumeMounts[mountPath=/dev/shm]``). A path
nothing wrote has no writer. The cost is one diff per step, and one visit of
each part the question asks about where more than one step wrote inside it.

>>> from combinators import upsert
>>> pod = {"spec": {}}
>>> first = upsert("spec.volumes[name=dshm]", {"emptyDir": {}})(pod)
>>> second = upsert("spec.volumes[name=creds]", {"secret": {}})(first)
>>> for found in Writers([pod, first, second]).at("spec.volumes"):
...     print(found.change.path, "<- step", found.step)
spec.volumes[name=dshm] <- step 1
spec.volumes[name=creds] <- step 2
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from combinators import MISSING, ArgumentError, Path, path
from combinators.data import is_map, is_seq
from combinators.paths import All, Index, Key, Match, Part
from transforms.analysis.explanation import Change, _api_form, changes_between, element_name

__all__ = ("Origin", "Blame", "Writers")


@dataclass(frozen=True)
class Origin:
    """Where a step comes from: ``source`` (file or URI) and ``line`` where
    known, ``step`` (which step of the overlay, in words) and ``inner`` (which
    step of a recipe's body or of a nested composition), each ``""`` where none.

    >>> print(Origin("gpu.yaml", 3, "step 2: set spec.hostIPC to true"))
    gpu.yaml:3: step 2: set spec.hostIPC to true
    """

    source: str | None = None
    line: int | None = None
    step: str = ""
    inner: str = ""

    def __str__(self) -> str:
        where = ""
        if self.source is not None:
            where = self.source if self.line is None else f"{self.source}:{self.line}"
        words = " > ".join(part for part in (self.step, self.inner) if part)
        return ": ".join(part for part in (where, words) if part) or "(unknown)"


@dataclass(frozen=True)
class Blame:
    """A change and the origin of the step that wrote it: ``step`` is that step's
    number in the walk, from 1 (``origin`` is ``None`` where the walk was given
    states without steps). Both are ``None`` where no step changed that field on
    its own, which only a step that changes a field and a later one that changes
    it back can leave."""

    change: Change
    origin: Origin | None
    step: int | None = None

    def __str__(self) -> str:
        who = (
            self.origin
            if self.origin is not None
            else "(no one step)"
            if self.step is None
            else f"step {self.step}"
        )
        return f"{self.change}  <- {who}"


class _Located(Protocol):
    def origin_of(self, where: Path) -> Origin: ...


class _Node:
    """What the walk knows of one path: the last step that wrote all of it (``owner``,
    ``None`` where none did), the path that step's diff named, and the later
    writes inside it (``children``)."""

    __slots__ = ("owner", "children", "path")

    def __init__(self) -> None:
        self.owner: int | None = None
        self.children: dict[Part, _Node] = {}
        self.path = Path()


_Parts = tuple[Part, ...]
"""A path as its parts: a ``Path`` is built only for a part named in an answer."""

_Frame = tuple["_Node | None", Any, Any, "int | None", _Parts]
"""A place the question reaches: its node, its value now and before, the step that
wrote it (or an enclosing part) last, and its path."""

_Child = tuple[Part, Any, Any, "_Node | None"]


class Writers:
    """Which step wrote each part of a document: ``states`` are the document, then
    what each step made of it (at least the document); ``steps``, where given,
    say where each step comes from (anything with ``origin_of(path)``, such as
    :class:`~transforms.analysis.blame.Step`). ``before`` and ``after`` are the
    first and last states.

    >>> from combinators import upsert
    >>> pod = {"spec": {}}
    >>> states = [pod, upsert("spec.hostIPC", True)(pod)]
    >>> Writers(states).last("spec.hostIPC").step, Writers(states).at("metadata")
    (1, [])
    """

    def __init__(self, states: Iterable[Any], steps: Sequence[_Located] = ()) -> None:
        walked = iter(states)
        first = next(walked, MISSING)
        if first is MISSING:
            raise ArgumentError(
                "states: a walk needs the document, then what each step made of it; got no state",
                argument="states",
                factory="Writers",
                value=(),
            )
        self.before: Any = _api_form(first)
        self._root = _Node()
        current = self.before
        for number, state in enumerate(walked, 1):
            state = _api_form(state)
            if state is not current:
                for change in changes_between(current, state):
                    self._record(change.path, number)
            current = state
        self.after: Any = current
        self._steps = tuple(steps)
        self._names_of: dict[
            tuple[int, str | None], tuple[Any, list[Match | None], dict[Match, list[int]], bool]
        ] = {}
        self._owners_of: dict[tuple[int, int, int], dict[int, Path | None]] = {}
        self._aligned: dict[tuple[int, int], bool] = {}
        self._by_field: dict[tuple[int, str], tuple[Any, dict[tuple[type, Any], list[int]]]] = {}

    def _record(self, where: Path, step: int) -> None:
        node = self._root
        for part in where.parts:
            child = node.children.get(part)
            if child is None:
                child = node.children[part] = _Node()
            node = child
        node.owner, node.children, node.path = step, {}, where  # all of it is this step's now

    # ------------------------------------------------------------ the questions

    def at(self, where: Path | str) -> list[Blame]:
        """Every step that wrote what is at ``where`` now (or removed what was there),
        each with the part it wrote: ``where`` itself where one step wrote it all,
        else each element or key inside where the writers differ, in document
        order. ``where`` may use any selector (``[name=...]``, an index, ``[*]``),
        looked up in the last state; ``[]`` where no step wrote there."""
        target = where if isinstance(where, Path) else path(where)
        found: list[Blame] = []
        for node, value, original, owner, concrete in self._resolve(target):
            found += self._split(node, value, original, owner, concrete)
        return found

    def last(self, where: Path | str) -> Blame | None:
        """The writer of ``where`` (see :meth:`at`) whose step came last; ``None`` where none."""
        return max(self.at(where), key=lambda found: found.step or 0, default=None)

    def changes(self) -> list[Blame]:
        """Every change from the first state to the last, in document order, with the
        step that wrote it; a change several steps wrote parts of comes as those
        parts, one per writer where they differ (:meth:`at`)."""
        found: list[Blame] = []
        for change in changes_between(self.before, self.after):
            parts = self.at(change.path)
            if len(parts) == 1 and parts[0].change.path == change.path:
                found.append(Blame(change, parts[0].origin, parts[0].step))
            elif parts:
                found += parts
            else:
                found.append(Blame(change, None))
        return found

    # ------------------------------------------------------------ finding the parts

    def _resolve(self, target: Path) -> list[_Frame]:
        frames: list[_Frame] = [(self._root, self.after, self.before, self._root.owner, ())]
        for part in target.parts:
            reached: list[_Frame] = []
            for node, value, original, owner, at in frames:
                for shown, child_value, child_original, child in self._step(
                    node, value, original, at, part
                ):
                    reached.append(
                        (child, child_value, child_original, _owner(child, owner), (*at, shown))
                    )
            frames = reached
        return frames

    def _step(
        self, node: _Node | None, value: Any, original: Any, at: _Parts, part: Part
    ) -> list[_Child]:
        children = node.children if node is not None else {}
        if isinstance(part, Key):
            return [
                (
                    part,
                    value.get(part.name, MISSING) if is_map(value) else MISSING,
                    original.get(part.name, MISSING) if is_map(original) else MISSING,
                    children.get(part),
                )
            ]
        positions = self._positions(value, at, part) if is_seq(value) else []
        if not positions:  # not there now: what the walk knows of it as written, if anything
            return (
                []
                if isinstance(part, All)
                else [(part, MISSING, self._element(original, at, part), children.get(part))]
            )
        names, _, distinct = self._names(value, at)
        found: list[_Child] = []
        for index in positions:
            name = names[index] if distinct else None  # a name two elements share names neither
            shown = part if not isinstance(part, All) else name or Index(index)
            found.append(
                (
                    shown,
                    value[index],
                    self._counterpart(original, value, at, name, index),
                    _child(children, index, name),
                )
            )
        return found

    def _names(
        self, seq: Any, at: _Parts
    ) -> tuple[list[Match | None], dict[Match, list[int]], bool]:
        """Each element's name, where it is of each name, and whether the names are distinct."""
        last = at[-1] if at else None
        field = last.name if isinstance(last, Key) else None
        key = (id(seq), field)
        cached = self._names_of.get(key)
        if cached is None or cached[0] is not seq:
            names = [element_name(field, element) for element in seq]
            where: dict[Match, list[int]] = {}
            for index, name in enumerate(names):
                if name is not None:
                    where.setdefault(name, []).append(index)
            distinct = None not in names and all(len(found) == 1 for found in where.values())
            cached = self._names_of[key] = (seq, names, where, distinct)
        return cached[1], cached[2], cached[3]

    def _positions(self, seq: Any, at: _Parts, part: Part) -> list[int]:
        if isinstance(part, Index):
            index = part.index + len(seq) if part.index < 0 else part.index
            return [index] if 0 <= index < len(seq) else []
        if isinstance(part, Match):
            return self._matching(seq, part)
        return list(range(len(seq))) if isinstance(part, All) else []

    def _matching(self, seq: Any, part: Match) -> list[int]:
        """The positions of the elements of ``seq`` that ``part`` matches, from an index of
        the list by the part's first field, made once per list and field: a scan of the
        list for each question (a finding on each of n containers, n containers removed)
        was n² work."""
        key = (id(seq), part.field)
        cached = self._by_field.get(key)
        if cached is None or cached[0] is not seq:
            index: dict[tuple[type, Any], list[int]] = {}
            for position, element in enumerate(seq):
                if type(element) is not dict and not hasattr(element, "keys"):
                    continue
                value = element.get(part.field, MISSING)
                try:  # by type too, as a match compares: True is not 1
                    index.setdefault((type(value), value), []).append(position)
                except TypeError:
                    continue  # a map or a list, which no selector's value equals
            cached = self._by_field[key] = (seq, index)
        try:
            found = cached[1].get((type(part.value), part.value), [])
        except TypeError:  # a selector's value that is a map or a list: each element compared
            found = list(range(len(seq)))
        return [position for position in found if part.matches(seq[position])]

    def _element(self, original: Any, at: _Parts, part: Part) -> Any:
        if not is_seq(original):
            return MISSING
        found = self._positions(original, at, part)
        return original[found[0]] if found else MISSING

    def _counterpart(
        self, original: Any, value: Any, at: _Parts, name: Match | None, index: int
    ) -> Any:
        """What the element at ``index`` of ``value`` was in ``original``: the one of its
        ``name`` (given where the names are distinct), or else the one at its place
        unless the list was rearranged (then it has no one counterpart: ``MISSING``)."""
        if not is_seq(original):
            return MISSING
        if name is not None:
            found = self._names(original, at)[1].get(name)
            return original[found[0]] if found is not None and len(found) == 1 else MISSING
        if index >= len(original):
            return MISSING
        key = (id(original), id(value))
        aligned = self._aligned.get(key)
        if aligned is None:
            shared = min(len(original), len(value))
            aligned = self._aligned[key] = len(original) == len(value) or all(
                original[i] is value[i] or original[i] == value[i] for i in range(shared)
            )
        return original[index] if aligned else MISSING

    def _children(self, node: _Node | None, value: Any, original: Any, at: _Parts) -> list[_Child]:
        """The keys or elements of ``value``, then those of ``original`` a step removed."""
        children = node.children if node is not None else {}
        found: list[_Child] = []
        if is_map(value):
            for key, child_value in value.items():
                field = Key(str(key))
                found.append(
                    (
                        field,
                        child_value,
                        original.get(key, MISSING) if is_map(original) else MISSING,
                        children.get(field),
                    )
                )
            if is_map(original):
                found += [
                    (part, MISSING, original[part.name], child)
                    for part, child in children.items()
                    if isinstance(part, Key) and part.name not in value and part.name in original
                ]
        elif is_seq(value):
            names, _, distinct = self._names(value, at)
            seen: set[int] = set()
            for index, element in enumerate(value):
                name = names[index] if distinct else None
                child = _child(children, index, name)
                if child is not None:
                    seen.add(id(child))
                found.append(
                    (
                        name or Index(index),
                        element,
                        self._counterpart(original, value, at, name, index),
                        child,
                    )
                )
            if is_seq(original):
                for part, child in children.items():
                    if id(child) in seen or not isinstance(part, (Index, Match)):
                        continue
                    gone = (
                        part.index >= len(value)
                        if isinstance(part, Index)
                        else not self._positions(value, at, part)
                    )
                    was = self._element(original, at, part)
                    if gone and was is not MISSING:
                        found.append((part, MISSING, was, child))
        return found

    def _owners(
        self, node: _Node | None, value: Any, original: Any, owner: int | None, at: _Parts
    ) -> dict[int, Path | None]:
        """The steps that wrote what is at ``at``, each with where it wrote (``None``:
        all of ``at``, or an enclosing part)."""
        if node is None or not node.children:
            return {} if owner is None else {owner: None}
        key = (id(node), id(value), id(original))
        cached = self._owners_of.get(key)
        if cached is not None:
            return cached
        found: dict[int, Path | None] = {}
        for part, child_value, child_original, child in self._children(node, value, original, at):
            child_owner = _owner(child, owner)
            for step, where in self._owners(
                child, child_value, child_original, child_owner, (*at, part)
            ).items():
                if step == owner:
                    found.setdefault(step, None)
                else:  # written inside: by the child's step, at the child, or deeper
                    found.setdefault(
                        step, where if where is not None or child is None else child.path
                    )
        if not found and owner is not None:
            found[owner] = None
        self._owners_of[key] = found
        return found

    def _split(
        self, node: _Node | None, value: Any, original: Any, owner: int | None, at: _Parts
    ) -> list[Blame]:
        if value is MISSING and original is MISSING:
            return []  # nothing is there, nor was: whatever a step did there was undone
        owners = self._owners(node, value, original, owner, at)
        if len(owners) <= 1:
            return [self._blame(at, original, value, step, where) for step, where in owners.items()]
        found: list[Blame] = []
        for part, child_value, child_original, child in self._children(node, value, original, at):
            found += self._split(
                child, child_value, child_original, _owner(child, owner), (*at, part)
            )
        return found

    def _blame(self, at: _Parts, before: Any, after: Any, step: int, where: Path | None) -> Blame:
        named = Path(at)
        origin = (
            self._steps[step - 1].origin_of(where or named) if step <= len(self._steps) else None
        )
        return Blame(Change(named, before, after), origin, step)


def _owner(node: _Node | None, enclosing: int | None) -> int | None:
    return node.owner if node is not None and node.owner is not None else enclosing


def _child(children: dict[Part, _Node], index: int, name: Match | None) -> _Node | None:
    """The node of the element at ``index``: written by its place (a list whose elements
    had no distinct names then), else by its name."""
    found = children.get(Index(index)) if children else None
    if found is None and name is not None:
        found = children.get(name)
    return found
