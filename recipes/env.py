"""Where an environment variable's value comes from, beyond plain text.

:func:`~recipes.containers.add_env` takes plain values (text, numbers,
booleans) and these value objects, each turned into the ``valueFrom`` of
a Kubernetes ``EnvVar``. They are frozen, so recipes holding them stay
immutable values. From YAML, write the ``valueFrom`` map itself, or use
``add_env_from_secret`` / ``add_env_from_config_map`` / ``add_env_from_field``.

>>> SecretKey("hf-token", "token").value_from()
{'secretKeyRef': {'name': 'hf-token', 'key': 'token'}}
>>> FieldRef("metadata.name").value_from()
{'fieldRef': {'fieldPath': 'metadata.name'}}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Union

from recipes._check import bad_type, bad_value, check_bool, check_nonempty_string, naming_factory

__all__ = (
    "SecretKey",
    "ConfigMapKey",
    "FieldRef",
    "ResourceFieldRef",
    "EnvSource",
    "EnvValue",
    "env_var",
    "VALUE_FROM_KINDS",
)

VALUE_FROM_KINDS = ("secretKeyRef", "configMapKeyRef", "fieldRef", "resourceFieldRef")


@dataclass(frozen=True)
class SecretKey:
    """The value of ``key`` in the Secret ``name`` (``valueFrom.secretKeyRef``)."""

    name: str
    key: str
    optional: bool = False

    def __post_init__(self) -> None:
        with naming_factory("SecretKey"):
            check_nonempty_string("name", self.name)
            check_nonempty_string("key", self.key)
            check_bool("optional", self.optional)

    def value_from(self) -> dict[str, Any]:
        """The ``valueFrom`` map."""
        ref: dict[str, Any] = {"name": self.name, "key": self.key}
        if self.optional:
            ref["optional"] = True
        return {"secretKeyRef": ref}


@dataclass(frozen=True)
class ConfigMapKey:
    """The value of ``key`` in the ConfigMap ``name`` (``valueFrom.configMapKeyRef``).

    >>> ConfigMapKey("settings", "level", optional=True).value_from()
    {'configMapKeyRef': {'name': 'settings', 'key': 'level', 'optional': True}}
    """

    name: str
    key: str
    optional: bool = False

    def __post_init__(self) -> None:
        with naming_factory("ConfigMapKey"):
            check_nonempty_string("name", self.name)
            check_nonempty_string("key", self.key)
            check_bool("optional", self.optional)

    def value_from(self) -> dict[str, Any]:
        """The ``valueFrom`` map."""
        ref: dict[str, Any] = {"name": self.name, "key": self.key}
        if self.optional:
            ref["optional"] = True
        return {"configMapKeyRef": ref}


@dataclass(frozen=True)
class FieldRef:
    """A field of the pod, through the downward API (``valueFrom.fieldRef``).

    For example ``metadata.name``, ``metadata.namespace``, ``status.podIP``,
    ``spec.nodeName`` or ``metadata.labels['torchx.pytorch.org/replica-id']``.
    """

    field_path: str

    def __post_init__(self) -> None:
        with naming_factory("FieldRef"):
            check_nonempty_string("field_path", self.field_path)

    def value_from(self) -> dict[str, Any]:
        """The ``valueFrom`` map."""
        return {"fieldRef": {"fieldPath": self.field_path}}


@dataclass(frozen=True)
class ResourceFieldRef:
    """A container's resource request or limit (``valueFrom.resourceFieldRef``).

    >>> ResourceFieldRef("limits.memory", divisor="1Mi").value_from()
    {'resourceFieldRef': {'resource': 'limits.memory', 'divisor': '1Mi'}}
    """

    resource: str
    container: str | None = None
    divisor: str | None = None

    def __post_init__(self) -> None:
        with naming_factory("ResourceFieldRef"):
            check_nonempty_string("resource", self.resource)
            if self.container is not None:
                check_nonempty_string("container", self.container)
            if self.divisor is not None:
                from transforms.kube.quantity import check_quantity

                check_quantity("divisor", self.divisor, positive=True)

    def value_from(self) -> dict[str, Any]:
        """The ``valueFrom`` map."""
        ref: dict[str, Any] = {"resource": self.resource}
        if self.container is not None:
            ref["containerName"] = self.container
        if self.divisor is not None:
            ref["divisor"] = self.divisor
        return {"resourceFieldRef": ref}


EnvSource = Union[SecretKey, ConfigMapKey, FieldRef, ResourceFieldRef]
EnvValue = Union[str, int, float, bool, EnvSource, Mapping[str, Any]]


def env_var(name: str, value: EnvValue) -> dict[str, Any]:
    """A checked ``EnvVar`` map: plain values become text, sources a ``valueFrom``.

    A map is taken as the ``valueFrom`` itself (the YAML spelling).

    >>> env_var("NCCL_DEBUG", "INFO"), env_var("WORLD", 8), env_var("FAST", True)
    ({'name': 'NCCL_DEBUG', 'value': 'INFO'}, {'name': 'WORLD', 'value': '8'}, {'name': 'FAST', 'value': 'true'})
    >>> env_var("TOKEN", {"secretKeyRef": {"name": "hf", "key": "token"}})
    {'name': 'TOKEN', 'valueFrom': {'secretKeyRef': {'name': 'hf', 'key': 'token'}}}
    >>> env_var("X", {"secretRef": {"name": "hf"}})
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: env var 'X': a map value is a valueFrom with exactly one of secretKeyRef, configMapKeyRef, fieldRef, resourceFieldRef, got {'secretRef': {'name': 'hf'}}
    """
    check_nonempty_string("env var name", name)
    if isinstance(value, (SecretKey, ConfigMapKey, FieldRef, ResourceFieldRef)):
        return {"name": name, "valueFrom": value.value_from()}
    if isinstance(value, Mapping):
        if (
            len(value) != 1
            or next(iter(value)) not in VALUE_FROM_KINDS
            or not isinstance(next(iter(value.values())), Mapping)
        ):
            bad_value(
                f"env var {name!r}",
                value,
                f"env var {name!r}: a map value is a "
                f"valueFrom with exactly one of {', '.join(VALUE_FROM_KINDS)}, "
                f"got {dict(value)!r}",
            )
        return {"name": name, "valueFrom": _thaw(value)}
    if isinstance(value, bool):
        return {"name": name, "value": "true" if value else "false"}
    if isinstance(value, (str, int, float)):
        return {"name": name, "value": str(value)}
    bad_type(
        f"env var {name!r}",
        value,
        "text, a number, a boolean, a SecretKey, "
        "ConfigMapKey, FieldRef, ResourceFieldRef or a valueFrom map",
    )


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _thaw(item) for key, item in value.items()}
    return value
