"""How strategic merge patch treats each field reachable from a Pod.

The table lives in ``_listkeys.json`` next to this module, generated once
from the official OpenAPI schema that the ``kubernetes-validate`` package
ships (:func:`generate`), committed, and loaded lazily on first use
(:func:`field_meta`). Only fields that matter to a patch are kept: fields
with a patch strategy, and the object fields that lead to them.

For every such field the table records

- ``type``: the field's object type (of the list's items, for a list);
- ``strategy``: the ``x-kubernetes-patch-strategy`` parts (``merge``,
  ``retainKeys``, ``replace``);
- ``keys``: the list's merge key: ``x-kubernetes-list-map-keys`` where the
  schema gives them (composite for container ports:
  ``containerPort, protocol``), else ``x-kubernetes-patch-merge-key``;
- ``defaults``: values the API server defaults a key field to, used when an
  element leaves that field out (ports' ``protocol`` is ``TCP``).

>>> meta = field_meta("Container", "ports")
>>> meta.merge, meta.keys, meta.defaults
(True, ('containerPort', 'protocol'), (('protocol', 'TCP'),))
>>> field_meta("PodSpec", "tolerations").merge
False
>>> field_meta("ObjectMeta", "finalizers")
FieldMeta(type=None, merge=True, retain_keys=False, keys=(), defaults=())
>>> ROOTS["PodTemplateSpec"]
'PodTemplateSpec'
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

__all__ = ("FieldMeta", "ROOTS", "NO_META", "field_meta", "generate")

TABLE = Path(__file__).with_name("_listkeys.json")

ROOTS = {"Pod": "Pod", "PodSpec": "PodSpec", "PodTemplateSpec": "PodTemplateSpec"}
"""The kinds a strategic merge patch can start from, and their schema type."""

# Key fields the API server fills in when left out (the schema says so only in prose).
_KEY_DEFAULTS = {("ContainerPort", "protocol"): "TCP"}


class FieldMeta(NamedTuple):
    """What strategic merge patch needs to know about one field."""

    type: str | None
    merge: bool
    retain_keys: bool
    keys: tuple[str, ...]
    defaults: tuple[tuple[str, Any], ...]


NO_META = FieldMeta(None, False, False, (), ())
"""A field the table does not know: maps merge, lists replace."""


@cache
def _table() -> dict[str, dict[str, FieldMeta]]:
    raw = json.loads(TABLE.read_text(encoding="utf-8"))
    return {
        type_name: {
            field: FieldMeta(
                entry.get("type"),
                "merge" in entry.get("strategy", ()),
                "retainKeys" in entry.get("strategy", ()),
                tuple(entry.get("keys", ())),
                tuple((key, value) for key, value in entry.get("defaults", {}).items()),
            )
            for field, entry in fields.items()
        }
        for type_name, fields in raw["types"].items()
    }


def field_meta(type_name: str | None, field: str) -> FieldMeta:
    """The patch metadata of ``field`` in objects of ``type_name`` (``NO_META`` if unknown).

    >>> field_meta("PodSpec", "containers").keys
    ('name',)
    >>> field_meta(None, "anything") is NO_META
    True
    """
    if type_name is None:
        return NO_META
    return _table().get(type_name, {}).get(field, NO_META)


def generate(definitions: dict[str, Any], roots: tuple[str, ...] = tuple(ROOTS.values())) -> dict[str, Any]:
    """Build the table from an OpenAPI ``definitions`` map (``$defs`` of the schema).

    Type names are shortened to their last dotted part; the walk starts at
    ``roots`` and keeps only fields that carry, or lead to, patch metadata.

    >>> defs = {"x.v1.Pod": {"properties": {"spec": {"$ref": "#/$defs/x.v1.PodSpec"}}},
    ...         "x.v1.PodSpec": {"properties": {"volumes": {"type": "array",
    ...             "items": {"$ref": "#/$defs/x.v1.Volume"},
    ...             "x-kubernetes-patch-strategy": "merge,retainKeys",
    ...             "x-kubernetes-patch-merge-key": "name"}}},
    ...         "x.v1.Volume": {"properties": {"name": {"type": "string"}}}}
    >>> generate(defs, ("Pod",))["types"]
    {'Pod': {'spec': {'type': 'PodSpec'}}, 'PodSpec': {'volumes': {'strategy': ['merge', 'retainKeys'], 'keys': ['name']}}}
    """
    by_short: dict[str, str] = {}
    for full in definitions:
        short = full.rsplit(".", 1)[-1]
        by_short.setdefault(short, full)
    types: dict[str, dict[str, Any]] = {}

    def child_of(prop: dict[str, Any]) -> str | None:
        ref = prop.get("$ref") or (prop.get("items") or {}).get("$ref")
        if not ref:
            return None
        full = ref.rsplit("/", 1)[-1]
        if not definitions[full].get("properties"):
            return None
        return str(full.rsplit(".", 1)[-1])

    def walk(short: str, visiting: frozenset[str]) -> bool:
        if short in types:
            return bool(types[short])
        if short in visiting:
            return False
        fields: dict[str, Any] = {}
        for name, prop in definitions[by_short[short]].get("properties", {}).items():
            entry: dict[str, Any] = {}
            child = child_of(prop)
            if child is not None and walk(child, visiting | {short}):
                entry["type"] = child
            strategy = prop.get("x-kubernetes-patch-strategy")
            if strategy:
                entry["strategy"] = strategy.split(",")
                keys = prop.get("x-kubernetes-list-map-keys") or (
                    [prop["x-kubernetes-patch-merge-key"]]
                    if "x-kubernetes-patch-merge-key" in prop else [])
                if keys:
                    entry["keys"] = keys
                    item_type = ref_name(prop)
                    defaults = {key: _KEY_DEFAULTS[(item_type, key)] for key in keys
                                if (item_type, key) in _KEY_DEFAULTS}
                    if defaults:
                        entry["defaults"] = defaults
            if entry:
                fields[name] = entry
        types[short] = fields
        return bool(fields)

    def ref_name(prop: dict[str, Any]) -> str:
        ref = prop.get("$ref") or (prop.get("items") or {}).get("$ref") or ""
        return str(ref).rsplit(".", 1)[-1]

    for root in roots:
        walk(root, frozenset())
    return {"types": {name: types[name] for name in sorted(types) if types[name]}}


def _main() -> None:  # pragma: no cover - run by hand to refresh the table
    import importlib

    schema_dir = Path(str(importlib.import_module("kubernetes_validate").__file__)).parent / "kubernetes-json-schema"
    source = schema_dir / "v1.32.0-local" / "_definitions.json"
    table = generate(json.loads(source.read_text(encoding="utf-8"))["$defs"])
    table = {"source": "kubernetes-validate schema v1.32.0", **table}
    TABLE.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover
    _main()
