"""What a recipe requires of the pod it is given, checked each time it is applied.

Most recipes work on any pod. A few key on something only some pods have (a
label that groups the pods of one job, say); such a recipe's body comes
with requirements, and the recipe refuses a pod that misses one, saying
what is missing, what is there instead and which argument picks another.

>>> from combinators import upsert
>>> need = HasLabel("team_spread", "team", "spreads", "group_label")
>>> need({"metadata": {"labels": {"team": "ml"}}})
>>> need({"metadata": {"labels": {"app": "web"}}})
Traceback (most recent call last):
  ...
combinators.errors.PathError: team_spread() spreads the pods sharing this pod's value of label 'team', and this pod has no label 'team': pass group_label= a label the pods to spread share, such as group_label='app', or match_labels= labels that select them (part 3 of metadata.labels.team); labels present: app
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from combinators import Key, Path, PathError
from combinators.data import is_map
from combinators.transform import TransformLike

__all__ = ("Requiring", "PodCheck", "HasLabel")

PodCheck = Callable[[Any], None]
"""A requirement: reads a pod, raises a :class:`~combinators.TransformError` if it is unmet."""


@dataclass(frozen=True)
class Requiring:
    """A recipe's body and what it requires of the pod: what a recipe's build
    function returns when the body alone would be wrong on some pods."""

    body: TransformLike
    checks: tuple[PodCheck, ...]


@dataclass(frozen=True)
class HasLabel:
    """The pod carries label ``label`` in ``metadata.labels``.

    ``recipe`` names the recipe, ``does`` says what it does to the pods
    sharing the label (``"keeps apart"``, ``"spreads"``) and ``argument`` is
    the recipe's argument that picks another label. ``note`` says who sets
    the label, where that helps.
    """

    recipe: str
    label: str
    does: str
    argument: str
    note: str = ""

    def __call__(self, pod: Any) -> None:
        metadata: Any = pod.get("metadata") if is_map(pod) else None
        labels: Any = metadata.get("labels") if is_map(metadata) else None
        if is_map(labels) and self.label in labels:
            return
        present = tuple(str(key) for key in labels) if is_map(labels) else ()
        example = f", such as {self.argument}={present[0]!r}" if present else ""
        none = "" if present else " (it has no labels at all)"
        note = f" ({self.note})" if self.note else ""
        raise PathError(
            f"{self.recipe}() {self.does} the pods sharing this pod's value of label "
            f"{self.label!r}{note}, and this pod has no label {self.label!r}{none}: pass "
            f"{self.argument}= a label the pods to {_infinitive(self.does)} share{example}, "
            f"or match_labels= labels that select them",
            path=Path([Key("metadata"), Key("labels"), Key(self.label)]),
            part_index=2,
            present=present,
            present_label="labels present",
        )


def _infinitive(does: str) -> str:
    """``"keeps apart"`` -> ``"keep apart"``, ``"spreads"`` -> ``"spread"``."""
    verb, _, rest = does.partition(" ")
    return f"{verb.removesuffix('s')} {rest}".strip()
