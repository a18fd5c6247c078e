"""The registry of step kinds: which kind a step is, and the four questions
(build, dump, phrase, writes) answered by that kind.

Adding a kind is writing one :class:`~transforms.forms.kinds.base.StepKind`
and listing it in :data:`STEP_KINDS`.

>>> from combinators import upsert
>>> kind_of(upsert("spec.nodeSelector", {"gpu": "a100"}))
<step kind 'upsert'>
>>> build({"op": "default", "path": "spec.restartPolicy", "value": "Never"})
set_default('spec.restartPolicy', 'Never')
>>> dump(upsert("spec.nodeSelector", {"gpu": "a100"}))
{'op': 'upsert', 'path': 'spec.nodeSelector', 'value': {'gpu': 'a100'}}
>>> phrase(upsert("spec.nodeSelector", {"gpu": "a100"}))
'merge {gpu: a100} into spec.nodeSelector'
>>> sorted(writes(upsert("spec.containers[name=t].env[name=RANK].value", "${replica_id}")))
['${replica_id}', 'RANK', 't']
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from combinators import ArgumentError, ArgumentTypeError, Transform
from combinators.limits import short_names, short_repr
from combinators.near import did_you_mean, near_misses
from combinators.transform import TransformLike
from transforms.errors import UnknownNameError
from transforms.forms.catalog import resolve_catalog
from transforms.forms.kinds.base import Catalog, StepKind, Written
from transforms.forms.kinds.levels import WORKLOAD_LEVEL_KIND
from transforms.forms.kinds.named import COMPOSITION_KIND, FUNCTION_KIND, OTHER_KIND, RECIPE_KIND
from transforms.forms.kinds.ops import OP_KINDS
from transforms.forms.kinds.partials import OVERLAY_KIND
from transforms.forms.kinds.patches import PATCH_KINDS

__all__ = (
    "STEP_KINDS",
    "STEP_KEYS",
    "OPS",
    "kind_of",
    "yaml_kind",
    "build",
    "dump",
    "phrase",
    "writes",
    "may_write_macros",
)

STEP_KINDS: tuple[StepKind, ...] = (
    *OP_KINDS,
    RECIPE_KIND,
    OVERLAY_KIND,
    *PATCH_KINDS,
    WORKLOAD_LEVEL_KIND,
    COMPOSITION_KIND,
    FUNCTION_KIND,
    OTHER_KIND,
)
"""Every step kind, once."""

STEP_KEYS: tuple[str, ...] = tuple(dict.fromkeys(kind.key for kind in STEP_KINDS if kind.key))
"""The keys that name a step's kind in a step map, in the order the docs list them."""

_BY_KEY: Mapping[str, StepKind] = MappingProxyType(
    {kind.key: kind for kind in STEP_KINDS if kind.key and kind.key != "op"}
)
_OPS_BY_NAME: Mapping[str, StepKind] = MappingProxyType(
    {name: kind for kind in STEP_KINDS if kind.key == "op" for name in (kind.name, *kind.aliases)}
)

OPS: Mapping[str, Any] = MappingProxyType(
    {kind.name: kind.factory for kind in STEP_KINDS if kind.key == "op"}
)
"""The combinators a step's ``op`` names, by name (``update_at`` is not
reachable from YAML, which holds no functions)."""


@lru_cache(maxsize=1)
def _by_class() -> Mapping[tuple[type, str], StepKind]:
    """Each kind's examples' class and name -> the kind (one class may serve
    several factories: ``append_at`` and ``prepend_at``)."""
    found: dict[tuple[type, str], StepKind] = {}
    for kind in STEP_KINDS:
        for example in kind.examples:
            step = example()
            if isinstance(step, Transform):
                found[(type(step), step.name)] = kind
    return MappingProxyType(found)


def kind_of(step: TransformLike, catalog: Catalog | None = None) -> StepKind:
    """The kind of ``step``: by its class and name, else a recipe if ``catalog``
    (the installed one where ``None``) names it, else a plain function or a
    transform no kind knows.
    """
    return _Steps(catalog).kind(step)


def yaml_kind(step: Any) -> StepKind:
    """The kind a step map (or a list of steps) is written in."""
    if isinstance(step, list):
        return COMPOSITION_KIND
    if not isinstance(step, Mapping):
        raise ArgumentTypeError(
            f"a pipeline step is a map such as {{op: upsert, path: ..., "
            f"value: ...}}, got {short_repr(step)}",
            argument="step",
            value=step,
        )
    keys = [key for key in STEP_KEYS if key in step]
    if len(keys) != 1:
        near = dict.fromkeys(c for key in step for c in near_misses(str(key), STEP_KEYS, n=1))
        hint = "" if keys else did_you_mean(tuple(near))
        raise ArgumentError(
            f"a step has exactly one of {', '.join(STEP_KEYS)}; this one has "
            f"{', '.join(keys) or 'none'}{hint} "
            f"(keys: {short_names(map(str, step))})",
            argument="step",
            value=step,
        )
    if keys[0] != "op":
        return _BY_KEY[keys[0]]
    name = step["op"]
    kind = _OPS_BY_NAME.get(name) if isinstance(name, str) else None
    if kind is not None and kind.build is not None:
        return kind
    if kind is not None:
        raise UnknownNameError(
            f"op {short_repr(name)} takes a Python function, which YAML "
            f"cannot hold; "
            f"use replace_at, upsert or a recipe",
            argument="op",
            value=name,
        )
    known = [op for op, kind in _OPS_BY_NAME.items() if kind.build is not None]
    close = near_misses(str(name), known)
    hint = did_you_mean(close)
    ops = ", ".join(kind.name for kind in OP_KINDS if kind.build is not None)
    raise UnknownNameError(
        f"unknown op {short_repr(name)}{hint} (ops: {ops})",
        argument="op",
        value=name,
        near_misses=close,
    )


class _Steps:
    """The registry's answers, for one catalog (resolved on first need)."""

    def __init__(self, catalog: Catalog | None, lenient: bool = False) -> None:
        self._given = catalog
        self._lenient = lenient
        self._catalog: Catalog | None = catalog

    def recipes(self) -> Catalog:
        if self._catalog is None:
            self._catalog = self._installed()
        return self._catalog

    def _installed(self) -> Catalog:
        if not self._lenient:
            return resolve_catalog(None)
        try:
            return resolve_catalog(None)
        except Exception:  # a broken catalog package must not stop a description
            return {}

    def kind(self, step: TransformLike) -> StepKind:
        if not isinstance(step, Transform):
            return FUNCTION_KIND
        known = _by_class().get((type(step), step.name))
        if known is not None:
            return known
        return RECIPE_KIND if step.name in self.recipes() else OTHER_KIND

    def build(self, value: Any) -> Transform:
        kind = yaml_kind(value)
        assert kind.build is not None  # yaml_kind gives only kinds YAML can build
        return kind.build(value, self)

    def dump(self, step: TransformLike) -> Any:
        return self.kind(step).dump(step, self)

    def phrase(self, step: TransformLike) -> str:
        return self.kind(step).phrase(step, self)

    def writes(self, step: TransformLike) -> Written:
        return self.kind(step).writes(step, self)


def build(value: Any, catalog: Catalog | None = None) -> Transform:
    """The transform a step map, or a list of them, stands for."""
    return _Steps(catalog).build(value)


def dump(step: TransformLike, catalog: Catalog | None = None) -> Any:
    """``step``'s YAML form: a step map, or a list of step maps for a composition."""
    return _Steps(catalog).dump(step)


def phrase(step: TransformLike, catalog: Catalog | None = None) -> str:
    """``step`` in words; a catalog that cannot be loaded names no recipe."""
    return _Steps(catalog, lenient=True).phrase(step)


def writes(step: TransformLike) -> Written:
    """The strings ``step`` may write into a pod, ``None`` where it runs the
    caller's code. Recipes are told by their body, so no catalog is read."""
    return _Steps({}).writes(step)


def may_write_macros(step: TransformLike) -> bool:
    """Whether ``step`` may write a TorchX macro (``${replica_id}``, ...).

    >>> from combinators import upsert
    >>> may_write_macros(upsert("metadata.labels.rank", "${replica_id}"))
    True
    >>> may_write_macros(upsert("metadata.labels.team", "ml")), may_write_macros(len)
    (False, True)
    """
    written = writes(step)
    return written is None or any("${" in text for text in written)
