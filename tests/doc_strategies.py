"""Hypothesis strategies for JSON-like documents, pods, paths into them and transforms.

Documents draw their keys and names from small pools, so that generated paths
often lead somewhere: existing keys, list elements matched by name, indexes in
range. The pools hold keys that need quoting in a path (dots, slashes,
spaces, quotes, words such as ``true``) and match values that need quoting
(``8080`` as a string, ``true`` as a string, commas).

>>> from hypothesis import given
>>> @given(json_docs())
... def check(doc):
...     assert isinstance(doc, dict)
>>> check()
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

from hypothesis import strategies as st

from combinators import (
    All,
    End,
    Index,
    Key,
    Match,
    Path,
    append_at,
    chain,
    expect,
    for_each,
    identity,
    insert_at,
    merge_by,
    prepend_at,
    remove_at,
    replace_at,
    set_default,
    update_at,
    upsert,
    when,
)
from combinators.transform import Transform

__all__ = (
    "KEYS",
    "NAMES",
    "scalars",
    "json_values",
    "json_docs",
    "pods",
    "paths_into",
    "any_paths",
    "transforms_for",
    "plain_transforms_for",
    "steps_for",
    "FUNCTIONS",
    "KINDS",
    "PLAIN_KINDS",
    "has_many_keys",
    "wrap_in_list",
    "tag_value",
    "same_value",
    "mark_map",
    "extend_list",
    "KIND_KEEPING",
)

KEYS = (
    "a",
    "b",
    "name",
    "env",
    "value",
    "x.y",
    "sidecar.istio.io/inject",
    "true",
    "0n",
    "sp ace",
    'q"t',
    "é\n",
    "",
)
"""Keys of generated maps; most of them need quotes in a path."""

NAMES = ("a", "b", "trainer", "8080", "true", "x,y", "é")
"""Values of the ``name`` fields that match selectors look for."""

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-2, 2)
    | st.floats(allow_nan=False, allow_infinity=False, width=16)
    | st.sampled_from(NAMES)
)
"""JSON scalars, including ``1``, ``1.0`` and ``True``, which must stay apart."""

_path_scalars = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from(NAMES)


def _named_maps(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"name": st.sampled_from(NAMES)},
        optional={"value": children, "env": children, "b": scalars},
    )


@cache
def json_values(max_leaves: int = 10) -> st.SearchStrategy[Any]:
    """Nested maps and lists of scalars; lists often hold maps with a ``name``."""
    return st.recursive(
        scalars,
        lambda children: (
            st.lists(children, max_size=3)
            | st.lists(_named_maps(children), max_size=3)
            | st.dictionaries(st.sampled_from(KEYS), children, max_size=3)
        ),
        max_leaves=max_leaves,
    )


@cache
def json_docs(max_leaves: int = 12) -> st.SearchStrategy[dict[str, Any]]:
    """A document: a map at the top, anything below."""
    return st.dictionaries(st.sampled_from(KEYS), json_values(max_leaves), max_size=4)


@cache
def pods() -> st.SearchStrategy[dict[str, Any]]:
    """Small pods: containers with names, env lists, labels, tolerations."""
    env = st.lists(
        st.fixed_dictionaries(
            {
                "name": st.sampled_from(("A", "B", "NCCL_DEBUG")),
                "value": st.sampled_from(("0", "1", "INFO")),
            }
        ),
        max_size=3,
    )
    container = st.fixed_dictionaries(
        {"name": st.sampled_from(("trainer", "trainer-0", "sidecar"))},
        optional={
            "image": st.sampled_from(("x", "y")),
            "env": env,
            "args": st.lists(st.sampled_from(("--fast", "-v")), max_size=2),
        },
    )
    spec = st.fixed_dictionaries(
        {"containers": st.lists(container, max_size=3)},
        optional={
            "nodeSelector": st.dictionaries(
                st.sampled_from(("gpu", "zone")), st.sampled_from(("a", "b")), max_size=2
            ),
            "tolerations": st.lists(
                st.fixed_dictionaries({"key": st.sampled_from(("a", "b"))}), max_size=2
            ),
            "hostIPC": st.booleans(),
        },
    )
    metadata = st.fixed_dictionaries(
        {},
        optional={
            "labels": st.dictionaries(
                st.sampled_from(("team", "app")), st.sampled_from(("ml", "x")), max_size=2
            ),
            "annotations": st.dictionaries(
                st.sampled_from(("sidecar.istio.io/inject", "a/b")),
                st.sampled_from(("true", "false")),
                max_size=2,
            ),
        },
    )
    return st.fixed_dictionaries(
        {"spec": spec}, optional={"metadata": metadata, "kind": st.just("Pod")}
    )


_NOTHING = object()


@st.composite
def paths_into(draw: st.DrawFn, doc: Any, max_parts: int = 4, min_parts: int = 1) -> Path:
    """A path into ``doc``: mostly along what is there, sometimes off it."""
    parts: list[Any] = []
    node: Any = doc
    size = draw(st.integers(min_parts, max_parts))
    for _ in range(size):
        if isinstance(node, dict) and node and draw(st.integers(0, 4)):
            key = draw(st.sampled_from(sorted(node, key=repr)))
            parts.append(Key(key))
            node = node[key]
        elif isinstance(node, list) and draw(st.integers(0, 5)):
            part = draw(_list_part(node))
            parts.append(part)
            if isinstance(part, Index) and -len(node) <= part.index < len(node):
                node = node[part.index]
            elif isinstance(part, (All, Match)):
                found = [e for e in node if part.matches(e)] if isinstance(part, Match) else node
                node = found[0] if found else _NOTHING
            else:
                node = _NOTHING
        else:
            part = draw(st.sampled_from(KEYS).map(Key) | _list_part([]))
            parts.append(part)
            node = (
                node.get(part.name, _NOTHING)
                if (isinstance(part, Key) and isinstance(node, dict))
                else _NOTHING
            )
    return Path(parts)


def _list_part(seq: list[Any]) -> st.SearchStrategy[Any]:
    names = sorted(
        {str(e["name"]) for e in seq if isinstance(e, dict) and isinstance(e.get("name"), str)}
    ) or ["a"]
    return _list_part_for(tuple(names), len(seq))


@cache
def _list_part_for(names: tuple[str, ...], size: int) -> st.SearchStrategy[Any]:
    single = st.sampled_from((*names, "nope")).map(lambda name: Match((("name", name),)))
    # no floats: the path grammar has none, so str() of such a path would not parse back
    double = st.tuples(st.sampled_from(names), _path_scalars).map(
        lambda pair: Match((("name", pair[0]), ("b", pair[1])))
    )
    return st.one_of(
        st.integers(-size - 1, size).map(Index),
        st.just(End()),
        st.just(All()),
        single,
        single,
        double,
    )


@cache
def any_paths(max_parts: int = 5) -> st.SearchStrategy[Path]:
    """Paths of every kind of part, with keys and match values that need quoting."""
    text = st.text(st.characters(exclude_categories=("Cs",)), max_size=6)  # what UTF-8 carries
    key = (text | st.sampled_from(KEYS)).map(Key)
    value = (
        st.none()
        | st.booleans()
        | st.integers(-1000, 1000)
        | text
        | st.sampled_from(("true", "8080", "-1", "a,b", "x]", "a=b", "'q'", "\\"))
    )
    field = text.filter(bool) | st.sampled_from(("name", "containerPort", "x.y"))
    match = st.lists(st.tuples(field, value), min_size=1, max_size=3).map(Match)
    part = st.one_of(key, key, st.integers(-5, 5).map(Index), st.just(End()), st.just(All()), match)
    return st.lists(part, max_size=max_parts).map(Path)


def same_value(value: Any) -> Any:
    """A pure function for ``update_at``: the value as it is."""
    return value


def wrap_in_list(value: Any) -> Any:
    """A pure function for ``update_at``: the value in a new list."""
    return [value]


def tag_value(value: Any) -> Any:
    """A pure function for ``update_at``: the value under a new map's key."""
    return {"was": value}


FUNCTIONS: tuple[Callable[[Any], Any], ...] = (same_value, wrap_in_list, tag_value)


def mark_map(value: Any) -> Any:
    """A pure function for ``for_each`` that keeps the kind: a map gets one more key."""
    return {**value, "marked": True} if isinstance(value, Mapping) else value


def extend_list(value: Any) -> Any:
    """A pure function for ``for_each`` that keeps the kind: a list gets one more item."""
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [*value, "extended"]
    return value


KIND_KEEPING: tuple[Callable[[Any], Any], ...] = (same_value, mark_map, extend_list)
"""What ``for_each`` is given most often: its function returns the kind it was given
(a function that changes it is refused, which the others draw)."""


@cache
def _map_values() -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from(KEYS), json_values(6), max_size=3)


@st.composite
def plain_transforms_for(
    draw: st.DrawFn, doc: Any, depth: int = 1, root_ok: bool = True, kind: str | None = None
) -> Transform:
    """A transform of any combinator (or of ``kind``), built from plain values only
    (no functions), with a path into ``doc``."""
    target = draw(paths_into(doc, min_parts=0 if root_ok else 1))
    value = draw(json_values(6))
    if kind is None:
        kind = draw(st.sampled_from(PLAIN_KINDS if depth > 0 else PLAIN_KINDS[:-3]))
    if kind == "upsert":
        return upsert(target, value)
    if kind == "replace_at":
        return replace_at(target, value)
    if kind == "set_default":
        return set_default(target, value)
    if kind == "remove_at":
        return remove_at(target, draw(st.booleans())) if target.parts else identity
    if kind in ("append_at", "prepend_at"):
        items = draw(st.lists(json_values(4), max_size=2))
        factory = append_at if kind == "append_at" else prepend_at
        return factory(target, *items, unique=draw(st.booleans()))
    if kind == "insert_at":
        items = draw(st.lists(json_values(4), min_size=1, max_size=2))
        anchor = draw(
            st.sampled_from(NAMES).map(lambda n: Match((("name", n),)).text()[1:-1])
            | st.integers(-2, 2)
            | st.sampled_from(NAMES).map(lambda n: {"name": n})
        )
        if draw(st.booleans()):
            return insert_at(target, *items, before=anchor, unique=draw(st.booleans()))
        return insert_at(target, *items, after=anchor, unique=draw(st.booleans()))
    if kind == "merge_by":
        names = draw(st.lists(st.sampled_from(NAMES), max_size=3))  # repeats merge
        items = [{"name": name, **draw(_map_values())} for name in names]
        if draw(st.booleans()):
            return merge_by(target, items)
        items = [{**item, "b": draw(st.sampled_from((1, "1", True)))} for item in items]
        return merge_by(target, items, key=("name", "b"))
    if kind == "expect":
        count = draw(st.integers(0, 2) | st.sampled_from(("0+", "1+", "2+")))
        return expect(target, count)
    inner_doc = draw(json_values(6))
    if kind == "for_each":
        return for_each(target, draw(plain_transforms_for(inner_doc, depth - 1, root_ok=False)))
    if kind == "when":
        then = draw(plain_transforms_for(doc, depth - 1))
        otherwise = draw(st.just(identity) | plain_transforms_for(doc, depth - 1))
        return when(target, then, otherwise)
    steps = draw(st.lists(plain_transforms_for(doc, depth - 1), min_size=2, max_size=3))
    result = chain(*steps)
    assert isinstance(result, Transform)
    return result


PLAIN_KINDS = (
    "upsert",
    "replace_at",
    "set_default",
    "remove_at",
    "append_at",
    "prepend_at",
    "insert_at",
    "merge_by",
    "expect",
    "for_each",
    "when",
    "chain",
)
"""What :func:`plain_transforms_for` builds: every combinator, and compositions."""

KINDS = (*PLAIN_KINDS, "update_at", "when_fn", "for_each_fn")
"""What :func:`transforms_for` builds: also the combinators that take functions."""


@st.composite
def transforms_for(draw: st.DrawFn, doc: Any, depth: int = 1, kind: str | None = None) -> Any:
    """Like :func:`plain_transforms_for`, but also ``update_at`` with pure functions,
    ``when`` with a predicate function and ``for_each`` of a plain function."""
    if kind is None:
        kind = draw(st.sampled_from(("plain", "plain", "update_at", "when_fn", "for_each_fn")))
    if kind == "plain":
        return draw(plain_transforms_for(doc, depth))
    if kind in PLAIN_KINDS:
        return draw(plain_transforms_for(doc, depth, kind=kind))
    target = draw(paths_into(doc))
    fn = draw(st.sampled_from(FUNCTIONS))
    if kind == "update_at":
        if draw(st.booleans()):
            return update_at(target, fn)
        return update_at(target, fn, default=draw(json_values(4)))
    if kind == "when_fn":
        inner = draw(plain_transforms_for(doc, 0))
        return when(has_many_keys, inner, draw(st.just(identity) | st.just(inner)))
    if draw(st.integers(0, 3)):
        fn = draw(st.sampled_from(KIND_KEEPING))
    return for_each(target, fn)


def has_many_keys(doc: Any) -> bool:
    """A predicate for ``when``: a map with more than one key."""
    return hasattr(doc, "keys") and len(doc) > 1  # plain or persistent


@st.composite
def steps_for(draw: st.DrawFn, doc: Any) -> Any:
    """One step of a composition: a transform or a plain function ``doc -> doc``."""
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return draw(st.sampled_from((_plain_identity, _add_top_key, _shallow_copy)))
    return draw(transforms_for(doc))


def _plain_identity(doc: Any) -> Any:
    return doc


def _add_top_key(doc: Any) -> Any:
    return {**doc, "added": 1} if isinstance(doc, dict) else doc


def _shallow_copy(doc: Any) -> Any:
    return dict(doc) if isinstance(doc, dict) else doc
