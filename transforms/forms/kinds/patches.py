"""Kubernetes' three patch formats as step kinds: ``{json_patch: [...]}``,
``{merge_patch: {...}}`` and ``{strategic: {...}, kind: PodSpec}``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from combinators import ArgumentTypeError, Transform
from transforms.forms.kinds.base import StepKind, Steps, Written, flow, strings_in
from transforms.forms.patches import json_patch, merge_patch, strategic_merge

__all__ = ("PATCH_KINDS",)


def _arguments(value: Mapping[str, Any], key: str, allowed: tuple[str, ...]) -> dict[str, Any]:
    """The step's other keys, as keyword arguments; any but ``allowed`` is refused."""
    rest = {name: item for name, item in value.items() if name != key}
    extra = [name for name in rest if name not in allowed]
    if extra:
        only = f" (only {', '.join(allowed)})" if allowed else ""
        raise ArgumentTypeError(
            f"a {key} step takes no {', '.join(map(str, extra))}{only}",
            argument=str(extra[0]),
            factory=key,
            value=rest[extra[0]],
        )
    return rest


def _patch_kind(
    name: str,
    key: str,
    factory: Callable[..., Transform],
    phrase: Callable[[Any, Steps], str],
    writes: Callable[[Any], Written],
    *examples: Callable[[], Transform],
    options: tuple[str, ...] = (),
) -> StepKind:
    def build(value: Any, steps: Steps) -> Transform:
        return factory(value[key], **_arguments(value, key, options))

    def dump(step: Any, steps: Steps) -> Any:
        args, kwargs = step.params
        return {key: args[0], **kwargs}

    return StepKind(
        name=name,
        key=key,
        build=build,
        dump=dump,
        phrase=phrase,
        writes=lambda step, steps: writes(step.params[0][0]),
        examples=examples,
        factory=factory,
    )


def _json_patch_phrase(step: Any, steps: Steps) -> str:
    ops = ", ".join(f"{op.get('op')} {op.get('path')}" for op in step.params[0][0])
    return f"apply a JSON Patch: {ops}" if ops else "apply an empty JSON Patch"


def _json_patch_writes(ops: Any) -> Written:
    # only add and replace bring new values; copy and move reuse the pod's own
    return strings_in([op.get("value") for op in ops if op.get("op") in ("add", "replace")])


def _merge_patch_phrase(step: Any, steps: Steps) -> str:
    return f"apply a JSON merge patch {flow(step.params[0][0])}"


def _strategic_phrase(step: Any, steps: Steps) -> str:
    args, kwargs = step.params
    return f"apply a strategic merge patch to the {kwargs.get('kind', 'Pod')}: {flow(args[0])}"


PATCH_KINDS: tuple[StepKind, ...] = (
    _patch_kind(
        "json_patch",
        "json_patch",
        json_patch,
        _json_patch_phrase,
        _json_patch_writes,
        lambda: json_patch(
            [
                {"op": "add", "path": "/spec/hostIPC", "value": True},
                {"op": "remove", "path": "/spec/hostNetwork"},
            ]
        ),
    ),
    _patch_kind(
        "merge_patch",
        "merge_patch",
        merge_patch,
        _merge_patch_phrase,
        strings_in,
        lambda: merge_patch({"spec": {"hostIPC": None, "nodeSelector": {"g": "a"}}}),
    ),
    _patch_kind(
        "strategic_merge",
        "strategic",
        strategic_merge,
        _strategic_phrase,
        strings_in,
        lambda: strategic_merge({"spec": {"containers": [{"name": "t", "image": "2"}]}}),
        lambda: strategic_merge({"containers": []}, kind="PodSpec"),
        options=("kind",),
    ),
)
"""One kind per patch format."""
