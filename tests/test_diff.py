"""One diff: conflicts, explain, footprints and path policies name every change alike."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from combinators import MISSING, append_at, path, replace_at, select, upsert
from combinators.conflicts import ConflictError, checked_fold, writes
from combinators.data import strict_equal
from combinators.diff import Change, Move, diff, element_name
from transforms.analysis.explanation import changes_between, explain
from transforms.analysis.footprint import between, outside


def _paths(found: list[Any]) -> list[str]:
    return [str(change.path) for change in found]


# ---------------------------------------------------------------- names that read like YAML's


def test_an_element_named_true_is_named_by_its_name_in_every_reading() -> None:
    # the first element added to an empty list is named as every later one is, by its
    # name; "true" is a string, so the path quotes it and reads back as the string
    before = {"l": []}
    after = {"l": [{"name": "true", "v": 1}]}
    assert _paths(writes(before, after)) == ['l[name="true"]']
    assert _paths(changes_between(before, after)) == ['l[name="true"]']
    assert _paths(between(before, after)) == ['l[name="true"]']
    (found,) = diff(before, after)
    assert select(after, path(str(found.path))) == [{"name": "true", "v": 1}]


def test_a_step_changing_what_another_added_by_name_to_an_empty_list_conflicts() -> None:
    # step 1's write was recorded at l[0], step 2's at l[name="true"].v: they never met
    with pytest.raises(ConflictError) as caught:
        checked_fold(
            [append_at("l", {"name": "true", "v": 1}), upsert('l[name="true"].v', 2)],
            {"l": []},
            mode="error",
            labels=["a.yaml:1", "b.yaml:1"],
        )
    (conflict,) = caught.value.conflicts
    assert (str(conflict.path), conflict.first_value, conflict.second_value) == (
        'l[name="true"].v',
        1,
        2,
    )


def test_a_boolean_name_names_no_element() -> None:
    # YAML reads an unquoted `name: true` as a boolean, which no Kubernetes name is
    before = {"l": [{"name": True, "v": 1}]}
    after = {"l": [{"name": True, "v": 2}]}
    assert _paths(writes(before, after)) == _paths(changes_between(before, after)) == ["l[0].v"]
    assert element_name("l", {"name": True}) is None
    assert element_name("l", {"name": "false"}) == path('x[name="false"]').parts[-1]


# ---------------------------------------------------------------- a reorder is what it is


A, B = {"name": "a", "v": 1}, {"name": "b", "v": 2}


def test_swapped_named_elements_are_one_reorder_in_every_reading() -> None:
    before, after = {"l": [A, B]}, {"l": [B, A]}
    expected = [Change(path("l"), [A, B], [B, A], reordered=True)]
    assert diff(before, after) == expected
    assert changes_between(before, after) == expected
    assert between(before, after) == expected
    assert str(expected[0]).startswith("l: reordered: [{'name': 'a'")
    assert writes(before, after) == []  # a move writes no value


def test_what_changed_inside_a_moved_element_is_named_after_the_reorder() -> None:
    before, after = {"l": [A, B]}, {"l": [B, {"name": "a", "v": 3}]}
    assert _paths(changes_between(before, after)) == ["l", "l[name=a].v"]
    assert changes_between(before, after)[0].reordered
    assert _paths(writes(before, after)) == ["l[name=a].v"]


def test_elements_added_and_removed_without_a_move_are_no_reorder() -> None:
    before, after = {"l": [A, B]}, {"l": [{"name": "c"}, B]}
    assert [(str(c.path), c.reordered) for c in diff(before, after)] == [
        ("l[name=a]", False),
        ("l[name=c]", False),
    ]


def test_a_step_reordering_a_list_another_wrote_whole_conflicts() -> None:
    with pytest.raises(ConflictError) as caught:
        checked_fold(
            [replace_at("l", [A, B]), replace_at("l", [B, A])],
            {},
            mode="error",
            labels=["s1", "s2"],
        )
    (conflict,) = caught.value.conflicts
    assert (str(conflict.path), conflict.first, conflict.second) == ("l", "s1", "s2")


def test_a_reorder_then_a_change_inside_is_no_conflict_with_the_reorder() -> None:
    # moving the elements wrote no value: changing one afterwards overrides nobody's
    doc = {"l": [A, B]}
    result = checked_fold([replace_at("l", [B, A]), upsert("l[name=a].v", 5)], doc, mode="error")
    assert result == {"l": [B, {"name": "a", "v": 5}]}


def test_a_reorder_outside_the_allowed_paths_is_found_once() -> None:
    before = {"spec": {"containers": [A, B]}}
    after = {"spec": {"containers": [B, A]}}
    found = outside(changes_between(before, after), ["spec.containers[*].env"], before, after)
    assert _paths(found) == ["spec.containers"] and found[0].reordered
    assert outside(changes_between(before, after), ["spec.containers"], before, after) == []


def test_explain_names_a_reorder_of_containers() -> None:
    pod = {"spec": {"containers": [{"name": "a"}, {"name": "b"}]}}
    found = explain(replace_at("spec.containers", [{"name": "b"}, {"name": "a"}]), pod)
    assert [str(change) for change in found.changes] == [
        "spec.containers: reordered: [{'name': 'a'}, {'name': 'b'}] -> [{'name': 'b'}, {'name': 'a'}]"
    ]


# ---------------------------------------------------------------- one engine, by law


_ELEMENT = st.fixed_dictionaries(
    {},
    optional={
        "name": st.sampled_from(["true", "false", True, "a", "b", 1, None]),
        "v": st.sampled_from([1, 2, "x", [1], {"k": 1}]),
    },
)


@st.composite
def _pairs(draw: st.DrawFn) -> tuple[Any, Any]:
    before = draw(st.lists(_ELEMENT, max_size=4))
    after = copy.deepcopy(before)
    for _ in range(draw(st.integers(0, 2))):
        edit = draw(st.sampled_from(["set", "insert", "drop", "shuffle"]))
        if edit == "set" and after:
            after[draw(st.integers(0, len(after) - 1))]["v"] = draw(st.sampled_from([3, "y"]))
        elif edit == "insert":
            after.insert(draw(st.integers(0, len(after))), draw(_ELEMENT))
        elif edit == "drop" and after:
            after.pop(draw(st.integers(0, len(after) - 1)))
        elif edit == "shuffle":
            after = draw(st.permutations(after))
    return {"l": before}, {"l": list(after)}


@settings(max_examples=settings.default.max_examples * 3, deadline=None)
@given(_pairs())
def test_law_every_reading_is_the_one_diff(pair: tuple[Any, Any]) -> None:
    # changes_between == between == diff (with the pod's key table, which names no `l`);
    # writes == diff with the moves followed, less its reorders
    before, after = pair
    assert changes_between(before, after) == between(before, after) == diff(before, after)
    moved: list[Move] = []
    assert writes(before, after) == [c for c in diff(before, after, moves=moved) if not c.reordered]


@settings(max_examples=settings.default.max_examples * 3, deadline=None)
@given(_pairs())
def test_law_each_change_is_what_its_path_reaches(pair: tuple[Any, Any]) -> None:
    # select(before, change.path) == [change.before], and alike after, the path read back
    before, after = pair
    assert bool(diff(before, after)) == (not strict_equal(before, after))
    for change in diff(before, after):
        where = path(str(change.path))
        assert select(before, where) == ([] if change.before is MISSING else [change.before])
        assert select(after, where) == ([] if change.after is MISSING else [change.after])
