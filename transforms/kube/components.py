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
from transforms.kube.kept_apart import PodFieldsAt, outside_of, with_defaults

__all__ = (
    "ContainerPlace",
    "Steps",
    "Inherited",
    "Component",
    "ComponentFieldError",
    "pod_of",
    "put_back",
    "outside_back",
    "check_steps_env",
    "check_overridden",
    "referring_steps",
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
class Steps:
    """Containers a kind runs one after another, kept in a list of their own: a Tekton
    task's ``steps``.

    ``at`` is the key of the list; in the pod an overlay is given they are the first of
    ``spec.containers``, in their order, before the others (a Tekton task's sidecars,
    which run beside them). ``fields``, where set, are the only container fields a step
    has room for (a Tekton step has no ports or probes): an overlay that writes another
    is refused, naming it. The steps stay what they are: an overlay that takes one away
    or puts them in another order is refused; a container it adds runs beside them, as
    one of the others. ``template``, where set, is the key of the place holding fields
    the kind merges into each step (a Tekton task's ``stepTemplate``, the step's own
    winning): the kind's own to an overlay, which sees each step as written, and merged
    into each in the pod validation reads (:func:`as_made`). ``ref``, where set, is the
    key of a step's reference to a container kept elsewhere (a Tekton step's ``ref``, to
    a StepAction, which gives it its image, command, env and mounts): such a step has no
    room for the container fields ``ref_without`` (an overlay that writes one there is
    refused, naming it), and its image is none of validation's concern.
    """

    at: str
    fields: tuple[str, ...] | None = None
    template: str | None = None
    ref: str | None = None
    ref_without: tuple[str, ...] = ()


#: The merge keys of a container's lists that a step template merges into each step's.
_STEP_MERGE_KEYS = {"env": "name", "volumeMounts": "mountPath", "volumeDevices": "devicePath"}


def _merged_over(template: Any, own: Any) -> Any:
    """``own`` over ``template``, as a strategic merge of a container puts a step over its
    template: maps merged, the keyed lists by their key (own's in the template's place),
    any other value own's where it has one."""
    if not is_map(template) or not is_map(own):
        return own
    out = dict(template)
    for field, value in own.items():
        had: Any = out.get(field)
        if is_map(had) and is_map(value):
            out[field] = _merged_over(had, value)
        elif field in _STEP_MERGE_KEYS and is_seq(had) and is_seq(value):
            key = _STEP_MERGE_KEYS[field]
            mine = {each.get(key) for each in value if is_map(each)}
            out[field] = [
                *(each for each in had if not (is_map(each) and each.get(key) in mine)),
                *value,
            ]
        else:
            out[field] = value
    return out


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

    ``steps`` are containers the kind runs one after another (:class:`Steps`).
    ``container_own_fields`` are fields of each of the place's containers that are the
    kind's own, not a container's (a Tekton step's ``script``, ``timeout``...): given to
    no overlay, kept as they are; ``container_keys`` are container fields the kind
    keeps under a key of its own, as ``(field, key)`` pairs (a Tekton step's
    ``resources`` at ``computeResources``).

    ``pod_fields_at``, where set, is where the document keeps pod fields of this place's
    pod apart from it (:class:`~transforms.kube.kept_apart.PodFieldsAt`: a Tekton TaskRun's ``spec.podTemplate``):
    the overlay is given them in the pod's spec, and what it makes of them is written
    there (:func:`outside_back`). A field both places hold (``volumes``) is the place's
    list followed by the other's, whose elements stay where they are.

    ``defaults`` and ``undecided`` are one place's, filled by :func:`resolved`
    from its document: the inherited values the overlay is given, and the
    inherited fields whose value is not known there, with where they are set;
    ``outside_given`` are the fields at :attr:`pod_fields_at` there, with their
    defaults (what validation reads of them).
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
    steps: Steps | None = None
    container_own_fields: tuple[str, ...] = ()
    container_keys: tuple[tuple[str, str], ...] = ()
    pod_fields_at: PodFieldsAt | None = None
    defaults: tuple[tuple[str, Any], ...] = ()
    undecided: tuple[tuple[str, tuple[str, ...]], ...] = ()
    outside_given: Any = None

    def is_own(self, key: str) -> bool:
        """Whether ``key`` of the pod spec (its containers' key named ``containers``) is
        the kind's own there, not a pod spec field."""
        if key in self.own_fields or key == self.metadata_at:
            return True
        if self.steps is not None and key == self.steps.at:
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


def _container_view(container: Any, component: Component) -> Any:
    """A container of the place as the pod has it: without the kind's own fields, each
    field the kind keeps under a key of its own under the container's."""
    if not is_map(container) or not (component.container_own_fields or component.container_keys):
        return container
    keys = {key: field for field, key in component.container_keys}
    return {
        keys.get(name, name): value
        for name, value in container.items()
        if name not in component.container_own_fields
    }


def _container_back(given: Any, new: Any, component: Component) -> Any:
    """``new`` (a container of the pod) where the kind keeps it: each field under the
    kind's key for it, with the kind's own fields of ``given`` kept."""
    if not is_map(new) or not (component.container_own_fields or component.container_keys):
        return new
    keys = dict(component.container_keys)
    renamed = {keys.get(name, name): value for name, value in new.items()}
    if not is_map(given):
        return renamed
    own = component.container_own_fields
    return _merged(given, renamed, lambda field: field in own)


def _outside_view(component: Component, outside: Any) -> dict[str, Any]:
    if component.pod_fields_at is None or not is_map(outside):
        return {}
    return {key: outside[key] for key in component.pod_fields_at.fields if key in outside}


def _spec_view(
    given: Mapping[str, Any], component: Component, outside: Any = None, made: bool = False
) -> dict[str, Any]:
    spec = _renamed(given, component.containers_at, "containers")
    view = {key: value for key, value in spec.items() if not component.is_own(key)}
    if component.steps is not None:
        steps: Any = spec.get(component.steps.at)
        template: Any = spec.get(component.steps.template) if component.steps.template else None
        if made and is_map(template) and is_seq(steps):
            steps = [_merged_over(template, step) for step in steps]
        beside: Any = view.get("containers")
        if is_seq(steps):
            view["containers"] = [*steps, *(beside if is_seq(beside) else ())]
    if component.container_own_fields or component.container_keys:
        listed: Any = view.get("containers")
        if is_seq(listed):
            view["containers"] = [_container_view(each, component) for each in listed]
    for field, value in _outside_view(component, outside).items():
        had: Any = view.get(field)
        if is_seq(had) and is_seq(value):
            view[field] = [*had, *value]
        elif field not in view:
            view[field] = value
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


def pod_of(
    value: Any, component: Component, root: str = _SPEC, outside: Any = None, made: bool = False
) -> Any:
    """The pod an overlay is given for ``value``, a place of ``root`` (``"PodSpec"`` or
    ``"PodTemplateSpec"``) that ``component`` describes: ``{spec: ...}`` (with its
    ``metadata`` from :attr:`Component.metadata_fields`) for a spec, the template with
    its spec so for a template. ``outside`` is the value at
    :attr:`Component.pod_fields_at`, whose pod fields the spec holds too; ``made``, the
    pod as the controller makes it (each step merged with :attr:`Steps.template`).

    >>> pod_of({"labels": {"a": "b"}, "containers": []}, Component(metadata_fields=("labels",)))
    {'spec': {'containers': []}, 'metadata': {'labels': {'a': 'b'}}}
    """
    if root == _TEMPLATE:
        spec: Any = value.get("spec") if is_map(value) else None
        if not is_map(spec):
            return value
        return {**value, "spec": _spec_view(spec, component, outside, made)}
    pod: dict[str, Any] = {"spec": _spec_view(value, component, outside, made)}
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
    outside = component.outside_given
    pod = pod_of(value, component, root, None if outside is None else copy_plain(outside), True)
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
        outside = () if component.pod_fields_at is None else component.pod_fields_at.fields
        raise _refuse(
            where,
            f"the overlay wrote {short_names(own)}, a pod field the kind keeps no place "
            f"for (its pod fields: "
            f"{short_names(tuple(dict.fromkeys((*(component.pod_fields or ()), *outside))))})"
            f"{note}",
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
    if component.steps is not None:
        steps, containers = _steps_back(spec, component, containers, where)
        if steps is not None:
            back[component.steps.at] = steps
    if component.container_own_fields or component.container_keys:
        listed: Any = spec.get("containers")
        given_by_name = {
            each.get("name"): each for each in listed or () if is_map(each) and each.get("name")
        }
        containers = [
            _container_back(
                given_by_name.get(each.get("name")) if is_map(each) else None, each, component
            )
            for each in containers
        ]
    if main is not None:
        assert key is not None
        back[key] = main
        if containers or "containers" in spec:
            back["containers"] = containers
        else:
            back.pop("containers", None)
    elif "containers" in new and (containers or component.steps is None or "containers" in spec):
        back["containers"] = containers
    else:  # only steps, none beside them, as before
        back.pop("containers", None)
    for field, value in component.defaults:
        if not _is_set(spec.get(field)) and back.get(field) == copy_plain(value):
            if field in spec:  # the value it takes, left as it was: none of its own still
                back[field] = spec[field]
            else:
                back.pop(field, None)
    stepped = None if component.steps is None else component.steps.at
    out = _merged(spec, back, lambda field: component.is_own(field) and field not in (key, stepped))
    return _renamed(out, "containers", component.containers_at)


def _steps_back(
    spec: Mapping[str, Any], component: Component, containers: list[Any], where: str
) -> tuple[list[Any] | None, list[Any]]:
    """The steps back at their key, each where the kind keeps its fields, and the other
    containers; the steps must be the first containers still, as they were, in order."""
    place = component.steps
    assert place is not None
    given: Any = spec.get(place.at)
    if not is_seq(given):
        return None, containers
    count = len(given)
    head, rest = containers[:count], containers[count:]
    names = [each.get("name") if is_map(each) else None for each in given]
    if [each.get("name") if is_map(each) else None for each in head] != names:
        raise _refuse(
            where,
            f"the overlay took away {place.at} or put them in another order (the pod's "
            f"first containers are {place.at}, run one after another: "
            f"{short_names(tuple(str(name) for name in names))}); they have no other place",
            (place.at,),
        )

    def step_at(index: int, name: Any) -> str:
        return f"{place.at}[{index}]" if name is None else f"{place.at}[name={name}]"

    if place.fields is not None:
        room = {"name", *place.fields}
        for index, (step, name) in enumerate(zip(head, names, strict=True)):
            extra = tuple(str(field) for field in step if field not in room)
            if extra:
                raise _refuse(
                    where,
                    f"the overlay wrote {short_names(extra)} in {step_at(index, name)}, "
                    f"a container field a step has no field for (its fields: "
                    f"{short_names(place.fields)})",
                    extra,
                )
    if place.ref is not None:
        for index, (old, step, name) in enumerate(zip(given, head, names, strict=True)):
            if not is_map(old) or old.get(place.ref) is None or not is_map(step):
                continue
            had = _container_view(old, component)
            wrote = tuple(field for field in place.ref_without if step.get(field) != had.get(field))
            if wrote:
                raise _refuse(
                    where,
                    f"the overlay wrote {short_names(wrote)} in {step_at(index, name)}, "
                    f"which takes its container from its {place.ref} (the {place.ref}'s "
                    f"fields are its own, and a step with one has no room for them)",
                    wrote,
                )
    steps = [_container_back(old, new, component) for old, new in zip(given, head, strict=True)]
    return steps, rest


def referring_steps(value: Any, component: Component) -> tuple[int, ...]:
    """The positions of the steps of ``value`` (a place ``component`` describes) that take
    their container from their :attr:`Steps.ref`: in the pod, the containers at those
    positions, whose image the referred container gives.

    >>> referring_steps({"steps": [{"name": "a"}, {"ref": {"name": "git-clone"}}]},
    ...     Component(steps=Steps("steps", ref="ref")))
    (1,)
    """
    place = component.steps
    if place is None or place.ref is None or not is_map(value):
        return ()
    steps: Any = value.get(place.at)
    return tuple(
        index
        for index, step in enumerate(steps if is_seq(steps) else ())
        if is_map(step) and step.get(place.ref) is not None
    )


def check_steps_env(
    component: Component,
    value: Any,
    pod: Any,
    new: Any,
    given: Any,
    defaults: Any = MISSING,
    role: str | None = None,
    where: str = "",
) -> None:
    """Refuse a step's env var that the overlay added or changed (``pod`` to ``new``, the
    pod of the place ``value``) where the env vars the kind gives each step after its own
    (:attr:`~transforms.kube.kept_apart.PodFieldsAt.steps_env` of ``given``, or of ``defaults``) name it: theirs wins.

    >>> from combinators import path
    >>> place = PodFieldsAt(path("spec.podTemplate"), ("nodeSelector",), steps_env="env")
    >>> steps = Component(steps=Steps("steps"), pod_fields_at=place)
    >>> value = {"steps": [{"name": "a"}]}
    >>> pod = pod_of(value, steps)
    >>> new = {"spec": {"containers": [{"name": "a", "env": [{"name": "X", "value": "1"}]}]}}
    >>> check_steps_env(steps, value, pod, new, {"env": [{"name": "X", "value": "2"}]})
    Traceback (most recent call last):
      ...
    transforms.kube.components.ComponentFieldError: the pod spec: the overlay wrote env X in steps[name=a], which spec.podTemplate.env sets for every step after a step's own; set it there
    """
    place = component.pod_fields_at
    if place is None or place.steps_env is None or component.steps is None or new is pod:
        return
    names: dict[str, str] = {}
    for source, at in ((defaults, str(place.defaults)), (given, place.describe(role))):
        listed: Any = source.get(place.steps_env) if is_map(source) else None
        for each in listed if is_seq(listed) else ():
            if is_map(each) and isinstance(each.get("name"), str):
                names[each["name"]] = f"{at}.{place.steps_env}"
    steps: Any = value.get(component.steps.at) if is_map(value) else None
    if not names or not is_seq(steps) or not is_map(new) or not is_map(new.get("spec")):
        return
    before: Any = pod["spec"].get("containers") or []
    after: Any = new["spec"].get("containers")
    for old, made in zip(before[: len(steps)], after if is_seq(after) else (), strict=False):
        had: Any = old.get("env") if is_map(old) else None
        env: Any = made.get("env") if is_map(made) else None
        for var in env if is_seq(env) else ():
            if not is_map(var) or var.get("name") not in names or var in (had or ()):
                continue
            raise _refuse(
                where or "the pod spec",
                f"the overlay wrote env {var['name']} in {component.steps.at}"
                f"[name={made.get('name')}], which {names[var['name']]} sets for every step "
                f"after a step's own; set it there",
                ("env",),
            )


def check_overridden(
    component: Component, value: Any, pod: Any, new: Any, holder: Any, where: str = ""
) -> None:
    """Refuse a change of a container's resources where a value beside the pod fields'
    place (in ``holder``, :func:`~transforms.kube.kept_apart.outside_holder`) sets them instead
    (:attr:`~transforms.kube.kept_apart.PodFieldsAt.resources_by`): a TaskRun's ``stepSpecs`` by the step's name.

    >>> from combinators import path
    >>> place = PodFieldsAt(path("spec.podTemplate"), ("nodeSelector",),
    ...     resources_by=(("stepSpecs", "steps"),))
    >>> steps = Component(steps=Steps("steps"), pod_fields_at=place)
    >>> value = {"steps": [{"name": "a"}]}
    >>> pod = pod_of(value, steps)
    >>> new = {"spec": {"containers": [{"name": "a", "resources": {"limits": {"cpu": "1"}}}]}}
    >>> check_overridden(steps, value, pod, new, {"stepSpecs": [{"name": "a"}]}, "spec.taskSpec")
    Traceback (most recent call last):
      ...
    transforms.kube.components.ComponentFieldError: spec.taskSpec: the overlay changed the resources of a (at steps), which stepSpecs[name=a] sets instead; set them there
    """
    place = component.pod_fields_at
    if place is None or not place.resources_by or not is_map(holder) or new is pod:
        return
    if not is_map(new) or not is_map(new.get("spec")) or not is_map(value):
        return
    before: Any = pod["spec"].get("containers") or []
    after: Any = new["spec"].get("containers")
    after = list(after) if is_seq(after) else []
    steps: Any = value.get(component.steps.at) if component.steps is not None else None
    count = len(steps) if is_seq(steps) else 0
    old_by_name = {each.get("name"): each for each in before if is_map(each)}
    for key, containers in place.resources_by:
        setting: Any = holder.get(key)
        if setting is None:
            continue
        stepped = component.steps is not None and containers == component.steps.at
        for made in after[:count] if stepped else after[count:]:
            if not is_map(made):
                continue
            name = made.get("name")
            old: Any = old_by_name.get(name)
            if (old.get("resources") if is_map(old) else None) == made.get("resources"):
                continue
            if is_seq(setting):
                if not any(is_map(each) and each.get("name") == name for each in setting):
                    continue
                there = f"{key}[name={name}]"
            else:
                there = key
            raise _refuse(
                where or "the pod spec",
                f"the overlay changed the resources of {name} (at {containers}), which "
                f"{there} sets instead; set them there",
                ("resources",),
            )


def outside_back(
    component: Component,
    pod: Any,
    new: Any,
    given: Any,
    defaults: Any = MISSING,
    role: str | None = None,
    where: str = "",
) -> tuple[Any, Any]:
    """What an overlay made of ``pod`` (:func:`pod_of` given the fields at
    :attr:`Component.pod_fields_at`: ``given`` there, with ``defaults``, as
    :func:`~transforms.kube.kept_apart.outside_of` reads them) split in two: the pod without those fields, for
    :func:`put_back`, and the new value there (``given`` itself where the overlay left
    the fields as they were). A field changed is written there whole; one taken away
    that the pod takes from ``defaults``, and an element of a field both places hold
    that the overlay changed where it is kept apart, are refused, naming it.

    >>> from combinators import path
    >>> steps = Component(steps=Steps("steps"), pod_fields=("containers", "volumes"),
    ...     pod_fields_at=PodFieldsAt(path("spec.podTemplate"), ("nodeSelector", "volumes")))
    >>> given = {"steps": [{"name": "a"}]}
    >>> pod = pod_of(given, steps, outside={"volumes": [{"name": "v"}]})
    >>> pod
    {'spec': {'containers': [{'name': 'a'}], 'volumes': [{'name': 'v'}]}}
    >>> made = {"spec": {**pod["spec"], "nodeSelector": {"pool": "gpu"}}}
    >>> outside_back(steps, pod, made, {"volumes": [{"name": "v"}]})
    ({'spec': {'containers': [{'name': 'a'}]}}, {'volumes': [{'name': 'v'}], 'nodeSelector': {'pool': 'gpu'}})
    """
    place = component.pod_fields_at
    if place is None or new is pod or not is_map(new):
        return new, given
    spec: Any = new.get("spec")
    if not is_map(spec):
        return new, given
    kept = _outside_view(component, with_defaults(place, given, defaults))
    out: dict[str, Any] = dict(given) if is_map(given) else {}
    rest = dict(spec)
    there = place.describe(role)
    for field in place.fields:
        both = field in component.pod_fields if component.pod_fields is not None else False
        value = rest.pop(field, MISSING)
        if both:
            theirs: Any = kept.get(field)
            if is_seq(theirs) and theirs:
                mine = list(value) if is_seq(value) else []
                names = {each.get("name") for each in theirs if is_map(each)}
                for each in theirs:
                    if each not in mine:
                        name = each.get("name") if is_map(each) else None
                        raise _refuse(
                            where or "the pod spec",
                            f"the overlay changed or took away {field}[name={name}], kept at "
                            f"{there}.{field}; change it there",
                            (field,),
                        )
                mine = [each for each in mine if not (is_map(each) and each.get("name") in names)]
                if mine:
                    rest[field] = mine
            elif value is not MISSING:
                rest[field] = value
            continue
        if value == kept.get(field, MISSING):
            continue  # as it was: where it is kept, or its default
        default: Any = defaults.get(field, MISSING) if is_map(defaults) else MISSING
        if not _is_set(value) and _is_set(default):
            raise _refuse(
                where or "the pod spec",
                f"the overlay took away {field}, which the pod takes from "
                f"{place.defaults}.{field} where {there} has none; take it away there",
                (field,),
            )
        if value is MISSING:
            out.pop(field, None)
        else:
            out[field] = value
    if out == (dict(given) if is_map(given) else {}):
        out = given
    elif not is_map(given):
        out = out or MISSING
    return {**new, "spec": rest}, out


def _containers_given(spec: Mapping[str, Any], component: Component) -> list[Any]:
    containers: Any = spec.get("containers")
    listed = list(containers) if is_seq(containers) else []
    if component.steps is not None:
        steps: Any = spec.get(component.steps.at)
        listed = [*(steps if is_seq(steps) else ()), *listed]
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
    component: Component,
    document: Any,
    parts: tuple[Part, ...],
    star: int | None,
    role: str | None = None,
) -> Component:
    """``component`` for its place at ``parts`` of ``document``, whose ``[*]`` is
    ``parts[star]``: each :class:`Inherited` field set by a sibling that passes it on
    is undecided there (named with where it is set), else one set at its ``source``
    is a default (the overlay is given it where the place has none). The fields kept at
    :attr:`Component.pod_fields_at` for the pod of ``role``, with their defaults, are its
    :attr:`Component.outside_given`.

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
    if component.pod_fields_at is not None:
        given, kept = outside_of(document, component.pod_fields_at, role)
        merged = with_defaults(component.pod_fields_at, given, kept)
        if is_map(merged):
            component = replace(component, outside_given=freeze_value(merged))
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
