"""Every overlay source is read once: what names its lines later (``explain --blame``,
``(written by FILE:LINE)``, an overlay error's line) uses the text the overlay was built
from. A named pipe gives its text to one reader, once (as ``-f <(cat o.yaml)`` does): a
second read waited for a writer for ever, or found nothing and named no line."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests import warm

REPO = Path(__file__).resolve().parent.parent
PODFOLD = [sys.executable, "-c", "from transforms.cli import main; main()"]
DEPLOYMENT = REPO / "tests" / "manifests" / "kubernetes" / "nginx-deployment.yaml"


def _fifo(tmp_path: Path, name: str, text: str) -> Path:
    """A named pipe that gives ``text`` to its first reader only."""
    fifo = tmp_path / name
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w") as handle:  # waits for a reader
            handle.write(text)

    threading.Thread(target=write, daemon=True).start()
    return fifo


def _podfold(*args: str) -> subprocess.CompletedProcess[str]:
    # a read that waits for ever is a failure here, not a hang of the suite
    return warm.run("podfold", [*args], cwd=REPO, timeout=60)


def test_explain_blame_names_the_lines_of_an_overlay_from_a_pipe(tmp_path: Path) -> None:
    overlay = _fifo(tmp_path, "shm.fifo", "# scratch space\n- {recipe: shm_size, size: 1Gi}\n")
    done = _podfold("explain", "--blame", "-f", str(overlay), str(DEPLOYMENT))
    assert done.returncode == 0, done.stderr
    assert f"<- {overlay}:2" in done.stdout, done.stdout


def test_a_problem_an_overlay_from_a_pipe_brought_names_its_line(tmp_path: Path) -> None:
    overlay = _fifo(tmp_path, "bad.fifo", "spec:\n  restartPolicy: always\n")
    done = _podfold("apply", "-f", str(overlay), str(DEPLOYMENT))
    assert done.returncode == 1
    assert f"(written by {overlay}:2)" in done.stderr, done.stderr


def test_a_denied_path_an_overlay_from_a_pipe_wrote_names_its_line(tmp_path: Path) -> None:
    overlay = _fifo(tmp_path, "net.fifo", "spec:\n  hostNetwork: true\n")
    done = _podfold("apply", "--deny", "spec.hostNetwork", "-f", str(overlay), str(DEPLOYMENT))
    assert done.returncode == 1
    assert f"(written by {overlay}:2)" in done.stderr, done.stderr


def test_an_overlay_error_from_a_pipe_names_its_line(tmp_path: Path) -> None:
    overlay = _fifo(
        tmp_path,
        "typo.fifo",
        '- {op: remove_at, path: "spec.containers[name=ngnix]", missing_ok: false}\n',
    )
    done = _podfold("apply", "-f", str(overlay), str(DEPLOYMENT))
    assert done.returncode == 1
    assert f"{overlay}:1" in done.stderr, done.stderr


@pytest.mark.parametrize("command", ["apply", "explain"])
def test_the_same_file_given_twice_is_read_once_each_time_it_is_named(
    tmp_path: Path, command: str
) -> None:
    overlay = tmp_path / "pool.yaml"
    overlay.write_text("spec:\n  nodeSelector: {pool: a100}\n")
    done = _podfold(command, "-f", str(overlay), "-f", str(overlay), str(DEPLOYMENT))
    assert done.returncode == 0, done.stderr
    assert "pool: a100" in done.stdout
