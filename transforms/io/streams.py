"""Streams of plain documents written as YAML, on libyaml's emitter where PyYAML has it.

:func:`dump_stream` writes documents (maps, lists, strings, numbers,
booleans, null) one after another with ``---`` between them: keys in the
order they are in, no flow style, multi-line strings as ``|`` blocks, text
other than ASCII as itself, what libyaml writes only in double quotes
(control characters, NEL, characters beyond the BMP) double-quoted, and a
string that kubectl or a YAML 1.2 reader would read as something else
(``n``, ``1e-4``, ``08``: :mod:`transforms.io.quoting`) quoted: what
``yaml.dump_all`` with PyYAML's safe dumper (given the same resolvers)
writes with libyaml, text for text. Where PyYAML has libyaml
(:data:`~transforms.io.safe_yaml.LIBYAML`), its emitter writes the stream
from events made in one pass over each document, not from a node made for
each value (several times faster); where it has not, :class:`StreamDumper`
writes the same text in pure Python. A document holding anything else (a
map or list inside itself, written as an anchor and an alias; a set) is
written through PyYAML's representer. A map or list given twice (a
manifest's anchor and alias, read) is written twice, in full, as kubectl
writes it.

>>> print(dump_stream([{"kind": "Pod", "metadata": {"name": "a"}},
...                    {"data": {"run.sh": "echo 1\\necho 2\\n", "on": True, "n": 1}}]), end="")
kind: Pod
metadata:
  name: a
---
data:
  run.sh: |
    echo 1
    echo 2
  'on': true
  'n': 1
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import Any

import yaml
from yaml.events import (
    DocumentEndEvent,
    DocumentStartEvent,
    Event,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)

from combinators.limits import MAX_DEPTH
from transforms.io import safe_yaml
from transforms.io.quoting import quote_foreign_scalars

__all__ = ("dump_stream", "StreamDumper", "CStreamDumper", "IndentedListsDumper")

_PREFIX = "tag:yaml.org,2002:"
_STR, _INT, _BOOL, _NULL = (_PREFIX + name for name in ("str", "int", "bool", "null"))
_MAP, _SEQ = _PREFIX + "map", _PREFIX + "seq"
# what the serializer makes of every document, map and list (block style, tags left out)
_DOCUMENT_START = DocumentStartEvent(explicit=False)
_DOCUMENT_END = DocumentEndEvent(explicit=False)
_MAPPING_START = MappingStartEvent(None, _MAP, True, flow_style=False)
_SEQUENCE_START = SequenceStartEvent(None, _SEQ, True, flow_style=False)
_MAPPING_END, _SEQUENCE_END = MappingEndEvent(), SequenceEndEvent()


# what libyaml writes only in double quotes, and PyYAML's emitter otherwise (NEL, characters
# beyond the BMP): control characters but the line feed, DEL and C1, the byte-order mark,
# U+FFFE/FFFF and lone surrogates; asked for on both paths, so that both write the same
# (written as these, not as the complement of the rest: see safe_yaml._NON_PRINTABLE)
_DOUBLE_QUOTED = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufeff\ufffe\uffff\U00010000-\U0010ffff]"
)


# what libyaml escapes in double quotes, and how
_ESCAPED = re.compile(
    '[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff\U00010000-\U0010ffff"\\\\]'
)
_ESCAPES = {
    0x00: "0",
    0x07: "a",
    0x08: "b",
    0x09: "t",
    0x0A: "n",
    0x0B: "v",
    0x0C: "f",
    0x0D: "r",
    0x1B: "e",
    0x22: '"',
    0x5C: "\\",
    0x85: "N",
    0xA0: "_",
    0x2028: "L",
    0x2029: "P",
}


def _style(text: str) -> str | None:
    """How a string is written: double-quoted where :data:`_DOUBLE_QUOTED` says, a ``|``
    block where it has a line feed, else as the emitter chooses."""
    if _DOUBLE_QUOTED.search(text) is not None:
        return '"'
    return "|" if "\n" in text else None


def _represent_str(dumper: Any, value: str) -> yaml.ScalarNode:
    node: yaml.ScalarNode = dumper.represent_scalar(_STR, value, style=_style(value))
    return node


class StreamDumper(yaml.SafeDumper):
    """PyYAML's safe dumper (pure Python) writing what libyaml's emitter writes: multi-line
    strings as ``|`` blocks; a key written as ``key:`` where libyaml writes it so (an
    empty one too; up to 128 bytes, no line break, a carriage return included), else
    ``? key``; ``...`` at the end of a stream whose last document has a block that keeps
    its trailing line breaks (``|+``), and after nothing else."""

    _kept = False  # a "|+" or ">+" block was written in this document

    def check_simple_key(self) -> bool:
        event = self.event
        if (
            isinstance(event, ScalarEvent)
            and event.anchor is None
            and (event.implicit[0] or event.implicit[1])
        ):
            if self.analysis is None:
                self.analysis = self.analyze_scalar(event.value)
            return (
                not self.analysis.multiline
                and "\r" not in event.value
                and len(event.value.encode("utf-8")) <= 128
            )
        return bool(super().check_simple_key())

    def determine_block_hints(self, text: str) -> str:
        hints: str = super().determine_block_hints(text)
        self._kept = hints.endswith("+")  # libyaml: what the last block scalar wrote
        return hints

    def write_double_quoted(self, text: str, split: bool = True) -> None:
        # libyaml's: the same escapes, and a line folded only at a space past the width
        self.write_indicator('"', True)
        spaces = False
        last = len(text) - 1
        for index, char in enumerate(text):
            if _ESCAPED.match(char) is not None:
                code = ord(char)
                letter = _ESCAPES.get(code)
                data = "\\" + (
                    letter
                    if letter is not None
                    else f"x{code:02X}"
                    if code <= 0xFF
                    else f"u{code:04X}"
                    if code <= 0xFFFF
                    else f"U{code:08X}"
                )
                spaces = False
            elif char == " ":
                if split and not spaces and self.column > self.best_width and 0 < index < last:
                    self.write_indent()
                    data = "\\" if text[index + 1] == " " else ""
                else:
                    data = " "
                spaces = True
            else:
                data = char
                spaces = False
            self.column += len(data)
            self.stream.write(data)
        self.write_indicator('"', False)

    def expect_document_start(self, first: bool = False) -> None:
        if isinstance(self.event, DocumentStartEvent):
            self._kept = False
        else:
            self.open_ended = self._kept
        super().expect_document_start(first)


StreamDumper.add_representer(str, _represent_str)
quote_foreign_scalars(StreamDumper)

_CSafeDumper: Any = getattr(yaml, "CSafeDumper", StreamDumper)


class CStreamDumper(_CSafeDumper):  # type: ignore[misc]
    """:class:`StreamDumper` on libyaml's emitter (``yaml.CSafeDumper``), where PyYAML has it."""


CStreamDumper.add_representer(str, _represent_str)
quote_foreign_scalars(CStreamDumper)


class IndentedListsDumper(StreamDumper):
    """:class:`StreamDumper` writing a list that is a map's value indented under its key
    (``key:`` then ``  - item``), as Helm's charts and many hand-written manifests do,
    where PyYAML and libyaml write it at the key's indentation (``- item``); everything
    else as :class:`StreamDumper` writes it. In pure Python: libyaml's emitter has no such
    choice."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def dump_stream(
    documents: Sequence[Any], *, width: int | None = None, indented_lists: bool = False
) -> str:
    """The YAML stream of ``documents`` (see the module); ``width``, where given, is the
    column past which a long string is folded onto the next line (80 by default);
    ``indented_lists``: a list that is a map's value is indented under its key
    (:class:`IndentedListsDumper`).

    >>> dump_stream([{"a": [1, None]}, {}])
    'a:\\n- 1\\n- null\\n--- {}\\n'
    >>> print(dump_stream([{"a": [{"b": [1]}]}], indented_lists=True), end="")
    a:
      - b:
          - 1
    """
    stream = io.StringIO()
    kind = (
        IndentedListsDumper
        if indented_lists
        else CStreamDumper
        if safe_yaml.LIBYAML
        else StreamDumper
    )
    dumper = kind(
        stream, default_flow_style=False, allow_unicode=True, sort_keys=False, width=width
    )
    scalars: dict[Any, ScalarEvent] = {}
    try:
        dumper.open()
        for document in documents:
            events = _events(document, dumper, scalars)
            if events is None:
                dumper.represent(document)
            else:
                for event in events:
                    dumper.emit(event)
        dumper.close()
    finally:
        dumper.dispose()
    return stream.getvalue()


def _written(data: Any, level: int) -> bool:  # pragma: no cover - never called
    """What ``_events``' walk is once the document is written: none of its own."""
    return False


def _events(document: Any, dumper: Any, scalars: dict[Any, ScalarEvent]) -> list[Event] | None:
    """The events PyYAML's representer and serializer make of a plain ``document``, or
    ``None`` where it holds anything else (a map or list inside itself, another type).

    A map or list met twice, not inside itself, is written twice, in full, as
    kubectl writes it: an anchor and an alias, as PyYAML's serializer would
    write it, are YAML that readers of manifests do not expect, and their
    names (``&id001``) would not be the input's.

    The emitters only read events, so one event stands for each scalar written
    again (``scalars``: by its text for a string, by its tag and text for any
    other), and one for each start and end of a map or list.
    """
    events: list[Event] = [_DOCUMENT_START]
    append = events.append
    inside: set[int] = set()  # the maps and lists the value being written is inside
    resolve = dumper.resolve

    def event_of(tag: str, text: str, style: str | None) -> ScalarEvent:
        # the serializer's test of whether the tag can be left out, plain and quoted
        implicit = (
            resolve(yaml.ScalarNode, text, (True, False)) == tag,
            resolve(yaml.ScalarNode, text, (False, True)) == tag,
        )
        return ScalarEvent(None, tag, implicit, text, style=style)

    def scalar(tag: str, text: str, style: str | None = None) -> None:
        key = (tag, text)
        event = scalars.get(key)
        if event is None:
            event = scalars[key] = event_of(tag, text, style)
        append(event)

    def value(data: Any, level: int) -> bool:
        kind = type(data)
        if kind is str:
            event = scalars.get(data)
            if event is None:
                event = scalars[data] = event_of(_STR, data, _style(data))
            append(event)
        elif kind is dict or kind is list:
            if id(data) in inside or level > MAX_DEPTH:
                return False  # inside itself, or deeper than podfold reads
            inside.add(id(data))
            if kind is dict:
                append(_MAPPING_START)
                for key, item in data.items():
                    if not (value(key, level + 1) and value(item, level + 1)):
                        return False
                append(_MAPPING_END)
            else:
                append(_SEQUENCE_START)
                for item in data:
                    if not value(item, level + 1):
                        return False
                append(_SEQUENCE_END)
            inside.discard(id(data))
        elif kind is bool:
            scalar(_BOOL, "true" if data else "false")
        elif kind is int:
            scalar(_INT, str(data))
        elif data is None:
            scalar(_NULL, "null")
        elif kind is float:
            node = dumper.represent_float(data)
            scalar(node.tag, node.value, node.style)
        else:
            return False
        return True

    try:
        if not value(document, 1):
            return None
    finally:
        # ``value`` calls itself through its closure: a cycle that would keep the events
        # (and the document's strings) until the collector ran
        value = _written
    append(_DOCUMENT_END)
    return events
