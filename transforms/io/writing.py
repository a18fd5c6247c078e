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
from collections.abc import Iterator
from typing import Any

from transforms.errors import OverlayError

__all__ = ("WriteError", "write_in_place")


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
    target = os.path.realpath(path)
    data = text.encode("utf-8")
    try:
        status = os.stat(target)
        directory = os.path.dirname(target)
        descriptor, temporary = tempfile.mkstemp(
            prefix=f".{os.path.basename(target)}.", suffix=".podfold", dir=directory
        )
    except OSError as err:
        raise WriteError.of(err, path) from None
    try:
        with _terminable():
            try:
                _write_all(descriptor, data)
                os.fchmod(descriptor, stat.S_IMODE(status.st_mode))
                with contextlib.suppress(OSError):  # only a privileged user may give it away
                    os.fchown(descriptor, status.st_uid, status.st_gid)
                os.fsync(descriptor)
            finally:
                os.close(descriptor)
            os.replace(temporary, target)
    except BaseException as err:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(err, _Terminated):
            os.kill(os.getpid(), signal.SIGTERM)  # its own action now: the run ends by it
        if isinstance(err, OSError):
            raise WriteError.of(err, path) from None
        raise
    _sync_directory(directory)


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
