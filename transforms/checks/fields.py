"""Catching field names that are not in the Kubernetes API form, before they vanish.

Upstream TorchX turns an overlay into a ``V1Pod`` and the Python client drops
what it does not know: ``node_selector`` (the client's own snake_case) or a
typo disappears without a word. podfold checks every key of a partial pod,
every key in a pipeline step's path, and every key of a strategic merge
patch, a JSON merge patch and a JSON Patch (its pointers and its values),
against the official schema.

>>> check_overlay_fields({"spec": {"node_selector": {"gpu": "a100"}}})
Traceback (most recent call last):
  ...
transforms.checks.fields.UnknownFieldError: unknown field spec.node_selector; did you mean nodeSelector?
>>> check_overlay_fields({"metadata": {"labels": {"any_label": "ok"}}})  # free-form maps pass
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from combinators import Path
from combinators.data import is_map, is_seq
from combinators.errors import PathError
from combinators.limits import MAX_NAME, short_repr
from combinators.near import did_you_mean
from combinators.paths import End, Index, Key, Part
from transforms.forms.markers import Marker, Remove
from transforms.kube.schema import Field, Schema, Type, schema_for, suggest_field
from transforms.kube.workloads import pod_templates, workload_kind

__all__ = (
    "UnknownFieldError",
    "check_overlay_fields",
    "check_path_fields",
    "check_merge_patch_fields",
    "check_strategic_fields",
    "check_json_patch_fields",
)

_OPERATORS = ("__put__:", "__del__:", "__join__:")
_SET_ORDER, _DELETE_FROM = "$setElementOrder/", "$deleteFromPrimitiveList/"
_VALUED_OPS = ("add", "replace", "test")

Location = tuple[str | int, ...]
"""Where in the checked data a problem sits: its map keys as written and its list indexes."""


class UnknownFieldError(PathError):
    """A key that is no field of the object it sits in; ``suggestion`` is the likely one.

    ``path`` is where the field would be in the pod; ``location`` is where the
    key sits in the data that was checked (the keys as written, operator keys
    and directives included, and list indexes), for pointing into a file.
    """

    def __init__(
        self,
        path: Path,
        suggestion: str | None,
        *,
        shown: str | None = None,
        context: str = "",
        location: Location | None = None,
    ) -> None:
        hint = did_you_mean((suggestion,)) if suggestion else _workload_hint(path)
        where = short_repr(shown or path, quoted=False)
        super().__init__(
            f"{context}unknown field {where}{hint}",
            path=path,
            part_index=len(path.parts) - 1,
            near_misses=(suggestion,) if suggestion else (),
        )
        self.suggestion = suggestion
        self.location: Location = (
            location
            if location is not None
            else tuple(
                part.name if isinstance(part, Key) else part.index
                for part in path.parts
                if isinstance(part, (Key, Index))
            )
        )

    def __str__(self) -> str:
        return self.message + (" [in " + " > ".join(self.steps) + "]" if self.steps else "")


#: Fields of a workload's spec, never of a pod's: a path through one was written from the workload.
_WORKLOAD_FIELDS = frozenset(
    (
        "template",
        "jobTemplate",
        "replicas",
        "selector",
        "serviceName",
        "volumeClaimTemplates",
        "schedule",
        "parallelism",
        "completions",
        "backoffLimit",
        "replicatedJobs",
        "tasks",
        "pytorchReplicaSpecs",
        "tfReplicaSpecs",
        "mpiReplicaSpecs",
        "xgbReplicaSpecs",
        "paddleReplicaSpecs",
        "jaxReplicaSpecs",
        "headGroupSpec",
        "workerGroupSpecs",
        "rayClusterSpec",
        "leaderWorkerTemplate",
    )
)


def _workload_hint(path: Path) -> str:
    """Where ``spec.<field>`` is a workload's field, say that overlays start at the pod.

    >>> print(UnknownFieldError(Path((Key("spec"), Key("template"))), None))
    unknown field spec.template (a workload's field: overlays are written from the pod, as spec.containers, and podfold applies them to each pod template of a workload)
    """
    parts = path.parts
    if (
        len(parts) == 2
        and parts[0] == Key("spec")
        and isinstance(parts[1], Key)
        and parts[1].name in _WORKLOAD_FIELDS
    ):
        return (
            " (a workload's field: overlays are written from the pod, as spec.containers, "
            "and podfold applies them to each pod template of a workload)"
        )
    return ""


def _operator_field(key: str) -> str | None:
    for prefix in _OPERATORS:
        if key.startswith(prefix):
            rest = key[len(prefix) :]
            return rest.split(":", 1)[0] if prefix == "__join__:" else rest
    return key


def _plain_field(key: str) -> str | None:
    return key


def _directive_field(key: str) -> str | None:
    """The field a strategic merge patch key is about; ``None`` for ``$patch``
    and ``$retainKeys``, which name no field (the names they list are checked apart)."""
    for prefix in (_SET_ORDER, _DELETE_FROM):
        if key.startswith(prefix):
            return key[len(prefix) :]
    return None if key.startswith("$") else key


FieldOf = Callable[[str], "str | None"]


class _Checker:
    """One walk over a partial pod or a patch: the schema, how its keys name
    fields, and how a found path is shown."""

    def __init__(
        self,
        schema: Schema,
        field_of: FieldOf,
        shown: Callable[[Path], str] | None = None,
        context: str = "",
        base: Location = (),
    ) -> None:
        self.schema = schema
        self.field_of = field_of
        self.shown = shown
        self.context = context
        self.base = base

    def unknown(
        self, where: tuple[Part, ...], name: str, type_: Type, location: Location
    ) -> UnknownFieldError:
        path = Path((*where, Key(name)))
        return UnknownFieldError(
            path,
            suggest_field(type_, name),
            shown=self.shown(path) if self.shown else None,
            context=self.context,
            location=(*self.base, *location),
        )

    def object(self, value: Any, type_: Type, where: tuple[Part, ...], location: Location) -> None:
        if isinstance(value, Marker):
            if not isinstance(value, Remove):
                self.object(value.value, type_, where, location)
            return
        if is_seq(value):
            for index, item in enumerate(value):
                if not is_seq(item):  # a list of lists holds no object: nothing to name
                    self.object(item, type_, (*where, Index(index)), (*location, index))
            return
        if not is_map(value):
            return
        for key, item in value.items():
            if not isinstance(key, str):
                continue
            if key == "$retainKeys" and self.field_of is _directive_field and is_seq(item):
                for index, name in enumerate(item):
                    if isinstance(name, str) and type_.field(name) is None:
                        raise self.unknown(where, name, type_, (*location, key, index))
                continue
            name = self.field_of(key)
            if name is None:
                continue
            field = type_.field(name)
            if field is None:
                raise self.unknown(where, name, type_, (*location, key))
            if name == key or key.startswith((*_OPERATORS, _SET_ORDER)):
                self.value(item, field, (*where, Key(name)), (*location, key))

    def value(self, value: Any, field: Field, where: tuple[Part, ...], location: Location) -> None:
        while field.kind in ("list", "map") and field.item is not None:
            if field.kind == "map":
                return  # free-form keys: labels, nodeSelector, limits, ...
            field = field.item
        if field.kind == "object" and field.ref:
            self.object(value, self.schema.type(field.ref), where, location)


def check_overlay_fields(partial: Any, kind: str = "Pod", k8s_version: str | None = None) -> None:
    """Raise :class:`UnknownFieldError` for the first key of ``partial`` the schema lacks."""
    schema = schema_for(k8s_version)
    _Checker(schema, _operator_field).object(partial, schema.root(kind), (), ())


def check_merge_patch_fields(patch: Any, kind: str = "Pod", k8s_version: str | None = None) -> None:
    """Raise :class:`UnknownFieldError` for the first key of an RFC 7396 merge
    patch that the schema lacks (a ``null`` that deletes a key names a field too).

    >>> check_merge_patch_fields({"spec": {"hostIPC": None, "host_network": None}})
    Traceback (most recent call last):
      ...
    transforms.checks.fields.UnknownFieldError: unknown field spec.host_network; did you mean hostNetwork?
    """
    schema = schema_for(k8s_version)
    _Checker(schema, _plain_field).object(patch, schema.root(kind), (), ())


def check_strategic_fields(patch: Any, kind: str = "Pod", k8s_version: str | None = None) -> None:
    """Raise :class:`UnknownFieldError` for the first key of a strategic merge
    patch that the schema lacks.

    Directives are no fields: ``$patch`` is skipped, the names ``$retainKeys``
    lists and the field after ``$setElementOrder/`` or
    ``$deleteFromPrimitiveList/`` are checked as field names.

    >>> check_strategic_fields({"spec": {"$retainKeys": ["containers"], "containers": [
    ...     {"name": "t", "$patch": "delete"}], "$setElementOrder/containers": [{"name": "t"}]}})
    >>> check_strategic_fields({"spec": {"$deleteFromPrimitiveList/tolerration": []}})
    Traceback (most recent call last):
      ...
    transforms.checks.fields.UnknownFieldError: unknown field spec.tolerration; did you mean tolerations?

    A patch that names a workload kind, as kustomize writes patches, is
    checked in its pod templates; the rest is the workload's, which the pod
    schema does not describe:

    >>> check_strategic_fields({"kind": "Deployment", "spec": {"replicas": 2, "template": {
    ...     "spec": {"nodeSelectr": {}}}}})
    Traceback (most recent call last):
      ...
    transforms.checks.fields.UnknownFieldError: unknown field spec.template.spec.nodeSelectr; did you mean nodeSelector?
    """
    schema = schema_for(k8s_version)
    checker = _Checker(schema, _directive_field)
    named = patch.get("kind") if is_map(patch) else None
    if (
        kind == "Pod"
        and named not in (None, "Pod", "List")
        and workload_kind(named, patch.get("apiVersion")) is not None
    ):
        for template in pod_templates(patch):
            value, location = patch, []
            for part in template.path.parts:
                step = part.name if isinstance(part, Key) else part.index  # type: ignore[attr-defined]
                value = value[step]
                location.append(step)
            checker.object(
                value, schema.root(template.root), tuple(template.path.parts), tuple(location)
            )
        return
    checker.object(patch, schema.root(kind), (), ())


def _pointer(path: Path) -> str:
    """``path`` as a JSON Pointer: ``/spec/containers/0/env``."""
    return "".join("/" + _token(part) for part in path.parts)


def _token(part: Part) -> str:
    if isinstance(part, Key):
        return part.name.replace("~", "~0").replace("/", "~1")
    return str(part.index) if isinstance(part, Index) else "-"


def check_json_patch_fields(
    ops: Sequence[Any], kind: str = "Pod", k8s_version: str | None = None
) -> None:
    """Raise :class:`UnknownFieldError` for the first RFC 6902 operation whose
    pointer (``path``, ``from``) or value holds a key the schema lacks.

    The error's ``location`` is ``(op index, "path" | "from" | "value", ...)``.
    Pointers that leave the schema's objects (into labels, say) are not checked further.

    >>> check_json_patch_fields([{"op": "add", "path": "/spec/containers/0/env/-",
    ...                           "value": {"name": "A", "value": "1"}}])
    >>> check_json_patch_fields([{"op": "add", "path": "/spec/node_selector", "value": {}}])
    Traceback (most recent call last):
      ...
    transforms.checks.fields.UnknownFieldError: op 0 (add '/spec/node_selector'): unknown field /spec/node_selector; did you mean nodeSelector?
    >>> check_json_patch_fields([{"op": "add", "path": "/spec/affinity",
    ...                           "value": {"node_affinity": {}}}])
    Traceback (most recent call last):
      ...
    transforms.checks.fields.UnknownFieldError: op 0 (add '/spec/affinity'): unknown field /spec/affinity/node_affinity; did you mean nodeAffinity?
    """
    schema = schema_for(k8s_version)
    for index, op in enumerate(ops):
        if not is_map(op):
            continue  # json_patch refuses it, saying why
        context = (
            f"op {index} ({short_repr(op.get('op'), MAX_NAME, quoted=False)} "
            f"{short_repr(op.get('path'))}): "
        )
        target = None
        for member in ("from", "path"):
            pointer = op.get(member)
            if isinstance(pointer, str):
                found = _walk_pointer(pointer, schema, schema.root(kind), context, (index, member))
                target = found if member == "path" else target
        if op.get("op") in _VALUED_OPS and "value" in op and target is not None:
            type_, field, where = target
            prefix = op["path"]

            def shown(path: Path, prefix: str = prefix, depth: int = len(where)) -> str:
                return prefix + _pointer(Path(path.parts[depth:]))

            checker = _Checker(schema, _plain_field, shown, context, (index, "value"))
            if type_ is not None:
                checker.object(op["value"], type_, where, ())
            elif field is not None:
                checker.value(op["value"], field, where, ())


def _walk_pointer(
    pointer: str, schema: Schema, root: Type, context: str, location: Location
) -> tuple[Type | None, Field | None, tuple[Part, ...]] | None:
    """Check a pointer's field names; give what it points at: an object type, or
    a field whose value it is, or ``None`` where it leaves the schema."""
    if pointer and not pointer.startswith("/"):
        return None  # json_patch refuses it, saying why
    tokens = (
        [token.replace("~1", "/").replace("~0", "~") for token in pointer[1:].split("/")]
        if pointer
        else []
    )
    current: Type | None = root
    field: Field | None = None
    where: tuple[Part, ...] = ()
    for token in tokens:
        if current is not None:
            field = current.field(token)
            if field is None:
                path = Path((*where, Key(token)))
                raise UnknownFieldError(
                    path,
                    suggest_field(current, token),
                    shown=_pointer(path),
                    context=context,
                    location=location,
                )
            where = (*where, Key(token))
        elif (
            field is not None
            and field.kind == "list"
            and field.item is not None
            and (token == "-" or token.isdigit())
        ):
            field = field.item
            where = (*where, Index(int(token)) if token.isdigit() else End())
        else:
            return None  # a free-form map, a scalar, or a bad index: no field names here
        current = schema.type(field.ref) if field.kind == "object" and field.ref else None
    return current, (None if current is not None else field), where


def check_path_fields(path: Path, kind: str = "Pod", k8s_version: str | None = None) -> None:
    """Raise :class:`UnknownFieldError` where a key of ``path`` is no field.

    Paths that leave the schema's objects (into labels, say) are not checked further.

    >>> check_path_fields(Path.parse("spec.containers[0].volume_mounts"))
    Traceback (most recent call last):
      ...
    transforms.checks.fields.UnknownFieldError: unknown field spec.containers[0].volume_mounts; did you mean volumeMounts?
    """
    schema = schema_for(k8s_version)
    current: Type | None = schema.root(kind)
    field: Field | None = None
    for index, part in enumerate(path.parts):
        if current is None:
            if field is None or field.kind != "list" or isinstance(part, Key):
                return
            field = field.item
            current = (
                schema.type(field.ref) if field and field.kind == "object" and field.ref else None
            )
            continue
        if not isinstance(part, Key):
            return
        field = current.field(part.name)
        if field is None:
            raise UnknownFieldError(
                Path(path.parts[: index + 1]), suggest_field(current, part.name)
            )
        if field.kind == "object" and field.ref:
            current = schema.type(field.ref)
        else:
            current = None
