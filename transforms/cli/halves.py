"""A long file read, folded and spliced in two halves, the second in a second process:
``podfold apply --in-place`` on two cores.

Splicing a file's changes into its text (:func:`~transforms.io.splicing.splice`:
each change made an edit, the edited text read back and compared) costs more than
reading and folding the file. A stream's documents are read each on its own where it
has no directive (``%YAML``, ``%TAG``), and a line that begins with ``---`` (then a
space, a tab or the line's end) begins a document wherever it is in a stream YAML
reads (:mod:`transforms.io.batches`). So where a file is long (:data:`HALVES_BYTES`),
its text is cut just before the first such line after a share of it
(:func:`cut_point`, :data:`FIRST_SHARE`), and a process forked from this one as soon
as the text is read from the file reads the documents of the second half, folds them,
checks them (numbered after the first half's, as this process tells it once it has
read them; nothing is said there), sends them to this process, each before and after
the fold, with what the checks found, then splices them into that half's text and
sends that too. Meanwhile this process reads, folds, checks and splices the first
half (:meth:`SecondHalf.read`); then it takes the second half's documents, and the run
takes what the checks of both halves found, in order, and says it as it does for a
file read whole (:class:`~transforms.cli.parts.Part`'s ``checked``); the two texts,
joined, are the file's (:meth:`SecondHalf.join`). Neither process reads, folds or
checks what the other does. Each process that is still to give its text holds its
half, so no more than :data:`LIVE` are alive at once.

The halves never give what the whole would not. Where a half cannot be read or
folded (a syntax error, a document that is no map, an overlay that fails), where the
aliases of both halves expand to more than the stream's bound, or where the second
process was lost before it answered (a signal, the system out of memory), the file
is read and folded whole in this process, so that what is said of it (the error,
naming the file's line) is what reading it whole says. Where a half is refused a
splice, or the second process was lost before it sent its text, the whole is spliced
in this process, and what that gives (the text, or the refusal naming the file's
line) is what is given. Where the second half's checks fail, this process checks
those documents itself, and says what fails. What is checked is what is written:
the second half's documents come to this process as the second process folded,
checked and spliced them (pickled, each before and after the fold, sharing what
they share). A run that fails or is interrupted ends the second process
(:meth:`SecondHalf.cancel`).

>>> text = "".join(f"---\\nname: job-{number}\\n" for number in range(4))
>>> def fold(documents, first):
...     return [{**document, "team": "ml"} for document in documents]
>>> cut_point(text, 0.4)
32
>>> half = SecondHalf.start(text, "jobs.yaml", fold, debug=False, least=0)
>>> read = half.read(fold)
>>> read.documents == [{"name": f"job-{number}"} for number in range(4)]
True
>>> pairs = list(zip(read.documents, read.folded))
>>> from transforms.io.splicing import splice
>>> half.join(pairs) == splice(text, pairs, "jobs.yaml")
True
>>> half.cancel()
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from transforms.cli.forking import as_helper, flush_streams, interrupts_held

if TYPE_CHECKING:
    from transforms.cli.checks import Findings

__all__ = ("FIRST_SHARE", "HALVES_BYTES", "LIVE", "Read", "SecondHalf", "cut_point", "second_half")

LIVE = 2
"""The most second processes alive at once: each holds its half until its text is
taken, and a run of many long files takes the oldest's before it starts another."""

HALVES_BYTES = 256 * 1024
"""The text, in characters, from which its second half is read, folded and spliced in a
second process: below it, forking costs more than it saves."""

FIRST_SHARE = 0.5
"""How much of the text this process reads, folds, checks and splices: each process
does the same with its half, where the second also writes its documents for this one
to take (per-phase traces of 1,000 Jobs end the two together about here)."""

_DOCUMENT_LINE = re.compile(r"^---(?=[ \t\r\n]|\Z)", re.MULTILINE)
_DIRECTIVE = re.compile(r"^%", re.MULTILINE)

Fold = Callable[[list[Any], int], list[Any]]
Found = tuple["Findings", dict[str, str]]
Check = Callable[[list[Any], list[Any], int], Found]


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


@dataclass(frozen=True)
class Read:
    """A long file as its two halves read it: ``documents``, the stream's, in order (empty
    ones left out), ``booleans``, the plain YAML 1.1 booleans written in them
    (:class:`~transforms.io.booleans.PlainBoolean`: documents and lines of the file), and
    ``folded``, each document with the overlays folded over it; ``checked``, where the
    documents from one on were checked as they were read: its index, and what the checks
    of each half found, in order (:meth:`~transforms.cli.checks.TemplateChecks.found`)."""

    documents: list[Any]
    booleans: list[Any]
    folded: list[Any]
    checked: tuple[int, list[Found]] | None = None


class SecondHalf:
    """The second half of a long file, read, folded and spliced in a forked process (see
    the module): :meth:`read` gives the file's documents, :meth:`join` its text,
    :meth:`cancel` ends the process."""

    def __init__(
        self,
        text: str,
        source: str,
        cut: int,
        pid: int,
        answers: Any,
        told: int = -1,
        check: Check | None = None,
    ) -> None:
        self.text, self.source, self.cut, self.check = text, source, cut, check
        self.pid = pid  # 0 once the process is waited for
        self.answers = answers  # the pipe it answers on
        self.told = told  # the pipe it is told on how many documents the first half holds
        self.head: str | None = None  # the first half's text spliced, once read (and not refused)
        self.held = 0  # the documents of the first half
        self.count = 0  # and of the second
        self.tail: str | None = None  # the second half's text spliced, once taken

    @classmethod
    def start(
        cls,
        text: str,
        source: str,
        fold: Fold,
        debug: bool,
        least: int = HALVES_BYTES,
        into: list[SecondHalf] | None = None,
        check: Check | None = None,
    ) -> SecondHalf | None:
        """Fork the process that reads, folds (``fold(documents, the first one's
        number)``), checks (``check(documents, folded, the first one's number)``, where
        given: what the checks found) and splices the second half of ``text``, a stream
        as read from its file, not yet parsed; ``None`` where the text is shorter than ``least``,
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
            return None
        if into is not None:  # at most LIVE processes at once, whatever the files
            waiting = [half for half in into if half.pid]
            for half in waiting[: max(0, len(waiting) - LIVE + 1)]:
                half.take()
        flush_streams()
        parent = os.getpid()
        readable, writable = os.pipe()
        hears, told = os.pipe() if check is not None else (-1, -1)
        with interrupts_held() as mask:  # an interrupt is taken as it ends
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the second process; what it gives is tested by read
                try:
                    os.close(readable)
                    if told >= 0:
                        os.close(told)
                    as_helper(parent, mask)
                    _second(text, source, fold, cut, writable, check, hears)
                finally:
                    os._exit(0)
            os.close(writable)
            if hears >= 0:
                os.close(hears)
            half = cls(text, source, cut, pid, os.fdopen(readable, "rb"), told, check)
            if into is not None:
                into.append(half)
        return half

    def read(self, fold: Fold) -> Read | None:
        """Read, fold, check and splice the first half here (a half whose checks fail is
        not spliced: the run writes nothing), then take the second half's documents as
        the second process read, folded and checked them: the file's; ``None``
        (the second process ended) where the halves cannot give what the whole would
        (see the module): read the whole here, then."""
        import gc

        from transforms.cli.documents import read_manifest
        from transforms.io.batches import line_breaks
        from transforms.io.safe_yaml import MAX_NODES
        from transforms.io.splicing import Composed, SpliceError, line_break, splice_part

        head = self.text[: self.cut]
        nodes: list[Any] = []
        added = [0]
        # what is made here (documents, nodes, edits, the text read back) holds no cycle:
        # the collector would walk it again and again, for nothing, as the second does not
        collecting = gc.isenabled()
        gc.disable()
        try:
            try:
                documents, booleans = read_manifest(head, self.source, nodes, added)
                self._tell(len(documents))  # the second half's documents' numbers
                folded = fold(documents, 1)
            except Exception:  # what is wrong is said as the whole is read (or folded)
                self.cancel()
                return None
            checked = _checked(self.check, documents, folded, 1)
            pairs = list(zip(documents, folded, strict=True))
            try:
                if checked is None or not checked[0].failed:  # else nothing is written
                    self.head, self.held = splice_part(
                        head,
                        pairs,
                        self.source,
                        newline=line_break(self.text),
                        composed=Composed.of(head, nodes),
                    )
            except SpliceError:  # the whole is refused, or not: it says so, naming its line
                self.head = None
            answer = self._answer()
        finally:
            if collecting:
                # what was read and taken lives to the run's end: kept out of the collector's
                # walks, which its count, grown meanwhile, would start at once
                gc.freeze()
                gc.enable()
        if answer is None or answer[0] != "read" or added[0] + answer[4] > MAX_NODES:
            self.cancel()  # lost, refused, or aliases the whole stream refuses
            return None
        if self.head is None:  # spliced whole, here: the second half's text is not needed
            self.cancel()
        befores, afters, found = answer[1:4]
        self.count = len(befores)
        if found:
            import dataclasses

            lines = line_breaks(head.encode("utf-8", "surrogatepass"))
            found = [
                dataclasses.replace(
                    boolean, document=boolean.document + len(documents), line=boolean.line + lines
                )
                for boolean in found
            ]
        there: Found | None = answer[5]
        each = None
        if there is not None:  # the first half's checks given too, where they were made
            each = (0, [checked, there]) if checked is not None else (len(documents), [there])
        return Read(documents + befores, booleans + found, folded + afters, each)

    def _tell(self, count: int) -> None:
        """Tell the second process how many documents the first half holds (it numbers
        its own by it), where it checks them."""
        if self.told >= 0:
            told, self.told = self.told, -1
            try:
                os.write(told, count.to_bytes(8, "big"))
            except OSError:  # it ended: what it answers says so
                pass
            finally:
                os.close(told)

    def join(self, pairs: Sequence[tuple[Any, Any]]) -> str | None:
        """The file's text with the changes of ``pairs`` (each document of the file
        before and after it was folded, as :meth:`read` gave them) spliced in: the first
        half's as this process spliced it, the second's as the second process did;
        ``None`` where the halves cannot give what the whole would (see the module):
        splice the whole, then."""
        if self.head is None or self.held + self.count != len(pairs):
            return None
        self.take()
        return None if self.tail is None else self.head + self.tail

    def take(self) -> None:
        """Take the second half's text (waiting for the second process to splice it),
        where it was not taken, and end the process: it holds its half's documents and
        nodes until its text is taken. :attr:`tail` is ``None`` after, where the process
        was refused the splice or lost."""
        if self.pid:
            answer = self._answer()
            if answer is not None and answer[0] == "spliced":
                self.tail = str(answer[1])
            self.cancel()

    def _answer(self) -> tuple[Any, ...] | None:
        """The second process's next answer; ``None`` where it ended before it gave it."""
        import pickle

        try:
            answer = pickle.load(self.answers)
        except Exception:  # lost: the pipe ended, or ended inside an answer
            return None
        return answer if isinstance(answer, tuple) and answer else None

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
        if self.told >= 0:
            os.close(self.told)
            self.told = -1


def second_half(part: str, source: str, fold: Fold, newline: str) -> tuple[str, list[Any]]:
    """What the second process gives of ``part``, the text of a stream from a line that
    begins a document on: its documents read (as the whole stream's reader reads
    them), folded by ``fold`` and spliced into it, what is added written with
    ``newline`` (the whole stream's line break); the text, and the documents folded.

    >>> def fold(documents, first):
    ...     return [{**document, "team": "ml"} for document in documents]
    >>> second_half("---\\nname: b  # kept\\n", "m.yaml", fold, "\\n")
    ('---\\nname: b  # kept\\nteam: ml\\n', [{'name': 'b', 'team': 'ml'}])
    """
    befores, afters, _, _, nodes = _read(part, source, fold)
    return _splice(part, befores, afters, source, newline, nodes), afters


def _checked(
    check: Check | None, documents: list[Any], folded: list[Any], first: int
) -> Found | None:
    """What ``check`` finds of ``documents`` (``folded`` the fold of them, ``first`` the
    number of the first); ``None`` where there is no check, or it fails: the run checks
    them again, and says why."""
    if check is None:
        return None
    try:
        return check(documents, folded, first)
    except Exception:
        return None


def _heard(hears: int) -> int | None:  # pragma: no cover - in the second process
    """How many documents the first half holds, as the first process tells it on the pipe
    ``hears``; ``None`` where it ended the pipe without (it could not read its half)."""
    data = b""
    with contextlib.suppress(OSError):
        while len(data) < 8:
            more = os.read(hears, 8 - len(data))
            if not more:
                return None
            data += more
    return int.from_bytes(data, "big") if len(data) == 8 else None


def _read(
    part: str, source: str, fold: Fold
) -> tuple[list[Any], list[Any], list[Any], int, list[Any]]:
    """The documents of ``part`` (see :func:`second_half`), each folded; the plain YAML
    1.1 booleans written in them, how many nodes their aliases add, and their nodes."""
    from transforms.cli.documents import read_manifest

    nodes: list[Any] = []
    added = [0]
    befores, booleans = read_manifest(part, source, nodes, added)
    # only messages depend on the number of the first document, and none is said here
    return befores, fold(befores, 1), booleans, added[0], nodes


def _splice(
    part: str, befores: list[Any], afters: list[Any], source: str, newline: str, nodes: list[Any]
) -> str:
    from transforms.io.splicing import Composed, splice_part

    pairs = list(zip(befores, afters, strict=True))
    composed = Composed.of(part, nodes)
    return splice_part(part, pairs, source, last=True, newline=newline, composed=composed)[0]


def _second(
    text: str,
    source: str,
    fold: Fold,
    cut: int,
    writable: int,
    check: Check | None = None,
    hears: int = -1,
) -> None:  # pragma: no cover - run in the second process
    """The second process: read and fold the documents of ``text[cut:]``, check them
    (where ``check`` is given, numbered after the first half's documents, as the first
    process tells on the pipe ``hears``), answer ``("read", the documents, each folded,
    their plain booleans, the nodes their aliases add, what the checks found or
    ``None``)`` on the pipe ``writable``, splice them into that text, and answer
    ``("spliced", the text)``; or ``("refused",)`` where either fails: the first
    process then reads (or splices) the whole, and says what is wrong. Checks that
    fail, or a first half not told, leave the checks to the first process."""
    import gc
    import io
    import pickle
    import threading

    from transforms.io.splicing import line_break

    # the process lives for its half only, and what it makes (the half's documents and
    # nodes, edits and text read back) holds no cycle: collections would only walk it,
    # and the objects it shares with the first process
    gc.disable()

    sys.stdout = sys.stderr = io.StringIO()  # what is said, the first process says
    part = text[cut:]
    with os.fdopen(writable, "wb") as answers, contextlib.suppress(OSError):
        try:
            befores, afters, booleans, added, nodes = _read(part, source, fold)
            held = _heard(hears) if check is not None else None
            checked = None if held is None else _checked(check, befores, afters, held + 1)
            # one pickle: what a document folded shares with it is shared when read back
            sent = pickle.dumps(("read", befores, afters, booleans, added, checked), protocol=5)
        except Exception:
            answers.write(pickle.dumps(("refused",)))
            return
        # written while the half is spliced: the first process takes it once its own is
        writer = threading.Thread(target=_write, args=(answers, sent))
        writer.start()
        found: tuple[Any, ...] = ("refused",)  # the first process splices the whole
        if checked is None or not checked[0].failed:  # else the run fails: nothing is written
            with contextlib.suppress(Exception):  # and says what is wrong
                found = ("spliced", _splice(part, befores, afters, source, line_break(text), nodes))
        writer.join()
        answers.write(pickle.dumps(found, protocol=5))


def _write(answers: Any, data: bytes) -> None:  # pragma: no cover - in the second process
    with contextlib.suppress(OSError, ValueError):  # the first process ended: nothing to say
        answers.write(data)
        answers.flush()
