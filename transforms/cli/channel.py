"""Objects sent one way between two processes through a pipe: what the stream's reader
and its worker (:mod:`transforms.cli.worker`) say to each other.

Each object is pickled and sent as its length (8 bytes) then its bytes, written whole
whatever the pipe takes at once, and read back whole. It is what
``multiprocessing.connection.Pipe(duplex=False)`` gives, without importing
:mod:`multiprocessing` (about 20 ms of a run's start, where the worker is forked).

>>> reading, writing = pipe()
>>> writing.send(("part", [{"kind": "Job"}], 1))
>>> reading.recv()
('part', [{'kind': 'Job'}], 1)
>>> writing.close()
>>> reading.recv()
Traceback (most recent call last):
  ...
EOFError: the other process closed the pipe
>>> reading.close()
"""

from __future__ import annotations

import os
import pickle
import struct
from typing import Any

__all__ = ("Reading", "Writing", "pipe")

_LENGTH = struct.Struct("!Q")
_JOINED = 1 << 16
"""Below this many bytes, an object's length and bytes are joined and written at once."""


def pipe() -> tuple[Reading, Writing]:
    """A new pipe's two ends."""
    reading, writing = os.pipe()
    return Reading(reading), Writing(writing)


class _End:
    def __init__(self, descriptor: int) -> None:
        self.descriptor = descriptor

    def close(self) -> None:
        """Close this end (again: nothing)."""
        if self.descriptor >= 0:
            descriptor, self.descriptor = self.descriptor, -1
            os.close(descriptor)

    def _open(self) -> int:
        if self.descriptor < 0:
            raise OSError("the pipe's end is closed")
        return self.descriptor


class Writing(_End):
    """The end objects are sent through."""

    def send(self, message: Any) -> None:
        """Send ``message`` (anything that pickles); an :class:`OSError` where the other
        end is closed (``BrokenPipeError``) or the pipe fails."""
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        header = _LENGTH.pack(len(data))
        if len(data) < _JOINED:  # one write
            self.write(header + data)
        else:  # not copied to be joined
            self.write(header)
            self.write(data)

    def write(self, data: bytes) -> None:
        """Write all of ``data``, however much the pipe takes at once."""
        descriptor = self._open()
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view) :]


class Reading(_End):
    """The end objects are received from."""

    def recv(self) -> Any:
        """The next object sent; :class:`EOFError` where the other end was closed first
        (between two objects, or inside one)."""
        (length,) = _LENGTH.unpack(self._read(_LENGTH.size))
        return pickle.loads(self._read(length))

    def _read(self, length: int) -> bytearray:
        descriptor = self._open()
        data = bytearray(length)
        view = memoryview(data)
        got = 0
        while got < length:
            count = os.readv(descriptor, [view[got:]])
            if not count:
                raise EOFError("the other process closed the pipe")
            got += count
        return data
