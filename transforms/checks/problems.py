"""What checks report: a :class:`Problem` per finding, and the error that carries them.

Checks walk a pod fast and cheaply: they record *raw findings* (where as a
trail of nested ``(parent, key)`` pairs, what as a message or a callable
that builds one, what was found, how severe) and only the findings that
exist are rendered into problems with a path in podfold's grammar
(:func:`render`).

>>> pod = {"spec": {"containers": [{"name": "trainer"}]}}
>>> trail = (((None, None), "spec"), "containers")
>>> render(pod, ((trail, 0), "image", "a container of a pod needs an image", None, "error"),
...        "reference", "container-images")
Problem(path='spec.containers[name=trainer].image', message='a container of a pod needs an image', found=None, severity='error', check='reference', rule='container-images')

:func:`render_all` renders many findings of one pod in time linear in them
(each list's names are counted once, not once per finding in it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from combinators.errors import TransformError
from combinators.limits import MAX_LISTED, short_repr
from combinators.paths import Index, Key, Match, Part, Path

__all__ = (
    "Problem",
    "PodValidationError",
    "Trail",
    "Raw",
    "PathMessage",
    "render",
    "render_all",
    "MAX_MATCHED_NAME",
)

MAX_MATCHED_NAME = 253
"""The longest name a problem's path names an element by (``[name=...]``; Kubernetes'
longest names, DNS subdomains, are 253 characters): a longer one is named by its index."""

#: Where a finding is, while walking: nested pairs ``(parent, key)``, ``None`` at the top.
Trail = Any
#: A raw finding: ``(trail, key, message, found, severity)``; the message is a
#: string, a callable of what was found, or a :class:`PathMessage`.
Raw = tuple[Trail, Any, Any, Any, str]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a pod: where (podfold path grammar), what, what was found.

    ``severity`` is ``"error"`` or ``"warning"``; only errors make
    :func:`~transforms.checks.validation.validate_pod` raise. ``check`` says
    which kind of check found it: ``"schema"`` (the official schema, with the
    differences :mod:`transforms.checks.schema_check` names) or
    ``"reference"`` (volumes, container names, requests and limits, env);
    ``rule`` names the reference rule (:data:`transforms.checks.rules.RULES`).

    ``path`` is the whole path; printed, a path longer than
    :data:`~combinators.limits.MAX_REPR` characters (a key of 100,000) keeps
    its start and its end.

    >>> print(Problem("spec.containers[0].name", "missing required field name"))
    spec.containers[0].name: missing required field name
    """

    path: str
    message: str
    found: Any = None
    severity: str = "error"
    check: str = "schema"
    rule: str | None = None

    def __str__(self) -> str:
        prefix = "warning: " if self.severity == "warning" else ""
        return f"{short_repr(self.path, quoted=False)}: {prefix}{self.message}"

    def __repr__(self) -> str:
        # what was found may be hostile (nested 10,000 deep, 5,000 digits): shown bounded
        return (
            f"Problem(path={short_repr(self.path)}, message={short_repr(self.message)}, "
            f"found={short_repr(self.found)}, severity={self.severity!r}, "
            f"check={self.check!r}, rule={self.rule!r})"
        )


class PodValidationError(TransformError, ValueError):
    """A pod failed validation; ``problems`` lists every problem found.

    The message lists the first :data:`~combinators.limits.MAX_LISTED` (10)
    and says how many more there are: a pod with 20,000 bad containers is
    one short error, and ``problems`` holds all 20,000.

    >>> print(PodValidationError([Problem("spec.containers[0].name", "missing required field name")]))
    pod is invalid (1 problem):
      spec.containers[0].name: missing required field name
    >>> many = [Problem(f"spec.containers[{i}].name", "missing required field name")
    ...         for i in range(12)]
    >>> print(PodValidationError(many))  # doctest: +ELLIPSIS
    pod is invalid (12 problems):
      spec.containers[0].name: missing required field name
      ...
      spec.containers[9].name: missing required field name
      and 2 more problems (all in the error's problems)
    """

    def __init__(self, found: list[Problem]) -> None:
        count = len(found)
        lines = [f"pod is invalid ({count:,} problem{'s' if count != 1 else ''}):"]
        lines += [f"  {problem}" for problem in found[:MAX_LISTED]]
        if count > MAX_LISTED:
            more = count - MAX_LISTED
            lines.append(
                f"  and {more:,} more problem{'s' if more != 1 else ''} "
                f"(all in the error's problems)"
            )
        super().__init__("\n".join(lines))
        self.problems = tuple(found)


class PathMessage:
    """A message that needs the rendered path to be written (an unknown field names itself)."""

    __slots__ = ()

    def text(self, where: str, key: str) -> str:  # pragma: no cover - abstract
        """The message of a finding at ``where`` (rendered path) for ``key``."""
        raise NotImplementedError


def _keys(trail: Trail, key: Any) -> list[Any]:
    keys = [key]
    while trail is not None:
        trail, step = trail
        keys.append(step)
    keys.reverse()
    return keys[1:]  # the first step is the root's placeholder key


def _names(items: list[Any]) -> dict[str, int]:
    """How many elements of ``items`` carry each string name."""
    counts: dict[str, int] = {}
    for item in items:
        name = item.get("name") if isinstance(item, dict) else None
        if isinstance(name, str):
            counts[name] = counts.get(name, 0) + 1
    return counts


def _path(root: Any, keys: list[Any], counts: dict[int, dict[str, int]] | None) -> str:
    parts: list[Part] = []
    current = root
    for key in keys:
        if type(key) is int and isinstance(current, list):
            element = current[key] if 0 <= key < len(current) else None
            name = element.get("name") if isinstance(element, dict) else None
            unique = False
            if isinstance(name, str) and len(name) <= MAX_MATCHED_NAME:
                if counts is None:  # one finding: count this name alone
                    unique = (
                        sum(
                            1
                            for other in current
                            if isinstance(other, dict) and other.get("name") == name
                        )
                        == 1
                    )
                else:  # many: count each list's names once (ids stay valid: root holds them)
                    names = counts.get(id(current))
                    if names is None:
                        names = counts[id(current)] = _names(current)
                    unique = names.get(name) == 1
            parts.append(Match((("name", name),)) if unique else Index(key))
            current = element
        else:
            parts.append(Key(str(key)))
            current = current.get(key) if isinstance(current, dict) else None
    return str(Path(parts))


def render(
    root: Any,
    raw: Raw,
    check: str,
    rule: str | None = None,
    *,
    counts: dict[int, dict[str, int]] | None = None,
) -> Problem:
    """The :class:`Problem` of a raw finding in ``root``: list elements named by
    ``[name=...]`` where their name is unique in the list (and at most
    :data:`MAX_MATCHED_NAME` characters long), else by index.

    ``counts`` is where :func:`render_all` keeps the names it counted in each
    list of ``root``; left out, a list is counted for this finding alone.
    """
    trail, key, message, found, severity = raw
    where = _path(root, _keys(trail, key), counts)
    if isinstance(message, PathMessage):
        text = message.text(where, str(key))
    elif callable(message):
        text = message(found)
    else:
        text = message
    return Problem(where, text, found, severity, check, rule)


def render_all(
    root: Any, raws: Iterable[Raw], check: str, rule: str | None = None
) -> list[Problem]:
    """The :class:`Problem` of each raw finding in ``root``, as :func:`render` makes
    it, in time linear in the findings and the lists they are in: each list's names
    are counted once, where rendering each finding alone counts them again (20,000
    bad containers: 400 million comparisons).

    >>> pod = {"spec": {"containers": [{"name": "a"}, {"name": "b"}, {"name": "a"}]}}
    >>> trail = (((None, None), "spec"), "containers")
    >>> [problem.path for problem in render_all(
    ...     pod, [((trail, i), "image", "needs an image", None, "error") for i in range(3)],
    ...     "reference")]
    ['spec.containers[0].image', 'spec.containers[name=b].image', 'spec.containers[2].image']
    """
    counts: dict[int, dict[str, int]] = {}
    return [render(root, raw, check, rule, counts=counts) for raw in raws]
