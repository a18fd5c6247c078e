"""The kind table: the registry of workload kind records, and a document's kind in it.

A Deployment's pods are in ``spec.template``, a PyTorchJob's in
``spec.pytorchReplicaSpecs.<type>.template``, an AppWrapper holds whole
workloads that hold templates. Each kind says so in a record
(:mod:`transforms.kube.records`); the built-in kinds are records too
(:mod:`transforms.kube.builtin_kinds`), read into :data:`BUILTIN_KINDS`, a
:class:`KindRegistry` that is read-only once built. :func:`workload_kind`
finds a document's record there; the kinds users declare join them in the
current registry (:mod:`transforms.kube.registry`), which the workload API
uses; :mod:`transforms.kube.workloads` finds and overlays the templates, and
re-exports these names.

>>> entry = workload_kind("CronJob", "batch/v1")
>>> [str(location.path) for location in entry.locations], str(entry.metadata)
(['spec.jobTemplate.spec.template'], 'spec.jobTemplate.metadata')
>>> a_kind("InferenceService"), a_kind("RayJob"), a_kind("MPIJob")
('an InferenceService', 'a RayJob', 'an MPIJob')
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

from combinators.data import is_map
from combinators.limits import MAX_NAME, short_repr
from transforms.kube.builtin_kinds import RECORDS
from transforms.kube.records import (
    BY_KEY,
    DOCUMENT,
    POD,
    SPEC,
    TEMPLATE,
    Location,
    WorkloadKind,
    kind_from_record,
    reach,
)

__all__ = (
    "TEMPLATE",
    "POD",
    "SPEC",
    "DOCUMENT",
    "BY_KEY",
    "Location",
    "WorkloadKind",
    "KindRegistry",
    "BUILTIN_KINDS",
    "WORKLOAD_KINDS",
    "KIND_NAMES",
    "workload_kind",
    "api_group",
    "a_kind",
    "document_name",
    "reach",
)


def _specificity(entry: WorkloadKind) -> int:
    return (entry.group is not None) + (entry.version is not None)


class KindRegistry:
    """Workload kind records by kind name: an immutable value, built once from records.

    :meth:`lookup` finds a document's record: the one of its ``apiVersion``'s
    group and version, else of its group (any version), else the record
    without a group, unless its group has records of that kind (none of its
    version). :meth:`with_kinds` gives a new registry with more records (a
    record of a kind and group already there replaces it).

    >>> registry = KindRegistry.of([{"kind": "Widget", "pods": [{"path": "spec.template"}]}])
    >>> registry.lookup("Widget", "example.com/v1").locations[0].path, len(registry)
    (path('spec.template'), 1)
    >>> registry.lookup("Service", "v1") is None
    True
    """

    __slots__ = ("kinds", "_by_kind", "_names", "_hash")

    kinds: tuple[WorkloadKind, ...]
    _by_kind: Mapping[str, tuple[WorkloadKind, ...]]
    _names: Mapping[str, str]
    _hash: int

    def __init__(self, kinds: Iterable[WorkloadKind]) -> None:
        # a later record of the same kind, group and version replaces an earlier one
        unique = {(entry.kind, entry.group, entry.version): entry for entry in kinds}
        ordered = tuple(unique.values())
        by_kind: dict[str, list[WorkloadKind]] = {}
        for entry in ordered:
            by_kind.setdefault(entry.kind, []).append(entry)
        object.__setattr__(self, "kinds", ordered)
        object.__setattr__(self, "_hash", hash(ordered))  # a cache's key: hashed once
        object.__setattr__(
            self,
            "_by_kind",
            MappingProxyType(
                {
                    name: tuple(sorted(entries, key=_specificity, reverse=True))
                    for name, entries in by_kind.items()
                }
            ),
        )
        object.__setattr__(
            self,
            "_names",
            MappingProxyType(
                {entry.kind.lower(): entry.kind for entry in ordered if not entry.is_list}
            ),
        )

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a KindRegistry is read-only: cannot set {name}")

    @classmethod
    def of(cls, records: Iterable[Mapping[str, Any]]) -> KindRegistry:
        """A registry of the kinds ``records`` declare (see
        :func:`~transforms.kube.records.kind_from_record`)."""
        return cls(kind_from_record(record) for record in records)

    def with_kinds(self, kinds: Iterable[WorkloadKind]) -> KindRegistry:
        """This registry with ``kinds`` added; the registry itself is left as it is."""
        return KindRegistry((*self.kinds, *kinds))

    def lookup(self, kind: Any, api_version: Any = None) -> WorkloadKind | None:
        """The record of a document's ``kind`` and ``apiVersion``, or ``None``."""
        entries = self._by_kind.get(kind) if isinstance(kind, str) else None
        if entries is None:
            return None
        group = api_group(api_version)
        grouped = False
        for entry in entries:
            if entry.group is None:
                return None if grouped else entry
            if entry.group == group:
                grouped = True
                if entry.version is None or entry.version == _version(api_version):
                    return entry
        return None

    @property
    def names(self) -> Mapping[str, str]:
        """The kinds with pods (a List is none), by their lower-case names."""
        return self._names

    def __iter__(self) -> Iterator[WorkloadKind]:
        return iter(self.kinds)

    def __len__(self) -> int:
        return len(self.kinds)

    def __eq__(self, other: object) -> bool:
        return other is self or (isinstance(other, KindRegistry) and other.kinds == self.kinds)

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"KindRegistry(<{len(self.kinds)} kinds>)"


def _version(api_version: Any) -> str | None:
    if not isinstance(api_version, str):
        return None
    return api_version.rpartition("/")[2]


#: The built-in kinds, read from their records (:mod:`transforms.kube.builtin_kinds`).
BUILTIN_KINDS: KindRegistry = KindRegistry.of(RECORDS)

#: Every built-in kind's record, in order. Adding a kind is one record.
WORKLOAD_KINDS: tuple[WorkloadKind, ...] = BUILTIN_KINDS.kinds

KIND_NAMES: Mapping[str, str] = BUILTIN_KINDS.names
"""The kinds with pods, by their lower-case names (a List is none)."""


def api_group(api_version: Any) -> str:
    """The API group of an ``apiVersion``: ``""`` for the core group (``v1``) and where
    there is none.

    >>> api_group("batch.volcano.sh/v1alpha1"), api_group("v1"), api_group(None)
    ('batch.volcano.sh', '', '')
    """
    if not isinstance(api_version, str) or "/" not in api_version:
        return ""
    return api_version.split("/", 1)[0]


def workload_kind(kind: Any, api_version: Any = None) -> WorkloadKind | None:
    """The built-in record of a kind (and ``apiVersion``, where kinds clash), or ``None``:
    :data:`BUILTIN_KINDS` only. What the workload API looks up is the current registry
    (the built-in kinds and the declared ones):
    :func:`transforms.kube.workloads.workload_kind`.

    >>> workload_kind("Job", "batch.volcano.sh/v1alpha1").locations[0].path
    path('spec.tasks[*].template')
    >>> workload_kind("Job", "batch/v1").locations[0].path
    path('spec.template')
    >>> workload_kind("Service", "v1") is None
    True
    """
    return BUILTIN_KINDS.lookup(kind, api_version)


# initialisms read letter by letter whose first letter's name starts with a vowel sound
_VOWEL_LETTERS = frozenset("AEFHILMNORSX")


def a_kind(kind: str) -> str:
    """``kind`` with its indefinite article, as a message says it: "an InferenceService".

    An initialism (two capitals first) is read letter by letter: "an MPIJob",
    "an LLMInferenceService", "a TFJob".

    >>> a_kind("Deployment"), a_kind("AppWrapper"), a_kind("XGBoostJob"), a_kind("TFJob")
    ('a Deployment', 'an AppWrapper', 'an XGBoostJob', 'a TFJob')
    """
    initialism = len(kind) > 1 and kind[:2].isupper()
    if initialism:
        vowel = kind[:1] in _VOWEL_LETTERS
    else:  # an Unknown, a Uniform
        lowered = kind.lower()
        vowel = lowered[:1] in "aeio" or (lowered.startswith("un") and lowered[:3] != "uni")
    return f"{'an' if vowel else 'a'} {short_repr(kind, MAX_NAME, quoted=False)}"


def document_name(document: Any) -> str | None:
    """A document's ``metadata.name`` (or ``generateName``), or ``None``."""
    metadata: Any = document.get("metadata") if is_map(document) else None
    name = metadata.get("name") if is_map(metadata) else None
    if name is None and is_map(metadata):
        name = metadata.get("generateName")
    return name if isinstance(name, str) else None
