"""The places of a workload above its pod templates, as strategic merge patch types them.

A patch of a workload kind (``kind: Deployment``) merges with the pod rules
at the kind's pod templates and as plain maps elsewhere. The merge engine
needs only that: which field of which map leads, through which places, to a
``PodTemplateSpec`` (or a ``Pod``, a ``PodSpec``) or the ``ObjectMeta``.
:func:`workload_root` reads it from the kind's record
(:class:`~transforms.kube.records.WorkloadKind`), once per record, into
immutable :class:`WorkloadPlace` values.

>>> from transforms.kube.table import workload_kind
>>> root = workload_root(workload_kind("JobSet", "jobset.x-k8s.io/v1alpha2"))
>>> root, sorted(root.fields)
(WorkloadPlace('JobSet'), ['metadata', 'spec'])
>>> root.fields["spec"].fields["replicatedJobs"].fields["*"]
WorkloadPlace('JobSet.spec.replicatedJobs.*')
>>> root.below("metadata"), root.below("status")
('ObjectMeta', None)
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple, Union

from combinators.paths import All, Key
from transforms.kube.records import DOCUMENT, WorkloadKind

__all__ = ("WorkloadPlace", "TypeName", "PlaceMeta", "workload_root")


class PlaceMeta(NamedTuple):
    """A workload place's field, as the merge engine reads a field's patch metadata
    (:class:`~transforms.forms.patches._listkeys.FieldMeta`): its maps merge, its lists
    (a JobSet's ``replicatedJobs``) replace whole, as for any object without a schema."""

    type: TypeName
    merge: bool = False
    retain_keys: bool = False
    keys: tuple[str, ...] = ()
    defaults: tuple[tuple[str, Any], ...] = ()


class WorkloadPlace:
    """A map of a workload above its pod templates: what each of its fields holds.

    ``fields`` maps a field (``"*"``: any key, any list element) to the
    type below it: another place, or a schema type name (``PodTemplateSpec``,
    ``Pod``, ``PodSpec``, ``ObjectMeta``). Read-only; it prints as its
    ``name``, the kind and the way to it (``JobSet.spec``), which messages
    use as the place in the patch.
    """

    __slots__ = ("name", "fields", "_metas")

    name: str
    fields: Mapping[str, TypeName]
    _metas: Mapping[str, PlaceMeta]

    def __init__(self, name: str, fields: Mapping[str, TypeName]) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "fields", MappingProxyType(dict(fields)))
        # made once: the merge engine asks for a field's metadata at every field it merges
        metas = {key: PlaceMeta(below) for key, below in fields.items() if below is not None}
        object.__setattr__(self, "_metas", MappingProxyType(metas))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a WorkloadPlace is read-only: cannot set {name}")

    def below(self, key: str) -> TypeName:
        """The type of field ``key`` here, ``None`` where no pod lies below it."""
        meta = self.meta(key)
        return None if meta is None else meta.type

    def meta(self, key: str) -> PlaceMeta | None:
        """The patch metadata of field ``key`` here, ``None`` where no pod lies below it."""
        metas = self._metas
        found = metas.get(key)
        return metas.get("*") if found is None else found

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"WorkloadPlace({self.name!r})"


TypeName = Union[str, WorkloadPlace, None]
"""What the merge engine is told a map is: a schema type, a workload place, or unknown."""


def _place(name: str, tree: Mapping[str, Any]) -> WorkloadPlace:
    return WorkloadPlace(
        name,
        {
            key: _place(f"{name}.{key}", below) if isinstance(below, dict) else below
            for key, below in tree.items()
        },
    )


@functools.cache
def workload_root(entry: WorkloadKind) -> WorkloadPlace:
    """The type of a whole ``entry`` document: its metadata, and the way to each pod."""
    tree: dict[str, Any] = {"metadata": "ObjectMeta"}
    for location in entry.locations:
        if location.holds == DOCUMENT:
            continue
        node = tree
        parts = location.path.parts
        for index, part in enumerate(parts):
            assert type(part) in (Key, All)
            key = part.name if type(part) is Key else "*"
            if index == len(parts) - 1:
                node[key] = location.holds
                break
            below = node.get(key)
            if not isinstance(below, dict):
                below = node[key] = {}
            node = below
    return _place(entry.kind, tree)
