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
>>> with interrupts_held():
...     signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set())
True
>>> signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set())
False
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

__all__ = ("as_helper", "interrupts_held")


@contextlib.contextmanager
def interrupts_held() -> Iterator[Any]:
    """``SIGINT`` and ``SIGTERM`` held inside (the mask before, given); one that came
    meanwhile is taken as the block ends."""
    import signal

    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield mask
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


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
