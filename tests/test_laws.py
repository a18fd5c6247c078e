"""Algebraic laws of the combinators, one named test each, and a naive oracle.

The oracle is a second, deliberately plain implementation of every
combinator's documented semantics: it deep-copies the document and edits it
in place with ordinary dict and list operations. Each combinator must agree
with it (values, kinds, key order and which error) on generated documents,
paths and values; the oracle also records which places it edited, so the
structural-sharing test knows what else must come back as the same object.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from combinators import (
    All,
    End,
    ExpectationError,
    Index,
    Key,
    Match,
    Path,
    PathError,
    StepError,
    TransformError,
    TypeClashError,
    append_at,
    chain,
    compose,
    get_at,
    identity,
    merge_by,
    remove_at,
    replace_at,
    set_default,
    upsert,
)
from combinators.transform import Compose, Transform
from tests.doc_strategies import (
    NAMES,
    json_docs,
    json_values,
    paths_into,
    plain_transforms_for,
    pods,
    steps_for,
    transforms_for,
)

SETTINGS = settings(
    max_examples=settings.default.max_examples,  # the profile's: ci's, or fuzz's forty times as many
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)

# ---------------------------------------------------------------------------
# the oracle

_MISSING: Any = object()
_REMOVE: Any = object()
CREATE, SKIP, ERROR = "create", "skip", "error"


def strict_eq(a: Any, b: Any) -> bool:
    """Deep equality that keeps 1, 1.0 and True apart; maps compare without order."""
    if isinstance(a, dict):
        return (
            isinstance(b, dict) and a.keys() == b.keys() and all(strict_eq(a[k], b[k]) for k in a)
        )
    if isinstance(a, list):
        return (
            isinstance(b, list)
            and len(a) == len(b)
            and all(strict_eq(x, y) for x, y in zip(a, b, strict=True))
        )
    return type(a) is type(b) and a == b


def shape(value: Any) -> Any:
    """What a value is, exactly: kinds of scalars, key order of maps."""
    if isinstance(value, dict):
        return ("map", tuple((k, shape(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("list", tuple(shape(v) for v in value))
    return (type(value).__name__, value)


def thaw(value: Any) -> Any:
    """A plain copy of a plain or persistent value (tuples become lists)."""
    if hasattr(value, "items"):
        return {k: thaw(v) for k, v in value.items()}
    if (
        isinstance(value, (list, tuple))
        or type(value).__name__ == "PVector"
        or (hasattr(value, "tolist"))
    ):
        return [thaw(v) for v in value]
    return value


def o_merge(old: Any, value: Any) -> Any:
    if isinstance(value, dict):
        if not isinstance(old, dict):
            return copy.deepcopy(value)
        for key, item in value.items():
            old[key] = o_merge(old.get(key, _MISSING), item)
        return old
    if old is not _MISSING and strict_eq(old, value):
        return old
    return copy.deepcopy(value)


def o_matches(part: Match, element: Any) -> bool:
    return isinstance(element, dict) and all(
        key in element and strict_eq(element[key], value) for key, value in part.fields
    )


def o_select(doc: Any, parts: tuple[Any, ...]) -> list[Any]:
    frontier = [doc]
    for part in parts:
        found = []
        for node in frontier:
            if isinstance(part, Key):
                if isinstance(node, dict) and part.name in node:
                    found.append(node[part.name])
            elif isinstance(node, list):
                if isinstance(part, All):
                    found.extend(node)
                elif isinstance(part, Match):
                    found.extend(e for e in node if o_matches(part, e))
                elif isinstance(part, Index) and -len(node) <= part.index < len(node):
                    found.append(node[part.index])
        frontier = found
    return frontier


class Edit:
    """A walk along a path in a mutable document, calling ``leaf`` at its end."""

    def __init__(
        self,
        path: Path,
        leaf: Callable[[Any, tuple[Any, ...]], Any],
        missing: str,
        missing_leaf: str,
        touched: list[tuple[Any, ...]],
        record_leaf: bool = True,
    ) -> None:
        self.parts = path.parts
        self.record_leaf = record_leaf
        self.leaf = leaf
        self.missing = missing
        self.missing_leaf = missing_leaf
        self.touched = touched

    def run(self, doc: Any, loc: tuple[Any, ...]) -> Any:
        if not self.parts:
            new = self.call_leaf(doc, loc)
            if new is _REMOVE:
                raise TypeClashError("oracle: cannot remove the whole document")
            return new
        return self.edit(doc, 0, loc)

    def call_leaf(self, old: Any, loc: tuple[Any, ...]) -> Any:
        if self.record_leaf:  # for_each's inner steps record their own places
            self.touched.append(loc)
        return self.leaf(old, loc)

    def seed(self, index: int) -> Any:
        return {} if isinstance(self.parts[index + 1], Key) else []

    def edit(self, node: Any, index: int, loc: tuple[Any, ...]) -> Any:
        part = self.parts[index]
        last = index == len(self.parts) - 1
        if isinstance(part, Key):
            if not isinstance(node, dict):
                raise TypeClashError("oracle: key of a non-map")
            child = node.get(part.name, _MISSING)
            here = (*loc, part.name)
            if last:
                if child is _MISSING and self.missing_leaf != CREATE:
                    if self.missing_leaf == SKIP:
                        return node
                    raise PathError("oracle: no key")
                new = self.call_leaf(child, here)
                if new is _REMOVE:
                    node.pop(part.name, None)
                elif not (child is _MISSING and new is _MISSING):
                    node[part.name] = new
                return node
            if child is _MISSING or child is None:
                if self.missing == SKIP:
                    return node
                if self.missing == ERROR:
                    raise PathError("oracle: no key")
                self.touched.append(here)
                seed = self.seed(index)
                new = self.edit(seed, index + 1, here)
                if new == type(seed)():  # nothing was made: no empty parents either
                    return node
                node[part.name] = new
                return node
            node[part.name] = self.edit(child, index + 1, here)
            return node
        if not isinstance(node, list):
            raise TypeClashError("oracle: selector in a non-list")
        if isinstance(part, End):
            return self.append_new(node, part, index, last, loc)
        if isinstance(part, All):
            targets = list(range(len(node)))
        elif isinstance(part, Match):
            targets = [i for i, e in enumerate(node) if o_matches(part, e)]
            if not targets:
                return self.append_new(node, part, index, last, loc)
        else:
            if not -len(node) <= part.index < len(node):
                if (self.missing_leaf if last else self.missing) == SKIP:
                    return node
                raise PathError("oracle: index out of range")
            targets = [part.index % len(node)]
        removed = []
        for position in targets:
            here = (*loc, position)
            new = (
                self.call_leaf(node[position], here)
                if last
                else self.edit(node[position], index + 1, here)
            )
            if new is _REMOVE:
                removed.append(position)
            else:
                node[position] = new
        for position in reversed(removed):
            del node[position]
        return node

    def append_new(
        self, node: list[Any], part: Any, index: int, last: bool, loc: tuple[Any, ...]
    ) -> Any:
        policy = self.missing_leaf if last else self.missing
        if policy == SKIP:
            return node
        if policy == ERROR or (not last and isinstance(part, Match)):
            raise PathError("oracle: nothing matches")
        here = (*loc, len(node))
        if last:
            new = self.call_leaf(_MISSING, here)
            if new is _MISSING or new is _REMOVE:
                return node
        else:
            self.touched.append(here)
            seed = self.seed(index)
            new = self.edit(seed, index + 1, here)
            if new == type(seed)():
                return node
        if isinstance(part, Match):
            if not isinstance(new, dict):
                raise TypeClashError("oracle: a new element for a match selector is a map")
            new = {**{key: new.get(key, value) for key, value in part.fields}, **new}
        node.append(new)
        return node


def _anchor_part(anchor: Any) -> Any:
    if isinstance(anchor, int):
        return Index(anchor)
    if isinstance(anchor, dict):
        return Match(tuple(anchor.items()))
    return Path.parse(f"[{anchor}]").parts[0]


def _adder(kind: str, items: tuple[Any, ...], unique: bool, anchor: Any) -> Callable[..., Any]:
    def leaf(old: Any, loc: tuple[Any, ...]) -> Any:
        if old is _MISSING or old is None:
            old = []
        elif not isinstance(old, list):
            raise TypeClashError("oracle: not a list")
        new: list[Any] = []
        for item in items:
            if unique and any(strict_eq(item, present) for present in [*old, *new]):
                continue
            new.append(copy.deepcopy(item))
        if not new:
            return old
        if kind == "append_at":
            position = len(old)
        elif kind == "prepend_at":
            position = 0
        else:
            where, selector = anchor
            part = _anchor_part(selector)
            if isinstance(part, Index):
                found = [part.index % len(old)] if -len(old) <= part.index < len(old) else []
            else:
                found = [i for i, e in enumerate(old) if o_matches(part, e)]
            if not found:
                raise PathError("oracle: no anchor")
            position = found[0] if where == "before" else found[-1] + 1
        old[position:position] = new
        return old

    return leaf


def _merger(items: list[Any], keys: tuple[str, ...]) -> Callable[..., Any]:
    def find(seq: list[Any], item: Any) -> int | None:
        for position, element in enumerate(seq):
            if isinstance(element, dict) and all(
                k in element and strict_eq(element[k], item[k]) for k in keys
            ):
                return position
        return None

    def leaf(old: Any, loc: tuple[Any, ...]) -> Any:
        if old is _MISSING or old is None:
            old = []
        elif not isinstance(old, list):
            raise TypeClashError("oracle: not a list")
        appended: list[Any] = []
        for item in items:
            position = find(old, item)
            if position is not None:
                old[position] = o_merge(old[position], copy.deepcopy(item))
                continue
            position = find(appended, item)
            if position is None:
                appended.append(copy.deepcopy(item))
            else:
                appended[position] = o_merge(appended[position], copy.deepcopy(item))
        old.extend(appended)
        return old

    return leaf


def _count_ok(count: Any, found: int) -> bool:
    if isinstance(count, int):
        return found == count
    if isinstance(count, str):
        return found >= int(count.rstrip("+ "))
    return bool(count(found))


def _o_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, Mapping):
        return "map"
    return "list" if isinstance(value, (list, tuple)) else "scalar"


def oracle(
    step: Any,
    doc: Any,
    touched: list[tuple[Any, ...]] | None = None,
    loc: tuple[Any, ...] = (),
    inside: bool = False,
) -> Any:
    """What ``step`` does to ``doc``, by the documented semantics; edits ``doc`` in place.

    ``inside``: ``doc`` is a value for_each reached, which a plain function must
    replace with one of its kind (anything for null)."""
    touched = [] if touched is None else touched
    if not isinstance(step, Transform):
        touched.append(loc)
        new = step(doc)
        if inside and doc is not None and _o_kind(new) != _o_kind(doc):
            raise StepError("oracle: a value of another kind")
        return new
    if step is identity:
        return doc
    if isinstance(step, Compose):
        for inner in step.steps:
            doc = oracle(inner, doc, touched, loc, inside)
        return doc
    args, kwargs = step.params
    name = step.name
    if name == "when":
        predicate, then = args
        holds = (
            bool(o_select(doc, Path.parse(predicate).parts))
            if isinstance(predicate, str)
            else predicate(doc)
        )
        return oracle(then if holds else kwargs.get("otherwise", identity), doc, touched, loc)
    if name == "expect":
        found = len(o_select(doc, args[0].parts))
        if not _count_ok(kwargs.get("count", 1), found):
            raise ExpectationError("oracle: count")
        return doc
    target = args[0]
    leaf: Callable[[Any, tuple[Any, ...]], Any]
    missing = CREATE
    if name == "upsert":
        value = args[1]
        leaf = lambda old, loc: o_merge(old, copy.deepcopy(value))  # noqa: E731
    elif name == "replace_at":
        value = args[1]
        leaf = lambda old, loc: (  # noqa: E731
            old if old is not _MISSING and strict_eq(old, value) else copy.deepcopy(value)
        )
    elif name == "set_default":
        value = args[1]
        leaf = lambda old, loc: (  # noqa: E731
            copy.deepcopy(value) if old is _MISSING or old is None else old
        )
    elif name == "remove_at":
        missing = ERROR if kwargs.get("missing_ok") is False else SKIP
        leaf = lambda old, loc: _REMOVE  # noqa: E731
    elif name == "update_at":
        fn = args[1]
        if "default" in kwargs:
            default = kwargs["default"]
            leaf = lambda old, loc: fn(  # noqa: E731
                copy.deepcopy(default) if old is _MISSING else old
            )
        else:
            missing = ERROR
            leaf = lambda old, loc: fn(old)  # noqa: E731
    elif name in ("append_at", "prepend_at", "insert_at"):
        anchor = (
            ("before", kwargs["before"]) if "before" in kwargs else ("after", kwargs.get("after"))
        )
        leaf = _adder(name, args[1:], kwargs.get("unique", False), anchor)
    elif name == "merge_by":
        key = kwargs.get("key", "name")
        leaf = _merger(args[1], (key,) if isinstance(key, str) else tuple(key))
    elif name == "for_each":
        inner = args[1]
        missing = SKIP
        leaf = lambda old, loc: oracle(inner, old, touched, loc, True)  # noqa: E731
    else:  # pragma: no cover - a combinator this oracle does not know
        raise AssertionError(f"no oracle for {name}")
    return Edit(target, leaf, missing, missing, touched, name != "for_each").run(doc, loc)


def outcome(fn: Callable[[], Any]) -> tuple[str, Any]:
    """``("ok", shape of the result)`` or ``("error", the TransformError class)``."""
    try:
        return "ok", shape(fn())
    except (PathError, TypeClashError, ExpectationError, StepError) as err:
        return "error", next(
            cls
            for cls in (PathError, TypeClashError, ExpectationError, StepError)
            if isinstance(err, cls)
        )


# ---------------------------------------------------------------------------
# laws of composition


def _value_steps(draw: Any, doc: Any, count: int) -> list[Any]:
    return [draw(steps_for(doc)) for _ in range(count)]


@SETTINGS
@given(st.data(), json_docs())
def test_law_compose_associative(data: st.DataObject, doc: dict[str, Any]) -> None:
    # compose(compose(f, g), h) == compose(f, compose(g, h))
    f, g, h = _value_steps(data.draw, doc, 3)
    left, right = compose(compose(f, g), h), compose(f, compose(g, h))
    assert left == right
    assert outcome(lambda: left(doc)) == outcome(lambda: right(doc))


@SETTINGS
@given(st.data(), json_docs())
def test_law_compose_identity_left(data: st.DataObject, doc: dict[str, Any]) -> None:
    # compose(identity, f) == compose(f), and compose(f) == f for a Transform f
    f = data.draw(steps_for(doc))
    assert compose(identity, f) == compose(f)
    assert isinstance(compose(identity, f), Transform)
    if isinstance(f, Transform):
        assert compose(identity, f) == f
    assert outcome(lambda: compose(identity, f)(doc)) == outcome(lambda: f(doc))


@SETTINGS
@given(st.data(), json_docs())
def test_law_compose_identity_right(data: st.DataObject, doc: dict[str, Any]) -> None:
    # compose(f, identity) == compose(f), and compose(f) == f for a Transform f
    f = data.draw(steps_for(doc))
    assert compose(f, identity) == compose(f)
    assert isinstance(compose(f, identity), Transform)
    if isinstance(f, Transform):
        assert compose(f, identity) == f
    assert outcome(lambda: compose(f, identity)(doc)) == outcome(lambda: f(doc))


@SETTINGS
@given(st.data(), json_docs())
def test_law_compose_of_one_transform_is_itself(data: st.DataObject, doc: dict[str, Any]) -> None:
    # compose(f) is f and chain(f) is f, for a Transform f
    f = data.draw(transforms_for(doc))
    assert compose(f) is f
    assert chain(f) is f


@SETTINGS
@given(st.data(), json_docs())
def test_law_compose_applies_right_to_left(data: st.DataObject, doc: dict[str, Any]) -> None:
    # compose(f, g)(doc) == f(g(doc))
    f, g = _value_steps(data.draw, doc, 2)
    assert outcome(lambda: compose(f, g)(doc)) == outcome(lambda: f(g(doc)))


def test_law_compose_empty_is_identity() -> None:
    # compose() is chain() is identity, and identity(doc) is doc
    pod = {"spec": {}}
    assert compose() is identity
    assert chain() is identity
    assert compose()(pod) is pod


@SETTINGS
@given(st.data(), json_docs())
def test_law_compose_nested_flattens(data: st.DataObject, doc: dict[str, Any]) -> None:
    # compose(f, compose(g, h)).steps == compose(f, g, h).steps
    f, g, h = (
        data.draw(plain_transforms_for(doc, 0).filter(lambda t: t is not identity))
        for _ in range(3)
    )
    nested = compose(f, compose(g, compose(h, identity)))
    assert isinstance(nested, Compose)
    assert nested.steps == (h, g, f)
    assert nested == compose(f, g, h) and hash(nested) == hash(compose(f, g, h))
    assert repr(nested) == f"compose({f!r}, {g!r}, {h!r})"


# ---------------------------------------------------------------------------
# idempotence and round trips


def _settles(transform: Any, doc: Any) -> None:
    """Applying ``transform`` twice equals applying it once (and the second is a no-op)."""
    try:
        once = transform(doc)
    except TransformError:
        return
    twice = transform(once)
    assert shape(twice) == shape(once)
    assert twice is once


def _no_end(target: Path) -> bool:
    return not any(isinstance(part, End) for part in target.parts)


def _selectors_stable(target: Path, value: Any = None) -> bool:
    """Whether the path's match selectors still select after the edit.

    A value that contradicts a match selector at the end of the path (or is
    not a map there), or a path into a field a selector matches on, changes
    what the selector selects, so the next application does something else
    (appends again, or finds nothing): that is by design, not a broken law.
    """
    parts = target.parts
    for index, part in enumerate(parts):
        if not isinstance(part, Match):
            continue
        fields = {key for key, _ in part.fields}
        if index + 1 < len(parts):
            after = parts[index + 1]
            if not isinstance(after, Key) or after.name in fields:
                return False
        elif not (
            isinstance(value, dict)
            and all(
                key not in value or strict_eq(value[key], wanted) for key, wanted in part.fields
            )
        ):
            return False
    return True


@SETTINGS
@given(st.data(), json_docs() | pods(), json_values(6))
def test_law_upsert_idempotent(data: st.DataObject, doc: dict[str, Any], value: Any) -> None:
    # upsert(p, v)(upsert(p, v)(doc)) == upsert(p, v)(doc)
    target = data.draw(paths_into(doc))
    assume(_no_end(target) and _selectors_stable(target, value))
    _settles(upsert(target, value), doc)


@SETTINGS
@given(st.data(), json_docs() | pods(), st.lists(json_values(4), max_size=3))
def test_law_append_unique_idempotent(
    data: st.DataObject, doc: dict[str, Any], items: list[Any]
) -> None:
    # a = append_at(p, *items, unique=True): a(a(doc)) == a(doc)
    target = data.draw(paths_into(doc))
    assume(_no_end(target) and _selectors_stable(target, {}))
    _settles(append_at(target, *items, unique=True), doc)


@SETTINGS
@given(st.data(), json_docs() | pods())
def test_law_merge_by_idempotent(data: st.DataObject, doc: dict[str, Any]) -> None:
    # m = merge_by(p, items): m(m(doc)) == m(doc)
    target = data.draw(paths_into(doc))
    assume(_no_end(target) and _selectors_stable(target, {}))
    names = data.draw(st.lists(st.sampled_from(NAMES), max_size=4))
    items = [
        {
            "name": name,
            **data.draw(
                st.dictionaries(st.sampled_from(("a", "env", "value")), json_values(4), max_size=2)
            ),
        }
        for name in names
    ]
    _settles(merge_by(target, items), doc)


@SETTINGS
@given(st.data(), json_docs() | pods(), json_values(6))
def test_law_set_default_idempotent(data: st.DataObject, doc: dict[str, Any], value: Any) -> None:
    # s = set_default(p, v): s(s(doc)) == s(doc)
    target = data.draw(paths_into(doc))
    assume(_no_end(target) and _selectors_stable(target, value))
    _settles(set_default(target, value), doc)


@SETTINGS
@given(st.data(), json_docs() | pods(), json_values(6))
def test_law_replace_at_put_get(data: st.DataObject, doc: dict[str, Any], value: Any) -> None:
    # get_at(replace_at(p, v)(doc), p) == v
    # only keys and indexes: a match selector can be replaced away, [-] holds no value
    target = data.draw(paths_into(doc))
    assume(all(isinstance(part, (Key, Index)) for part in target.parts))
    try:
        new = replace_at(target, value)(doc)
    except TransformError:
        return
    assert strict_eq(get_at(new, target), value)


@SETTINGS
@given(st.data(), json_docs() | pods(), json_values(6))
def test_law_remove_after_upsert_of_new_key_restores(
    data: st.DataObject, doc: dict[str, Any], value: Any
) -> None:
    # remove_at(p)(upsert(p, v)(doc)) == doc, where p is a key doc lacks
    target = data.draw(_paths_to_maps(doc))
    maps = [get_at(doc, target)]
    new_key = data.draw(
        st.sampled_from(("new", "x.y", "true", "")).filter(lambda key: key not in maps[0])
    )
    where = target.child(Key(new_key))
    restored = remove_at(where)(upsert(where, value)(doc))
    assert shape(restored) == shape(doc)


@st.composite
def _paths_to_maps(draw: Any, doc: Any) -> Path:
    """A path of keys and indexes to a map that is in ``doc``."""
    parts: list[Any] = []
    node = doc
    while True:
        steps = (
            [Key(k) for k, v in node.items() if isinstance(v, (dict, list))]
            if isinstance(node, dict)
            else [Index(i) for i, v in enumerate(node) if isinstance(v, (dict, list))]
        )
        if not steps or (isinstance(node, dict) and not draw(st.booleans())):
            break
        part = draw(st.sampled_from(steps))
        parts.append(part)
        node = node[part.name] if isinstance(part, Key) else node[part.index]
    if not isinstance(node, dict):  # a list of containers with no map reached: go back up
        while parts and not isinstance(get_at(doc, Path(parts)), dict):
            parts.pop()
    return Path(parts)


# ---------------------------------------------------------------------------
# every combinator against the oracle


def _check_against_oracle(transform: Any, doc: Any) -> None:
    expected = outcome(lambda: oracle(transform, copy.deepcopy(doc)))
    before = copy.deepcopy(doc)
    got = outcome(lambda: transform(doc))
    assert got == expected, f"{transform!r} on {doc!r}"
    assert shape(doc) == shape(before)


@SETTINGS
@given(st.data(), json_docs())
def test_law_agrees_with_oracle_on_docs(data: st.DataObject, doc: dict[str, Any]) -> None:
    # t(doc) == oracle(t, deepcopy(doc)), errors alike, for every combinator t
    _check_against_oracle(data.draw(transforms_for(doc)), doc)


@SETTINGS
@given(st.data(), pods())
def test_law_agrees_with_oracle_on_pods(data: st.DataObject, pod: dict[str, Any]) -> None:
    # t(pod) == oracle(t, deepcopy(pod)), errors alike, for every combinator t
    _check_against_oracle(data.draw(transforms_for(pod)), pod)


@SETTINGS
@given(st.data(), json_docs() | pods())
def test_law_chain_agrees_with_oracle(data: st.DataObject, doc: dict[str, Any]) -> None:
    # chain(f, g, ...)(doc) == the oracle applying f, g, ... to deep copies in turn
    steps = data.draw(st.lists(steps_for(doc), min_size=2, max_size=4))
    _check_against_oracle(chain(*steps), doc)


@SETTINGS
@given(st.data(), json_docs() | pods())
def test_law_inputs_unmodified(data: st.DataObject, doc: dict[str, Any]) -> None:
    # t(doc) leaves doc == deepcopy(doc), whether t succeeds or raises
    transform = data.draw(transforms_for(doc, depth=2))
    before = copy.deepcopy(doc)
    with contextlib.suppress(TransformError):
        transform(doc)
    assert shape(doc) == shape(before)


@SETTINGS
@given(st.data(), json_docs() | pods())
def test_law_no_op_returns_the_same_object(data: st.DataObject, doc: dict[str, Any]) -> None:
    # t(doc) == doc  implies  t(doc) is doc
    transform = data.draw(transforms_for(doc, depth=2))
    try:
        new = transform(doc)
    except TransformError:
        return
    if shape(new) == shape(doc):
        assert new is doc


# ---------------------------------------------------------------------------
# structural sharing


def _ids(value: Any, found: set[int] | None = None) -> set[int]:
    found = set() if found is None else found
    if isinstance(value, (dict, list)):
        found.add(id(value))
        for item in value.values() if isinstance(value, dict) else value:
            _ids(item, found)
    return found


def _check_shared(
    old: Any,
    new: Any,
    loc: tuple[Any, ...],
    touched: set[tuple[Any, ...]],
    under: set[tuple[Any, ...]],
) -> None:
    """Every place not on an edited path holds the very same object as before."""
    if loc in touched:
        return  # a leaf: what is below it is the combinator's new value
    if loc not in under:
        assert new is old, f"untouched subtree at {loc} was copied"
        return
    assert type(new) is type(old)
    if isinstance(old, dict):
        for key in old.keys() & new.keys():
            _check_shared(old[key], new[key], (*loc, key), touched, under)
    elif isinstance(old, list):
        if len(old) == len(new):
            for position, (before, after) in enumerate(zip(old, new, strict=True)):
                _check_shared(before, after, (*loc, position), touched, under)
        else:  # elements moved: whatever was kept is kept as the same object
            kept = {id(item) for item in new}
            lost = [item for item in old if id(item) not in kept and isinstance(item, (dict, list))]
            for item in lost:
                assert not any(
                    shape(item) == shape(other) and id(other) not in _ids(old) for other in new
                ), "a kept list element was copied"


@SETTINGS
@given(st.data(), json_docs() | pods())
def test_law_structural_sharing(data: st.DataObject, doc: dict[str, Any]) -> None:
    # t(doc) is doc where nothing changes; elsewhere every subtree t did not
    # touch is the very same object in t(doc) as in doc
    transform = data.draw(transforms_for(doc, depth=1))
    touched: list[tuple[Any, ...]] = []
    try:
        oracle(transform, copy.deepcopy(doc), touched)
        new = transform(doc)
    except TransformError:
        return
    if shape(new) == shape(doc):
        assert new is doc, "a transform that changes nothing must return its input"
        return
    leaves = set(touched)
    under = {loc[:length] for loc in leaves for length in range(len(loc))}
    _check_shared(doc, new, (), leaves, under)


@SETTINGS
@given(st.data(), json_docs() | pods())
def test_law_chain_equals_steps_in_turn(data: st.DataObject, doc: dict[str, Any]) -> None:
    # chain(f, g)(doc) == g(f(doc)); doc, and what a plain step was given, unchanged
    # In-place edits of containers made earlier in the same application must
    # never reach the input, a value a plain function was given, or a result
    # the caller got from an earlier step.
    seen: list[tuple[Any, Any]] = []

    def spy(value: Any) -> Any:
        seen.append((value, copy.deepcopy(value)))
        return value

    steps = data.draw(st.lists(steps_for(doc) | st.just(spy), min_size=2, max_size=4))
    before = copy.deepcopy(doc)
    try:
        expected: Any = doc
        unchanged = True
        for step in steps:
            result = step(expected)
            unchanged = unchanged and result is expected
            expected = result
    except TransformError as err:
        with pytest.raises(type(err)):
            chain(*steps)(doc)
        return
    snapshot = copy.deepcopy(expected)
    seen.clear()
    got = chain(*steps)(doc)
    assert shape(got) == shape(snapshot) == shape(expected)
    assert shape(doc) == shape(before)
    for value, copied in seen:
        assert shape(value) == shape(copied), "a later step changed what a function was given"
    if unchanged:
        assert got is doc, "a chain of no-ops must return its input"
