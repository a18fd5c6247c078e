"""Pipelines: overlays written as a list of steps, one combinator or recipe each.

A step is a map with exactly one of these keys:

==================  ================================================================
``op``              a combinator by name, its arguments beside it:
                    ``{op: upsert, path: spec.nodeSelector, value: {gpu: a100}}``
``recipe``          a recipe from the installed catalogs:
                    ``{recipe: add_toleration, key: nvidia.com/gpu}``
``overlay``         a partial pod, merged by TorchX's rules
``json_patch``      RFC 6902 operations
``merge_patch``     an RFC 7396 merge patch
``strategic``       a Kubernetes strategic merge patch (``kind:`` Pod, PodSpec, ...)
==================  ================================================================

>>> step = build_step({"op": "append_at", "path": "spec.tolerations",
...                    "items": [{"key": "nvidia.com/gpu", "operator": "Exists"}], "unique": True})
>>> step
append_at('spec.tolerations', {'key': 'nvidia.com/gpu', 'operator': 'Exists'}, unique=True)
>>> build_step({"op": "upsert", "path": "spec.nodeSelector", "value": {"gpu": "a100"}})({})
{'spec': {'nodeSelector': {'gpu': 'a100'}}}
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Mapping
from typing import Any

import combinators
from combinators import Transform, chain
from transforms.forms.catalog import bind_arguments, build_recipe
from transforms.forms.partial import overlay
from transforms.forms.patches import json_patch, merge_patch, strategic_merge

__all__ = ("build_step", "build_pipeline", "OPS", "STEP_KINDS")

OPS: Mapping[str, Callable[..., Any]] = {
    name: getattr(combinators, name)
    for name in ("upsert", "replace_at", "set_default", "update_at", "remove_at", "append_at",
                 "prepend_at", "insert_at", "merge_by", "for_each", "when", "expect")
}
"""The combinators a step's ``op`` names (``update_at`` is not reachable from
YAML, which holds no functions)."""

_ALIASES = {"replace": "replace_at", "default": "set_default", "remove": "remove_at",
            "append": "append_at", "prepend": "prepend_at", "insert": "insert_at"}

STEP_KINDS = ("op", "recipe", "overlay", "json_patch", "merge_patch", "strategic")


def build_pipeline(steps: list[Any]) -> Transform | Callable[[Any], Any]:
    """Chain the steps, in the order listed."""
    return chain(*(build_step(step) for step in steps))


def build_step(step: Mapping[str, Any]) -> Any:
    """Build one step's transform; a bad step raises ``TypeError``/``ValueError``/``LookupError``."""
    if not isinstance(step, Mapping):
        raise TypeError(f"a pipeline step is a map such as {{op: upsert, path: ..., value: ...}}, "
                        f"got {step!r}")
    kinds = [kind for kind in STEP_KINDS if kind in step]
    if len(kinds) != 1:
        close = [c for key in step for c in difflib.get_close_matches(str(key), STEP_KINDS, n=1)]
        hint = f"; did you mean {', '.join(close)}?" if close and not kinds else ""
        raise ValueError(f"a step has exactly one of {', '.join(STEP_KINDS)}; this one has "
                         f"{', '.join(kinds) or 'none'}{hint} (keys: {', '.join(map(str, step))})")
    kind = kinds[0]
    rest = {key: value for key, value in step.items() if key != kind}
    if kind == "op":
        return _build_op(step["op"], rest)
    if kind == "recipe":
        return build_recipe(str(step["recipe"]), rest)
    if kind == "strategic":
        _no_extra(kind, rest, {"kind"})
        return strategic_merge(step["strategic"], **rest)
    _no_extra(kind, rest, set())
    if kind == "overlay":
        return overlay(step["overlay"])
    if kind == "json_patch":
        return json_patch(step["json_patch"])
    return merge_patch(step["merge_patch"])


def _no_extra(kind: str, rest: Mapping[str, Any], allowed: set[str]) -> None:
    extra = [key for key in rest if key not in allowed]
    if extra:
        raise TypeError(f"a {kind} step takes no {', '.join(map(str, extra))}"
                        + (f" (only {', '.join(sorted(allowed))})" if allowed else ""))


def _build_op(name: Any, arguments: dict[str, Any]) -> Any:
    op = _ALIASES.get(name, name)
    factory = OPS.get(op) if isinstance(op, str) else None
    if op == "update_at":
        raise LookupError("op 'update_at' takes a Python function, which YAML cannot hold; "
                          "use replace_at, upsert or a recipe")
    if factory is None:
        known = [n for n in OPS if n != "update_at"]
        close = difflib.get_close_matches(str(name), [*known, *_ALIASES], n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise LookupError(f"unknown op {name!r}{hint} (ops: {', '.join(known)})")
    params = list(inspect.signature(factory).parameters)
    arguments = dict(arguments)
    if "path" in arguments and "path" not in params:
        arguments = {params[0]: arguments.pop("path"), **arguments}
    for nested in ("transform", "then", "otherwise"):
        if nested in arguments and isinstance(arguments[nested], list):
            arguments[nested] = build_pipeline(arguments[nested])
        elif nested in arguments and isinstance(arguments[nested], Mapping):
            arguments[nested] = build_step(arguments[nested])
    if op == "merge_by" and isinstance(arguments.get("key"), list):
        arguments["key"] = tuple(arguments["key"])  # a composite key
    if op in ("append_at", "prepend_at", "insert_at") and "value" in arguments:
        arguments["items"] = [arguments.pop("value")]
    try:
        bound = bind_arguments(factory, arguments, f"op {op!r}")
    except TypeError as err:
        # YAML writes the first parameter (``target``, ``predicate``) as ``path``
        first = params[0]
        message = str(err).replace(f"'{first}'", "'path'").replace(
            f"it takes: {first}", "it takes: path")
        raise TypeError(message) from None
    return factory(*bound.args, **bound.kwargs)
