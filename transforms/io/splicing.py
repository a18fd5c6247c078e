"""Edits spliced into a YAML stream's own text: what a fold changed, and nothing else.

:func:`splice` takes a stream's text and, for each of its documents, the
document before and after a fold (plain data), and gives the text with only
what changed rewritten: every comment, blank line, key order, quoting style,
flow or block style, block scalar and ``---`` of the rest is kept as written.
The stream is composed by libyaml (where PyYAML has it), whose nodes carry the
offsets where each value begins and ends; the changes are those of the one diff
(:func:`combinators.diff.diff`), and each becomes one edit of the text:

* a scalar replaced by a scalar is rewritten where it stands, in its quoting
  style where the new value can be written in it (``'...'``, ``"..."``, plain);
* a key added to a block map is a new line (or lines) after the map's last
  entry, at its indentation; an element added to a block list is a new ``-``
  entry where it goes among the others; what is added is written as
  ``podfold apply`` writes it (:func:`~transforms.io.streams.dump_stream`),
  its lists indented under their keys where most of the document's are;
* in a flow collection (``{...}``, ``[...]``, a JSON file) what is added is
  written as JSON, on the line where it goes;
* a key or element removed is cut with its line(s);
* a block list whose named elements were only reordered has their lines moved,
  each element with the comments and blank lines above it;
* a collection left empty, a list reordered where its elements changed too, and
  a value of another kind are written anew, whole, at their place.

An edit that cannot be made exactly is refused with a :class:`SpliceError`
naming the file, line and why, and the text is left as it was: an edited value
reached through an alias (``*base``) or inside an anchored one (``&base``), a
map that merges another (``<<``), an edit of a whole document. Every spliced
text is read back before it is given (:mod:`transforms.io.read_back`)
and must hold exactly the documents after the fold (a key of a map keeps
its place in the text, wherever the fold put it); where it does not, that is refused too, naming the document.

>>> text = "kind: Pod  # why\\nspec:\\n  nodeSelector: {pool: 'cpu'}  # the pool\\n"
>>> before = {"kind": "Pod", "spec": {"nodeSelector": {"pool": "cpu"}}}
>>> after = {"kind": "Pod", "spec": {"nodeSelector": {"pool": "a100"}, "hostIPC": False}}
>>> print(splice(text, [(before, after)], "pod.yaml"), end="")
kind: Pod  # why
spec:
  nodeSelector: {pool: 'a100'}  # the pool
  hostIPC: false
>>> splice(text, [(before, before)], "pod.yaml") is text
True
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import yaml

from combinators.data import MISSING, strict_equal
from combinators.diff import Change, diff, element_name
from combinators.paths import Index, Key, Match, Part
from transforms.io.edits import Edit, Inserted, SpliceError

__all__ = (
    "SpliceError",
    "Edit",
    "Composed",
    "splice",
    "splice_part",
    "edits_of",
    "line_break",
)

_MERGE = "tag:yaml.org,2002:merge"
_NULL = "tag:yaml.org,2002:null"
_STR, _MAP, _SEQ = "tag:yaml.org,2002:str", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
_NULLS = frozenset(("", "~", "null", "Null", "NULL"))
# a string written in double quotes as JSON writes it must hold none of these: YAML reads
# them as line breaks, or refuses them, where JSON leaves them as they are
_NOT_IN_JSON_QUOTES = frozenset("\x7f\x85\u2028\u2029\ufeff") | frozenset(
    chr(code) for code in range(0x80, 0xA0)
)
_DASH_ENDS_LINE = re.compile(r"-[ \t]*(?:#.*)?$")
_DIRECTIVE = re.compile(r"^%", re.MULTILINE)
_FLOW_INDICATORS = frozenset(",[]{}")
_BREAKS = frozenset("\r\n\x85\u2028\u2029")
_WIDE = 2**30  # no folding of a long scalar rewritten where it stands
# JSON's encoders made once (json.dumps makes one a call where it is given options)
_JSON = json.JSONEncoder(ensure_ascii=False).encode
_KEYED = json.JSONEncoder(ensure_ascii=False, default=repr).encode


@dataclass(frozen=True)
class Composed:
    """A stream's documents as its reader composed them, kept so that the text need not
    be composed again to be edited: ``nodes``, each document's root node in order (empty
    documents left out), and ``offset``, what turns a mark's index into a place in the
    text they are given with.

    >>> from transforms.io.safe_yaml import load_manifest
    >>> text = "a: 1\\n---\\nb: 1\\n"
    >>> nodes = []
    >>> documents, _ = load_manifest(text, "m.yaml", nodes)
    >>> composed = Composed.of(text, nodes)
    >>> splice(text, [(documents[0], {"a": 2}), (documents[1], {"b": 2})], "m.yaml", composed=composed)
    'a: 2\\n---\\nb: 2\\n'
    >>> [node.start_mark.index + composed.part(5).offset for node in composed.nodes]
    [-5, 4]
    """

    nodes: tuple[yaml.Node, ...]
    offset: int

    @classmethod
    def of(cls, text: str, nodes: Sequence[yaml.Node | None] | None) -> Composed | None:
        """What the reader of ``text`` kept of it (the ``nodes`` that
        :func:`~transforms.io.safe_yaml.load_manifest` gives), or ``None`` where it kept
        no node for some document: the text is composed again, then."""
        if nodes is None or any(node is None for node in nodes):
            return None
        from transforms.io.safe_yaml import LIBYAML

        # libyaml counts its marks from after a byte-order mark, PyYAML's reader from before it
        bom = 1 if LIBYAML and text.startswith("\ufeff") else 0
        return cls(tuple(node for node in nodes if node is not None), bom)

    def part(self, at: int) -> Composed:
        """The same nodes, for the part of the text that begins at ``at``."""
        return Composed(self.nodes, self.offset - at)

    def within(self, length: int) -> Iterator[yaml.Node]:
        """The nodes of the documents that begin in the first ``length`` characters of
        the text (a part's own, for the part's text: see :meth:`part`)."""
        offset = self.offset
        return (node for node in self.nodes if 0 <= node.start_mark.index + offset < length)


def splice(
    text: str,
    documents: Sequence[tuple[Any, Any]],
    source: str,
    *,
    composed: Composed | None = None,
) -> str:
    """``text`` with what changed from each document's ``before`` to its ``after``
    spliced in (see the module); ``documents`` are the stream's documents in order,
    empty ones left out (as :func:`~transforms.io.safe_yaml.load_manifest` reads
    them), each as ``(before, after)``. Where nothing changed, ``text`` itself.
    ``composed`` is what the reader of ``text`` kept of it (:class:`Composed`), where
    it did: else the text is composed here.

    Raises :class:`SpliceError` naming ``source`` where an edit cannot be exact.

    >>> splice("a: 1\\n", [({"a": 1}, {"a": 1, "b": [2]})], "m.yaml")
    'a: 1\\nb:\\n- 2\\n'
    """
    return _splice(text, documents, source, None, line_break(text), composed=composed)[0]


def splice_part(
    text: str,
    documents: Sequence[tuple[Any, Any]],
    source: str,
    *,
    last: bool = False,
    newline: str | None = None,
    composed: Composed | None = None,
) -> tuple[str, int]:
    """:func:`splice` of ``text``, a part of a longer stream cut just before a line that
    begins a document (``---`` at a line's start: see :mod:`transforms.io.batches`), and
    how many documents it holds: they are the first of the stream's ``documents`` (the
    last, where ``last``), as many as the part holds. ``newline`` is the line break the
    whole stream writes (what is added is written with it; the part's own by default).
    ``composed`` is what the reader of the whole stream kept of it, for this part
    (:meth:`Composed.part`), where it did.

    Messages name lines and documents of the part: where it is refused, splice the
    whole stream to be told where in it.

    >>> stream = "a: 1\\n---\\nb: 1\\n"
    >>> documents = [({"a": 1}, {"a": 2}), ({"b": 1}, {"b": 2})]
    >>> splice_part(stream[:5], documents, "m.yaml"), splice_part(stream[5:], documents, "m.yaml", last=True)
    (('a: 2\\n', 1), ('---\\nb: 2\\n', 1))
    """
    spliced, own = _splice(
        text,
        documents,
        source,
        "last" if last else "first",
        newline or line_break(text),
        composed=composed,
    )
    return spliced, len(own)


def edits_of(text: str, documents: Sequence[tuple[Any, Any]], source: str) -> list[Edit]:
    """The edits that make ``text``'s documents their ``after`` (see :func:`splice`), in
    the order they were found; none where nothing changed (and then nothing is parsed).

    >>> edits_of("a: 1  # one\\n", [({"a": 1}, {"a": 2})], "m.yaml")
    [Edit(start=3, end=4, text='2')]
    """
    edits: list[Edit] = []
    _edits(text, documents, source, edits, None, line_break(text))
    return edits


def line_break(text: str) -> str:
    """The line break a stream's edits are written with: ``\\r\\n`` where ``text`` has one.

    >>> line_break("a: 1\\r\\n"), line_break("a: 1\\n")
    ('\\r\\n', '\\n')
    """
    return "\r\n" if "\r\n" in text else "\n"


def _splice(
    text: str,
    documents: Sequence[tuple[Any, Any]],
    source: str,
    align: str | None,
    newline: str,
    *,
    composed: Composed | None = None,
) -> tuple[str, Sequence[tuple[Any, Any]]]:
    """:func:`splice` (``align`` ``None``: ``documents`` are all the text's) or
    :func:`splice_part` (``"first"``, ``"last"``: the text's are the first or last of
    them); the text, and the text's
    documents before and after."""
    edits: list[Edit] = []
    spans, own = _edits(text, documents, source, edits, align, newline, composed)
    if not edits:
        return text, own
    spliced = _apply(text, edits, source)
    from transforms.io.read_back import check, check_each

    if _DIRECTIVE.search(text) is None:  # no document's reading depends on another's
        from transforms.io.insertions import read_where_they_stand

        standing = read_where_they_stand(text, spans, edits, source)
        if standing or len(spans) < len(own):
            if len(standing) < len(spans):
                check_each(spliced, spans, edits, own, source, skip=standing)
            return spliced, own
    check(spliced, [after for _, after in own], source)
    return spliced, own


def _edits(
    text: str,
    documents: Sequence[tuple[Any, Any]],
    source: str,
    edits: list[Edit],
    align: str | None,
    newline: str,
    composed: Composed | None = None,
) -> tuple[list[tuple[int, int, int, int, int]], Sequence[tuple[Any, Any]]]:
    """Put the edits into ``edits``; give, for each document changed, ``(its index among
    the text's, where its text begins and ends, where its edits begin and end in
    edits)``, and the text's documents, before and after (see :func:`_splice` for
    ``align``)."""
    # each document changed, by its index in documents: found before the text is parsed
    # for a whole stream (where nothing changed, nothing is), as each is met for a part
    by_number: dict[int, tuple[Any, Any, list[Change]]] = {}
    lazily = False
    if align is None:
        for number, (before, after) in enumerate(documents):
            if before is not after:
                changes = diff(before, after)
                if changes:
                    by_number[number] = (before, after, changes)
        if not by_number:
            return [], documents
    elif any(before is not after for before, after in documents):
        lazily = True  # else none changed: the part is parsed to count its documents
    rendered: _Rendered = {}  # each value written once
    spans: list[tuple[int, int, int, int, int]] = []
    nodes: Iterator[yaml.Node]
    if composed is None:
        from transforms.io.safe_yaml import LIBYAML

        # libyaml counts its marks from after a byte-order mark, PyYAML's from before it
        offset = 1 if LIBYAML and text.startswith("\ufeff") else 0
        nodes = _composed(text, source)  # one document's nodes at a time
    else:  # as the reader composed them: the text's own
        offset = composed.offset
        nodes = composed.within(len(text))
    merges = "<<" in text  # a merge key is written so: where it is not, none is looked for
    base = 0
    if align == "last":  # which documents the text holds is known once it is composed
        held = list(nodes)
        base = len(documents) - len(held)
        if base < 0:
            raise SpliceError(
                f"the text holds {len(held)} documents, where {len(documents)} were given",
                source=source,
            )
        nodes = iter(held)
    count = 0
    for count, node in enumerate(nodes, 1):
        number = base + count - 1
        if lazily:
            if number >= len(documents):
                raise SpliceError(
                    f"the text holds more than the {len(documents)} documents given",
                    source=source,
                )
            before, after = documents[number]
            changes = diff(before, after) if before is not after else []
            found = (before, after, changes) if changes else None
        else:
            found = by_number.get(number)
        if found is not None:
            before, after, changes = found
            first = len(edits)
            document = _Document(text, source, offset, newline, node, count, edits, rendered)
            document.merges = merges
            document.edit(before, after, changes)
            start, end = document.start(node), document.end(node)
            spans.append((count - 1, start, end, first, len(edits)))
    if align is None and count != len(documents):
        raise SpliceError(
            f"the text holds {count} documents, where {len(documents)} were given",
            source=source,
        )
    return spans, documents[base : base + count]


def _composed(text: str, source: str) -> Iterator[yaml.Node]:
    """The stream's documents as composed nodes, with their marks, one after another;
    empty ones left out."""
    from transforms.io.safe_yaml import strict_loader, yaml_error

    loader = _marks_loader(strict_loader())(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            if not (isinstance(node, yaml.ScalarNode) and node.tag == _NULL):
                yield node
    except yaml.YAMLError as err:
        raise yaml_error(err, source, text=text) from None
    finally:
        loader.dispose()


def _marks_loader(base: Any) -> Any:
    """``base`` composing without resolving what each scalar stands for (the documents
    say it): a merge key (``<<``) and an empty document are all the edits ask after."""

    class MarksLoader(base):  # type: ignore[misc]
        def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
            if kind is yaml.ScalarNode:
                if implicit[0] and value == "<<":
                    return _MERGE
                return _NULL if implicit[0] and value in _NULLS else _STR
            return _MAP if kind is yaml.MappingNode else _SEQ

    return MarksLoader


def _apply(text: str, edits: list[Edit], source: str) -> str:
    """``text`` with ``edits`` made; insertions at one place in the order given, and cuts
    that overlap made one; any other overlap refused."""
    ordered = sorted(enumerate(edits), key=lambda pair: (pair[1].start, pair[1].end, pair[0]))
    merged: list[Edit] = []
    for _, edit in ordered:
        if merged and edit.start < merged[-1].end:
            last = merged[-1]
            if edit.text or last.text:
                from transforms.io.safe_yaml import position

                line, column = position(text, edit.start)
                raise SpliceError(
                    "two changes meet in the same text", source=source, line=line, column=column
                )
            merged[-1] = Edit(last.start, max(last.end, edit.end), "")
        else:
            merged.append(edit)
    parts: list[str] = []
    at = 0
    for edit in merged:
        parts.append(text[at : edit.start])
        parts.append(edit.text)
        at = edit.end
    parts.append(text[at:])
    return "".join(parts)


_Rendered = dict[tuple[str, int | None, bool], list[str]]
_Resolved = dict[Part, tuple[tuple["yaml.Node | None", yaml.Node, Any], "_Resolved"]]


def _render(
    document: Any,
    width: int | None = None,
    cache: _Rendered | None = None,
    indented_lists: bool = False,
) -> list[str]:
    """The lines ``podfold apply`` writes for ``document`` (a map of one key, a list of
    one element), each with its line break, the stream's end marker (``...``) left out,
    a list that is a map's value indented under its key where ``indented_lists``; kept
    in ``cache`` by the document's JSON text (kinds and key order told apart)."""
    from transforms.io.streams import dump_stream

    key = (_KEYED(document), width, indented_lists)
    found = cache.get(key) if cache is not None else None
    if found is None:
        found = dump_stream([document], width=width, indented_lists=indented_lists).splitlines(
            keepends=True
        )
        if found and found[-1].rstrip("\r\n") == "...":
            found.pop()
        if cache is not None:
            cache[key] = found
    return list(found)


def _keyed_list(value: Any) -> bool:
    """Whether ``value`` holds a list (not empty) that is a map's value."""
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            for item in current.values():
                if isinstance(item, list) and item:
                    return True
                stack.append(item)
        elif isinstance(current, list):
            stack.extend(current)
    return False


def _json(value: Any) -> str:
    return _JSON(value)


def _json_safe(value: Any) -> bool:
    """Whether JSON's text of ``value`` reads back in YAML as ``value``: no string in it
    holds what YAML reads as a line break or refuses unescaped."""
    if isinstance(value, str):
        return not any(char in _NOT_IN_JSON_QUOTES for char in value)
    if isinstance(value, dict):
        return all(_json_safe(key) and _json_safe(item) for key, item in value.items())
    if isinstance(value, list):
        return all(_json_safe(item) for item in value)
    return value is None or isinstance(value, (bool, int, float))


class _Document:
    """The edits of one document: its composed root node, where it is in the stream."""

    def __init__(
        self,
        text: str,
        source: str,
        offset: int,
        newline: str,
        root: yaml.Node,
        number: int,
        edits: list[Edit],
        rendered: _Rendered,
    ) -> None:
        self.text = text
        self.source = source
        self.offset = offset
        self.newline = newline
        self.root = root
        self.number = number
        self.edits = edits
        self.removed: set[int] = set()  # the nodes of the entries removed
        # what a path leads to in the document before (the changes' paths share their
        # starts): a tree by part, each entry (key node, node, value) and what is below it
        self.resolved: _Resolved = {}
        self.rendered = rendered
        self.merges = True  # whether a map of the text may merge another ('<<')
        self._indented_lists: bool | None = None

    # -- what is written, as the document writes it ------------------------------------

    def render(self, value: Any, width: int | None = None) -> list[str]:
        """The lines of ``value`` (see :func:`_render`), its lists as the document's are
        (asked of the document only where ``value`` has a list that is a map's value: the
        one place the two styles differ)."""
        indented = _keyed_list(value) and self.indented_lists()
        return _render(value, width, self.rendered, indented)

    def indented_lists(self) -> bool:
        """Whether the document writes the lists that are a map's values indented under
        their keys (``key:`` then ``  - item``, as Helm's charts do) more often than at
        the key's indentation (``- item``, as kubectl and podfold write them)."""
        if self._indented_lists is None:
            under = at_key = 0
            seen: set[int] = set()
            stack = [self.root]
            mapping, sequence, scalar = yaml.MappingNode, yaml.SequenceNode, yaml.ScalarNode
            while stack:
                node = stack.pop()
                if id(node) in seen:
                    continue
                seen.add(id(node))
                if isinstance(node, sequence):
                    stack.extend(item for item in node.value if not isinstance(item, scalar))
                    continue
                if not isinstance(node, mapping):
                    continue
                flow = node.flow_style
                for key, value in node.value:
                    if isinstance(value, scalar):
                        continue
                    stack.append(value)
                    if (
                        flow
                        or not isinstance(value, sequence)
                        or value.flow_style
                        or not value.value
                    ):
                        continue
                    dash = self.dash_or_none(value.value[0])
                    if dash is None or not self.starts_line(dash):
                        continue
                    offset = self.column(dash) - self.column(self.key_start(key))
                    under += offset == 2
                    at_key += offset == 0
            self._indented_lists = under > at_key
        return self._indented_lists

    # -- where things are ---------------------------------------------------------------

    def start(self, node: yaml.Node) -> int:
        return int(node.start_mark.index) + self.offset

    def end(self, node: yaml.Node) -> int:
        return int(node.end_mark.index) + self.offset

    def content_end(self, node: yaml.Node) -> int:
        """Where ``node``'s own text ends: a block collection's end mark lies past the
        comments and blank lines after it, a block scalar's past its trailing blank lines."""
        while isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and not node.flow_style:
            if not node.value:
                break
            last = node.value[-1]
            node = last[1] if isinstance(node, yaml.MappingNode) else last
        end = self.end(node)
        if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
            start = self.start(node)
            header_end = self.text.find("\n", start)
            header = self.text[start:header_end] if header_end != -1 else ""
            if "+" not in header.split("#", 1)[0]:  # "|+" keeps its trailing blank lines
                while end > start and self.text[end - 1] in " \t\r\n":
                    end -= 1
        return end

    def line_start(self, index: int) -> int:
        return self.text.rfind("\n", 0, index) + 1

    def line_end(self, index: int) -> int:
        """The start of the line after the one ``index`` is on (``index`` itself where it
        starts a line, past its end: a block scalar's end)."""
        if index > 0 and self.text[index - 1] == "\n":
            return index
        found = self.text.find("\n", index)
        return len(self.text) if found == -1 else found + 1

    def starts_line(self, index: int) -> bool:
        return not self.text[self.line_start(index) : index].strip()

    def starts_same_line(self, node: yaml.Node, index: int) -> bool:
        return self.line_start(self.start(node)) == self.line_start(index)

    def column(self, index: int) -> int:
        return index - self.line_start(index)

    def dash(self, element: yaml.Node) -> int:
        """Where the ``-`` of a block list's ``element`` is: before it on its line, or
        ending a line above it (comments and blank lines between)."""
        found = self.dash_or_none(element)
        if found is None:
            self.refuse(element, "a list element whose '-' could not be found")
        return found

    def dash_or_none(self, element: yaml.Node) -> int | None:
        """:meth:`dash`, or ``None`` where it cannot be found."""
        index = self.start(element) - 1
        while index >= 0 and self.text[index] in " \t":
            index -= 1
        if index >= 0 and self.text[index] == "-":
            return index
        while index >= 0 and self.text[index] in "\r\n":
            start = self.line_start(index)
            line = self.text[start:index].rstrip("\r")
            if line.strip() and not line.lstrip().startswith("#"):
                found = _DASH_ENDS_LINE.search(line)
                if found is not None:
                    return start + found.start()
                break
            index = start - 1
        return None

    def key_start(self, key: yaml.Node) -> int:
        """Where the entry of ``key`` begins: at its ``?`` where it is written with one."""
        start = self.start(key)
        before = self.text[self.line_start(start) : start]
        if before.strip() == "?":
            return self.line_start(start) + before.index("?")
        return start

    def refuse(self, node: yaml.Node | None, why: str) -> NoReturn:
        from transforms.io.safe_yaml import position

        at = self.start(node if node is not None else self.root)
        line, column = position(self.text, at)
        raise SpliceError(
            f"document {self.number}: {why}", source=self.source, line=line, column=column
        )

    def add(self, start: int, end: int, text: str, inserted: Inserted | None = None) -> None:
        if self.newline != "\n":
            text = text.replace("\n", self.newline)
        self.edits.append(Edit(start, end, text, inserted))

    # -- the walk -----------------------------------------------------------------------

    def child(
        self, node: yaml.Node, data: Any, part: Part, prefix: Sequence[Part]
    ) -> tuple[yaml.Node | None, yaml.Node, Any]:
        """The node and value at ``part`` of ``node`` (whose value is ``data``, at
        ``prefix``), and the node of its key where ``node`` is a map."""
        if isinstance(part, Key):
            if not isinstance(node, yaml.MappingNode):
                self.refuse(node, f"{_text(prefix)} is not written as a map")
            self.no_merge(node, prefix)
            for key_node, value_node in node.value:
                if isinstance(key_node, yaml.ScalarNode) and key_node.value == part.name:
                    self.not_aliased(key_node, value_node, (*prefix, part))
                    return key_node, value_node, data[part.name]
            self.refuse(
                node, f"the key {part.name!r} of {_text(prefix)} is not written as it is read"
            )
        if not isinstance(node, yaml.SequenceNode):
            self.refuse(node, f"{_text(prefix)} is not written as a list")
        index = part.index if isinstance(part, Index) else self.index_of(data, part)
        if index is None or not 0 <= index < len(node.value):
            self.refuse(node, f"no element {part.text()} of {_text(prefix)}")
        element = node.value[index]
        self.not_aliased(None, element, (*prefix, part), container=node)
        return None, element, data[index]

    @staticmethod
    def index_of(data: Any, part: Part) -> int | None:
        if isinstance(part, Match):
            return next((i for i, item in enumerate(data) if part.matches(item)), None)
        if isinstance(part, Index):
            return part.index
        return None

    def no_merge(self, node: yaml.MappingNode, prefix: Sequence[Part]) -> None:
        if self.merges and any(key.tag == _MERGE for key, _ in node.value):
            self.refuse(
                node,
                f"{_text(prefix)} merges another map ('<<'): what is merged is written elsewhere",
            )

    def not_aliased(
        self,
        key: yaml.Node | None,
        node: yaml.Node,
        parts: Sequence[Part],
        container: yaml.Node | None = None,
    ) -> None:
        at = self.start(node)
        before = self.end(key) if key is not None else self.start(container) if container else 0
        if at < before:
            self.refuse(
                key, f"{_text(parts)} is an alias (*): what it stands for is written elsewhere"
            )
        if self.text.startswith("&", at):
            self.refuse(
                node, f"{_text(parts)} is anchored (&): an alias may stand for it elsewhere"
            )

    def resolve(
        self, parts: Sequence[Part], before: Any
    ) -> list[tuple[yaml.Node | None, yaml.Node, Any]]:
        """The chain of (key node, node, value) from the document down ``parts``."""
        chain: list[tuple[yaml.Node | None, yaml.Node, Any]] = [(None, self.root, before)]
        level = self.resolved
        for depth, part in enumerate(parts):
            known = level.get(part)
            if known is None:
                _, node, data = chain[-1]
                entry = self.child(node, data, part, parts[:depth])
                known = level[part] = (entry, {})
            chain.append(known[0])
            level = known[1]
        return chain

    # -- the edits ----------------------------------------------------------------------

    def edit(self, before: Any, after: Any, changes: list[Change]) -> None:
        # a list only reordered has its elements' lines moved; one reordered where its
        # elements changed too, or a collection left empty or made from an empty one, is
        # written anew, whole, and what changed inside it is written with it
        whole: list[tuple[Part, ...]] = []
        moved: list[tuple[Part, ...]] = []  # lists reordered by moving their elements' lines
        counts: dict[tuple[Part, ...], list[int]] = {}
        for change in changes:
            parts = change.path.parts
            if not parts:
                self.refuse(None, "the whole document changes")
            if change.reordered:
                alone = not any(
                    _under(other.path.parts, parts) for other in changes if other is not change
                )
                if alone and self.move(parts, before, change):
                    moved.append(parts)
                else:
                    whole.append(parts)
            elif change.before is MISSING or change.after is MISSING:
                count = counts.setdefault(parts[:-1], [0, 0])
                count[change.before is MISSING] += 1
                if change.after is MISSING:
                    self.removed.add(id(self.resolve(parts, before)[-1][1]))
        for parent, (removed, _added) in counts.items():
            node = self.resolve(parent, before)[-1][1]
            held = isinstance(node, (yaml.MappingNode, yaml.SequenceNode))
            if removed >= (len(node.value) if held else 0):
                whole.append(parent)
        whole = [
            parts
            for parts in whole
            if not any(_under(parts, other) for other in whole if other != parts)
        ]
        for parts in whole:
            self.replace(parts, before, _value_at(after, parts))
        for change in changes:
            parts = change.path.parts
            if parts in moved or any(_under(parts, other) or parts == other for other in whole):
                continue
            if change.before is MISSING:
                self.insert(parts, before, after)
            elif change.after is MISSING:
                self.remove(parts, before)
            else:
                self.replace(parts, before, change.after)

    def move(self, parts: Sequence[Part], before: Any, change: Change) -> bool:
        """Reorder the named elements of the block list at ``parts`` by moving their lines,
        each with the comments and blank lines above it (those above the first stay where
        they are), where that is all that changed in the list; ``False`` where it cannot
        be done so (the list is then written anew)."""
        node = self.resolve(parts, before)[-1][1]
        if not isinstance(node, yaml.SequenceNode) or node.flow_style or len(node.value) < 2:
            return False
        old, new = change.before, change.after
        names = [element_name(None, item) for item in old]
        new_names = [element_name(None, item) for item in new]
        if None in names or None in new_names:
            return False
        keys = [name.text() for name in names if name is not None]
        new_keys = [name.text() for name in new_names if name is not None]
        if len(set(keys)) != len(keys) or sorted(keys) != sorted(new_keys):
            return False
        place = {key: index for index, key in enumerate(keys)}
        if any(
            not strict_equal(item, old[place[key]]) for item, key in zip(new, new_keys, strict=True)
        ):
            return False  # an element changed too (a change under the list would say so)
        dashes = [self.dash_or_none(element) for element in node.value]
        first = dashes[0]
        if first is None or any(dash is None or not self.starts_line(dash) for dash in dashes):
            return False
        ends = [self.line_end(self.content_end(element)) for element in node.value]
        starts = [self.line_start(first), *ends[:-1]]
        region = self.text[starts[0] : ends[-1]]
        if not region.endswith("\n") or "&" in region or "*" in region:
            return False  # the file ends on its last line; an anchor or alias may be in it
        blocks = [self.text[start:end] for start, end in zip(starts, ends, strict=True)]
        moved = "".join(blocks[place[key]] for key in new_keys)
        self.edits.append(Edit(starts[0], ends[-1], moved))  # its line breaks are the file's
        return True

    def replace(self, parts: Sequence[Part], before: Any, value: Any) -> None:
        if not parts:  # the document, emptied or made from an empty one: written anew
            root, start = self.root, self.start(self.root)
            end = self.line_end(self.content_end(root))
            column = self.column(start) if self.starts_line(start) else 0  # indented as a whole
            self.add(start, end, self.indented(self.render(value), column, end))
            return
        chain = self.resolve(parts, before)
        parent = chain[-2][1]
        key, node, _ = chain[-1]
        flow = bool(getattr(parent, "flow_style", False))
        is_scalar = not isinstance(value, (dict, list))
        kept = isinstance(node, yaml.ScalarNode) and node.style in ("|", ">")
        if kept and self.content_end(node) == self.end(node):
            kept = False  # "|+": its trailing blank lines are its own, rewritten with it
        elif isinstance(node, yaml.ScalarNode) and is_scalar:
            kept = True
        if kept and isinstance(node, yaml.ScalarNode):
            written = self.scalar(value, node, flow)
            if written is not None:
                start, end = self.start(node), self.content_end(node)
                if start == end and start > 0 and self.text[start - 1] not in " \t":
                    written = " " + written  # an empty value: 'key:' becomes 'key: x'
                self.add(start, end, written)
                return
        if flow:
            if not _json_safe(value):
                self.refuse(node, "a value that JSON's quoting cannot write, in a flow collection")
            self.add(self.start(node), self.end(node), _json(value))
            return
        if key is not None:
            start, column = self.end(key), self.column(self.key_start(key))
            if start == self.line_start(start):  # a key that ends its lines ('? |'): its ':' below
                while self.text[start] in " \t":
                    start += 1
            lines = self.render({"k": value})
            lines[0] = lines[0][1:]  # what follows the key 'k'
        else:
            start = self.dash(node)
            column = self.column(start)
            lines = self.render([value])
        content = self.content_end(node)
        end = self.line_end(content)
        tail = self.text[content:end].rstrip("\r\n")
        if tail.lstrip().startswith("#") and self.starts_same_line(node, content):
            lines[0] = lines[0].rstrip("\r\n") + tail + "\n"  # the value's comment, as spaced
        self.add(start, end, self.indented(lines, column, end))

    def scalar(self, value: Any, node: yaml.ScalarNode, flow: bool) -> str | None:
        """``value`` written on one line where ``node`` stands, in its style where ``value``
        can be written in it; ``None`` where it takes more than one line."""
        lines = self.render({"k": value}, _WIDE)
        if len(lines) != 1 or not lines[0].startswith("k: "):
            return None
        written = lines[0][3:].rstrip("\r\n")
        if not isinstance(value, str):
            return written
        breaks = any(char in _BREAKS for char in value)
        dumper_double = written.startswith('"')
        if node.style == "'" and not breaks and not dumper_double:
            return "'" + value.replace("'", "''") + "'"
        if node.style == '"' and _json_safe(value):
            return _json(value)
        plain = not written.startswith(("'", '"'))
        if (
            flow
            and plain
            and (any(char in _FLOW_INDICATORS for char in written) or ": " in written)
        ):
            return _json(value) if _json_safe(value) else None
        return written

    def indented(self, lines: list[str], column: int, end: int) -> str:
        """``lines`` as one text, each after the first indented by ``column``; without the
        last line break where the text ends there without one."""
        pad = " " * column
        text = lines[0] + "".join(pad + line if line.strip() else line for line in lines[1:])
        if end == len(self.text) and not self.text.endswith("\n"):
            text = text.rstrip("\n")
        return text

    def insert(self, parts: Sequence[Part], before: Any, after: Any) -> None:
        chain = self.resolve(parts[:-1], before)
        _, node, old = chain[-1]
        last = parts[-1]
        new_list = _value_at(after, parts[:-1])
        if isinstance(last, Key):
            if not isinstance(node, yaml.MappingNode):
                self.refuse(node, f"{_text(parts[:-1])} is not written as a map")
            self.no_merge(node, parts[:-1])
            value = new_list[last.name]
            if node.flow_style:
                self.flow_insert(
                    node, len(node.value), f"{_json(last.name)}: {_json(value)}", value
                )
                return
            column = self.column(self.key_start(node.value[0][0]))
            since = self.content_end(node)
            entries = {last.name: value}
            first, end = self.start(node.value[0][0]), self.end(node)
            inserted = Inserted(id(node), first, since, end, entries, old, new_list)
            self.insert_lines(self.line_end(since), self.render(entries), column, inserted)
            return
        if not isinstance(node, yaml.SequenceNode):
            self.refuse(node, f"{_text(parts[:-1])} is not written as a list")
        position = self.index_of(new_list, last)
        if position is None:
            self.refuse(node, f"no element {last.text()} after the fold")
        value = new_list[position]
        slot = self.slot(old, new_list, position)
        if node.flow_style:
            self.flow_insert(node, slot, _json(value), value)
            return
        lines = self.render([value])
        if slot < len(node.value):
            dash = self.dash(node.value[slot])
            column = self.column(dash)
            if self.starts_line(dash):
                first, end = self.dash(node.value[0]), self.end(node)
                inserted = Inserted(id(node), first, dash, end, [value], old, new_list, slot)
                self.insert_lines(self.line_start(dash), lines, column, inserted)
            else:
                self.add(dash, dash, self.indented(lines, column, -1) + " " * column)
            return
        first = self.dash(node.value[0])
        column, since, end = self.column(first), self.content_end(node), self.end(node)
        inserted = Inserted(id(node), first, since, end, [value], old, new_list, len(old))
        self.insert_lines(self.line_end(since), lines, column, inserted)

    @staticmethod
    def slot(old: Any, new: Any, position: int) -> int:
        """Before which element of the old list the new one at ``position`` goes: before
        the first of the old ones that follows it in the new list (named lists; the
        positional ones grow at their end only)."""
        names = [element_name(None, item) for item in old]
        new_names = [element_name(None, item) for item in new]
        for found in (names, new_names):  # as the diff tells named lists from the others
            if None in found or len(set(found)) != len(found):
                return len(old)
        kept = {name: index for index, name in enumerate(names)}
        following = (kept.get(name) for name in new_names[position + 1 :])
        return next((index for index in following if index is not None), len(old))

    def insert_lines(
        self, at: int, lines: list[str], column: int, inserted: Inserted | None = None
    ) -> None:
        pad = " " * column
        text = "".join(pad + line if line.strip() else line for line in lines)
        if at == len(self.text) and self.text and not self.text.endswith("\n"):
            text = "\n" + text.rstrip("\n")
        self.add(at, at, text, inserted)

    def flow_insert(self, node: yaml.Node, slot: int, written: str, value: Any) -> None:
        if not _json_safe(value):
            self.refuse(node, "a value that JSON's quoting cannot write, in a flow collection")
        entries = node.value
        if not entries:
            self.refuse(node, "an empty flow collection")  # written anew, whole, by edit()
        mapping = isinstance(node, yaml.MappingNode)
        starts = [self.start(entry[0] if mapping else entry) for entry in entries]
        # a collection written an entry a line (a JSON file, pretty-printed) gets its new
        # entries a line each, at its entries' indentation
        own_lines = all(self.starts_line(start) for start in starts)
        if slot < len(entries):
            at = starts[slot]
            pad = "\n" + " " * self.column(at) if own_lines else " "
            self.add(at, at, written + "," + pad)
            return
        at = self.content_end(entries[-1][1] if mapping else entries[-1])
        pad = "\n" + " " * self.column(starts[-1]) if own_lines else " "
        self.add(at, at, "," + pad + written)

    def remove(self, parts: Sequence[Part], before: Any) -> None:
        chain = self.resolve(parts, before)
        parent = chain[-2][1]
        key, node, _ = chain[-1]
        assert isinstance(parent, (yaml.MappingNode, yaml.SequenceNode))
        entries = parent.value
        if isinstance(parent, yaml.MappingNode):
            index = next(i for i, (k, _) in enumerate(entries) if k is key)
            starts = [self.key_start(k) for k, _ in entries]
        else:
            index = next(i for i, element in enumerate(entries) if element is node)
            starts = (
                [self.start(element) for element in entries]
                if parent.flow_style
                else [self.dash(element) for element in entries]
            )
        kept = [
            i
            for i, entry in enumerate(entries)
            if id(entry[1] if isinstance(parent, yaml.MappingNode) else entry) not in self.removed
        ]
        later = next((i for i in kept if i > index), None)
        start = starts[index]
        if parent.flow_style:
            if later is not None:  # up to the next entry kept: the removed ones between too
                self.add(start, starts[later], "")
            else:  # from the end of the last entry kept, its comma with it
                earlier = max(i for i in kept if i < index)
                previous = entries[earlier]
                previous_node = previous[1] if isinstance(parent, yaml.MappingNode) else previous
                self.add(self.content_end(previous_node), self.content_end(node), "")
            return
        if self.starts_line(start):
            self.add(self.line_start(start), self.line_end(self.content_end(node)), "")
        elif later is not None:  # the first entry, on its parent's line: the next one kept moves up
            self.add(start, starts[later], "")
        else:  # pragma: no cover - a collection left empty is written anew, whole
            self.refuse(node, "the last entry of a collection")


def _under(parts: Sequence[Part], other: Sequence[Part]) -> bool:
    """Whether ``parts`` lies strictly inside ``other``."""
    return len(parts) > len(other) and tuple(parts[: len(other)]) == tuple(other)


def _text(parts: Sequence[Part]) -> str:
    from combinators.paths import Path

    return str(Path(tuple(parts))) or "the document"


def _value_at(data: Any, parts: Sequence[Part]) -> Any:
    for part in parts:
        if isinstance(part, Key):
            data = data[part.name]
        elif isinstance(part, Index):
            data = data[part.index]
        else:
            assert isinstance(part, Match)
            data = next(item for item in data if part.matches(item))
    return data
