"""A workload kind as a record: its ``apiVersion``, its ``kind``, and where its pods are.

A record is data in one shape wherever it comes from: the built-in kinds
(:mod:`transforms.kube.builtin_kinds`) are such records, and so will be the
kinds a user declares. :func:`kind_from_record` reads one (a mapping, as a
YAML file would give it) into a :class:`WorkloadKind`, refusing unknown
fields and naming where each mistake is; :mod:`transforms.kube.table` keeps
the registry of them, read-only once built.

>>> entry = kind_from_record({"apiVersion": "batch.volcano.sh/*", "kind": "Job",
...     "pods": [{"path": "spec.tasks[*].template", "roleField": "name"}]})
>>> entry.kind, entry.group, entry.version, str(entry.locations[0].path), entry.locations[0].role_field
('Job', 'batch.volcano.sh', None, 'spec.tasks[*].template', 'name')
>>> kind_from_record({"kind": "Job", "pod": []})
Traceback (most recent call last):
  ...
transforms.kube.records.KindRecordError: kind record Job: unknown field 'pod'; did you mean pods?
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from combinators.data import is_map, is_seq
from combinators.errors import TransformError
from combinators.limits import short_repr
from combinators.near import did_you_mean, near_misses
from combinators.paths import All, Index, Key, Part, Path, path
from transforms.kube.components import Component, ContainerPlace, Inherited, Steps
from transforms.kube.containers import FIRST, MainContainer
from transforms.kube.kept_apart import PodFieldsAt

__all__ = (
    "TEMPLATE",
    "POD",
    "SPEC",
    "DOCUMENT",
    "BY_KEY",
    "Location",
    "FilledIn",
    "Component",
    "ContainerPlace",
    "WorkloadKind",
    "KindRecordError",
    "kind_from_record",
    "reach",
)


#: What a location holds, as the schema names it: a ``PodTemplateSpec`` (metadata and
#: spec), a whole ``Pod``, a bare ``PodSpec``, or a whole object of any kind (a
#: workload wrapped in an AppWrapper, an item of a List).
TEMPLATE, POD, SPEC, DOCUMENT = "PodTemplateSpec", "Pod", "PodSpec", "document"

#: ``role_field`` of a location whose ``[*]`` runs over a map: the key is the role.
BY_KEY = "<key>"

_HOLDS = {"template": TEMPLATE, "pod": POD, "spec": SPEC, "document": DOCUMENT}


@dataclass(frozen=True)
class Location:
    """Where a kind keeps pods: a path with at most one ``[*]``, what it holds, and how to
    read the role.

    ``[*]`` runs over a list or over a map's values. The role is ``role``
    (fixed), or the ``[*]`` element's field ``role_field`` (a list of
    tasks: ``name``), or its key (``role_field=BY_KEY``: a map of replica
    types). ``holds`` is :data:`TEMPLATE`, :data:`POD`, :data:`SPEC` or
    :data:`DOCUMENT`. ``main`` is the pod's main container where the kind
    says which it is (a PyTorchJob's is named ``pytorch``), else ``None``.
    ``component``, where set, says how the kind keeps the pod spec among fields
    of its own (a KServe predictor's, a Knative revision's:
    :class:`~transforms.kube.components.Component`), else ``None``.
    ``only_with``, where set, are fields of which a value the path reaches must
    have one to hold a pod (an Argo template with a ``container`` or a
    ``script``, not a ``steps`` one): the others are no pods. ``filled_in`` are
    the paths of the pod its controller fills in (:class:`FilledIn`).
    """

    path: Path
    holds: str = TEMPLATE
    role: str | None = None
    role_field: str | None = None
    main: MainContainer | None = None
    component: Component | None = None
    only_with: tuple[str, ...] = ()
    filled_in: tuple[FilledIn, ...] = ()


@dataclass(frozen=True)
class FilledIn:
    """A path of a kind's pod that its controller fills in, or reads and takes away, as it
    makes the pod (the image KServe gives a model server's container; the port Knative
    gives a probe; Argo's ``mirrorVolumeMounts``), and why: validation refuses neither a
    value missing there nor the field there being none of a pod's; a value there is
    checked as ever.

    ``path`` is relative to the pod spec as the controller makes it (``containers[0].image``,
    ``containers[name=main].image``, ``containers[*].readinessProbe.httpGet.port``).
    """

    path: Path
    why: str


_METADATA = path("metadata")


@dataclass(frozen=True)
class WorkloadKind:
    """One kind's record: its kind and API group, where its pods are, and its metadata.

    ``group`` is set where two projects use one kind name (``Job``:
    ``batch`` and Volcano's ``batch.volcano.sh``); a record without a group
    serves every group that has no record of its own. ``version``, where set,
    narrows the record to that version of its group. ``added_volumes`` are the
    volumes the kind's controller adds to its pods: paths (``[*]`` allowed) in
    the workload to the names of its volume claim templates (a StatefulSet's
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
    version: str | None = None

    #: Whether the kind only holds whole documents and keeps no metadata (a ``List``):
    #: each of its items is a workload of its own, and it is none. Set from the others.
    is_list: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        only_documents = all(location.holds == DOCUMENT for location in self.locations)
        object.__setattr__(self, "is_list", self.metadata is None and only_documents)


class KindRecordError(TransformError, ValueError):
    """A kind record is malformed: ``field`` names the field, ``record`` the record."""

    def __init__(self, message: str, *, record: str, field: str | None = None) -> None:
        super().__init__(message)
        self.record = record
        self.field = field


_RECORD_FIELDS = ("apiVersion", "kind", "pods", "addedVolumes", "metadata")
_COMPONENT_FIELDS = (
    "ownFields",
    "podFields",
    "container",
    "metadataFields",
    "containerName",
    "containersAt",
    "metadataAt",
    "inherited",
    "unplacedNote",
    "steps",
    "containerOwnFields",
    "containerKeys",
    "podFieldsAt",
)
_POD_FIELDS = (
    "path",
    "holds",
    "role",
    "roleField",
    "roleKey",
    "mainContainer",
    *_COMPONENT_FIELDS,
    "onlyWith",
    "filledIn",
)
_CONTAINER_FIELDS = ("at", "name", "ownFields")
_INHERITED_FIELDS = ("field", "from", "passedOnBy")
_STEPS_FIELDS = ("at", "fields", "template", "ref")
_REF_FIELDS = ("at", "without")
_OUTSIDE_FIELDS = ("path", "fields", "match", "at", "defaults", "stepsEnv", "resourcesBy")
_FILLED_FIELDS = ("path", "why")


def _refuse(record: str, field: str | None, message: str) -> KindRecordError:
    where = f"kind record {record}" + (f", {field}" if field else "")
    return KindRecordError(f"{where}: {message}", record=record, field=field)


def _check_fields(given: Mapping[str, Any], known: tuple[str, ...], record: str, at: str) -> None:
    for name in given:
        if name not in known:
            close = near_misses(str(name), known, n=1)
            hint = did_you_mean(close) if close else f"; fields are: {', '.join(known)}"
            raise _refuse(record, at or None, f"unknown field {short_repr(name)}{hint}")


def _text(value: Any, record: str, field: str) -> str:
    if not isinstance(value, str) or not value:
        raise _refuse(record, field, f"must be a non-empty string, got {short_repr(value)}")
    return value


def _path(value: Any, record: str, field: str) -> Path:
    try:
        return path(_text(value, record, field))
    except TransformError as err:
        raise _refuse(record, field, str(err)) from err


def _api_version(value: Any, record: str) -> tuple[str | None, str | None]:
    """``(group, version)`` of a record's ``apiVersion``: ``*`` or none is any group;
    ``group/*`` any version of it; ``v1`` the core group's (``""``)."""
    if value is None or value == "*":
        return None, None
    text = _text(value, record, "apiVersion")
    group, _, version = text.rpartition("/")
    if not version:
        raise _refuse(record, "apiVersion", f"{short_repr(text)} names no version (use group/*)")
    return group, None if version == "*" else version


def _main(value: Any, record: str, field: str) -> MainContainer | None:
    if value is None:
        return None
    if value == 0 and type(value) is int:
        return FIRST
    return MainContainer.named(_text(value, record, field))


def _names(value: Any, record: str, field: str) -> tuple[str, ...]:
    if not is_seq(value) or not value:
        raise _refuse(
            record, field, f"must be a non-empty list of field names, got {short_repr(value)}"
        )
    return tuple(_text(name, record, f"{field}[{index}]") for index, name in enumerate(value))


def _container_place(value: Any, record: str, at: str) -> ContainerPlace:
    if not is_map(value):
        raise _refuse(record, at, f"must be a map (at, name, ownFields), got {short_repr(value)}")
    _check_fields(value, _CONTAINER_FIELDS, record, at)
    keys = value.get("at")
    return ContainerPlace(
        (_text(keys, record, f"{at}.at"),)
        if isinstance(keys, str)
        else _names(keys, record, f"{at}.at"),
        None if value.get("name") is None else _text(value["name"], record, f"{at}.name"),
        ()
        if value.get("ownFields") is None
        else _names(value["ownFields"], record, f"{at}.ownFields"),
    )


def _inherited(value: Any, record: str, at: str) -> tuple[Inherited, ...]:
    if not is_seq(value) or not value:
        raise _refuse(
            record,
            at,
            f"must be a non-empty list of {{field, from, passedOnBy}}, got {short_repr(value)}",
        )
    out = []
    for index, each in enumerate(value):
        here = f"{at}[{index}]"
        if not is_map(each):
            raise _refuse(
                record, here, f"must be a map (field, from, passedOnBy), got {short_repr(each)}"
            )
        _check_fields(each, _INHERITED_FIELDS, record, here)
        source = each.get("from")
        passed = each.get("passedOnBy")
        located = None if source is None else _path(source, record, f"{here}.from")
        if located is not None and any(type(part) is not Key for part in located.parts):
            raise _refuse(record, f"{here}.from", "a path of keys only (one value)")
        if located is None and passed is None:
            raise _refuse(record, here, "names neither from nor passedOnBy: nothing to inherit")
        out.append(
            Inherited(
                _text(each.get("field"), record, f"{here}.field"),
                located,
                () if passed is None else _names(passed, record, f"{here}.passedOnBy"),
            )
        )
    return tuple(out)


def _steps(value: Any, record: str, at: str) -> Steps:
    if not is_map(value):
        raise _refuse(
            record, at, f"must be a map (at, fields, template, ref), got {short_repr(value)}"
        )
    _check_fields(value, _STEPS_FIELDS, record, at)
    fields, template, ref = value.get("fields"), value.get("template"), value.get("ref")
    if ref is not None:
        if not is_map(ref):
            raise _refuse(
                record, f"{at}.ref", f"must be a map (at, without), got {short_repr(ref)}"
            )
        _check_fields(ref, _REF_FIELDS, record, f"{at}.ref")
    return Steps(
        _text(value.get("at"), record, f"{at}.at"),
        None if fields is None else _names(fields, record, f"{at}.fields"),
        None if template is None else _text(template, record, f"{at}.template"),
        None if ref is None else _text(ref.get("at"), record, f"{at}.ref.at"),
        ()
        if ref is None or ref.get("without") is None
        else _names(ref["without"], record, f"{at}.ref.without"),
    )


def _container_keys(value: Any, record: str, at: str) -> tuple[tuple[str, str], ...]:
    if not is_map(value) or not value:
        raise _refuse(
            record,
            at,
            f"must be a non-empty map of a container field to the kind's key for it, "
            f"got {short_repr(value)}",
        )
    return tuple(
        (_text(field, record, at), _text(key, record, f"{at}.{field}"))
        for field, key in value.items()
    )


def _keys_path(value: Any, record: str, field: str) -> Path:
    located = _path(value, record, field)
    if any(type(part) is not Key for part in located.parts):
        raise _refuse(record, field, "a path of keys only (one value)")
    return located


def _outside(value: Any, record: str, at: str) -> PodFieldsAt:
    if not is_map(value):
        raise _refuse(
            record,
            at,
            f"must be a map (path, fields, match, at, defaults, stepsEnv, resourcesBy), "
            f"got {short_repr(value)}",
        )
    _check_fields(value, _OUTSIDE_FIELDS, record, at)
    match, key = value.get("match"), value.get("at")
    if (match is None) != (key is None):
        raise _refuse(record, at, "match and at go together: the list's element, and its key")
    defaults = value.get("defaults")
    return PodFieldsAt(
        _keys_path(value.get("path"), record, f"{at}.path"),
        _names(value.get("fields"), record, f"{at}.fields"),
        None if match is None else _text(match, record, f"{at}.match"),
        None if key is None else _text(key, record, f"{at}.at"),
        None if defaults is None else _keys_path(defaults, record, f"{at}.defaults"),
        None
        if value.get("stepsEnv") is None
        else _text(value["stepsEnv"], record, f"{at}.stepsEnv"),
        ()
        if value.get("resourcesBy") is None
        else _container_keys(value["resourcesBy"], record, f"{at}.resourcesBy"),
    )


def _filled_in(value: Any, record: str, at: str) -> tuple[FilledIn, ...]:
    if not is_seq(value) or not value:
        raise _refuse(
            record, at, f"must be a non-empty list of {{path, why}}, got {short_repr(value)}"
        )
    out = []
    for index, each in enumerate(value):
        here = f"{at}[{index}]"
        if not is_map(each):
            raise _refuse(record, here, f"must be a map (path, why), got {short_repr(each)}")
        _check_fields(each, _FILLED_FIELDS, record, here)
        filled = _path(each.get("path"), record, f"{here}.path")
        out.append(FilledIn(filled, _text(each.get("why"), record, f"{here}.why")))
    return tuple(out)


def _component(value: Mapping[str, Any], holds: str, record: str, at: str) -> Component | None:
    given = [name for name in _COMPONENT_FIELDS if value.get(name) is not None]
    if not given:
        return None
    if holds not in (SPEC, TEMPLATE):
        raise _refuse(
            record,
            f"{at}.{given[0]}",
            "only a place that holds a spec or a template has fields of its own",
        )
    for metadata in ("metadataFields", "metadataAt"):
        if holds == TEMPLATE and value.get(metadata) is not None:
            raise _refuse(
                record,
                f"{at}.{metadata}",
                "a template has metadata of its own: for a spec (holds: spec) only",
            )

    def names(field: str) -> tuple[str, ...]:
        return () if value.get(field) is None else _names(value[field], record, f"{at}.{field}")

    def text(field: str) -> str | None:
        given = value.get(field)
        return None if given is None else _text(given, record, f"{at}.{field}")

    place = value.get("container")
    inherited = value.get("inherited")
    steps = value.get("steps")
    if steps is not None and place is not None:
        raise _refuse(
            record, f"{at}.steps", "a place keeps its main container apart or its steps, not both"
        )
    keys = value.get("containerKeys")
    outside = (
        None
        if value.get("podFieldsAt") is None
        else _outside(value["podFieldsAt"], record, f"{at}.podFieldsAt")
    )
    return Component(
        names("ownFields"),
        None if value.get("podFields") is None else names("podFields"),
        None if place is None else _container_place(place, record, f"{at}.container"),
        names("metadataFields"),
        text("containerName"),
        text("containersAt") or "containers",
        text("metadataAt"),
        () if inherited is None else _inherited(inherited, record, f"{at}.inherited"),
        text("unplacedNote"),
        None if steps is None else _steps(steps, record, f"{at}.steps"),
        names("containerOwnFields"),
        () if keys is None else _container_keys(keys, record, f"{at}.containerKeys"),
        outside,
    )


def _location(value: Any, record: str, at: str) -> Location:
    if not is_map(value):
        raise _refuse(record, at, f"must be a map (path, holds, role...), got {short_repr(value)}")
    _check_fields(value, _POD_FIELDS, record, at)
    holds = value.get("holds", "template")
    if holds not in _HOLDS:
        close = near_misses(str(holds), tuple(_HOLDS), n=1)
        raise _refuse(
            record,
            f"{at}.holds",
            f"{short_repr(holds)}; expected one of: {', '.join(_HOLDS)}{did_you_mean(close)}",
        )
    where = value.get("path", "")
    located = Path() if where == "" else _path(where, record, f"{at}.path")
    if sum(type(part) is All for part in located.parts) > 1:
        raise _refuse(record, f"{at}.path", "at most one [*] in a path (one list or map of pods)")
    if any(type(part) not in (Key, All) for part in located.parts):
        raise _refuse(record, f"{at}.path", "a path of keys and [*] only (no index or match)")
    roles = [name for name in ("role", "roleField", "roleKey") if value.get(name) is not None]
    if len(roles) > 1:
        raise _refuse(
            record, at, f"at most one of role, roleField and roleKey, got {', '.join(roles)}"
        )
    role = value.get("role")
    role_field = value.get("roleField")
    if value.get("roleKey") is not None:
        if value["roleKey"] is not True:
            raise _refuse(
                record,
                f"{at}.roleKey",
                f"must be true or absent, got {short_repr(value['roleKey'])}",
            )
        role_field = BY_KEY
    only_with = value.get("onlyWith")
    filled = value.get("filledIn")
    return Location(
        located,
        _HOLDS[holds],
        None if role is None else _text(role, record, f"{at}.role"),
        None if role_field is None else _text(role_field, record, f"{at}.roleField"),
        _main(value.get("mainContainer"), record, f"{at}.mainContainer"),
        _component(value, _HOLDS[holds], record, at),
        () if only_with is None else _names(only_with, record, f"{at}.onlyWith"),
        () if filled is None else _filled_in(filled, record, f"{at}.filledIn"),
    )


def kind_from_record(record: Mapping[str, Any]) -> WorkloadKind:
    """The :class:`WorkloadKind` a record declares, checked.

    Fields: ``kind``; ``apiVersion`` (``group/version``, ``group/*`` for any
    version, ``v1`` for the core group's, ``*`` or absent for any group);
    ``pods``, a list of ``{path, holds, role | roleField | roleKey,
    mainContainer}`` (``holds``: ``template`` (the default), ``pod``,
    ``spec`` or ``document``; ``mainContainer``: a name, or ``0`` for the
    first container), and where the place keeps the pod spec among fields of
    the kind's own (:class:`~transforms.kube.components.Component`):
    ``ownFields`` (the kind's fields there), ``podFields`` (the only pod spec
    fields it has room for), ``container`` (``{at, name, ownFields}``: the keys
    where the main container is kept apart, the name the controller gives it,
    its fields that are the kind's), ``metadataFields`` (beside a bare spec:
    ``labels``, ``annotations`` of the pod) and ``containerName`` (the name the
    controller gives an unnamed container), ``containersAt`` (the key of the
    pod's other containers, ``containers`` by default), ``metadataAt`` (beside a
    bare spec: the key of a map holding the pod's ``labels`` and
    ``annotations``, or the ``metadataFields`` named), ``inherited`` (a list of
    ``{field, from, passedOnBy}``: a pod field the pod takes, where the place has
    none, from the document's path ``from``, or from a sibling of the place with
    one of the fields ``passedOnBy``: :class:`~transforms.kube.components.Inherited`)
    and ``unplacedNote`` (said where a pod field with no place is refused);
    ``steps`` (``{at, fields, template, ref}``: containers run one after another, a
    Tekton task's, the key of the fields merged into each, its ``stepTemplate``, and
    ``{at, without}``, the key of a step's reference to its container elsewhere and the
    fields a step with one has no room for),
    ``containerOwnFields`` and ``containerKeys`` (each container's fields that are the
    kind's own, and the kind's keys for container fields: ``{resources:
    computeResources}``), ``podFieldsAt`` (``{path, fields, match, at, defaults, stepsEnv, resourcesBy}``: where
    the document keeps pod fields of the place's pod apart from it, a TaskRun's
    ``spec.podTemplate``: :class:`~transforms.kube.kept_apart.PodFieldsAt`);
    ``onlyWith``, fields one of which a place must have to hold a pod (an Argo
    template's ``container``, ``script``); ``filledIn``, a list of ``{path, why}``:
    paths of the pod spec its controller fills in (:class:`FilledIn`); ``addedVolumes``, paths to the names of the volumes its
    controller adds; ``metadata``, the path of its workload metadata
    (``metadata`` by default, ``null`` for none).

    >>> kind_from_record({"kind": "PyTorchJob", "pods": [{"path": "spec.pytorchReplicaSpecs[*].template",
    ...     "roleKey": True, "mainContainer": "pytorch"}]}).locations[0].main
    MainContainer.named('pytorch')
    """
    if not is_map(record):
        raise _refuse(
            "?", None, f"must be a map (kind, apiVersion, pods...), got {short_repr(record)}"
        )
    name = record.get("kind")
    label = name if isinstance(name, str) and name else "?"
    _check_fields(record, _RECORD_FIELDS, label, "")
    kind = _text(name, label, "kind")
    group, version = _api_version(record.get("apiVersion"), kind)
    pods = record.get("pods")
    if not is_seq(pods) or not pods:
        raise _refuse(kind, "pods", f"must be a non-empty list of places, got {short_repr(pods)}")
    locations = tuple(_location(pod, kind, f"pods[{index}]") for index, pod in enumerate(pods))
    added = record.get("addedVolumes", ())
    if not is_seq(added):
        raise _refuse(kind, "addedVolumes", f"must be a list of paths, got {short_repr(added)}")
    volumes = tuple(
        _path(where, kind, f"addedVolumes[{index}]") for index, where in enumerate(added)
    )
    metadata = record.get("metadata", "metadata")
    return WorkloadKind(
        kind,
        locations,
        group,
        volumes,
        None if metadata is None else _path(metadata, kind, "metadata"),
        version,
    )


def reach(
    node: Any, parts: tuple[Part, ...], location: Location
) -> Iterable[tuple[tuple[Part, ...], Any, str | None]]:
    """(concrete parts, value, role) for every value ``parts`` reaches from ``node`` that
    holds a pod (has one of :attr:`Location.only_with`, where set)."""
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
    if location.only_with and not (is_map(node) and any(key in node for key in location.only_with)):
        return
    yield parts, node, location.role
