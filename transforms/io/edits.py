"""An edit of a stream's text, and the refusal of one: what :mod:`transforms.io.splicing`
makes of a fold's changes, and what :mod:`transforms.io.read_back` refuses."""

from __future__ import annotations

from dataclasses import dataclass

from transforms.errors import OverlayError

__all__ = ("Edit", "SpliceError")


class SpliceError(OverlayError):
    """An edit that cannot be made exactly in a file's text: ``source``, ``line`` and
    ``column`` say where, the message why; the file is to be left as it is.

    >>> print(SpliceError("the value is reached through an alias", source="a.yaml", line=3, column=5))
    a.yaml:3:5: cannot edit in place: the value is reached through an alias
    """

    def __str__(self) -> str:
        where = self.source
        if self.line is not None:
            where += f":{self.line}" + ("" if self.column is None else f":{self.column}")
        return f"{where}: cannot edit in place: {self.message}"


@dataclass(frozen=True)
class Edit:
    """The text from ``start`` to ``end`` (offsets into the stream's text) replaced by
    ``text``; an insertion where the two are equal, a cut where ``text`` is empty."""

    start: int
    end: int
    text: str
