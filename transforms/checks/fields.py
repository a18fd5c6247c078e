"""Catching field names that are not in the Kubernetes API form, before they vanish.

Upstream TorchX turns an overlay into a ``V1Pod`` and the Python client drops
what it does not know: ``node_selector`` (the client's own snake_case) or a
typo disappears without a word. podfold checks every key of a partial pod,
and every key in a pipeline step's path, against the official schema.

>>> check_overlay_fields({"spec": {"node_selector": {"gpu": "a100"}}})
Traceback (most recent call last):
  ...
transforms.checks.fields.UnknownFieldError: unknown field spec.node_selector; did you mean nodeSelector?
>>> check_overlay_fields({"metadata": {"labels": {"any_label": "ok"}}})  # free-form maps pass
"""

from __future__ import annotations

from typing import Any

from combinators import Path
from combinators.data import is_map, is_seq
from combinators.errors import PathError
from combinators.paths import Index, Key, Part
from transforms.forms.markers import Marker, Remove
from transforms.kube.schema import Field, Type, schema_for, suggest_field

__all__ = ("UnknownFieldError", "check_overlay_fields", "check_path_fields")

_OPERATORS = ("__put__:", "__del__:", "__join__:")


class UnknownFieldError(PathError):
    """A key that is no field of the object it sits in; ``suggestion`` is the likely one."""

    def __init__(self, path: Path, suggestion: str | None) -> None:
        hint = f"; did you mean {suggestion}?" if suggestion else ""
        super().__init__(f"unknown field {path}{hint}", path=path,
                         part_index=len(path.parts) - 1,
                         near_misses=(suggestion,) if suggestion else ())
        self.suggestion = suggestion

    def __str__(self) -> str:
        return self.message + (" [in " + " > ".join(self.steps) + "]" if self.steps else "")


def _field_name(key: str) -> str:
    for prefix in _OPERATORS:
        if key.startswith(prefix):
            rest = key[len(prefix):]
            return rest.split(":", 1)[0] if prefix == "__join__:" else rest
    return key


def check_overlay_fields(partial: Any, kind: str = "Pod", k8s_version: str | None = None) -> None:
    """Raise :class:`UnknownFieldError` for the first key of ``partial`` the schema lacks."""
    schema = schema_for(k8s_version)
    _check_object(partial, schema.root(kind), (), schema)


def _check_object(value: Any, type_: Type, where: tuple[Part, ...], schema: Any) -> None:
    if isinstance(value, Marker):
        if not isinstance(value, Remove):
            _check_object(value.value, type_, where, schema)
        return
    if is_seq(value):
        for index, item in enumerate(value):
            _check_object(item, type_, (*where, Index(index)), schema)
        return
    if not is_map(value):
        return
    for key, item in value.items():
        if not isinstance(key, str):
            continue
        name = _field_name(key)
        field = type_.field(name)
        here = (*where, Key(name))
        if field is None:
            raise UnknownFieldError(Path(here), suggest_field(type_, name))
        _check_value(item, field, here, schema)


def _check_value(value: Any, field: Field, where: tuple[Part, ...], schema: Any) -> None:
    while field.kind in ("list", "map") and field.item is not None:
        if field.kind == "map":
            return  # free-form keys: labels, nodeSelector, limits, ...
        field = field.item
    if field.kind == "object" and field.ref:
        _check_object(value, schema.type(field.ref), where, schema)


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
            current = schema.type(field.ref) if field and field.kind == "object" and field.ref \
                else None
            continue
        if not isinstance(part, Key):
            return
        field = current.field(part.name)
        if field is None:
            raise UnknownFieldError(Path(path.parts[:index + 1]), suggest_field(current, part.name))
        if field.kind == "object" and field.ref:
            current = schema.type(field.ref)
        else:
            current = None
