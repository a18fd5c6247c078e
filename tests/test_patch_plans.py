"""Patches compiled into plans of path steps do exactly what the general ways do.

``json_patch`` runs each add, remove, replace and test as a compiled path step,
and ``strategic_merge`` runs a plan of path steps compiled from the patch; both
fall back to the general ways (RFC 6902's walk of one operation, the strategic
merge of a whole patch) for what they do not compile. Those general ways are
the oracle here: the same result, to the order of every map's keys and the
type of every number, the same object where nothing changes, and the same
error, word for word, where something fails.
"""

from __future__ import annotations

import contextlib
import copy
import pickle
from collections import defaultdict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from combinators import PathError, TransformError, chain, upsert
from combinators.data import MISSING
from combinators.editing import PathEdit
from combinators.owned import Owned
from tests import test_json_patch, test_kubectl_workloads, test_strategic
from tests.test_json_patch import docs_and_ops
from transforms.forms.patches import InvalidPatchError, json_patch, strategic_merge
from transforms.forms.patches._listkeys import ROOTS
from transforms.forms.patches._smp import Ctx, merge_map
from transforms.forms.patches.json_patch import _run


def planned(patch: Any) -> Any:
    """``patch`` with its plan made and fused: applied once, a patch runs the general way,
    and a plan (a composition) runs step by step on its first application."""
    plan = patch.compiled()
    for _ in range(2):
        with contextlib.suppress(Exception):  # the warm-up document may not suit it
            if plan is not None:
                plan({})
    return patch


def outcome(fn: Any, doc: Any) -> tuple[str, str, bool]:
    """What ``fn(doc)`` gives, exactly: its repr (key order and number types kept), or the
    error's type and message; and whether the very same document came back."""
    try:
        result = fn(doc)
    except TransformError as err:
        return type(err).__name__, str(err), False
    return "ok", repr(result), result is doc


# --- the case tables, by the plans ----------------------------------------------------------


@pytest.mark.parametrize(
    "case", test_json_patch.CASES, ids=[c["name"] for c in test_json_patch.CASES]
)
def test_json_patch_cases_by_the_plan(case: dict[str, Any]) -> None:
    base = test_json_patch.base_of(case)
    before = copy.deepcopy(base)
    overlay = planned(json_patch(case["patch"]))
    if "error" in case:
        with pytest.raises(test_json_patch.ERRORS[case["error"]]):
            overlay(base)
    else:
        assert overlay(base) == case["expected"]
    assert base == before


@pytest.mark.parametrize(
    "case", test_strategic.CASES, ids=[c["name"] for c in test_strategic.CASES]
)
def test_strategic_cases_by_the_plan(case: dict[str, Any]) -> None:
    base = test_strategic.base_of(case)
    before = copy.deepcopy(base)
    overlay = planned(strategic_merge(case["patch"], kind=case.get("kind", "Pod")))
    assert overlay(base) == case["expected"]
    assert base == before


@pytest.mark.parametrize(
    ("kind", "manifest", "where", "name"),
    test_kubectl_workloads.CASES,
    ids=[f"{kind}-{name}" for kind, _, _, name in test_kubectl_workloads.CASES],
)
def test_workload_patches_by_the_plan(
    kind: str, manifest: str, where: tuple[str, ...], name: str
) -> None:
    document, patch = test_kubectl_workloads._case(kind, manifest, where, name)
    overlay = strategic_merge(patch)

    def general(doc: Any) -> Any:
        return merge_map(
            doc, copy.deepcopy(overlay.patch), overlay.root, str(overlay.root), Ctx(False, Owned())
        )

    before = copy.deepcopy(document)
    assert outcome(planned(overlay), document) == outcome(general, document)
    assert document == before


# --- json_patch ---------------------------------------------------------------------------


def walked(ops: list[dict[str, Any]]) -> Any:
    """The operations applied one by one by the general walk: the oracle."""
    checked = json_patch(ops).ops

    def apply(doc: Any) -> Any:
        owned = Owned()
        for op in checked:
            doc = _run(op, doc, owned)
        return doc

    return apply


@settings(max_examples=settings.default.max_examples * 6)
@given(docs_and_ops())
def test_law_json_patch_plan_equals_the_general_walk(
    case: tuple[Any, list[dict[str, Any]]],
) -> None:
    # json_patch(ops)(doc) == each op applied by the general walk, errors included
    doc, ops = case
    try:
        oracle = walked(ops)
    except InvalidPatchError:  # a patch that cannot be built is no case
        return
    before = copy.deepcopy(doc)
    assert outcome(planned(json_patch(ops)), doc) == outcome(oracle, doc)
    assert doc == before


def test_json_patch_operations_are_compiled_path_steps() -> None:
    ops = [
        {"op": "add", "path": "/spec/containers/0/env/-", "value": {"name": "A"}},
        {"op": "replace", "path": "/spec/containers/0/image", "value": "x"},
        {"op": "remove", "path": "/metadata/labels/app"},
        {"op": "test", "path": "/spec/hostIPC", "value": True},
        {"op": "copy", "from": "/spec/hostIPC", "path": "/spec/hostPID"},
    ]
    steps = json_patch(ops).compiled().steps
    assert [str(step.path) for step in steps[:4]] == [
        "spec.containers[0].env",
        "spec.containers[0]",
        "metadata.labels",
        "spec.hostIPC",
    ]
    assert all(isinstance(step, PathEdit) and step._compiled is not None for step in steps[:4])
    assert not isinstance(steps[4], PathEdit)  # copy reads another path: the general walk


@pytest.mark.parametrize(
    ("ops", "message"),
    [
        (
            [{"op": "remove", "path": "/metadata/labls"}],
            "json_patch op 0 (remove '/metadata/labls'): no key 'labls' at /metadata; "
            "keys present: labels [in step 2 of 2: json_patch([{'op': 'remove', "
            "'path': '/metadata/labls'}])]",
        ),
        (
            [
                {"op": "add", "path": "/a", "value": 1},
                {"op": "test", "path": "/metadata/labels/app", "value": "y"},
            ],
            "json_patch op 1 (test '/metadata/labels/app'): expected 'y', found 'x' [in step 2 of 2: "
            "json_patch([{'op': 'add', 'path': '/a', 'value': 1}, {'op': 'test', "
            "'path': '/metadata/labels/app', 'value': 'y'}])]",
        ),
    ],
)
def test_json_patch_errors_in_a_chain_name_the_patch_once(ops: Any, message: str) -> None:
    with pytest.raises(TransformError) as caught:
        chain(upsert("spec.hostIPC", True), json_patch(ops))({"metadata": {"labels": {"app": "x"}}})
    assert str(caught.value) == message


# --- strategic_merge ----------------------------------------------------------------------


def merged(patch: Any, kind: str = "Pod") -> Any:
    """The whole patch merged by the general merge: the oracle."""
    strategic_merge(patch, kind=kind)  # a patch that cannot be built is no case

    def apply(doc: Any) -> Any:
        return merge_map(doc, copy.deepcopy(patch), ROOTS[kind], kind, Ctx(False, Owned()))

    return apply


NAMES = st.sampled_from(["a", "b", "c"])
SCALARS = st.one_of(NAMES, st.integers(0, 2), st.booleans())
odd = st.one_of(st.none(), st.just("odd"), st.just([]), st.just({}))
env = st.lists(
    st.one_of(
        st.fixed_dictionaries({"name": NAMES}, optional={"value": SCALARS}),
        st.fixed_dictionaries({"value": SCALARS}),  # no merge key
        st.just("not a map"),
    ),
    max_size=4,
)
resources = st.fixed_dictionaries(
    {},
    optional={
        "limits": st.one_of(st.dictionaries(NAMES, st.one_of(SCALARS, st.none()), max_size=2), odd)
    },
)
container = st.fixed_dictionaries(
    {"name": NAMES},
    optional={"image": SCALARS, "env": st.one_of(env, odd), "resources": st.one_of(resources, odd)},
)
containers = st.lists(st.one_of(container, st.just({"image": "nameless"})), max_size=3)
spec = st.fixed_dictionaries(
    {},
    optional={
        "containers": st.one_of(containers, odd),
        "nodeSelector": st.one_of(st.dictionaries(NAMES, SCALARS, max_size=2), odd),
        "tolerations": st.lists(st.fixed_dictionaries({"key": NAMES}), max_size=2),
        "hostIPC": st.booleans(),
    },
)
metadata = st.fixed_dictionaries(
    {},
    optional={
        "labels": st.one_of(st.dictionaries(NAMES, SCALARS, max_size=2), odd),
        "finalizers": st.lists(NAMES, max_size=2),
    },
)
odd_pods = st.fixed_dictionaries(
    {}, optional={"metadata": st.one_of(metadata, odd), "spec": st.one_of(spec, odd)}
)
unique_env = st.lists(
    st.fixed_dictionaries({"name": NAMES}, optional={"value": SCALARS}),
    max_size=3,
    unique_by=lambda item: item["name"],
)
usual_container = st.fixed_dictionaries(
    {"name": NAMES},
    optional={
        "image": SCALARS,
        "env": unique_env,
        "resources": st.fixed_dictionaries({"limits": st.dictionaries(NAMES, SCALARS, max_size=2)}),
    },
)
usual_pods = st.fixed_dictionaries(
    {
        "metadata": st.fixed_dictionaries({"labels": st.dictionaries(NAMES, SCALARS, max_size=2)}),
        "spec": st.fixed_dictionaries(
            {
                "containers": st.lists(
                    usual_container, min_size=1, max_size=3, unique_by=lambda item: item["name"]
                )
            },
            optional={
                "nodeSelector": st.dictionaries(NAMES, SCALARS, max_size=2),
                "tolerations": st.lists(st.fixed_dictionaries({"key": NAMES}), max_size=2),
            },
        ),
    }
)
pods = st.one_of(usual_pods, usual_pods, odd_pods)  # pods as they come, and odd ones

plain_env = st.lists(
    st.fixed_dictionaries({"name": NAMES}, optional={"value": st.one_of(SCALARS, st.none())}),
    max_size=3,
)
patch_env = st.one_of(  # the compiled case (keys unique, no directives) and the others
    st.lists(
        st.fixed_dictionaries({"name": NAMES}, optional={"value": SCALARS}),
        max_size=3,
        unique_by=lambda item: item["name"],
    ),
    plain_env,
    st.builds(
        lambda items, gone: items + gone,
        plain_env,
        st.lists(
            st.fixed_dictionaries({"name": NAMES, "$patch": st.just("delete")}),
            min_size=1,
            max_size=1,
        ),
    ),
)
patch_container = st.fixed_dictionaries(
    {"name": NAMES},
    optional={
        "image": st.one_of(SCALARS, st.none()),
        "env": patch_env,
        "resources": st.fixed_dictionaries(
            {},
            optional={
                "limits": st.one_of(
                    st.dictionaries(NAMES, st.one_of(SCALARS, st.none()), max_size=2), st.none()
                )
            },
        ),
    },
)
patch_containers = st.one_of(
    st.lists(patch_container, max_size=3, unique_by=lambda item: item["name"]),
    st.lists(patch_container, max_size=3),
)
patch_spec = st.fixed_dictionaries(
    {},
    optional={
        "containers": patch_containers,
        "nodeSelector": st.one_of(
            st.dictionaries(NAMES, st.one_of(SCALARS, st.none()), max_size=2), st.none()
        ),
        "tolerations": st.lists(st.fixed_dictionaries({"key": NAMES}), max_size=2),
        "hostIPC": st.one_of(st.booleans(), st.none()),
    },
)
ordered_spec = st.builds(  # a directive: the spec merged by the general merge, within the plan
    lambda spec, order: {**spec, "$setElementOrder/containers": order},
    patch_spec,
    st.lists(st.fixed_dictionaries({"name": NAMES}), max_size=3),
)
any_patches = st.fixed_dictionaries(
    {},
    optional={
        "metadata": st.fixed_dictionaries(
            {},
            optional={
                "labels": st.one_of(
                    st.dictionaries(NAMES, st.one_of(SCALARS, st.none()), max_size=2), st.none()
                ),
                "finalizers": st.lists(NAMES, max_size=2),
            },
        ),
        "spec": st.one_of(patch_spec, patch_spec, patch_spec, ordered_spec, st.none()),
    },
)
list_patches = st.fixed_dictionaries(
    {
        "spec": st.fixed_dictionaries(
            {
                "containers": st.lists(
                    st.fixed_dictionaries(
                        {"name": NAMES}, optional={"image": SCALARS, "env": patch_env}
                    ),
                    min_size=1,
                    max_size=3,
                    unique_by=lambda item: item["name"],
                )
            }
        )
    }
)
patches = st.one_of(list_patches, any_patches)  # lists merged in one pass, and all the rest


@settings(max_examples=settings.default.max_examples * 8)
@given(pods, st.data())
def test_law_strategic_plan_equals_the_general_merge(pod: Any, data: st.DataObject) -> None:
    # strategic_merge(patch)(pod) == the whole patch merged by the general merge, errors included
    patch = data.draw(patches)
    try:
        oracle = merged(patch)
    except InvalidPatchError:
        return
    before = copy.deepcopy(pod)
    assert outcome(planned(strategic_merge(patch)), pod) == outcome(oracle, pod)
    assert pod == before


@pytest.mark.parametrize(
    ("pod", "patch"),
    [
        # where a step's path leads nowhere, the general merge makes what merging the whole would
        ({}, {"spec": {"nodeSelector": {"a": None}}}),
        ({}, {"metadata": {"labels": {}}, "spec": {"hostIPC": None}}),
        ({"spec": "text"}, {"spec": {"nodeSelector": {"a": "1"}, "hostIPC": True}}),
        ({"spec": None}, {"spec": {"containers": [{"name": "a"}]}}),
        ({"spec": {"nodeSelector": ["a"]}}, {"spec": {"nodeSelector": {"a": "1"}}}),
        # repeated and missing merge keys: Kubernetes' order of them, by the general merge
        (
            {"spec": {"containers": [{"name": "a"}, {"name": "b"}, {"name": "a", "image": "2"}]}},
            {"spec": {"containers": [{"name": "b", "image": "1"}]}},
        ),
        (
            {"spec": {"containers": [{"image": "x"}, {"name": "b"}, {"image": "y"}]}},
            {"spec": {"containers": [{"name": "c"}, {"name": "b", "image": "1"}]}},
        ),
        # new elements and a new order
        (
            {"spec": {"containers": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}},
            {"spec": {"containers": [{"name": "c", "image": "1"}, {"name": "d"}, {"name": "a"}]}},
        ),
        (
            {"spec": {"containers": [{"name": "a", "env": [{"name": "X", "value": "1"}]}]}},
            {
                "spec": {
                    "containers": [
                        {
                            "name": "a",
                            "env": [{"name": "Y", "value": "2"}, {"name": "X", "value": None}],
                        }
                    ]
                }
            },
        ),
        # a list holding something else than maps
        ({"spec": {"containers": [{"name": "a"}, "b"]}}, {"spec": {"containers": [{"name": "a"}]}}),
    ],
)
def test_strategic_plan_equals_the_general_merge_where_paths_surprise(pod: Any, patch: Any) -> None:
    before = copy.deepcopy(pod)
    assert outcome(planned(strategic_merge(patch)), pod) == outcome(merged(patch), pod)
    assert pod == before


def test_a_merge_key_of_a_string_subclass_is_set_as_a_string() -> None:
    class Name(str):
        pass

    pod = {"spec": {"containers": [{"name": Name("a"), "image": "1"}]}}
    patch = {"spec": {"containers": [{"name": "a", "image": "2"}]}}
    result = planned(strategic_merge(patch))(pod)
    assert type(result["spec"]["containers"][0]["name"]) is str
    assert outcome(planned(strategic_merge(patch)), pod) == outcome(merged(patch), pod)


def test_maps_that_make_keys_on_lookup_are_left_unchanged() -> None:
    element: defaultdict[str, Any] = defaultdict(str, {"image": "1"})
    pod = {"spec": {"containers": [element]}}
    planned(strategic_merge({"spec": {"containers": [{"name": "a"}]}}))(pod)
    assert dict(element) == {"image": "1"}


def test_strategic_plan_is_path_steps_at_the_patch_maps() -> None:
    patch = {
        "metadata": {"labels": {"a": "1"}, "annotations": {"b": "2"}},
        "spec": {
            "nodeSelector": {"gpu": "a100"},
            "hostIPC": True,
            "containers": [{"name": "t", "image": "2"}],
            "securityContext": {},
        },
    }
    plan = strategic_merge(patch).compiled()
    assert [str(step.path) for step in plan.steps] == [
        "metadata.labels",
        "metadata.annotations",
        "spec.nodeSelector",
        "spec",
    ]
    assert all(isinstance(step, PathEdit) and step._compiled is not None for step in plan.steps[:3])


@pytest.mark.parametrize("compiled", [False, True])
def test_strategic_errors_in_a_chain_name_the_patch_once(compiled: bool) -> None:
    pod = {"spec": {"containers": [{"name": "a"}, "b"]}}
    patch = strategic_merge({"spec": {"containers": [{"name": "a", "image": "1"}]}})
    overlay = chain(upsert("spec.hostIPC", True), planned(patch) if compiled else patch)
    with pytest.raises(InvalidPatchError) as caught:
        overlay(pod)
    assert str(caught.value) == (
        "strategic_merge(): patch: the elements of Pod.spec.containers are not all of one kind: "
        "map, str [in step 2 of 2: strategic_merge({'spec': {'containers': [{'name': 'a', "
        "'image': '1'}]}})]"
    )


def test_a_chain_may_edit_in_place_what_the_plan_made_never_the_pod() -> None:
    pod = {"spec": {"containers": [{"name": "a", "env": [{"name": "X"}]}]}}
    before = copy.deepcopy(pod)
    first = planned(
        strategic_merge({"spec": {"containers": [{"name": "a", "env": [{"name": "Y"}]}]}})
    )
    second = planned(
        strategic_merge({"spec": {"containers": [{"name": "a", "env": [{"name": "Z"}]}]}})
    )
    assert chain(first, second)(pod) == second(first(pod))
    assert pod == before


def test_a_patch_is_compiled_when_applied_again() -> None:
    # built for one call, a patch is applied once: compiling it would cost more than it saves
    json = json_patch([{"op": "add", "path": "/spec/applied-again", "value": 1}])
    strategic = strategic_merge({"spec": {"applied-again": 1}})
    for patch in (json, strategic):
        pod = {"spec": {}}
        assert patch(pod) == {"spec": {"applied-again": 1}}
        assert patch._plan in (None, MISSING)
        assert patch(pod) == {"spec": {"applied-again": 1}}
        assert isinstance(patch._plan, PathEdit)


# --- strategic patches built once per distinct patch --------------------------------------------------------


def test_equal_strategic_patches_are_built_once() -> None:
    patch = {"spec": {"containers": [{"name": "t", "image": "2"}]}}
    assert strategic_merge(patch) is strategic_merge(copy.deepcopy(patch))
    assert strategic_merge(patch) is not strategic_merge(patch, kind="PodSpec")


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}),  # new keys are added in the patch's order
        ({"a": 1}, {"a": True}),
        ({"a": 1}, {"a": 1.0}),
        ({"a": 0.0}, {"a": -0.0}),
    ],
)
def test_patches_equal_but_written_otherwise_are_built_apart(first: Any, second: Any) -> None:
    one, other = strategic_merge({"spec": first}), strategic_merge({"spec": second})
    assert one is not other
    assert repr(one({"spec": {}})) == repr({"spec": first})
    assert repr(other({"spec": {}})) == repr({"spec": second})


def test_a_patch_built_once_survives_pickling() -> None:
    patch = strategic_merge({"spec": {"containers": [{"name": "t", "image": "2"}]}}, kind="Pod")
    copied = pickle.loads(pickle.dumps(patch))
    pod = {"spec": {"containers": [{"name": "t", "image": "1"}]}}
    assert copied == patch and copied(pod) == patch(pod)


def test_errors_are_raised_on_every_call_not_kept() -> None:
    for _ in range(2):
        with pytest.raises(InvalidPatchError, match="directives are"):
            strategic_merge({"spec": {"$patch": "merg"}})
        with pytest.raises(PathError):
            json_patch([{"op": "remove", "path": "/nope"}])({})
