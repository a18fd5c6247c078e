"""How strategic merge patch treats each field reachable from a Pod.

Read from the same versioned schema tables that validation reads
(:func:`transforms.kube.schema.schema_for`), once per version, on first use.
Only fields that matter to a patch are known: fields with a patch strategy,
and the object fields that lead to them. For every such field:

- ``type``: the field's object type (of the list's items, for a list), by
  its short name (``Container``), when patch metadata lies below it;
- ``merge`` / ``retain_keys``: the ``x-kubernetes-patch-strategy`` parts;
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

from functools import cache
from typing import Any, NamedTuple

from transforms.kube.kinds import ROOT_KINDS
from transforms.kube.schema import DEFAULT_VERSION, Field, Schema, schema_for

__all__ = ("FieldMeta", "ROOTS", "NO_META", "field_meta")

ROOTS = {kind: kind for kind in ROOT_KINDS}
"""The kinds a strategic merge patch can start from, and their schema type."""


class FieldMeta(NamedTuple):
    """What strategic merge patch needs to know about one field."""

    type: str | None
    merge: bool
    retain_keys: bool
    keys: tuple[str, ...]
    defaults: tuple[tuple[str, Any], ...]


NO_META = FieldMeta(None, False, False, (), ())
"""A field the table does not know: maps merge, lists replace."""

_Table = dict[str, dict[str, FieldMeta]]
_NOTHING: dict[str, FieldMeta] = {}


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _child(field: Field) -> str | None:
    """The object type a field holds, directly or as list elements (maps are not walked)."""
    if field.kind == "list" and field.item is not None:
        field = field.item
    return field.ref if field.kind == "object" else None


def _meta(field: Field, schema: Schema, child: str | None) -> FieldMeta:
    if not field.patch_strategy:
        return FieldMeta(child, False, False, (), ())
    strategy = field.patch_strategy.split(",")
    keys = field.list_map_keys or ((field.merge_key,) if field.merge_key else ())
    element = _child(field)
    defaults: tuple[tuple[str, Any], ...] = ()
    if keys and element is not None:
        fields = schema.types[element].fields
        defaults = tuple(
            (key, fields[key].default)
            for key in keys
            if key in fields and fields[key].default is not None
        )
    return FieldMeta(child, "merge" in strategy, "retainKeys" in strategy, keys, defaults)


@cache
def _table(version: str) -> _Table:
    schema = schema_for(version)
    # the types with patch metadata at or below them: grown to a fixed point
    leads: set[str] = {
        name
        for name, type_ in schema.types.items()
        if any(field.patch_strategy for field in type_.fields.values())
    }
    grown = True
    while grown:
        grown = False
        for name, type_ in schema.types.items():
            if name not in leads and any(_child(field) in leads for field in type_.fields.values()):
                leads.add(name)
                grown = True
    table: _Table = {}
    for name in leads:
        entries: dict[str, FieldMeta] = {}
        for field_name, field in schema.types[name].fields.items():
            child = _child(field)
            child_short = _short(child) if child in leads and child is not None else None
            if field.patch_strategy or child_short is not None:
                entries[field_name] = _meta(field, schema, child_short)
        table[_short(name)] = entries
    return table


def field_meta(type_name: str | None, field: str, *, k8s_version: str | None = None) -> FieldMeta:
    """The patch metadata of ``field`` in objects of ``type_name`` (``NO_META`` if unknown).

    ``k8s_version`` picks the schema table (``"1.32"``, ``"v1.33.4"``; default
    the newest bundled); an unknown version raises
    :class:`~transforms.kube.schema.UnsupportedVersionError`.

    >>> field_meta("PodSpec", "containers").keys
    ('name',)
    >>> field_meta("PodSpec", "volumes", k8s_version="1.32").retain_keys
    True
    >>> field_meta(None, "anything") is NO_META
    True
    """
    if type_name is None:
        return NO_META
    version = DEFAULT_VERSION if k8s_version is None else schema_for(k8s_version).version
    return _table(version).get(type_name, _NOTHING).get(field, NO_META)
