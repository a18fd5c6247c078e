"""Naming the two overlays of a conflict: a file and the line in it that wrote the path.

A conflict (:class:`combinators.conflicts.Conflict`) names its two steps by
the labels they were given: a launch-time overlay by its file, a role's
overlay by its place in the role's metadata. Where a step is a YAML file,
:func:`written_at` finds the line of the key or pipeline step in it that
wrote the path, as ``podfold explain --blame`` does. Both TorchX's fold and
the command line use it; nothing here imports TorchX.
"""

from __future__ import annotations

from typing import Any

from combinators import Path

__all__ = ("written_at", "unique_labels")


def written_at(pod: Any, uri: str, where: Path, steps: Any = None) -> str | None:
    """``FILE:LINE`` of the step of the YAML overlay at ``uri`` that last wrote
    ``where`` when the overlay is applied to ``pod``; ``None`` where no one
    step did (or the file cannot be read again).

    A partial pod's line is the line of the deepest key along ``where``, a
    pipeline step's the line of the step. ``where`` may name a list element
    by any selector (``volumeMounts[name=dshm]``, as a conflict names it);
    the walk is :func:`transforms.analysis.blame.writers`, the one
    ``podfold explain --blame`` uses.

    >>> import tempfile, os
    >>> from combinators import path
    >>> with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as handle:
    ...     _ = handle.write("# pools\\nspec:\\n  nodeSelector:\\n    pool: a\\n")
    >>> line = written_at({"spec": {}}, handle.name, path("spec.nodeSelector.pool"))
    >>> line == f"{handle.name}:4"
    True
    >>> os.unlink(handle.name)
    """
    from combinators import TransformError
    from transforms.analysis.blame import load_steps, writers

    if steps is None:  # the file's finest steps, read anew; a caller asking often gives them
        try:
            steps = load_steps(uri)
        except TransformError:
            return None
    found = writers(pod, steps).last(where)
    if found is None or found.origin is None or found.origin.line is None:
        return None
    return f"{found.origin.source}:{found.origin.line}"


def unique_labels(labels: list[str]) -> list[str]:
    """``labels`` with repeats told apart (``a.yaml``, ``a.yaml (2nd time)``), so a
    conflict's label names one step.

    >>> unique_labels(["a.yaml", "b.yaml", "a.yaml"])
    ['a.yaml', 'b.yaml', 'a.yaml (2nd time)']
    """
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        count = seen.get(label, 0) + 1
        seen[label] = count
        suffix = {2: "2nd", 3: "3rd"}.get(count, f"{count}th")
        out.append(label if count == 1 else f"{label} ({suffix} time)")
    return out
