"""Errors: their classes, structured fields, messages, and where compositions say they happened."""

from __future__ import annotations

import pickle
import re
from typing import Any

import pytest

from combinators import (
    ArgumentTypeError,
    ExpectationError,
    PathError,
    StepError,
    TransformError,
    TypeClashError,
    append_at,
    chain,
    compose,
    expect,
    for_each,
    get_at,
    insert_at,
    merge_by,
    path,
    remove_at,
    update_at,
    upsert,
    when,
)


def pod() -> dict[str, Any]:
    return {
        "spec": {
            "containers": [
                {"name": "trainer-0", "image": "x"},
                {"name": "sidecar", "image": "envoy"},
            ],
            "nodeSelector": {"zone": "a"},
        }
    }


@pytest.mark.parametrize(
    "make",
    [
        lambda: get_at(pod(), "spec.containers[name=trainr].image"),
        lambda: upsert("spec.containers[name=trainr].image", "y")(pod()),
        lambda: remove_at("spec.containers[name=trainr].image", missing_ok=False)(pod()),
        lambda: update_at("spec.containers[name=trainr].image", str.upper)(pod()),
    ],
)
def test_path_error_names_the_part_and_the_near_misses(make: Any) -> None:
    with pytest.raises(PathError) as caught:
        make()
    err = caught.value
    assert isinstance(err, LookupError) and isinstance(err, TransformError)
    assert err.path == path("spec.containers[name=trainr].image")
    assert err.part_index == 2
    assert err.near_misses == ("trainer-0",)
    assert err.present == ("trainer-0", "sidecar")
    text = str(err)
    assert text.startswith("no element [name=trainr] in spec.containers")
    assert "did you mean trainer-0?" in text
    assert text.endswith("names present: trainer-0, sidecar")


def test_path_error_for_a_missing_key() -> None:
    with pytest.raises(PathError) as caught:
        get_at(pod(), "spec.nodeSelectr.zone")
    err = caught.value
    assert (err.path, err.part_index, err.near_misses) == (
        path("spec.nodeSelectr.zone"),
        1,
        ("nodeSelector",),
    )
    assert str(err) == (
        "no key 'nodeSelectr' in spec (part 2 of spec.nodeSelectr.zone); "
        "did you mean nodeSelector?; present: containers, nodeSelector"
    )


def test_path_error_for_an_index_out_of_range() -> None:
    with pytest.raises(PathError) as caught:
        update_at("spec.containers[5].image", str.upper)(pod())
    assert caught.value.part_index == 2
    assert "index 5 out of range in spec.containers (it has 2 elements)" in str(caught.value)


def test_path_error_for_an_insert_anchor_that_matches_nothing() -> None:
    with pytest.raises(PathError) as caught:
        insert_at("spec.containers", {"name": "x"}, before="name=sidecr")(pod())
    err = caught.value
    assert err.path == path("spec.containers[name=sidecr]")
    assert err.part_index == 2
    assert err.near_misses == ("sidecar",)


def test_path_error_is_picklable_with_its_fields() -> None:
    with pytest.raises(PathError) as caught:
        get_at(pod(), "spec.containers[name=trainr]")
    copy = pickle.loads(pickle.dumps(caught.value))
    assert type(copy) is PathError
    assert (copy.path, copy.part_index, copy.near_misses, str(copy)) == (
        caught.value.path,
        caught.value.part_index,
        caught.value.near_misses,
        str(caught.value),
    )


def test_type_clash_appending_to_a_map() -> None:
    with pytest.raises(TypeClashError) as caught:
        append_at("spec.nodeSelector", {"gpu": "a100"})(pod())
    err = caught.value
    assert isinstance(err, TypeError) and isinstance(err, TransformError)
    assert (err.expected, err.found) == ("a list", "a map")
    assert err.path == path("spec.nodeSelector")
    assert err.part_index == 1
    assert "expected a list, found a map" in str(err)


@pytest.mark.parametrize(
    "transform",
    [
        merge_by("spec.nodeSelector", [{"name": "x"}]),
        upsert("spec.nodeSelector.zone.deep", 1),
        upsert("spec.nodeSelector[0]", 1),
        for_each("spec.nodeSelector[*]", upsert("x", 1)),
    ],
)
def test_type_clash_where_the_kind_is_wrong(transform: Any) -> None:
    with pytest.raises(TypeClashError):
        transform(pod())


def test_type_clash_for_a_new_element_that_cannot_match_its_selector() -> None:
    with pytest.raises(TypeClashError) as caught:
        upsert("spec.containers[name=x]", "not a map")(pod())
    assert caught.value.part_index == 2


@pytest.mark.parametrize(
    ("count", "wanted"),
    [
        (1, "expected 1 match for"),
        (3, "expected 3 matches for"),
        ("3+", "expected at least 3 matches for"),
        (lambda n: n > 5, "expected a count satisfying"),
    ],
)
def test_expectation_error(count: Any, wanted: str) -> None:
    with pytest.raises(ExpectationError) as caught:
        expect("spec.containers[*]", count)(pod())
    err = caught.value
    assert isinstance(err, AssertionError) and isinstance(err, TransformError)
    assert err.found == 2
    assert err.path == path("spec.containers[*]")
    assert wanted in str(err) and str(err).endswith("found 2")


def test_expectation_error_names_what_is_present() -> None:
    with pytest.raises(ExpectationError) as caught:
        expect("spec.containers[name=trainr]")(pod())
    assert caught.value.found == 0
    assert caught.value.present == ("trainer-0", "sidecar")
    assert caught.value.near_misses == ("trainer-0",)
    assert str(caught.value) == (
        "expected 1 match for spec.containers[name=trainr], found 0; "
        "did you mean trainer-0?; names present: trainer-0, sidecar"
    )


def test_expectation_error_where_the_parent_is_not_a_list() -> None:
    with pytest.raises(ExpectationError) as caught:
        expect("spec.nodeSelector[name=x]")(pod())
    assert caught.value.present == ()
    assert str(caught.value).endswith("found 0; spec.nodeSelector holds a map, not a list")


@pytest.mark.parametrize(
    ("doc", "said"),
    [
        ({"spec": {"containers": "oops"}}, "; spec.containers holds a string ('oops'), not a list"),
        ({"spec": None}, "; spec holds null, not a map"),
        ([{"spec": {}}], "; the document holds a list, not a map"),
        ({"spec": {"containers": []}}, ""),  # all of the right kind: nothing to add
    ],
)
def test_expectation_error_says_where_a_value_of_the_wrong_kind_stopped_the_path(
    doc: Any, said: str
) -> None:
    with pytest.raises(ExpectationError) as caught:
        expect("spec.containers[0]")(doc)
    assert str(caught.value) == f"expected 1 match for spec.containers[0], found 0{said}"


def test_expect_rejects_counts_it_cannot_read() -> None:
    with pytest.raises(ValueError):
        expect("a", -1)
    with pytest.raises(ValueError):
        expect("a", "one")
    with pytest.raises(TypeError):
        expect("a", True)


def test_step_error_wraps_a_failing_function_and_names_the_step() -> None:
    def explode(doc: Any) -> Any:
        raise KeyError("boom")

    transform = chain(upsert("a", 1), explode, upsert("b", 2))
    with pytest.raises(StepError) as caught:
        transform({})
    err = caught.value
    assert isinstance(err.cause, KeyError) and err.__cause__ is err.cause
    assert err.steps == (
        "step 2 of 3: test_step_error_wraps_a_failing_function_and_names_the_step.<locals>.explode",
    )
    assert str(err).startswith(
        "test_step_error_wraps_a_failing_function_and_names_the_step"
        ".<locals>.explode raised KeyError: 'boom'"
    )
    assert "[in step 2 of 3: " in str(err)


def test_step_error_for_a_lambda() -> None:
    with pytest.raises(StepError) as caught:
        compose(lambda doc: doc["missing"], upsert("a", 1))({})
    assert "<lambda> raised KeyError" in str(caught.value)
    assert caught.value.steps[0].startswith("step 2 of 2: ")


def test_errors_inside_a_composition_name_the_step() -> None:
    transform = chain(upsert("a", 1), remove_at("b", missing_ok=False), upsert("c", 2))
    with pytest.raises(PathError) as caught:
        transform({})
    err = caught.value
    assert err.steps == ("step 2 of 3: remove_at('b', missing_ok=False)",)
    assert str(err).endswith("[in step 2 of 3: remove_at('b', missing_ok=False)]")
    assert err.path == path("b")


def test_nested_steps_are_named_outermost_first() -> None:
    inner = chain(upsert("x", 1), expect("y"))
    transform = chain(upsert("a", 1), when("a", inner))
    with pytest.raises(ExpectationError) as caught:
        transform({})
    assert caught.value.steps == (
        "step 2 of 2: when('a', chain(upsert('x', 1), expect('y')))",
        "step 2 of 2: expect('y')",
    )
    assert " > " in str(caught.value)


def test_a_failure_leaves_the_input_unchanged() -> None:
    doc = pod()
    transform = chain(upsert("spec.nodeSelector.gpu", "a100"), append_at("spec.nodeSelector", 1))
    with pytest.raises(TypeClashError):
        transform(doc)
    assert doc == pod()


def test_a_failing_update_function_or_predicate_comes_out_as_a_step_error() -> None:
    from combinators import StepError, identity, update_at, when

    def broken(value: object) -> object:
        raise KeyError("nope")

    with pytest.raises(StepError) as caught:
        update_at("a", broken)({"a": 1})
    assert "broken raised KeyError" in str(caught.value)
    assert isinstance(caught.value.cause, KeyError)
    with pytest.raises(StepError, match="broken raised KeyError"):
        when(broken, identity)({"a": 1})  # type: ignore[arg-type]


@pytest.mark.parametrize("reader", ["select", "get_at", "exists"])
def test_a_reader_given_its_arguments_swapped_says_the_document_comes_first(reader: str) -> None:
    import combinators

    with pytest.raises(
        ArgumentTypeError, match=re.escape(f"(the document comes first: {reader}(doc, 'spec.x'))")
    ):
        getattr(combinators, reader)("spec.x", {"spec": {"x": 1}})
