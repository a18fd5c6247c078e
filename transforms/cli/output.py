"""Where the commands' output goes: written whole and flushed, or an :class:`OutputError`.

Every command writes what it prints on stdout through :func:`echo`. It writes
the text's bytes itself, to the binary layer under ``sys.stdout``, until every
byte is written (an unbuffered stdout, as under ``PYTHONUNBUFFERED=1``, takes
part of a write and says so in the count it returns, which Python's text
layer drops), and flushes them, so that a full disk (``ENOSPC``), a file past
its size limit (``EFBIG``), a closed stdout and a reader that went away
(``EPIPE``: ``podfold apply ... | head``) are each an error at the write that
failed, naming the output, never output lost with exit code 0.

>>> import io, sys
>>> saved, sys.stdout = sys.stdout, io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
>>> echo("kind: Pod"); written = sys.stdout.buffer.getvalue(); sys.stdout = saved
>>> written
b'kind: Pod\\n'
"""

from __future__ import annotations

import codecs
import errno
import os
import sys
from typing import Any

from combinators import TransformError

__all__ = ("OutputError", "echo", "flush_stdout", "discard_stdout", "stdout_name")

_CHUNK = 1 << 20
"""Characters encoded and written at a time: a large output is not held twice, as text and
as bytes, on its way out."""


class OutputError(TransformError):
    """The output could not be written whole: ``target`` names where it was going
    (``stdout``, with the file behind it where it is one), ``errno`` and ``strerror``
    say why, as the system said it.

    It is no ``OSError``, though it stands for one: click ends a command that raises
    an ``OSError`` of ``EPIPE`` itself, with exit code 1 and nothing said, before
    podfold's ``main`` could end it as a broken pipe ends a writer.

    >>> err = OutputError.of(OSError(errno.ENOSPC, "No space left on device"), "stdout")
    >>> print(err)
    stdout: cannot write the output: No space left on device (ENOSPC); what was written is incomplete
    >>> err.errno == errno.ENOSPC, err.broken_pipe
    (True, False)
    """

    def __init__(
        self, message: str, *, target: str, code: int | None = None, reason: str = ""
    ) -> None:
        super().__init__(message)
        self.target = target
        self.errno = code
        self.strerror = reason

    @classmethod
    def of(cls, err: OSError, target: str) -> OutputError:
        """The error for ``err``, raised while writing to ``target``."""
        code = err.errno
        reason = err.strerror or str(err) or type(err).__name__
        name = errno.errorcode.get(code, "") if code is not None else ""
        return cls(
            f"{target}: cannot write the output: {reason}{f' ({name})' if name else ''}; "
            f"what was written is incomplete",
            target=target,
            code=code,
            reason=reason,
        )

    @classmethod
    def closed(cls) -> OutputError:
        """The error for a stdout that is not open (``podfold ... >&-``)."""
        return cls(
            "stdout: cannot write the output: it is closed (EBADF); give podfold a "
            "stdout, a file or a pipe ('> out.yaml')",
            target="stdout",
            code=errno.EBADF,
            reason="stdout is closed",
        )

    @property
    def broken_pipe(self) -> bool:
        """Whether the reader of a pipe went away (``EPIPE``): it chose to stop reading."""
        return self.errno == errno.EPIPE


def stdout_name() -> str:
    """``stdout``, and the file it writes to where that is a regular file
    (``stdout (out.yaml)``): what an :class:`OutputError` names.

    >>> stdout_name().startswith("stdout")
    True
    """
    import stat

    try:
        if stat.S_ISREG(os.fstat(sys.stdout.fileno()).st_mode):
            return f"stdout ({os.readlink(f'/proc/self/fd/{sys.stdout.fileno()}')})"
    except (AttributeError, OSError, ValueError):  # no file, or no /proc to name it
        pass
    return "stdout"


def echo(message: str = "", *, nl: bool = True, color: bool | None = None) -> None:
    """Write ``message`` (and a line break, where ``nl``) on stdout, whole, and flush it,
    as ``click.echo`` writes it (ANSI styles removed unless ``color``, or stdout is a
    terminal and ``color`` is ``None``); an :class:`OutputError` where it cannot.

    >>> import io, sys
    >>> saved, sys.stdout = sys.stdout, io.StringIO()
    >>> echo("\\x1b[1m# bold\\x1b[0m", nl=False); written = sys.stdout.getvalue()
    >>> sys.stdout = saved
    >>> written
    '# bold'
    """
    import click
    from click.globals import resolve_color_default

    stream: Any = sys.stdout
    if stream is None:  # Python found no descriptor 1 when it started
        raise OutputError.closed()
    text = f"{message}\n" if nl else message
    keep = resolve_color_default(color)
    if not keep and (keep is not None or not _isatty(stream)):
        text = click.unstyle(text)
    try:
        buffer = getattr(stream, "buffer", None)
        if buffer is None:  # a text stream with no bytes under it (a test's StringIO)
            stream.write(text)
            stream.flush()
            return
        stream.flush()  # what anything wrote through the text layer goes out first
        encoder = codecs.getincrementalencoder(_encoding(stream))(stream.errors or "strict")
        for start in range(0, len(text), _CHUNK):
            _write_all(buffer, encoder.encode(text[start : start + _CHUNK]))
        _write_all(buffer, encoder.encode("", final=True))
        buffer.flush()
    except OSError as err:
        raise OutputError.of(err, stdout_name()) from None
    except ValueError:  # the stream was closed (sys.stdout.close())
        if not getattr(stream, "closed", False):
            raise
        raise OutputError.closed() from None


def flush_stdout() -> None:
    """Flush stdout: what is still buffered when a command ends is written now, while an
    error can say so (an :class:`OutputError`), not by Python on the way out."""
    stream: Any = sys.stdout
    if stream is None or getattr(stream, "closed", False):
        return
    try:
        stream.flush()
    except OSError as err:
        raise OutputError.of(err, stdout_name()) from None


def discard_stdout() -> None:
    """Point descriptor 1 at ``/dev/null`` after a write to it failed, so that what is
    left in stdout's buffers goes nowhere when Python flushes them on its way out, rather
    than failing again ("Exception ignored ...", exit code 120): Python's own recipe
    for a broken pipe."""
    stream: Any = sys.stdout
    try:
        if stream is None or stream.fileno() != 1:  # descriptor 1 is not stdout's: leave it
            return
    except (OSError, ValueError):  # closed, or no descriptor (a test's stream)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
    finally:
        os.close(devnull)


def _write_all(buffer: Any, data: bytes) -> None:
    """Write every byte of ``data`` to ``buffer``: a raw file takes part of a write and
    returns the count (a pipe, a file at its size limit); a non-blocking one takes none
    (``None``, ``BlockingIOError``) until the reader is ready."""
    view = memoryview(data)
    start, end = 0, len(view)
    while start < end:
        try:
            written = buffer.write(view[start:])
        except BlockingIOError as err:
            start += err.characters_written
            _wait_writable(buffer)
            continue
        if written is None:
            _wait_writable(buffer)
            continue
        if written == 0:  # nothing taken, and no error to say why: never loop on it
            raise OSError(errno.EIO, "the output took no bytes")
        start += written


def _wait_writable(buffer: Any) -> None:
    import select

    select.select([], [buffer.fileno()], [])


def _encoding(stream: Any) -> str:
    """The stream's encoding, UTF-8 where it is ASCII (as click writes: a C locale)."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    return "utf-8" if codecs.lookup(encoding).name == "ascii" else encoding


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (OSError, ValueError):
        return False
