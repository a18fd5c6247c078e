"""Writing a file in place, atomically: the new text whole, or the old file as it was.

:func:`write_in_place` writes the new text to a temporary file in the file's
own directory (so that renaming it over the file is one step of one
filesystem), gives it the file's mode (and its owner, where it may), flushes it
to the disk (``fsync``), then renames it over the file and flushes the
directory. Whatever stops it before the rename (a full disk, a file past its
size limit, a directory that cannot be written to, ``SIGINT``, ``SIGTERM``)
removes the temporary file and leaves the file as it was: no reader ever sees it
truncated or half-written. A symbolic link is followed: the file it names is
replaced, the link kept.

>>> import pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "job.yaml"
>>> _ = path.write_text("kind: Job  # old\\n"); path.chmod(0o640)
>>> write_in_place(str(path), "kind: Job  # new\\n")
>>> path.read_text(), oct(path.stat().st_mode & 0o777), sorted(p.name for p in path.parent.iterdir())
('kind: Job  # new\\n', '0o640', ['job.yaml'])
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from transforms.errors import OverlayError

__all__ = ("WriteError", "write_in_place", "write_files_in_place")


class WriteError(OverlayError):
    """A file could not be written in place; it is left as it was. ``source`` names it,
    ``errno`` says why, as the system said it.

    >>> print(WriteError.of(OSError(errno.EROFS, "Read-only file system"), "job.yaml"))
    job.yaml: cannot write the file in place: Read-only file system (EROFS); it is left as it was
    """

    errno: int | None = None

    @classmethod
    def of(cls, err: OSError, source: str) -> WriteError:
        code = err.errno
        name = errno.errorcode.get(code, "") if code is not None else ""
        reason = err.strerror or str(err) or type(err).__name__
        error = cls(
            f"cannot write the file in place: {reason}{f' ({name})' if name else ''}; "
            f"it is left as it was",
            source=source,
        )
        error.errno = code
        return error


class _Terminated(BaseException):
    """``SIGTERM`` arrived while a file was being written: raised to clean up, then the
    signal is delivered again, as it came."""


@contextlib.contextmanager
def _terminable() -> Iterator[None]:
    """While inside, ``SIGTERM`` raises :class:`_Terminated` (``SIGINT`` raises
    ``KeyboardInterrupt`` already), so that what was begun is undone; outside the main
    thread, where no handler can be set, the signal's own action stays."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminated(_signal: int, _frame: Any) -> None:
        raise _Terminated()

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def write_in_place(path: str, text: str) -> None:
    """Replace the file at ``path`` by ``text`` (UTF-8), atomically (see the module);
    a :class:`WriteError` naming ``path`` where it cannot, the file left as it was."""
    write_files_in_place([(path, text)])


def write_files_in_place(files: Sequence[tuple[str, str]]) -> None:
    """Replace each file ``path`` by its ``text``, each atomically (see the module): every
    new text is written to its temporary file and flushed to the disk (the flushes at
    once, on threads: the disk takes them together) before any file is renamed over,
    so that a failure to write any of them (a :class:`WriteError` naming it) or an
    interruption before the renames leaves every file as it was; the renames follow,
    then each directory is flushed once.

    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.yaml").write_text("a: 1\\n"); _ = (folder / "b.yaml").write_text("b: 1\\n")
    >>> write_files_in_place([(str(folder / "a.yaml"), "a: 2\\n"), (str(folder / "b.yaml"), "b: 2\\n")])
    >>> (folder / "a.yaml").read_text(), (folder / "b.yaml").read_text()
    ('a: 2\\n', 'b: 2\\n')
    """
    pending: list[tuple[str, str, str]] = []  # (path as given, the file, its temporary file)
    try:
        with _terminable():
            try:
                descriptors = []
                try:
                    for path, text in files:
                        target = os.path.realpath(path)
                        descriptor, temporary = _temporary(path, target, text)
                        descriptors.append(descriptor)
                        pending.append((path, target, temporary))
                    _flush(descriptors, [given for given, _, _ in pending])
                finally:
                    for descriptor in descriptors:
                        os.close(descriptor)
                while pending:
                    path, target, temporary = pending[0]
                    try:
                        os.replace(temporary, target)
                    except OSError as err:
                        raise WriteError.of(err, path) from None
                    pending.pop(0)
            except BaseException:
                for _, _, temporary in pending:
                    with contextlib.suppress(OSError):
                        os.unlink(temporary)
                raise
    except _Terminated:
        os.kill(os.getpid(), signal.SIGTERM)  # its own action now: the run ends by it
        raise
    for directory in dict.fromkeys(os.path.dirname(os.path.realpath(path)) for path, _ in files):
        _sync_directory(directory)


def _temporary(path: str, target: str, text: str) -> tuple[int, str]:
    """A temporary file beside ``target`` holding ``text``, with ``target``'s mode (and owner,
    where it may be given): its descriptor, open, and its path."""
    try:
        status = os.stat(target)
        descriptor, temporary = tempfile.mkstemp(
            prefix=f".{os.path.basename(target)}.", suffix=".podfold", dir=os.path.dirname(target)
        )
    except OSError as err:
        raise WriteError.of(err, path) from None
    try:
        _write_all(descriptor, text.encode("utf-8"))
        os.fchmod(descriptor, stat.S_IMODE(status.st_mode))
        with contextlib.suppress(OSError):  # only a privileged user may give it away
            os.fchown(descriptor, status.st_uid, status.st_gid)
    except BaseException as err:
        os.close(descriptor)
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(err, OSError):
            raise WriteError.of(err, path) from None
        raise
    return descriptor, temporary


def _flush(descriptors: Sequence[int], paths: Sequence[str]) -> None:
    """``fsync`` each descriptor, several at once; a failure is a :class:`WriteError`
    naming the first file whose flush failed."""
    if len(descriptors) <= 1:
        failures: list[BaseException | None] = [_fsync(each) for each in descriptors]
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(16, len(descriptors))) as pool:
            failures = list(pool.map(_fsync, descriptors))
    for path, failure in zip(paths, failures, strict=True):
        if isinstance(failure, OSError):
            raise WriteError.of(failure, path) from None
        if failure is not None:
            raise failure


def _fsync(descriptor: int) -> BaseException | None:
    try:
        os.fsync(descriptor)
    except BaseException as err:  # brought back to the caller's thread, as raised
        return err
    return None


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(descriptor, view)
        view = view[written:]


def _sync_directory(directory: str) -> None:
    """Flush the directory's entry of the renamed file to the disk, where it can be opened."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(descriptor)
    finally:
        os.close(descriptor)
