"""A step that acts on the workload object as a step kind:
``{workload_level: {op: upsert, path: metadata.labels, value: {...}}}``.

Its value is one step map or a list of them (applied in order), as a
``for_each``'s ``transform`` is; the step is
:func:`~transforms.kube.scopes.workload_level` of what they build. In
words it is its steps', said to be on the workload object; it writes what
they write (on a pod, the pod is the workload, and they write there).

>>> from combinators import upsert
>>> from transforms.forms.kinds.registry import build, dump, phrase
>>> step = build({"workload_level": {"op": "upsert", "path": "metadata.labels",
...                                  "value": {"team": "ml"}}})
>>> step
workload_level(upsert('metadata.labels', {'team': 'ml'}))
>>> phrase(step)
'on the workload object: merge {team: ml} into metadata.labels'
>>> dump(step)
{'workload_level': {'op': 'upsert', 'path': 'metadata.labels', 'value': {'team': 'ml'}}}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from combinators import ArgumentTypeError, Path, Transform, chain, replace_at, upsert
from combinators.limits import short_names, short_repr
from combinators.paths import Key
from transforms.forms.kinds.base import StepKind, Steps, Written
from transforms.kube.scopes import workload_level

__all__ = ("WORKLOAD_LEVEL_KIND", "KEY")

KEY = "workload_level"
"""The key of the step map, the factory's name."""


def _build(value: Any, steps: Steps) -> Transform:
    extra = [key for key in value if key != KEY]
    if extra:
        raise ArgumentTypeError(
            f"a {KEY} step takes no {short_names(map(str, extra))} (only "
            f"{KEY}: a step map or a list of them)",
            argument=str(extra[0]),
            factory=KEY,
            value=value[extra[0]],
        )
    inner = value[KEY]
    if not isinstance(inner, (Mapping, list)):
        raise ArgumentTypeError(
            f"{KEY} holds a step map ({{op: upsert, path: metadata.labels, "
            f"value: ...}}) or a list of them, got {short_repr(inner)}",
            argument=KEY,
            factory=KEY,
            value=inner,
        )
    return workload_level(steps.build(inner))


def _dump(step: Any, steps: Steps) -> Any:
    return {KEY: steps.dump(step.transform)}


def _phrase(step: Any, steps: Steps) -> str:
    return f"on the workload object: {steps.phrase(step.transform)}"


def _writes(step: Any, steps: Steps) -> Written:
    return steps.writes(step.transform)


def _queue_label(key: str) -> Path:
    return Path([Key("metadata"), Key("labels"), Key(key)])


WORKLOAD_LEVEL_KIND = StepKind(
    name=KEY,
    key=KEY,
    build=_build,
    dump=_dump,
    phrase=_phrase,
    writes=_writes,
    examples=(
        lambda: workload_level(upsert("metadata.labels", {"team": "ml"})),
        lambda: workload_level(
            chain(
                replace_at(_queue_label("kueue.x-k8s.io/queue-name"), "team-a"),
                replace_at(_queue_label("kueue.x-k8s.io/priority-class"), "high"),
            )
        ),
    ),
    factory=workload_level,
)
"""A step on the workload object around the pods (:mod:`transforms.kube.scopes`)."""
