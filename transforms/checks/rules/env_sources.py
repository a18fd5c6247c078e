"""Rule ``env-sources``: where env vars take their values from, as the API server checks it
(``validateEnvVarValueFrom``, ``ValidateEnvFrom``).

A ``valueFrom`` names exactly one source (``fieldRef``, ``secretKeyRef``,
...) and goes with no ``value``: a merge that sets a value on an env var read
from a secret keeps both. An envFrom entry names one of ``configMapRef`` and
``secretRef``; its ``prefix`` is an env name (printable ASCII but '=' since
Kubernetes 1.32).

>>> out = []
>>> check(Spec({"containers": [{"env": [{"name": "TOKEN", "value": "x",
...        "valueFrom": {"secretKeyRef": {"name": "s", "key": "t"}}}]}]}, None), out)
>>> [(key, message) for _, key, message, _, _ in out]
[('value', "env 'TOKEN' has a value and a valueFrom (secretKeyRef); valueFrom may not be given when value is not empty")]
"""

from __future__ import annotations

from functools import cache
from typing import Any

from combinators.limits import short_repr
from transforms.checks.problems import Raw, Trail
from transforms.checks.rules._formats import env_name
from transforms.checks.rules._spec import Spec
from transforms.kube.schema import schema_for

__all__ = ("ID", "DESCRIPTION", "check")

ID = "env-sources"
DESCRIPTION = (
    "a valueFrom has one source and no value beside it; an envFrom has one source "
    "and a prefix that is an env name"
)


def check(pod: Spec, out: list[Raw]) -> None:
    """Report every valueFrom and envFrom entry the API server refuses."""
    for here, _, container in pod.containers:
        env = container.get("env")
        if type(env) is list and env:
            try:
                sourced = [var for var in env if "valueFrom" in var]
            except TypeError:  # a var that is no map: look closely
                sourced = env
            # the usual case, settled at once: each valueFrom alone beside its name, one source
            for var in sourced:
                source = var.get("valueFrom") if type(var) is dict else None
                if (
                    type(source) is not dict
                    or len(var) != 2
                    or len(source) != 1
                    or None in source.values()
                ):
                    _env(env, (here, "env"), pod.version, out)
                    break
        env_from = container.get("envFrom")
        if type(env_from) is list and env_from:
            _env_from(env_from, (here, "envFrom"), pod.release >= (1, 32), pod.version, out)


def _env(env: list[Any], trail: Trail, version: str, out: list[Raw]) -> None:
    for index, var in enumerate(env):
        if type(var) is dict and "valueFrom" in var:
            _value_from(var, var.get("name"), (trail, index), version, out)


def _value_from(var: dict[str, Any], name: Any, at: Trail, version: str, out: list[Raw]) -> None:
    source = var["valueFrom"]
    if type(source) is not dict:
        return  # null: no valueFrom; anything else is the schema check's
    what = f"env {short_repr(name)}" if type(name) is str else "an env var"
    found = [key for key in _fields(version, "env") if source.get(key) is not None]
    value = var.get("value")
    if not found:
        out.append(
            (
                at,
                "valueFrom",
                f"the valueFrom of {what} names no source; it needs one "
                f"of: {', '.join(_fields(version, 'env'))}",
                source,
                "error",
            )
        )
    elif type(value) is str and value:
        out.append(
            (
                at,
                "value",
                f"{what} has a value and a valueFrom ({found[0]}); valueFrom "
                f"may not be given when value is not empty",
                value,
                "error",
            )
        )
    elif len(found) > 1:
        out.append(
            (
                (at, "valueFrom"),
                found[1],
                f"the valueFrom of {what} has more than one "
                f"source: {' and '.join(found)}; it takes one",
                found,
                "error",
            )
        )


def _env_from(
    env_from: list[Any], trail: Trail, relaxed: bool, version: str, out: list[Raw]
) -> None:
    for index, source in enumerate(env_from):
        if type(source) is not dict:
            continue
        at = (trail, index)
        prefix = source.get("prefix")
        if type(prefix) is str and prefix and (wrong := env_name(prefix, relaxed)) is not None:
            out.append(
                (at, "prefix", f"envFrom prefix {short_repr(prefix)} {wrong}", prefix, "error")
            )
        found = [key for key in _fields(version, "envFrom") if source.get(key) is not None]
        if not found:
            out.append(
                (
                    trail,
                    index,
                    f"an envFrom entry names no source; it needs one of: "
                    f"{', '.join(_fields(version, 'envFrom'))}",
                    source,
                    "error",
                )
            )
        elif len(found) > 1:
            out.append(
                (
                    at,
                    found[1],
                    f"an envFrom entry has more than one source: "
                    f"{' and '.join(found)}; it takes one",
                    found,
                    "error",
                )
            )


@cache
def _fields(version: str, field: str) -> tuple[str, ...]:
    """The sources an env var's valueFrom (``field`` ``env``) or an envFrom entry can name,
    as the schema of ``version`` has them."""
    keys: tuple[Any, ...] = ("containers", None, field, None)
    if field == "env":
        keys += ("valueFrom",)
    found = schema_for(version).type_at("PodSpec", keys)
    assert found is not None
    return tuple(name for name in sorted(found.fields) if name != "prefix")
