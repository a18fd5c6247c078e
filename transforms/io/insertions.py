"""Lines inserted into a block collection, read back where they stand: what spares a
spliced document the reading of its whole text again (:mod:`transforms.io.read_back`).

Most overlays add (a toleration, a node selector, a volume, a sidecar), and
:mod:`transforms.io.splicing` writes what is added as new lines: keys added to a
block map after its last entry, at the column of its keys; an element added to a
block list as ``-`` lines at the column of its ``-``, after its last element or at
the start of the line of the element it goes before. YAML's block structure is told
by columns: lines read alone, as a document of their own, read as they read in
place where they stand at the column of the collection's entries, right where the
collection's entries may go on, and end before anything they could take in. So a
document whose edits are all such insertions is read back by reading each
insertion's lines alone. Taken as the splicer gives them, from the parser's marks
and the fold's data: where the collection's first entry is written, where the parser
ended the collection, the ``-`` of the element that new lines go before, and the
collection's data before and after the fold. Checked, for each insertion:

* the collection's first entry begins its line, after indentation only (and the
  ``-`` of elements it begins): that is the column of its entries (not after ``?``);
* the lines are whole lines, the first written at that column (not a comment), and
  hold no anchor (``&``) that could take the name of one written after them;
* after a collection: nothing else is inserted between its last value and them, and
  only blank lines and comments stand between them and where the parser ended the
  collection (its last value is over; what ended it comes after); before an
  element: they begin the line of its ``-``, where spaces only come first;
* where several go at one place, each is followed by lines less indented (or, after
  a list at its key's column, by a key there): the deepest collection's first;
* read alone, with the blank lines and comments after them where they come last at
  their place (a block scalar ending them takes in those more indented than its
  text), they are one document holding exactly the entries added, kinds compared;
* the map gains exactly its new keys, which it did not have; the list's elements,
  old and new, come in the order of the list after the fold (an old element
  changed within, by edits of its own, is told by its name, in a list whose
  elements each have a name of their own).

Each text read alone is read once per stream: the same toleration added to a
thousand pod templates is one reading. Any other edit (a value replaced, an entry
removed, a list reordered, a flow collection), a text with a line break other than
``\n``, or an insertion that is not shown to stand so, has its whole document read
back, as before. What the fold left as it was is what the diff
(:func:`combinators.diff.diff`) says it left, as everywhere the edits are made from it.

>>> from transforms.io.splicing import splice
>>> text = "spec:\\n  containers:\\n  - name: a  # the app\\n---\\nkind: Pod\\n"
>>> before = {"spec": {"containers": [{"name": "a"}]}}
>>> after = {"spec": {"containers": [{"name": "a"}], "hostIPC": False}}
>>> print(splice(text, [(before, after), ({"kind": "Pod"}, {"kind": "Pod"})], "m.yaml"), end="")
spec:
  containers:
  - name: a  # the app
  hostIPC: false
---
kind: Pod
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from combinators.data import strict_equal
from combinators.diff import element_name
from transforms.errors import OverlayError
from transforms.io.edits import Edit, Inserted
from transforms.io.read_back import canonical
from transforms.io.safe_yaml import load_manifest

__all__ = ("read_where_they_stand",)

# YAML's line breaks other than "\n": where a text has one, its lines are not counted here
_OTHER_BREAKS = re.compile("[\r\x85\u2028\u2029]")
# what may stand before a collection's first entry on its line: its indentation, and
# the "- " of the list elements it begins
_LEADING = re.compile(r"[ ]*(?:-[ ]+)*")
# what the first inserted line may not have at the collection's column
_NOT_A_START = frozenset(("", " ", "\t", "\n", "#"))


class _Group:
    """The insertions into one collection at one place, in the order they are written."""

    __slots__ = ("claim", "text", "entries", "column", "is_map")

    def __init__(self, claim: Inserted, text: str, column: int) -> None:
        self.claim = claim
        self.text = text
        self.is_map = isinstance(claim.entries, dict)
        self.entries: Any = dict(claim.entries) if self.is_map else list(claim.entries)
        self.column = column

    def add(self, claim: Inserted, text: str) -> None:
        self.text += text
        if self.is_map:
            self.entries.update(claim.entries)
        else:
            self.entries.extend(claim.entries)

    @property
    def before_one(self) -> bool:
        """Whether the lines go before an element of the list (not after its end)."""
        slot = self.claim.slot
        return slot is not None and slot < len(self.claim.before)


def read_where_they_stand(
    text: str,
    spans: Sequence[tuple[int, int, int, int, int]],
    edits: Sequence[Edit],
    source: str,
) -> set[int]:
    """The documents whose edits are all insertions read back where they stand (see the
    module), by their index among the stream's: ``spans`` holds, for each document
    changed, its index, where its text begins and ends in ``text`` (the text before
    the edits), and where its edits begin and end in ``edits``.

    >>> from transforms.io.edits import Inserted
    >>> text = "a:\\n  b: 1\\n"
    >>> claim = Inserted(0, 5, 9, 10, {"c": 2}, {"b": 1}, {"b": 1, "c": 2})
    >>> read_where_they_stand(text, [(0, 0, 10, 0, 1)], [Edit(10, 10, "  c: 2\\n", claim)], "m.yaml")
    {0}
    >>> read_where_they_stand(text, [(0, 0, 10, 0, 1)], [Edit(10, 10, "    c: 2\\n", claim)], "m.yaml")
    set()
    """
    if _OTHER_BREAKS.search(text) is not None:
        return set()
    read: dict[str, str | None] = {}  # each text read alone: its documents, as JSON
    shapes: dict[tuple[str, int], bool] = {}
    standing = set()
    for number, _start, _end, first, last in spans:
        own = edits[first:last]
        if own and _stands(text, own, read, shapes, source):
            standing.add(number)
    return standing


def _stands(
    text: str,
    edits: Sequence[Edit],
    read: dict[str, str | None],
    shapes: dict[tuple[str, int], bool],
    source: str,
) -> bool:
    """Whether ``edits``, one document's, are all insertions that stand as said (what
    was read alone, and the shapes of the lines seen, kept in ``read`` and ``shapes``)."""
    places: dict[int, list[_Group]] = {}  # by offset, in the order written there
    unended = bool(text) and not text.endswith("\n")
    for edit in edits:
        claim = edit.inserted
        if claim is None or edit.start != edit.end:
            return False
        lines = edit.text
        if unended and edit.start == len(text):  # after a last line with no line break
            if not lines.startswith("\n"):
                return False
            lines = lines[1:] + "\n"  # what they are followed by: the next's, or none
        groups = places.setdefault(edit.start, [])
        if groups and groups[-1].claim.node == claim.node:
            groups[-1].add(claim, lines)
            continue
        column = _column(text, claim)
        if column is None:
            return False
        groups.append(_Group(claim, lines, column))
    added: dict[int, list[_Group]] = {}  # by collection
    for at, groups in places.items():
        after = _next_content(text, at)  # what follows the place, for each collection there
        for index, group in enumerate(groups):
            if not _placed(text, at, group, shapes):
                return False
            # nothing else inserted between the collection's last value and its new lines
            since = group.claim.since
            if not group.before_one and any(since <= other < at for other in places):
                return False
            following = groups[index + 1] if index + 1 < len(groups) else None
            alone = _alone(text, at, group, following, after)
            if alone is None or not _reads_as(alone, group.entries, read, source):
                return False
            added.setdefault(group.claim.node, []).append(group)
    return all(_in_order(groups) for groups in added.values())


def _column(text: str, claim: Inserted) -> int | None:
    """The column of the collection's entries, where its first entry begins a line (after
    its indentation, or the ``-`` of the elements it begins: not after a ``?``)."""
    start = text.rfind("\n", 0, claim.first) + 1
    if _LEADING.fullmatch(text, start, claim.first) is None:
        return None
    return claim.first - start


def _shaped(lines: str, column: int) -> bool:
    """Whether ``lines`` are whole lines, the first written at ``column`` (not a comment),
    with no anchor (see the module). What else they must be (a key, a ``-``, no line
    less indented) they are as they read alone as the entries added."""
    if not lines.endswith("\n") or "&" in lines:
        return False
    return not lines[:column].strip(" ") and lines[column : column + 1] not in _NOT_A_START


def _placed(text: str, at: int, group: _Group, shapes: dict[tuple[str, int], bool]) -> bool:
    """Whether the lines of ``group`` are shaped as said and, where they go before an
    element of a list, written just before that element's line."""
    shape = (group.text, group.column)
    shaped = shapes.get(shape)
    if shaped is None:
        shaped = shapes[shape] = _shaped(*shape)
    if not shaped:
        return False
    if group.before_one:  # at the start of the line of an element's "-", after spaces only
        dash = group.claim.since
        return at == text.rfind("\n", 0, dash) + 1 and not text[at:dash].strip(" ")
    return True


def _alone(
    text: str, at: int, group: _Group, following: _Group | None, after: tuple[int, str]
) -> str | None:
    """The text ``group``'s lines are read alone as: they, and the blank lines and
    comments after them; ``None`` where what follows them would not end what they hold
    as it ended their collection, or where their collection did not end just after
    them (see the module). ``after`` is what follows ``at`` (:func:`_next_content`)."""
    ended, trailing = after
    if not group.before_one and group.claim.end != ended:  # only blanks and comments between
        return None
    if following is not None:  # lines inserted after these, into a collection around
        column = following.column
        if column < group.column or (
            column == group.column and not group.is_map and following.is_map
        ):
            return group.text
        return None
    if group.before_one:  # the element's own "-" follows, at the list's column
        return group.text
    if at == len(text) and text and not text.endswith("\n"):
        return group.text[:-1]  # the stream ends with them, without a line break
    return group.text + trailing


def _next_content(text: str, at: int) -> tuple[int, str]:
    """Where the first thing after ``at`` that is not a blank line or a comment begins
    (the end of ``text``, where there is none), and the lines before it."""
    line, size = at, len(text)
    while line < size:
        line_end = text.find("\n", line)
        line_end = size if line_end == -1 else line_end + 1
        content = text[line:line_end].lstrip(" ")
        if content.strip() and not content.startswith("#"):
            return line_end - len(content), text[at:line]
        line = line_end
    return size, text[at:]


def _reads_as(alone: str, entries: Any, read: dict[str, str | None], source: str) -> bool:
    """Whether ``alone`` reads, as a document of its own, as exactly ``entries``."""
    found = read.get(alone, read)
    if found is read:
        try:
            documents, _ = load_manifest(alone, source)
        except OverlayError:
            documents = []
        found = read[alone] = canonical(documents[0]) if len(documents) == 1 else None
    return found is not None and found == canonical(entries)


def _in_order(groups: list[_Group]) -> bool:
    """Whether the collection's entries, old and new, are what the fold made of it: new
    keys only, for a map; for a list, its elements in the order the fold gave them."""
    claim = groups[0].claim
    before, after = claim.before, claim.after
    if groups[0].is_map:
        keys = [key for group in groups for key in group.entries]
        if not isinstance(before, dict) or not isinstance(after, dict):
            return False
        if any(key in before or key not in after for key in keys):
            return False
        return len(after) == len(before) + len(set(keys)) == len(before) + len(keys)
    if not isinstance(before, list) or not isinstance(after, list):
        return False
    slots: dict[int, list[Any]] = {}
    for group in groups:
        slot = group.claim.slot
        if slot is None:
            return False
        slots.setdefault(slot, []).extend(group.entries)
    merged: list[Any] = []
    for index in range(len(before) + 1):
        merged.extend(slots.pop(index, ()))
        if index < len(before):
            merged.append(before[index])
    if slots or len(merged) != len(after):
        return False
    names: list[Any] | None = None
    for old, new in zip(merged, after, strict=True):
        if strict_equal(old, new):
            continue
        # an element changed within (its own edits are checked where they stand): the
        # same element where the list's elements are named, each by a name of its own
        if names is None:
            names = [element_name(None, item) for item in after]
            if None in names or len(set(names)) != len(names):
                return False
        if element_name(None, old) != element_name(None, new):
            return False
    return True
