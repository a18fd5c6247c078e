"""A long stream folded in a second process while this one reads it: ``podfold apply`` and
``podfold validate`` on two cores.

Reading a stream (libyaml's events, and the documents made of them) is about two fifths
of what ``apply`` does with it; folding, checking and writing are the rest, and the two
are independent once a part has been read. So where the stream is long
(:func:`worthwhile`), this process reads the parts (:func:`~transforms.cli.parts.read_parts`)
and writes the output, and one worker process, forked from it, folds and checks each
part in order: the run (``_Run`` of :mod:`transforms.cli.apply`, ``_Validation`` of
:mod:`transforms.cli.validate`, with every record it keeps of the streams) lives in the
worker, which runs the same code on the same parts in the same order as this process
would, so what it finds is what this process would find; what the run's end gives
(validate's tally) is sent back. ``apply`` of regular files named each forks the
worker before the overlays are loaded, and the worker makes the run (loads the
overlays, builds the checks) while this process reads the first parts: a tenth of a
run of 1,000 Jobs, taken off its start.

* Who writes a part's YAML is decided as the worker has folded it: the worker, where no
  other part waits there (this process, still reading, is the one behind); else this
  process, once it has read all it may send (the worker is behind, or the stream is all
  read). Each does what the other has no time for.
* What the worker says on stderr (warnings, findings, a failure's message) is taken
  with each part's result and said here in order, as it would have been said;
  the progress line stays this process's (the worker counts, this process draws).
* An error the worker meets (an overlay or a flag refused as it makes the run, an
  overlay failing on a document, a check that fails the run) ends the run here with
  that error: the same exception, sent back (a usage error is said in this process's
  context, the same command's). What making the run refuses is said before anything
  this process met reading, as when the run is made first.
* An error reading a part (a syntax error, bytes that are not UTF-8) is said once the
  worker has folded every part before it, as it is when one process does all.
* At most :data:`IN_FLIGHT` parts are between the two processes at once, so the memory
  held does not grow with the stream; each process takes what the other sends as it
  comes, in a thread, so neither waits on a full pipe. A worker that dies (killed, out
  of memory) is an error naming how it ended; it never hangs the run, and nothing is
  printed. An interrupt ends both.

Only on Linux (``os.fork``), with two cores or more, and never with ``--debug`` (whose
traceback is of one process).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Sequence
from typing import Any

from combinators.errors import TransformError
from transforms.cli.forking import as_helper, flush_streams, interrupts_held

__all__ = ("IN_FLIGHT", "WORKER_BYTES", "WorkerLost", "can_fork", "worthwhile", "fold_in_worker")

WORKER_BYTES = 256 * 1024
"""The stream, in bytes, from which a second process folds it: below it, forking would
cost more than it saves."""

IN_FLIGHT = 8
"""The most parts sent to the worker and not yet given back: enough for this process to
read the first thousand documents of a stream while the worker makes the run."""


class WorkerLost(TransformError):
    """The worker ended before the run did (a signal, the system out of memory)."""


def worthwhile(paths: Sequence[str], debug: bool) -> bool:
    """Whether the streams of ``paths`` are folded in a worker: long enough
    (:data:`WORKER_BYTES` in all; standard input counts where it is a file, and a pipe
    counts as long, its length unknown), on a system that forks, with a second core."""
    if not can_fork(debug):
        return False
    import stat

    total = 0
    for path in paths:
        try:
            info = os.stat(sys.stdin.fileno() if path == "-" else path)
        except (OSError, ValueError, AttributeError):
            return False  # said by the read, in the one process
        if not stat.S_ISREG(info.st_mode):
            return path == "-" and stat.S_ISFIFO(info.st_mode)
        total += info.st_size
    return total >= WORKER_BYTES


def can_fork(debug: bool) -> bool:
    """Whether a second process may share the work: on Linux (``os.fork``), with a second
    core this process may run on, and not with ``--debug`` (whose traceback is of one
    process)."""
    if debug or sys.platform != "linux" or not hasattr(os, "fork"):
        return False
    return len(os.sched_getaffinity(0)) >= 2


class _Aborted(BaseException):
    """The reader stopped (it could not read a part): the worker stops too."""


class _Tally:
    """The worker's stand-in for the progress line: it counts, the reader draws."""

    def __init__(self, on: bool) -> None:
        self.on = on
        self.counts = {"files": 0, "documents": 0, "changed": 0}

    def update(self, *, files: int = 0, documents: int = 0, changed: int = 0) -> None:
        self.counts["files"] += files
        self.counts["documents"] += documents
        self.counts["changed"] += changed

    def take(self) -> dict[str, int]:
        counts, self.counts = self.counts, {"files": 0, "documents": 0, "changed": 0}
        return counts

    def erase(self) -> None:
        pass

    def close(self) -> None:
        pass


class _NoOutput(io.TextIOBase):
    """The worker's stdout: the output is the reader's to write, so a write here is a bug;
    its descriptor is the real one's (the checks that stdout is not the file read ask it)."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def fileno(self) -> int:
        if self._real is None:
            raise OSError("stdout is closed")
        return int(self._real.fileno())

    def write(self, text: str) -> int:
        raise RuntimeError("podfold's worker process wrote to stdout")


def _portable(err: BaseException) -> BaseException:
    """``err``, as it can be sent to the reader: itself where it pickles, else a plain
    error saying what it was. A usage error (a bad flag, met making the run) goes as
    its words alone: the reader says it in its own context (the same command's), which
    shows the usage (:meth:`_Reader._handle`)."""
    import pickle

    import click

    if isinstance(err, click.UsageError):
        return click.UsageError(err.format_message())
    try:
        pickle.loads(pickle.dumps(err))
    except Exception:
        if isinstance(err, TransformError):  # still podfold's error, in its words
            return TransformError(str(err))
        return RuntimeError(f"{type(err).__name__}: {err}")
    return err


def _child(run: Any, made: bool, receive: Any, send: Any) -> None:
    """The worker: fold each stream the reader sends, part by part, and send back each
    part's result with what was said on stderr meanwhile (``SIGINT`` is the reader's to
    handle: it ends both, :func:`~transforms.cli.forking.as_helper`). ``run`` is the
    run, or, where ``made`` is false, what makes it here (what fails there is said as
    the run's first failure). What the reader sends is taken from the pipe as it comes
    (:func:`_pass_on`), so the reader never waits on a full pipe while this process works."""
    import queue
    import threading

    from transforms.cli import progress
    from transforms.cli.options import Streamed
    from transforms.cli.parts import Part

    said = io.StringIO()
    sys.stderr, sys.stdout = said, _NoOutput(sys.stdout)
    progress._SHOWN.clear()  # the reader's line, never drawn from here
    inbox: Any = queue.Queue()
    # the reader gone (the pipe closed) is an abort
    taking = (receive, inbox, "abort", ("end", "abort"))
    threading.Thread(target=_pass_on, args=taking, daemon=True).start()
    tally = _Tally(False)

    dumps: list[bool] = []  # of each part sent, not yet folded: whether it may be written here

    def taken() -> str:
        text = said.getvalue()
        said.seek(0)
        said.truncate()
        return text

    def parts() -> Any:
        while True:
            message = inbox.get()
            if message[0] == "failed":
                raise message[1]
            if message[0] == "part":
                dumps.append(message[4])
                yield Part(*message[1:4])
            elif message[0] == "end-stream":
                return
            else:
                raise _Aborted

    ended: Any = None  # what the run's end gives
    try:
        if not made:
            run = run()
        tally.on = run.progress.on
        run.progress = tally
        from transforms.io.streams import dump_stream

        while True:
            message = inbox.get()
            if message[0] == "failed":
                raise message[1]
            if message[0] == "end":
                ended = run.end(*message[1:])
                break
            if message[0] != "stream":
                raise _Aborted
            number, source, path, several = message[1:]
            stream = Streamed(source, path, sys.stdin if path is None else path, parts())
            for result in run.stream(stream, several, number):
                # written here where the reader is ahead (nothing of it waits to be
                # folded); where it waits, the reader writes it (it has no more to read)
                dumped = dumps.pop(0) and inbox.empty()
                out = dump_stream(result) if dumped else result
                send.send(("result", out, dumped, len(result), taken(), tally.take()))
            send.send(("said", taken(), tally.take()))
        send.send(("done", taken(), None, ended))
    except _Aborted:
        send.send(("aborted", taken()))
    except BaseException as err:
        send.send(("done", taken(), _portable(err), None))


def _pass_on(connection: Any, inbox: Any, lost: str, last: tuple[str, ...]) -> None:
    """A thread of each process that takes what the other sends as it comes, so that
    neither ever waits on the other's full pipe: into ``inbox``, up to a message whose
    kind is one of ``last``; the pipe closed first is a message of the kind ``lost``,
    and any other failure (no memory left for a message) a ``failed`` one, holding
    it: the run's error, never a wait for a message that will not come."""
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            inbox.put((lost,))
            return
        except BaseException as err:
            inbox.put(("failed", err))
            return
        inbox.put(message)
        if message[0] in last:
            return


class _Reader:
    """The reader's side of a run folded in a worker (see the module)."""

    def __init__(self, run: Any, made: bool, progress: Any, printed: Any, mask: Any) -> None:
        import queue
        import threading

        from transforms.cli.channel import pipe

        self.printed, self.progress = printed, progress
        to_worker, self._send = pipe()
        from_worker, sent = pipe()
        flush_streams()
        parent = os.getpid()
        self.pid = os.fork()  # inside interrupts_held: see fold_in_worker
        if self.pid == 0:  # pragma: no cover - the worker; its work is seen in the reader
            try:
                as_helper(parent, mask)
                self._send.close()
                from_worker.close()
                _child(run, made, to_worker, sent)
            finally:
                os._exit(0)
        to_worker.close()
        sent.close()
        self._connection = from_worker
        self.inbox: Any = queue.Queue()
        taking = (from_worker, self.inbox, "lost", ("done", "aborted"))
        self.thread = threading.Thread(target=_pass_on, args=taking)
        self.thread.daemon = True
        self.thread.start()
        self.pending = 0  # parts sent, not yet given back
        self.ended = False  # the worker said it is done (or aborted)
        self.ended_with: Any = None  # what the run's end gave, in the worker

    def send(self, message: tuple[Any, ...]) -> None:
        """Send ``message``; a worker gone (it failed, and said so) is met when its last
        messages are read, by :meth:`finish`."""
        try:
            self._send.send(message)
        except OSError:
            self.finish()
            raise WorkerLost(self._how_it_ended()) from None

    def part(self, part: Any) -> None:
        """Send the next part, once fewer than :data:`IN_FLIGHT` are with the worker.
        The worker writes it (YAML) where, once it is folded, no other part waits there
        (this process is the one behind: it still reads); else it comes back as
        documents, written here (this process is ahead, or has read all): each
        process does what the other has no time for."""
        while self.pending >= IN_FLIGHT:
            self._handle(self.inbox.get())
        there = self.printed.output == "yaml"  # as YAML: the worker may write it
        self.send(("part", part.documents, part.booleans, part.first, there))
        self.pending += 1

    def _drain(self) -> None:
        import queue

        while True:
            try:
                message = self.inbox.get_nowait()
            except queue.Empty:
                return
            self._handle(message)

    def finish(self) -> None:
        """Take every message until the worker ends; raise what it failed with."""
        while not self.ended:
            self._handle(self.inbox.get())

    def _say(self, text: str) -> None:
        if text and sys.stderr is not None:  # none (closed): unsaid, as click leaves it
            from transforms.cli.progress import clear

            clear()
            sys.stderr.write(text)
            sys.stderr.flush()

    def _handle(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "result":
            self.pending -= 1
            self._say(message[4])
            if message[2]:
                self.printed.add_dumped(message[1], message[3])
            elif isinstance(message[1], str):  # a run's lines of text (validate's problems)
                self.printed.add_text(message[1])
            else:
                self.printed.add(message[1])
            self.progress.update(**message[5])
        elif kind == "said":
            self._say(message[1])
            self.progress.update(**message[2])
        elif kind == "failed":  # taking the worker's message failed here
            raise message[1]
        elif kind == "aborted":
            self.ended = True
            self._say(message[1])
        elif kind == "done":
            self.ended = True
            self._say(message[1])
            if message[2] is not None:
                import click

                failed = message[2]
                if isinstance(failed, click.UsageError) and failed.ctx is None:
                    failed.ctx = click.get_current_context(silent=True)  # the worker's, as made
                raise failed
            self.ended_with = message[3]
        else:
            self.ended = True
            raise WorkerLost(self._how_it_ended())

    def _how_it_ended(self) -> str:
        import signal

        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            return "the process folding the stream ended before the run did"
        self.pid = 0
        if os.WIFSIGNALED(status):
            number = os.WTERMSIG(status)
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = f"signal {number}"
            return f"the process folding the stream was ended by {name}; nothing was printed"
        return (
            f"the process folding the stream ended (status {os.WEXITSTATUS(status)}) before "
            f"the run did; nothing was printed"
        )

    def close(self) -> None:
        """End the worker, if it has not ended, and wait for it."""
        import signal

        self._send.close()
        if self.pid:
            if not self.ended:
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = 0
        self.thread.join(timeout=5)
        self._connection.close()


def fold_in_worker(
    run: Any, paths: Sequence[str], streams: Any, printed: Any, *, progress: Any = None
) -> Any:
    """Fold ``streams`` (:func:`~transforms.cli.options.stream_manifests` of ``paths``)
    as ``run.stream`` and ``run.end`` fold them, in a worker (see the module), adding each
    part's result to ``printed`` (:class:`~transforms.cli.withheld.Withheld`) in order:
    documents, or a text of lines; give what ``run.end`` gave there.

    Where ``progress`` (the run's line) is given, ``run`` is what makes the run, called
    in the worker: what it loads (the overlays, the checks) is loaded there while this
    process reads the first parts, and what it refuses (an overlay, a flag) is said
    before anything this process met reading, as where the run is made first."""
    started: list[_Reader] = []  # the reader, once its worker is forked
    made = progress is None
    try:
        with interrupts_held() as mask:  # taken as the hold ends, the worker known to close
            started.append(_Reader(run, made, run.progress if made else progress, printed, mask))
        reader = started[0]
        several = len(paths) > 1
        first_source = "<stdin>"
        iterator = enumerate(streams)
        while True:
            try:
                number, stream = next(iterator)
            except StopIteration:
                break
            except Exception:  # cannot open or read the stream: said after what came before
                _stop(reader)
                raise
            if number == 0:
                first_source = stream.source
            reader.send(("stream", number, stream.source, stream.path, several))
            parts = iter(stream.parts)
            while True:
                try:
                    part = next(parts)
                except StopIteration:
                    break
                except Exception:  # the part cannot be read: as above
                    _stop(reader)
                    raise
                reader.part(part)
            reader.send(("end-stream",))
        reader.send(("end", len(paths), first_source))
        reader.finish()
    finally:
        for reader in started:
            reader.close()
    return started[0].ended_with


def _stop(reader: _Reader) -> None:
    """Ask the worker to stop after the parts it has, and take what it says of them (an
    error it met there is raised: it came first)."""
    try:
        reader.send(("abort",))
    except WorkerLost:
        return
    reader.finish()
