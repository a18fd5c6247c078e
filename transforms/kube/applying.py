"""Applying overlays to workloads: pod-level steps at each selected pod template,
workload-level steps once at each workload's metadata, whole-document steps on the
documents they are for, in the order written.

:func:`apply_to_workload` applies an overlay to one document (a client
object comes back as its own type), :func:`apply_to_documents` to a stream,
:func:`on_workloads` makes the overlay of whole documents that both are.
Only the paths that change are copied; an unchanged document comes back as
the very same object.

>>> import combinators
>>> pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}, "spec": {}}
>>> apply_to_workload(combinators.upsert("spec.hostIPC", False), pod)["spec"]
{'hostIPC': False}
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from combinators.data import (
    Owned,
    is_map,
    is_seq,
    kind_name,
)
from combinators.errors import ArgumentError, ArgumentTypeError, TransformError, TypeClashError
from combinators.limits import short_repr
from combinators.paths import Index, Key, Path
from combinators.transform import (
    Transform,
    TransformLike,
    apply_step,
    chain,
    identity,
)
from transforms.kube.acting import apply_at_template, apply_to_metadata
from transforms.kube.discovery import PodTemplate, labels_of, templates_of
from transforms.kube.kinds import ClientDictError
from transforms.kube.placing import with_value_at
from transforms.kube.registry import KindsLike, current_kinds, resolve_kinds
from transforms.kube.scopes import (
    WorkloadCheck,
    is_document_level,
    split_at_documents,
    split_levels,
    workload_checks,
)
from transforms.kube.selection import Selector, check_selection, workloads_of
from transforms.kube.table import KindRegistry, document_name

__all__ = ("on_workloads", "apply_to_workload", "apply_to_documents")


_CLIENT_CLASS = re.compile(r"V\d+(?:(?:alpha|beta)\d+)?([A-Z]\w*)$")


def _client_kind(value: Any) -> str | None:
    """The kind a kubernetes client object is of (``V1Deployment`` -> ``Deployment``), or ``None``."""
    cls = type(value)
    if not hasattr(cls, "attribute_map") or not hasattr(cls, "openapi_types"):
        return None
    found = _CLIENT_CLASS.match(cls.__name__)
    return found.group(1) if found else None


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
    __slots__ = ("transform", "select", "kinds", "_pieces")
    name = "on_workloads"

    def __init__(
        self, transform: TransformLike, select: Selector | None, kinds: KindsLike | None = None
    ) -> None:
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
        # None: the current registry where it applies (a run's --kinds too)
        self.kinds: KindRegistry | None = None if kinds is None else resolve_kinds(kinds)
        # in the order written: each whole-document step alone, the runs of steps between
        self._pieces: tuple[TransformLike | _Run, ...] = tuple(
            piece if is_document_level(piece) else _Run.of(piece)
            for piece in split_at_documents(transform)
        )
        given = {
            name: value
            for name, value in (("select", self.select), ("kinds", self.kinds))
            if value is not None
        }
        self._init_params(transform, **given)

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
        registry = self.kinds if self.kinds is not None else current_kinds()
        found = templates_of(doc, registry) if templates is None else templates
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
            new = self._apply_to_documents(piece, doc, owned, found, picked, moved, registry)
            if new is not doc:  # it may have added a template, or taken one away
                doc, found, moved = new, templates_of(new, registry), True
        return doc

    def _apply_run(self, run: _Run, doc: Any, owned: Owned, selected: Sequence[PodTemplate]) -> Any:
        if run.workload_steps is None:
            for template in selected:
                doc = apply_at_template(template, doc, owned, run.steps)
            return doc
        # the pod-level steps on each selected template, then the workload-level ones once
        # on the metadata of each workload that holds one (a Pod is its own: all in order)
        for template in selected:
            if template.workload_metadata is None:
                doc = apply_at_template(template, doc, owned, run.steps)
            elif run.pod_steps is not identity:
                doc = apply_at_template(template, doc, owned, run.pod_steps)
        for metadata in workloads_of(selected):
            doc = apply_to_metadata(metadata, doc, owned, run.workload_steps, run.workload_checks)
        return doc

    def _apply_to_documents(
        self,
        step: Any,
        doc: Any,
        owned: Owned,
        found: tuple[PodTemplate, ...],
        picked: _Picked,
        moved: bool,
        registry: KindRegistry,
    ) -> Any:
        """A whole-document step on ``doc`` where it is for it, or on each item of a List it
        is for (kubectl and kustomize read a List as its items), where the selector picks
        one of its templates; any other document as it is."""
        if step.matches_document(doc):
            if self.select is None or any(picked(template, moved) for template in found):
                return self._apply_to_document(step, doc, owned)
            return doc
        entry = registry.lookup(doc.get("kind"), doc.get("apiVersion"))
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
                doc = with_value_at(doc, where, new, owned)
        return doc

    def _apply_to_document(self, step: Any, doc: Any, owned: Owned) -> Any:
        try:
            return apply_step(step, doc, owned)
        except TransformError as err:
            err.with_step(f"{doc.get('kind')}/{document_name(doc) or '(unnamed)'}")
            raise

    def _apply_client(self, obj: Any, kind: str) -> Any:
        # here, not at the top: the conversions (and the schema) are for client objects only
        from transforms.kube.convert import to_client, to_data

        if kind in ("PodSpec", "PodTemplateSpec"):
            # a pod fragment: its own (only) template
            data = to_data(obj)
            template = PodTemplate(Path(), "Pod", document_name(data), None, kind, labels_of(data))
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


def on_workloads(
    transform: TransformLike, select: Selector | None = None, *, kinds: KindsLike | None = None
) -> Transform:
    """A pod-level overlay as an overlay of whole documents: applied to every selected template.

    The result is a transform like any other: it composes, compares equal
    to the same call, and prints as it. See :func:`apply_to_workload`;
    ``kinds`` as there (without it, the current registry where it applies).

    >>> import combinators
    >>> on_workloads(combinators.upsert("spec.nodeSelector", {"gpu": "a100"}),
    ...              select=Selector.parse("role=Worker"))
    on_workloads(upsert('spec.nodeSelector', {'gpu': 'a100'}), select=Selector(roles=('Worker',)))
    """
    return _OnWorkloads(transform, select, kinds)


def apply_to_workload(
    transform: TransformLike,
    document: Any,
    *,
    select: Selector | None = None,
    kinds: KindsLike | None = None,
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

    Where each kind keeps its pods is the current registry's
    (:func:`~transforms.kube.registry.current_kinds`: the built-in kinds, those
    packages and :func:`~transforms.kube.registry.register_kinds` declared), or
    ``kinds``': a :class:`~transforms.kube.table.KindRegistry`, or records added to
    the current one for this call.

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
    return _OnWorkloads(transform, select, kinds)(document)


def apply_to_documents(
    transform: TransformLike,
    documents: Iterable[Any],
    *,
    select: Selector | None = None,
    require_match: bool = False,
    templates: Sequence[tuple[PodTemplate, ...]] | None = None,
    kinds: KindsLike | None = None,
    first: int = 1,
) -> list[Any]:
    """:func:`apply_to_workload` on each document of a stream; order kept.

    With ``require_match``, a selector that picks no template of the whole
    stream is a :class:`SelectionError` (see :func:`check_selection`), not a
    silent pass-through. ``templates``, where given, are each document's
    :func:`pod_templates`, found once by a caller that needs them too; ``kinds`` as
    for :func:`apply_to_workload`.

    A ``kind: List`` stays one document, its items overlaid in place (each
    item is searched like a document). Errors also name the document's
    place in the stream (from 1; ``first``, where the documents are a part of a stream
    that begins further on).

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
    overlay = _OnWorkloads(transform, select, kinds)
    if require_match and select:
        check_selection(select, documents, templates, kinds=overlay.kinds)
    out = []
    for number, document in enumerate(documents, first):
        try:
            if templates is not None and type(document) is dict:
                out.append(overlay._apply(document, Owned(), templates[number - first]))
            else:
                out.append(overlay(document))
        except TransformError as err:
            err.with_step(f"document {number}")
            raise
    return out
