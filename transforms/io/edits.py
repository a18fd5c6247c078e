"""An edit of a stream's text, and the refusal of one: what :mod:`transforms.io.splicing`
makes of a fold's changes, and what :mod:`transforms.io.read_back` refuses."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from transforms.errors import OverlayError

__all__ = ("Edit", "Inserted", "SpliceError")


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
class Inserted:
    """What an insertion of whole lines adds to a block collection, for it to be read back
    where it stands (:mod:`transforms.io.insertions`): ``entries``, a map of the keys
    added or a list of the elements, in the collection ``node`` (its id: the insertions
    into one collection are told apart by it) whose data is ``before`` and becomes
    ``after``. Offsets into the stream's text: ``first``, where the collection's first
    entry is written (its first key, or its first element's ``-``); ``since``, where its
    own text ends (its last value's), for what is added after it, or, for an element
    added before another (the one at ``slot`` in the list before), where that
    element's ``-`` is; ``end``, where the parser ended the collection."""

    node: int
    first: int
    since: int
    end: int
    entries: Any
    before: Any
    after: Any
    slot: int | None = None


@dataclass(frozen=True)
class Edit:
    """The text from ``start`` to ``end`` (offsets into the stream's text) replaced by
    ``text``; an insertion where the two are equal, a cut where ``text`` is empty.
    ``inserted`` says what an insertion of whole lines into a block collection adds,
    where it is one."""

    start: int
    end: int
    text: str
    inserted: Inserted | None = field(default=None, repr=False, compare=False)
