"""A second process forked to share a run's work (the stream's worker,
:mod:`transforms.cli.worker`; a long file's second half, :mod:`transforms.cli.halves`),
shielded from the interrupts that end the run.

A terminal's ctrl-C sends ``SIGINT`` to every process of the group. One that arrives
while :func:`os.fork` runs its hooks in the new process (``threading``'s, say) raises
``KeyboardInterrupt`` there, before the process could ignore it, and Python prints it
on the run's stderr as an ignored exception's traceback. And one that arrives in this
process between the fork and the moment the run knows of the new process ends the run
without ending that process. So ``SIGINT`` and ``SIGTERM`` are held (blocked) from
before the fork (:func:`interrupts_held`) until the run has registered the new
process, and the new process, before it takes them, ignores ``SIGINT`` (the run's to
handle: it ends both), lets ``SIGTERM`` end it, and asks to be killed when the run's
process ends, even killed outright (:func:`as_helper`).

>>> import signal
>>> taken = []
>>> previous = signal.signal(signal.SIGINT, lambda number, _: taken.append(number))
>>> with interrupts_held():
...     signal.raise_signal(signal.SIGINT)
...     taken
[]
>>> taken == [signal.SIGINT]
True
>>> _ = signal.signal(signal.SIGINT, previous)
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

__all__ = ("as_helper", "flush_streams", "interrupts_held")


def flush_streams() -> None:
    """Flush what this process buffered for stdout and stderr, before it forks: nothing
    buffered is written twice (once by each process). A stream that cannot be flushed
    (closed, a full disk) is left: its fault is said as this process writes to it next."""
    import sys

    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            with contextlib.suppress(OSError, ValueError):
                stream.flush()


@contextlib.contextmanager
def interrupts_held() -> Iterator[Any]:
    """``SIGINT`` and ``SIGTERM`` held inside (the signal mask before it, given); one
    that came meanwhile is taken as the block ends, by the handler it would have met.

    Blocking them is this thread's only; another thread (fsspec's, reading a URL) may
    still take one, and Python runs its handler in this thread: so the handlers are
    also replaced meanwhile by one that keeps the signal for the end."""
    import signal
    import threading

    kept: list[int] = []
    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():  # where handlers are set
        for held in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(held) is not None:  # None: not set from Python, kept
                previous[held] = signal.signal(held, lambda number, _: kept.append(number))
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield mask
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # what was blocked comes in now
        for restored, handler in previous.items():
            signal.signal(restored, handler)
        for taken in dict.fromkeys(kept):
            signal.raise_signal(taken)


def as_helper(parent: int, mask: Any) -> None:  # pragma: no cover - in the forked process
    """In a process forked inside :func:`interrupts_held` from ``parent``: ``SIGINT``
    ignored, ``SIGTERM`` ending it, killed when ``parent`` ends (Linux's parent-death
    signal), then ``mask`` restored, so that what was held is taken under those rules;
    ended at once where ``parent`` ended already."""
    import ctypes
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # it ended before the signal was asked for
        os._exit(0)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
