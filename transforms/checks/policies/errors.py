"""The error a policy violation raises: :class:`PolicyError`, carrying every problem found."""

from __future__ import annotations

from collections.abc import Sequence

from combinators.errors import TransformError
from transforms.checks.problems import Problem

__all__ = ("PolicyError",)


class PolicyError(TransformError, ValueError):
    """A pod or an overlay broke a policy; ``problems`` lists every violation, ``heading`` says which
    policy.

    >>> err = PolicyError([Problem("spec.hostPID", "sharing the host's namespaces is not allowed",
    ...                            True, check="policy", rule="host-namespaces")],
    ...                   "pod violates the Pod Security Standard 'baseline'")
    >>> print(err)
    pod violates the Pod Security Standard 'baseline' (1 problem):
      spec.hostPID: sharing the host's namespaces is not allowed
    >>> isinstance(err, ValueError), err.problems[0].rule
    (True, 'host-namespaces')
    """

    def __init__(self, found: Sequence[Problem], heading: str = "policy violated") -> None:
        count = len(found)
        lines = [f"{heading} ({count} problem{'s' if count != 1 else ''}):"]
        lines += [f"  {problem}" for problem in found]
        super().__init__("\n".join(lines))
        self.problems = tuple(found)
        self.heading = heading
