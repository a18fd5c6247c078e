"""What belongs to a user's function stays theirs, and what podfold returns stays podfold's.

A function of the caller's (a step of ``chain``, ``compose`` or ``fold``, a
branch of ``when``, what ``for_each`` applies, ``update_at``'s) may keep
what it is given and what it returns, and change either later. So:

- what it is given is a value podfold shares with nothing: neither with the
  caller's document nor with podfold's result;
- what it returns is never changed by podfold (not even to share equal parts
  with the input), and podfold's result shares no map or list with it;
- what ``for_each`` applies returns a value of the kind it was given (a map
  for a map, a list for a list, a scalar for a scalar; anything for null):
  a container replaced by null, a string or a list is refused, naming the
  function, the place and what it returned.

Each holds alike on a composition's first application (step by step) and
once it runs fused (from its second on: see ``combinators.fusion``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from combinators import (
    StepError,
    TransformError,
    chain,
    compose,
    fold,
    for_each,
    identity,
    path,
    update_at,
    upsert,
    when,
)
from combinators.shape import settle
from combinators.transform import Compose


def _pod() -> dict[str, Any]:
    return {
        "metadata": {"name": "trainer-0", "labels": {"app": "x"}},
        "spec": {
            "containers": [
                {
                    "name": "trainer",
                    "image": "t:1",
                    "args": ["-v"],
                    "env": [{"name": "A", "value": "1"}],
                },
                {"name": "sidecar", "image": "s:1", "args": []},
            ],
            "nodeSelector": {"pool": "a"},
        },
    }


def _containers(value: Any) -> Iterator[Any]:
    """Every map and list in ``value``, ``value`` included."""
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _containers(item)
    elif isinstance(value, list):
        yield value
        for item in value:
            yield from _containers(item)


def _layout(value: Any, where: str = "") -> list[tuple[str, int]]:
    """Each container's place and identity: what an edit in place, even to an equal value,
    changes."""
    found = [(where, id(value))] if isinstance(value, (dict, list)) else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _layout(item, f"{where}.{key}")
    elif isinstance(value, list):
        for position, item in enumerate(value):
            found += _layout(item, f"{where}[{position}]")
    return found


def _scribble(value: Any) -> None:
    """Edit every map and list in ``value`` in place."""
    for container in list(_containers(value)):
        if isinstance(container, dict):
            container["scribbled"] = True
        else:
            container.append("scribbled")


def _shared(one: Any, other: Any) -> list[Any]:
    ids = {id(container) for container in _containers(other)}
    return [container for container in _containers(one) if id(container) in ids]


# ------------------------------------------------------------------ the ways a function runs

Runner = Callable[[Callable[[Any], Any], Any], Any]

_LABEL = upsert("metadata.labels.team", "ml")
_SELECTOR = upsert("spec.nodeSelector.zone", "b")


def _fused(*steps: Any) -> Runner:
    """A runner that applies ``chain(*steps, fn, *steps)`` three times, the last fused."""

    def run(fn: Callable[[Any], Any], pod: Any) -> Any:
        composed = chain(*steps, fn, *steps)
        assert isinstance(composed, Compose)
        for _ in range(2):
            composed(copy.deepcopy(pod))
        assert composed._fused and any(fused is not None for fused, _, _ in composed._fused)
        return composed(pod)

    return run


# functions of the whole document
STEPS: dict[str, Runner] = {
    "chain alone": lambda fn, pod: chain(fn)(pod),
    "chain, after a step": lambda fn, pod: chain(_LABEL, fn)(pod),
    "chain, before a step": lambda fn, pod: chain(fn, _LABEL)(pod),
    "compose": lambda fn, pod: compose(_LABEL, fn, _SELECTOR)(pod),
    "fold": lambda fn, pod: fold([fn], pod),
    "fold, between steps": lambda fn, pod: fold([_SELECTOR, fn, _LABEL], pod),
    "when": lambda fn, pod: when(lambda _: True, fn)(pod),
    "when, otherwise": lambda fn, pod: when("spec.missing", identity, fn)(pod),
    "fused": _fused(_LABEL, _SELECTOR),
}

# functions of each container
VALUES: dict[str, Runner] = {
    "for_each": lambda fn, pod: for_each("spec.containers[*]", fn)(pod),
    "for_each of a chain": lambda fn, pod: for_each(
        "spec.containers[*]", chain(fn, upsert("imagePullPolicy", "Always"))
    )(pod),
    "for_each, fused around it": lambda fn, pod: _fused(_LABEL, _SELECTOR)(
        for_each("spec.containers[*]", fn), pod
    ),
    "update_at": lambda fn, pod: update_at("spec.containers[*]", fn)(pod),
}


def _pairs() -> list[tuple[str, str]]:
    return [("step", name) for name in STEPS] + [("value", name) for name in VALUES]


def _runner(kind: str, name: str) -> Runner:
    return STEPS[name] if kind == "step" else VALUES[name]


# ------------------------------------------------------------------ what the function is given


@pytest.mark.parametrize(("kind", "runner"), _pairs())
def test_a_function_that_keeps_its_argument_and_edits_it_later_changes_nothing(
    kind: str, runner: str
) -> None:
    kept: list[Any] = []

    def keeper(given: Any) -> Any:
        kept.append(given)
        given["name" if kind == "value" else "kind"] = "Edited"
        return given

    pod = _pod()
    before = copy.deepcopy(pod)
    result = _runner(kind, runner)(keeper, pod)
    after_call = copy.deepcopy(result)
    assert kept
    for given in kept:
        _scribble(given)
    assert pod == before
    assert result == after_call
    assert "scribbled" not in repr(result)


@pytest.mark.parametrize(("kind", "runner"), _pairs())
def test_what_a_function_is_given_and_gives_back_is_not_in_the_result(
    kind: str, runner: str
) -> None:
    seen: list[Any] = []

    def rebuilds(given: Any) -> Any:
        # a new top, the rest of its argument, changed in place in one place
        new = {**given, "name" if kind == "value" else "kind": "Built"}
        first = next(iter(value for value in given.values() if isinstance(value, (dict, list))))
        if isinstance(first, dict):
            first["touched"] = True
        else:
            first.append("touched")
        seen.extend((given, new))
        return new

    pod = _pod()
    result = _runner(kind, runner)(rebuilds, pod)
    assert seen
    for value in seen:
        assert _shared(result, value) == []


# ------------------------------------------------------------------ what the function returns

SHARED: dict[str, Any] = {}
"""A module-level value a function returns as it is, call after call."""

SHARED_CONTAINER: dict[str, Any] = {}


@pytest.fixture(autouse=True)
def _fresh_shared_values() -> Iterator[None]:
    pod = _pod()
    SHARED.clear()
    # equal to the caller's in part: podfold used to swap those parts for the caller's
    SHARED.update(
        {"metadata": {"name": "shared", "labels": {"app": "x"}}, "spec": copy.deepcopy(pod["spec"])}
    )
    SHARED_CONTAINER.clear()
    SHARED_CONTAINER.update(
        {"name": "trainer", "image": "t:2", "args": ["-v"], "env": [{"name": "A", "value": "1"}]}
    )
    yield


def _returns_shared(kind: str) -> Callable[[Any], Any]:
    if kind == "value":
        return lambda container: SHARED_CONTAINER
    return lambda pod: SHARED


@pytest.mark.parametrize(("kind", "runner"), _pairs())
def test_a_module_level_value_a_function_returns_is_left_as_it_was(kind: str, runner: str) -> None:
    shared = SHARED_CONTAINER if kind == "value" else SHARED
    layout, before = _layout(shared), copy.deepcopy(shared)
    pod = _pod()
    _runner(kind, runner)(_returns_shared(kind), pod)
    assert _layout(shared) == layout  # not even an equal part swapped in
    assert shared == before
    _scribble(pod)  # the caller's pod is the caller's to edit afterwards
    assert shared == before


@pytest.mark.parametrize(("kind", "runner"), _pairs())
def test_editing_the_result_leaves_the_module_level_value_and_vice_versa(
    kind: str, runner: str
) -> None:
    shared = SHARED_CONTAINER if kind == "value" else SHARED
    before = copy.deepcopy(shared)
    result = _runner(kind, runner)(_returns_shared(kind), _pod())
    result_before = copy.deepcopy(result)
    assert _shared(result, shared) == []
    _scribble(result)
    assert shared == before
    _scribble(shared)
    assert "scribbled" not in repr(result_before)
    # each container of the result is its own: one edit shows in one place only
    if kind == "value":
        assert result["spec"]["containers"][0] is not result["spec"]["containers"][1]


@pytest.mark.parametrize(("kind", "runner"), _pairs())
def test_a_result_built_from_the_argument_is_not_rewritten(kind: str, runner: str) -> None:
    returned: list[tuple[Any, Any, list[tuple[str, int]]]] = []

    def builds(given: Any) -> Any:
        if kind == "value":
            new = {**given, "image": "t:2"}
        else:
            new = {"metadata": {**given["metadata"], "name": "built"}, "spec": given["spec"]}
        returned.append((new, copy.deepcopy(new), _layout(new)))
        return new

    pod = _pod()
    result = _runner(kind, runner)(builds, pod)
    assert returned
    for new, copied, layout in returned:
        assert _layout(new) == layout
        assert new == copied
        assert _shared(result, new) == []
    # what it left as it was is the input's, shared as every transform shares it
    if kind == "step" and runner in ("chain alone", "fold", "when"):
        assert result["spec"] is pod["spec"]
        assert result["metadata"]["labels"] is pod["metadata"]["labels"]


def test_settle_does_not_change_what_it_is_given() -> None:
    old = _pod()
    new = copy.deepcopy(old)
    new["spec"]["containers"][1]["image"] = "s:2"
    new["spec"]["volumes"] = [{"name": "data", "emptyDir": {}}]
    layout, copied = _layout(new), copy.deepcopy(new)
    settled = settle(new, old)
    assert _layout(new) == layout and new == copied
    assert settled == new
    assert _shared(settled, new) == []
    assert settled["metadata"] is old["metadata"]
    assert settled["spec"]["containers"][0] is old["spec"]["containers"][0]
    assert settle(copy.deepcopy(old), old) is old


def test_a_function_that_changes_nothing_still_gives_back_the_very_same_document() -> None:
    pod = _pod()
    for runner in STEPS.values():
        assert runner(lambda given: given, pod) == runner(identity, pod)
    assert fold([lambda given: copy.deepcopy(given)], pod) is pod
    assert chain(lambda given: given)(pod) is pod
    assert for_each("spec.containers[*]", lambda given: given)(pod) is pod


def test_fused_and_step_by_step_runs_give_the_same_and_own_alike() -> None:
    kept: list[Any] = []

    def keeper(given: Any) -> Any:
        kept.append(given)
        return {**given, "kind": "Pod"}

    composed = chain(_LABEL, _SELECTOR, keeper, _SELECTOR, _LABEL)
    results = []
    for _ in range(4):
        pod = _pod()
        result = composed(pod)
        _scribble(kept[-1])
        results.append(result)
        assert pod == _pod()
        assert _shared(result, kept[-1]) == []
    assert isinstance(composed, Compose) and composed._fused
    assert all(result == results[0] for result in results)


# ------------------------------------------------------------------ what for_each's function returns


@pytest.mark.parametrize("runner", ["for_each", "for_each of a chain", "for_each, fused around it"])
@pytest.mark.parametrize(
    ("answer", "found"), [(None, "null"), ("pod", "a string ('pod')"), (["x"], "a list")]
)
def test_for_each_refuses_a_container_replaced_by_another_kind(
    runner: str, answer: Any, found: str
) -> None:
    def answers(container: Any) -> Any:
        return copy.deepcopy(answer)

    pod = _pod()
    before = copy.deepcopy(pod)
    with pytest.raises(StepError) as caught:
        VALUES[runner](answers, pod)
    err = caught.value
    assert isinstance(err, TransformError)
    text = str(err)
    assert f"answers returned {found} where it was given a map" in text
    assert err.path == path("spec.containers[0]")
    assert "spec.containers[0]" in text
    assert pod == before


@pytest.mark.parametrize(
    ("target", "fn", "message"),
    [
        (
            "spec.containers[*].args",
            lambda args: "-v",
            "returned a string ('-v') where it was given a list",
        ),
        (
            "spec.nodeSelector",
            lambda selector: [selector],
            "returned a list where it was given a map",
        ),
        (
            "spec.containers[*].args[*]",
            lambda arg: {"arg": arg},
            "returned a map where it was given a string ('-v')",
        ),
        (
            "spec.containers[*].image",
            lambda image: None,
            "returned null where it was given a string ('t:1')",
        ),
    ],
)
def test_for_each_refuses_a_value_of_another_kind(target: str, fn: Any, message: str) -> None:
    with pytest.raises(StepError, match=message.replace("(", r"\(").replace(")", r"\)")):
        for_each(target, fn)(_pod())


def test_for_each_maps_scalars_to_scalars_and_fills_in_null() -> None:
    pod = _pod()
    upper = for_each("spec.containers[*].args[*]", str.upper)(pod)
    assert upper["spec"]["containers"][0]["args"] == ["-V"]
    counted = for_each("spec.containers[*].image", len)(pod)
    assert [c["image"] for c in counted["spec"]["containers"]] == [3, 3]
    pod["spec"]["securityContext"] = None
    filled = for_each("spec.securityContext", lambda context: {"runAsNonRoot": True})(pod)
    assert filled["spec"]["securityContext"] == {"runAsNonRoot": True}
    assert for_each("spec.securityContext", lambda context: None)(pod) is pod


def test_for_each_refuses_a_container_replaced_by_null_on_a_persistent_pod() -> None:
    from pyrsistent import freeze

    with pytest.raises(
        StepError,
        match=r"returned null where it was given a map; .* "
        r"\(in spec.containers\[1\]\)",
    ):
        for_each("spec.containers[name=sidecar]", lambda container: None)(freeze(_pod()))


def test_for_each_holds_a_branch_of_when_to_the_kind_too() -> None:
    pod = _pod()
    wraps = when(lambda arg: arg == "-v", lambda arg: {"arg": arg})
    with pytest.raises(
        StepError,
        match=r"<lambda> returned a map where it was given a string "
        r"\('-v'\); .* \(in spec.containers\[0\].args\[0\]\)",
    ):
        for_each("spec.containers[*].args[*]", wraps)(pod)
    upper = when(lambda arg: arg == "-v", str.upper)
    assert for_each("spec.containers[*].args[*]", upper)(pod)["spec"]["containers"][0]["args"] == [
        "-V"
    ]


def test_for_each_of_a_chain_with_a_function_keeps_a_persistent_pod_persistent() -> None:
    from pyrsistent import PMap, freeze

    pod = freeze(_pod())
    overlay = for_each(
        "spec.containers[*]", chain(lambda container: {**container, "a": 1}, upsert("b", 2))
    )
    for _ in range(3):  # the composition inside compiles too
        result = overlay(pod)
        containers = result["spec"]["containers"]
        assert all(isinstance(container, PMap) for container in containers)
        assert containers[0]["a"] == 1 and containers[0]["b"] == 2
