"""KRM functions' wire format: a ``ResourceList`` (``config.kubernetes.io/v1``) read from its
text, and written back with its items and ``results``, as kpt and kustomize exchange it with a
function on stdin and stdout.

Every field of the list and of each item is kept as read, the annotations that say where an
item came from (``config.kubernetes.io/*``, ``internal.config.kubernetes.io/*``) with the rest;
a result names its item by ``resourceRef`` and by the file those annotations give. Where the
items changed, the changes are spliced into the list's own text
(:func:`~transforms.io.splicing.splice`), so the comments kpt passes along in it are kept.

>>> listed = read_resource_list(
...     "apiVersion: config.kubernetes.io/v1\\nkind: ResourceList\\nitems:\\n"
...     "- apiVersion: v1\\n  kind: Pod\\n  metadata:\\n    name: p\\n    annotations:\\n"
...     "      config.kubernetes.io/path: pods/p.yaml\\n      config.kubernetes.io/index: '0'\\n"
...     "  spec: {}  # empty\\n", "<stdin>")
>>> item = listed.items[0]
>>> resource_ref(item), file_of(item)
({'apiVersion': 'v1', 'kind': 'Pod', 'name': 'p'}, {'path': 'pods/p.yaml', 'index': 0})
>>> print(result("a finding", "warning", item, "spec.hostNetwork")["field"])
{'path': 'spec.hostNetwork'}
>>> print(write_resource_list(listed, [dict(item, spec={"hostIPC": True})], []), end="")
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: p
    annotations:
      config.kubernetes.io/path: pods/p.yaml
      config.kubernetes.io/index: '0'
  spec:  # empty
    hostIPC: true
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = (
    "API_VERSION",
    "KIND",
    "SEVERITIES",
    "ResourceList",
    "read_resource_list",
    "write_resource_list",
    "resource_ref",
    "file_of",
    "result",
)

API_VERSION = "config.kubernetes.io/v1"
KIND = "ResourceList"
SEVERITIES = ("error", "warning", "info")
"""A result's severities, as the KRM functions specification names them."""

_PATHS = ("config.kubernetes.io/path", "internal.config.kubernetes.io/path")
_INDEXES = ("config.kubernetes.io/index", "internal.config.kubernetes.io/index")


@dataclass(frozen=True)
class ResourceList:
    """A ``ResourceList`` as read: ``items`` (its resources, in order), ``function_config``
    (``None`` where it has none), the whole ``document``, and the ``text`` and ``source``
    it was read from; ``booleans``, the plain YAML 1.1 booleans written in the items
    (:class:`~transforms.io.booleans.PlainBoolean`), each of the item numbered from 1 as a
    document, its keys from the item's top."""

    items: tuple[Any, ...]
    function_config: Any
    document: Mapping[str, Any]
    text: str
    source: str
    booleans: tuple[Any, ...] = ()


def read_resource_list(text: str, source: str) -> ResourceList:
    """The ``ResourceList`` of ``text`` (read as a manifest is: strictly, kubectl's plain
    scalars), or an :class:`~transforms.errors.OverlayError` naming ``source`` and saying
    what was there instead: no document, several, another kind, items that are no list of
    maps.

    >>> read_resource_list("kind: Pod\\n", "<stdin>")
    Traceback (most recent call last):
      ...
    transforms.errors.OverlayError: <stdin>: a KRM function reads a ResourceList (apiVersion: config.kubernetes.io/v1, kind: ResourceList), got kind Pod with no apiVersion
    """
    from combinators.data import is_map, kind_name
    from transforms.errors import OverlayError
    from transforms.io.safe_yaml import load_manifest

    documents, booleans = load_manifest(text, source)
    if len(documents) != 1:
        raise OverlayError(
            f"a KRM function reads one ResourceList, got {len(documents)} documents",
            source=source,
        )
    document = documents[0]
    if not is_map(document) or document.get("kind") != KIND:
        got = (
            f"kind {document.get('kind')}"
            + (
                f", apiVersion {document.get('apiVersion')}"
                if document.get("apiVersion")
                else " with no apiVersion"
            )
            if is_map(document)
            else kind_name(document)
        )
        raise OverlayError(
            f"a KRM function reads a ResourceList (apiVersion: {API_VERSION}, kind: {KIND}), "
            f"got {got}",
            source=source,
        )
    items = document.get("items")
    if items is None:
        items = []
    if not isinstance(items, list):
        raise OverlayError(f"items is {kind_name(items)}, not a list of resources", source=source)
    for number, item in enumerate(items):
        if not is_map(item):
            raise OverlayError(
                f"items[{number}] is {kind_name(item)}, not a resource (a map with a kind)",
                source=source,
            )
    in_items = tuple(
        dataclasses.replace(found, document=found.keys[1] + 1, keys=found.keys[2:])
        for found in booleans
        if len(found.keys) >= 2 and found.keys[0] == "items" and type(found.keys[1]) is int
    )
    return ResourceList(
        tuple(items), document.get("functionConfig"), document, text, source, in_items
    )


def write_resource_list(
    listed: ResourceList, items: Sequence[Any], results: Sequence[Mapping[str, Any]]
) -> str:
    """``listed`` with ``items`` in place of its own and ``results`` (none: the field left
    out), as YAML: spliced into its own text, comments kept, where the splice can be exact;
    else written anew (every field kept, its comments lost)."""
    after = dict(listed.document)
    if any(new is not old for new, old in zip(items, listed.items, strict=True)):
        after["items"] = list(items)
    if results:
        after["results"] = [dict(found) for found in results]
    from transforms.io.splicing import SpliceError, splice

    try:
        return splice(listed.text, [(listed.document, after)], listed.source)
    except SpliceError:
        from transforms.io.streams import dump_stream

        return dump_stream([after])


def resource_ref(item: Mapping[str, Any]) -> dict[str, Any]:
    """What names ``item`` in a result: its ``apiVersion``, ``kind``, ``name`` and
    ``namespace``, those it has."""
    metadata = item.get("metadata")
    metadata = metadata if isinstance(metadata, Mapping) else {}
    ref = {key: item[key] for key in ("apiVersion", "kind") if isinstance(item.get(key), str)}
    ref.update(
        {key: metadata[key] for key in ("name", "namespace") if isinstance(metadata.get(key), str)}
    )
    return ref


def file_of(item: Mapping[str, Any]) -> dict[str, Any] | None:
    """The file ``item`` came from, as its annotations say (``config.kubernetes.io/path``, or
    kpt's ``internal.config.kubernetes.io/path``), with its index in that file where known;
    ``None`` where they say nothing."""
    metadata = item.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, Mapping) else None
    if not isinstance(annotations, Mapping):
        return None
    path = next((annotations[key] for key in _PATHS if isinstance(annotations.get(key), str)), None)
    if path is None:
        return None
    found: dict[str, Any] = {"path": path}
    index = next((annotations[key] for key in _INDEXES if key in annotations), None)
    if isinstance(index, str) and index.isdigit():
        found["index"] = int(index)
    elif isinstance(index, int) and not isinstance(index, bool):
        found["index"] = index
    return found


def result(
    message: str,
    severity: str,
    item: Mapping[str, Any] | None = None,
    field: str | None = None,
) -> dict[str, Any]:
    """One entry of ``results``: ``message`` and ``severity`` (one of :data:`SEVERITIES`),
    and, where it is about an ``item``, its ``resourceRef``, its ``file`` and the ``field``
    (a path in the item) it is about.

    >>> result("no pod template", "warning")
    {'message': 'no pod template', 'severity': 'warning'}
    """
    found: dict[str, Any] = {"message": message, "severity": severity}
    if item is not None:
        found["resourceRef"] = resource_ref(item)
        if field:
            found["field"] = {"path": field}
        where = file_of(item)
        if where is not None:
            found["file"] = where
    return found
