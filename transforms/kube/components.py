"""A pod spec kept among fields of a kind's own: a KServe component, a Knative revision.

Some kinds inline a pod spec's fields with fields of their own (a KServe
predictor's ``minReplicas`` beside its ``tolerations``; a Knative
revision's ``containerConcurrency`` beside its ``containers``), keep the
pod's main container apart (a KServe model-format predictor's ``model``), or
keep the pod's labels beside its spec (a KServe component's ``labels``).
A :class:`Component` says so, as data in the kind's record
(:func:`~transforms.kube.records.kind_from_record`). An overlay is given the
pod such a place describes, as the kind's controller makes it
(:func:`pod_of`): the pod spec's fields only, the main container first in
``spec.containers``, named as the controller names it; :func:`put_back`
writes what the overlay made back where the kind keeps it, and refuses,
naming the field, what has no place there rather than drop it.

>>> predictor = Component(own_fields=("minReplicas",), container=ContainerPlace(("model",),
...     name="kserve-container", own_fields=("modelFormat",)))
>>> given = {"minReplicas": 1, "model": {"modelFormat": {"name": "sklearn"}, "args": ["-v"]}}
>>> pod = pod_of(given, predictor)
>>> pod
{'spec': {'containers': [{'name': 'kserve-container', 'args': ['-v']}]}}
>>> put_back(given, predictor, pod, {"spec": {**pod["spec"], "nodeSelector": {"gpu": "a100"}}})
{'minReplicas': 1, 'model': {'modelFormat': {'name': 'sklearn'}, 'args': ['-v']}, 'nodeSelector': {'gpu': 'a100'}}
>>> put_back(given, predictor, pod, pod) is given
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from combinators.data import MISSING, copy_plain, freeze_value, is_map, is_seq, kind_name
from combinators.errors import TransformError, TypeClashError
from combinators.limits import short_names
from combinators.paths import Index, Key, Part, Path
from combinators.reading import select

__all__ = (
    "ContainerPlace",
    "Inherited",
    "Component",
    "ComponentFieldError",
    "pod_of",
    "put_back",
    "as_made",
    "resolved",
)

_SPEC, _TEMPLATE = "PodSpec", "PodTemplateSpec"


@dataclass(frozen=True)
class ContainerPlace:
    """Where a kind keeps a pod's main container apart from its ``containers``.

    ``at`` are the keys (of the place that holds the pod spec) where it may be,
    the first present one holding it (a KServe predictor's ``model``, or one of
    its framework keys); ``name`` is the name the controller gives it where it
    names none (KServe's ``kserve-container``); ``own_fields`` are its fields
    that are the kind's, not the container's (``modelFormat``, ``storageUri``).
    In the pod an overlay is given it is ``spec.containers[0]``, before the
    others, as the controller puts it.
    """

    at: tuple[str, ...]
    name: str | None = None
    own_fields: tuple[str, ...] = ()


@dataclass(frozen=True)
class Inherited:
    """A pod field the pod takes from elsewhere in the workload where the place has none
    (or an empty one): an Argo template's ``tolerations``, from the workflow's.

    ``source`` is the path in the document of the workload-wide value (``None``: none);
    ``passed_on_by`` are fields that make a sibling of the place (an element of the
    same ``[*]``) pass its own value of the field on to the pods it runs (an Argo
    ``steps`` or ``dag`` template's ``nodeSelector``). Where only ``source`` sets it,
    the overlay is given that value, and what it makes of it, written at the place,
    is exact (the place's own wins); where a sibling sets it, which value the pod
    takes depends on how the workload runs, and a change of it is refused
    (:func:`resolved`).
    """

    field: str
    source: Path | None = None
    passed_on_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class Component:
    """How a kind keeps a pod spec among fields of its own.

    ``own_fields`` are the kind's fields beside the pod spec's (given to no
    overlay, kept as they are); ``pod_fields``, where set, are the only pod
    spec fields the kind has room for (a KServe ServingRuntime's): every
    other field is its own, and an overlay that writes another pod field is
    refused. ``container`` is where the main container is kept apart
    (:class:`ContainerPlace`). ``metadata_fields`` are fields (``labels``,
    ``annotations``) the kind keeps beside a bare pod spec and gives the pod
    as its metadata of the same name. ``container_name`` is the name the
    controller gives each container that names none (Knative's
    ``user-container``, numbered from 0 where there are several): the pod an
    overlay is given has them named so, and a name so given is taken away
    again where it is left as it was.

    ``containers_at`` is the key where the kind keeps the pod's containers (other
    than the main one): ``containers``, or an Argo template's ``sidecars``.
    ``metadata_at``, where set, is the key of a map the kind keeps the pod's
    metadata in (an Argo template's ``metadata``); ``metadata_fields`` are then
    the fields of it the pod has (``labels`` and ``annotations`` where none are
    named). ``inherited`` are the pod fields the pod takes from elsewhere where
    the place has none (:class:`Inherited`); ``unplaced_note`` is said in each
    refusal of a pod field the kind keeps no place for.

    ``defaults`` and ``undecided`` are one place's, filled by :func:`resolved`
    from its document: the inherited values the overlay is given, and the
    inherited fields whose value is not known there, with where they are set.
    """

    own_fields: tuple[str, ...] = ()
    pod_fields: tuple[str, ...] | None = None
    container: ContainerPlace | None = None
    metadata_fields: tuple[str, ...] = ()
    container_name: str | None = None
    containers_at: str = "containers"
    metadata_at: str | None = None
    inherited: tuple[Inherited, ...] = ()
    unplaced_note: str | None = None
    defaults: tuple[tuple[str, Any], ...] = ()
    undecided: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def is_own(self, key: str) -> bool:
        """Whether ``key`` of the pod spec (its containers' key named ``containers``) is
        the kind's own there, not a pod spec field."""
        if key in self.own_fields or key == self.metadata_at:
            return True
        if self.metadata_at is None and key in self.metadata_fields:
            return True
        if self.container is not None and key in self.container.at:
            return True
        return self.pod_fields is not None and key not in self.pod_fields

    def metadata_keys(self) -> tuple[str, ...]:
        """The fields of the pod's metadata the kind keeps."""
        if self.metadata_at is not None and not self.metadata_fields:
            return ("labels", "annotations")
        return self.metadata_fields


class ComponentFieldError(TransformError, ValueError):
    """An overlay wrote what the kind keeps no place for, or took away what it must keep:
    ``keys`` name the fields."""

    def __init__(self, message: str, *, keys: tuple[str, ...]) -> None:
        super().__init__(message)
        self.keys = keys


def _main_key(spec: Mapping[str, Any], component: Component) -> str | None:
    if component.container is None:
        return None
    for key in component.container.at:
        if is_map(spec.get(key)):
            return key
    return None


def _given_names(containers: list[Any], name: str) -> list[Any]:
    """``containers`` with each unnamed one named as Knative names it: ``name`` alone,
    ``name-0``, ``name-1``... where there are several, skipping names taken."""
    taken = {each.get("name") for each in containers if is_map(each)}
    out, suffix = [], 0
    for each in containers:
        if is_map(each) and not each.get("name"):
            given = name
            if len(containers) > 1 or name in taken:
                while f"{name}-{suffix}" in taken:
                    suffix += 1
                given = f"{name}-{suffix}"
                suffix += 1
            taken.add(given)
            each = {"name": given, **each}
        out.append(each)
    return out


def _is_set(value: Any) -> bool:
    """Whether a field has a value of its own: Argo takes an empty one as none."""
    return value is not None and value is not MISSING and value not in ("", {}, [])


def _renamed(spec: Mapping[str, Any], old: str, new: str) -> Mapping[str, Any]:
    if old == new or old not in spec:
        return spec
    return {(new if key == old else key): value for key, value in spec.items()}


def _spec_view(given: Mapping[str, Any], component: Component) -> dict[str, Any]:
    spec = _renamed(given, component.containers_at, "containers")
    view = {key: value for key, value in spec.items() if not component.is_own(key)}
    key = _main_key(spec, component)
    if key is not None:
        assert component.container is not None
        place = component.container
        main = {name: value for name, value in spec[key].items() if name not in place.own_fields}
        if place.name is not None and not main.get("name"):
            main = {"name": place.name, **main}
        others: Any = view.get("containers")
        view["containers"] = [main, *(others if is_seq(others) else ())]
    containers: Any = view.get("containers")
    if component.container_name is not None and is_seq(containers):
        view["containers"] = _given_names(list(containers), component.container_name)
    for field, value in component.defaults:
        if not _is_set(view.get(field)):
            view[field] = copy_plain(value)
    return view


def pod_of(value: Any, component: Component, root: str = _SPEC) -> Any:
    """The pod an overlay is given for ``value``, a place of ``root`` (``"PodSpec"`` or
    ``"PodTemplateSpec"``) that ``component`` describes: ``{spec: ...}`` (with its
    ``metadata`` from :attr:`Component.metadata_fields`) for a spec, the template with
    its spec so for a template.

    >>> pod_of({"labels": {"a": "b"}, "containers": []}, Component(metadata_fields=("labels",)))
    {'spec': {'containers': []}, 'metadata': {'labels': {'a': 'b'}}}
    """
    if root == _TEMPLATE:
        spec: Any = value.get("spec") if is_map(value) else None
        return value if not is_map(spec) else {**value, "spec": _spec_view(spec, component)}
    pod: dict[str, Any] = {"spec": _spec_view(value, component)}
    kept: Any = value if component.metadata_at is None else value.get(component.metadata_at)
    kept = kept if is_map(kept) else {}
    metadata = {key: kept[key] for key in component.metadata_keys() if key in kept}
    if metadata:
        pod["metadata"] = metadata
    return pod


def as_made(value: Any, component: Component, root: str = _SPEC) -> Any:
    """``value`` as the controller makes its pod: a pod spec for a spec, a template for
    a template (what validation reads).

    >>> as_made({"minReplicas": 1, "containers": [{"image": "a"}]},
    ...         Component(own_fields=("minReplicas",), container_name="user-container"))
    {'containers': [{'name': 'user-container', 'image': 'a'}]}
    """
    if not is_map(value):
        return value
    pod = pod_of(value, component, root)
    return pod if root == _TEMPLATE else pod["spec"]


def _refuse(where: str, message: str, keys: tuple[str, ...]) -> ComponentFieldError:
    return ComponentFieldError(f"{where}: {message}", keys=keys)


def _merged(given: Mapping[str, Any], new: Mapping[str, Any], kept: Any) -> dict[str, Any]:
    """``new``'s fields in ``given``'s order (new ones after), with the fields ``kept``
    says are the kind's own taken from ``given``."""
    out: dict[str, Any] = {}
    for key, value in given.items():
        if kept(key):
            out[key] = value
        elif key in new:
            out[key] = new[key]
    for key, value in new.items():
        if key not in out and not kept(key):
            out[key] = value
    return out


def _main_back(
    spec: Mapping[str, Any], component: Component, key: str, containers: list[Any], where: str
) -> tuple[dict[str, Any], list[Any]]:
    """The main container back at ``key``, and the other containers."""
    place = component.container
    assert place is not None
    given = spec[key]
    name = given.get("name") or place.name
    index = next(
        (
            position
            for position, each in enumerate(containers)
            if is_map(each) and (each.get("name") == name if name else position == 0)
        ),
        None,
    )
    if index is None:
        raise _refuse(
            where,
            f"the overlay took away the main container (kept at {key}"
            + (f", named {name}" if name else "")
            + "), which has no other place",
            (key,),
        )
    main = containers[index]
    if not given.get("name") and main.get("name") == place.name:
        main = {field: value for field, value in main.items() if field != "name"}
    clash = tuple(field for field in main if field in place.own_fields)
    if clash:
        raise _refuse(
            where,
            f"the overlay wrote {short_names(clash)} in the main container, a field of "
            f"{key} itself, not of its container",
            clash,
        )
    back = _merged(given, main, lambda field: field in place.own_fields)
    return back, [*containers[:index], *containers[index + 1 :]]


def _spec_back(
    place: Mapping[str, Any], component: Component, view: Any, new: Any, where: str
) -> Any:
    if new is view:
        return place
    spec = _renamed(place, component.containers_at, "containers")
    if not is_map(new):
        raise TypeClashError(
            f"{where}: the overlay left {kind_name(new)} where the pod's spec was",
            expected="a map",
            found=kind_name(new),
        )
    own = tuple(str(key) for key in new if component.is_own(str(key)))
    if own:
        declared = (*component.own_fields, *component.metadata_fields)
        if component.container is not None:
            declared = (*declared, *component.container.at)
        clash = tuple(key for key in own if key in declared)
        if clash:
            raise _refuse(
                where,
                f"the overlay wrote {short_names(clash)} in the pod's spec, a field of the "
                f"kind's own there, not of the pod",
                clash,
            )
        note = f"; {component.unplaced_note}" if component.unplaced_note else ""
        raise _refuse(
            where,
            f"the overlay wrote {short_names(own)}, a pod field the kind keeps no place "
            f"for (its pod fields: {short_names(component.pod_fields or ())}){note}",
            own,
        )
    for field, sources in component.undecided:
        if not _is_set(spec.get(field)) and _is_set(new.get(field)):
            raise _refuse(
                where,
                f"the overlay wrote {field}, which the place has none of: its pod takes "
                f"{field} from {short_names(sources)}, as the workload runs it, and one "
                f"written here would replace that, not add to it; set it there",
                (field,),
            )
    containers = new.get("containers", MISSING)
    if containers is not MISSING and not is_seq(containers):
        raise TypeClashError(
            f"{where}: the overlay left {kind_name(containers)} at spec.containers",
            expected="a list",
            found=kind_name(containers),
        )
    containers = [] if containers is MISSING else list(containers)
    invented: set[str] = set()
    if component.container_name is not None:
        given = {each.get("name") for each in view.get("containers") or () if is_map(each)}
        before = {each.get("name") for each in _containers_given(spec, component) if is_map(each)}
        invented = {name for name in given if name not in before}
    key = _main_key(spec, component)
    main: dict[str, Any] | None = None
    if key is not None:
        main, containers = _main_back(spec, component, key, containers, where)
    if invented:
        containers = [
            {field: value for field, value in each.items() if field != "name"}
            if is_map(each) and each.get("name") in invented
            else each
            for each in containers
        ]
    back = dict(new)
    if main is not None:
        assert key is not None
        back[key] = main
        if containers or "containers" in spec:
            back["containers"] = containers
        else:
            back.pop("containers", None)
    elif "containers" in new:
        back["containers"] = containers
    for field, value in component.defaults:
        if not _is_set(spec.get(field)) and back.get(field) == copy_plain(value):
            if field in spec:  # the value it takes, left as it was: none of its own still
                back[field] = spec[field]
            else:
                back.pop(field, None)
    out = _merged(spec, back, lambda field: component.is_own(field) and field != key)
    return _renamed(out, "containers", component.containers_at)


def _containers_given(spec: Mapping[str, Any], component: Component) -> list[Any]:
    containers: Any = spec.get("containers")
    listed = list(containers) if is_seq(containers) else []
    key = _main_key(spec, component)
    return [spec[key], *listed] if key is not None else listed


def put_back(
    value: Any, component: Component, pod: Any, new: Any, root: str = _SPEC, where: str = ""
) -> Any:
    """``value`` with what an overlay made of ``pod`` (:func:`pod_of` ``value``) written
    back where the kind keeps it; ``value`` itself where the overlay left the pod as it was.

    What has no place is refused, naming it (:class:`ComponentFieldError`): a field
    the kind keeps as its own, a pod field it has no room for, metadata beside a bare
    spec other than its :attr:`Component.metadata_fields`, the main container taken away.

    >>> put_back({"containers": []}, Component(), {"spec": {"containers": []}},
    ...          {"spec": {}, "metadata": {"labels": {"a": "b"}}}, where="spec.worker")
    Traceback (most recent call last):
      ...
    transforms.kube.components.ComponentFieldError: spec.worker: the overlay wrote metadata.labels beside the pod spec, which the kind keeps no place for
    """
    if new is pod:
        return value
    where = where or "the pod spec"
    if not is_map(new):
        raise TypeClashError(
            f"{where}: the overlay left {kind_name(new)} where it was given the pod, as "
            f"{{spec: ...}}",
            expected="a map",
            found=kind_name(new),
        )
    if root == _TEMPLATE:
        spec: Any = value.get("spec") if is_map(value) else None
        if not is_map(spec):  # no spec to keep apart: the template as the overlay left it
            return new
        if "spec" not in new:
            raise _refuse(where, "the overlay took away the pod's spec", ("spec",))
        return {**new, "spec": _spec_back(spec, component, pod.get("spec"), new["spec"], where)}
    extra = tuple(str(key) for key in new if key not in ("spec", "metadata"))
    metadata = new.get("metadata", MISSING)
    keys = component.metadata_keys()
    if metadata is not MISSING and not is_map(metadata):
        extra = (*extra, "metadata")
    elif metadata is not MISSING:
        extra = (
            *extra,
            *(
                f"metadata.{key}"
                for key in metadata
                if key not in keys or (metadata[key] is not None and not is_map(metadata[key]))
            ),
        )
    if extra:
        raise _refuse(
            where,
            f"the overlay wrote {short_names(extra)} beside the pod spec, which the kind "
            f"keeps no place for",
            extra,
        )
    spec = new.get("spec", MISSING)
    if spec is MISSING:
        raise _refuse(where, "the overlay took away the pod's spec", ("spec",))
    out = _spec_back(value, component, pod.get("spec"), spec, where)
    given = pod.get("metadata", {})
    made = metadata if is_map(metadata) else {}
    if given == made:
        return out
    out = dict(out)
    if component.metadata_at is not None:
        had: Any = value.get(component.metadata_at)
        kept = dict(had) if is_map(had) else {}
        for key in keys:
            if key in made:
                kept[key] = made[key]
            else:
                kept.pop(key, None)
        out[component.metadata_at] = kept
        return out
    for key in keys:
        if key in made:
            out[key] = made[key]
        else:
            out.pop(key, None)
    return out


def resolved(
    component: Component, document: Any, parts: tuple[Part, ...], star: int | None
) -> Component:
    """``component`` for its place at ``parts`` of ``document``, whose ``[*]`` is
    ``parts[star]``: each :class:`Inherited` field set by a sibling that passes it on
    is undecided there (named with where it is set), else one set at its ``source``
    is a default (the overlay is given it where the place has none).

    >>> from combinators import path
    >>> templates = Component(inherited=(Inherited("nodeSelector", path("spec.nodeSelector"),
    ...     ("steps",)),))
    >>> workflow = {"spec": {"nodeSelector": {"pool": "a"}, "templates": [{"container": {}}]}}
    >>> place = (Key("spec"), Key("templates"), Index(0))
    >>> resolved(templates, workflow, place, 2).defaults
    (('nodeSelector', pmap({'pool': 'a'})),)
    >>> workflow["spec"]["templates"].append({"steps": [], "nodeSelector": {"pool": "b"}})
    >>> resolved(templates, workflow, place, 2).undecided
    (('nodeSelector', ('spec.templates[1].nodeSelector', 'spec.nodeSelector')),)
    """
    if not component.inherited:
        return component
    siblings: Any = None
    if star is not None:
        siblings = document
        for part in parts[:star]:
            siblings = siblings[part.name] if type(part) is Key else siblings[part.index]  # type: ignore[attr-defined]
    defaults: list[tuple[str, Any]] = []
    undecided: list[tuple[str, tuple[str, ...]]] = []
    for inherited in component.inherited:
        passing: list[str] = []
        if inherited.passed_on_by and is_seq(siblings):
            for index, sibling in enumerate(siblings):
                if (
                    is_map(sibling)
                    and any(key in sibling for key in inherited.passed_on_by)
                    and _is_set(sibling.get(inherited.field))
                ):
                    at = Path((*parts[:star], Index(index), Key(inherited.field)))
                    passing.append(str(at))
        found = [] if inherited.source is None else select(document, inherited.source)
        source = found[0] if found and _is_set(found[0]) else None
        if passing:
            if source is not None:
                passing.append(str(inherited.source))
            undecided.append((inherited.field, tuple(passing)))
        elif source is not None:
            defaults.append((inherited.field, freeze_value(source)))
    if not defaults and not undecided:
        return component
    return replace(component, defaults=tuple(defaults), undecided=tuple(undecided))
