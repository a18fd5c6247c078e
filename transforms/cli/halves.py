"""A long file's second half read, folded and spliced into its text in a second process:
``podfold apply --in-place`` on two cores.

Splicing a file's changes into its text (:func:`~transforms.io.splicing.splice`:
each change made an edit, the edited text read back and compared) costs more than
reading and folding the file. A stream's documents are read each on its own where it
has no directive (``%YAML``, ``%TAG``), and a line that begins with ``---`` (then a
space, a tab or the line's end) begins a document wherever it is in a stream YAML
reads (:mod:`transforms.io.batches`). So where a file is long (:data:`HALVES_BYTES`),
its text is cut just before the first such line after a share of it
(:func:`cut_point`, :data:`FIRST_SHARE`), and a process forked from this one as soon
as the text is read from the file reads the documents of the second half, folds them
(the overlays only: nothing checked or said) and splices them into that half's text
(:func:`second_half`), while this one reads, folds and checks every document of the
file, then splices the first half (:func:`~transforms.io.splicing.splice_part`). The
two texts, joined, are the file's (:meth:`SecondHalf.join`).

The halves never give what the whole would not. The second half's documents, as
the second process read and folded them, must be those this process folded (their
pickles' digests compared), and the halves' documents must add up to the file's.
Where one is not so, where either half is refused, or where the second process
was lost (a signal, the system out of memory), the whole text is spliced in this
process, and what that gives (the text, or the refusal naming the file's line) is
what is given. A run that fails or is interrupted ends the second process
(:meth:`SecondHalf.cancel`).

>>> text = "".join(f"---\\nname: job-{number}\\n" for number in range(4))
>>> def fold(documents, first):
...     return [{**document, "team": "ml"} for document in documents]
>>> cut_point(text, 0.4)
32
>>> half = SecondHalf.start(text, "jobs.yaml", fold, debug=False, least=0)
>>> documents = [{"name": f"job-{number}"} for number in range(4)]
>>> pairs = list(zip(documents, fold(documents, 1)))
>>> from transforms.io.splicing import splice
>>> half.join(pairs) == splice(text, pairs, "jobs.yaml")
True
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from transforms.cli.forking import as_helper, interrupts_held

if TYPE_CHECKING:
    from transforms.io.splicing import Composed

__all__ = ("FIRST_SHARE", "HALVES_BYTES", "SecondHalf", "cut_point", "second_half")

HALVES_BYTES = 256 * 1024
"""The text, in characters, from which its second half is folded and spliced in a
second process: below it, forking costs more than it saves."""

FIRST_SHARE = 0.3
"""How much of the text this process splices: less than half, as it also reads, folds
and checks every document while the second process reads and folds only its half."""

_DOCUMENT_LINE = re.compile(r"^---(?=[ \t\r\n]|\Z)", re.MULTILINE)
_DIRECTIVE = re.compile(r"^%", re.MULTILINE)


def cut_point(text: str, share: float = 0.5) -> int | None:
    """Where ``text`` may be cut in two streams of whole documents that read as its
    own: before the first line that begins a document once ``share`` of the text is
    behind; ``None`` where there is none, or where a directive makes a document's
    reading depend on what comes before it (or a byte-order mark inside the text would
    be read differently in a half).

    >>> cut_point("a: 1\\n---\\nb: 2\\n---\\nc: 3\\n"), cut_point("%YAML 1.1\\n---\\na: 1\\n---\\nb: 2\\n")
    (14, None)
    """
    if _DIRECTIVE.search(text) is not None or "\ufeff" in text[1:]:
        return None
    found = _DOCUMENT_LINE.search(text, int(len(text) * share))
    return found.start() if found is not None and found.start() > 0 else None


class SecondHalf:
    """The second half of a long file, read, folded and spliced in a forked process (see
    the module); :meth:`join` gives the file's text, :meth:`cancel` ends the process."""

    def __init__(self, text: str, source: str, cut: int, pid: int, answers: Any) -> None:
        self.text, self.source, self.cut = text, source, cut
        self.pid = pid  # 0 once the process is waited for
        self.answers = answers  # the pipe it answers on

    @classmethod
    def start(
        cls,
        text: str,
        source: str,
        fold: Callable[[list[Any], int], list[Any]],
        debug: bool,
        least: int = HALVES_BYTES,
        into: list[SecondHalf | None] | None = None,
    ) -> SecondHalf | None:
        """Fork the process that reads, folds (``fold(documents, the first one's
        number)``) and splices the second half of ``text``, a stream as read from its
        file, not yet parsed here; ``None`` where the text is shorter than ``least``,
        cannot be cut, or the system cannot share the work
        (:func:`~transforms.cli.worker.can_fork`). What is given is also appended to
        ``into`` (the run's list, whose halves it cancels as it ends) before an
        interrupt (``SIGINT``, ``SIGTERM``) is taken: no second process is started that
        the run does not know of."""
        from transforms.cli.worker import can_fork

        cut = None
        if len(text) >= least and can_fork(debug):
            cut = cut_point(text, FIRST_SHARE)
        if cut is None:
            if into is not None:
                into.append(None)
            return None
        for stream in (sys.stdout, sys.stderr):  # nothing buffered is written twice
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    stream.flush()
        parent = os.getpid()
        readable, writable = os.pipe()
        with interrupts_held() as mask:  # an interrupt is taken as it ends
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the second process; what it gives is tested by join
                try:
                    os.close(readable)
                    as_helper(parent, mask)
                    _second(text, source, fold, cut, writable)
                finally:
                    os._exit(0)
            os.close(writable)
            half = cls(text, source, cut, pid, os.fdopen(readable, "rb"))
            if into is not None:
                into.append(half)
        return half

    def join(
        self, pairs: Sequence[tuple[Any, Any]], composed: Composed | None = None
    ) -> str | None:
        """The file's text with the changes of ``pairs`` (each document before and after
        this process folded it) spliced in: the first half here (by the nodes its reader
        kept, ``composed``, where it did), the second as the second process spliced it;
        ``None`` where the halves cannot give what the whole would (see the module):
        splice the whole, then."""
        import pickle

        from transforms.io.splicing import SpliceError, line_break, splice_part

        try:
            head, held = splice_part(
                self.text[: self.cut],
                pairs,
                self.source,
                newline=line_break(self.text),
                composed=composed,
            )
        except SpliceError:  # the whole is refused, or not: it says so, naming the file's line
            self.cancel()
            return None
        with self.answers:
            answer = self.answers.read()
        # the process is waited for as the run ends (cancel): its exit, which frees what it
        # shares with this one, is not waited for here
        try:
            found = pickle.loads(answer)
        except Exception:  # the second process was lost before it answered
            return None
        if found[0] != "spliced":
            return None
        tail, count, digest = found[1:]
        if held + count != len(pairs) or count == 0:
            return None
        if digest != _digest([after for _, after in pairs[len(pairs) - count :]]):
            return None  # folded otherwise there: what is written is what was checked here
        return str(head) + str(tail)

    def cancel(self) -> None:
        """End the second process, where it has not been waited for, and wait for it."""
        import signal

        if self.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = 0
        self.answers.close()


def second_half(
    part: str, source: str, fold: Callable[[list[Any], int], list[Any]], newline: str
) -> tuple[str, list[Any]]:
    """What the second process gives of ``part``, the text of a stream from a line that
    begins a document on: its documents read (as the whole stream's reader reads
    them), folded by ``fold`` and spliced into it, what is added written with
    ``newline`` (the whole stream's line break); the text, and the documents folded.

    >>> def fold(documents, first):
    ...     return [{**document, "team": "ml"} for document in documents]
    >>> second_half("---\\nname: b  # kept\\n", "m.yaml", fold, "\\n")
    ('---\\nname: b  # kept\\nteam: ml\\n', [{'name': 'b', 'team': 'ml'}])
    """
    from transforms.cli.documents import read_manifest
    from transforms.io.splicing import Composed, splice_part

    nodes: list[Any] = []
    befores, _ = read_manifest(part, source, nodes)
    # only messages depend on the number of the first document, and none is said here
    afters = fold(befores, 1)
    pairs = list(zip(befores, afters, strict=True))
    composed = Composed.of(part, nodes)
    spliced, _ = splice_part(part, pairs, source, last=True, newline=newline, composed=composed)
    return spliced, afters


def _digest(documents: Sequence[Any]) -> bytes:
    """What tells two lists of documents apart: the digest of their pickles, written
    without the pickler's memo, so that it depends on the values, their kinds and their
    keys' order only, not on which of them are one object (each process reads its own
    documents); any difference makes the whole be spliced here.

    >>> name = "name"
    >>> _digest([{name: 1}, {name: 1}]) == _digest([{"name": 1}, {"".join(["na", "me"]): 1}])
    True
    >>> _digest([{"a": 1}]) == _digest([{"a": 1.0}]) or _digest([{"a": 1, "b": 2}]) == _digest([{"b": 2, "a": 1}])
    False
    """
    import hashlib
    import io
    import pickle

    written = io.BytesIO()
    pickler = pickle.Pickler(written, protocol=4)
    pickler.fast = True  # no memo: a tree of plain data, written value by value
    pickler.dump(list(documents))
    return hashlib.sha256(written.getvalue()).digest()


def _second(
    text: str,
    source: str,
    fold: Callable[[list[Any], int], list[Any]],
    cut: int,
    writable: int,
) -> None:  # pragma: no cover - run in the second process
    """The second process: read, fold and splice the documents of ``text[cut:]``
    (:func:`second_half`), and answer ``("spliced", the half's text, how many documents
    it holds, their digest)`` on the pipe ``writable``, or ``("refused",)``: the first
    process then splices the whole."""
    import gc
    import io
    import pickle

    from transforms.io.splicing import line_break

    # the process lives for its half only, and what it makes (the half's documents and
    # nodes, edits and text read back) holds no cycle: collections would only walk it,
    # and the objects it shares with the first process
    gc.disable()

    sys.stdout = sys.stderr = io.StringIO()  # what is said, the first process says
    found: tuple[Any, ...]
    try:
        spliced, afters = second_half(text[cut:], source, fold, line_break(text))
        found = ("spliced", spliced, len(afters), _digest(afters))
    except Exception:  # the first process splices the whole, and says what is wrong
        found = ("refused",)
    with os.fdopen(writable, "wb") as answer:
        answer.write(pickle.dumps(found, protocol=pickle.HIGHEST_PROTOCOL))
