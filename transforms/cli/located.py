"""Errors raised while overlays apply, located: the overlay file and line of the step
that failed.

Loading an overlay names its file and line; an error raised once it applies
names the document, the template and the step, in words. Only when one is
raised, the failing document is run again through the overlays' steps one
by one (:func:`transforms.analysis.blame.load_steps`, the steps
``explain --blame`` names), and the first that fails gives its file and line:

>>> import pathlib, tempfile
>>> from transforms.io.loading import load_overlay
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "o1.yaml").write_text("- {op: upsert, path: spec.hostIPC, value: false}\\n"
...                                     "- {op: remove_at, path: 'spec.volumes[name=x]', missing_ok: false}\\n")
>>> pod = {"kind": "Pod", "metadata": {"name": "web"}, "spec": {"volumes": []}}
>>> try:
...     apply_located(load_overlay(folder / "o1.yaml"), [pod], overlays=[str(folder / "o1.yaml")])
... except OverlayStepError as err:
...     print(err.line, err.error.path)
2 spec.volumes[name=x]
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from combinators import TransformError

__all__ = ("OverlayStepError", "apply_located")

_DOCUMENT = re.compile(r"document (\d+)$")


class OverlayStepError(TransformError):
    """``error``, raised by the step at ``source``:``line`` of an overlay file.

    >>> from combinators.errors import ExpectationError
    >>> print(OverlayStepError(ExpectationError("expected 1 match for x, found 0"),
    ...                        source="o1.yaml", line=3))
    o1.yaml:3: expected 1 match for x, found 0
    """

    def __init__(self, error: TransformError, *, source: str, line: int | None) -> None:
        super().__init__(error.message, path=error.path, part_index=error.part_index)
        self.error = error
        self.source = source
        self.line = line

    def __str__(self) -> str:
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        return f"{where}: {self.error}"


def _failing_document(
    err: TransformError, transform: Any, documents: Sequence[Any], select: Any, first: int = 1
) -> int | None:
    from transforms.kube.workloads import apply_to_documents

    found = _DOCUMENT.match(err.steps[0]) if err.steps else None
    if found is not None and first <= int(found.group(1)) < first + len(documents):
        return int(found.group(1)) - first
    for index, document in enumerate(documents):
        try:
            apply_to_documents(transform, [document], select=select)
        except TransformError:
            return index
    return None


def _origin(
    document: Any, select: Any, overlays: Sequence[str], texts: Mapping[str, str] | None = None
) -> Any:
    """The origin of the first step of ``overlays`` (their texts as read: ``texts``)
    that fails on ``document``."""
    from transforms.analysis.blame import load_steps
    from transforms.kube.workloads import apply_to_documents

    texts = texts or {}
    try:
        steps = [step for uri in overlays for step in load_steps(uri, text=texts.get(uri))]
    except TransformError:
        return None
    # the overlay's own steps, each once (a recipe whole: its pod check is no step of its body)
    wholes: list[tuple[Any, Any]] = []
    for step in steps:
        whole = step.whole if step.whole is not None else step.transform
        if not wholes or wholes[-1][0] is not whole:
            wholes.append((whole, step.origin))
    current = document
    for whole, origin in wholes:
        try:
            (current,) = apply_to_documents(whole, [current], select=select)
        except TransformError:
            return origin
    return None


def apply_located(
    transform: Any,
    documents: Sequence[Any],
    *,
    select: Any = None,
    require_match: bool = False,
    overlays: Sequence[str] = (),
    templates: Sequence[Any] | None = None,
    texts: Mapping[str, str] | None = None,
    first: int = 1,
) -> list[Any]:
    """:func:`~transforms.kube.workloads.apply_to_documents` (``templates``: each
    document's, where the caller found them already; ``first``, the number of the first
    of ``documents`` in its stream), whose errors name the
    overlay file and line of the step that raised them (an :class:`OverlayStepError`)
    where the steps of ``overlays`` (the files ``transform`` was loaded from, whose
    texts as read are ``texts``: none is read again) find it."""
    from transforms.kube.workloads import SelectionError, apply_to_documents

    try:
        return apply_to_documents(
            transform,
            documents,
            select=select,
            require_match=require_match,
            templates=templates,
            first=first,
        )
    except SelectionError:
        raise
    except TransformError as err:
        index = _failing_document(err, transform, documents, select, first)
        origin = _origin(documents[index], select, overlays, texts) if index is not None else None
        if origin is None or origin.source is None:
            raise
        raise OverlayStepError(err, source=origin.source, line=origin.line) from err
