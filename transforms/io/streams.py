"""Streams of plain documents written as YAML, as kubectl writes them, on libyaml where PyYAML has it.

:func:`dump_stream` writes documents (maps, lists, strings, numbers,
booleans, null) one after another with ``---`` between them: keys in the
order they are in, no flow style, multi-line strings as ``|`` blocks, text
other than ASCII as itself. It writes what ``yaml.dump_all`` with PyYAML's
safe dumper writes of them, text for text; where PyYAML has libyaml
(:data:`~transforms.io.safe_yaml.LIBYAML`), libyaml's emitter writes it, from
events made in one pass over each document rather than from a node for each
value (several times faster). A document holding anything else (a value
given twice, written as an anchor and an alias; a set) is written by PyYAML's
representer, as before.

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
  n: 1
"""

from __future__ import annotations

import io
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

__all__ = ("dump_stream", "StreamDumper", "CStreamDumper")

_PREFIX = "tag:yaml.org,2002:"
_STR, _INT, _BOOL, _NULL = (_PREFIX + name for name in ("str", "int", "bool", "null"))
_MAP, _SEQ = _PREFIX + "map", _PREFIX + "seq"
# what the serializer makes of every document, map and list (block style, tags left out)
_DOCUMENT_START, _DOCUMENT_END = DocumentStartEvent(explicit=False), DocumentEndEvent(explicit=False)
_MAPPING_START = MappingStartEvent(None, _MAP, True, flow_style=False)
_SEQUENCE_START = SequenceStartEvent(None, _SEQ, True, flow_style=False)
_MAPPING_END, _SEQUENCE_END = MappingEndEvent(), SequenceEndEvent()


def _represent_str(dumper: Any, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    node: yaml.ScalarNode = dumper.represent_scalar(_STR, value, style=style)
    return node


class StreamDumper(yaml.SafeDumper):
    """PyYAML's safe dumper (pure Python), writing multi-line strings as ``|`` blocks."""


StreamDumper.add_representer(str, _represent_str)

_CSafeDumper: Any = getattr(yaml, "CSafeDumper", StreamDumper)


class CStreamDumper(_CSafeDumper):  # type: ignore[misc]
    """:class:`StreamDumper` on libyaml's emitter (``yaml.CSafeDumper``), where PyYAML has it."""


CStreamDumper.add_representer(str, _represent_str)


def dump_stream(documents: Sequence[Any]) -> str:
    """The YAML stream of ``documents`` (see the module).

    >>> dump_stream([{"a": [1, None]}, {}])
    'a:\\n- 1\\n- null\\n--- {}\\n'
    """
    stream = io.StringIO()
    dumper = (CStreamDumper if safe_yaml.LIBYAML else StreamDumper)(
        stream, default_flow_style=False, allow_unicode=True, sort_keys=False)
    scalars: dict[tuple[str, str, str | None], ScalarEvent] = {}
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


def _events(document: Any, dumper: Any,
            scalars: dict[tuple[str, str, str | None], ScalarEvent]) -> list[Event] | None:
    """The events PyYAML's representer and serializer make of a plain ``document``, or
    ``None`` where it holds anything else (a map or list met twice, another type).

    The emitters only read events, so one event stands for each scalar written
    again (``scalars``), and one for each start and end of a map or list.
    """
    events: list[Event] = [_DOCUMENT_START]
    append = events.append
    seen: set[int] = set()
    resolve = dumper.resolve

    def scalar(tag: str, text: str, style: str | None = None) -> None:
        key = (tag, text, style)
        event = scalars.get(key)
        if event is None:
            # the serializer's test of whether the tag can be left out, plain and quoted
            implicit = (resolve(yaml.ScalarNode, text, (True, False)) == tag,
                        resolve(yaml.ScalarNode, text, (False, True)) == tag)
            event = scalars[key] = ScalarEvent(None, tag, implicit, text, style=style)
        append(event)

    def value(data: Any, level: int) -> bool:
        kind = type(data)
        if kind is str:
            scalar(_STR, data, "|" if "\n" in data else None)
        elif kind is dict or kind is list:
            if id(data) in seen or level > MAX_DEPTH:
                return False  # an anchor and an alias, or deeper than podfold reads
            seen.add(id(data))
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

    if not value(document, 1):
        return None
    append(_DOCUMENT_END)
    return events
