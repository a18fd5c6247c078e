"""Where each workload kind keeps its pods, and pod overlays applied there.

A Deployment's pods are in ``spec.template``, a PyTorchJob's in
``spec.pytorchReplicaSpecs.<type>.template``, an AppWrapper holds whole
workloads that hold templates. :data:`KINDS` says so, one entry per kind
(the table is :mod:`transforms.kube.table`);
:func:`pod_templates` lists the templates of a document, and
:func:`apply_to_workload` applies a pod-level overlay to each selected one,
and its workload-level steps (:mod:`transforms.kube.scopes`) once to the
workload's own metadata, copying only the paths it changes (an unchanged
document comes back as the very same object). Documents with no pod (a
Service, a ConfigMap, a kind the table does not know) pass through
untouched; :func:`unreached_pods` (:mod:`transforms.kube.unreached`) says
which hold pods that no overlay reaches.

>>> import combinators
>>> job = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "mnist"},
...        "spec": {"pytorchReplicaSpecs": {
...            "Master": {"template": {"spec": {"containers": [{"name": "pytorch"}]}}},
...            "Worker": {"template": {"spec": {"containers": [{"name": "pytorch"}]}}}}}}
>>> [(str(t.path), t.role) for t in pod_templates(job)]
[('spec.pytorchReplicaSpecs.Master.template', 'Master'), ('spec.pytorchReplicaSpecs.Worker.template', 'Worker')]
>>> gpu = combinators.upsert("spec.nodeSelector", {"gpu": "a100"})
>>> new = apply_to_workload(gpu, job, select=Selector.parse("role=Worker"))
>>> new["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["nodeSelector"]
{'gpu': 'a100'}
>>> new["spec"]["pytorchReplicaSpecs"]["Master"] is job["spec"]["pytorchReplicaSpecs"]["Master"]
True
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyrsistent import pmap

from combinators.control import for_each
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
from combinators.errors import ArgumentError, ArgumentTypeError, TransformError, TypeClashError
from combinators.limits import MAX_NAME, short_names, short_repr
from combinators.paths import Index, Key, Part, Path
from combinators.reading import select
from combinators.transform import (
    Transform,
    TransformLike,
    apply_step,
    chain,
    describe_step,
    identity,
)
from transforms.kube.kinds import ClientDictError
from transforms.kube.scopes import (
    NoWorkloadMetadataError,
    WorkloadCheck,
    WorkloadMetadataError,
    is_document_level,
    split_at_documents,
    split_levels,
    workload_checks,
)
from transforms.kube.table import (
    BY_KEY,
    DOCUMENT,
    KIND_NAMES,
    KINDS,
    POD,
    TEMPLATE,
    Location,
    WorkloadKind,
    document_name,
    reach,
    workload_kind,
)
from transforms.kube.unreached import Unreached, unreached_pods

__all__ = (
    "SelectionError",
    "check_selection",
    "POD",
    "TEMPLATE",
    "DOCUMENT",
    "BY_KEY",
    "Location",
    "WorkloadKind",
    "WorkloadMetadata",
    "workloads_of",
    "KINDS",
    "workload_kind",
    "PodTemplate",
    "pod_templates",
    "Selector",
    "apply_to_workload",
    "on_workloads",
    "apply_to_documents",
    "with_added_volumes",
    "Unreached",
    "unreached_pods",
)

# ---------------------------------------------------------------------------
# finding templates


@dataclass(frozen=True)
class WorkloadMetadata:
    """The metadata of the workload around some pod templates: where its workload-level
    steps act (:mod:`transforms.kube.scopes`).

    ``path`` is where it is in the document (``metadata``,
    ``spec.jobTemplate.metadata``, ``items[2].metadata``), ``None`` where the
    kind keeps none (:attr:`WorkloadKind.metadata`); ``kind`` and ``name``
    name the workload, and ``api_version`` is its ``apiVersion`` (``None``
    where it has none): what a workload-level step's checks are asked about
    (:func:`~transforms.kube.scopes.workload_checks`).
    """

    path: Path | None
    kind: str
    name: str | None
    api_version: str | None = None

    def describe(self) -> str:
        """Where it is, for messages.

        >>> from combinators import path
        >>> WorkloadMetadata(path("spec.jobTemplate.metadata"), "CronJob", "nightly").describe()
        'CronJob/nightly metadata (spec.jobTemplate.metadata)'
        """
        where = f" ({self.path})" if self.path is not None else ""
        return f"{self.kind}/{self.name or '(unnamed)'} metadata{where}"


@dataclass(frozen=True)
class PodTemplate:
    """One pod template of a document: where it is, whose it is, and its role there.

    ``kind`` and ``name`` are the workload that holds it (the innermost one
    where an AppWrapper wraps workloads); ``workloads`` lists every workload
    around it, outermost first, as ``(kind, name)``. ``root`` is ``"Pod"`` or
    ``"PodTemplateSpec"`` (``"PodSpec"`` only for a client ``V1PodSpec``).
    ``added_volumes`` names the volumes the workload's controller adds to
    the pod (:attr:`WorkloadKind.added_volumes`; see :func:`with_added_volumes`).
    ``workload_metadata`` is the metadata of the outermost workload around it,
    where workload-level steps act, or ``None`` where the pod is the workload
    (a Pod, a PodTemplate): there they act on the template, with the others.
    """

    path: Path
    kind: str
    name: str | None
    role: str | None
    root: str
    labels: Mapping[str, str] = field(default_factory=pmap)
    workloads: tuple[tuple[str, str | None], ...] = ()
    added_volumes: tuple[str, ...] = ()
    workload_metadata: WorkloadMetadata | None = None

    def describe(self) -> str:
        """Where the template is, for messages: workloads, role and path.

        >>> from combinators import path
        >>> PodTemplate(path("spec.tasks[1].template"), "Job", "mnist", "worker",
        ...             "PodTemplateSpec", workloads=(("Job", "mnist"),)).describe()
        'Job/mnist template worker (spec.tasks[1].template)'
        """
        # kinds, names and roles are the document's own: written at most MAX_NAME long
        owners = " > ".join(
            f"{_name(kind)}/{_name(name) if name else '(unnamed)'}"
            for kind, name in self.workloads or ((self.kind, self.name),)
        )
        role = f" {_name(self.role)}" if self.role is not None else ""
        where = short_repr(self.path, quoted=False) if self.path.parts else "the document itself"
        return f"{owners} template{role} ({where})"


def _name(text: Any) -> str:
    """A kind, a name or a role of a document, for a message: at most MAX_NAME long."""
    return short_repr(text, MAX_NAME, quoted=False)


def _labels(template: Any) -> Mapping[str, str]:
    metadata: Any = template.get("metadata") if is_map(template) else None
    labels: Any = metadata.get("labels") if is_map(metadata) else None
    if not is_map(labels):
        return pmap()
    return pmap({str(key): value for key, value in labels.items() if isinstance(value, str)})


def _added_volumes(document: Any, entry: WorkloadKind) -> tuple[str, ...]:
    if not entry.added_volumes:
        return ()
    names = [name for where in entry.added_volumes for name in select(document, where)]
    return tuple(dict.fromkeys(name for name in names if isinstance(name, str)))


def _workload_metadata(
    entry: WorkloadKind, document: Any, name: str | None, prefix: tuple[Part, ...]
) -> WorkloadMetadata:
    where = entry.metadata
    if where is not None and prefix:
        where = Path((*prefix, *where.parts))
    api_version = document.get("apiVersion")
    return WorkloadMetadata(
        where, entry.kind, name, api_version if isinstance(api_version, str) else None
    )


def _collect(
    document: Any,
    entry: WorkloadKind,
    prefix: tuple[Part, ...],
    owners: tuple[tuple[str, str | None], ...],
    out: list[PodTemplate],
    outer: WorkloadMetadata | None = None,
) -> None:
    name = document_name(document)
    here = owners if entry.kind == "List" else (*owners, (entry.kind, name))
    added = _added_volumes(document, entry)
    # the outermost workload's (an AppWrapper's, not that of what it wraps); a kind that only
    # holds documents and keeps no metadata (a List) leaves each of them its own
    metadata = outer
    if metadata is None and not (
        entry.metadata is None and all(location.holds == DOCUMENT for location in entry.locations)
    ):
        metadata = _workload_metadata(entry, document, name, prefix)
    for location in entry.locations:
        for parts, value, role in reach(document, location.path.parts, location):
            if not is_map(value):
                continue
            if location.holds == DOCUMENT:
                inner = workload_kind(value.get("kind"), value.get("apiVersion"))
                if inner is not None:
                    _collect(value, inner, (*prefix, *parts), here, out, metadata)
                continue
            where = Path((*prefix, *parts))
            own = metadata
            if (
                own is not None
                and own.path is not None
                and len(own.path.parts) > len(where.parts)
                and own.path.parts[: len(where.parts)] == where.parts
            ):
                own = None  # the metadata is the template's: the pod is the workload
            out.append(
                PodTemplate(
                    where, entry.kind, name, role, location.holds, _labels(value), here, added, own
                )
            )


def pod_templates(document: Any) -> tuple[PodTemplate, ...]:
    """Every pod template of one document (API form), in document order.

    A Pod is its own template (path ``''``); workloads nested in an
    AppWrapper or a List are searched too. A document with no pod gives ``()``.

    >>> deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
    ...     "spec": {"template": {"metadata": {"labels": {"app": "web"}}, "spec": {}}}}
    >>> [template] = pod_templates(deployment)
    >>> str(template.path), template.kind, template.name, template.role, dict(template.labels)
    ('spec.template', 'Deployment', 'web', None, {'app': 'web'})
    >>> pod_templates({"apiVersion": "v1", "kind": "Service"})
    ()
    """
    if not is_map(document):
        return ()
    entry = workload_kind(document.get("kind"), document.get("apiVersion"))
    if entry is None:
        return ()
    out: list[PodTemplate] = []
    _collect(document, entry, (), (), out)
    return tuple(out)


def with_added_volumes(pod: Any, template: PodTemplate) -> Any:
    """``pod`` (the template's value) as its workload's controller makes it: a
    volume for each of ``template.added_volumes`` that the pod does not have,
    so that a mount naming a volume claim template is not flagged. Without
    any, ``pod`` itself comes back; it is never changed.

    >>> statefulset = {"kind": "StatefulSet", "spec": {
    ...     "volumeClaimTemplates": [{"metadata": {"name": "www"}}],
    ...     "template": {"spec": {"containers": [{"name": "nginx"}]}}}}
    >>> [template] = pod_templates(statefulset)
    >>> template.added_volumes
    ('www',)
    >>> with_added_volumes(statefulset["spec"]["template"], template)["spec"]["volumes"]
    [{'name': 'www', 'persistentVolumeClaim': {'claimName': 'www'}}]
    """
    if not template.added_volumes or not is_map(pod):
        return pod
    spec = pod.get("spec")
    if spec is not None and not is_map(spec):
        return pod
    volumes = spec.get("volumes") if spec is not None else None
    if volumes is not None and not is_seq(volumes):
        return pod
    present = {volume.get("name") for volume in volumes or () if is_map(volume)}
    added = [
        {"name": name, "persistentVolumeClaim": {"claimName": name}}
        for name in template.added_volumes
        if name not in present
    ]
    if not added:
        return pod
    return {**pod, "spec": {**(spec or {}), "volumes": [*(volumes or ()), *added]}}


# ---------------------------------------------------------------------------
# selecting templates


def _strings(value: Any, argument: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    items = tuple(value)
    for item in items:
        if not isinstance(item, str):
            raise ArgumentTypeError(
                f"{argument} must be strings, got {short_repr(item)}",
                argument=argument,
                factory="Selector",
                value=value,
            )
    return items


def _canonical_kind(kind: str) -> str:
    known = KIND_NAMES.get(kind.lower())
    if known is not None:
        return known
    import difflib

    close = difflib.get_close_matches(kind, sorted(KIND_NAMES.values()), n=3, cutoff=0.6)
    hint = f"; did you mean: {', '.join(close)}?" if close else ""
    raise ArgumentError(
        f"unknown workload kind {short_repr(kind)}{hint}; kinds with pods are: "
        f"{', '.join(sorted(KIND_NAMES.values()))}",
        argument="kinds",
        factory="Selector",
        value=kind,
    )


_SELECTOR_PART = re.compile(r"\s*(kind|name|role|label:([^=,\s]+))\s*=\s*([^,]*?)\s*$")


@dataclass(frozen=True)
class Selector:
    """Which templates an overlay applies to: by kind, name, role and labels.

    Each field holds alternatives (any may match); the fields must all
    match. ``kinds`` and ``names`` match the template's workload or any
    workload around it (``kind=AppWrapper`` selects everything it wraps);
    kinds are checked against the table, case aside. ``labels`` are
    ``(key, value)`` pairs, all required. An empty selector selects everything.

    >>> Selector(kinds="pytorchjob", roles=("Worker",))
    Selector(kinds=('PyTorchJob',), roles=('Worker',))
    """

    kinds: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()
    labels: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        kinds = tuple(_canonical_kind(kind) for kind in _strings(self.kinds, "kinds"))
        object.__setattr__(self, "kinds", kinds)
        object.__setattr__(self, "names", _strings(self.names, "names"))
        object.__setattr__(self, "roles", _strings(self.roles, "roles"))
        pairs = self.labels.items() if isinstance(self.labels, Mapping) else self.labels
        labels = tuple((key, value) for key, value in pairs)
        for key, value in labels:
            if not isinstance(key, str) or not isinstance(value, str):
                raise ArgumentTypeError(
                    f"labels must be string pairs, got {short_repr((key, value))}",
                    argument="labels",
                    factory="Selector",
                    value=labels,
                )
        object.__setattr__(self, "labels", labels)

    @classmethod
    def parse(cls, text: str) -> Selector:
        """A selector from text: ``kind=PyTorchJob,role=Worker,label:team=ml``.

        Parts are separated by commas; a field given twice means either value.

        >>> Selector.parse("kind=PyTorchJob,role=Worker,role=Master,label:team=ml")
        Selector(kinds=('PyTorchJob',), roles=('Worker', 'Master'), labels=(('team', 'ml'),))
        >>> Selector.parse("rol=Worker")
        Traceback (most recent call last):
          ...
        combinators.errors.ArgumentError: Selector.parse(): text: 'rol=Worker' is not kind=..., name=..., role=... or label:KEY=VALUE
        """
        if not isinstance(text, str):
            raise ArgumentTypeError(
                f"text must be a string, got {type(text).__name__}",
                argument="text",
                factory="Selector.parse",
                value=text,
            )
        fields: dict[str, list[Any]] = {"kind": [], "name": [], "role": [], "label": []}
        for part in text.split(",") if text.strip() else ():
            found = _SELECTOR_PART.match(part)
            if found is None or not found.group(3):
                raise ArgumentError(
                    f"{short_repr(part.strip())} is not kind=..., name=..., "
                    f"role=... or "
                    f"label:KEY=VALUE",
                    argument="text",
                    factory="Selector.parse",
                    value=text,
                )
            if found.group(2) is not None:
                fields["label"].append((found.group(2), found.group(3)))
            else:
                fields[found.group(1)].append(found.group(3))
        try:
            return cls(
                tuple(fields["kind"]),
                tuple(fields["name"]),
                tuple(fields["role"]),
                tuple(fields["label"]),
            )
        except ArgumentError as err:
            err.factory = "Selector.parse"
            raise

    def matches(self, template: PodTemplate) -> bool:
        """Whether ``template`` is selected.

        >>> from combinators import path
        >>> template = PodTemplate(path("spec.template"), "Deployment", "web", None,
        ...                        "PodTemplateSpec", pmap({"team": "ml"}), (("Deployment", "web"),))
        >>> Selector.parse("kind=Deployment,label:team=ml").matches(template)
        True
        >>> Selector.parse("role=Worker").matches(template)
        False
        """
        if self.kinds or self.names:
            owners = template.workloads or ((template.kind, template.name),)
            if not any(
                (not self.kinds or kind in self.kinds) and (not self.names or name in self.names)
                for kind, name in owners
            ):
                return False
        if self.roles and template.role not in self.roles:
            return False
        labels = template.labels
        return all(labels.get(key) == value for key, value in self.labels)

    def __bool__(self) -> bool:
        return bool(self.kinds or self.names or self.roles or self.labels)

    def __repr__(self) -> str:
        given = [
            f"{name}={short_repr(getattr(self, name))}"
            for name in ("kinds", "names", "roles", "labels")
            if getattr(self, name)
        ]
        return f"Selector({', '.join(given)})"


# ---------------------------------------------------------------------------
# applying overlays


_CLIENT_CLASS = re.compile(r"V\d+(?:(?:alpha|beta)\d+)?([A-Z]\w*)$")


def _client_kind(value: Any) -> str | None:
    """The kind a kubernetes client object is of (``V1Deployment`` -> ``Deployment``), or ``None``."""
    cls = type(value)
    if not hasattr(cls, "attribute_map") or not hasattr(cls, "openapi_types"):
        return None
    found = _CLIENT_CLASS.match(cls.__name__)
    return found.group(1) if found else None


def _check_still_a_template(doc: Any, template: PodTemplate) -> None:
    """Refuse an overlay that left no pod where ``template`` was: a step that
    replaced the whole pod (an empty path, ``merge_patch: null``) with a value
    that is no map.

    >>> from combinators import path
    >>> _check_still_a_template({"spec": {"template": 1}},
    ...                         PodTemplate(path("spec.template"), "Job", "a", None, "PodTemplateSpec"))
    Traceback (most recent call last):
      ...
    combinators.errors.TypeClashError: the overlay left a number (1) at spec.template, where a pod template (a map) was
    """
    value = doc
    for part in template.path.parts:
        value = value[part.name] if type(part) is Key else value[part.index]  # type: ignore[attr-defined]
    if not is_map(value):
        what = "a pod (a map)" if template.root == "Pod" else "a pod template (a map)"
        where = str(template.path) or "the top level"
        raise TypeClashError(
            f"the overlay left {kind_name(value)} at {where}, where {what} was",
            expected="a map",
            found=kind_name(value),
        )


def _get(doc: Any, parts: tuple[Part, ...]) -> Any:
    """The value at ``parts`` (keys and indexes), or ``MISSING``."""
    node = doc
    for part in parts:
        if type(part) is Key and is_map(node) and part.name in node:
            node = node[part.name]
        elif type(part) is Index and is_seq(node) and 0 <= part.index < len(node):
            node = node[part.index]
        else:
            return MISSING
    return node


def _put(doc: Any, parts: tuple[Part, ...], value: Any, owned: Owned) -> Any:
    """``doc`` with ``value`` at ``parts`` (removed there where it is ``MISSING``), copied
    along the path only; a missing map on the way is made, anything else there is refused."""
    part, rest = parts[0], parts[1:]
    if type(part) is Index:
        if not is_seq(doc):
            raise TypeClashError(
                f"{kind_name(doc)} where a list was", expected="a list", found=kind_name(doc)
            )
        if not rest:  # an item of a List, replaced whole
            item = freeze_value(value) if is_persistent(doc) else value
            return rebuild_seq(doc, {part.index: item}, (), owned)
        return rebuild_seq(doc, {part.index: _put(doc[part.index], rest, value, owned)}, (), owned)
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
    return set_key(doc, part.name, _put(child, rest, value, owned), owned)


def workloads_of(
    templates: Iterable[PodTemplate], select: Selector | None = None
) -> tuple[WorkloadMetadata, ...]:
    """The metadata of the workloads around the ``templates`` that ``select`` picks, each
    once, in document order: where workload-level steps act. A Pod, its own workload, has
    none.

    >>> cron = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "nightly"},
    ...         "spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": []}}}}}}
    >>> [metadata.describe() for metadata in workloads_of(pod_templates(cron))]
    ['CronJob/nightly metadata (spec.jobTemplate.metadata)']
    """
    return tuple(
        dict.fromkeys(
            template.workload_metadata
            for template in templates
            if template.workload_metadata is not None
            and (select is None or select.matches(template))
        )
    )


@dataclass(frozen=True)
class _Run:
    """The steps of an overlay between two whole-document steps: ``steps`` as written
    (a Pod, its own workload, gets them so), its workload-level steps (``None`` without),
    what they require of the workload (:func:`~transforms.kube.scopes.workload_checks`)
    and the pod-level rest (:func:`~transforms.kube.scopes.split_levels`)."""

    steps: TransformLike
    workload_steps: TransformLike | None
    pod_steps: TransformLike
    workload_checks: tuple[WorkloadCheck, ...] = ()

    @classmethod
    def of(cls, steps: TransformLike) -> _Run:
        found, rest = split_levels(steps)
        if not found:
            return cls(steps, None, rest)
        workload_steps = chain(*found)
        return cls(steps, workload_steps, rest, workload_checks(workload_steps))


class _Picked:
    """Which templates of one document the selector picks: decided on the document as
    given, so a patch that relabels a template does not change what the steps after it
    reach; a template a patch adds is picked as it is found."""

    __slots__ = ("select", "given", "_chosen")

    def __init__(self, select: Selector | None, given: tuple[PodTemplate, ...]) -> None:
        self.select = select
        self.given = given
        self._chosen: dict[Path, bool] | None = None

    def __call__(self, template: PodTemplate, moved: bool) -> bool:
        """Whether ``template`` is picked; ``moved``: a whole-document step changed the
        document since it was given."""
        if self.select is None:
            return True
        if not moved:
            return self.select.matches(template)
        if self._chosen is None:
            self._chosen = {each.path: self.select.matches(each) for each in self.given}
        chosen = self._chosen.get(template.path)
        return self.select.matches(template) if chosen is None else chosen


class _OnWorkloads(Transform):
    __slots__ = ("transform", "select", "_pieces")
    name = "on_workloads"

    def __init__(self, transform: TransformLike, select: Selector | None) -> None:
        if not callable(transform):
            raise ArgumentTypeError(
                f"transform must be a transform or a callable doc -> doc, "
                f"got {short_repr(transform)}",
                argument="transform",
                factory="on_workloads",
                value=transform,
            )
        if select is not None and not isinstance(select, Selector):
            raise ArgumentTypeError(
                f"select must be a Selector (Selector.parse('role=Worker')), "
                f"got {short_repr(select)}",
                argument="select",
                factory="on_workloads",
                value=select,
            )
        self.transform = transform
        self.select = select if select else None
        # in the order written: each whole-document step alone, the runs of steps between
        self._pieces: tuple[TransformLike | _Run, ...] = tuple(
            piece if is_document_level(piece) else _Run.of(piece)
            for piece in split_at_documents(transform)
        )
        if self.select is None:
            self._init_params(transform)
        else:
            self._init_params(transform, select=self.select)

    def __call__(self, doc: Any) -> Any:
        # a client workload object is converted here, knowing its kind by its class
        if type(doc) is not dict:
            kind = _client_kind(doc)
            if kind is not None:
                return self._apply_client(doc, kind)
        return super().__call__(doc)

    def _apply(
        self, doc: Any, owned: Owned, templates: tuple[PodTemplate, ...] | None = None
    ) -> Any:
        if type(doc) is not dict:
            kind = _client_kind(doc)
            if kind is not None:
                return self._apply_client(doc, kind)
            if not is_map(doc):
                raise TypeClashError(
                    f"on_workloads: a document is a map, got {kind_name(doc)}",
                    expected="a map",
                    found=kind_name(doc),
                )
        if "api_version" in doc:
            raise ClientDictError(
                "on_workloads: given a kubernetes client object's to_dict() output (snake_case "
                "key 'api_version'); pass the client object itself, or its API form "
                "(transforms.kube.to_data(obj))",
                key="api_version",
                overlay="on_workloads",
            )
        found = pod_templates(doc) if templates is None else templates
        pieces = self._pieces
        if len(pieces) == 1 and type(pieces[0]) is _Run:  # no whole-document step
            select = self.select
            return self._apply_run(
                pieces[0],
                doc,
                owned,
                found
                if select is None
                else [template for template in found if select.matches(template)],
            )
        picked = _Picked(self.select, found)
        moved = False
        for piece in pieces:
            if isinstance(piece, _Run):
                doc = self._apply_run(
                    piece, doc, owned, [template for template in found if picked(template, moved)]
                )
                continue
            new = self._apply_to_documents(piece, doc, owned, found, picked, moved)
            if new is not doc:  # it may have added a template, or taken one away
                doc, found, moved = new, pod_templates(new), True
        return doc

    def _apply_run(self, run: _Run, doc: Any, owned: Owned, selected: Sequence[PodTemplate]) -> Any:
        if run.workload_steps is None:
            for template in selected:
                doc = self._apply_at(template, doc, owned, run.steps)
            return doc
        # the pod-level steps on each selected template, then the workload-level ones once
        # on the metadata of each workload that holds one (a Pod is its own: all in order)
        for template in selected:
            if template.workload_metadata is None:
                doc = self._apply_at(template, doc, owned, run.steps)
            elif run.pod_steps is not identity:
                doc = self._apply_at(template, doc, owned, run.pod_steps)
        for metadata in workloads_of(selected):
            doc = self._apply_to_metadata(
                metadata, doc, owned, run.workload_steps, run.workload_checks
            )
        return doc

    def _apply_to_metadata(
        self,
        metadata: WorkloadMetadata,
        doc: Any,
        owned: Owned,
        steps: TransformLike,
        checks: tuple[WorkloadCheck, ...] = (),
    ) -> Any:
        if metadata.path is None:
            raise NoWorkloadMetadataError(
                f"{_name(metadata.kind)}/{_name(metadata.name) if metadata.name else '(unnamed)'}"
                f": a {_name(metadata.kind)} keeps no "
                f"metadata for the workloads it makes, so the workload-level steps "
                f"({describe_step(steps)}) have nowhere to act; leave its templates out "
                f"(--select, Selector) or set them on what it makes",
                kind=metadata.kind,
                name=metadata.name,
            )
        value = _get(doc, metadata.path.parts)
        view = {} if value is MISSING else {"metadata": value}
        try:
            for check in checks:
                check.check_workload(metadata.kind, metadata.api_version)
            result = apply_step(steps, view, Owned())
            if result is view:
                return doc
            if not is_map(result):
                raise WorkloadMetadataError(
                    f"a workload-level step returned {kind_name(result)} where it was given "
                    f"the workload's metadata, as {{metadata: ...}}",
                    keys=(),
                )
            extra = tuple(str(key) for key in result if key != "metadata")
            if extra:
                raise WorkloadMetadataError(
                    f"a workload-level step may change the workload's metadata only (it is "
                    f"given {{metadata: ...}}); it wrote {short_names(extra)} too",
                    keys=extra,
                )
            new = result.get("metadata", MISSING)
            if new is value:
                return doc
            return _put(doc, metadata.path.parts, new, owned)
        except TransformError as err:
            err.with_step(metadata.describe())
            raise

    def _apply_to_documents(
        self,
        step: Any,
        doc: Any,
        owned: Owned,
        found: tuple[PodTemplate, ...],
        picked: _Picked,
        moved: bool,
    ) -> Any:
        """A whole-document step on ``doc`` where it is for it, or on each item of a List it
        is for (kubectl and kustomize read a List as its items), where the selector picks
        one of its templates; any other document as it is."""
        if step.matches_document(doc):
            if self.select is None or any(picked(template, moved) for template in found):
                return self._apply_to_document(step, doc, owned)
            return doc
        entry = workload_kind(doc.get("kind"), doc.get("apiVersion"))
        items = doc.get("items")
        if entry is None or entry.kind != "List" or not is_seq(items):
            return doc
        for index, item in enumerate(items):
            if not is_map(item) or not step.matches_document(item):
                continue
            where = (Key("items"), Index(index))
            if self.select is not None and not any(
                picked(template, moved) for template in found if template.path.parts[:2] == where
            ):
                continue
            new = self._apply_to_document(step, item, owned)
            if new is not item:
                doc = _put(doc, where, new, owned)
        return doc

    def _apply_to_document(self, step: Any, doc: Any, owned: Owned) -> Any:
        try:
            return apply_step(step, doc, owned)
        except TransformError as err:
            err.with_step(f"{doc.get('kind')}/{document_name(doc) or '(unnamed)'}")
            raise

    def _apply_at(
        self, template: PodTemplate, doc: Any, owned: Owned, transform: TransformLike
    ) -> Any:
        try:
            if not template.path.parts:
                new = apply_step(transform, doc, owned)
            else:
                new = apply_step(for_each(template.path, transform), doc, owned)
            if new is not doc:
                _check_still_a_template(new, template)
            return new
        except TransformError as err:
            err.with_step(template.describe())
            raise

    def _apply_client(self, obj: Any, kind: str) -> Any:
        # here, not at the top: the conversions (and the schema) are for client objects only
        from transforms.kube.convert import to_client, to_data

        if kind in ("PodSpec", "PodTemplateSpec"):
            # a pod fragment: its own (only) template
            data = to_data(obj)
            template = PodTemplate(Path(), "Pod", document_name(data), None, kind, _labels(data))
            if self.select is not None and not self.select.matches(template):
                return obj
            pieces = self._pieces
            if len(pieces) == 1 and type(pieces[0]) is _Run:
                return self.transform(obj)
            # no whole document: what is for documents passes it by
            return chain(*(piece.steps for piece in pieces if isinstance(piece, _Run)))(obj)
        data = to_data(obj)
        if "kind" not in data:  # built without kind (as client objects often are): its class's
            data = {"kind": kind, **data}
            new = self._apply(data, Owned())
            if new is data:
                return obj
            new = {key: value for key, value in new.items() if key != "kind"}
        else:
            new = self._apply(data, Owned())
            if new is data:
                return obj
        return to_client(new, type(obj))


def on_workloads(transform: TransformLike, select: Selector | None = None) -> Transform:
    """A pod-level overlay as an overlay of whole documents: applied to every selected template.

    The result is a transform like any other: it composes, compares equal
    to the same call, and prints as it. See :func:`apply_to_workload`.

    >>> import combinators
    >>> on_workloads(combinators.upsert("spec.nodeSelector", {"gpu": "a100"}),
    ...              select=Selector.parse("role=Worker"))
    on_workloads(upsert('spec.nodeSelector', {'gpu': 'a100'}), select=Selector(roles=('Worker',)))
    """
    return _OnWorkloads(transform, select)


def apply_to_workload(
    transform: TransformLike, document: Any, *, select: Selector | None = None
) -> Any:
    """Apply a pod-level ``transform`` to every selected pod template of ``document``.

    A Pod is its own template. A transform of whole workload documents (a
    strategic patch with ``kind: Deployment``, whose ``matches_document(doc)``
    says which documents it is for) applies to the documents it targets (and
    to the items of a ``List`` it targets, as kubectl reads a List), where
    ``select`` selects one of their templates, and leaves the others as they
    are. An overlay may chain such steps with pod-level ones (``chain(patch,
    gpu)``, ``podfold apply -f patch.yaml -f gpu.yaml``): every step applies
    in the order written, each where it acts (see
    :mod:`transforms.kube.scopes`), so a step after a patch sees what the
    patch made (a container, a template it added) and the step written last
    wins a field both set. ``select`` picks templates on ``document`` as
    given; a template a patch adds is picked as the patch leaves it.

    Only the paths that change are copied, the input is never changed, and
    where nothing changes the very same object comes back. A kubernetes client object (``V1Deployment``, ``V1Job``,
    ``V1Pod``) comes back as the same type. A ``TransformError`` from a
    template names the workload, the role and the path.

    >>> import combinators
    >>> cron = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "nightly"},
    ...         "spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": []}}}}}}
    >>> apply_to_workload(combinators.upsert("spec.priorityClassName", "low"),
    ...                   cron)["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    {'containers': [], 'priorityClassName': 'low'}
    >>> apply_to_workload(combinators.remove_at("spec.containers[name=trainr]", missing_ok=False),
    ...                   cron)
    Traceback (most recent call last):
      ...
    combinators.errors.PathError: no element [name=trainr] in spec.containers (part 7 of spec.jobTemplate.spec.template.spec.containers[name=trainr]) [in CronJob/nightly template (spec.jobTemplate.spec.template)]
    """
    return _OnWorkloads(transform, select)(document)


def apply_to_documents(
    transform: TransformLike,
    documents: Iterable[Any],
    *,
    select: Selector | None = None,
    require_match: bool = False,
    templates: Sequence[tuple[PodTemplate, ...]] | None = None,
) -> list[Any]:
    """:func:`apply_to_workload` on each document of a stream; order kept.

    With ``require_match``, a selector that picks no template of the whole
    stream is a :class:`SelectionError` (see :func:`check_selection`), not a
    silent pass-through. ``templates``, where given, are each document's
    :func:`pod_templates`, found once by a caller that needs them too.

    A ``kind: List`` stays one document, its items overlaid in place (each
    item is searched like a document). Errors also name the document's
    place in the stream (from 1).

    >>> import combinators
    >>> docs = [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}},
    ...         {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}, "spec": {}}]
    >>> out = apply_to_documents(combinators.upsert("spec.hostIPC", False), docs)
    >>> out[0] is docs[0], out[1]["spec"]
    (True, {'hostIPC': False})
    """
    documents = list(documents)
    if templates is not None and len(templates) != len(documents):
        raise ArgumentError(
            f"templates: {len(templates)} given for {len(documents)} documents",
            argument="templates",
            factory="apply_to_documents",
            value=len(templates),
        )
    if require_match and select:
        check_selection(select, documents, templates)
    overlay = _OnWorkloads(transform, select)
    out = []
    for number, document in enumerate(documents, 1):
        try:
            if templates is not None and type(document) is dict:
                out.append(overlay._apply(document, Owned(), templates[number - 1]))
            else:
                out.append(overlay(document))
        except TransformError as err:
            err.with_step(f"document {number}")
            raise
    return out


class SelectionError(TransformError, LookupError):
    """A selector picked no pod template of a stream; ``present`` says what was there."""

    def __init__(self, message: str, *, present: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.present = present

    def _detail(self) -> str:
        return "; templates present: " + short_names(self.present) if self.present else ""


def _describe_template(template: PodTemplate) -> str:
    where = (
        f"{_name(template.kind)}/{_name(template.name)}" if template.name else _name(template.kind)
    )
    return f"{where} role={_name(template.role)}" if template.role else where


def check_selection(
    select: Selector,
    documents: Iterable[Any],
    templates: Sequence[tuple[PodTemplate, ...]] | None = None,
) -> None:
    """Raise a :class:`SelectionError` unless ``select`` picks a template of ``documents``.

    The error lists every template present (kind/name and role), so a typo in
    a role or a name shows at once.

    >>> job = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "mnist"},
    ...        "spec": {"pytorchReplicaSpecs": {"Worker": {"template": {"spec": {}}}}}}
    >>> check_selection(Selector.parse("role=Wroker"), [job])
    Traceback (most recent call last):
      ...
    transforms.kube.workloads.SelectionError: no pod template matches Selector(roles=('Wroker',)); templates present: PyTorchJob/mnist role=Worker
    """
    found = (
        [
            template
            for document in documents
            if is_map(document)
            for template in pod_templates(document)
        ]
        if templates is None
        else [template for each in templates for template in each]
    )
    if any(select.matches(template) for template in found):
        return
    present = tuple(dict.fromkeys(_describe_template(template) for template in found))
    raise SelectionError(
        f"no pod template matches {select!r}"
        + ("" if found else " (the documents hold no pod template)"),
        present=present,
    )
