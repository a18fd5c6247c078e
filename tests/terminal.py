"""Run ``podfold`` with one of its streams on a pseudo-terminal, as a user's shell has it.

The terminal is read as the program writes (a terminal's buffer holds a few kilobytes: a
program writing more would wait for a reader that only comes once it has ended), and
until its other side is closed; the other stream is a pipe.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading
from pathlib import Path

__all__ = ("on_a_terminal",)

PODFOLD = Path(sys.executable).with_name("podfold")


def on_a_terminal(
    args: list[str], cwd: Path, stream: str = "stderr", timeout: float = 120
) -> tuple[int, bytes, bytes]:
    """Run ``podfold ARGS`` in ``cwd`` with ``stream`` (``"stdout"`` or ``"stderr"``) on a
    pseudo-terminal: its exit status, what it wrote on the other stream (a pipe), and what
    the terminal got."""
    if stream not in ("stdout", "stderr"):
        raise ValueError(f"stream: 'stdout' or 'stderr', not {stream!r}")
    leader, follower = pty.openpty()
    shown: list[bytes] = []

    def read_terminal() -> None:
        while True:
            try:
                chunk = os.read(leader, 1 << 16)
            except OSError:  # the terminal's other side closed: all read
                return
            if not chunk:
                return
            shown.append(chunk)

    reader = threading.Thread(target=read_terminal, daemon=True)
    reader.start()
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, stream: follower}
    try:
        done = subprocess.run(
            [str(PODFOLD), *args],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=streams["stdout"],
            stderr=streams["stderr"],
            timeout=timeout,
            check=False,
        )
    finally:
        os.close(follower)
        reader.join(timeout=30)
        os.close(leader)
    other = done.stderr if stream == "stdout" else done.stdout
    return done.returncode, other, b"".join(shown)
