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
"""

from __future__ import annotations

import reprlib
from dataclasses import dataclass
from typing import Any

from combinators.errors import TransformError
from combinators.paths import Index, Key, Match, Part, Path

__all__ = ("Problem", "PodValidationError", "Trail", "Raw", "PathMessage", "render")

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
        return f"{self.path}: {prefix}{self.message}"

    def __repr__(self) -> str:
        # what was found may be hostile (nested 10,000 deep): shown bounded
        return (f"Problem(path={self.path!r}, message={self.message!r}, "
                f"found={reprlib.repr(self.found)}, severity={self.severity!r}, "
                f"check={self.check!r}, rule={self.rule!r})")


class PodValidationError(TransformError, ValueError):
    """A pod failed validation; ``problems`` lists every problem found.

    >>> print(PodValidationError([Problem("spec.containers[0].name", "missing required field name")]))
    pod is invalid (1 problem):
      spec.containers[0].name: missing required field name
    """

    def __init__(self, found: list[Problem]) -> None:
        count = len(found)
        lines = [f"pod is invalid ({count} problem{'s' if count != 1 else ''}):"]
        lines += [f"  {problem}" for problem in found]
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


def _path(root: Any, keys: list[Any]) -> str:
    parts: list[Part] = []
    current = root
    for key in keys:
        if type(key) is int and isinstance(current, list):
            element = current[key] if 0 <= key < len(current) else None
            name = element.get("name") if isinstance(element, dict) else None
            unique = isinstance(name, str) and sum(
                1 for other in current
                if isinstance(other, dict) and other.get("name") == name) == 1
            parts.append(Match((("name", name),)) if unique else Index(key))
            current = element
        else:
            parts.append(Key(str(key)))
            current = current.get(key) if isinstance(current, dict) else None
    return str(Path(parts))


def render(root: Any, raw: Raw, check: str, rule: str | None = None) -> Problem:
    """The :class:`Problem` of a raw finding in ``root``: list elements named by
    ``[name=...]`` where their name is unique in the list, else by index."""
    trail, key, message, found, severity = raw
    where = _path(root, _keys(trail, key))
    if isinstance(message, PathMessage):
        text = message.text(where, str(key))
    elif callable(message):
        text = message(found)
    else:
        text = message
    return Problem(where, text, found, severity, check, rule)
