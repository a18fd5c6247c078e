"""The run below the front doors (transforms.run): overlays loaded once, folded over one
pod, checked, each finding with the overlay step that wrote it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import transforms.io.loading as loading
from combinators import ArgumentError, upsert
from combinators.transform import CONFLICT_MODES as FOLD_MODES
from transforms.analysis.blame import yaml_steps
from transforms.run import (
    CONFLICT_MODES,
    Checks,
    Overlays,
    given,
    load_file,
    loads,
    run,
    unique_labels,
    written_by,
)

POD = {"spec": {"containers": [{"name": "main", "image": "trainer:1"}]}}
NET = "# host networking\nspec:\n  hostNetwork: true\n"
IPC = "- {op: upsert, path: spec.hostIPC, value: true}\n- {op: upsert, path: spec.hostPID, value: true}\n"


def test_conflict_modes_are_defined_once() -> None:
    assert CONFLICT_MODES is FOLD_MODES


def test_checks_refuse_an_unknown_conflict_mode_naming_the_near_miss() -> None:
    with pytest.raises(ArgumentError, match=r"got 'errors'; did you mean error\?") as err:
        Checks(conflicts="errors")
    assert (err.value.argument, err.value.factory) == ("conflicts", "Checks")


def test_a_file_is_parsed_once_its_steps_made_from_that_parse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loaded = loads(IPC, "ipc.yaml")

    def parse_again(*args: object, **kwargs: object) -> None:
        raise AssertionError("parsed again")

    monkeypatch.setattr(loading, "loads_overlay_steps", parse_again)
    # the module, not the function the package names ``blame``
    monkeypatch.setattr(
        sys.modules["transforms.analysis.blame"], "loads_overlay_steps", parse_again
    )
    assert [str(step.origin) for step in loaded.steps] == [
        "ipc.yaml:1: step 1: set spec.hostIPC to true",
        "ipc.yaml:2: step 2: set spec.hostPID to true",
    ]


def test_steps_from_the_kept_parse_are_those_of_a_parse_of_the_text() -> None:
    text = "spec:\n  nodeSelector: {pool: a}\n---\n" + IPC
    assert loads(text, "o.yaml").steps == tuple(yaml_steps(text, "o.yaml"))


def test_a_file_is_read_once(tmp_path: Path) -> None:
    file = tmp_path / "net.yaml"
    file.write_text(NET)
    loaded = load_file(file)
    file.unlink()  # gone: nothing below reads it again
    assert loaded.transform(POD)["spec"]["hostNetwork"] is True
    assert [step.origin.line for step in loaded.steps] == [2]


def test_a_run_that_finds_nothing_walks_nothing() -> None:
    done = run(Overlays([loads(NET, "net.yaml")]), POD, Checks(validate=True))
    assert done.findings == ()
    assert done.after["spec"]["hostNetwork"] is True
    assert "_writers" not in done.__dict__ and done.overlays.items[0]._steps is None


def test_a_run_of_no_overlay_gives_back_the_very_pod() -> None:
    done = run(Overlays([]), POD, Checks(validate=True, policy="baseline"))
    assert done.after is POD and done.changes == [] and done.findings == ()


def test_validation_finds_only_what_the_overlays_brought_unless_asked_for_all() -> None:
    pod = {"spec": {"containers": [{"name": "main"}]}}  # no image: the pod's own problem
    overlays = Overlays([loads("spec:\n  restartPolicy: Sometimes\n", "restart.yaml")])
    new = run(overlays, pod, Checks(validate=True)).findings
    assert [(found.kind, found.path) for found in new] == [("validation", "spec.restartPolicy")]
    every = run(overlays, pod, Checks(validate=True, only_new=False)).findings
    assert {found.path for found in every} == {
        "spec.restartPolicy",
        "spec.containers[name=main].image",
    }


def test_a_finding_names_the_line_that_wrote_it() -> None:
    overlays = Overlays([loads(IPC, "ipc.yaml"), loads(NET, "net.yaml")])
    done = run(overlays, POD, Checks(policy="baseline", deny=("spec.hostNetwork",)))
    by_path = {(found.kind, found.path): written_by(found.writers) for found in done.findings}
    assert by_path[("policy", "spec.hostIPC")] == " (written by ipc.yaml:1)"
    assert by_path[("policy", "spec.hostPID")] == " (written by ipc.yaml:2)"
    assert by_path[("paths", "spec.hostNetwork")] == " (written by net.yaml:3)"


def test_a_policy_finding_on_a_pod_no_overlay_changed_has_no_writer() -> None:
    pod = {"spec": {**POD["spec"], "hostIPC": True}}
    (found,) = run(Overlays([]), pod, Checks(policy="baseline")).findings
    assert (found.kind, found.severity, found.path, found.writers) == (
        "policy",
        "error",
        "spec.hostIPC",
        (),
    )


@pytest.mark.parametrize(("mode", "severity"), [("warn", "warning"), ("error", "error")])
def test_a_conflict_names_both_overlays_by_file_and_line(mode: str, severity: str) -> None:
    overlays = Overlays([loads(NET, "a.yaml"), loads("spec: {hostNetwork: false}\n", "b.yaml")])
    done = run(overlays, POD, Checks(conflicts=mode))
    assert done.after["spec"]["hostNetwork"] is False  # the last overlay has the last word
    (found,) = done.findings
    assert (found.kind, found.severity, found.path) == ("conflict", severity, "spec.hostNetwork")
    assert found.message == "a.yaml:3 wrote True, then b.yaml:1 wrote False"
    assert [str(writer.origin.source) for writer in found.writers] == ["a.yaml", "b.yaml"]


def test_a_conflict_names_list_elements_by_their_merge_keys_as_explain_does() -> None:
    # a mount is named by its mountPath, as explain and kubectl name it, not by its name
    mount = "- op: append_at\n  path: spec.containers[name=main].volumeMounts\n  value: {name: data, mountPath: /data, readOnly: true}\n"
    flip = "- {op: upsert, path: 'spec.containers[name=main].volumeMounts[mountPath=/data].readOnly', value: false}\n"
    overlays = Overlays([loads(mount, "mount.yaml"), loads(flip, "flip.yaml")])
    (found,) = run(overlays, POD, Checks(conflicts="warn")).findings
    assert found.path == "spec.containers[name=main].volumeMounts[mountPath=/data].readOnly"
    assert found.message == "mount.yaml:1 wrote True, then flip.yaml:1 wrote False"


def test_a_conflict_between_overlays_given_in_python_names_their_labels() -> None:
    overlays = Overlays(
        [
            given(upsert("spec.hostIPC", True), "first"),
            given(upsert("spec.hostIPC", False), "first"),
        ]
    )
    (found,) = run(overlays, POD, Checks(conflicts="error")).findings
    assert found.message == "first wrote True, then first (2nd time) wrote False"


def test_what_a_door_folded_itself_is_checked_as_given() -> None:
    overlays = Overlays([loads(NET, "net.yaml")])
    after = overlays.transform(POD)
    done = run(overlays, POD, Checks(deny=("spec.hostNetwork",)), after=after)
    assert done.after is after and [found.kind for found in done.findings] == ["paths"]


def test_then_runs_on_what_the_overlays_changed_only() -> None:
    seen: list[object] = []

    def then(pod: object) -> object:
        seen.append(pod)
        return pod

    run(Overlays([]), POD, then=then)
    run(Overlays([loads(NET, "net.yaml")]), POD, then=then)
    assert len(seen) == 1


def test_changes_and_writers_of_a_run() -> None:
    done = run(Overlays([loads(IPC, "ipc.yaml")]), POD)
    assert [str(change.path) for change in done.changes] == ["spec.hostIPC", "spec.hostPID"]
    assert [found.origin.line for found in done.writers_at("spec")] == [1, 2]


def test_repeated_labels_are_told_apart() -> None:
    assert unique_labels(["a", "a", "a", "a"]) == [
        "a",
        "a (2nd time)",
        "a (3rd time)",
        "a (4th time)",
    ]
