"""``podfold explain`` shows a workload-level step's change where it is written: in the
workload's own metadata (a CronJob's ``spec.jobTemplate.metadata``), with ``--blame``
naming the step; the pod templates' diffs and blame hold only the pod-level steps."""

from __future__ import annotations

import sys
from pathlib import Path

from tests import warm

REPO = Path(__file__).resolve().parent.parent
PODFOLD = Path(sys.executable).with_name("podfold")
CRONJOB = REPO / "tests" / "manifests" / "kubernetes" / "cronjob.yaml"
PYTORCHJOB = REPO / "tests" / "manifests" / "kubeflow" / "pytorchjob-simple.yaml"


def explain(*args: str) -> list[str]:
    result = warm.run("podfold", ["explain", "--color", "never", *args], cwd=REPO, timeout=120)
    assert (result.returncode, result.stderr) == (0, "")
    return result.stdout.splitlines()


def test_explain_shows_the_queue_in_the_workload_s_metadata(tmp_path: Path) -> None:
    overlay = tmp_path / "queue.yaml"
    overlay.write_text(
        "- {recipe: kueue_queue, name: team-a}\n- {recipe: add_env, NCCL_DEBUG: INFO}\n"
    )
    lines = explain("--blame", "-f", str(overlay), str(CRONJOB))
    workload = lines.index(
        "# document 1: CronJob/hello metadata (spec.jobTemplate.metadata): 1 change"
    )
    template, blame = lines[:workload], lines[workload:]
    assert not any("kueue" in line for line in template)
    assert "+    kueue.x-k8s.io/queue-name: team-a" in blame
    assert any(
        line.startswith("#   metadata  <- ")
        and f"{overlay}:1: step 1: recipe kueue_queue('team-a')" in line
        for line in blame
    )
    assert lines[-1] == (
        "# 1 of 1 pod template in 1 document change; the metadata of 1 workload changes"
    )


def test_explain_of_a_workload_level_step_alone(tmp_path: Path) -> None:
    overlay = tmp_path / "queue.yaml"
    overlay.write_text("- {recipe: kueue_queue, name: team-a}\n")
    lines = explain("-f", str(overlay), "--select", "role=Worker", str(PYTORCHJOB))
    assert "# document 1: PyTorchJob/pytorch-simple metadata (metadata): 1 change" in lines
    assert lines[-1] == (
        "# 0 of 1 pod template in 1 document change; the metadata of 1 workload changes"
    )


def test_explain_shows_what_lands_in_a_tekton_runs_pod_template(tmp_path: Path) -> None:
    # a TaskRun keeps its pod fields in spec.podTemplate, apart from its steps: the diff is
    # of the pod as Tekton makes it, so the node selector written there is shown
    overlay = tmp_path / "pool.yaml"
    overlay.write_text("spec:\n  nodeSelector: {pool: gpu}\n")
    run = REPO / "tests" / "manifests" / "tekton" / "template-volume.yaml"
    lines = explain("-f", str(overlay), str(run))
    assert "+  nodeSelector:" in lines and "+    pool: gpu" in lines, lines
    assert lines[-1] == "# 1 of 1 pod template in 1 document change", lines
    # and the checks read it there too: denying the path refuses the change
    done = warm.run(
        "podfold", ["explain", "--deny", "spec.nodeSelector", "-f", str(overlay), str(run)]
    )
    assert done.returncode == 1 and "spec.nodeSelector" in done.stderr, done.stderr
