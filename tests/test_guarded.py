"""User code is guarded: a function's errors, results and in-place edits.

A function of the caller's (a step, ``for_each``'s function, ``update_at``'s,
a ``when`` predicate, an ``expect`` count) is code podfold does not control:

- what it raises comes out as a ``StepError`` naming it, wherever it runs:
  alone, in a chain, folded, through ``as_transform``, under ``explain``;
- a step that returns anything but a map where the document was a map, or a
  value JSON cannot carry, is a ``StepError`` naming it (and the place);
- it is given a copy, so editing its argument in place never changes the
  caller's document; what it leaves unchanged is shared again;
- what ``for_each`` applies returns a value of the kind it was given (a map
  for a map: a container stays a container); ``update_at``'s may return any.

What it is given and returns stay its own: tests/test_function_ownership.py.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from combinators import (
    StepError,
    chain,
    compose,
    expect,
    fold,
    for_each,
    identity,
    update_at,
    upsert,
    when,
)
from transforms import as_transform
from transforms.analysis import explain


def _pod() -> dict[str, Any]:
    return {
        "metadata": {"name": "trainer-0", "labels": {"app": "x"}},
        "spec": {
            "containers": [{"name": "trainer", "image": "t:1", "args": ["-v"]}],
            "nodeSelector": {"pool": "a"},
        },
    }


def boom(pod: Any) -> Any:
    raise KeyError("nope")


def answers_text(pod: Any) -> Any:
    return "a pod"


def answers_none(pod: Any) -> Any:
    return None


def scribbles(pod: Any) -> Any:
    """Edits its argument in place everywhere it can, and returns it."""
    pod["metadata"]["labels"]["scribbled"] = "yes"
    pod["spec"]["containers"][0]["args"].append("--scribbled")
    pod["spec"]["nodeSelector"].clear()
    return pod


def adds_a_set(pod: Any) -> Any:
    return {**pod, "metadata": {**pod["metadata"], "finalizers": {"a", "b"}}}


Runner = Callable[[Callable[[Any], Any], Any], Any]

RUNNERS: dict[str, Runner] = {
    "fold": lambda fn, pod: fold([fn], pod),
    "chain alone": lambda fn, pod: chain(fn)(pod),
    "compose alone": lambda fn, pod: compose(fn)(pod),
    "in a chain": lambda fn, pod: chain(upsert("metadata.labels.a", "b"), fn)(pod),
    "as_transform": lambda fn, pod: as_transform(fn)(pod),
    "explain": lambda fn, pod: explain(fn, pod),
    "when's branch": lambda fn, pod: when(lambda _: True, fn)(pod),
}


@pytest.mark.parametrize("runner", sorted(RUNNERS))
def test_a_function_that_raises_is_a_step_error_naming_it(runner: str) -> None:
    with pytest.raises(StepError, match=r"boom raised KeyError: 'nope'") as caught:
        RUNNERS[runner](boom, _pod())
    assert isinstance(caught.value.cause, KeyError)
    assert caught.value.__cause__ is caught.value.cause


@pytest.mark.parametrize("runner", sorted(RUNNERS))
@pytest.mark.parametrize(
    ("fn", "found"), [(answers_text, "a string ('a pod')"), (answers_none, "null")]
)
def test_a_step_that_returns_no_map_is_a_step_error_at_the_step(
    runner: str, fn: Any, found: str
) -> None:
    with pytest.raises(
        StepError, match=f"{fn.__name__} returned {found}".replace("(", r"\(").replace(")", r"\)")
    ):
        RUNNERS[runner](fn, _pod())


@pytest.mark.parametrize("runner", sorted(RUNNERS))
def test_a_step_that_returns_what_json_cannot_hold_is_refused_naming_the_place(runner: str) -> None:
    with pytest.raises(
        StepError,
        match=r"adds_a_set returned a document where "
        r"metadata.finalizers is a set",
    ):
        RUNNERS[runner](adds_a_set, _pod())


def test_what_the_caller_gave_is_not_blamed_on_the_function() -> None:
    # a document that held something odd already (a tuple here is a list): passing it on is fine
    pod = {"spec": {"args": ("a", "b")}, "metadata": {"when": object()}}
    assert fold([lambda p: {**p, "kind": "Pod"}], pod)["metadata"] is pod["metadata"]


@pytest.mark.parametrize("runner", sorted(set(RUNNERS) - {"explain"}))
def test_a_function_that_edits_its_argument_in_place_leaves_the_callers_document(
    runner: str,
) -> None:
    pod = _pod()
    before = copy.deepcopy(pod)
    result = RUNNERS[runner](scribbles, pod)
    assert pod == before
    assert result["metadata"]["labels"]["scribbled"] == "yes"
    assert result["spec"]["containers"][0]["args"] == ["-v", "--scribbled"]
    assert result["spec"]["nodeSelector"] == {}


def test_explain_with_a_function_that_edits_in_place_leaves_the_callers_document() -> None:
    pod = _pod()
    before = copy.deepcopy(pod)
    explain(scribbles, pod)
    assert pod == before


def test_for_each_update_at_and_predicates_cannot_hurt_the_caller_either() -> None:
    pod = _pod()
    before = copy.deepcopy(pod)

    def grow(args: Any) -> Any:
        args.append("--more")
        return args

    def nosy(doc: Any) -> bool:
        doc["spec"].clear()
        return True

    assert for_each("spec.containers[*].args", grow)(pod)["spec"]["containers"][0]["args"] == [
        "-v",
        "--more",
    ]
    assert update_at("spec.containers[0].args", grow)(pod)["spec"]["containers"][0]["args"] == [
        "-v",
        "--more",
    ]
    assert when(nosy, upsert("metadata.labels.x", "y"))(pod)["spec"] == pod["spec"]
    assert pod == before


def test_a_function_that_changes_nothing_gives_back_the_very_same_document() -> None:
    pod = _pod()
    assert fold([lambda p: p], pod) is pod
    assert fold([lambda p: copy.deepcopy(p)], pod) is pod
    assert update_at("spec.containers[0].args", list)(pod) is pod


def test_what_a_function_leaves_unchanged_is_shared_with_the_input() -> None:
    pod = _pod()
    result = fold([lambda p: {**p, "metadata": {**p["metadata"], "name": "new"}}], pod)
    assert result["metadata"]["name"] == "new"
    assert result["spec"] is pod["spec"]
    assert result["metadata"]["labels"] is pod["metadata"]["labels"]


def test_for_each_maps_a_value_to_one_of_its_kind_and_update_at_to_any() -> None:
    # for_each gives a function a value inside the document: a map stays a map, and so on
    pod = _pod()
    with pytest.raises(
        StepError,
        match=r"returned a list where it was given a map; .* "
        r"\(in spec.nodeSelector\)",
    ):
        for_each("spec.nodeSelector", lambda selector: [selector])(pod)
    assert for_each("spec.nodeSelector", lambda selector: {"was": selector})(pod)["spec"][
        "nodeSelector"
    ] == {"was": {"pool": "a"}}
    assert update_at("spec.nodeSelector", lambda selector: [selector])(pod)["spec"][
        "nodeSelector"
    ] == [{"pool": "a"}]


def test_when_predicates_and_expect_counts_are_guarded() -> None:
    def picky(pod: Any) -> bool:
        raise ValueError("cannot decide")

    def counting(found: int) -> bool:
        raise ZeroDivisionError("no count")

    with pytest.raises(StepError, match="picky raised ValueError: cannot decide"):
        when(picky, identity)(_pod())
    with pytest.raises(StepError, match="counting raised ZeroDivisionError: no count"):
        expect("spec.containers[*]", counting)(_pod())


def test_update_at_refuses_a_function_result_json_cannot_hold() -> None:
    with pytest.raises(
        StepError,
        match=r"returned a value where \[0\] is a bytes .* \(part 4 of "
        r"spec.containers\[0\].args\)",
    ):
        update_at("spec.containers[0].args", lambda args: [b"-v"])(_pod())


def test_a_function_error_message_is_bounded() -> None:
    def shouts(pod: Any) -> Any:
        raise ValueError("x" * 100_000)

    with pytest.raises(StepError) as caught:
        fold([shouts], _pod())
    assert len(str(caught.value)) < 1_000
