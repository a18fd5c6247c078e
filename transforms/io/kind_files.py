"""Kind records from YAML files (``podfold --kinds FILE``), every error at its line.

A file holds a list of kind records, or one record (a map), in one or more YAML
documents: the shape :func:`~transforms.kube.records.kind_from_record` reads and
the built-in kinds have. It is read as an overlay file is (:mod:`transforms.io.safe_yaml`:
safe and strict, no tags, no key twice, bounded) and each record is checked as
it is built: an unknown field is refused with its near miss, and every error
names the file, the line and the column of what is wrong
(:class:`KindFileError`). Each kind comes with where it was declared
(``kinds.yaml:3``), for ``podfold kinds`` and the warnings.

>>> [(found.kind.kind, found.origin) for found in loads_kinds('''
... - apiVersion: example.com/*
...   kind: Widget
...   pods:
...     - {path: "spec.parts[*].template", roleField: part}
... ''', "kinds.yaml")]
[('Widget', 'kinds.yaml:2')]
>>> loads_kinds('''
... - kind: Widget
...   pods:
...     - path: spec.template
...       hold: spec
... ''', "kinds.yaml")
Traceback (most recent call last):
  ...
transforms.io.kind_files.KindFileError: kinds.yaml:5:7: kind record Widget, pods[0]: unknown field 'hold'; did you mean holds?
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

import yaml

from combinators.errors import ArgumentTypeError, TransformError
from combinators.limits import short_repr
from transforms.errors import OverlayError
from transforms.io.safe_yaml import (
    MAX_NODES,
    StrictLoader,
    check_graph,
    check_text,
    decode,
    read_stream,
    strict_loader,
    yaml_error,
)
from transforms.io.sources import read_source
from transforms.kube.records import KindRecordError, kind_from_record
from transforms.kube.registry import DeclaredKind

__all__ = ("KindFileError", "loads_kinds", "load_kinds", "load_kind_files")


class KindFileError(KindRecordError):
    """A kinds file cannot be read, or a record in it is malformed: ``source``, ``line``
    and ``column`` (from 1) say where; ``record`` and ``field`` what (``"?"`` and
    ``None`` where the file is not records at all)."""

    def __init__(
        self,
        message: str,
        *,
        source: str,
        line: int | None = None,
        column: int | None = None,
        record: str = "?",
        field: str | None = None,
    ) -> None:
        super().__init__(message, record=record, field=field)
        self.source = source
        self.line = line
        self.column = column

    def __str__(self) -> str:
        where = self.source
        if self.line is not None:
            where += f":{self.line}" + (f":{self.column}" if self.column is not None else "")
        return f"{where}: {TransformError.__str__(self)}"


def _at(message: str, source: str, node: yaml.Node, **what: Any) -> KindFileError:
    mark = node.start_mark
    return KindFileError(message, source=source, line=mark.line + 1, column=mark.column + 1, **what)


_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_UNKNOWN = re.compile(r"unknown field '([^']*)'")


def _child(node: yaml.Node, part: str | int, key_itself: bool = False) -> yaml.Node | None:
    if isinstance(part, int):
        if isinstance(node, yaml.SequenceNode) and part < len(node.value):
            return node.value[part]  # type: ignore[no-any-return]
        return None
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if getattr(key, "value", None) == part:
                return key if key_itself else value  # type: ignore[no-any-return]
    return None


def _located(node: yaml.Node, err: KindRecordError) -> yaml.Node:
    """The node ``err`` is about: its field's (``pods[0].holds``), or the key it names as
    unknown; as deep as the file has it."""
    parts: list[str | int] = [
        name if name else int(index) for name, index in _PART.findall(err.field or "")
    ]
    unknown = _UNKNOWN.search(str(err.message if hasattr(err, "message") else err))
    if unknown is not None:
        parts.append(unknown.group(1))
    found = node
    for number, part in enumerate(parts):
        last = number == len(parts) - 1
        # an unknown key, or a field's key where its value is missing: the key's line
        child = _child(found, part, key_itself=last and unknown is not None)
        if child is None:
            break
        found = child
    return found


def _records(node: yaml.Node, source: str) -> Iterator[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        yield node
    elif isinstance(node, yaml.SequenceNode):
        yield from node.value
    else:
        raise _at(
            "a kinds file holds a list of kind records (or one record, a map), got "
            f"{short_repr(getattr(node, 'value', None))}",
            source,
            node,
        )


def loads_kinds(text: str, source: str = "<string>") -> tuple[DeclaredKind, ...]:
    """The kinds the records of the YAML ``text`` declare, each with where (``source:LINE``);
    see the module. Every error is a :class:`KindFileError` at its line and column."""
    if not isinstance(text, str):
        raise ArgumentTypeError(
            f"text must be YAML text (a str), got {type(text).__name__}",
            argument="text",
            factory="loads_kinds",
            value=text,
        )
    try:
        check_text(text, source)
    except OverlayError as err:
        raise KindFileError(err.message, source=source, line=err.line, column=err.column) from None

    def read(loader: Any, documents: Iterator[yaml.Node]) -> list[DeclaredKind]:
        found: list[DeclaredKind] = []
        expanded = 0
        try:
            for node in documents:
                expanded += check_graph(node, MAX_NODES, before=expanded)
                for record in _records(node, source):
                    value = loader.construct_object(record, deep=True)
                    try:
                        kind = kind_from_record(value)
                    except KindRecordError as err:
                        raise _at(
                            err.message,
                            source,
                            _located(record, err),
                            record=err.record,
                            field=err.field,
                        ) from None
                    found.append(DeclaredKind(kind, f"{source}:{record.start_mark.line + 1}"))
        except yaml.YAMLError as err:
            refused = yaml_error(err, source, text=text)
            raise KindFileError(
                refused.message, source=source, line=refused.line, column=refused.column
            ) from None
        return found

    return tuple(read_stream(text, read, strict_loader(), StrictLoader))


def load_kinds(uri: str | os.PathLike[str]) -> tuple[DeclaredKind, ...]:
    """The kinds the records of the YAML file at ``uri`` (a path or any fsspec URI)
    declare, read within an overlay file's bounds; see :func:`loads_kinds`.

    >>> load_kinds("memory://podfold-doc/no-kinds.yaml")
    Traceback (most recent call last):
      ...
    transforms.io.kind_files.KindFileError: memory://podfold-doc/no-kinds.yaml: cannot read the kinds file: FileNotFoundError
    """
    path = os.fspath(uri)
    try:
        text = decode(read_source(path, "overlay"), path)
    except OverlayError as err:
        message = err.message.replace("cannot read the overlay", "cannot read the kinds file", 1)
        raise KindFileError(message, source=path, line=err.line, column=err.column) from None
    return loads_kinds(text, path)


def load_kind_files(uris: Any) -> tuple[DeclaredKind, ...]:
    """The kinds of each file of ``uris``, in order (a later record of a kind, group and
    version replaces an earlier one where they join a registry)."""
    return tuple(found for uri in uris for found in load_kinds(uri))
