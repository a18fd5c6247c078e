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


def oracle_env() -> dict[str, str]:
    """The environment kubectl runs in here: this process's, with Go's runtime on one
    thread and collecting half as often. Its output is the same; the run of a small
    object costs 73 ms of CPU where it cost 90 (30 runs each), and the tests start it
    nearly 300 times."""
    return {**os.environ, "GOMAXPROCS": "1", "GOGC": "200"}


def kubectl_patch(obj: Any, patch: Any, patch_type: str) -> tuple[int, Any]:
    """Run ``kubectl patch --local``; return its exit code and the parsed output."""
    assert KUBECTL is not None
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "object.json"
        source.write_text(json.dumps(obj))
        done = subprocess.run(
            [
                KUBECTL,
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
            ],
            capture_output=True,
            env=oracle_env(),
            text=True,
            timeout=60,
            check=False,
        )
    return done.returncode, json.loads(done.stdout) if done.returncode == 0 else done.stderr
