"""toolz and podfold, both ways: transforms in toolz's pipelines, toolz's functions as steps."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import toolz
import toolz.curried as tc

from combinators import StepError, Transform, append_at, chain, compose, fold, upsert
from transforms.forms.partial import overlay


def pod() -> dict[str, Any]:
    return {
        "metadata": {"labels": {"app": "x"}},
        "spec": {"containers": [{"name": "trainer"}], "nodeSelector": {"zone": "a"}},
    }


GPU = overlay({"spec": {"nodeSelector": {"gpu": "a100"}}})
TEAM = upsert("metadata.labels.team", "ml")
TOLERATE = append_at("spec.tolerations", {"key": "gpu", "operator": "Exists"})


def test_toolz_pipe_applies_overlays_in_order() -> None:
    given = pod()
    before = copy.deepcopy(given)
    assert toolz.pipe(given, GPU, TEAM, TOLERATE) == chain(GPU, TEAM, TOLERATE)(given)
    assert toolz.pipe(given, GPU, TEAM, TOLERATE) == fold([GPU, TEAM, TOLERATE], given)
    assert given == before


def test_toolz_compose_over_transforms_and_plain_functions() -> None:
    given = pod()
    before = copy.deepcopy(given)

    def count_labels(doc: Any) -> Any:
        return upsert("metadata.annotations.labels", str(len(doc["metadata"]["labels"])))(doc)

    # toolz composes right to left, as compose does
    ours = compose(count_labels, TEAM, GPU)
    theirs = toolz.compose(count_labels, TEAM, GPU)
    assert theirs(given) == ours(given)
    assert theirs(given)["metadata"]["annotations"] == {"labels": "2"}
    # and a toolz composition is a step like any other
    assert chain(theirs, TOLERATE)(given) == TOLERATE(ours(given))
    assert given == before


def test_curried_toolz_functions_are_steps_of_a_chain() -> None:
    given = pod()
    before = copy.deepcopy(given)
    overlay_ = chain(
        TEAM,
        tc.assoc_in(keys=["spec", "hostIPC"], value=True),
        tc.update_in(keys=["spec", "nodeSelector"], func=tc.assoc(key="gpu", value="a100")),
        upsert("spec.nodeSelector.zone", "b"),  # in place would now change toolz's output
        tc.assoc(key="kind", value="Pod"),
    )
    assert isinstance(overlay_, Transform)
    result = overlay_(given)
    assert result["spec"]["hostIPC"] is True
    assert result["spec"]["nodeSelector"] == {"zone": "b", "gpu": "a100"}
    assert result["metadata"]["labels"] == {"app": "x", "team": "ml"}
    assert result["kind"] == "Pod"
    assert given == before, "a chain with toolz steps changed its input"


def test_what_a_toolz_step_returns_is_not_changed_by_later_steps() -> None:
    kept: list[Any] = []

    def keep(doc: Any) -> Any:
        kept.append((doc, copy.deepcopy(doc)))
        return doc

    overlay_ = chain(
        upsert("spec.nodeSelector.gpu", "a100"),
        tc.assoc_in(keys=["spec", "nodeSelector", "pool"], value="p"),
        keep,
        upsert("spec.nodeSelector.zone", "c"),
        append_at("spec.containers", {"name": "sidecar"}),
    )
    result = overlay_(pod())
    assert result["spec"]["nodeSelector"] == {"zone": "c", "gpu": "a100", "pool": "p"}
    seen, then = kept[0]
    assert seen == then, "a step changed in place what a plain function had been given"


def test_a_raising_curried_step_is_a_step_error_naming_it() -> None:
    overlay_ = chain(TEAM, tc.get_in(["spec", "nope"], no_default=True))
    with pytest.raises(StepError) as caught:
        overlay_(pod())
    err = caught.value
    assert "get_in(['spec', 'nope'], no_default=True) raised KeyError" in str(err)
    assert "step 2 of 2" in str(err)
    assert isinstance(err.cause, KeyError)


def test_a_lone_toolz_step_is_guarded_too() -> None:
    step = chain(tc.get_in(["nope"], no_default=True))
    assert isinstance(step, Transform)
    with pytest.raises(StepError, match=r"get_in\(\['nope'\], no_default=True\) raised KeyError"):
        step({})


def test_curried_steps_read_as_their_calls() -> None:
    overlay_ = chain(TEAM, tc.assoc_in(keys=["spec", "hostIPC"], value=True))
    assert repr(overlay_) == (
        "chain(upsert('metadata.labels.team', 'ml'), "
        "assoc_in(keys=['spec', 'hostIPC'], value=True))"
    )
