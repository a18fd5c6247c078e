"""Kubernetes' own patch code, through ``kubectl patch --local``: the reference the
patch tests compare with. Tests that need it skip where kubectl is not on PATH."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not on PATH")


def run_kubectl(
    *args: str, input: str | None = None, timeout: float = 60, check: bool = False
) -> subprocess.CompletedProcess[str]:
    """``kubectl ARGS``, its output captured as text, as every test here runs it: with Go's
    runtime on one thread and collecting half as often. Its output is the same; the run of
    a small object costs 73 ms of CPU where it cost 90 (30 runs each), and the tests start
    it nearly 300 times."""
    assert KUBECTL is not None
    return subprocess.run(
        [KUBECTL, *args],
        input=input,
        capture_output=True,
        env={**os.environ, "GOMAXPROCS": "1", "GOGC": "200"},
        text=True,
        timeout=timeout,
        check=check,
    )


def kubectl_patch(obj: Any, patch: Any, patch_type: str) -> tuple[int, Any]:
    """Run ``kubectl patch --local``; return its exit code and the parsed output."""
    assert KUBECTL is not None
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "object.json"
        source.write_text(json.dumps(obj))
        done = run_kubectl(
            "patch",
            "--local",
            "-f",
            str(source),
            "--type",
            patch_type,
            "-p",
            json.dumps(patch),
            "-o",
            "json",
        )
    return done.returncode, json.loads(done.stdout) if done.returncode == 0 else done.stderr
