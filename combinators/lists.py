"""Adding to lists: append, prepend, insert next to a match, merge by key.

Each factory takes the path of the list first. A missing list is created
(with missing parent maps); a path that leads to something other than a
list raises a :class:`~combinators.errors.TypeClashError` (also a ``TypeError``).
"""

from __future__ import annotations

from combinators._typing import TYPE_CHECKING
from combinators.data import (
    MISSING,
    Owned,
    Template,
    copy_plain,
    empty_seq,
    extend_seq,
    is_map,
    is_seq,
    kind_name,
    merge_value,
    rebuild_seq,
    strict_key,
)
from combinators.editing import CREATE, PathEdit, no_match_error
from combinators.errors import ArgumentError, ArgumentTypeError, PathSyntaxError, TypeClashError
from combinators.limits import short_names, short_repr
from combinators.paths import Index, Match, Part, Path, PathLike
from combinators.shape import check_flag, check_value
from combinators.transform import Transform

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, Union

    AnchorLike = Union[str, int, dict[str, Any]]

__all__ = ("append_at", "prepend_at", "insert_at", "merge_by")


def _require_list(old: Any, edit: PathEdit) -> None:
    if not is_seq(old):
        # the edit's own place: a partial pod calls the leaf without the walk that would add it
        raise TypeClashError(
            f"expected a list, found {kind_name(old)}",
            path=edit.path,
            part_index=edit._last,
            expected="a list",
            found=kind_name(old),
        )


class _Add(PathEdit):
    """Add items at the end, at the start, or next to a selected element."""

    __slots__ = ("name", "items", "unique", "where", "anchor", "_flat_items", "_keys")

    def __init__(
        self,
        name: str,
        target: PathLike,
        items: Sequence[Any],
        unique: bool,
        where: str,
        anchor: Part | None,
        params: dict[str, Any],
    ) -> None:
        self.name = name
        check_flag(unique, argument="unique", factory=name)
        check_value(list(items), argument="items", factory=name)
        self.items = tuple(Template(item) for item in items)
        self.unique = unique
        # each item's identity, hashed once: a list of any length is searched in one pass
        self._keys = tuple(strict_key(item.plain) for item in self.items) if unique else ()
        self.where = where
        self.anchor = anchor
        # the common case, kept short in ``leaf`` and compiled into the fast
        # path: append maps or lists of scalars
        simple = (
            bool(self.items)
            and not unique
            and where == "end"
            and all(item.flat for item in self.items)
        )
        self._flat_items = tuple(item.plain for item in self.items) if simple else None
        self._init_path(target, CREATE, CREATE)
        self._init_params(self.path, *(item.plain for item in self.items), **params)

    def _append_items(self) -> tuple[Any, ...] | None:
        return self._flat_items

    def _fusion_items(self) -> tuple[tuple[Any, str], ...] | None:
        if self.unique or self.where != "end" or not self.items:
            return None
        return tuple(
            (item.plain, "copy" if item.flat else "deep" if item.is_container else "share")
            for item in self.items
        )

    def leaf(self, old: Any, persistent: bool, owned: Owned) -> Any:
        flat = self._flat_items
        if flat is not None and type(old) is list:
            old = owned.writable_list(old)
            for plain in flat:
                old.append(plain.copy())
            return old
        if old is MISSING or old is None:
            old = empty_seq(persistent)
        else:
            _require_list(old, self)
        new: list[Any] = []
        if self.unique and type(old) is list and not any(item.plain in old for item in self.items):
            # None is even == to anything there (C's ==, no key built): strictly, none is
            # there either; only items given twice are left to find, among themselves
            seen: set[Any] = set()
            for item, key in zip(self.items, self._keys, strict=True):
                if key not in seen:
                    seen.add(key)
                    new.append(item.fresh(persistent))
        elif self.unique:
            seen = {strict_key(present) for present in old}
            for item, key in zip(self.items, self._keys, strict=True):
                if key not in seen:
                    seen.add(key)
                    new.append(item.fresh(persistent))
        else:
            new = [item.fresh(persistent) for item in self.items]
        if not new:
            return old
        return extend_seq(old, new, self._position(old), owned)

    def _position(self, old: Any) -> int | None:
        if self.where == "end":
            return None
        if self.where == "start":
            return 0
        assert self.anchor is not None
        found = _anchor_positions(old, self.anchor)
        if not found:
            raise no_match_error(self.path.child(self.anchor), len(self.path), old, self.anchor)
        return found[0] if self.where == "before" else found[-1] + 1


def _anchor_positions(seq: Any, anchor: Part) -> list[int]:
    if isinstance(anchor, Index):
        size = len(seq)
        return [anchor.index % size] if -size <= anchor.index < size else []
    assert isinstance(anchor, Match)
    return [i for i, element in enumerate(seq) if anchor.matches(element)]


def append_at(target: PathLike, *items: Any, unique: bool = False) -> Transform:
    """Append ``items`` to the list at ``target``, creating it where absent.

    With ``unique=True`` an item already in the list (or given twice) is
    skipped, so applying the transform twice equals applying it once.

    >>> pod = {"spec": {"tolerations": [{"key": "a"}]}}
    >>> append_at("spec.tolerations", {"key": "b"})(pod)
    {'spec': {'tolerations': [{'key': 'a'}, {'key': 'b'}]}}
    >>> append_at("spec.tolerations", {"key": "a"}, unique=True)(pod) is pod
    True
    >>> append_at("spec.containers[0].args", "--fast")({"spec": {"containers": [{"name": "t"}]}})
    {'spec': {'containers': [{'name': 't', 'args': ['--fast']}]}}
    """
    return _Add("append_at", target, items, unique, "end", None, {"unique": True} if unique else {})


def prepend_at(target: PathLike, *items: Any, unique: bool = False) -> Transform:
    """Put ``items`` at the start of the list at ``target``, in the order given.

    Missing lists are created; ``unique=True`` skips items already present.

    >>> prepend_at("spec.containers[0].command", "torchrun")(
    ...     {"spec": {"containers": [{"command": ["python"]}]}})
    {'spec': {'containers': [{'command': ['torchrun', 'python']}]}}
    """
    return _Add(
        "prepend_at", target, items, unique, "start", None, {"unique": True} if unique else {}
    )


def _anchor(value: AnchorLike, argument: str) -> Part:
    if isinstance(value, bool):
        raise ArgumentTypeError(
            f"{argument} takes a selector, an index or a map, got {short_repr(value)}",
            argument=argument,
            factory="insert_at",
            value=value,
        )
    if isinstance(value, int):
        return Index(value)
    if isinstance(value, dict):
        if not value:
            raise ArgumentError(
                f"{argument} takes a map of the fields the element has, one or more; got {{}}",
                argument=argument,
                factory="insert_at",
                value=value,
            )
        check_value(value, argument=argument, factory="insert_at")  # names are strings
        return Match(tuple(value.items()))
    if isinstance(value, str):
        text = value if value.startswith("[") else f"[{value}]"
        try:
            parts = Path.parse(text).parts
        except PathSyntaxError as err:
            # the parser's caret points into the text in brackets, not into what was given
            raise ArgumentError(
                f"{argument} takes a selector such as 'name=trainer', got "
                f"{short_repr(value)}, which does not read as one: "
                f"{err.message}",
                argument=argument,
                factory="insert_at",
                value=value,
            ) from None
        if len(parts) == 1 and isinstance(parts[0], (Match, Index)):
            return parts[0]
    raise ArgumentTypeError(
        f"{argument} takes a selector such as 'name=trainer', an index "
        f"or a map of fields, got {short_repr(value)}",
        argument=argument,
        factory="insert_at",
        value=value,
    )


def insert_at(
    target: PathLike,
    *items: Any,
    before: AnchorLike | None = None,
    after: AnchorLike | None = None,
    unique: bool = False,
) -> Transform:
    """Insert ``items`` into the list at ``target`` next to a selected element.

    ``before`` or ``after`` (exactly one) selects the element: a selector
    (``"name=trainer"``), an index, or a map of fields. Items go before the
    first match or after the last one; where nothing matches, a
    :class:`~combinators.errors.PathError` names what is there.

    >>> pod = {"spec": {"initContainers": [{"name": "fetch"}, {"name": "setup"}]}}
    >>> insert_at("spec.initContainers", {"name": "wait"}, before="name=setup")(pod)
    {'spec': {'initContainers': [{'name': 'fetch'}, {'name': 'wait'}, {'name': 'setup'}]}}
    >>> insert_at("spec.initContainers", {"name": "last"}, after=-1)(pod)["spec"]["initContainers"][-1]
    {'name': 'last'}
    """
    if (before is None) == (after is None):
        raise ArgumentTypeError(
            f"before= or after= (exactly one) selects where the items go; "
            f"got {'neither' if before is None else 'both'}",
            argument="before",
            factory="insert_at",
            value=before,
        )
    where, anchor = ("before", before) if before is not None else ("after", after)
    assert anchor is not None
    params: dict[str, Any] = {where: anchor}
    if unique:
        params["unique"] = True
    return _Add("insert_at", target, items, unique, where, _anchor(anchor, where), params)


class _MergeBy(PathEdit):
    __slots__ = ("items", "keys", "_identities")
    name = "merge_by"

    def __init__(self, target: PathLike, items: Sequence[Any], key: str | tuple[str, ...]) -> None:
        self._init_path(target, CREATE, CREATE)
        self.keys = _key_fields(key)
        if isinstance(items, (str, bytes)) or not is_seq(items):
            raise ArgumentTypeError(
                f"items must be a list of maps, got {kind_name(items)}",
                argument="items",
                factory="merge_by",
                value=items,
            )
        for number, item in enumerate(items):
            if not is_map(item):
                raise ArgumentTypeError(
                    f"items[{number}] is {kind_name(item)}; items are maps",
                    argument="items",
                    factory="merge_by",
                    value=item,
                )
            absent = [k for k in self.keys if k not in item]
            if absent:
                raise ArgumentError(
                    f"items[{number}] has no {short_names(absent)} field "
                    f"to merge by (key={short_repr(key)}): {short_repr(item)}",
                    argument="items",
                    factory="merge_by",
                    value=item,
                )
        check_value(list(items), argument="items", factory="merge_by")
        given = [copy_plain(item) for item in items]
        # Items with the same key merge into one first: merging them one by one
        # would change an element and change it back, a new but equal document.
        combined: dict[Any, Any] = {}
        for item in given:
            identity = _identity(item, self.keys)
            found = combined.get(identity, MISSING)
            combined[identity] = (
                copy_plain(item)
                if found is MISSING
                else merge_value(found, item, None, False, Owned())
            )
        # each a private copy already (merge_value copies what it takes from an item)
        self.items = tuple(Template(item, private=True) for item in combined.values())
        self._identities = tuple(combined)
        params: dict[str, Any] = {} if key == "name" else {"key": key}
        self._init_params(self.path, given, **params)

    def leaf(self, old: Any, persistent: bool, owned: Owned) -> Any:
        if old is MISSING or old is None:
            old = empty_seq(persistent)
        else:
            _require_list(old, self)
        changes: dict[int, Any] = {}
        appended: list[Any] = []
        # the first element with each key, found in one pass over the list
        positions: dict[Any, int] = {}
        keys = self.keys
        if len(keys) == 1:  # the common case, kept short: strict_key(text) is the text
            key = keys[0]
            for position, element in enumerate(old):
                if type(element) is dict:
                    if key in element:
                        found = element[key]
                        positions.setdefault(
                            found if type(found) is str else strict_key(found), position
                        )
                elif is_map(element) and key in element:
                    positions.setdefault(_identity(element, keys), position)
        else:
            for position, element in enumerate(old):
                if is_map(element) and all(k in element for k in keys):
                    positions.setdefault(_identity(element, keys), position)
        for item, identity in zip(self.items, self._identities, strict=True):
            found = positions.get(identity)
            if found is None:
                # the items' keys differ from each other: each is appended once
                appended.append(item.fresh(persistent))
                continue
            position = found
            current = changes.get(position, old[position])
            merged = merge_value(
                current, item.plain, item.frozen if persistent else None, persistent, owned
            )
            if merged is not current:
                changes[position] = merged
        result = rebuild_seq(old, changes, (), owned) if changes else old
        if appended:
            result = extend_seq(result, appended, None, owned)
        return result


def _key_fields(key: Any) -> tuple[str, ...]:
    """merge_by's ``key``, a field name or a tuple (or list) of them, as a tuple of names."""
    fields = (
        (key,) if isinstance(key, str) else tuple(key) if isinstance(key, (tuple, list)) else None
    )
    if fields is None:
        raise ArgumentTypeError(
            f"key is a field name or a tuple of them, got {short_repr(key)}",
            argument="key",
            factory="merge_by",
            value=key,
        )
    if not fields:
        raise ArgumentError(
            "key needs at least one field name", argument="key", factory="merge_by", value=key
        )
    for field in fields:
        if not isinstance(field, str):
            raise ArgumentTypeError(
                f"key is a field name or a tuple of them; "
                f"{short_repr(field)} in {short_repr(key)} is no name",
                argument="key",
                factory="merge_by",
                value=key,
            )
        if not field:
            raise ArgumentError(
                f"key names a field; {short_repr(key)} holds an empty name",
                argument="key",
                factory="merge_by",
                value=key,
            )
    return fields


def _identity(element: Any, keys: tuple[str, ...]) -> Any:
    """The hashable identity of a list element by its key fields (strict: ``1`` is not ``True``)."""
    if len(keys) == 1:
        return strict_key(element[keys[0]])
    return tuple(strict_key(element[k]) for k in keys)


def merge_by(
    target: PathLike, items: Sequence[Any], key: str | tuple[str, ...] = "name"
) -> Transform:
    """Merge each item into the list element with the same ``key``; append the rest.

    ``key`` is a field name or a tuple of them (a composite key such as
    ``("containerPort", "protocol")``). Matching elements are merged as
    :func:`upsert` merges (maps recursively, other values replace); items with
    no match are appended in order. A missing list is created.

    >>> pod = {"spec": {"containers": [{"name": "t", "env": [{"name": "A", "value": "1"}]}]}}
    >>> merge_by("spec.containers[name=t].env", [{"name": "A", "value": "2"},
    ...                                          {"name": "B", "value": "3"}])(pod)
    {'spec': {'containers': [{'name': 't', 'env': [{'name': 'A', 'value': '2'}, {'name': 'B', 'value': '3'}]}]}}
    >>> ports = {"ports": [{"containerPort": 80, "protocol": "TCP"}]}
    >>> merge_by("ports", [{"containerPort": 80, "protocol": "UDP"}],
    ...          key=("containerPort", "protocol"))(ports)
    {'ports': [{'containerPort': 80, 'protocol': 'TCP'}, {'containerPort': 80, 'protocol': 'UDP'}]}
    """
    return _MergeBy(target, items, key)
