"""Allow and deny lists of the paths an overlay may change, checked against what it changed.

Paths are written in podfold's grammar; ``[*]``, ``[name=...]`` and indexes
select list elements as they do in a transform, looked up in the pod before
and after the overlay. A change is *under* a path when it is at the path or
inside what the path selects. A change above a listed path (a container
added whole, a map created to hold one key) is looked at inside: it is denied
if anything it sets or removes lies under a denied path, and allowed if
everything it sets or removes lies under an allowed one.

>>> from combinators import upsert
>>> pod = {"spec": {"containers": [{"name": "trainer", "image": "t:1"}]}}
>>> after = upsert("spec.containers[name=trainer].securityContext",
...                {"privileged": True})(pod)
>>> for problem in PathPolicy(deny=("spec.containers[*].securityContext",)).problems(pod, after):
...     print(problem)
spec.containers[name=trainer].securityContext: a denied path was changed (denied: spec.containers[*].securityContext)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from combinators import MISSING, Path, path
from combinators.conflicts import Write, writes
from combinators.covering import covers
from combinators.data import is_map, is_seq
from combinators.errors import ArgumentError, ArgumentTypeError, PathSyntaxError
from combinators.limits import short_names, short_repr
from transforms.checks.policies.errors import PolicyError
from transforms.checks.problems import Problem
from transforms.kube.convert import to_data

__all__ = ("PathPolicy",)


def _paths(given: Any, argument: str) -> tuple[Path, ...]:
    if isinstance(given, (str, bytes)) or not isinstance(given, Iterable):
        raise ArgumentTypeError(
            f"{argument} must be a list of paths, got {type(given).__name__}: {short_repr(given)}",
            argument=argument,
            factory="PathPolicy",
            value=given,
        )
    parsed = []
    for item in given:
        try:
            parsed.append(item if isinstance(item, Path) else path(item))
        except PathSyntaxError as err:
            raise ArgumentError(
                f"{argument}: {short_repr(item)} is not a path: {err.message} at "
                f"character {err.position + 1}",
                argument=argument,
                factory="PathPolicy",
                value=item,
            ) from None
        except ArgumentError as err:
            raise err.in_factory("PathPolicy") from None
    return tuple(parsed)


def _plain(doc: Any) -> Any:
    return to_data(doc) if hasattr(type(doc), "attribute_map") else doc


class PathPolicy:
    """Which paths an overlay may change: none under ``deny``; if ``allow`` is given, only those
    under ``allow``. A value: equal policies compare equal; ``repr`` is the call.

    >>> PathPolicy(allow=["spec.nodeSelector"], deny=("spec.containers[*].securityContext",))
    PathPolicy(allow=('spec.nodeSelector',), deny=('spec.containers[*].securityContext',))
    >>> PathPolicy(deny="spec.hostPID")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentTypeError: PathPolicy(): deny must be a list of paths, got str: 'spec.hostPID'
    """

    __slots__ = ("allow", "deny")

    def __init__(self, allow: Iterable[str | Path] = (), deny: Iterable[str | Path] = ()) -> None:
        self.allow = _paths(allow, "allow")
        self.deny = _paths(deny, "deny")

    def __repr__(self) -> str:
        return (
            f"PathPolicy(allow={short_repr(tuple(str(p) for p in self.allow))}, "
            f"deny={short_repr(tuple(str(p) for p in self.deny))})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PathPolicy):
            return NotImplemented
        return self.allow == other.allow and self.deny == other.deny

    def __hash__(self) -> int:
        return hash((PathPolicy, self.allow, self.deny))

    def problems(self, before: Any, after: Any) -> list[Problem]:
        """Every change from ``before`` to ``after`` under a denied path, or under no allowed one
        (when ``allow`` is given), in document order; subtrees the two share are not read.

        >>> from combinators import chain, upsert
        >>> pod = {"spec": {"containers": [{"name": "c"}]}}
        >>> after = chain(upsert("spec.nodeSelector", {"gpu": "a100"}),
        ...               upsert("spec.hostPID", True))(pod)
        >>> [(p.path, p.rule) for p in PathPolicy(allow=["spec.nodeSelector"]).problems(pod, after)]
        [('spec.hostPID', 'allow')]
        """
        before, after = _plain(before), _plain(after)
        found: list[Problem] = []
        for change in writes(before, after):
            if self.deny:
                found += self._denied(change, before, after)
            if self.allow:
                found += self._not_allowed(change, before, after)
        return found

    def check(self, before: Any, after: Any) -> None:
        """Raise :class:`~transforms.checks.policies.PolicyError` listing every change
        :meth:`problems` finds, if any.

        >>> from combinators import upsert
        >>> pod = {"spec": {}}
        >>> PathPolicy(deny=["spec.hostPID"]).check(pod, upsert("spec.nodeSelector", {"a": "b"})(pod))
        >>> PathPolicy(deny=["spec.hostPID"]).check(pod, upsert("spec.hostPID", True)(pod))
        Traceback (most recent call last):
          ...
        transforms.checks.policies.errors.PolicyError: overlay changed paths its policy forbids (1 problem):
          spec.hostPID: a denied path was changed (denied: spec.hostPID)
        """
        found = self.problems(before, after)
        if found:
            raise PolicyError(found, "overlay changed paths its policy forbids")

    def _denied(self, change: Write, before: Any, after: Any) -> list[Problem]:
        for denied in self.deny:
            if covers(denied, change.path, before, after):
                return [
                    Problem(
                        str(change.path),
                        f"a denied path was changed (denied: {short_repr(denied, quoted=False)})",
                        _found(change),
                        "error",
                        "path-policy",
                        "deny",
                    )
                ]
        if any(
            covers(denied.prefix(len(change.path)), change.path, before, after)
            for denied in self.deny
            if len(denied) > len(change.path)
        ):
            found: list[Problem] = []
            for inner in _inside(change):
                found += self._denied(inner, before, after)
            return found
        return []

    def _not_allowed(self, change: Write, before: Any, after: Any) -> list[Problem]:
        if any(covers(allowed, change.path, before, after) for allowed in self.allow):
            return []
        if any(
            covers(allowed.prefix(len(change.path)), change.path, before, after)
            for allowed in self.allow
            if len(allowed) > len(change.path)
        ):
            inner = _inside(change)
            if inner:
                found: list[Problem] = []
                for item in inner:
                    found += self._not_allowed(item, before, after)
                return found
        listed = short_names(str(allowed) for allowed in self.allow)
        return [
            Problem(
                str(change.path),
                f"a path outside the allowed ones was changed (allowed: {listed})",
                _found(change),
                "error",
                "path-policy",
                "allow",
            )
        ]


def _found(change: Write) -> Any:
    return None if change.after is MISSING else change.after


def _inside(change: Write) -> list[Write]:
    """The changes inside ``change``, a map or list created, removed or replaced, at full paths."""
    old, new = change.before, change.after
    if old is MISSING and (is_map(new) or is_seq(new)):
        old = {} if is_map(new) else []
    if new is MISSING and (is_map(old) or is_seq(old)):
        new = {} if is_map(old) else []
    if not (is_map(old) and is_map(new)) and not (is_seq(old) and is_seq(new)):
        return []
    return [
        Write(change.path + inner.path, inner.before, inner.after) for inner in writes(old, new)
    ]
