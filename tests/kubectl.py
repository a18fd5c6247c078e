"""Kubernetes' own patch code, through ``kubectl patch --local``: the reference the
patch tests compare with. Tests that need it skip where kubectl is not on PATH."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not on PATH")


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
            text=True,
            timeout=60,
            check=False,
        )
    return done.returncode, json.loads(done.stdout) if done.returncode == 0 else done.stderr
