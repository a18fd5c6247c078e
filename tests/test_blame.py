"""Field-level provenance (transforms.analysis.blame): the last step that wrote each change."""

from __future__ import annotations

from pathlib import Path

from combinators import append_at, chain, remove_at, upsert
from transforms.analysis import changes_between
from transforms.analysis.blame import blame, load_steps, steps_of, yaml_steps
from transforms.io.loading import load_overlay, loads_overlay

POD = {"spec": {"containers": [{"name": "trainer", "image": "t:1"}]}}
A100 = Path(__file__).resolve().parent.parent / "examples" / "a100.yaml"


def test_every_change_is_blamed_once_and_the_steps_give_the_overlay_s_result() -> None:
    # blame's changes are exactly the changes of the whole overlay
    steps = load_steps(A100)
    found = blame(POD, steps)
    after = load_overlay(A100)(POD)
    assert [item.change for item in found] == changes_between(POD, after)
    assert all(item.origin is not None for item in found)


def test_the_last_step_that_changed_a_field_wins() -> None:
    text = ("- {op: upsert, path: spec.priorityClassName, value: low}\n"
            "- {op: upsert, path: spec.hostIPC, value: false}\n"
            "- {op: upsert, path: spec.priorityClassName, value: high}\n")
    found = {str(item.change.path): item.origin for item in blame(POD, yaml_steps(text, "o.yaml"))}
    assert (found["spec.priorityClassName"].source, found["spec.priorityClassName"].line) == \
        ("o.yaml", 3)
    assert found["spec.hostIPC"].line == 2


def test_a_partial_pod_names_the_line_of_the_key_that_wrote_the_field() -> None:
    text = "metadata:\n  labels:\n    team: ml\nspec:\n  hostIPC: true\n"
    found = {str(item.change.path): item.origin for item in blame(POD, yaml_steps(text, "p.yaml"))}
    assert found["metadata"].line == 1
    assert found["spec.hostIPC"].line == 5
    assert found["spec.hostIPC"].step == "partial pod"


def test_a_recipe_is_cut_into_its_body_s_steps() -> None:
    text = "- {recipe: shm_size, size: 2Gi}\n"
    found = blame(POD, yaml_steps(text, "r.yaml"))
    volumes = next(item for item in found if str(item.change.path) == "spec.volumes")
    assert volumes.origin is not None
    assert volumes.origin.step == "step 1: recipe shm_size('2Gi')"
    assert volumes.origin.inner.startswith("its step 3 of 3: ")
    assert str(volumes.origin).startswith("r.yaml:1: step 1: recipe shm_size('2Gi') > its step")


def test_python_overlays_are_blamed_by_step() -> None:
    overlay = chain(upsert("spec.hostIPC", True), append_at("spec.tolerations", {"key": "g"}),
                    remove_at("spec.hostIPC"))
    found = blame(POD, steps_of(overlay))
    assert [str(item.change.path) for item in found] == ["spec.tolerations"]
    assert str(found[0].origin).startswith("step 2: ")


def test_no_change_no_blame() -> None:
    assert blame(POD, yaml_steps("- {op: remove, path: spec.hostIPC}\n")) == []


def test_a_bad_overlay_raises_what_loads_overlay_raises() -> None:
    import pytest

    from transforms.errors import OverlayError

    with pytest.raises(OverlayError) as err:
        yaml_steps("spec:\n  node_selector: {}\n", "bad.yaml")
    with pytest.raises(OverlayError) as same:
        loads_overlay("spec:\n  node_selector: {}\n", source="bad.yaml")
    assert str(err.value) == str(same.value)
