"""Fused compositions against the same steps applied one by one.

A composition compiles its runs of path edits into one function
(:mod:`combinators.fusion`). These tests hold it to the law it must keep:
for every document and every composition, ``compose(*steps)(doc)`` equals the
steps applied one at a time, raises what they raise, leaves ``doc`` as it
was, and gives ``doc`` itself back where nothing changed.
"""

from __future__ import annotations

import contextlib
import copy
import os
import re
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from combinators import (
    append_at,
    chain,
    expect,
    for_each,
    merge_by,
    remove_at,
    replace_at,
    set_default,
    update_at,
    upsert,
)
from combinators.compiled import FALLBACK
from combinators.fusion import source
from combinators.owned import Owned
from combinators.transform import Compose
from recipes import add_env, add_toleration, gpu, node_selector, shm_size

# -- documents: small, so that paths collide often

names = st.sampled_from(("a", "b", "c"))
scalars = st.sampled_from((None, True, 1, 1.0, "1", "a", 0, ""))
leaves = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(names, inner, max_size=2),
    max_leaves=4,
)
elements = st.one_of(
    st.fixed_dictionaries(
        {"name": names},
        optional={
            "env": st.lists(
                st.fixed_dictionaries({"name": names}, optional={"value": scalars}), max_size=3
            ),
            "x": leaves,
        },
    ),
    scalars,
)
documents = st.fixed_dictionaries(
    {},
    optional={
        "spec": st.one_of(
            st.none(),
            st.just([]),
            st.fixed_dictionaries(
                {},
                optional={
                    "containers": st.one_of(st.none(), st.lists(elements, max_size=4)),
                    "nodeSelector": st.one_of(
                        st.none(), st.dictionaries(names, scalars, max_size=2)
                    ),
                    "tolerations": st.lists(leaves, max_size=2),
                    "x": leaves,
                },
            ),
        ),
        "metadata": st.fixed_dictionaries(
            {}, optional={"labels": st.dictionaries(names, scalars, max_size=2)}
        ),
    },
)

# -- steps: every fusable kind, at paths that share prefixes and selectors

lists_at = st.sampled_from(
    (
        "spec.tolerations",
        "spec.containers",
        "spec.containers[name=a].env",
        "spec.containers[name=b].env",
        "spec.containers[0].env",
        "spec.containers[-1].env",
        "spec.containers[name=a].env[name=b].x",
        "spec.x",
        "other",
    )
)
maps_at = st.sampled_from(
    (
        "spec",
        "spec.nodeSelector",
        "metadata.labels",
        "spec.containers[name=a]",
        "spec.containers[name=c]",
        "spec.containers[0]",
        "spec.containers[name=a].env[name=a]",
        "spec.containers[name=b].x",
        "spec.x",
        "spec.x.y",
    )
)
keys_at = st.sampled_from(
    (
        "spec.nodeSelector.a",
        "metadata.labels.b",
        "spec.containers[name=a].name",
        "spec.containers[0].x",
        "spec.containers[name=b].env[-1].value",
        "spec.x",
        "top",
        "spec.containers[-]",
        "spec.containers[name=a].env[-]",
    )
)
flat_maps = st.dictionaries(names, scalars, max_size=2)
items = st.one_of(
    flat_maps,
    st.fixed_dictionaries({"name": names, "x": leaves}),
    scalars,
    st.lists(scalars, max_size=2),
)

fusable_steps = st.one_of(
    st.builds(upsert, maps_at, flat_maps),
    st.builds(upsert, maps_at, leaves),
    st.builds(upsert, keys_at, scalars),
    st.builds(replace_at, keys_at | maps_at, leaves),
    st.builds(set_default, keys_at | maps_at, leaves),
    st.builds(lambda at, xs: append_at(at, *xs), lists_at, st.lists(items, min_size=1, max_size=3)),
    st.builds(
        lambda at, xs: append_at(at, *xs, unique=True),
        lists_at,
        st.lists(items, min_size=1, max_size=2),
    ),
    st.builds(
        lambda at, xs: merge_by(at, xs),
        lists_at,
        st.lists(st.fixed_dictionaries({"name": names}, optional={"value": scalars}), max_size=2),
    ),
)


# for_each over one element, around relative edits: fused as the same edits at the joined paths
inner_steps = st.one_of(
    st.builds(upsert, st.sampled_from(("x", "x.y", "name", "env[name=a]")), leaves),
    st.builds(
        lambda at, xs: append_at(at, *xs),
        st.sampled_from(("env", "x")),
        st.lists(items, min_size=1, max_size=2),
    ),
    st.builds(replace_at, st.sampled_from(("name", "env[0]", "x")), scalars),
)
fusable_steps = fusable_steps | st.builds(
    for_each,
    st.sampled_from(
        ("spec.containers[0]", "spec.containers[name=a]", "spec", "spec.containers[-1]")
    ),
    st.lists(inner_steps, min_size=1, max_size=3).map(lambda inner: chain(*inner)),
)
fusable_steps = fusable_steps | st.builds(
    expect, st.sampled_from(("spec.containers[0]", "spec.containers[name=a]"))
)


def _rename(doc: Any) -> Any:
    return {**doc, "renamed": True} if isinstance(doc, dict) else doc


fusable_steps = fusable_steps | st.builds(remove_at, keys_at | maps_at, st.booleans())
splitting_steps = st.one_of(
    st.builds(lambda at: update_at(at, lambda value: [value], default=None), keys_at),
    st.just(_rename),
)
steps = st.one_of(fusable_steps, fusable_steps, fusable_steps, splitting_steps)


def one_by_one(transforms: list[Any], doc: Any) -> Any:
    for transform in transforms:
        doc = transform(doc)
    return doc


def outcome(fn: Any, doc: Any) -> tuple[str, Any]:
    try:
        return "ok", fn(doc)
    except Exception as err:  # the two sides must fail alike (a composition names the step)
        return type(err).__name__, re.sub(r" \[in step \d+ of \d+: .*\]$", "", str(err))


def key_order(value: Any) -> Any:
    """The keys of every map in ``value``, in order (``==`` on dicts ignores it; YAML does not)."""
    if isinstance(value, Mapping):
        return [(key, key_order(item)) for key, item in value.items()]
    if isinstance(value, (list, tuple)):
        return [key_order(item) for item in value]
    return None


def warmed(transforms: list[Any]) -> Any:
    """The composition, past its first (step-by-step) application: fused from now on."""
    composed = chain(*transforms)
    for _ in range(2):  # the first runs step by step; the second compiles
        with contextlib.suppress(Exception):  # the warm-up document may not suit it
            composed({})
    return composed


# more for a long run: PODFOLD_FUSION_EXAMPLES=20000 python -m pytest tests/test_fusion.py
EXAMPLES = int(os.environ.get("PODFOLD_FUSION_EXAMPLES", settings.default.max_examples * 15))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents, st.lists(steps, min_size=2, max_size=8))
def test_a_fused_composition_equals_its_steps_one_by_one(doc: Any, transforms: list[Any]) -> None:
    # Law: compose(*steps)(doc) == the steps applied in turn, errors included; doc unchanged;
    # and where nothing changed, doc itself comes back.
    before = copy.deepcopy(doc)
    expected = outcome(lambda d: one_by_one(transforms, d), doc)
    composed = warmed(transforms)
    got = outcome(composed, doc)
    assert got == expected
    assert doc == before
    if expected[0] == "ok":
        assert (got[1] is doc) == (expected[1] is doc)
        # maps keep their keys' order too: a fused write may not put a new key first
        assert key_order(got[1]) == key_order(expected[1])
    if isinstance(composed, Compose) and composed._whole is not None:
        try:
            direct = composed._whole(doc, Owned())
        except Exception:  # a leaf's error: the composition runs the steps one by one then
            direct = FALLBACK
        event("fused" if direct is not FALLBACK else "fell back")
        if direct is not FALLBACK:
            assert ("ok", direct) == expected
        assert doc == before


@settings(max_examples=EXAMPLES // 5, deadline=None)
@given(st.lists(fusable_steps, min_size=2, max_size=6))
def test_the_same_object_twice_in_a_document_is_copied_for_each_place(
    transforms: list[Any],
) -> None:
    # Law as above, on a document where one map sits at two places (as YAML aliases make).
    shared = {"name": "a", "env": [{"name": "a"}]}
    doc = {"spec": {"containers": [shared, shared], "x": shared}}
    before = copy.deepcopy(doc)
    assert outcome(warmed(transforms), doc) == outcome(lambda d: one_by_one(transforms, d), doc)
    assert doc == before and doc["spec"]["containers"][0] is shared


# -- the fused function itself

OVERLAY = [
    upsert("spec.nodeSelector", {"gpu": "a100"}),
    append_at("spec.tolerations", {"key": "nvidia.com/gpu", "operator": "Exists"}),
    append_at("spec.containers[name=main].env", {"name": "A", "value": "1"}),
    append_at("spec.containers[name=main].env", {"name": "B", "value": "2"}),
    append_at("spec.volumes", {"name": "ckpt", "persistentVolumeClaim": {"claimName": "c"}}),
    upsert("metadata.annotations", {"scrape": "true"}),
]
POD = {
    "metadata": {"annotations": {}},
    "spec": {
        "containers": [{"name": "side"}, {"name": "main", "env": [{"name": "Z"}]}],
        "tolerations": [],
        "volumes": [],
        "nodeSelector": {},
    },
}


def test_an_overlay_walks_each_prefix_and_scans_each_selector_once() -> None:
    text = source(chain(*OVERLAY)._fusion_ops(), register=False)
    assert text.count("for position, element in enumerate") == 1
    assert text.count("= v0.get(") == 2  # spec and metadata, each once
    # the appends to each list are written in one go (the two env vars together), after
    # one copy of it
    assert text.count("I.copy()") == 0
    assert text.count(".extend(") + text.count("[*") + text.count(".append(") == 3
    assert text.count(".extend(") + text.count("[*") >= 1


def test_a_fused_overlay_does_not_fall_back_on_a_plain_pod() -> None:
    composed = warmed(OVERLAY)
    assert composed._whole is not None
    result = composed._whole(POD, Owned())
    assert result is not FALLBACK and result == one_by_one(OVERLAY, POD)


def test_unchanged_parts_are_shared_and_changed_ones_copied_once() -> None:
    pod = copy.deepcopy(POD)
    pod["spec"]["extra"] = {"kept": [1, 2]}
    result = warmed(OVERLAY)(pod)
    assert result["spec"]["extra"] is pod["spec"]["extra"]
    assert result["spec"]["containers"][0] is pod["spec"]["containers"][0]
    assert result["spec"]["containers"][1] is not pod["spec"]["containers"][1]
    assert pod == {**POD, "spec": {**POD["spec"], "extra": {"kept": [1, 2]}}}


def test_a_composition_that_changes_nothing_returns_its_input() -> None:
    composed = warmed(
        [upsert("spec.nodeSelector", {"gpu": "a100"}), set_default("spec.restartPolicy", "Never")]
    )
    pod = {"spec": {"nodeSelector": {"gpu": "a100"}, "restartPolicy": "Always"}}
    assert composed(pod) is pod


def test_an_ambiguous_selector_falls_back_to_every_match() -> None:
    # two containers named main: the step-by-step plan edits both; so must the fused one
    pod = {
        "spec": {
            "containers": [{"name": "main"}, {"name": "main"}]
            + [{"name": f"c{n}"} for n in range(20)]
        }
    }
    composed = warmed(
        [
            upsert("spec.nodeSelector", {"a": "b"}),
            append_at("spec.containers[name=main].args", "-v"),
        ]
    )
    result = composed(pod)
    assert [c.get("args") for c in result["spec"]["containers"][:2]] == [["-v"], ["-v"]]


def test_an_error_is_raised_by_the_step_that_fails_and_names_it() -> None:
    composed = warmed(
        [
            upsert("spec.nodeSelector", {"a": "b"}),
            append_at("spec.containers[name=main].args", "-v"),
        ]
    )
    with pytest.raises(Exception) as fused_error:
        composed({"spec": {"containers": "not a list"}})
    assert "step 2 of 2" in str(fused_error.value)


def test_a_chain_of_recipes_fuses_with_its_checks() -> None:
    overlay = chain(
        gpu("a100-80gb", count=8),
        shm_size("64Gi"),
        add_env(NCCL_DEBUG="INFO"),
        add_toleration("nvidia.com/gpu"),
        node_selector(pool="a100"),
    )
    ops = overlay._fusion_ops()
    # each recipe's pod check, and the expect() of the three that edit the main container
    assert ops is not None and [op.kind for op in ops].count("check") == 5 + 3
    pod = {"spec": {"containers": [{"name": "trainer"}]}}
    expected = one_by_one(list(overlay.steps), pod)
    assert overlay(pod) == overlay(pod) == expected
    with pytest.raises(Exception, match="a pod-level overlay was given a Deployment"):
        overlay({"kind": "Deployment", "metadata": {"name": "web"}, "spec": {}})


def test_pickled_compositions_fuse_again() -> None:
    import pickle

    composed = warmed(OVERLAY)
    composed(POD)
    again = pickle.loads(pickle.dumps(composed))
    assert again(POD) == again(POD) == composed(POD)


def test_a_long_composition_is_cut_into_several_fused_functions() -> None:
    from combinators.transform import MAX_FUSED_OPS

    steps = [upsert(f"metadata.labels.k{n}", str(n)) for n in range(MAX_FUSED_OPS + 500)]
    composed = warmed(steps)
    assert [stop - start for _, start, stop in composed._fused] == [MAX_FUSED_OPS, 500]
    assert composed({"metadata": {}}) == one_by_one(steps, {"metadata": {}})


def test_paths_a_hundred_parts_deep_fuse_or_run_step_by_step_alike() -> None:
    deep = ".".join(f"k{n}" for n in range(99))
    steps = [upsert(f"{deep}.a", n) for n in range(3)] + [append_at(deep + ".l", 1)]
    assert warmed(steps)({}) == one_by_one(steps, {})


def test_a_fused_composition_that_goes_leaves_nothing_for_the_collector() -> None:
    import gc

    def once() -> None:
        composed = warmed(OVERLAY)
        assert composed._whole is not None
        composed(POD)

    once()  # what is made once and kept (compiled code, paths) is made here
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        once()
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()
