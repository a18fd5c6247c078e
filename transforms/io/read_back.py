"""A spliced text read back before it is given: it must hold exactly the documents after
the fold (:mod:`transforms.io.splicing`), or it is refused, naming the document.

:func:`check` reads a whole stream back. :func:`check_each` reads back only what
changed: the text of each document an edit reached, where no directive (``%YAML``,
``%TAG``) makes one document's reading depend on another's, so the others read as
they did. Those texts are read together, as one stream of their own (a document
marker between each two), which costs one reading, not one per document; where that
stream does not read back, each text is read on its own, to name the document and
its line.

Each document's text is read from the start of its first line, what stands before
it there (``--- ``) made spaces: its lines keep their columns, and so their meaning
(a document indented as a whole reads as it did).

>>> check("a: 2\\n", [{"a": 2}], "m.yaml")
>>> check("a: '2'\\n", [{"a": 2}], "m.yaml")
Traceback (most recent call last):
  ...
transforms.io.edits.SpliceError: m.yaml: cannot edit in place: document 1: the edited text would not read back as the folded document (a change no edit of the text can make exactly)
"""

from __future__ import annotations

import json
from collections.abc import Container, Sequence
from typing import TYPE_CHECKING, Any

from combinators.data import strict_equal
from transforms.errors import OverlayError
from transforms.io.edits import SpliceError

if TYPE_CHECKING:
    from transforms.io.edits import Edit

__all__ = ("check", "check_each", "canonical")

# the kinds told apart (1, 1.0, true), key order not: a key keeps its place in the text
_CANONICAL = json.JSONEncoder(ensure_ascii=False, sort_keys=True, default=repr).encode


def canonical(data: Any) -> str:
    """``data`` as JSON, keys sorted: equal for two data only where they are equal with
    their kinds (``1`` is not ``True`` nor ``1.0``), whatever the order of their keys.

    >>> canonical({"b": 1, "a": True}) == canonical({"a": True, "b": 1}), canonical(1) == canonical(1.0)
    (True, False)
    """
    return _CANONICAL(data)


def check(spliced: str, afters: Sequence[Any], source: str) -> None:
    """Refuse a spliced text that does not read back as ``afters`` (kinds compared too:
    ``1`` is not ``True``) with a :class:`~transforms.io.edits.SpliceError`."""
    from transforms.io.safe_yaml import load_manifest

    try:
        found, _ = load_manifest(spliced, source)
    except OverlayError as err:
        raise SpliceError(
            f"the edited text would not read back ({err.message})",
            source=source,
            line=err.line,
            column=err.column,
        ) from None
    if len(found) != len(afters):
        raise SpliceError(
            f"the edited text would hold {len(found)} documents, not {len(afters)}",
            source=source,
        )
    if _CANONICAL(found) == _CANONICAL(afters):
        return
    for number, (read, after) in enumerate(zip(found, afters, strict=True), 1):
        if not strict_equal(read, after):
            raise SpliceError(
                f"document {number}: the edited text would not read back as the "
                f"folded document (a change no edit of the text can make exactly)",
                source=source,
            )


def check_each(
    spliced: str,
    spans: Sequence[tuple[int, int, int, int, int]],
    edits: Sequence[Edit],
    documents: Sequence[tuple[Any, Any]],
    source: str,
    *,
    skip: Container[int] = (),
) -> None:
    """:func:`check` of each changed document's own text (see the module): ``spans``
    holds, for each, its index in ``documents`` (each ``(before, after)``), where its text
    began and ended before the edits, and where its edits begin and end in ``edits``;
    those whose index is in ``skip`` are not read (their edits read back where they
    stand: :mod:`transforms.io.insertions`).

    >>> from transforms.io.edits import Edit
    >>> text = "---\\n  a: 2\\n---\\nb: 1\\n"
    >>> check_each(text, [(0, 6, 11, 0, 1)], [Edit(9, 10, "2")], [(None, {"a": 2}), (None, {"b": 1})], "m.yaml")
    """
    pieces: list[tuple[int, str, int]] = []  # each document's index, text, and lines before
    shift = 0  # how much longer the text is up to the document
    for number, start, end, first, last in spans:
        own = edits[first:last]
        low = min(start, *(edit.start for edit in own)) + shift
        grown = sum(len(edit.text) - (edit.end - edit.start) for edit in own)
        if number in skip:
            shift += grown
            continue
        high = max(end, *(edit.end for edit in own)) + shift + grown
        line_start = spliced.rfind("\n", 0, low) + 1
        before = spliced[line_start:low]
        indent = before if not before.strip() else " " * len(before)
        pieces.append((number, indent + spliced[low:high], spliced.count("\n", 0, line_start)))
        shift += grown
    # read together where each ends a line: a marker after a text that does not (a block
    # scalar ending the file, say) would add a line break to it
    if all(piece.endswith("\n") for _, piece, _ in pieces):
        together = "---\n".join(piece for _, piece, _ in pieces)
        try:
            check(together, [documents[number][1] for number, _, _ in pieces], source)
            return
        except OverlayError:
            pass  # said below, of the document and line where it is
    for number, piece, lines in pieces:
        try:
            check(piece, [documents[number][1]], source)
        except OverlayError as err:
            raise SpliceError(
                err.message.replace("document 1: ", f"document {number + 1}: "),
                source=source,
                line=None if err.line is None else err.line + lines,
                column=err.column,
            ) from None
