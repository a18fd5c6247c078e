"""Walking a path and rebuilding only what changes: the engine behind every combinator.

:class:`PathEdit` is the base of the combinators that act at a path. It
walks the path, hands each value found at the last part to :meth:`PathEdit.leaf`
and rebuilds the containers along the way, copy-on-write; a subtree that did
not change is returned as the very same object, so a transform that changes
nothing returns its input.

What happens where the path leads nowhere is the subclass's choice:
``CREATE`` makes the missing maps (and lists, where the next part selects in
a list), ``SKIP`` leaves the document as it is, ``ERROR`` raises a
:class:`~combinators.errors.PathError` naming the near misses.
"""

from __future__ import annotations

from combinators._typing import TYPE_CHECKING
from combinators.compiled import FALLBACK, compile_path
from combinators.data import (
    MISSING,
    REMOVE,
    Owned,
    delete_key,
    empty_map,
    empty_seq,
    extend_seq,
    is_map,
    is_persistent,
    is_seq,
    kind_name,
    rebuild_seq,
    set_key,
)
from combinators.errors import (
    ArgumentError,
    PathError,
    TransformError,
    TypeClashError,
)
from combinators.fusion import APPEND, CALL, FALL_BACK, LEAF, LEAVE, Op
from combinators.limits import MAX_DEPTH, short_repr
from combinators.near import near_misses
from combinators.paths import All, End, Index, Key, Match, Part, Path, as_path
from combinators.transform import Transform

if TYPE_CHECKING:
    from typing import Any, TypeVar

    Doc = TypeVar("Doc")

__all__ = (
    "PathEdit",
    "CREATE",
    "SKIP",
    "ERROR",
    "missing_key_error",
    "no_match_error",
    "persistent_world",
)

CREATE, SKIP, ERROR = "create", "skip", "error"


def persistent_world(doc: Any) -> bool:
    """Whether values inserted into ``doc`` are to be frozen (a pyrsistent document)."""
    return is_persistent(doc)


def _where(path: Path, index: int) -> str:
    prefix = str(path.prefix(index))
    return prefix or "the document"


def missing_key_error(path: Path, index: int, mapping: Any, key: str) -> PathError:
    """The error for a key that is not in ``mapping``, with its close matches."""
    keys = [str(k) for k in mapping]
    close = near_misses(str(key), keys)
    return PathError(
        f"no key {short_repr(key)} in {_where(path, index)}",
        path=path,
        part_index=index,
        near_misses=close,
        present=tuple(keys[:20]),
    )


def _label_values(seq: Any, field: str) -> list[str]:
    values = []
    for element in seq:
        if is_map(element) and field in element:
            values.append(str(element[field]))
    return values


def no_match_error(path: Path, index: int, seq: Any, part: Part) -> PathError:
    """The error for a selector that matches nothing, naming what is there."""
    where = _where(path, index)
    if isinstance(part, Match):
        field, wanted = part.fields[0]
        values = _label_values(seq, field)
        close = near_misses(str(wanted), values)
        return PathError(
            f"no element {short_repr(part.text(), quoted=False)} in {where}",
            path=path,
            part_index=index,
            near_misses=close,
            present=tuple(values[:20]),
            present_label=f"{field}s present",
        )
    if isinstance(part, Index):
        return PathError(
            f"index {short_repr(part.index)} out of range in {where} "
            f"(it has {len(seq)} element{'' if len(seq) == 1 else 's'})",
            path=path,
            part_index=index,
        )
    return PathError(
        f"nothing at {short_repr(part.text(), quoted=False)} in {where}",
        path=path,
        part_index=index,
    )


class PathEdit(Transform):
    """A transform that changes what a path points at.

    Subclasses set ``missing`` (what to do where a parent is missing),
    ``missing_leaf`` (what to do where the last part finds nothing; ``CREATE``
    calls :meth:`leaf` with ``MISSING``) and implement :meth:`leaf`.
    """

    __slots__ = (
        "path",
        "_parts",
        "_last",
        "missing",
        "missing_leaf",
        "_compiled",
        "_lone",
        "_fast_leaf",
    )

    def _init_path(self, target: Any, missing: str, missing_leaf: str) -> None:
        try:
            self.path = as_path(target)
        except ArgumentError as err:
            raise err.in_factory(self.name) from None
        if len(self.path) > MAX_DEPTH:
            raise ArgumentError(
                f"target has {len(self.path)} parts; a path has at most {MAX_DEPTH}",
                argument="target",
                factory=self.name,
                value=str(self.path)[:200],
            )
        self._parts = self.path.parts
        self._last = len(self._parts) - 1
        self.missing = missing
        self.missing_leaf = missing_leaf
        self._compile()

    def _compile(self) -> None:
        create = self.missing_leaf == CREATE
        items = self._append_items()
        append = items is not None
        self._compiled = compile_path(self.path, create=create, append=append)
        self._lone = compile_path(self.path, create=create, lone=True, append=append)
        # what the fast paths take as their leaf (see compile_path)
        self._fast_leaf: Any = items if append else self.leaf

    def _append_items(self) -> tuple[Any, ...] | None:
        """Maps or lists of scalars the leaf appends, and all it does, if so; else ``None``."""
        return None

    def _fusion_items(self) -> tuple[tuple[Any, str], ...] | None:
        """What the leaf appends, if that is all it does, as a fused ``APPEND`` takes it."""
        return None

    def __getstate__(self) -> dict[str, Any]:
        # the compiled fast paths are code made at run time: rebuilt, not pickled
        return {
            name: getattr(self, name)
            for cls in type(self).__mro__
            for name in getattr(cls, "__slots__", ())
            if name not in ("_compiled", "_lone", "_fast_leaf") and hasattr(self, name)
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)
        self._compile()

    def leaf(self, old: Any, persistent: bool, owned: Owned) -> Any:  # pragma: no cover
        """The new value for ``old`` (``MISSING`` where nothing is there), or ``REMOVE``."""
        raise NotImplementedError

    def _apply(self, doc: Any, owned: Owned) -> Any:
        fast = self._compiled
        if fast is not None and type(doc) is dict:
            try:
                result = fast(doc, owned, self._fast_leaf)
            except TransformError as err:
                self._annotate(err)
                raise
            if result is not FALLBACK:
                return result
        return self._apply_slow(doc, owned)

    def __call__(self, doc: Doc) -> Doc:
        # what Transform.__call__ and _apply do, with the fast path for a transform
        # called on its own (see compile_path): a lone edit is the common case
        fast: Any = self._lone
        if fast is None or type(doc) is not dict:
            return super().__call__(doc)
        owned = Owned()
        try:
            result: Doc = fast(doc, owned, self._fast_leaf)
        except TransformError as err:
            self._annotate(err)
            raise
        if result is FALLBACK:
            result = self._apply_slow(doc, owned)
        return result

    def _fast_parts(self) -> tuple[Any, Any, Any]:
        return self._compiled, self._fast_leaf, self._apply_slow

    #: whether :meth:`leaf` is pure (runs none of the caller's code), so may be fused
    _pure_leaf = True

    def _fusion_ops(self) -> tuple[Op, ...] | None:
        # Fused: a walk the compiled fast path could do. An edit that creates what
        # is missing and walks as this class does fuses as itself; any other (one
        # that skips or refuses what is missing, or walks its own way where the
        # fast path gives up) only where every part is there, else it falls back.
        if self._compiled is None or not self._pure_leaf:
            return None
        parts = self._parts
        if (
            self.missing == CREATE
            and self.missing_leaf == CREATE
            and type(self)._apply_slow is PathEdit._apply_slow
        ):
            return (self._fusion_op(),)
        missing = {CREATE: CALL, SKIP: LEAVE}.get(self.missing_leaf, FALL_BACK)
        if type(self)._apply_slow is not PathEdit._apply_slow and missing == LEAVE:
            missing = FALL_BACK
        return (Op(LEAF, parts, self.leaf, exists=len(parts) - 1, missing=missing),)

    def _fusion_op(self) -> Op:
        """This edit as one op (see :mod:`combinators.fusion`): its leaf, or a batched append."""
        parts = self._parts
        last = parts[-1]
        items = self._fusion_items()
        if items is not None and type(last) is not Match and type(last) is not End:
            return Op(APPEND, parts, items)
        if type(last) is Match:

            def fields(element: Any, owned: Owned, part: Match = last) -> Any:
                return _with_fields(element, part, owned)

            return Op(LEAF, parts, self.leaf, fields)
        return Op(LEAF, parts, self.leaf)

    def _annotate(self, err: TransformError) -> None:
        if err.path is None:
            err.path = self.path
            err.part_index = self._last

    def _apply_slow(self, doc: Any, owned: Owned) -> Any:
        try:
            persistent = persistent_world(doc)
            if self._last < 0:
                return self._leaf_at_root(doc, persistent, owned)
            return self._edit(doc, 0, persistent, owned)
        except TransformError as err:
            if err.path is None and not err.relative:
                err.path = self.path
                err.part_index = self._last
            raise

    def _leaf_at_root(self, doc: Any, persistent: bool, owned: Owned) -> Any:
        new = self.leaf(doc, persistent, owned)
        if new is REMOVE:
            raise TypeClashError("cannot remove the whole document", path=self.path)
        return new

    def _edit(self, node: Any, index: int, persistent: bool, owned: Owned) -> Any:
        part = self._parts[index]
        last = index == self._last
        if type(part) is Key:
            if not is_map(node):
                raise TypeClashError(
                    f"cannot take key {short_repr(part.name)} of {kind_name(node)} at "
                    f"{_where(self.path, index)}",
                    path=self.path,
                    part_index=index,
                    expected="a map",
                    found=kind_name(node),
                )
            key = part.name
            child = node.get(key, MISSING)
            if last:
                if child is MISSING and self.missing_leaf != CREATE:
                    if self.missing_leaf == SKIP:
                        return node
                    raise missing_key_error(self.path, index, node, key)
                try:
                    new = self.leaf(child, persistent, owned)
                except TransformError as err:
                    if err.relative:
                        err.trail = (part, *err.trail)
                    raise
                if new is child:
                    return node
                if new is REMOVE:
                    return node if child is MISSING else delete_key(node, key, owned)
                return set_key(node, key, new, owned)
            if child is MISSING or child is None:
                if self.missing == SKIP:
                    return node
                if self.missing == ERROR:
                    raise missing_key_error(self.path, index, node, key)
                child = (
                    empty_map(persistent)
                    if type(self._parts[index + 1]) is Key
                    else empty_seq(persistent)
                )
            try:
                new = self._edit(child, index + 1, persistent, owned)
            except TransformError as err:
                if err.relative:
                    err.trail = (part, *err.trail)
                raise
            if new is child:
                return node
            return set_key(node, key, new, owned)
        return self._edit_seq(node, part, index, last, persistent, owned)

    def _edit_seq(
        self, node: Any, part: Part, index: int, last: bool, persistent: bool, owned: Owned
    ) -> Any:
        if not is_seq(node):
            raise TypeClashError(
                f"cannot select {part.text()} in {kind_name(node)} at {_where(self.path, index)}",
                path=self.path,
                part_index=index,
                expected="a list",
                found=kind_name(node),
            )
        kind = type(part)
        if kind is End:
            return self._append_new(node, part, index, last, persistent, owned)
        if kind is All:
            targets: list[int] = list(range(len(node)))
        elif kind is Match:
            assert isinstance(part, Match)
            targets = [i for i, element in enumerate(node) if part.matches(element)]
            if not targets:
                return self._append_new(node, part, index, last, persistent, owned)
        else:
            assert isinstance(part, Index)
            size = len(node)
            if not -size <= part.index < size:
                policy = self.missing_leaf if last else self.missing
                if policy == SKIP:
                    return node
                raise no_match_error(self.path, index, node, part)
            targets = [part.index % size]
        changes: dict[int, Any] = {}
        removed: list[int] = []
        for position in targets:
            child = node[position]
            try:
                new = (
                    self.leaf(child, persistent, owned)
                    if last
                    else self._edit(child, index + 1, persistent, owned)
                )
            except TransformError as err:
                if err.relative:  # the element's own index, not the selector
                    err.trail = (Index(position), *err.trail)
                raise
            if new is REMOVE:
                removed.append(position)
            elif new is not child:
                changes[position] = new
        if not changes and not removed:
            return node
        return rebuild_seq(node, changes, removed, owned)

    def _append_new(
        self, node: Any, part: Part, index: int, last: bool, persistent: bool, owned: Owned
    ) -> Any:
        """Nothing matched ``part`` (a match selector, or the end of the list)."""
        policy = self.missing_leaf if last else self.missing
        if policy == SKIP:
            return node
        if policy == ERROR or (not last and isinstance(part, Match)):
            # A match in the middle of a path never invents an element: that
            # would be a phantom (a container with no image, say).
            raise no_match_error(self.path, index, node, part)
        try:
            if last:
                new = self.leaf(MISSING, persistent, owned)
                if new is MISSING or new is REMOVE:
                    return node
            else:
                seed = (
                    empty_map(persistent)
                    if type(self._parts[index + 1]) is Key
                    else empty_seq(persistent)
                )
                new = self._edit(seed, index + 1, persistent, owned)
                if new is seed:
                    return node
        except TransformError as err:
            if err.relative:
                err.trail = (Index(len(node)), *err.trail)
            raise
        if isinstance(part, Match):
            if not is_map(new):
                # it could never match the selector: each application would add another
                raise TypeClashError(
                    f"a new element for {part.text()} in {_where(self.path, index)} must be "
                    f"a map to hold the selector's fields, not {kind_name(new)}",
                    path=self.path,
                    part_index=index,
                    expected="a map",
                    found=kind_name(new),
                )
            new = _with_fields(new, part, owned)
        return extend_seq(node, [new], None, owned)


def _with_fields(element: Any, part: Match, owned: Owned) -> Any:
    for key, value in part.fields:
        if element.get(key, MISSING) is MISSING:
            element = set_key(element, key, value, owned)
    if type(element) is dict:
        # the selector's fields lead, as a user writes them: {name: sidecar, image: ...}
        ordered = {key: element[key] for key, _ in part.fields}
        ordered.update(element)
        return owned.adopt(ordered)
    return element
