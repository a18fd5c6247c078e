"""The combinators as step kinds: ``{op: upsert, path: spec.nodeSelector, value: {...}}``.

A combinator's step map uses its factory's parameter names, the first one
written ``path`` (``items`` for ``*items``); a nested transform
(``for_each``'s ``transform``, ``when``'s branches) is a step map or a list
of them. ``update_at`` takes a Python function, which YAML cannot hold.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

import combinators
from combinators import ArgumentError, Path, Transform, chain
from combinators.data import is_map
from combinators.transform import describe_step
from transforms.forms.catalog import bind_arguments
from transforms.forms.kinds.base import (
    ANYTHING,
    NOTHING,
    StepKind,
    Steps,
    Written,
    flow,
    items_text,
    no_yaml_form,
    strings_in,
    union,
)

__all__ = ("OP_KINDS",)

_NESTED = ("transform", "then", "otherwise")
Adapt = Callable[[dict[str, Any]], dict[str, Any]]


def _same(arguments: dict[str, Any]) -> dict[str, Any]:
    return arguments


def _build(
    factory: Callable[..., Any], adapt: Adapt, value: Mapping[str, Any], steps: Steps
) -> Transform:
    name = factory.__name__
    params = list(inspect.signature(factory).parameters)
    arguments = {key: item for key, item in value.items() if key != "op"}
    if "path" in arguments and "path" not in params:
        arguments = {params[0]: arguments.pop("path"), **arguments}
    for nested in _NESTED:
        if nested in arguments and isinstance(arguments[nested], (list, Mapping)):
            arguments[nested] = steps.build(arguments[nested])
    bound = bind_arguments(factory, adapt(arguments), name, {params[0]: "path"})
    try:
        built: Transform = factory(*bound.args, **bound.kwargs)
    except ArgumentError as err:
        raise err.in_factory(name) from None
    return built


def _dump(
    factory: Callable[..., Any], adapt: Adapt, step: Transform, steps: Steps
) -> dict[str, Any]:
    args, kwargs = step.params
    found: dict[str, Any] = {"op": factory.__name__}
    position = 0
    for param in inspect.signature(factory).parameters.values():
        if param.kind is param.VAR_POSITIONAL:
            found[param.name] = list(args[position:])
            position = len(args)
        elif position < len(args):
            found["path" if position == 0 else param.name] = args[position]
            position += 1
    found.update(kwargs)
    for key, value in found.items():
        if isinstance(value, Path):
            found[key] = str(value)
        elif key in _NESTED:
            found[key] = steps.dump(value)
        elif callable(value):
            raise no_yaml_form(
                step, f"its {'predicate' if key == 'path' else key} is a Python function"
            )
    return adapt(found)


def _op_kind(
    factory: Callable[..., Any],
    phrase: Callable[[Any, Steps], str],
    writes: Callable[[Any, Steps], Written],
    *examples: Callable[[], Any],
    aliases: tuple[str, ...] = (),
    adapt_in: Adapt = _same,
    adapt_out: Adapt = _same,
    yaml: bool = True,
) -> StepKind:
    def build(value: Any, steps: Steps) -> Transform:
        return _build(factory, adapt_in, value, steps)

    def dump(step: Any, steps: Steps) -> Any:
        return _dump(factory, adapt_out, step, steps)

    return StepKind(
        name=factory.__name__,
        key="op",
        build=build if yaml else None,
        dump=dump,
        phrase=phrase,
        writes=writes,
        examples=examples,
        factory=factory,
        aliases=aliases,
    )


# ---------------------------------------------------------------- what each one writes


def _writes_arguments(step: Any, steps: Steps) -> Written:
    """The path's selector fields and the values (or items) given."""
    args, _ = step.params
    return strings_in(args)


def _writes_nothing(step: Any, steps: Steps) -> Written:
    return NOTHING


def _writes_anything(step: Any, steps: Steps) -> Written:
    return ANYTHING


def _writes_nested(step: Any, steps: Steps) -> Written:
    """What the nested transforms write (a predicate only reads)."""
    args, kwargs = step.params
    nested = [args[1], *(kwargs[key] for key in _NESTED if key in kwargs)]
    return union(*(steps.writes(inner) for inner in nested))


# ---------------------------------------------------------------- adapting YAML


def _items_from_value(arguments: dict[str, Any]) -> dict[str, Any]:
    if "value" in arguments:
        arguments = {**arguments, "items": [arguments["value"]]}
        del arguments["value"]
    return arguments


def _key_in(arguments: dict[str, Any]) -> dict[str, Any]:
    if isinstance(arguments.get("key"), list):
        return {**arguments, "key": tuple(arguments["key"])}  # a composite key
    return arguments


def _key_out(arguments: dict[str, Any]) -> dict[str, Any]:
    if isinstance(arguments.get("key"), tuple):
        return {**arguments, "key": list(arguments["key"])}  # YAML writes a list of fields
    return arguments


# ---------------------------------------------------------------- in words


def _where(step: Any) -> str:
    args, _ = step.params
    return str(args[0]) if args else ""


def _upsert(step: Any, steps: Steps) -> str:
    value = step.params[0][1]
    return (
        f"merge {flow(value)} into {_where(step)}"
        if is_map(value)
        else f"set {_where(step)} to {flow(value)}"
    )


def _replace_at(step: Any, steps: Steps) -> str:
    return f"replace {_where(step)} with {flow(step.params[0][1])}"


def _set_default(step: Any, steps: Steps) -> str:
    return f"set {_where(step)} to {flow(step.params[0][1])} where absent"


def _update_at(step: Any, steps: Steps) -> str:
    args, kwargs = step.params
    default = f" (from {flow(kwargs['default'])} where absent)" if "default" in kwargs else ""
    return f"update {_where(step)} with {describe_step(args[1])}{default}"


def _remove_at(step: Any, steps: Steps) -> str:
    must = step.params[1].get("missing_ok") is False
    return f"remove {_where(step)}" + (", which must be there" if must else "")


def _unique(step: Any) -> str:
    return ", skipping items already there" if step.params[1].get("unique") else ""


def _append_at(step: Any, steps: Steps) -> str:
    return f"append {items_text(len(step.params[0]) - 1)} to {_where(step)}{_unique(step)}"


def _prepend_at(step: Any, steps: Steps) -> str:
    return (
        f"put {items_text(len(step.params[0]) - 1)} at the start of {_where(step)}{_unique(step)}"
    )


def _insert_at(step: Any, steps: Steps) -> str:
    args, kwargs = step.params
    side = "before" if "before" in kwargs else "after"
    return (
        f"insert {items_text(len(args) - 1)} into {_where(step)} {side} {kwargs[side]}"
        f"{_unique(step)}"
    )


def _merge_by(step: Any, steps: Steps) -> str:
    args, kwargs = step.params
    key = kwargs.get("key", "name")
    keys = key if isinstance(key, str) else ", ".join(key)
    return (
        f"merge {items_text(len(args[1]))} into {_where(step)} by {keys}, appending those not there"
    )


def _for_each(step: Any, steps: Steps) -> str:
    return f"for each of {_where(step)}: {steps.phrase(step.params[0][1])}"


def _when(step: Any, steps: Steps) -> str:
    args, kwargs = step.params
    test = f"{args[0]} exists" if isinstance(args[0], str) else describe_step(args[0])
    text = f"if {test}: {steps.phrase(args[1])}"
    if "otherwise" in kwargs:
        text += f"; otherwise: {steps.phrase(kwargs['otherwise'])}"
    return text


def _expect(step: Any, steps: Steps) -> str:
    count = step.params[1].get("count", 1)
    wanted = (
        f"at least {count[:-1]}"
        if isinstance(count, str)
        else f"{count}"
        if isinstance(count, int)
        else describe_step(count)
    )
    return f"check that {_where(step)} matches {wanted}"


# ---------------------------------------------------------------- the kinds


_C = combinators

OP_KINDS: tuple[StepKind, ...] = (
    _op_kind(
        _C.upsert,
        _upsert,
        _writes_arguments,
        lambda: _C.upsert("spec.nodeSelector", {"gpu": "a100"}),
        lambda: _C.upsert(
            "spec.containers[name=trainer].env[name=RANK]", {"value": "${replica_id}"}
        ),
    ),
    _op_kind(
        _C.replace_at,
        _replace_at,
        _writes_arguments,
        lambda: _C.replace_at("spec.tolerations", []),
        aliases=("replace",),
    ),
    _op_kind(
        _C.set_default,
        _set_default,
        _writes_arguments,
        lambda: _C.set_default("spec.restartPolicy", "Never"),
        aliases=("default",),
    ),
    _op_kind(
        _C.update_at,
        _update_at,
        _writes_anything,
        lambda: _C.update_at("spec.containers[0].args", list),
        yaml=False,
    ),
    _op_kind(
        _C.remove_at,
        _remove_at,
        _writes_nothing,
        lambda: _C.remove_at("spec.hostIPC"),
        lambda: _C.remove_at("spec.hostIPC", missing_ok=False),
        aliases=("remove",),
    ),
    _op_kind(
        _C.append_at,
        _append_at,
        _writes_arguments,
        lambda: _C.append_at("spec.tolerations", {"key": "gpu"}, {"key": "b"}, unique=True),
        aliases=("append",),
        adapt_in=_items_from_value,
    ),
    _op_kind(
        _C.prepend_at,
        _prepend_at,
        _writes_arguments,
        lambda: _C.prepend_at("spec.containers[0].args", "-v"),
        aliases=("prepend",),
        adapt_in=_items_from_value,
    ),
    _op_kind(
        _C.insert_at,
        _insert_at,
        _writes_arguments,
        lambda: _C.insert_at("spec.containers", {"name": "s"}, before="name=trainer"),
        aliases=("insert",),
        adapt_in=_items_from_value,
    ),
    _op_kind(
        _C.merge_by,
        _merge_by,
        _writes_arguments,
        lambda: _C.merge_by("spec.containers", [{"name": "trainer", "image": "t:2"}]),
        lambda: _C.merge_by(
            "spec.containers[0].ports",
            [{"containerPort": 80, "protocol": "TCP"}],
            key=("containerPort", "protocol"),
        ),
        adapt_in=_key_in,
        adapt_out=_key_out,
    ),
    _op_kind(
        _C.for_each,
        _for_each,
        _writes_nested,
        lambda: _C.for_each("spec.containers[*]", _C.set_default("imagePullPolicy", "Always")),
    ),
    _op_kind(
        _C.when,
        _when,
        _writes_nested,
        lambda: _C.when(
            "spec.tolerations",
            _C.upsert("spec.nodeSelector", {"a": "b"}),
            otherwise=chain(_C.remove_at("a"), _C.remove_at("b")),
        ),
    ),
    _op_kind(
        _C.expect,
        _expect,
        _writes_nothing,
        lambda: _C.expect("spec.containers[name=trainer]"),
        lambda: _C.expect("spec.containers[*]", "1+"),
    ),
)
"""One kind per combinator a step's ``op`` names, in the order the docs list them."""
