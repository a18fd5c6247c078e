"""What a step kind is: how it is built from YAML, written back, put in words,
and which strings it may write into a pod.

A :class:`StepKind` holds four functions; each gets the step (or its YAML
form) and a :class:`Steps`, through which a kind reaches the registry for the
steps nested in it (``for_each``'s transform, a composition's steps) and the
recipe catalog. A kind never imports the registry, so kinds stay independent
of one another.

>>> sorted(strings_in({"env": [{"name": "RANK", "value": "${replica_id}"}], "n": 1}))
['${replica_id}', 'RANK']
>>> union(frozenset({"a"}), None) is ANYTHING
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import yaml

from combinators import ArgumentTypeError, Path, Transform
from combinators.data import copy_plain, is_map, is_seq
from combinators.paths import Match
from combinators.transform import TransformLike, describe_step
from transforms.forms.catalog import Catalog
from transforms.forms.markers import Marker

__all__ = (
    "StepKind",
    "Steps",
    "Catalog",
    "Written",
    "ANYTHING",
    "NOTHING",
    "strings_in",
    "union",
    "flow",
    "items_text",
    "no_yaml_form",
)

Written = frozenset[str] | None
"""The strings a step may write into a pod; ``None`` (:data:`ANYTHING`) where it
runs the caller's code and may write anything."""

ANYTHING: Written = None
NOTHING: Written = frozenset()


class Steps(Protocol):
    """What a kind may ask of the registry: the same four questions about a
    nested step, and the recipe catalog."""

    def build(self, value: Any) -> Transform:
        """The transform a step map (or a list of them) stands for."""

    def dump(self, step: TransformLike) -> Any:
        """A step's YAML form: a step map, or a list of them for a composition."""

    def phrase(self, step: TransformLike) -> str:
        """A step in words."""

    def writes(self, step: TransformLike) -> Written:
        """The strings a step may write."""

    def recipes(self) -> Catalog:
        """The catalog recipe steps are found in."""


@dataclass(frozen=True)
class StepKind:
    """One kind of step, said once.

    ``key`` is the YAML key that names the kind in a step map (``op`` for
    every combinator, whose ``name`` is then the op's name; ``None`` for
    kinds with no step map of their own). ``build`` is ``None`` for kinds
    YAML cannot hold (a Python function). ``examples`` build sample steps of
    the kind: the registry recognises a step by its examples' class and name,
    and the tests round-trip every one of them.
    """

    name: str
    key: str | None
    build: Callable[[Any, Steps], Transform] | None
    dump: Callable[[Any, Steps], Any]
    phrase: Callable[[Any, Steps], str]
    writes: Callable[[Any, Steps], Written]
    examples: tuple[Callable[[], TransformLike], ...] = ()
    factory: Callable[..., Any] | None = None
    aliases: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return f"<step kind {self.name!r}>"


def strings_in(value: Any) -> frozenset[str]:
    """Every string held as a value in ``value`` (map keys aside), markers and
    the fields of a path's match selectors included."""
    found: set[str] = set()
    _collect(value, found)
    return frozenset(found)


def _collect(value: Any, found: set[str]) -> None:
    if isinstance(value, str):
        found.add(value)
    elif is_map(value):
        for item in value.values():
            _collect(item, found)
    elif isinstance(value, (list, tuple)) or is_seq(value):
        for item in value:
            _collect(item, found)
    elif isinstance(value, Path):
        for part in value.parts:
            if isinstance(part, Match):
                _collect([field for _, field in part.fields], found)
    elif isinstance(value, Marker):
        _collect(value.value, found)


def union(*written: Written) -> Written:
    """All of ``written``; :data:`ANYTHING` if any one is."""
    if any(item is None for item in written):
        return ANYTHING
    return frozenset().union(*(item for item in written if item is not None))


def flow(value: Any, width: int = 60) -> str:
    """A value as short flow-style YAML: ``{gpu: a100}``.

    >>> flow({"gpu": "a100"})
    '{gpu: a100}'
    """
    try:
        text = yaml.safe_dump(
            copy_plain(value),
            default_flow_style=True,
            width=10_000,
            allow_unicode=True,
            sort_keys=False,
        ).strip()
    except yaml.YAMLError:
        text = repr(value)
    if text.endswith("\n..."):
        text = text[:-4].strip()
    text = text.removesuffix("...").strip()
    return text if len(text) <= width else text[: width - 3] + "..."


def items_text(count: int) -> str:
    """``1 item``, ``2 items``."""
    return f"{count} item{'s' if count != 1 else ''}"


def no_yaml_form(step: TransformLike, why: str) -> ArgumentTypeError:
    """The error for a step YAML cannot hold, naming it and saying why."""
    return ArgumentTypeError(
        f"{describe_step(step)} cannot be written as YAML: {why}", argument="transform", value=step
    )
