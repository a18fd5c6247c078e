"""Where each level of an overlay's steps acts: pod-level steps at a pod template (or at
a bare pod spec, given as the pod ``{spec: ...}``), workload-level steps at the
workload's metadata (given as ``{metadata: ...}``). :mod:`transforms.kube.applying`
decides which steps go where; these apply them there, copying along the path only.
"""

from __future__ import annotations

import functools
from typing import Any

from combinators.control import for_each
from combinators.data import MISSING, Owned, is_map, kind_name
from combinators.errors import TransformError, TypeClashError
from combinators.limits import short_names
from combinators.paths import Key
from combinators.transform import TransformLike, apply_step, describe_step
from transforms.kube.components import (
    check_overridden,
    check_steps_env,
    outside_back,
    pod_of,
    put_back,
)
from transforms.kube.discovery import PodTemplate, WorkloadMetadata, shown_name
from transforms.kube.kept_apart import outside_holder, outside_of, with_defaults, with_outside
from transforms.kube.placing import value_at, with_value_at
from transforms.kube.records import POD, SPEC
from transforms.kube.scopes import NoWorkloadMetadataError, WorkloadCheck, WorkloadMetadataError

__all__ = (
    "BareSpecError",
    "apply_at_template",
    "apply_at_spec",
    "apply_to_metadata",
    "check_still_a_template",
)


def check_still_a_template(doc: Any, template: PodTemplate) -> None:
    """Refuse an overlay that left no pod where ``template`` was: a step that
    replaced the whole pod (an empty path, ``merge_patch: null``) with a value
    that is no map.

    >>> from combinators import path
    >>> check_still_a_template({"spec": {"template": 1}},
    ...                         PodTemplate(path("spec.template"), "Job", "a", None, "PodTemplateSpec"))
    Traceback (most recent call last):
      ...
    combinators.errors.TypeClashError: the overlay left a number (1) at spec.template, where a pod template (a map) was
    """
    value = doc
    for part in template.path.parts:
        value = value[part.name] if type(part) is Key else value[part.index]  # type: ignore[attr-defined]
    if not is_map(value):
        what = {POD: "a pod (a map)", SPEC: "a pod spec (a map)"}.get(
            template.root, "a pod template (a map)"
        )
        where = str(template.path) or "the top level"
        raise TypeClashError(
            f"the overlay left {kind_name(value)} at {where}, where {what} was",
            expected="a map",
            found=kind_name(value),
        )


class BareSpecError(TransformError, ValueError):
    """A step wrote beside the spec of a pod that a workload keeps as a bare pod spec
    (no metadata): ``keys`` are what it wrote there (``metadata``)."""

    def __init__(self, message: str, *, keys: tuple[str, ...]) -> None:
        super().__init__(message)
        self.keys = keys


def apply_at_spec(template: PodTemplate, doc: Any, owned: Owned, transform: TransformLike) -> Any:
    """A pod-level ``transform`` at a bare pod spec: given as the pod ``{spec: ...}``, as
    a pod-level step reads a pod; what it writes beside the spec has no place, and is
    refused rather than dropped.

    >>> import combinators
    >>> from combinators import path
    >>> from combinators.data import Owned
    >>> doc = {"spec": {"worker": {"containers": []}}}
    >>> at = PodTemplate(path("spec.worker"), "DaskCluster", "a", "worker", "PodSpec")
    >>> apply_at_spec(at, doc, Owned(), combinators.upsert("spec.hostIPC", True))
    {'spec': {'worker': {'containers': [], 'hostIPC': True}}}
    >>> apply_at_spec(at, doc, Owned(), combinators.upsert("metadata.labels.team", "ml"))
    Traceback (most recent call last):
      ...
    transforms.kube.acting.BareSpecError: spec.worker is a bare pod spec, with no metadata: the overlay wrote metadata beside it, which has no place there
    """
    parts = template.path.parts
    spec = value_at(doc, parts)
    view = {"spec": spec}
    result = apply_step(transform, view, Owned())
    if result is view:
        return doc
    if not is_map(result):
        raise TypeClashError(
            f"the overlay left {kind_name(result)} where it was given the pod of the pod spec "
            f"at {template.path}, as {{spec: ...}}",
            expected="a map",
            found=kind_name(result),
        )
    extra = tuple(str(key) for key in result if key != "spec")
    if extra:
        raise BareSpecError(
            f"{template.path} is a bare pod spec, with no metadata: the overlay wrote "
            f"{short_names(extra)} beside it, which has no place there",
            keys=extra,
        )
    new = result.get("spec", MISSING)
    return doc if new is spec else with_value_at(doc, parts, new, owned)


def _apply_at_component(
    template: PodTemplate, doc: Any, owned: Owned, transform: TransformLike
) -> Any:
    """A pod-level ``transform`` at a pod spec kept among fields of the kind's own: given
    the pod as the controller makes it, what it makes written back where the kind keeps it
    (:mod:`transforms.kube.components`)."""
    assert template.component is not None
    parts = template.path.parts
    value = value_at(doc, parts)
    if not is_map(value):
        return doc
    component = template.component
    where = str(template.path) or "the document"
    if component.pod_fields_at is None:
        pod = pod_of(value, component, template.root)
        new = put_back(
            value, component, pod, apply_step(transform, pod, Owned()), template.root, where
        )
        return doc if new is value else with_value_at(doc, parts, new, owned)
    # the pod's fields kept apart from the place (a Tekton TaskRun's podTemplate)
    place = component.pod_fields_at
    given, defaults = outside_of(doc, place, template.role)
    merged = with_defaults(place, given, defaults)
    pod = pod_of(value, component, template.root, merged)
    made = apply_step(transform, pod, Owned())
    if made is pod:
        return doc
    check_steps_env(component, value, pod, made, given, defaults, template.role, where)
    if place.resources_by:
        holder = outside_holder(doc, place, template.role)
        check_overridden(component, value, pod, made, holder, where)
    made, new_given = outside_back(component, pod, made, given, defaults, template.role, where)
    base = pod_of(value, component, template.root)
    new = put_back(value, component, base, base if made == base else made, template.root, where)
    if new is not value:
        doc = with_value_at(doc, parts, new, owned)
    if new_given is not given:
        doc = with_outside(doc, place, template.role, new_given, owned)
    return doc


@functools.lru_cache(maxsize=256)
def _for_each_at(path: Any, transform: Any) -> Any:
    """``for_each(path, transform)``, made once for each place of a template a run meets,
    not once for each document of a stream."""
    return for_each(path, transform)


def apply_at_template(
    template: PodTemplate, doc: Any, owned: Owned, transform: TransformLike
) -> Any:
    """``doc`` with the pod-level ``transform`` applied at ``template``; an error names the
    template.

    >>> import combinators
    >>> from combinators.data import Owned
    >>> from transforms.kube.discovery import pod_templates
    >>> job = {"kind": "Job", "spec": {"template": {"spec": {}}}}
    >>> [template] = pod_templates(job)
    >>> apply_at_template(template, job, Owned(), combinators.upsert("spec.hostIPC", True))
    {'kind': 'Job', 'spec': {'template': {'spec': {'hostIPC': True}}}}
    """
    try:
        if template.component is not None:
            new = _apply_at_component(template, doc, owned, transform)
        elif template.root == SPEC:
            new = apply_at_spec(template, doc, owned, transform)
        elif not template.path.parts:
            new = apply_step(transform, doc, owned)
        else:
            try:
                at = _for_each_at(template.path, transform)
            except TypeError:  # a callable of the caller's that cannot be hashed
                at = for_each(template.path, transform)
            new = apply_step(at, doc, owned)
        if new is not doc:
            check_still_a_template(new, template)
        return new
    except TransformError as err:
        err.with_step(template.describe())
        raise


def apply_to_metadata(
    metadata: WorkloadMetadata,
    doc: Any,
    owned: Owned,
    steps: TransformLike,
    checks: tuple[WorkloadCheck, ...] = (),
) -> Any:
    """``doc`` with the workload-level ``steps`` applied once at ``metadata``, given as
    ``{metadata: ...}``, after ``checks`` (what the steps require of the workload) pass;
    a step that writes anything but the metadata is refused.

    >>> from combinators import replace_at
    >>> from combinators.data import Owned
    >>> from transforms.kube.discovery import pod_templates
    >>> cron = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "nightly"},
    ...         "spec": {"jobTemplate": {"spec": {"template": {"spec": {}}}}}}
    >>> [template] = pod_templates(cron)
    >>> new = apply_to_metadata(template.workload_metadata, cron, Owned(),
    ...                         replace_at("metadata.labels.team", "ml"))
    >>> new["spec"]["jobTemplate"]["metadata"], new["metadata"] is cron["metadata"]
    ({'labels': {'team': 'ml'}}, True)
    """
    if metadata.path is None:
        raise NoWorkloadMetadataError(
            f"{shown_name(metadata.kind)}/{shown_name(metadata.name) if metadata.name else '(unnamed)'}"
            f": a {shown_name(metadata.kind)} keeps no "
            f"metadata for the workloads it makes, so the workload-level steps "
            f"({describe_step(steps)}) have nowhere to act; leave its templates out "
            f"(--select, Selector) or set them on what it makes",
            kind=metadata.kind,
            name=metadata.name,
        )
    value = value_at(doc, metadata.path.parts)
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
        return with_value_at(doc, metadata.path.parts, new, owned)
    except TransformError as err:
        err.with_step(metadata.describe())
        raise
