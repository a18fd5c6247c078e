"""The ``podfold-validate`` hook of ``.pre-commit-hooks.yaml``, run by the real pre-commit in a
throwaway GitOps repository: installed as a git hook, it checks the manifests each commit
touches, with the policy its ``args`` give, and refuses the commit naming the file and path.

pre-commit installs the hook from this checkout's HEAD into an environment of its own, once
per commit of HEAD: the environments are kept in a directory of this user's under the
system's temporary directory, as the tests' bytecode is."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PRE_COMMIT = Path(sys.executable).with_name("pre-commit")
GOOD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.27}]
"""
BAD = """\
apiVersion: batch/v1
kind: Job
metadata: {name: train}
spec:
  template:
    spec:
      hostNetwork: true
      restartPolicy: Never
      containers: [{name: trainer, image: pytorch/pytorch}]
"""


def _home() -> Path:
    home = Path(tempfile.gettempdir()) / f"podfold-tests-pre-commit-{os.getuid()}"
    home.mkdir(mode=0o700, exist_ok=True)
    return home


def _git(repo: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, env=env, check=False
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not on PATH")
def test_the_hook_refuses_a_commit_whose_manifest_breaks_the_policy(tmp_path: Path) -> None:
    # a commit of a valid Deployment passes; a commit that adds a Job with hostNetwork is
    # refused under --policy baseline, naming the file and the path, and only the file it
    # touches is checked
    if not PRE_COMMIT.is_file():
        pytest.skip("pre-commit is not installed: pip install -e '.[test]'")
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=False
    )
    if head.returncode != 0:
        pytest.skip(f"{REPO} is no git checkout: pre-commit installs hooks from one")
    gitops = tmp_path / "gitops"
    (gitops / "manifests").mkdir(parents=True)
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(_home()),
        "PATH": f"{PRE_COMMIT.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    assert _git(gitops, "init", "-q", env=env).returncode == 0
    (gitops / ".pre-commit-config.yaml").write_text(
        f"repos:\n"
        f"  - repo: {REPO}\n"
        f"    rev: {head.stdout.strip()}\n"
        f"    hooks:\n"
        f"      - id: podfold-validate\n"
        f"        args: [--policy, baseline]\n"
        f"        files: ^manifests/\n"
    )
    installed = subprocess.run(
        [str(PRE_COMMIT), "install"], cwd=gitops, capture_output=True, text=True, env=env
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    (gitops / "manifests" / "web.yaml").write_text(GOOD)
    _git(gitops, "add", ".", env=env)
    passed = _git(gitops, "commit", "-q", "-m", "web", env=env)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "podfold validate" in passed.stdout + passed.stderr
    assert "Passed" in passed.stdout + passed.stderr
    (gitops / "manifests" / "train.yaml").write_text(BAD)
    _git(gitops, "add", "manifests/train.yaml", env=env)
    refused = _git(gitops, "commit", "-q", "-m", "train", env=env)
    said = refused.stdout + refused.stderr
    assert refused.returncode == 1, said
    assert "Failed" in said and "manifests/train.yaml" in said, said
    assert "spec.template.spec.hostNetwork" in said or "hostNetwork" in said, said
    assert "web.yaml" not in said  # only the files the commit touches
    log = _git(gitops, "log", "--format=%s", env=env)
    assert log.stdout.split() == ["web"]
