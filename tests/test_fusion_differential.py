"""Fused compositions against the general walk, on paths of every shape, errors included.

:mod:`tests.test_fusion` holds fusion to its law on paths chosen to collide.
This file draws the paths themselves from the whole grammar (keys, quoted
keys, indexes from either end, the end of a list, every element, one-field
and composite matches, and the root ``""``), builds each composition twice
and holds the two to one outcome:

- the *reference*, built with no compiled path at all, so nothing of it is
  compiled or fused: every step walks its path as :class:`PathEdit` does;
- the *subject*, built as usual and applied twice first, so that it (and
  every composition inside it) is fused when it meets the document.

One outcome means: the same document (equal, with its keys in the same
order, the input itself exactly where the reference gave the input back),
or an error of the same type with the same message (its step and path
included) and the same ``path`` and ``part_index`` fields. Neither side may
change its input, nor raise anything but a :class:`TransformError`.
"""

from __future__ import annotations

import contextlib
import copy
import os
from collections.abc import Callable, Iterator, Mapping
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import combinators.editing
from combinators import (
    TransformError,
    append_at,
    chain,
    expect,
    for_each,
    insert_at,
    merge_by,
    prepend_at,
    remove_at,
    replace_at,
    set_default,
    update_at,
    upsert,
)
from combinators.errors import ArgumentError
from combinators.paths import All, End, Index, Key, Match, Part, Path

# -- paths: every kind of part, few names, so that paths meet documents often

_NAMES = ("a", "b", "name", "x.y")  # "x.y" prints quoted
keys = st.sampled_from(_NAMES).map(Key)
selectors: st.SearchStrategy[Part] = st.one_of(
    st.sampled_from((0, 1, -1, 5)).map(Index),
    st.just(End()),
    st.just(All()),
    st.sampled_from(("a", "b", 1)).map(lambda value: Match((("name", value),))),
    st.just(Match((("name", "a"), ("a", 1)))),
)
# mostly keys, as pods' paths are: a path that clashes with the document at once tests little
parts: st.SearchStrategy[Part] = st.one_of(keys, keys, keys, selectors)
rooted = st.tuples(keys, st.lists(parts, max_size=3)).map(lambda found: [found[0], *found[1]])
# the root and paths starting in a list, now and then: on a document (a map) they fail
_SHAPES = {"root": st.just([]), "any": st.lists(parts, min_size=1, max_size=4), "key": rooted}
paths = (
    st.sampled_from(("root", "any", *["key"] * 10))
    .flatmap(_SHAPES.__getitem__)
    .map(lambda found: str(Path(found)))
)

# -- documents: maps and lists whose keys and elements those paths name

scalars = st.sampled_from((None, True, 1, 1.0, "a", "b", 0, ""))


def _containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    maps = st.dictionaries(st.sampled_from(_NAMES), inner, max_size=3)
    named = st.fixed_dictionaries(
        {"name": st.sampled_from(("a", "b", 1))}, optional={"a": inner, "b": inner}
    )
    return st.one_of(maps, maps, st.lists(named | inner, max_size=3))


values = st.recursive(scalars, _containers, max_leaves=8)
# containers at the top, more often than not, so that paths reach into them
documents = st.dictionaries(st.sampled_from(_NAMES), _containers(values) | scalars, max_size=3)

# -- steps: each a description (factory, arguments) built twice, once per side

items = st.one_of(
    scalars,
    st.dictionaries(st.sampled_from(("name", "a")), scalars, max_size=2),
    st.lists(scalars, max_size=2),
    values,
)
merge_items = st.lists(
    st.fixed_dictionaries({"name": st.sampled_from(("a", "b"))}, optional={"a": values}), max_size=2
)


def _wrap(value: Any) -> list[Any]:
    return [value]


Recipe = tuple[Any, ...]
recipes: st.SearchStrategy[Recipe] = st.deferred(
    lambda: st.one_of(
        st.tuples(st.just(upsert), paths, values),
        st.tuples(st.just(replace_at), paths, values),
        st.tuples(st.just(set_default), paths, values),
        st.tuples(st.just(remove_at), paths, st.booleans()),
        st.tuples(st.just(append_at), paths, items),
        st.tuples(st.just(prepend_at), paths, items),
        st.tuples(st.just("insert_at"), paths, items, st.sampled_from(("name=a", 0, -1))),
        st.tuples(st.just(merge_by), paths, merge_items),
        st.tuples(st.just(expect), paths),
        st.tuples(st.just("update_at"), paths, st.none() | scalars),
        st.tuples(st.just(for_each), paths, st.lists(recipes, min_size=1, max_size=3)),
    )
)


def build(recipe: Recipe) -> Any:
    """The transform a recipe describes (``ArgumentError`` where its factory refuses it)."""
    factory, target, *rest = recipe
    if factory is for_each:
        return for_each(target, chain(*(build(inner) for inner in rest[0])))
    if factory == "insert_at":
        return insert_at(target, rest[0], after=rest[1])
    if factory == "update_at":
        return update_at(target, _wrap, default=rest[0])
    if factory is expect:
        return expect(target, "1+")
    return factory(target, *rest)


@contextlib.contextmanager
def general_walk() -> Iterator[None]:
    """Transforms built here have no compiled path: they walk, and nothing of them fuses."""
    with mock.patch.object(combinators.editing, "compile_path", lambda *args, **kwargs: None):
        yield


def outcome(transform: Callable[[Any], Any], doc: Any) -> tuple[Any, ...]:
    try:
        return ("ok", transform(doc))
    except TransformError as err:
        return (
            type(err).__name__,
            str(err),
            str(err.path) if err.path is not None else None,
            err.part_index,
        )


def key_order(value: Any) -> Any:
    """The keys of every map in ``value``, in order (``==`` on dicts ignores it; YAML does not)."""
    if isinstance(value, Mapping):
        return [(key, key_order(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [key_order(item) for item in value]
    return None


def compare(doc: Any, steps: list[Recipe]) -> None:
    try:
        with general_walk():
            reference = chain(*map(build, steps))
        subject = chain(*map(build, steps))
    except ArgumentError:
        return  # refused where it is built, alike on both sides (tests/test_error_contract.py)
    before = copy.deepcopy(doc)
    expected = outcome(reference, doc)
    for _ in range(2):  # the first application runs step by step, the second compiles
        with contextlib.suppress(TransformError):
            subject(doc)
    got = outcome(subject, doc)
    assert doc == before
    assert got == expected
    if expected[0] == "ok":
        assert (got[1] is doc) == (expected[1] is doc)
        assert key_order(got[1]) == key_order(expected[1])


EXAMPLES = int(os.environ.get("PODFOLD_FUSION_EXAMPLES", settings.default.max_examples * 15))


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(documents, st.lists(recipes, min_size=1, max_size=6))
def test_fused_and_walked_compositions_agree_on_paths_of_every_shape(
    doc: dict[str, Any], steps: list[Recipe]
) -> None:
    # Law: for every document and composition, the fused composition and the general walk
    # give one outcome: the same document, or the same error, named alike.
    compare(doc, steps)
    compare({}, steps)  # where every missing parent is made


@pytest.mark.parametrize(
    "steps",
    [
        # the root: no fused op can stand for an edit of the whole document
        [(for_each, "spec", [(remove_at, "", False), (upsert, "", None)])],
        [(remove_at, "", False), (upsert, "a", 1)],
        [(remove_at, "", True), (upsert, "", {"a": 1})],
        [(upsert, "", {"a": 1}), (replace_at, "", {"b": 2}), (set_default, "", 1)],
        [(for_each, "", [(upsert, "a", 1), (remove_at, "", False)]), (upsert, "b", 2)],
        [(for_each, "spec", [(append_at, "", "x"), (merge_by, "", [{"name": "a"}])])],
        # a list edit on a map, and a map edit on a list: the same error, naming the place
        [(upsert, "z", 1), (append_at, "spec.nodeSelector", "x")],
        [(upsert, "z", 1), (merge_by, "metadata.labels", [{"name": "x"}])],
        [(upsert, "z", 1), (upsert, "spec.tolerations.a", 1)],
        [(for_each, "spec", [(append_at, "nodeSelector", "x"), (upsert, "z", 1)])],
    ],
)
def test_fused_and_walked_compositions_agree_at_the_root_and_on_clashes(
    steps: list[Recipe],
) -> None:
    pod = {
        "spec": {"nodeSelector": {"a": "b"}, "tolerations": [{"key": "k"}]},
        "metadata": {"labels": {"a": "b"}},
    }
    compare(pod, steps)
    compare({}, steps)


@pytest.mark.parametrize(
    "transform",
    [
        remove_at("", missing_ok=False),
        append_at("", "x"),
        chain(upsert("a", 1), remove_at("", missing_ok=False)),
    ],
)
def test_an_error_at_the_root_says_so(transform: Any) -> None:
    with pytest.raises(TransformError) as caught:
        for _ in range(3):  # fused from the third application on
            transform({"a": 1})
    assert caught.value.path == Path(())
    assert "(at the top level)" in str(caught.value)
