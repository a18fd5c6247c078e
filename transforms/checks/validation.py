"""Validate a pod (API form) against the official schema and its own references, fast.

Two kinds of checks, both in one call to :func:`problems`:

* **schema**: unknown fields (with a suggestion), wrong JSON types, enum
  values, missing required fields, int-or-string values and quantities
  (``"2Gi"``, ``"500m"``; not ``"2 GB"``), 32/64-bit integer ranges;
* **references**: every volumeMount names a volume; container names are unique
  across containers, initContainers and ephemeralContainers; volume names are
  unique; no resource request exceeds its limit (``"1Gi"`` equals
  ``"1024Mi"``); an env name set twice in one container is a *warning*: the
  API server accepts it (the last value wins) and only warns, so we do too.

Deliberate differences from a JSON Schema validator on the official schema:
unknown fields are reported (the plain schema allows them, its ``-strict``
twin does not), quantity strings must parse, and integers must fit their
int32/int64 format. The schema of each version is compiled once into
closures and reused for every pod.

>>> pod = {"spec": {"containers": [{"name": "trainer", "image": "x",
...        "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}]}],
...        "node_selector": {"gpu": "a100"}}}
>>> for problem in problems(pod):
...     print(problem)
spec.node_selector: unknown field spec.node_selector; did you mean nodeSelector?
spec.containers[name=trainer].volumeMounts[name=dshm].name: no volume named 'dshm'; volumes are: (none)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from combinators.errors import TransformError
from combinators.paths import Index, Key, Match, Part, Path
from transforms.kube.quantity import is_quantity
from transforms.kube.quantity import quantity_value as parse_quantity
from transforms.kube.schema import Field, Schema, Type, schema_for, suggest_field, to_api_form

__all__ = ("Problem", "PodValidationError", "problems", "validate_pod", "parse_quantity")

# A path while walking: nested pairs (parent, key), rendered only for problems.
_Trail = Any
# A raw finding: (trail, key, message, found, severity); message may be a callable.
_Raw = tuple[_Trail, Any, Any, Any, str]
_Checker = Callable[[Any, _Trail, Any, list[_Raw]], None]

_EXACT: dict[str, type] = {"string": str, "boolean": bool}
_INT_RANGE = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a pod: where (podfold path grammar), what, what was found.

    ``severity`` is ``"error"`` or ``"warning"``; only errors make
    :func:`validate_pod` raise. ``check`` says which kind of check found it:
    ``"schema"`` (the official schema, with the differences the module names)
    or ``"reference"`` (volumes, container names, requests and limits, env).

    >>> print(Problem("spec.containers[0].name", "missing required field name"))
    spec.containers[0].name: missing required field name
    """

    path: str
    message: str
    found: Any = None
    severity: str = "error"
    check: str = "schema"

    def __str__(self) -> str:
        prefix = "warning: " if self.severity == "warning" else ""
        return f"{self.path}: {prefix}{self.message}"


class PodValidationError(TransformError, ValueError):
    """A pod failed validation; ``problems`` lists every problem found.

    >>> try:
    ...     validate_pod({"spec": {"containers": [{"image": "x"}]}})
    ... except PodValidationError as err:
    ...     print(err)
    pod is invalid (1 problem):
      spec.containers[0].name: missing required field name
    """

    def __init__(self, found: list[Problem]) -> None:
        count = len(found)
        lines = [f"pod is invalid ({count} problem{'s' if count != 1 else ''}):"]
        lines += [f"  {problem}" for problem in found]
        super().__init__("\n".join(lines))
        self.problems = tuple(found)


# ---------------------------------------------------------------------------
# compiling the schema into closures

def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _expected(want: str) -> Callable[[Any], str]:
    return lambda found: f"expected {want}, found {_type_name(found)} {_short(found)}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_integral(value: Any) -> bool:
    kind = type(value)
    if kind is int:
        return True
    if kind is bool:
        return False
    if kind is float:
        return bool(value.is_integer())
    return isinstance(value, int) and not isinstance(value, bool)


class _Compiler:
    """Turns the types of one schema into checker closures, one per type, lazily."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self.objects: dict[str, _Checker] = {}

    def object_checker(self, type_: Type) -> _Checker:
        found = self.objects.get(type_.name)
        if found is not None:
            return found
        table: dict[str, tuple[_Checker | None, bool, Field]] = {}
        # a field's Python type when one exact type check settles it, else its table entry
        lookup: dict[str, type | tuple[_Checker | None, bool, Field]] = {}
        required = type_.required
        wrong = _expected("object")
        unknown = _Unknown(type_)

        def check(value: Any, trail: _Trail, key: Any, out: list[_Raw]) -> None:
            if type(value) is not dict:
                out.append((trail, key, wrong, value, "error"))
                return
            here = (trail, key)
            get = lookup.get
            for name, item in value.items():
                entry = get(name)
                if entry is type(item):  # the common case: a string or a boolean, as declared
                    continue
                if entry is None:
                    out.append((here, name, unknown, item, "error"))
                    continue
                if type(entry) is not tuple:
                    entry = table[name]
                if item is None:
                    if not entry[1]:
                        out.append((here, name, _expected_for(entry[2]), item, "error"))
                elif entry[0] is not None:
                    entry[0](item, here, name, out)
            if required:
                for name in required:
                    if name not in value:
                        out.append((here, name, f"missing required field {name}", None,
                                    "error"))

        self.objects[type_.name] = check  # before compiling fields: types may recurse
        for name, field in type_.fields.items():
            table[name] = (self.checker(field), field.nullable, field)
            if field.kind == "scalar" and not field.enum and field.json_type in _EXACT:
                lookup[name] = _EXACT[field.json_type]
            else:
                lookup[name] = table[name]
        return check

    def checker(self, field: Field) -> _Checker | None:
        """The checker of a non-null value of this field; ``None`` accepts anything."""
        kind = field.kind
        if kind == "object" and field.ref is not None:
            return self.object_checker(self.schema.types[field.ref])
        if kind == "list" and field.item is not None:
            return _list_checker(self.checker(field.item), field.item)
        if kind == "map" and field.item is not None:
            return _map_checker(self.checker(field.item), field.item)
        if kind == "quantity":
            return _check_quantity
        if kind == "int-or-string":
            return _check_int_or_string
        if kind == "scalar":
            return _scalar_checker(field)
        if field.json_type == "object":  # free-form, but still an object
            return _check_free_object
        return None


def _expected_for(field: Field) -> Callable[[Any], str]:
    names = {"object": "object", "list": "list", "map": "object", "any": field.json_type or "value",
             "int-or-string": "integer or string", "quantity": "quantity"}
    return _expected(field.json_type or "value" if field.kind == "scalar" else names[field.kind])


class _Unknown:
    """The message of an unknown field; knows the type, to suggest a field."""

    __slots__ = ("type_",)

    def __init__(self, type_: Type) -> None:
        self.type_ = type_

    def text(self, where: str, key: str) -> str:
        suggestion = suggest_field(self.type_, key)
        hint = f"; did you mean {suggestion}?" if suggestion is not None else ""
        return f"unknown field {where}{hint}"


def _list_checker(item_check: _Checker | None, item: Field) -> _Checker:
    nullable = item.nullable
    wrong = _expected("list")
    wrong_item = _expected_for(item)
    if item_check is _check_string:
        def check_strings(value: Any, trail: _Trail, key: Any, out: list[_Raw]) -> None:
            if type(value) is not list:
                out.append((trail, key, wrong, value, "error"))
                return
            for element in value:
                if type(element) is not str:
                    break
            else:
                return
            _list_items((trail, key), value, item_check, nullable, wrong_item, out)
        return check_strings

    def check(value: Any, trail: _Trail, key: Any, out: list[_Raw]) -> None:
        if type(value) is not list:
            out.append((trail, key, wrong, value, "error"))
            return
        here = (trail, key)
        for index, element in enumerate(value):
            if element is None:
                if not nullable:
                    out.append((here, index, wrong_item, element, "error"))
            elif item_check is not None:
                item_check(element, here, index, out)
    return check


def _list_items(here: _Trail, value: list[Any], item_check: _Checker, nullable: bool,
                wrong_item: Callable[[Any], str], out: list[_Raw]) -> None:
    for index, element in enumerate(value):
        if element is None:
            if not nullable:
                out.append((here, index, wrong_item, element, "error"))
        else:
            item_check(element, here, index, out)


def _map_checker(item_check: _Checker | None, item: Field) -> _Checker:
    nullable = item.nullable
    wrong = _expected("object")
    wrong_item = _expected_for(item)
    if item_check is _check_string:
        def check_strings(value: Any, trail: _Trail, key: Any, out: list[_Raw]) -> None:
            if type(value) is not dict:
                out.append((trail, key, wrong, value, "error"))
                return
            for element in value.values():
                if type(element) is not str:
                    break
            else:
                return
            here = (trail, key)
            for name, element in value.items():
                if element is None:
                    if not nullable:
                        out.append((here, name, wrong_item, element, "error"))
                else:
                    item_check(element, here, name, out)
        return check_strings

    def check(value: Any, trail: _Trail, key: Any, out: list[_Raw]) -> None:
        if type(value) is not dict:
            out.append((trail, key, wrong, value, "error"))
            return
        here = (trail, key)
        for name, element in value.items():
            if element is None:
                if not nullable:
                    out.append((here, name, wrong_item, element, "error"))
            elif item_check is not None:
                item_check(element, here, name, out)
    return check


def _scalar_checker(field: Field) -> _Checker:
    json_type, enum = field.json_type, field.enum
    wrong = _expected(json_type or "value")
    if enum:
        allowed = frozenset(enum)

        def check_enum(value: Any, trail: _Trail, key: Any, out: list[_Raw]) -> None:
            if type(value) is not str and not isinstance(value, str):
                out.append((trail, key, wrong, value, "error"))
            elif value not in allowed:
                out.append((trail, key, f"{value!r} is not one of: "
                            + ", ".join(map(str, enum)), value, "error"))
        return check_enum
    if json_type == "string":
        return _check_string
    if json_type == "boolean":
        return _check_boolean
    if json_type == "number":
        return _check_number
    if json_type == "integer":
        low, high = _INT_RANGE.get(field.format or "int64", _INT_RANGE["int64"])
        fmt = field.format or "int64"

        def check_integer(value: Any, trail: _Trail, key: Any, out: list[_Raw]) -> None:
            if type(value) is not int and not _is_integral(value):
                out.append((trail, key, wrong, value, "error"))
            elif not low <= value <= high:
                out.append((trail, key, f"{value} is out of range for {fmt}", value, "error"))
        return check_integer
    raise ValueError(f"unexpected JSON type {json_type!r} for {field.name}")  # pragma: no cover


_WRONG_STRING, _WRONG_BOOLEAN = _expected("string"), _expected("boolean")
_WRONG_NUMBER, _WRONG_INT_OR_STRING = _expected("number"), _expected("integer or string")
_WRONG_OBJECT = _expected("object")


def _check_string(value: Any, trail: _Trail, key: Any, out: list[_Raw]) -> None:
    if type(value) is not str and not isinstance(value, str):
        out.append((trail, key, _WRONG_STRING, value, "error"))


def _check_boolean(value: Any, trail: _Trail, key: Any, out: list[_Raw]) -> None:
    if type(value) is not bool:
        out.append((trail, key, _WRONG_BOOLEAN, value, "error"))


def _check_number(value: Any, trail: _Trail, key: Any, out: list[_Raw]) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        out.append((trail, key, _WRONG_NUMBER, value, "error"))


def _check_free_object(value: Any, trail: _Trail, key: Any, out: list[_Raw]) -> None:
    if not isinstance(value, dict):
        out.append((trail, key, _WRONG_OBJECT, value, "error"))


def _check_int_or_string(value: Any, trail: _Trail, key: Any, out: list[_Raw]) -> None:
    if type(value) is not str and not isinstance(value, str) and not _is_integral(value):
        out.append((trail, key, _WRONG_INT_OR_STRING, value, "error"))


def _bad_quantity(value: Any) -> str:
    if isinstance(value, str):
        return f"{value!r} is not a quantity (such as '500m', '2Gi', '1.5')"
    return f"expected quantity, found {_type_name(value)} {_short(value)}"


def _check_quantity(value: Any, trail: _Trail, key: Any, out: list[_Raw]) -> None:
    kind = type(value)
    if kind is str:
        if not is_quantity(value):
            out.append((trail, key, _bad_quantity, value, "error"))
    elif kind is not int and kind is not float and parse_quantity(value) is None:
        out.append((trail, key, _bad_quantity, value, "error"))


@functools.cache
def _root_checker(version: str, kind: str) -> _Checker:
    schema = schema_for(version)
    return _Compiler(schema).object_checker(schema.root(kind))


# ---------------------------------------------------------------------------
# reference checks

_CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")


def _references(spec: dict[str, Any], trail: _Trail, out: list[_Raw]) -> None:
    volumes = spec.get("volumes")
    volume_names: list[str] = []
    if type(volumes) is list:
        volumes_trail: _Trail = (trail, "volumes")
        for index, volume in enumerate(volumes):
            if type(volume) is dict and type(name := volume.get("name")) is str:
                if name in volume_names:
                    out.append(((volumes_trail, index), "name", f"duplicate volume name {name!r}",
                                name, "error"))
                volume_names.append(name)
    known = frozenset(volume_names)
    seen_containers: dict[str, str] = {}
    for list_name in _CONTAINER_LISTS:
        containers = spec.get(list_name)
        if type(containers) is not list:
            continue
        list_trail: _Trail = (trail, list_name)
        for index, container in enumerate(containers):
            if type(container) is not dict:
                continue
            here = (list_trail, index)
            name = container.get("name")
            if type(name) is str:
                if name in seen_containers:
                    out.append((here, "name", f"duplicate container name {name!r} "
                                f"(also in {seen_containers[name]})", name, "error"))
                else:
                    seen_containers[name] = list_name
            image = container.get("image")
            if not (type(image) is str and image):
                # the schema leaves it optional (controllers fill it in); a pod's
                # containers must have one: a phantom container has none
                out.append((here, "image", "a container of a pod needs an image", image,
                            "error"))
            _container_references(container, here, known, volume_names, out)
    resources = spec.get("resources")
    if type(resources) is dict:
        _requests_within_limits(resources, (trail, "resources"), out)


def _container_references(container: dict[str, Any], here: _Trail, known: frozenset[str],
                          volume_names: list[str], out: list[_Raw]) -> None:
    for mounts_field in ("volumeMounts", "volumeDevices"):
        mounts = container.get(mounts_field)
        if type(mounts) is not list:
            continue
        for index, mount in enumerate(mounts):
            if type(mount) is dict:
                volume = mount.get("name")
                if type(volume) is str and volume not in known:
                    present = ", ".join(volume_names) or "(none)"
                    out.append((((here, mounts_field), index), "name",
                                f"no volume named {volume!r}; volumes are: {present}",
                                volume, "error"))
    env = container.get("env")
    if type(env) is list and len(env) > 1:
        names: set[str] = set()
        for index, var in enumerate(env):
            if type(var) is dict and type(name := var.get("name")) is str:
                if name in names:
                    out.append((((here, "env"), index), "name",
                                f"env {name!r} is set more than once; the last one wins",
                                name, "warning"))
                names.add(name)
    resources = container.get("resources")
    if type(resources) is dict:
        _requests_within_limits(resources, (here, "resources"), out)


def _requests_within_limits(resources: dict[str, Any], here: _Trail, out: list[_Raw]) -> None:
    requests, limits = resources.get("requests"), resources.get("limits")
    if type(requests) is not dict or type(limits) is not dict:
        return
    for resource, request in requests.items():
        if resource not in limits:
            continue
        limit_text = limits[resource]
        if request == limit_text:
            continue
        wanted, limit = parse_quantity(request), parse_quantity(limit_text)
        if wanted is not None and limit is not None and wanted > limit:
            out.append(((here, "requests"), resource,
                        f"request {request} for {resource} exceeds its limit {limit_text}",
                        request, "error"))


# ---------------------------------------------------------------------------
# rendering

def _keys(trail: _Trail, key: Any) -> list[Any]:
    keys = [key]
    while trail is not None:
        trail, step = trail
        keys.append(step)
    keys.reverse()
    return keys[1:]  # the first step is the root's placeholder key


def _render(root: Any, keys: list[Any]) -> tuple[str, list[Part]]:
    parts: list[Part] = []
    current = root
    for key in keys:
        if type(key) is int and isinstance(current, list):
            element = current[key] if 0 <= key < len(current) else None
            name = element.get("name") if isinstance(element, dict) else None
            unique = isinstance(name, str) and sum(
                1 for other in current
                if isinstance(other, dict) and other.get("name") == name) == 1
            parts.append(Match((("name", name),)) if unique else Index(key))
            current = element
        else:
            parts.append(Key(str(key)))
            current = current.get(key) if isinstance(current, dict) else None
    return str(Path(parts)), parts


def _problem(root: Any, raw: _Raw, check: str) -> Problem:
    trail, key, message, found, severity = raw
    keys = _keys(trail, key)
    where, _ = _render(root, keys)
    if isinstance(message, _Unknown):
        text = message.text(where, str(key))
    elif callable(message):
        text = message(found)
    else:
        text = message
    return Problem(where, text, found, severity, check)


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _thaw(item) for key, item in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return [_thaw(item) for item in value]
    return value


def _as_plain(pod: Any, kind: str, version: str) -> Any:
    if not isinstance(pod, Mapping) and hasattr(pod, "to_dict"):
        return to_api_form(pod, kind, version=version)
    return _thaw(pod)


def problems(pod: Any, *, kind: str = "Pod", k8s_version: str | None = None) -> list[Problem]:
    """Every problem of ``pod`` (API form), errors and warnings: schema ones first.

    A kubernetes client object (``V1Pod``) is checked in its API form
    (:func:`~transforms.kube.schema.to_api_form`), other mappings and sequences
    (pyrsistent's) as plain data. ``kind`` is ``"Pod"``, ``"PodSpec"`` or ``"PodTemplateSpec"``;
    ``k8s_version`` picks the schema (default the newest bundled). Paths
    name list elements by ``[name=...]`` when their name is unique, else by index.

    >>> problems({"spec": {"containers": [{"name": "c", "image": "x",
    ...     "resources": {"requests": {"memory": "2Gi"}, "limits": {"memory": "1024Mi"}}}]}})
    [Problem(path='spec.containers[name=c].resources.requests.memory', message='request 2Gi for memory exceeds its limit 1024Mi', found='2Gi', severity='error', check='reference')]
    >>> problems({"containers": [{"name": "c", "ports": [{"containerPort": "80"}]}]}, kind="PodSpec")[0].message
    "expected integer, found string '80'"
    """
    schema = schema_for(k8s_version)
    check = _root_checker(schema.version, kind)
    if type(pod) is not dict:
        pod = _as_plain(pod, kind, schema.version)
    out: list[_Raw] = []
    check(pod, None, None, out)
    refs: list[_Raw] = []
    if type(pod) is dict:
        if kind == "PodSpec":
            _references(pod, (None, None), refs)
        elif type(spec := pod.get("spec")) is dict:
            _references(spec, ((None, None), "spec"), refs)
    found = [_problem(pod, raw, "schema") for raw in out]
    if refs:
        found += [_problem(pod, raw, "reference") for raw in refs]
    return found


def validate_pod(pod: Any, *, kind: str = "Pod", k8s_version: str | None = None) -> Any:
    """Return ``pod`` itself if it has no errors, else raise :class:`PodValidationError`.

    Warnings (an env name set twice) do not raise. Accepts what
    :func:`problems` accepts and gives back the very object it was given.

    >>> pod = {"spec": {"containers": [{"name": "c", "image": "x"}]}}
    >>> validate_pod(pod) is pod
    True
    """
    errors = [found for found in problems(pod, kind=kind, k8s_version=k8s_version)
              if found.severity == "error"]
    if errors:
        raise PodValidationError(errors)
    return pod
