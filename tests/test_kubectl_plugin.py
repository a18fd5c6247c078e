"""``kubectl podfold``: installing podfold puts ``kubectl-podfold`` beside ``podfold``, and the
real kubectl finds it on PATH as a plugin and runs it with the words after ``podfold``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from .kubectl import KUBECTL, needs_kubectl

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
A100 = REPO / "examples" / "a100.yaml"
JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: train}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: trainer, image: pytorch/pytorch}]
"""


@needs_kubectl
def test_kubectl_finds_the_plugin_and_runs_apply_through_it(tmp_path: Path) -> None:
    # kubectl plugin list names kubectl-podfold; kubectl podfold apply prints what
    # podfold apply prints, and a failing overlay fails kubectl with podfold's exit code
    assert KUBECTL is not None
    script = BIN / "kubectl-podfold"
    assert script.is_file(), f"{script} is missing: reinstall podfold (pip install -e .)"
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    listed = subprocess.run(
        [KUBECTL, "plugin", "list"], capture_output=True, text=True, env=env, check=False
    )
    assert str(script) in listed.stdout, listed.stdout + listed.stderr
    manifest = tmp_path / "job.yaml"
    manifest.write_text(JOB)
    done = subprocess.run(
        [KUBECTL, "podfold", "apply", "-f", str(A100), str(manifest)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    spec = yaml.safe_load(done.stdout)["spec"]["template"]["spec"]
    assert spec["nodeSelector"] == {"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"}
    assert {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}} in spec[
        "volumes"
    ]
    bad = tmp_path / "bad.yaml"
    bad.write_text("- {op: upsert, path: 'spec.containers[name=trainr].image', value: x}\n")
    failed = subprocess.run(
        [KUBECTL, "podfold", "apply", "-f", str(bad), str(manifest)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert failed.returncode == 1, failed.stderr
    assert "podfold: error:" in failed.stderr and "bad.yaml:1" in failed.stderr, failed.stderr
    assert "trainer" in failed.stderr  # the near miss
    assert failed.stdout == ""
