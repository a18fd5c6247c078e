"""The kind table: where each workload kind keeps its pods, and its metadata.

A Deployment's pods are in ``spec.template``, a PyTorchJob's in
``spec.pytorchReplicaSpecs.<type>.template``, an AppWrapper holds whole
workloads that hold templates. :data:`KINDS` says so, one entry per kind
(a :class:`WorkloadKind`); :func:`workload_kind` finds a document's.
:mod:`transforms.kube.workloads` finds and overlays the templates, and
re-exports these names.

>>> entry = workload_kind("CronJob", "batch/v1")
>>> [str(location.path) for location in entry.locations], str(entry.metadata)
(['spec.jobTemplate.spec.template'], 'spec.jobTemplate.metadata')
>>> a_kind("InferenceService"), a_kind("RayJob"), a_kind("MPIJob")
('an InferenceService', 'a RayJob', 'an MPIJob')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from combinators.data import is_map, is_seq
from combinators.limits import MAX_NAME, short_repr
from combinators.paths import All, Index, Key, Part, Path, path

__all__ = (
    "TEMPLATE",
    "POD",
    "DOCUMENT",
    "BY_KEY",
    "Location",
    "WorkloadKind",
    "KINDS",
    "KIND_NAMES",
    "workload_kind",
    "api_group",
    "a_kind",
    "document_name",
    "reach",
)


#: What a location holds: a ``PodTemplateSpec``, a whole ``Pod``, or a whole
#: object of any kind (a workload wrapped in an AppWrapper, an item of a List).
TEMPLATE, POD, DOCUMENT = "PodTemplateSpec", "Pod", "document"

#: ``role_field`` of a location whose ``[*]`` runs over a map: the key is the role.
BY_KEY = "<key>"


@dataclass(frozen=True)
class Location:
    """Where a kind keeps templates: a path with at most one ``[*]``, and how to read the role.

    ``[*]`` runs over a list or over a map's values. The role is ``role``
    (fixed), or the ``[*]`` element's field ``role_field`` (a list of
    tasks: ``name``), or its key (``role_field=BY_KEY``: a map of replica
    types). ``holds`` is :data:`TEMPLATE`, :data:`POD` or :data:`DOCUMENT`.
    """

    path: Path
    holds: str = TEMPLATE
    role: str | None = None
    role_field: str | None = None


_METADATA = path("metadata")


@dataclass(frozen=True)
class WorkloadKind:
    """One entry of the table: a kind, where its templates are, and its API group.

    ``group`` is set where two projects use one kind name (``Job``:
    ``batch`` and Volcano's ``batch.volcano.sh``); the entry without a group
    serves every other group. ``added_volumes`` are the volumes the kind's
    controller adds to its pods: paths (``[*]`` allowed) in the workload to
    the names of its volume claim templates (a StatefulSet's
    ``volumeClaimTemplates``, a LeaderWorkerSet's
    ``leaderWorkerTemplate.volumeClaimTemplates``, a JobSet's
    ``volumeClaimPolicies``), each of which becomes a volume of that name, so
    a mount may name it. A Volcano Job's ``volumes`` are none: Volcano mounts
    each in every container itself, under a volume name it makes up.

    ``metadata`` is where the workload keeps the metadata that those who read
    a workload's labels read (Kueue's queue name): where workload-level steps
    act (:mod:`transforms.kube.scopes`). It is the object's own ``metadata``
    by default; a CronJob's ``spec.jobTemplate.metadata``, which its Jobs
    are made with; inside the template for a Pod and a PodTemplate, whose pods
    are the workloads. An AppWrapper is the workload of what it wraps (Kueue
    queues the AppWrapper). ``None``: the kind keeps none, either as a List
    (each item is a workload of its own) or as a RayCronJob (KubeRay gives the
    RayJobs it makes none of its labels, and its ``jobTemplate`` holds no
    metadata): a workload-level step there is refused.
    """

    kind: str
    locations: tuple[Location, ...]
    group: str | None = None
    added_volumes: tuple[Path, ...] = ()
    metadata: Path | None = _METADATA


def _at(text: str, role: str | None = None, holds: str = TEMPLATE) -> Location:
    return Location(path(text), holds, role)


def _each(text: str, role_field: str | None, holds: str = TEMPLATE) -> Location:
    return Location(path(text), holds, None, role_field)


def _ray(prefix: str) -> tuple[Location, ...]:
    """A RayCluster spec's templates, wherever the spec is."""
    return (
        _at(f"{prefix}.headGroupSpec.template", "head"),
        _each(f"{prefix}.workerGroupSpecs[*].template", "groupName"),
    )


def _kubeflow(kind: str, field_name: str) -> WorkloadKind:
    return WorkloadKind(kind, (_each(f"spec.{field_name}[*].template", BY_KEY),))


#: Every kind podfold knows, and where its pods are. Adding a kind is one entry.
KINDS: tuple[WorkloadKind, ...] = (
    WorkloadKind("Pod", (_at("", holds=POD),)),
    WorkloadKind("PodTemplate", (_at("template"),), metadata=path("template.metadata")),
    WorkloadKind("Deployment", (_at("spec.template"),)),
    WorkloadKind(
        "StatefulSet",
        (_at("spec.template"),),
        added_volumes=(path("spec.volumeClaimTemplates[*].metadata.name"),),
    ),
    WorkloadKind("DaemonSet", (_at("spec.template"),)),
    WorkloadKind("ReplicaSet", (_at("spec.template"),)),
    WorkloadKind("ReplicationController", (_at("spec.template"),)),
    WorkloadKind("Job", (_at("spec.template"),)),
    # Kueue reads a CronJob's Jobs' labels, which the CronJob copies from its jobTemplate
    WorkloadKind(
        "CronJob",
        (_at("spec.jobTemplate.spec.template"),),
        metadata=path("spec.jobTemplate.metadata"),
    ),
    WorkloadKind("Job", (_each("spec.tasks[*].template", "name"),), group="batch.volcano.sh"),
    WorkloadKind(
        "CronJob",
        (_each("spec.jobTemplate.spec.tasks[*].template", "name"),),
        group="batch.volcano.sh",
        metadata=path("spec.jobTemplate.metadata"),
    ),
    WorkloadKind(
        "JobTemplate", (_each("spec.tasks[*].template", "name"),), group="flow.volcano.sh"
    ),
    WorkloadKind(
        "AppWrapper",
        (
            _each("spec.resources.GenericItems[*].generictemplate", None, holds=DOCUMENT),
            _each("spec.components[*].template", None, holds=DOCUMENT),
        ),
    ),
    # JobSet adds a claim's volume to each pod that mounts it (jobset's addVolumes)
    WorkloadKind(
        "JobSet",
        (_each("spec.replicatedJobs[*].template.spec.template", "name"),),
        added_volumes=(path("spec.volumeClaimPolicies[*].templates[*].metadata.name"),),
    ),
    _kubeflow("PyTorchJob", "pytorchReplicaSpecs"),
    _kubeflow("TFJob", "tfReplicaSpecs"),
    _kubeflow("MPIJob", "mpiReplicaSpecs"),
    _kubeflow("XGBoostJob", "xgbReplicaSpecs"),
    _kubeflow("PaddleJob", "paddleReplicaSpecs"),
    _kubeflow("JAXJob", "jaxReplicaSpecs"),
    WorkloadKind("RayCluster", _ray("spec")),
    WorkloadKind(
        "RayJob", (*_ray("spec.rayClusterSpec"), _at("spec.submitterPodTemplate", "submitter"))
    ),
    WorkloadKind("RayService", _ray("spec.rayClusterConfig")),
    WorkloadKind(
        "RayCronJob",
        (
            *_ray("spec.jobTemplate.rayClusterSpec"),
            _at("spec.jobTemplate.submitterPodTemplate", "submitter"),
        ),
        metadata=None,
    ),
    # the leader's and the workers' StatefulSets both get the claim templates (as lws makes them)
    WorkloadKind(
        "LeaderWorkerSet",
        (
            _at("spec.leaderWorkerTemplate.leaderTemplate", "leader"),
            _at("spec.leaderWorkerTemplate.workerTemplate", "worker"),
        ),
        added_volumes=(path("spec.leaderWorkerTemplate.volumeClaimTemplates[*].metadata.name"),),
    ),
    WorkloadKind("List", (_each("items[*]", None, holds=DOCUMENT),), metadata=None),
)

_BY_KIND: dict[tuple[str | None, str], WorkloadKind] = {
    (entry.group, entry.kind): entry for entry in KINDS
}
KIND_NAMES: dict[str, str] = {
    entry.kind.lower(): entry.kind for entry in KINDS if entry.kind != "List"
}
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
    """The table's entry for a kind (and ``apiVersion``, where kinds clash), or ``None``.

    >>> workload_kind("Job", "batch.volcano.sh/v1alpha1").locations[0].path
    path('spec.tasks[*].template')
    >>> workload_kind("Job", "batch/v1").locations[0].path
    path('spec.template')
    >>> workload_kind("Service", "v1") is None
    True
    """
    if not isinstance(kind, str):
        return None
    return _BY_KIND.get((api_group(api_version), kind)) or _BY_KIND.get((None, kind))


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


def reach(
    node: Any, parts: tuple[Part, ...], location: Location
) -> Iterable[tuple[tuple[Part, ...], Any, str | None]]:
    """(concrete parts, value, role) for every value ``parts`` reaches from ``node``."""
    for index, part in enumerate(parts):
        if type(part) is All:
            walked, rest = parts[:index], parts[index + 1 :]
            if is_map(node):
                for key, element in node.items():
                    role = key if location.role_field == BY_KEY else location.role
                    for found, value, _ in reach(element, rest, location):
                        yield (*walked, Key(str(key)), *found), value, role
            elif is_seq(node):
                for position, element in enumerate(node):
                    role = location.role
                    if location.role_field is not None and is_map(element):
                        named = element.get(location.role_field)
                        role = named if isinstance(named, str) else None
                    for found, value, _ in reach(element, rest, location):
                        yield (*walked, Index(position), *found), value, role
            return
        assert type(part) is Key
        if not is_map(node) or part.name not in node:
            return
        node = node[part.name]
    yield parts, node, location.role
