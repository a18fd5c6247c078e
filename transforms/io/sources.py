"""Reading a source within bounds: what it is, how large, and, through a URI, how long.

Whatever podfold reads (an overlay's path or URI, a manifest's file or
standard input) is read so that no source can hold it up or fill its memory,
and whatever stops a read is one line naming the source:

* a path (``file://`` too) names a regular file or a pipe (a FIFO,
  ``/dev/stdin`` fed by a pipe, a shell's ``<(...)``); a device (``/dev/zero``,
  ``/dev/urandom``, a disk) is refused before it is read, except ``/dev/null``
  (read as empty) and, on standard input, a terminal (read as it is typed); a
  directory is refused by the system, in its own words;
* a source larger than its bound is refused: an overlay past
  ``PODFOLD_MAX_OVERLAY_BYTES`` (:data:`MAX_OVERLAY_BYTES`, 16 MiB, by
  default), a manifest past ``PODFOLD_MAX_MANIFEST_BYTES``
  (:data:`MAX_MANIFEST_BYTES`, 256 MiB); a size known beforehand (a file's,
  a zip member's, a server's ``Content-Length``) is refused before a byte is
  read, and any source is read in chunks and given up at the first byte past
  its bound, so that an endless one (a pipe from ``/dev/zero``, a server that
  never ends its body, a zip member that inflates without end) costs no more
  memory than the bound;
* a URI (any other with ``://`` or ``::``, read through fsspec: ``https://``,
  ``s3://``, ``zip://o.yaml::bundle.zip``) is read in at most
  ``PODFOLD_READ_TIMEOUT`` seconds (:data:`READ_TIMEOUT`, 30, by default),
  connecting included: a server that never answers, stalls halfway or sends
  without end is given up on then;
* every other failure of the read (an ``OSError`` above all: a file that is
  not there, ``/proc/self/mem``'s input/output error) is said with the
  system's words, the source named.

The variables are read when a source is read, not when podfold is imported
(the functions take the bounds as arguments too); sizes are numbers of bytes,
or Kubernetes quantities (``64Mi``, ``1Gi``).

>>> read_source("/dev/zero")
Traceback (most recent call last):
  ...
transforms.errors.OverlayError: /dev/zero: cannot read the overlay: it is a character device, not a file (a path is read if it names a regular file or a pipe)
>>> import io
>>> read_open(io.BytesIO(b"a: 1\\n" * 1000), "<stdin>", "manifest", limit=1024)
Traceback (most recent call last):
  ...
transforms.errors.OverlayError: <stdin>: cannot read the manifest: it is larger than the 1 KiB a manifest may hold (PODFOLD_MAX_MANIFEST_BYTES sets the bound)
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable, Sequence
from typing import IO, Any, TypeVar

from transforms.errors import OverlayError

__all__ = (
    "MAX_OVERLAY_BYTES",
    "MAX_MANIFEST_BYTES",
    "READ_TIMEOUT",
    "max_bytes",
    "read_timeout",
    "read_source",
    "open_source",
    "read_open",
    "describe_failure",
    "MANIFEST_SUFFIXES",
    "manifest_files",
)

MAX_OVERLAY_BYTES = 16 * 2**20
"""The largest overlay read, in bytes, unless ``PODFOLD_MAX_OVERLAY_BYTES`` says otherwise
(16 MiB: an overlay may expand to at most :data:`~transforms.io.safe_yaml.MAX_NODES` nodes)."""

MAX_MANIFEST_BYTES = 256 * 2**20
"""The largest manifest stream read, in bytes, unless ``PODFOLD_MAX_MANIFEST_BYTES`` says
otherwise (256 MiB)."""

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
"""What the name of a file in a directory given as a manifest ends with, for it to be read
(as ``kubectl apply -f DIR`` reads a directory's files)."""

READ_TIMEOUT = 30.0
"""The most seconds reading one URI may take, connecting included, unless
``PODFOLD_READ_TIMEOUT`` says otherwise."""

_BOUNDS = {
    "overlay": ("PODFOLD_MAX_OVERLAY_BYTES", MAX_OVERLAY_BYTES),
    "manifest": ("PODFOLD_MAX_MANIFEST_BYTES", MAX_MANIFEST_BYTES),
}
_TIMEOUT_VARIABLE = "PODFOLD_READ_TIMEOUT"
_CHUNK = 1 << 20

T = TypeVar("T", bytes, str)


def _setting_error(variable: str, value: str, wanted: str) -> OverlayError:
    shown = value if len(value) <= 40 else value[:37] + "..."
    return OverlayError(f"must be {wanted}, not {shown!r}", source=variable)


def max_bytes(what: str) -> int:
    """The most bytes a source of kind ``what`` (``"overlay"`` or ``"manifest"``) may hold:
    its variable's value (bytes, or a quantity such as ``64Mi``), else its default.

    >>> max_bytes("manifest") == MAX_MANIFEST_BYTES
    True
    """
    variable, default = _BOUNDS[what]
    value = os.environ.get(variable, "").strip()
    if not value:
        return default
    from transforms.kube.quantity import QuantityRangeError, quantity_value

    try:
        amount = quantity_value(value)
    except QuantityRangeError:
        amount = None
    if amount is None or amount < 1 or amount.denominator != 1:
        raise _setting_error(
            variable, value, "a whole number of bytes, at least 1 (such as '67108864' or '64Mi')"
        )
    return int(amount)


def read_timeout() -> float:
    """The most seconds reading a URI may take: ``PODFOLD_READ_TIMEOUT``'s value (a number
    above 0), else :data:`READ_TIMEOUT`.

    >>> read_timeout()
    30.0
    """
    value = os.environ.get(_TIMEOUT_VARIABLE, "").strip()
    if not value:
        return READ_TIMEOUT
    try:
        seconds = float(value)
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds < 1e9:  # NaN and infinity too: a read that may hang is what this bounds
        raise _setting_error(
            _TIMEOUT_VARIABLE, value, "a number of seconds above 0 (such as '30' or '2.5')"
        )
    return seconds


def _amount(size: int) -> str:
    """``size`` bytes as people read it: ``'16 MiB'``, ``'1,500 bytes'``."""
    for unit, power in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << power:
            value = size / (1 << power)
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:,.1f} {unit}"
    return f"{size:,} bytes"


def _too_large(what: str, limit: int, size: int | None) -> str:
    variable = _BOUNDS[what][0]
    said = f"it is {_amount(size)}, larger" if size is not None else "it is larger"
    return (
        f"{said} than the {_amount(limit)} {_article(what)} {what} may hold "
        f"({variable} sets the bound)"
    )


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _device(mode: int) -> str | None:
    """What a file of ``mode`` is, where it is no file or pipe podfold reads."""
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    return None


def _is_null(status: os.stat_result) -> bool:
    try:
        null = os.stat(os.devnull)
    except OSError:  # pragma: no cover - every system podfold runs on has one
        return False
    return stat.S_ISCHR(null.st_mode) and status.st_rdev == null.st_rdev


def _check_kind(status: os.stat_result, fd: int | None) -> None:
    """Refuse a device, but ``/dev/null`` and a terminal already open (``fd``)."""
    found = _device(status.st_mode)
    if found is None or _is_null(status) or (fd is not None and os.isatty(fd)):
        return
    raise _Refused(
        f"it is {found}, not a file (a path is read if it names a regular file or a pipe)"
    )


class _Refused(Exception):
    """The source is refused; the message says why (the caller names the source)."""


def _chunks(read: Callable[[int], T], empty: T, what: str, limit: int) -> T:
    """All that ``read`` gives, chunk by chunk, never more than ``limit`` and one byte."""
    chunks: list[T] = []
    total = 0
    while True:
        chunk = read(min(_CHUNK, limit + 1 - total))
        if not chunk:
            return empty.join(chunks)
        total += len(chunk)
        if total > limit:
            raise _Refused(_too_large(what, limit, None))
        chunks.append(chunk)


def _read_path(path: str, what: str, limit: int) -> bytes:
    try:
        before = os.stat(path)
    except OSError:
        before = None  # open() says why, in the system's words
    if before is not None:
        _check_kind(before, None)  # before opening: opening a device may act on it
    with open(path, "rb") as handle:
        status = os.fstat(handle.fileno())
        _check_kind(status, None)
        if stat.S_ISREG(status.st_mode) and status.st_size > limit:
            raise _Refused(_too_large(what, limit, status.st_size))
        return _chunks(handle.read, b"", what, limit)


def _http_options(source: str, timeout: float) -> dict[str, Any]:
    """fsspec's options giving each HTTP(S) link of ``source``'s chain a timeout to connect
    and to wait for data, so that a request given up on (:func:`_within`) ends too."""
    from fsspec.core import split_protocol

    protocols = {split_protocol(part)[0] or part for part in source.split("::")}
    found = protocols & {"http", "https"}
    if not found:
        return {}
    import aiohttp

    limit = aiohttp.ClientTimeout(total=None, sock_connect=timeout, sock_read=timeout)
    return {protocol: {"timeout": limit} for protocol in found}


def _read_uri(source: str, what: str, limit: int, timeout: float) -> bytes:
    import fsspec  # here, not at the top: importing fsspec costs more than reading a file

    with fsspec.open(source, "rb", **_http_options(source, timeout)) as handle:
        size = getattr(handle, "size", None)
        if isinstance(size, int) and size > limit:
            raise _Refused(_too_large(what, limit, size))
        data: bytes = _chunks(handle.read, b"", what, limit)
    return data


def _within(seconds: float, work: Callable[[], bytes]) -> bytes:
    """``work()``'s result, raised error or, past ``seconds``, a refusal.

    The work runs on a daemon thread: a read blocked in a filesystem's driver
    (any protocol, its own timeouts or none) cannot be interrupted, only left
    behind; HTTP's are given their own timeouts too (:func:`_http_options`).
    """
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append((True, work()))
        except BaseException as err:  # brought back to the caller's thread, as raised
            outcome.append((False, err))

    thread = threading.Thread(target=run, name="podfold-read", daemon=True)
    thread.start()
    thread.join(seconds)
    if not outcome:
        raise _Refused(_timed_out(seconds))
    done, value = outcome[0]
    if done:
        result: bytes = value
        return result
    raise value


def _timed_out(seconds: float) -> str:
    return (
        f"not read within {seconds:g} s, the most a read may take ({_TIMEOUT_VARIABLE} "
        f"sets it): the server did not answer, or stopped sending"
    )


def _is_timeout(err: BaseException) -> bool:
    import asyncio

    return isinstance(err, (TimeoutError, asyncio.TimeoutError))


def describe_failure(err: BaseException, source: str) -> str:
    """``err`` and its causes as ``Class: message`` on one line, each message said once
    (``source``, which the error names already, is not said again).

    >>> describe_failure(OSError(5, "Input/output error"), "/proc/self/mem")
    'OSError: [Errno 5] Input/output error'
    >>> describe_failure(FileNotFoundError(2, "No such file or directory", "/a.yaml"), "/a.yaml")
    "FileNotFoundError: [Errno 2] No such file or directory: '/a.yaml'"
    """
    said: list[str] = [source]
    parts: list[str] = []
    current: BaseException | None = err
    while current is not None and len(parts) < 4:
        text = " ".join(str(current).split())
        bare = text.split("] ", 1)[-1] if text.startswith("[Errno ") else text
        new = bool(bare) and not any(bare in earlier for earlier in said)
        if new or not parts:
            parts.append(f"{type(current).__name__}: {text}" if new else type(current).__name__)
            said.append(text)
        current = current.__cause__ or (
            None if current.__suppress_context__ else current.__context__
        )
    return "; from ".join(parts)


def _is_uri(source: str) -> bool:
    return "://" in source or "::" in source


def _is_remote(source: str) -> bool:
    """Whether fsspec reads ``source``: a URI but a plain ``file://`` path."""
    return _is_uri(source) and not (source.startswith("file://") and "::" not in source)


def _local_path(source: str) -> str:
    """The path of a local ``source``, as fsspec reads it: ``~`` expanded."""
    return source[len("file://") :] if _is_uri(source) else os.path.expanduser(source)


def read_source(
    source: str, what: str = "overlay", *, limit: int | None = None, timeout: float | None = None
) -> bytes:
    """The bytes at ``source``, a path or any fsspec URI, within the bounds of a ``what``
    (``"overlay"`` or ``"manifest"``): at most ``limit`` bytes (:func:`max_bytes` by
    default) and, for a URI, ``timeout`` seconds (:func:`read_timeout` by default).

    Whatever stops the read is an :class:`~transforms.errors.OverlayError`
    naming ``source`` and saying why on one line (the exception's class and
    message, then its causes': :func:`describe_failure`).

    >>> read_source("memory://podfold-doc/absent.yaml")
    Traceback (most recent call last):
      ...
    transforms.errors.OverlayError: memory://podfold-doc/absent.yaml: cannot read the overlay: FileNotFoundError
    """
    limit = max_bytes(what) if limit is None else limit
    uri = _is_remote(source)
    seconds = (read_timeout() if timeout is None else timeout) if uri else 0.0
    try:
        if uri:
            return _within(seconds, lambda: _read_uri(source, what, limit, seconds))
        return _read_path(os.path.abspath(_local_path(source)), what, limit)
    except _Refused as err:
        raise OverlayError(f"cannot read the {what}: {err}", source=source) from None
    except Exception as err:
        # each filesystem fails its own way: no such file (OSError), an unknown
        # protocol (ValueError), a driver not installed (ImportError), no
        # credentials (botocore's NoCredentialsError), a host that does not
        # resolve (aiohttp's errors, as the cause of a FileNotFoundError), a
        # server that stopped sending (aiohttp's own timeout, a moment before ours), ...
        why = _timed_out(seconds) if uri and _is_timeout(err) else describe_failure(err, source)
        raise OverlayError(f"cannot read the {what}: {why}", source=source) from err


def read_open(
    stream: IO[Any], source: str, what: str = "manifest", *, limit: int | None = None
) -> bytes | str:
    """What the open ``stream`` holds (a file, a pipe, standard input), within the bound
    of a ``what``: at most ``limit`` bytes (:func:`max_bytes` by default). Its bytes,
    read from beneath a text stream where there are bytes beneath it (as in what
    ``click.File`` opens and in ``sys.stdin``), else its text.

    A device but ``/dev/null`` and a terminal is refused before it is read; every
    failure is an :class:`~transforms.errors.OverlayError` naming ``source``.

    >>> import io
    >>> read_open(io.BytesIO(b"kind: Pod\\n"), "pod.yaml")
    b'kind: Pod\\n'
    >>> read_open(io.StringIO("x" * 300), "big.yaml", "overlay") == "x" * 300
    True
    """
    limit = max_bytes(what) if limit is None else limit
    binary = getattr(stream, "buffer", None)
    reader: IO[Any] = binary if binary is not None else stream
    try:
        try:
            fd = reader.fileno()
        except (AttributeError, OSError, ValueError):  # io.BytesIO, a test's stream
            fd = None
        if fd is not None:
            status = os.fstat(fd)
            _check_kind(status, fd)
            if stat.S_ISREG(status.st_mode):
                left = status.st_size - reader.tell() if reader.seekable() else 0
                if left > limit:
                    raise _Refused(_too_large(what, limit, left))
        if binary is None and isinstance(stream.read(0), str):
            return _chunks(stream.read, "", what, limit)
        data: bytes = _chunks(reader.read, b"", what, limit)
        return data
    except _Refused as err:
        raise OverlayError(f"cannot read the {what}: {err}", source=source) from None
    except Exception as err:
        raise OverlayError(
            f"cannot read the {what}: {describe_failure(err, source)}", source=source
        ) from err


def open_source(source: str, what: str = "manifest") -> IO[bytes]:
    """``source`` (a path, any fsspec URI, ``-`` for standard input) open to be read from
    its start, within the bounds of a ``what``, as :func:`read_source` and
    :func:`read_open` read it, whose errors it raises: a regular file open as it is, so
    that it is read a part at a time, never held whole; anything else (a pipe, a URI)
    copied first, within its bound, into a temporary file, which is seekable. The
    caller closes it.

    >>> import io, sys
    >>> with open_source("memory://podfold-doc/absent.yaml") as handle:
    ...     pass
    Traceback (most recent call last):
      ...
    transforms.errors.OverlayError: memory://podfold-doc/absent.yaml: cannot read the manifest: FileNotFoundError
    """
    import sys
    import tempfile

    if source == "-":
        stream: Any = sys.stdin
        binary = getattr(stream, "buffer", stream)
        try:
            status = os.fstat(binary.fileno())
        except (AttributeError, OSError, ValueError):
            status = None
        if status is not None and stat.S_ISREG(status.st_mode) and binary.seekable():
            limit = max_bytes(what)
            if status.st_size - binary.tell() > limit:
                raise OverlayError(
                    f"cannot read the {what}: {_too_large(what, limit, status.st_size)}",
                    source="<stdin>",
                )
            return os.fdopen(os.dup(binary.fileno()), "rb")  # closed apart from stdin
        if binary is not stream and status is not None:  # a pipe: copied a chunk at a time
            return _spool_pipe(binary, status, what)
        data = read_open(stream, "<stdin>", what)
    elif _is_remote(source):
        data = read_source(source, what)
    else:
        path = _local_path(source)
        try:
            status = os.stat(path)
        except OSError:
            status = None  # read_source says why, in the system's words
        if status is not None and stat.S_ISREG(status.st_mode):
            limit = max_bytes(what)
            if status.st_size > limit:
                raise OverlayError(
                    f"cannot read the {what}: {_too_large(what, limit, status.st_size)}",
                    source=source,
                )
            try:
                return open(path, "rb")
            except OSError:
                pass  # read_source says why
        data = read_source(source, what)
    if isinstance(data, str):  # a text stream with no bytes beneath (a test's StringIO)
        data = data.encode("utf-8", "surrogatepass")
    spooled = tempfile.TemporaryFile()  # noqa: SIM115 - the caller's to close
    try:
        spooled.write(data)
        spooled.seek(0)
    except OSError as err:
        spooled.close()
        raise OverlayError(
            f"cannot read the {what}: {describe_failure(err, source)}", source=source
        ) from err
    return spooled


def _spool_pipe(reader: IO[bytes], status: os.stat_result, what: str) -> IO[bytes]:
    """A temporary file holding what the pipe ``reader`` (standard input) gives, copied a
    chunk at a time within the bound of a ``what``, as :func:`read_open` reads it."""
    import tempfile

    limit = max_bytes(what)
    spooled = tempfile.TemporaryFile()  # noqa: SIM115 - the caller's to close
    try:
        _check_kind(status, reader.fileno())
        total = 0
        while True:
            chunk = reader.read(min(_CHUNK, limit + 1 - total))
            if not chunk:
                break
            total += len(chunk)
            if total > limit:
                raise _Refused(_too_large(what, limit, None))
            spooled.write(chunk)
        spooled.seek(0)
    except _Refused as err:
        spooled.close()
        raise OverlayError(f"cannot read the {what}: {err}", source="<stdin>") from None
    except Exception as err:
        spooled.close()
        raise OverlayError(
            f"cannot read the {what}: {describe_failure(err, '<stdin>')}", source="<stdin>"
        ) from err
    return spooled


def manifest_files(given: Sequence[str], recursive: bool = False) -> list[str]:
    """The manifest files that ``given`` (paths, ``-`` for standard input) names, in order,
    as ``kubectl apply -f`` reads them: a path that is no directory as it is (whatever its
    name: reading it says what is wrong with it); a directory as its files whose names end
    in :data:`MANIFEST_SUFFIXES`, in the order of their names, and, where ``recursive``,
    its subdirectories' too, each where its name falls among the files'. A file named
    twice (given, and in a directory given) is read once, where it is first named.

    A directory with no such file is an :class:`~transforms.errors.OverlayError`
    naming it, as is one that cannot be listed.

    >>> import pathlib, tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("b.yaml", "a.json", "notes.txt", "sub/c.yml"):
    ...     (root / name).parent.mkdir(exist_ok=True)
    ...     _ = (root / name).write_text("kind: Pod\\n")
    >>> [pathlib.Path(found).relative_to(root).as_posix() for found in manifest_files([str(root)])]
    ['a.json', 'b.yaml']
    >>> [pathlib.Path(found).relative_to(root).as_posix() for found in manifest_files([str(root)], True)]
    ['a.json', 'b.yaml', 'sub/c.yml']
    >>> manifest_files([str(root / "sub"), "-", str(root / "sub" / "c.yml")]) == [str(root / "sub" / "c.yml"), "-"]
    True
    """
    found: list[str] = []
    seen: set[str] = set()

    def add(path: str) -> None:
        key = path if path == "-" else os.path.normpath(os.path.abspath(path))
        if key not in seen or path == "-":
            seen.add(key)
            found.append(path)

    for path in given:
        if path != "-" and os.path.isdir(path):
            inside = _directory_files(path, recursive)
            if not inside:
                more = "" if recursive else "; -R reads its subdirectories too"
                raise OverlayError(
                    f"cannot read the manifests: the directory holds no file whose name ends "
                    f"in {', '.join(MANIFEST_SUFFIXES)}{more}",
                    source=path,
                )
            for file in inside:
                add(file)
        else:
            add(path)
    return found


def _directory_files(directory: str, recursive: bool) -> list[str]:
    try:
        entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
    except OSError as err:
        raise OverlayError(
            f"cannot read the manifests: {describe_failure(err, directory)}", source=directory
        ) from None
    files: list[str] = []
    for entry in entries:
        path = os.path.join(directory, entry.name)
        if entry.is_dir():
            if recursive:
                files.extend(_directory_files(path, recursive))
        elif entry.name.endswith(MANIFEST_SUFFIXES):
            files.append(path)
    return files
