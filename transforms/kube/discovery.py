"""Template discovery: the pod templates of a document, found by its kind's record.

A document's kind record (:mod:`transforms.kube.table`) says where its pods
are; :func:`pod_templates` reads the record and lists them, each a
:class:`PodTemplate` saying where it is, whose it is and its role there,
with the :class:`WorkloadMetadata` of the workload around it (where
workload-level steps act). Workloads nested in an AppWrapper or a List are
searched too. :func:`with_added_volumes` gives a template's pod as its
controller makes it.

>>> job = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "mnist"},
...        "spec": {"pytorchReplicaSpecs": {
...            "Worker": {"template": {"spec": {"containers": [{"name": "pytorch"}]}}}}}}
>>> [(str(t.path), t.role, t.main) for t in pod_templates(job)]
[('spec.pytorchReplicaSpecs.Worker.template', 'Worker', MainContainer.named('pytorch'))]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pyrsistent import pmap

from combinators.data import is_map, is_seq
from combinators.limits import MAX_NAME, short_repr
from combinators.paths import All, Index, Key, Part, Path
from combinators.reading import select
from transforms.kube.components import Component, as_made, pod_of, referring_steps, resolved
from transforms.kube.containers import MainContainer
from transforms.kube.records import DOCUMENT, SPEC, TEMPLATE, FilledIn, WorkloadKind, reach
from transforms.kube.registry import KindsLike, resolve_kinds
from transforms.kube.table import KindRegistry, document_name

__all__ = (
    "WorkloadMetadata",
    "PodTemplate",
    "pod_templates",
    "templates_of",
    "with_added_volumes",
    "found_again",
    "made_pod",
)


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
    ``main`` is its main container where the kind says which it is
    (:attr:`Location.main <transforms.kube.records.Location.main>`), else ``None``;
    ``component`` how the kind keeps the pod spec among fields of its own
    (:attr:`Location.component <transforms.kube.records.Location.component>`),
    else ``None``; ``filled_in`` the paths of its pod its controller fills in
    (:attr:`Location.filled_in <transforms.kube.records.Location.filled_in>`).
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
    main: MainContainer | None = None
    component: Component | None = None
    filled_in: tuple[FilledIn, ...] = ()

    def describe(self) -> str:
        """Where the template is, for messages: workloads, role and path.

        >>> from combinators import path
        >>> PodTemplate(path("spec.tasks[1].template"), "Job", "mnist", "worker",
        ...             "PodTemplateSpec", workloads=(("Job", "mnist"),)).describe()
        'Job/mnist template worker (spec.tasks[1].template)'
        """
        # kinds, names and roles are the document's own: written at most MAX_NAME long
        owners = " > ".join(
            f"{shown_name(kind)}/{shown_name(name) if name else '(unnamed)'}"
            for kind, name in self.workloads or ((self.kind, self.name),)
        )
        role = f" {shown_name(self.role)}" if self.role is not None else ""
        where = short_repr(self.path, quoted=False) if self.path.parts else "the document itself"
        return f"{owners} template{role} ({where})"


def shown_name(text: Any) -> str:
    """A kind, a name or a role of a document, for a message: at most MAX_NAME long."""
    return short_repr(text, MAX_NAME, quoted=False)


def labels_of(template: Any) -> Mapping[str, str]:
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
    registry: KindRegistry,
    outer: WorkloadMetadata | None = None,
) -> None:
    name = document_name(document)
    here = owners if entry.is_list else (*owners, (entry.kind, name))
    added = _added_volumes(document, entry)
    # the outermost workload's (an AppWrapper's, not that of what it wraps); a kind that only
    # holds documents and keeps no metadata (a List) leaves each of them its own
    metadata = outer
    if metadata is None and not entry.is_list:
        metadata = _workload_metadata(entry, document, name, prefix)
    for location in entry.locations:
        star = next(
            (index for index, part in enumerate(location.path.parts) if type(part) is All), None
        )
        for parts, value, role in reach(document, location.path.parts, location):
            if not is_map(value):
                continue
            if location.holds == DOCUMENT:
                inner = registry.lookup(value.get("kind"), value.get("apiVersion"))
                if inner is not None:
                    _collect(value, inner, (*prefix, *parts), here, out, registry, metadata)
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
                    where,
                    entry.kind,
                    name,
                    role,
                    location.holds,
                    labels_of(value),
                    here,
                    added,
                    own,
                    location.main,
                    None
                    if location.component is None
                    else resolved(location.component, document, parts, star, role),
                    location.filled_in + _referred(value, location),
                )
            )


def _referred(value: Any, location: Any) -> tuple[FilledIn, ...]:
    """The images the containers that steps refer to give them (a Tekton step's StepAction)."""
    if location.component is None:
        return ()
    return tuple(
        FilledIn(
            Path((Key("containers"), Index(index), Key("image"))),
            "the step's image is the container it refers to's (a StepAction's)",
        )
        for index in referring_steps(value, location.component)
    )


def pod_templates(document: Any, *, kinds: KindsLike | None = None) -> tuple[PodTemplate, ...]:
    """Every pod template of one document (API form), in document order.

    A Pod is its own template (path ``''``); workloads nested in an
    AppWrapper or a List are searched too. A document with no pod gives ``()``.
    The kinds are the current registry's
    (:func:`~transforms.kube.registry.current_kinds`), or ``kinds``'
    (:func:`~transforms.kube.registry.resolve_kinds`).

    >>> deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
    ...     "spec": {"template": {"metadata": {"labels": {"app": "web"}}, "spec": {}}}}
    >>> [template] = pod_templates(deployment)
    >>> str(template.path), template.kind, template.name, template.role, dict(template.labels)
    ('spec.template', 'Deployment', 'web', None, {'app': 'web'})
    >>> pod_templates({"apiVersion": "v1", "kind": "Service"})
    ()
    """
    return templates_of(document, resolve_kinds(kinds))


def templates_of(document: Any, registry: KindRegistry) -> tuple[PodTemplate, ...]:
    """:func:`pod_templates` with the kinds of ``registry``: where each record says.

    >>> from transforms.kube.table import KindRegistry
    >>> widgets = KindRegistry.of([{"apiVersion": "example.com/*", "kind": "Widget",
    ...     "pods": [{"path": "spec.parts[*].template", "roleField": "part"}]}])
    >>> widget = {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"parts": [
    ...     {"part": "engine", "template": {"spec": {"containers": []}}}]}}
    >>> [(str(t.path), t.role) for t in templates_of(widget, widgets)]
    [('spec.parts[0].template', 'engine')]
    >>> pod_templates(widget)
    ()
    """
    if not is_map(document):
        return ()
    entry = registry.lookup(document.get("kind"), document.get("apiVersion"))
    if entry is None:
        return ()
    out: list[PodTemplate] = []
    _collect(document, entry, (), (), out, registry)
    return tuple(out)


def with_added_volumes(pod: Any, template: PodTemplate) -> Any:
    """``pod`` (the template's value) as its workload's controller makes it: a
    volume for each of ``template.added_volumes`` that the pod does not have,
    so that a mount naming a volume claim template is not flagged, and, where
    the kind keeps the pod spec among fields of its own
    (:attr:`PodTemplate.component`), the pod spec alone, its main container in
    its ``containers`` (:func:`~transforms.kube.components.as_made`): what
    validation reads. Without any, ``pod`` itself comes back; it is never changed.

    >>> statefulset = {"kind": "StatefulSet", "spec": {
    ...     "volumeClaimTemplates": [{"metadata": {"name": "www"}}],
    ...     "template": {"spec": {"containers": [{"name": "nginx"}]}}}}
    >>> [template] = pod_templates(statefulset)
    >>> template.added_volumes
    ('www',)
    >>> with_added_volumes(statefulset["spec"]["template"], template)["spec"]["volumes"]
    [{'name': 'www', 'persistentVolumeClaim': {'claimName': 'www'}}]
    """
    if template.component is not None:
        pod = as_made(pod, template.component, template.root)
    if not template.added_volumes or not is_map(pod):
        return pod
    if template.root == SPEC:  # the pod's spec itself
        made = replace(template, root=TEMPLATE, component=None)
        return with_added_volumes({"spec": pod}, made)["spec"]
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


def found_again(template: PodTemplate, document: Any) -> PodTemplate:
    """``template`` as it is found in ``document``, another version of the document it
    was found in (what a fold made of it): where its kind keeps pod fields apart from it
    (a Tekton TaskRun's ``spec.podTemplate``), the template of that path in ``document``,
    whose :attr:`Component.outside_given` are those fields as ``document`` has them;
    else, or where ``document`` has no template there, ``template`` itself.

    >>> run = {"apiVersion": "tekton.dev/v1", "kind": "TaskRun", "spec": {
    ...     "taskSpec": {"steps": [{"name": "a", "image": "i"}]}}}
    >>> [template] = pod_templates(run)
    >>> later = {**run, "spec": {**run["spec"], "podTemplate": {"hostNetwork": True}}}
    >>> dict(found_again(template, later).component.outside_given)
    {'hostNetwork': True}
    >>> found_again(template, run) == template
    True
    """
    component = template.component
    if component is None or component.pod_fields_at is None:
        return template
    again = next((each for each in pod_templates(document) if each.path == template.path), None)
    return template if again is None else again


def made_pod(value: Any, template: PodTemplate) -> Any:
    """``value`` (the template's, in a document) as its controller makes the pod
    (:func:`with_added_volumes`), in a pod's form, ``{metadata, spec}``, whatever the
    template holds: a bare pod spec in ``spec``, with the metadata its kind keeps beside
    it. The paths of ``--allow`` and ``--deny`` name a pod's fields so.

    >>> from combinators import path
    >>> bare = PodTemplate(path("spec.worker.spec"), "DaskCluster", "x", "worker", SPEC)
    >>> made_pod({"containers": []}, bare)
    {'spec': {'containers': []}}
    """
    made = with_added_volumes(value, template)
    if template.root != SPEC or not is_map(made):
        return made
    pod: dict[str, Any] = {"spec": made}
    if template.component is not None and is_map(value):
        metadata = pod_of(value, template.component, SPEC).get("metadata")
        if metadata:
            pod["metadata"] = metadata
    return pod
