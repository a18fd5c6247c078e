"""A stream of YAML documents cut into parts between documents, so that a stream of any
length is read a part at a time, in the memory of one part.

:func:`document_parts` reads an open binary file line by line and gives parts of
about ``size`` bytes (a part is longer where one document is), each cut just
before a line that begins a document (``---`` at the start of a line, then a
space, a tab or the line's end), with the number of lines before it. Such a line
begins a document wherever it is in a stream YAML reads (the specification's
"forbidden" lines: no scalar, quoted or not, may hold one), so each part is a
stream of whole documents, read as the same documents as in the whole stream.
A part holding a directive (``%YAML``, ``%TAG``: a line that begins with ``%``)
is not cut from the ``---`` it is for: the cut goes before the directive.

>>> import io
>>> text = b"a: 1\\n---\\nb: 2\\n--- {c: 3}\\n%YAML 1.1\\n---\\nd: 4\\n"
>>> [(part.decode(), lines) for part, lines in document_parts(io.BytesIO(text), size=1)]
[('a: 1\\n', 0), ('---\\nb: 2\\n', 1), ('--- {c: 3}\\n', 3), ('%YAML 1.1\\n---\\nd: 4\\n', 4)]

Lines are counted as YAML counts them (:func:`line_breaks`: a line feed, a
carriage return alone or before one, and YAML 1.1's NEL, line and paragraph
separators), so that a line of a part, plus the lines before it, is the line of
the whole stream.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import IO

__all__ = ("PART_BYTES", "document_parts", "line_breaks")

PART_BYTES = 64 * 1024
"""About how many bytes a part holds: a few hundred manifests of a few hundred lines."""

_START = re.compile(rb"---(?:[ \t\r\n]|$)")
_OTHER_BREAKS = (b"\r", b"\xc2\x85", b"\xe2\x80\xa8", b"\xe2\x80\xa9")
_BREAK = re.compile(rb"\r\n|[\r\n]|\xc2\x85|\xe2\x80\xa8|\xe2\x80\xa9")


def line_breaks(data: bytes) -> int:
    """How many line breaks YAML counts in ``data`` (UTF-8): ``\\r\\n`` is one.

    >>> line_breaks(b"a\\nb\\r\\nc\\rd\\xc2\\x85e")
    4
    """
    if not any(other in data for other in _OTHER_BREAKS):
        return data.count(b"\n")
    return len(_BREAK.findall(data))


def document_parts(handle: IO[bytes], size: int = PART_BYTES) -> Iterator[tuple[bytes, int]]:
    """The parts of the stream ``handle`` reads (see the module's text): each part's
    bytes and the line breaks before it, as YAML counts them."""
    pending: list[bytes] = []
    held = 0  # bytes in pending
    directives = 0  # how many of pending's last lines are directives (and their comments)
    before = 0
    for line in handle:
        if held >= size and _START.match(line):
            cut = len(pending) - directives
            if cut > 0:
                part = b"".join(pending[:cut])
                yield part, before
                before += line_breaks(part)
                pending = pending[cut:]
                held = sum(map(len, pending))
        if line[:1] == b"%":
            directives += 1
        elif directives and line[:1] == b"#":
            directives += 1  # a comment between a directive and its '---' goes with it
        else:
            directives = 0
        pending.append(line)
        held += len(line)
    if pending:
        yield b"".join(pending), before
