"""What a run checks: validation, a Pod Security profile, the paths the overlays may
change, conflicts between overlays. One value, the same for every front door.

>>> checks = Checks(policy="restricted", deny=("spec.hostNetwork",), conflicts="warn")
>>> checks.path_policy
PathPolicy(allow=(), deny=('spec.hostNetwork',))
>>> Checks(conflicts="errors")
Traceback (most recent call last):
  ...
combinators.errors.ArgumentError: Checks(): conflicts is one of last-wins, warn, error, got 'errors'; did you mean error?
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

from combinators.transform import CONFLICT_MODES

__all__ = ("CONFLICT_MODES", "Checks", "conflict_mode")


def conflict_mode(value: object, factory: str) -> str:
    """``value`` where it is one of :data:`CONFLICT_MODES`, else an
    :class:`~combinators.ArgumentError` of ``factory`` naming the near miss.

    >>> conflict_mode("warn", "Checks")
    'warn'
    """
    if isinstance(value, str) and value in CONFLICT_MODES:
        return value
    from combinators import ArgumentError, ArgumentTypeError
    from combinators.limits import short_repr
    from combinators.near import did_you_mean, near_misses

    hint = did_you_mean(near_misses(value, CONFLICT_MODES, n=1)) if isinstance(value, str) else ""
    kind = ArgumentError if isinstance(value, str) else ArgumentTypeError
    raise kind(
        f"conflicts is one of {', '.join(CONFLICT_MODES)}, got {short_repr(value)}{hint}",
        argument="conflicts",
        factory=factory,
        value=value,
    )


@dataclass(frozen=True)
class Checks:
    """The checks a run makes of a pod after its overlays.

    * ``validate``: the pod against the schema of ``k8s_version`` (the newest bundled by
      default) and the references between its parts; with ``only_new`` only the problems
      the overlays brought are found (one the pod had already, by path and message, or by
      rule and value, is not), else every one;
    * ``policy``: a Pod Security Standards profile (``"baseline"``, ``"restricted"``) the
      pod meets once overlaid, changed or not;
    * ``allow`` / ``deny``: the overlays change only paths under an allowed one (where any
      is given), none under a denied one;
    * ``conflicts``: one of :data:`CONFLICT_MODES`; ``"warn"`` finds two overlays writing
      different values at one path as warnings, ``"error"`` as errors, ``"last-wins"``
      (the default) looks for none.
    """

    validate: bool = False
    k8s_version: str | None = None
    only_new: bool = True
    policy: str | None = None
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    conflicts: str = "last-wins"

    def __post_init__(self) -> None:
        conflict_mode(self.conflicts, "Checks")

    @functools.cached_property
    def path_policy(self) -> Any:
        """The :class:`~transforms.checks.paths.PathPolicy` of ``allow`` and ``deny``,
        ``None`` where neither is given; a path that does not parse raises on first use."""
        if not (self.allow or self.deny):
            return None
        from transforms.checks.paths import PathPolicy

        return PathPolicy(allow=self.allow, deny=self.deny)

    @functools.cached_property
    def validation_only(self) -> Checks:
        """These checks without policy, paths and conflicts: what a pod the overlays
        changed but no one selected is checked for (a patch of a whole workload)."""
        return dataclasses.replace(self, policy=None, allow=(), deny=(), conflicts="last-wins")

    @functools.cached_property
    def any(self) -> bool:
        """Whether any check is asked for."""
        return (
            self.validate
            or self.policy is not None
            or bool(self.allow or self.deny)
            or self.conflicts != "last-wins"
        )
