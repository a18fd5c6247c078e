"""What a run's checks find: one :class:`Finding` each, with the overlay steps that wrote it.

>>> from transforms.checks.problems import Problem
>>> finding = Finding("policy", "error", "spec.hostNetwork", "host networking is not allowed",
...                   Problem("spec.hostNetwork", "host networking is not allowed"))
>>> print(finding), finding.writers
spec.hostNetwork: host networking is not allowed
(None, ())
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ("FINDING_KINDS", "Finding", "written_by", "label_of")

FINDING_KINDS = ("validation", "policy", "paths", "conflict")
"""The checks a finding comes from: the schema and references, a Pod Security profile,
the paths allowed and denied, two overlays writing one path."""


@dataclass(frozen=True, eq=False)
class Finding:
    """One finding on one pod: ``kind`` (one of :data:`FINDING_KINDS`), ``severity`` (``"error"``
    or ``"warning"``), ``path`` (in the pod, as the check names it; ``""`` for the pod),
    ``message``, and what the check found (``found``: its
    :class:`~transforms.checks.problems.Problem`, or the
    :class:`~combinators.conflicts.Conflict`, its two overlays named by file and line
    where known). ``writers`` are the overlay steps that wrote what is at ``path``
    (:class:`~transforms.analysis.provenance.Blame`, each with its origin), found when
    first asked for: a door that never names them pays nothing for them."""

    kind: str
    severity: str
    path: str
    message: str
    found: Any = None
    find_writers: Callable[[], tuple[Any, ...]] | None = field(
        default=None, repr=False, compare=False
    )

    @property
    def writers(self) -> tuple[Any, ...]:
        """The steps that wrote what the finding is about; ``()`` where none can be told."""
        if self.find_writers is None:
            return ()
        found = self.find_writers()
        return found

    def __str__(self) -> str:
        from combinators.limits import short_repr

        return f"{short_repr(self.path, quoted=False)}: {self.message}"


def label_of(origin: Any) -> str:
    """``FILE:LINE`` of a step's origin (the file alone where no line is known).

    >>> from transforms.analysis.provenance import Origin
    >>> label_of(Origin("gpu.yaml", 3, "partial pod")), label_of(Origin("gpu.yaml")), label_of(None)
    ('gpu.yaml:3', 'gpu.yaml', '(unknown)')
    """
    if origin is None or origin.source is None:
        return str(origin) if origin is not None else "(unknown)"
    return origin.source if origin.line is None else f"{origin.source}:{origin.line}"


def written_by(writers: Sequence[Any]) -> str:
    """`` (written by FILE:LINE)`` for a finding's ``writers``; where they are several files,
    each with the part it wrote (``FILE:LINE at PATH, ...``); ``""`` for none.

    >>> from combinators import path
    >>> from transforms.analysis.explanation import Change
    >>> from transforms.analysis.provenance import Blame, Origin
    >>> def wrote(where, source, line):
    ...     return Blame(Change(path(where), None, 1), Origin(source, line))
    >>> written_by([wrote("spec.hostIPC", "ipc.yaml", 2)])
    ' (written by ipc.yaml:2)'
    >>> written_by([wrote("spec.volumes[name=a]", "a.yaml", 1), wrote("spec.volumes[name=b]", "b.yaml", 3)])
    ' (written by a.yaml:1 at spec.volumes[name=a], b.yaml:3 at spec.volumes[name=b])'
    """
    parts: dict[str, list[str]] = {}
    for item in writers:
        parts.setdefault(label_of(item.origin), []).append(str(item.change.path))
    if len(parts) <= 1:
        return "".join(f" (written by {label})" for label in parts)
    named = []
    for label, paths in parts.items():
        more = f" and {len(paths) - 1} more" if len(paths) > 1 else ""
        named.append(f"{label} at {paths[0]}{more}")
    return f" (written by {', '.join(named)})"
