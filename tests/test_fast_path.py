"""The compiled fast path against the general walk, case for case.

Every path edit has two ways to apply: the function :func:`combinators.compiled.compile_path`
generates for its path (two variants: inside a composition, as ``_fast_parts``
hands it to a composition, and ``lone`` for a transform called on its own;
``append_at`` of maps compiles its leaf in too) and the general walk,
``PathEdit._apply_slow``, which ``_fast_parts`` names as the way otherwise.
The fast path may decline (``FALLBACK``, having changed nothing); where it
answers, it must answer as the walk does: the same result, the same error, no
input changed. Each case is run against the walk directly, with nothing owned
and with containers an earlier step of the same application made.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from combinators import (
    TransformError,
    append_at,
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
from combinators.compiled import FALLBACK, compile_path
from combinators.data import strict_equal
from combinators.editing import PathEdit
from combinators.owned import Owned
from combinators.paths import Path

PATHS = (
    "kind",
    "spec.hostIPC",
    "spec.nodeSelector",
    "spec.nodeSelector.gpu",
    "metadata.annotations['sidecar.istio.io/inject']",
    "spec.missing.deeper",
    "spec.hostIPC.x",
    "spec.containers",
    "spec.containers[0]",
    "spec.containers[-1].image",
    "spec.containers[5].image",
    "spec.containers[name=t]",
    "spec.containers[name=t].env",
    "spec.containers[name=t].env[name=A].value",
    "spec.containers[name=twin].image",
    "spec.containers[name=t,image=x].args",
    "spec.containers[name=none].image",
    "spec.tolerations[-]",
    "spec.tolerations",
    "spec.nodeSelector[0]",
)

FACTORIES: dict[str, Callable[[str], Any]] = {
    "upsert map": lambda where: upsert(where, {"gpu": "a100", "zone": "b"}),
    "upsert scalar": lambda where: upsert(where, "v"),
    "upsert nested": lambda where: upsert(where, {"a": {"b": [1]}}),
    "replace_at": lambda where: replace_at(where, {"name": "n"}),
    "set_default": lambda where: set_default(where, [1]),
    "remove_at": lambda where: remove_at(where),
    "remove_at strict": lambda where: remove_at(where, missing_ok=False),
    "append_at": lambda where: append_at(where, {"key": "k"}),
    "append_at unique": lambda where: append_at(where, {"name": "A", "value": "1"}, unique=True),
    "prepend_at": lambda where: prepend_at(where, "first"),
    "insert_at": lambda where: insert_at(where, {"name": "i"}, after=0),
    "merge_by": lambda where: merge_by(where, [{"name": "A", "value": "2"}, {"name": "C"}]),
    "update_at": lambda where: update_at(where, lambda value: [value]),
    "update_at default": lambda where: update_at(where, lambda value: [value], default=0),
    "for_each": lambda where: for_each(where, upsert("image", "y")),
}


def pods() -> list[dict[str, Any]]:
    """Fresh documents, one of each shape the paths above meet."""
    return [
        {
            "kind": "Pod",
            "metadata": {"annotations": {"sidecar.istio.io/inject": "false"}},
            "spec": {
                "hostIPC": False,
                "nodeSelector": {"zone": "a"},
                "tolerations": [{"key": "a"}],
                "containers": [
                    {
                        "name": "t",
                        "image": "x",
                        "args": ["-v"],
                        "env": [{"name": "A", "value": "1"}],
                    },
                    {"name": "twin"},
                    {"name": "twin"},
                ],
            },
        },
        {"spec": {"containers": [], "nodeSelector": None}},
        {"spec": {"containers": {"name": "t"}, "tolerations": "none", "hostIPC": True}},
        {},
    ]


def run(apply: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return "ok", apply()
    except TransformError as err:
        return "error", err


def same(fast: tuple[str, Any], walk: tuple[str, Any], transform: PathEdit) -> None:
    if fast[0] == "error":
        assert walk[0] == "error", f"fast raised {fast[1]!r}, walk gave {walk[1]!r}"
        transform._annotate(fast[1])  # what a composition adds to the fast path's errors
        assert type(fast[1]) is type(walk[1])
        assert str(fast[1]) == str(walk[1])
    else:
        assert walk[0] == "ok", f"fast gave {fast[1]!r}, walk raised {walk[1]!r}"
        assert strict_equal(fast[1], walk[1]), (fast[1], walk[1])


CASES = [
    pytest.param(label, where, id=f"{label}:{where}") for label in FACTORIES for where in PATHS
]
answered: dict[str, int] = {"lone": 0, "owned": 0}


@pytest.mark.parametrize(("label", "where"), CASES)
def test_fast_path_agrees_with_the_walk(label: str, where: str) -> None:
    transform = FACTORIES[label](where)
    assert isinstance(transform, PathEdit)
    compiled, leaf, walk_apply = transform._fast_parts()
    lone = transform._lone
    assert walk_apply == transform._apply_slow
    assert (compiled is None) == (lone is None)
    if compiled is not None:  # the cached compilation of the path, nothing else
        append = not callable(leaf)
        assert compiled is compile_path(
            Path.parse(where), create=transform.missing_leaf == "create", append=append
        )
    for doc in pods():
        before = copy.deepcopy(doc)
        walk = run(lambda: walk_apply(doc, Owned()))  # noqa: B023
        assert strict_equal(doc, before), "the walk changed its input"
        if compiled is None:
            continue
        for variant, fast in (("lone", lone), ("in a composition", compiled)):
            assert fast is not None
            result = run(lambda: fast(doc, Owned(), leaf))  # noqa: B023
            assert strict_equal(doc, before), f"the {variant} fast path changed its input"
            if result[0] == "ok" and result[1] is FALLBACK:
                continue
            if variant == "lone":
                answered["lone"] += 1
            same(result, walk, transform)


@pytest.mark.parametrize(("label", "where"), CASES)
def test_fast_path_agrees_with_the_walk_on_what_this_application_made(
    label: str, where: str
) -> None:
    transform = FACTORIES[label](where)
    assert isinstance(transform, PathEdit)
    compiled, leaf, _ = transform._fast_parts()
    if compiled is None:
        return
    # an earlier step of the same application: the copies it made are owned, so edited in place
    earlier = upsert("spec.nodeSelector", {"earlier": "yes"})
    assert isinstance(earlier, PathEdit)
    for doc in pods():
        before = copy.deepcopy(doc)
        owned_fast, owned_walk = Owned(), Owned()
        mid_fast = run(lambda: earlier._apply_slow(doc, owned_fast))  # noqa: B023
        mid_walk = run(lambda: earlier._apply_slow(doc, owned_walk))  # noqa: B023
        if mid_fast[0] == "error":
            continue
        assert mid_fast[1] is not mid_walk[1] and strict_equal(mid_fast[1], mid_walk[1])
        mid_before = copy.deepcopy(mid_fast[1])
        fast = run(lambda: compiled(mid_fast[1], owned_fast, leaf))  # noqa: B023
        walk = run(lambda: transform._apply_slow(mid_walk[1], owned_walk))  # noqa: B023
        assert strict_equal(doc, before), "an input changed"
        if fast[0] == "ok" and fast[1] is FALLBACK:
            assert strict_equal(mid_fast[1], mid_before), "FALLBACK after a change"
            continue
        answered["owned"] += 1
        same(fast, walk, transform)


def test_the_table_reaches_the_fast_path() -> None:
    # the cases above would prove little if the fast path declined them all: the whole table
    # is walked here, counted afresh (under pytest-xdist, a worker runs only some of them)
    answered["lone"] = 0
    for label in FACTORIES:
        for where in PATHS:
            test_fast_path_agrees_with_the_walk(label, where)
    assert answered["lone"] >= 100


def test_a_lone_transform_and_a_dict_subclass_agree() -> None:
    # a lone call takes the ``lone`` fast path; a dict subclass is left to the general walk
    transform = upsert("spec.nodeSelector.gpu", "a100")
    pod: dict[str, Any] = {"spec": {"nodeSelector": {}}, "metadata": {}}

    class Subclass(dict[str, Any]):
        pass

    new = transform(pod)
    assert new == {"spec": {"nodeSelector": {"gpu": "a100"}}, "metadata": {}}
    assert new["metadata"] is pod["metadata"] and pod["spec"]["nodeSelector"] == {}
    assert transform(Subclass(pod)) == new
