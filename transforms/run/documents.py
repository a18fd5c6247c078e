"""The run over documents: each pod template of each document, as the overlays left it, run
through the checks once (:func:`transforms.run.run`), the way every door over manifests asks.

A template the selector picks is checked with every check asked for; one it does not pick
but the overlays changed (a patch of whole workloads) is validated only; one the overlays
left as they found it is checked only where a policy is asked for (a policy is about the pod
as it is, changed or not).

>>> from combinators import upsert
>>> from transforms.run import Checks, Overlays, given
>>> job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
...        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}}
>>> overlays = Overlays([given(upsert("spec.hostNetwork", True), "net.yaml")])
>>> after = [{**job, "spec": {"template": {"spec": {**job["spec"]["template"]["spec"],
...                                                  "hostNetwork": True}}}}]
>>> [(number, str(template.path), [str(found) for found in done.findings])
...  for number, template, done in run_documents(overlays, Checks(policy="baseline"), [job], after)]
[(0, 'spec.template', ["spec.hostNetwork: sharing the host's namespaces is not allowed, found hostNetwork: true (baseline profile, rule host-namespaces)"])]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from transforms.run.loaded import Overlays
from transforms.run.settings import Checks

__all__ = ("Considered", "considered_templates", "run_documents")


@dataclass(frozen=True)
class Considered:
    """A pod template the checks have a question about (see the module): the ``index`` of
    its document, the ``template``, whether the selector ``selected`` it, the pod
    ``before`` and ``after`` the overlays, and the template as the result has it
    (``after_template``: :func:`~transforms.kube.discovery.found_again`)."""

    index: int
    template: Any
    selected: bool
    before: Any
    after: Any
    after_template: Any


def considered_templates(
    documents: Sequence[Any],
    result: Sequence[Any],
    *,
    select: Any = None,
    templates: Sequence[Sequence[Any]] | None = None,
    policy: str | None = None,
) -> Iterator[Considered]:
    """Each pod template of ``documents`` (before the overlays) and ``result`` (after them)
    that a run of checks asks about, in order: every one the selector picks in a document
    the overlays changed (in every document, where a ``policy`` is asked for), and every
    other one they changed. ``templates`` are each document's, where the caller found
    them already."""
    from combinators import get_at
    from transforms.kube.discovery import found_again
    from transforms.kube.workloads import pod_templates

    for index, (document, overlaid) in enumerate(zip(documents, result, strict=True)):
        if overlaid is document and policy is None:
            continue
        found = pod_templates(document) if templates is None else templates[index]
        for template in found:
            selected = select is None or select.matches(template)
            before = get_at(document, template.path) if template.path.parts else document
            after = get_at(overlaid, template.path) if template.path.parts else overlaid
            # the pod fields its kind keeps apart (a TaskRun's podTemplate), as the result
            # has them: a change there is the pod's too
            made = template if overlaid is document else found_again(template, overlaid)
            if not selected and after is before and made == template:
                continue
            yield Considered(index, template, selected, before, after, made)


def run_documents(
    overlays: Overlays,
    checks: Checks,
    documents: Sequence[Any],
    result: Sequence[Any],
    *,
    select: Any = None,
    templates: Sequence[Sequence[Any]] | None = None,
) -> Iterator[tuple[int, Any, Any]]:
    """Each ``(index, template, run)`` of ``documents`` (before the overlays) and ``result``
    (after them) the checks have a question about, in order (see the module and
    :func:`considered_templates`); ``templates`` are each document's pod templates, where
    the caller found them already."""
    from transforms.run.running import run

    for found in considered_templates(
        documents, result, select=select, templates=templates, policy=checks.policy
    ):
        asked = checks if found.selected else checks.validation_only
        if not asked.any:
            continue
        done = run(
            overlays,
            found.before,
            asked,
            kind=found.template.root,
            template=found.template,
            after=found.after,
            after_template=found.after_template,
        )
        yield found.index, found.template, done
