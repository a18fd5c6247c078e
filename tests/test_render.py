"""``podfold render``: TorchX's dry run with overlays, the installed script run in a subprocess.

What it prints is compared with what ``torchx run --dryrun`` prints after
``=== SCHEDULER REQUEST ===`` for the same component and overlays: the same
job, byte for byte once TorchX's random app id is set aside. Nothing is
mocked; everything runs offline.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests import warm
from tests.torchx_versions import needs_mcad

REPO = Path(__file__).resolve().parent.parent
PODFOLD = Path(sys.executable).with_name("podfold")
TORCHX = Path(sys.executable).with_name("torchx")
COMPONENT = "examples/trainer.py:trainer"
MARKER = "=== SCHEDULER REQUEST ==="


def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return warm.run("podfold", args, cwd=cwd)


UUID = r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"


def same_ids(text: str) -> str:
    """The job with TorchX's random ids made one name each: the app id
    (``trainer-<13 characters>``) and, in newer TorchX, the session id of each run
    (``TORCHX_INTERNAL_SESSION_ID``, a UUID)."""
    return re.sub(UUID, "SESSION-ID", re.sub(r"\btrainer-[a-z0-9]{10,}\b", "trainer-APPID", text))


def torchx_request(*cfg: str, scheduler: str = "kubernetes_overlay") -> str:
    result = warm.run(
        "torchx",
        [
            "run",
            "--scheduler",
            scheduler,
            "--dryrun",
            "--workspace",
            "",
            "-cfg",
            ",".join(cfg),
            COMPONENT,
        ],
        cwd=REPO,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.split(MARKER, 1)[1].strip("\n")


def test_render_prints_what_torchx_prints_after_the_marker() -> None:
    ours = run("render", "--queue", "default", "-f", "examples/a100.yaml", COMPONENT)
    assert ours.returncode == 0, ours.stderr
    assert MARKER not in ours.stdout and "=== APPLICATION ===" not in ours.stdout
    theirs = torchx_request("queue=default", "overlays=examples/a100.yaml")
    assert same_ids(ours.stdout.strip("\n")) == same_ids(theirs)
    job = yaml.safe_load(ours.stdout)
    assert job["kind"] == "Job" and len(job["spec"]["tasks"]) == 3  # 2 trainers, 1 ps
    for task in job["spec"]["tasks"]:
        spec = task["template"]["spec"]
        assert spec["nodeSelector"] == {"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"}


@needs_mcad
def test_render_mcad_prints_what_torchx_prints() -> None:
    ours = run(
        "render",
        "--scheduler",
        "kubernetes_mcad_overlay",
        "--namespace",
        "ml",
        "-f",
        "examples/a100.yaml",
        COMPONENT,
        "--replicas",
        "1",
    )
    assert ours.returncode == 0, ours.stderr
    result = subprocess.run(
        [
            str(TORCHX),
            "run",
            "--scheduler",
            "kubernetes_mcad_overlay",
            "--dryrun",
            "--workspace",
            "",
            "-cfg",
            "namespace=ml,overlays=examples/a100.yaml",
            COMPONENT,
            "--replicas",
            "1",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    theirs = result.stdout.split(MARKER, 1)[1].strip("\n")
    assert same_ids(ours.stdout.strip("\n")) == same_ids(theirs)
    assert yaml.safe_load(ours.stdout)["kind"] == "AppWrapper"


def test_component_arguments_pass_through() -> None:
    result = run("render", "--queue", "q", COMPONENT, "--replicas", "4", "--epochs", "3")
    assert result.returncode == 0, result.stderr
    job = yaml.safe_load(result.stdout)
    assert job["spec"]["queue"] == "q"
    trainers = [task for task in job["spec"]["tasks"] if task["name"].startswith("trainer")]
    assert len(trainers) == 4
    assert "3" in trainers[0]["template"]["spec"]["containers"][0]["command"]


def test_an_overlay_for_one_role_reaches_only_its_pods(tmp_path: Path) -> None:
    ps = tmp_path / "ps.yaml"
    ps.write_text("metadata:\n  labels: {tier: cpu}\nspec:\n  priorityClassName: low\n")
    result = run(
        "render",
        "--queue",
        "default",
        "-f",
        "examples/a100.yaml",
        "--overlay",
        f"ps={ps}",
        COMPONENT,
    )
    assert result.returncode == 0, result.stderr
    tasks = {
        task["name"]: task["template"] for task in yaml.safe_load(result.stdout)["spec"]["tasks"]
    }
    assert tasks["ps-0"]["spec"]["priorityClassName"] == "low"
    assert tasks["ps-0"]["metadata"]["labels"]["tier"] == "cpu"
    # the overlay for every role still reached the ps pod, before its own
    assert "nodeSelector" in tasks["ps-0"]["spec"]
    for name in ("trainer-0", "trainer-1"):
        assert "priorityClassName" not in tasks[name]["spec"]
        assert "tier" not in tasks[name]["metadata"]["labels"]


def test_the_role_overlays_run_option_is_torchx_s_too(tmp_path: Path) -> None:
    # what --overlay ROLE=FILE sets is a run option any torchx run can give
    ps = tmp_path / "ps.yaml"
    ps.write_text("spec:\n  priorityClassName: low\n")
    theirs = torchx_request("queue=default", f"role_overlays=ps:{ps}")
    ours = run("render", "--queue", "default", "--overlay", f"ps={ps}", COMPONENT)
    assert ours.returncode == 0, ours.stderr
    assert same_ids(ours.stdout.strip("\n")) == same_ids(theirs)
    assert theirs.count("priorityClassName: low") == 1


def test_json_output() -> None:
    import json

    result = run("render", "--queue", "default", "-o", "json", COMPONENT, "--replicas", "1")
    assert result.returncode == 0, result.stderr
    job = json.loads(result.stdout)
    assert job["apiVersion"] == "batch.volcano.sh/v1alpha1"
    assert [task["name"] for task in job["spec"]["tasks"]] == ["trainer-0", "ps-0"]


def test_an_unknown_role_is_an_overlay_failure(tmp_path: Path) -> None:
    result = run(
        "render", "--queue", "default", "--overlay", "worker=examples/a100.yaml", COMPONENT
    )
    assert result.returncode == 1
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert "no role named 'worker'; roles present: trainer, ps" in line
    assert "Traceback" not in result.stderr


def test_an_overlay_that_breaks_a_pod_names_role_and_replica(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("- {op: remove, path: 'spec.containers[0].image'}\n")
    result = run("render", "--queue", "default", "--overlay", f"ps={bad}", COMPONENT)
    assert result.returncode == 1
    (line,) = result.stderr.splitlines()
    assert line.startswith("podfold: error: role 'ps', replica 0: the pod is not valid")
    assert "spec.containers[name=ps-0].image: a container of a pod needs an image" in line


def test_usage_errors_exit_2() -> None:
    missing_queue = run("render", COMPONENT)
    assert missing_queue.returncode == 2
    assert "queue" in missing_queue.stderr
    no_component = run("render", "--queue", "q", "examples/trainer.py:nope")
    assert no_component.returncode == 2
    assert "nope" in no_component.stderr
    bad_role_flag = run("render", "--queue", "q", "--overlay", "ps", COMPONENT)
    assert bad_role_flag.returncode == 2
    assert "expected ROLE=FILE" in bad_role_flag.stderr
    unknown_option = run("render", "--queue", "q", "-c", "overlay=examples/a100.yaml", COMPONENT)
    assert unknown_option.returncode == 2
    assert (
        "no run option 'overlay'; did you mean overlays or role_overlays?" in unknown_option.stderr
    )


@pytest.mark.parametrize("flag", ["--debug"])
def test_debug_prints_the_traceback(flag: str) -> None:
    result = run(
        flag, "render", "--queue", "default", "--overlay", "worker=examples/a100.yaml", COMPONENT
    )
    assert result.returncode == 1
    assert "Traceback (most recent call last)" in result.stderr
    assert result.stderr.rstrip().splitlines()[-1].startswith("podfold: error: ")
