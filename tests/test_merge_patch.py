"""RFC 7396 JSON Merge Patch: the case table, kubectl's agreement with it, and laws."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from tests.kubectl import kubectl_patch, needs_kubectl
from transforms.forms.patches import merge_patch

TABLE = yaml.load(  # libyaml where PyYAML has it: the table is read as each worker collects
    (Path(__file__).parent / "kubectl_cases" / "merge_patch.yaml").read_text(),
    getattr(yaml, "CSafeLoader", yaml.SafeLoader),
)
CASES = TABLE["cases"]


def base_of(case: dict[str, Any]) -> Any:
    return copy.deepcopy(TABLE["bases"][case["base"]])


def test_the_table_is_large_enough() -> None:
    assert len(CASES) >= 8
    assert len({case["name"] for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_case(case: dict[str, Any]) -> None:
    base = base_of(case)
    before = copy.deepcopy(base)
    assert merge_patch(case["patch"])(base) == case["expected"]
    assert base == before


@needs_kubectl
@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_kubectl_gives_the_expected_result(case: dict[str, Any]) -> None:
    code, out = kubectl_patch(base_of(case), case["patch"], "merge")
    assert code == 0, out
    assert out == case["expected"]


def test_value_semantics_and_repr() -> None:
    assert merge_patch({"a": [1]}) == merge_patch({"a": [1]})
    assert hash(merge_patch({"a": [1]})) == hash(merge_patch({"a": [1]}))
    assert repr(merge_patch({"a": None})) == "merge_patch({'a': None})"


def test_structural_sharing() -> None:
    pod = {"metadata": {"labels": {"a": "1"}}, "spec": {"containers": [{"name": "c"}]}}
    new = merge_patch({"metadata": {"labels": {"b": "2"}}})(pod)
    assert new["spec"] is pod["spec"]
    assert merge_patch({"metadata": {"labels": {"a": "1"}}})(pod) is pod


def test_persistent_documents() -> None:
    from pyrsistent import freeze, thaw

    doc = freeze({"a": {"b": 1}})
    assert thaw(merge_patch({"a": {"c": [2]}})(doc)) == {"a": {"b": 1, "c": [2]}}
    assert merge_patch({"a": {"b": 1}})(doc) is doc


# --- laws ---------------------------------------------------------------------------------

KEYS = st.sampled_from(["a", "b", "c"])
SCALARS = st.one_of(st.integers(-2, 2), st.sampled_from(["x", "y"]), st.booleans())
DOCS = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=2), st.dictionaries(KEYS, inner, max_size=3)),
    max_leaves=10,
)
PATCHES = st.recursive(
    st.one_of(SCALARS, st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=2), st.dictionaries(KEYS, inner, max_size=3)),
    max_leaves=10,
)


def naive_merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7396's pseudo-code, on deep copies."""
    if isinstance(patch, dict):
        result = copy.deepcopy(target) if isinstance(target, dict) else {}
        for key, value in patch.items():
            if value is None:
                result.pop(key, None)
            else:
                result[key] = naive_merge_patch(result.get(key), value)
        return result
    return copy.deepcopy(patch)


@given(DOCS, PATCHES)
def test_law_agrees_with_the_naive_oracle(doc: Any, patch: Any) -> None:
    assert merge_patch(patch)(doc) == naive_merge_patch(doc, patch)


@given(DOCS, PATCHES)
def test_law_inputs_are_unmodified(doc: Any, patch: Any) -> None:
    doc_before, patch_before = copy.deepcopy(doc), copy.deepcopy(patch)
    merge_patch(patch)(doc)
    assert doc == doc_before
    assert patch == patch_before


@given(DOCS)
def test_law_the_document_as_its_own_patch_is_a_no_op(doc: Any) -> None:
    if isinstance(doc, dict):
        assert merge_patch(copy.deepcopy(doc))(doc) is doc
        assert merge_patch({})(doc) is doc


@given(DOCS, PATCHES)
def test_law_idempotent(doc: Any, patch: Any) -> None:
    once = merge_patch(patch)(doc)
    assert merge_patch(patch)(once) == once
