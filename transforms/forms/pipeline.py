"""Pipelines: overlays written as a list of steps, one combinator or recipe each.

A step is a map with exactly one of these keys:

==================  ================================================================
``op``              a combinator by name, its arguments beside it:
                    ``{op: upsert, path: spec.nodeSelector, value: {gpu: a100}}``
``recipe``          a recipe from the catalog (the installed ones by default):
                    ``{recipe: add_toleration, key: nvidia.com/gpu}``
``overlay``         a partial pod, merged by TorchX's rules
``json_patch``      RFC 6902 operations
``merge_patch``     an RFC 7396 merge patch
``strategic``       a Kubernetes strategic merge patch (``kind:`` Pod, PodSpec, ...)
==================  ================================================================

Each kind of step is defined once, in :mod:`transforms.forms.kinds`. A bad
step is an :class:`~combinators.ArgumentError` naming the argument (an
:class:`~transforms.errors.UnknownNameError`, also a ``LookupError``, for an
unknown op or recipe).

>>> step = build_step({"op": "append_at", "path": "spec.tolerations",
...                    "items": [{"key": "nvidia.com/gpu", "operator": "Exists"}], "unique": True})
>>> step
append_at('spec.tolerations', {'key': 'nvidia.com/gpu', 'operator': 'Exists'}, unique=True)
>>> build_step({"op": "upsert", "path": "spec.nodeSelector", "value": {"gpu": "a100"}})({})
{'spec': {'nodeSelector': {'gpu': 'a100'}}}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from combinators import ArgumentTypeError, Transform
from combinators.limits import short_repr
from transforms.forms import kinds
from transforms.forms.catalog import Catalog

__all__ = ("build_step", "build_pipeline", "OPS", "STEP_KEYS")

OPS = kinds.OPS
"""The combinators a step's ``op`` names (``update_at`` is not reachable from
YAML, which holds no functions)."""

STEP_KEYS = kinds.STEP_KEYS
"""The keys that say a step's kind, one per step."""


def build_pipeline(steps: list[Any], catalog: Catalog | None = None) -> Transform:
    """Chain the steps, in the order listed; an error names the step it is in.

    >>> build_pipeline([{"op": "remove", "path": "spec.hostIPC"}])
    remove_at('spec.hostIPC')
    >>> build_pipeline([{"op": "remove", "path": "a"}, {"op": "upsrt", "path": "b"}])
    Traceback (most recent call last):
      ...
    transforms.errors.UnknownNameError: unknown op 'upsrt'; did you mean upsert? (ops: ...) [in step 2 of 2]
    """
    if not isinstance(steps, list):
        raise ArgumentTypeError(
            f"a pipeline is a list of steps, got {short_repr(steps)}",
            argument="steps",
            factory="build_pipeline",
            value=steps,
        )
    return kinds.build(steps, catalog)


def build_step(step: Mapping[str, Any], catalog: Catalog | None = None) -> Transform:
    """Build one step's transform; ``catalog`` maps recipe names to factories.

    >>> build_step({"op": "remove", "path": "spec.hostIPC", "missing_ok": False})
    remove_at('spec.hostIPC', missing_ok=False)
    >>> build_step({"op": "upsert", "path": "a"})
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentTypeError: upsert(): value: missing a required argument: 'value' (it takes: path, value)
    """
    if isinstance(step, list):  # a list is a pipeline, not a step
        raise ArgumentTypeError(
            f"a pipeline step is a map such as {{op: upsert, path: ..., "
            f"value: ...}}, got {short_repr(step)}",
            argument="step",
            value=step,
        )
    return kinds.build(step, catalog)
