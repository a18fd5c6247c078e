"""The shield around the forks that share a run's work (transforms/cli/forking.py): an
interrupt that comes while the process is forked is neither a traceback in the new process
nor lost in this one."""

from __future__ import annotations

import contextlib
import os
import signal
import sys

import pytest

from transforms.cli.forking import as_helper, interrupts_held

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the forks are Linux's only")


def _forked(shielded: bool) -> tuple[int, bytes]:
    """Fork a process that is sent SIGINT at once (as a terminal's ctrl-C reaches every
    process of the group while a fork runs its hooks), then, ``shielded``, becomes a
    helper; its exit status and what it wrote on stderr."""
    readable, writable = os.pipe()
    parent = os.getpid()
    with interrupts_held() if shielded else contextlib.nullcontext() as mask:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the forked process
            status = 3
            try:
                os.dup2(writable, 2)
                # Python's own handler, as in a podfold run (a test worker may have another)
                signal.signal(signal.SIGINT, signal.default_int_handler)
                os.kill(os.getpid(), signal.SIGINT)
                if shielded:
                    as_helper(parent, mask)
                status = 0
            except BaseException as err:
                os.write(2, type(err).__name__.encode())
            finally:
                os._exit(status)
    os.close(writable)
    with os.fdopen(readable, "rb") as said:
        written = said.read()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), written


def test_an_interrupt_during_the_fork_is_ignored_by_the_helper() -> None:
    assert _forked(shielded=False) == (3, b"KeyboardInterrupt")  # what the shield prevents
    assert _forked(shielded=True) == (0, b"")


def test_an_interrupt_held_is_taken_by_this_process_as_the_hold_ends() -> None:
    taken = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: taken.append(number))
    try:
        with interrupts_held():
            os.kill(os.getpid(), signal.SIGINT)
            assert taken == []  # held
        assert taken == [signal.SIGINT]
    finally:
        signal.signal(signal.SIGINT, previous)
