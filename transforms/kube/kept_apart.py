"""Pod fields a document keeps apart from the place of its pod: a Tekton TaskRun's
``spec.podTemplate`` beside its ``spec.taskSpec``, a PipelineRun's task's
``spec.taskRunSpecs`` element, with the run's ``spec.taskRunTemplate.podTemplate`` as
the fields each task takes where its own has none.

A :class:`PodFieldsAt` says where, as data in a kind's record (``podFieldsAt``);
:func:`outside_of` reads the fields for one pod, :func:`with_defaults` merges them as
Tekton merges them, :func:`with_outside` writes them back, and :func:`outside_holder`
is the map around them (where a run keeps what it sets instead of its steps', its
``stepSpecs``). :mod:`transforms.kube.components` gives them to the overlay in the pod.

>>> from combinators import path
>>> place = PodFieldsAt(path("spec.podTemplate"), ("nodeSelector",))
>>> outside_of({"spec": {"podTemplate": {"nodeSelector": {"a": "b"}}}}, place, None)
({'nodeSelector': {'a': 'b'}}, MISSING)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from combinators.data import MISSING, Owned, is_map, is_seq
from combinators.paths import Index, Key, Path
from combinators.reading import select
from transforms.kube.placing import with_value_at

__all__ = ("PodFieldsAt", "outside_of", "with_defaults", "with_outside", "outside_holder")


#: Fields whose zero value is none of their own in Tekton's merge (Go fields that are no
#: pointers: ``hostNetwork`` false, ``schedulerName`` empty); any other is none only
#: where absent or null (an empty ``nodeSelector`` is one of its own, as Go decodes it).
_ZERO_IS_NONE = {"hostNetwork": False, "schedulerName": ""}


def _unset(field: str, value: Any) -> bool:
    """Whether a pod template's ``field`` has no value of its own, as Tekton's
    MergePodTemplateWithDefault tells it."""
    if value is None or value is MISSING:
        return True
    return field in _ZERO_IS_NONE and value == _ZERO_IS_NONE[field]


@dataclass(frozen=True)
class PodFieldsAt:
    """Where a document keeps the pod fields ``fields`` of a place's pod apart from it: a
    Tekton TaskRun's ``spec.podTemplate``; a PipelineRun's, for one task, the
    ``podTemplate`` of the element of ``spec.taskRunSpecs`` whose ``pipelineTaskName`` is
    the task's name, each field it has none of taken from ``spec.taskRunTemplate.podTemplate``.

    ``path`` is keys only; with ``match``, it is a list, and the fields are at ``at`` of
    the element whose field ``match`` is the place's role (an element made where there
    is none). ``defaults``, where set, is the path of the fields the pod takes where the
    place there has none (a list of volumes: merged by name, as Tekton merges them).
    ``steps_env``, where set, is the key there of env vars the kind gives each step after
    its own, so that they win (a podTemplate's ``env``): a step's env var of one of their
    names that an overlay writes is refused (:func:`check_steps_env`). ``resources_by``
    are ``(key, containers)`` pairs: a key beside where the fields are (a TaskRun's
    ``spec.stepSpecs``) whose value sets the resources of the place's containers at
    ``containers`` instead of theirs, a list of them by name (``stepSpecs``) or one value
    for all (a TaskRun's ``computeResources``): a change of such a container's resources
    is refused (:func:`check_overridden`).
    """

    path: Path
    fields: tuple[str, ...]
    match: str | None = None
    at: str | None = None
    defaults: Path | None = None
    steps_env: str | None = None
    resources_by: tuple[tuple[str, str], ...] = ()

    def describe(self, role: str | None) -> str:
        """Where the fields are, for messages.

        >>> from combinators import path
        >>> PodFieldsAt(path("spec.taskRunSpecs"), ("nodeSelector",), "pipelineTaskName",
        ...     "podTemplate").describe("train")
        'spec.taskRunSpecs[pipelineTaskName=train].podTemplate'
        """
        if self.match is None:
            return str(self.path)
        return f"{self.path}[{self.match}={role}].{self.at}"


def _by_name(defaults: Any, own: Any) -> list[Any]:
    """``defaults`` with each element of ``own`` of the same name in its stead, and
    ``own``'s others after (Tekton's mergeByName)."""
    mine = list(own) if is_seq(own) else []
    names = {each.get("name") for each in mine if is_map(each)}
    kept = [each for each in defaults if not (is_map(each) and each.get("name") in names)]
    return [*kept, *mine]


def with_defaults(place: PodFieldsAt, given: Any, defaults: Any) -> Any:
    """``given``, with each of the fields of ``place`` it has none of from ``defaults``
    (a list merged by name), as Tekton merges a task's pod template with the run's.

    >>> from combinators import path
    >>> place = PodFieldsAt(path("spec.p"), ("nodeSelector", "volumes"))
    >>> with_defaults(place, {"volumes": [{"name": "a", "emptyDir": {}}]},
    ...     {"nodeSelector": {"x": "y"}, "volumes": [{"name": "a"}, {"name": "b"}]})
    {'volumes': [{'name': 'b'}, {'name': 'a', 'emptyDir': {}}], 'nodeSelector': {'x': 'y'}}
    >>> flags = PodFieldsAt(path("spec.p"), ("hostNetwork", "automountServiceAccountToken"))
    >>> with_defaults(flags, {"hostNetwork": False, "automountServiceAccountToken": False},
    ...     {"hostNetwork": True, "automountServiceAccountToken": True})
    {'hostNetwork': True, 'automountServiceAccountToken': False}
    """
    if not is_map(defaults) or not defaults:
        return given
    out = {key: value for key, value in given.items()} if is_map(given) else {}
    for field in place.fields:
        default = defaults.get(field, MISSING)
        if default is MISSING:
            continue
        if is_seq(default) and is_seq(out.get(field)):
            out[field] = _by_name(default, out[field])
        elif _unset(field, out.get(field)):
            out[field] = default
    return out


def outside_of(doc: Any, place: PodFieldsAt, role: str | None) -> tuple[Any, Any]:
    """``(given, defaults)``: the value where ``place`` keeps the pod fields of the pod of
    role ``role`` in ``doc`` (``MISSING`` where there is none), and that at its
    ``defaults`` (``MISSING`` where there is none).

    >>> from combinators import path
    >>> runs = PodFieldsAt(path("spec.taskRunSpecs"), ("nodeSelector",), "pipelineTaskName",
    ...     "podTemplate", path("spec.taskRunTemplate.podTemplate"))
    >>> doc = {"spec": {"taskRunTemplate": {"podTemplate": {"nodeSelector": {"a": "b"}}},
    ...     "taskRunSpecs": [{"pipelineTaskName": "train", "podTemplate": {}}]}}
    >>> outside_of(doc, runs, "train")
    ({}, {'nodeSelector': {'a': 'b'}})
    """
    found = select(doc, place.path)
    given: Any = found[0] if found else MISSING
    if place.match is not None:
        element = next(
            (
                each
                for each in (given if is_seq(given) else ())
                if is_map(each) and role is not None and each.get(place.match) == role
            ),
            None,
        )
        given = MISSING if element is None else element.get(place.at, MISSING)
    defaults: Any = MISSING
    if place.defaults is not None:
        found = select(doc, place.defaults)
        defaults = found[0] if found else MISSING
    return given, defaults


def with_outside(doc: Any, place: PodFieldsAt, role: str | None, value: Any, owned: Owned) -> Any:
    """``doc`` with ``value`` where ``place`` keeps the pod fields of the pod of role
    ``role`` (removed where it is ``MISSING``), copied along the path only; the element of
    a list ``place`` matches is made where there is none.

    >>> from combinators import path
    >>> from combinators.data import Owned
    >>> runs = PodFieldsAt(path("spec.taskRunSpecs"), ("nodeSelector",), "pipelineTaskName",
    ...     "podTemplate")
    >>> with_outside({"spec": {}}, runs, "train", {"nodeSelector": {"a": "b"}}, Owned())
    {'spec': {'taskRunSpecs': [{'pipelineTaskName': 'train', 'podTemplate': {'nodeSelector': {'a': 'b'}}}]}}
    """
    parts = place.path.parts
    if place.match is None:
        return with_value_at(doc, parts, value, owned)
    assert place.at is not None
    found = select(doc, place.path)
    listed: Any = found[0] if found else MISSING
    elements = list(listed) if is_seq(listed) else []
    for index, each in enumerate(elements):
        if is_map(each) and each.get(place.match) == role:
            return with_value_at(doc, (*parts, Index(index), Key(place.at)), value, owned)
    if value is MISSING:
        return doc
    made = {place.match: role, place.at: value}
    return with_value_at(doc, parts, [*elements, made], owned)


def outside_holder(doc: Any, place: PodFieldsAt, role: str | None) -> Any:
    """The map that holds the pod fields' place (its last key) for the pod of ``role``:
    a TaskRun's ``spec``, a PipelineRun's task's ``taskRunSpecs`` element; ``MISSING``
    where there is none.

    >>> from combinators import path
    >>> outside_holder({"spec": {"stepSpecs": []}}, PodFieldsAt(path("spec.podTemplate"), ("x",)), None)
    {'stepSpecs': []}
    """
    if place.match is None:
        parent = place.path.parts[:-1]
        found = select(doc, Path(parent)) if parent else [doc]
        return found[0] if found and is_map(found[0]) else MISSING
    found = select(doc, place.path)
    listed: Any = found[0] if found else None
    return next(
        (
            each
            for each in (listed if is_seq(listed) else ())
            if is_map(each) and role is not None and each.get(place.match) == role
        ),
        MISSING,
    )
