"""RFC 6902 JSON Patch: the case table, kubectl's agreement with it, errors and laws."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import jsonpatch
import jsonpointer
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from combinators import PathError, TransformError, TypeClashError
from tests.kubectl import kubectl_patch, needs_kubectl
from transforms.forms.patches import InvalidPatchError, PatchTestFailed, json_patch

TABLE = yaml.load(  # libyaml where PyYAML has it: the table is read as each worker collects
    (Path(__file__).parent / "kubectl_cases" / "json_patch.yaml").read_text(),
    getattr(yaml, "CSafeLoader", yaml.SafeLoader),
)
CASES = TABLE["cases"]
ERRORS = {
    "PathError": PathError,
    "PatchTestFailed": PatchTestFailed,
    "TypeClashError": TypeClashError,
}


def base_of(case: dict[str, Any]) -> Any:
    return copy.deepcopy(TABLE["bases"][case["base"]])


def test_the_table_is_large_enough() -> None:
    assert len(CASES) >= 10
    assert len({case["name"] for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_case(case: dict[str, Any]) -> None:
    base = base_of(case)
    before = copy.deepcopy(base)
    overlay = json_patch(case["patch"])
    if "error" in case:
        with pytest.raises(ERRORS[case["error"]]):
            overlay(base)
    else:
        assert overlay(base) == case["expected"]
    assert base == before


@needs_kubectl
@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_kubectl_gives_the_expected_result(case: dict[str, Any]) -> None:
    code, out = kubectl_patch(base_of(case), case["patch"], "json")
    if "error" in case:
        assert code != 0
    else:
        assert code == 0, out
        assert out == case["expected"]


POD = {"metadata": {"labels": {"app": "x"}}, "spec": {"tolerations": [{"key": "a"}]}}


def test_test_failure_names_index_op_pointer_and_what_was_there() -> None:
    overlay = json_patch(
        [
            {"op": "add", "path": "/spec/hostIPC", "value": True},
            {"op": "test", "path": "/metadata/labels/app", "value": "y"},
        ]
    )
    with pytest.raises(PatchTestFailed) as caught:
        overlay(POD)
    err = caught.value
    assert isinstance(err, AssertionError)
    assert (err.index, err.pointer, err.expected, err.found) == (
        1,
        "/metadata/labels/app",
        "y",
        "x",
    )
    assert str(err) == "json_patch op 1 (test '/metadata/labels/app'): expected 'y', found 'x'"


def test_missing_key_lists_the_keys_present() -> None:
    with pytest.raises(
        PathError,
        match=r"op 0 \(replace '/metadata/labls/app'\): no key 'labls'"
        r" at /metadata; keys present: labels",
    ):
        json_patch([{"op": "replace", "path": "/metadata/labls/app", "value": 1}])(POD)


def test_index_out_of_range_says_how_long_the_list_is() -> None:
    with pytest.raises(
        PathError, match="index 3 is out of range at /spec/tolerations; the list has 1 element"
    ):
        json_patch([{"op": "remove", "path": "/spec/tolerations/3"}])(POD)


def test_descending_into_a_scalar_is_a_type_clash() -> None:
    with pytest.raises(
        TypeClashError, match=r"cannot add 'x' in a string \('x'\) at /metadata/labels/app"
    ):
        json_patch([{"op": "add", "path": "/metadata/labels/app/x", "value": 1}])(POD)


@pytest.mark.parametrize(
    ("ops", "message"),
    [
        ([{"op": "ad", "path": "/a"}], "op 0: unknown op 'ad'"),
        ([{"path": "/a"}], "op 0: no 'op' field"),
        (
            [{"op": "test", "path": "/a", "value": 1}, {"op": "add", "path": "/a"}],
            "op 1 \\(add\\): missing field 'value'",
        ),
        ([{"op": "move", "path": "/a"}], "op 0 \\(move\\): missing field 'from'"),
        ([{"op": "remove", "path": "a"}], "starts with '/'"),
        ([{"op": "remove", "path": "/a~2"}], "bad escape"),
        ([{"op": "move", "from": "/a", "path": "/a/b"}], "into one of its own children"),
        ("add", "a list of operations"),
    ],
)
def test_malformed_ops_are_rejected_when_built(ops: Any, message: str) -> None:
    with pytest.raises(InvalidPatchError, match=message):
        json_patch(ops)


def test_value_semantics_and_repr() -> None:
    ops = [{"op": "add", "path": "/a", "value": [1]}]
    assert json_patch(ops) == json_patch(copy.deepcopy(ops))
    assert hash(json_patch(ops)) == hash(json_patch(copy.deepcopy(ops)))
    assert repr(json_patch(ops)) == "json_patch([{'op': 'add', 'path': '/a', 'value': [1]}])"


def test_structural_sharing_and_no_op_identity() -> None:
    new = json_patch([{"op": "add", "path": "/spec/hostIPC", "value": True}])(POD)
    assert new["metadata"] is POD["metadata"]
    assert new["spec"]["tolerations"] is POD["spec"]["tolerations"]
    same = json_patch(
        [
            {"op": "replace", "path": "/metadata/labels/app", "value": "x"},
            {"op": "test", "path": "/spec", "value": POD["spec"]},
        ]
    )
    assert same(POD) is POD


def test_copied_values_are_independent() -> None:
    new = json_patch(
        [
            {"op": "copy", "from": "/spec/tolerations", "path": "/spec/other"},
            {"op": "add", "path": "/spec/other/0/effect", "value": "NoSchedule"},
        ]
    )(POD)
    assert new["spec"]["tolerations"] == [{"key": "a"}]
    assert new["spec"]["other"] == [{"key": "a", "effect": "NoSchedule"}]


def test_persistent_documents() -> None:
    from pyrsistent import freeze, thaw

    doc = freeze(POD)
    new = json_patch([{"op": "add", "path": "/spec/tolerations/-", "value": {"key": "b"}}])(doc)
    assert thaw(new)["spec"]["tolerations"] == [{"key": "a"}, {"key": "b"}]
    assert thaw(doc) == POD


# --- laws ---------------------------------------------------------------------------------

KEYS = st.sampled_from(["a", "b", "a/b", "m~n", "0", "1"])
SCALARS = st.one_of(st.none(), st.integers(-3, 3), st.sampled_from(["x", "y"]))
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)),
    max_leaves=8,
)
DOCS = st.dictionaries(KEYS, VALUES, max_size=4)


def pointers(doc: Any, prefix: str = "") -> list[str]:
    """Every pointer into ``doc``, plus some that name new places and a few bad ones."""
    found = [prefix + "/zz"]
    if isinstance(doc, dict):
        for key, value in doc.items():
            here = prefix + "/" + key.replace("~", "~0").replace("/", "~1")
            found += [here, *pointers(value, here)]
    elif isinstance(doc, list):
        found += [prefix + "/-", prefix + f"/{len(doc)}", prefix + f"/{len(doc) + 1}"]
        for index, value in enumerate(doc):
            found += [prefix + f"/{index}", *pointers(value, prefix + f"/{index}")]
    return found


@st.composite
def docs_and_ops(draw: st.DrawFn) -> tuple[Any, list[dict[str, Any]]]:
    doc = draw(DOCS)
    places = st.sampled_from(pointers(doc))
    ops = []
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["add", "remove", "replace", "move", "copy", "test"]))
        entry: dict[str, Any] = {"op": op, "path": draw(places)}
        if op in ("add", "replace", "test"):
            entry["value"] = draw(VALUES)
        if op in ("move", "copy"):
            entry["from"] = draw(places)
        ops.append(entry)
    return doc, ops


def reference(doc: Any, ops: list[dict[str, Any]]) -> tuple[bool, Any]:
    try:
        return True, jsonpatch.apply_patch(copy.deepcopy(doc), copy.deepcopy(ops))
    except (
        jsonpatch.JsonPatchException,
        jsonpointer.JsonPointerException,
        KeyError,
        IndexError,
        TypeError,
    ):
        return False, None


def ours(doc: Any, ops: list[dict[str, Any]]) -> tuple[bool, Any]:
    try:
        return True, json_patch(ops)(doc)
    except TransformError:
        return False, None


@given(docs_and_ops())
def test_law_agrees_with_the_jsonpatch_library(case: tuple[Any, list[dict[str, Any]]]) -> None:
    doc, ops = case
    assert ours(doc, ops) == reference(doc, ops)


@given(docs_and_ops())
def test_law_inputs_are_unmodified(case: tuple[Any, list[dict[str, Any]]]) -> None:
    doc, ops = case
    doc_before, ops_before = copy.deepcopy(doc), copy.deepcopy(ops)
    ours(doc, ops)
    assert doc == doc_before
    assert ops == ops_before


@given(DOCS, st.data())
def test_law_tests_and_restatements_return_the_same_document(doc: Any, data: st.DataObject) -> None:
    place = data.draw(
        st.sampled_from([p for p in pointers(doc) if not p.endswith(("zz", "-"))] or ["/zz"])
    )
    ok, value = reference(doc, [{"op": "copy", "from": place, "path": "/__probe__"}])
    if ok:
        found = value["__probe__"]
        overlay = json_patch(
            [
                {"op": "test", "path": place, "value": found},
                {"op": "replace", "path": place, "value": copy.deepcopy(found)},
            ]
        )
        assert overlay(doc) is doc


def test_replace_of_a_missing_key_says_add_creates_it() -> None:
    # RFC 6902 refuses it (kubectl adds the key): the error says which op does
    with pytest.raises(
        PathError,
        match=re.escape(
            "no key 'hostIPC' at /spec ('replace' needs the key to be there: 'add' creates it)"
        ),
    ):
        json_patch([{"op": "replace", "path": "/spec/hostIPC", "value": True}])(
            {"spec": {"containers": []}}
        )
