"""The changed files of a run spliced by two processes: ``podfold apply --in-place`` on
many files, on two cores.

Where a run changes many files (a directory of manifests), splicing each file's changes
into its text is most of what ``--in-place`` adds to a plain ``apply``, and each file's
splice is independent of the others'. So where the texts to splice are long enough in
all (:data:`SHARED_CHARACTERS`), a process forked once the run is checked splices about
half of them (the longest first, each given to the process with less to do so far), and
sends each text back, while this one splices the rest (:func:`splice_all`).

What is given is what one process gives, in order: where the second process could not
splice a file (its change cannot be written exactly), it says only that, and this
process splices that file again, so that the refusal raised (naming the file's line) is
the one a single process raises; where the second process is lost (a signal, the system
out of memory), this process splices its files too. An interrupt ends it.

>>> texts = [f"a: {number}\\n" for number in range(4)]
>>> def splice(text):
...     return text.replace("a:", "b:")
>>> splice_all([(len(text), lambda text=text: splice(text)) for text in texts], debug=False, least=0)
['b: 0\\n', 'b: 1\\n', 'b: 2\\n', 'b: 3\\n']
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from transforms.cli.forking import as_helper, flush_streams, interrupts_held

if TYPE_CHECKING:
    from transforms.io.splicing import SpliceError

__all__ = ("SHARED_CHARACTERS", "splice_all")

SHARED_CHARACTERS = 64 * 1024
"""The characters, in all the texts to splice, from which a second process splices about
half of them: below it, forking costs more than it saves."""

Splice = Callable[[], str]


def splice_all(
    splices: Sequence[tuple[int | None, Splice]], debug: bool, least: int = SHARED_CHARACTERS
) -> list[str | SpliceError]:
    """What each of ``splices`` (a text's length, or ``None`` for one only this process
    may splice, and what splices it, raising :class:`~transforms.io.splicing.SpliceError`
    where it cannot) gives, in order: its text, or the refusal it raised; about half of
    them done in a second process where they are long enough in all (``least``
    characters), are two or more, and the system can share the work
    (:func:`~transforms.cli.worker.can_fork`)."""
    from transforms.cli.worker import can_fork

    there = _shares(splices) if len(splices) > 1 else []
    if not there or sum(size or 0 for size, _ in splices) < least or not can_fork(debug):
        return [_done(splice) for _, splice in splices]
    import pickle

    flush_streams()
    parent = os.getpid()
    readable, writable = os.pipe()
    pid = 0
    try:
        with interrupts_held() as mask:  # an interrupt is taken as it ends, the process known
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the second process; what it gives is tested
                try:
                    os.close(readable)
                    as_helper(parent, mask)
                    _second([splices[index][1] for index in there], writable)
                finally:
                    os._exit(0)
            os.close(writable)
        answers = os.fdopen(readable, "rb")
        spliced: dict[int, str | SpliceError] = {}
        chosen = set(there)
        for index, (_, splice) in enumerate(splices):
            if index not in chosen:
                spliced[index] = _done(splice)
        with answers:
            try:
                given = pickle.load(answers)
            except Exception:  # lost: this process splices its files
                given = [None] * len(there)
        for index, text in zip(there, given, strict=True):
            if text is not None:
                spliced[index] = text
        # a file the second process could not splice is spliced here: its refusal is the
        # one a single process gives
        return [
            spliced[index] if index in spliced else _done(splice)
            for index, (_, splice) in enumerate(splices)
        ]
    finally:
        if pid:
            import signal

            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def _done(splice: Splice) -> str | SpliceError:
    from transforms.io.splicing import SpliceError

    try:
        return splice()
    except SpliceError as err:
        return err


def _shares(splices: Sequence[tuple[int | None, object]]) -> list[int]:
    """The indexes of ``splices`` the second process does: the longest first, each given
    to the process with less to do so far (those of no length stay here); in order.

    >>> _shares([(10, None), (40, None), (20, None), (25, None)])
    [2, 3]
    >>> _shares([(10, None), (None, None), (10, None), (10, None), (10, None)])
    [2, 4]
    """
    here = there = 0
    chosen: list[int] = []
    sizes = [(size, index) for index, (size, _) in enumerate(splices) if size is not None]
    for size, index in sorted(sizes, key=lambda each: -each[0]):
        if there < here:
            there += size
            chosen.append(index)
        else:
            here += size
    return sorted(chosen)


def _second(splices: Sequence[Splice], writable: int) -> None:  # pragma: no cover
    """The second process: each of ``splices`` done, its text (or ``None`` where it
    failed: the first process does it again, and says why) answered on ``writable``."""
    import gc
    import io
    import pickle

    gc.disable()  # what is made here holds no cycle, and the process ends with it
    sys.stdout = sys.stderr = io.StringIO()  # what is said, the first process says
    texts: list[str | None] = []
    for splice in splices:
        try:
            texts.append(splice())
        except Exception:
            texts.append(None)
    with os.fdopen(writable, "wb") as answer, contextlib.suppress(OSError):
        answer.write(pickle.dumps(texts, protocol=5))
