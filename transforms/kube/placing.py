"""A value at a concrete path of a document (keys and indexes), read, or written copying
along the path only: where the workload API puts what a workload-level or
whole-document step made (a workload's metadata, a List's item).
"""

from __future__ import annotations

from typing import Any

from combinators.data import (
    MISSING,
    Owned,
    delete_key,
    empty_map,
    freeze_value,
    is_map,
    is_persistent,
    is_seq,
    kind_name,
    rebuild_seq,
    set_key,
)
from combinators.errors import TypeClashError
from combinators.paths import Index, Key, Part

__all__ = ("value_at", "with_value_at")


def value_at(doc: Any, parts: tuple[Part, ...]) -> Any:
    """The value at ``parts`` (keys and indexes), or ``MISSING``.

    >>> from combinators.paths import path
    >>> value_at({"items": [{"metadata": {"name": "a"}}]}, path("items[0].metadata.name").parts)
    'a'
    """
    node = doc
    for part in parts:
        if type(part) is Key and is_map(node) and part.name in node:
            node = node[part.name]
        elif type(part) is Index and is_seq(node) and 0 <= part.index < len(node):
            node = node[part.index]
        else:
            return MISSING
    return node


def with_value_at(doc: Any, parts: tuple[Part, ...], value: Any, owned: Owned) -> Any:
    """``doc`` with ``value`` at ``parts`` (removed there where it is ``MISSING``), copied
    along the path only; a missing map on the way is made, anything else there is refused.

    >>> from combinators.data import Owned
    >>> from combinators.paths import path
    >>> doc = {"spec": {"a": 1}, "status": {}}
    >>> new = with_value_at(doc, path("spec.jobTemplate.metadata").parts, {"labels": {}}, Owned())
    >>> new["spec"], new["status"] is doc["status"], doc["spec"]
    ({'a': 1, 'jobTemplate': {'metadata': {'labels': {}}}}, True, {'a': 1})
    """
    part, rest = parts[0], parts[1:]
    if type(part) is Index:
        if not is_seq(doc):
            raise TypeClashError(
                f"{kind_name(doc)} where a list was", expected="a list", found=kind_name(doc)
            )
        if not rest:  # an item of a List, replaced whole
            item = freeze_value(value) if is_persistent(doc) else value
            return rebuild_seq(doc, {part.index: item}, (), owned)
        return rebuild_seq(
            doc, {part.index: with_value_at(doc[part.index], rest, value, owned)}, (), owned
        )
    assert type(part) is Key
    if not is_map(doc):
        raise TypeClashError(
            f"{kind_name(doc)} where a map was", expected="a map", found=kind_name(doc)
        )
    if not rest:
        if value is MISSING:
            return delete_key(doc, part.name, owned) if part.name in doc else doc
        if is_persistent(doc):
            value = freeze_value(value)
        return set_key(doc, part.name, value, owned)
    child = doc.get(part.name)
    if child is None:
        if value is MISSING:
            return doc
        child = empty_map(is_persistent(doc))
    return set_key(doc, part.name, with_value_at(child, rest, value, owned), owned)
