"""One argument order across the public API: what is done first, what it is done to last."""

from __future__ import annotations

import importlib
import inspect
import warnings

import pytest

from combinators import fold, upsert
from combinators.conflicts import checked_fold
from combinators.order import ArgumentOrderWarning
from transforms.analysis.blame import blame, steps_of, writers

DOING = {"transform", "transforms", "step", "steps", "overlay", "overlays"}
DONE_TO = {"doc", "document", "documents", "pod", "pods", "manifest"}
MODULES = (
    "combinators",
    "combinators.conflicts",
    "transforms",
    "transforms.analysis.blame",
    "transforms.analysis.explanation",
    "transforms.analysis.footprint",
    "transforms.kube.workloads",
    "transforms.run",
    "transforms.testing.assertions",
)


def _public_functions() -> list[tuple[str, object]]:
    found = {}
    for name in MODULES:
        module = importlib.import_module(name)
        for attribute in getattr(module, "__all__", ()):
            value = getattr(module, attribute)
            if inspect.isfunction(value):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return sorted(found.items())


def test_every_public_function_takes_what_it_does_before_what_it_does_it_to() -> None:
    checked = []
    for name, function in _public_functions():
        parameters = list(inspect.signature(function).parameters)  # type: ignore[arg-type]
        doing = [i for i, parameter in enumerate(parameters) if parameter in DOING]
        done_to = [i for i, parameter in enumerate(parameters) if parameter in DONE_TO]
        if doing and done_to:
            checked.append(name)
            assert doing[0] < done_to[0], f"{name}{inspect.signature(function)}"  # type: ignore[arg-type]
    # the test reads real signatures: fold, blame, explain, assert_pure, apply_to_workload, ...
    assert {"combinators.transform.fold", "transforms.analysis.explanation.explain"} <= set(checked)
    assert len(checked) >= 10, checked


POD = {"spec": {}}
STEPS = [upsert("spec.hostIPC", True), upsert("spec.hostPID", True)]


@pytest.mark.parametrize(
    ("name", "new", "old"),
    [
        ("fold", lambda: fold(STEPS, POD), lambda: fold(POD, STEPS)),  # type: ignore[arg-type]
        (
            "checked_fold",
            lambda: checked_fold(STEPS, POD, mode="error"),
            lambda: checked_fold(POD, STEPS, mode="error"),  # type: ignore[arg-type]
        ),
        (
            "blame",
            lambda: [str(b.change.path) for b in blame(steps_of(STEPS[0]), POD)],
            lambda: [str(b.change.path) for b in blame(POD, steps_of(STEPS[0]))],  # type: ignore[arg-type]
        ),
        (
            "writers",
            lambda: [str(b.change.path) for b in writers(steps_of(STEPS[0]), POD).changes()],
            lambda: [str(b.change.path) for b in writers(POD, steps_of(STEPS[0])).changes()],  # type: ignore[arg-type]
        ),
    ],
)
def test_the_order_before_0_2_still_works_for_a_while_and_says_so(
    name: str, new: object, old: object
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        expected = new()  # type: ignore[operator]
    with pytest.warns(ArgumentOrderWarning, match=rf"write {name}\(transforms, doc\)") as caught:
        assert old() == expected  # type: ignore[operator]
    assert caught[0].filename == __file__  # shown at the caller's line
    assert POD == {"spec": {}}


def test_a_document_where_the_steps_go_with_no_list_after_it_is_still_refused() -> None:
    # only the two orders are told apart: a mapping and no list is an error, not a guess
    from combinators import ArgumentTypeError

    with pytest.raises(ArgumentTypeError, match="transforms must be a list of transforms"):
        fold(POD, POD)  # type: ignore[arg-type]
