"""podfold's partial-pod overlays against upstream TorchX's ``apply_overlay``.

``tests/data/upstream_cases.json`` holds every example found in upstream's
overlay documentation and tests, plus extra cases for each operator, nesting,
type clashes and tuples. Each case records what upstream's in-place
``apply_overlay`` left in a deep copy of the base, or the exception it raised.
Tuples are written ``{"__tuple__": [...]}``.

Where podfold differs on purpose (see :mod:`transforms.forms.partial`), a case
names the difference, and the test checks the documented behaviour instead.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from combinators import TypeClashError
from transforms import as_transform, loads_overlay

DATA = Path(__file__).parent / "data" / "upstream_cases.json"
CASES: list[dict[str, Any]] = json.loads(DATA.read_text(encoding="utf-8"))["cases"]
DIFFERENCES = {"operators_resolved_in_new_map", "tuple_becomes_list"}


def decode(value: Any) -> Any:
    """JSON back to Python, ``{"__tuple__": [...]}`` back to a tuple."""
    if isinstance(value, dict):
        if set(value) == {"__tuple__"}:
            return tuple(decode(item) for item in value["__tuple__"])
        return {key: decode(item) for key, item in value.items()}
    if isinstance(value, list):
        return [decode(item) for item in value]
    return value


def tuples_as_lists(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: tuples_as_lists(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [tuples_as_lists(item) for item in value]
    return value


def resolve_operators(value: Any) -> Any:
    """What podfold makes of a new map holding operator keys: the keys resolved."""
    if not isinstance(value, dict):
        return value
    result: dict[str, Any] = {}
    for key, item in value.items():
        if key.startswith("__del__:"):
            result.pop(key[len("__del__:") :], None)
        elif key.startswith("__put__:"):
            result[key[len("__put__:") :]] = item
        elif key.startswith("__join__:"):
            result[key[len("__join__:") :].split(":", 1)[0]] = item
        else:
            result[key] = resolve_operators(item)
    return result


def case_id(case: dict[str, Any]) -> str:
    return str(case["name"])


RESULT_CASES = [case for case in CASES if "result" in case]
ERROR_CASES = [case for case in CASES if "error" in case]
CLASH_CASES = [case for case in ERROR_CASES if "type mismatch" in case["message"]]


def test_the_table_covers_upstream_docs_tests_and_extras() -> None:
    sources = {case["source"].split(":")[0] for case in CASES}
    assert sources == {"docs", "tests", "extra"}
    assert len(CASES) >= 90
    assert {case["difference"] for case in CASES if "difference" in case} == DIFFERENCES
    assert all("difference" not in case for case in CASES if case["source"] != "extra")


@pytest.mark.parametrize("case", RESULT_CASES, ids=case_id)
def test_same_result_as_upstream(case: dict[str, Any]) -> None:
    base, partial = decode(case["base"]), decode(case["overlay"])
    base_before, partial_before = copy.deepcopy(base), copy.deepcopy(partial)
    result = as_transform(partial)(base)
    wanted = decode(case["result"])
    difference = case.get("difference")
    if difference == "tuple_becomes_list":
        assert result != wanted
        assert result == tuples_as_lists(wanted)
    elif difference == "operators_resolved_in_new_map":
        assert result != wanted
        assert result == resolve_operators(wanted)
    else:
        assert difference is None
        assert result == wanted
    # ours never mutates anything, and a tuple never leaks into the pod
    assert base == base_before and partial == partial_before
    assert result == tuples_as_lists(result)


@pytest.mark.parametrize("case", ERROR_CASES, ids=case_id)
def test_refused_where_upstream_raises(case: dict[str, Any]) -> None:
    builtin = {"TypeError": TypeError, "ValueError": ValueError}[case["error"]]
    base, partial = decode(case["base"]), decode(case["overlay"])
    base_before = copy.deepcopy(base)
    with pytest.raises(builtin):
        as_transform(partial)(base)
    assert base == base_before


@pytest.mark.parametrize("case", CLASH_CASES, ids=case_id)
def test_type_clash_names_the_path(case: dict[str, Any]) -> None:
    base, partial = decode(case["base"]), decode(case["overlay"])
    with pytest.raises(TypeClashError) as caught:
        as_transform(partial)(base)
    # upstream names the last key only; ours gives the whole path
    last_key = case["message"].split("`")[1]
    assert caught.value.path is not None
    assert str(caught.value.path).split(".")[-1] == last_key
    assert str(caught.value.path) in str(caught.value)
    assert isinstance(caught.value, TypeError)


def test_clash_path_is_the_full_path() -> None:
    with pytest.raises(TypeClashError) as caught:
        as_transform({"spec": {"tolerations": {"key": "b"}}})({"spec": {"tolerations": []}})
    assert str(caught.value.path) == "spec.tolerations"
    assert (caught.value.expected, caught.value.found) == ("a map", "a list")


@pytest.mark.parametrize("case", [case for case in CASES if "yaml" in case], ids=case_id)
def test_upstream_yaml_file_loads_to_the_same_result(case: dict[str, Any]) -> None:
    base = decode(case["base"])
    assert loads_overlay(case["yaml"])(base) == decode(case["result"])


def test_torchx_container_gives_the_same_result() -> None:
    for case in RESULT_CASES:
        if case.get("difference"):
            continue
        container = {"__torchx_overlays__": True, "V1Pod": decode(case["overlay"])}
        assert as_transform(container)(decode(case["base"])) == decode(case["result"])
