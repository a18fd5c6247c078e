"""Where a step acts: on the pods, or on the workload object around them.

An overlay is about pods, and the workload API applies it to each pod
template of a workload. A few settings, though, are read from the workload
object itself: Kueue reads ``kueue.x-k8s.io/queue-name`` from a Job's, a
JobSet's or a RayJob's own ``metadata.labels``, and never from its pods'.
:func:`workload_level` marks a step as such.

- Applied straight to a pod (TorchX's pods, a ``kind: Pod`` document, a Flyte
  pod template, a client ``V1Pod``) it acts on the pod itself: the pod is the
  workload.
- Where the workload API (:func:`~transforms.kube.workloads.apply_to_workload`,
  :func:`~transforms.kube.workloads.apply_to_documents`, ``podfold apply``)
  applies an overlay to a workload document, its workload-level steps act
  once on the workload's metadata, where the kind keeps it
  (:attr:`~transforms.kube.workloads.WorkloadKind.metadata`: ``metadata``, or
  a CronJob's ``spec.jobTemplate.metadata``), and the other steps on its
  selected pod templates, as before.

A workload-level step is given ``{"metadata": <the workload's metadata>}``
(``{}`` where it has none), so its paths read as they do on a pod; it may
change that metadata only. :func:`split_levels` finds the workload-level
steps of an overlay: at its top, in its compositions (a YAML pipeline is
one) and in the bodies of its recipes. Inside another combinator
(``for_each``, ``when``) a step acts where that combinator applies it.

What a workload-level step writes may be read on some kinds of workload only
(Kueue reads its queue label on a Job, never on a DaemonSet). Such a step is
a recipe that requires it (:func:`workload_checks`): before it acts on a
workload's metadata, the workload API asks each of its checks about the
workload's kind and ``apiVersion``, and a check refuses one it is not for
with an :class:`UnsupportedWorkloadError`. A pod given as such is its own
workload, and is not asked about.

A third kind of step acts on whole documents: a strategic merge patch that
names its kind and name (``kind: Deployment``, ``metadata: {name: web}``, as
kustomize writes one). Such a step says which documents it is for with
``matches_document(doc)`` (``None`` where it is for pods);
:func:`is_document_level` tells one, and :func:`split_at_documents` cuts an
overlay at each, so the workload API applies every step in the order
written, each where it acts: a whole-document step to the documents it
names, and each run of steps between two of them as above (its pod-level
steps at the templates, its workload-level steps on the metadata; they
touch different parts of a document, so their order within the run does
not matter, and a Pod, its own workload, gets them as written). A step
after a patch sees what the patch made: a container, or a template, it
added.

>>> from combinators import chain, upsert
>>> queue = workload_level(upsert("metadata.labels", {"kueue.x-k8s.io/queue-name": "team-a"}))
>>> queue
workload_level(upsert('metadata.labels', {'kueue.x-k8s.io/queue-name': 'team-a'}))
>>> queue({"metadata": {"name": "trainer-0"}, "spec": {}})
{'metadata': {'name': 'trainer-0', 'labels': {'kueue.x-k8s.io/queue-name': 'team-a'}}, 'spec': {}}
>>> split_levels(chain(upsert("spec.hostIPC", False), queue))
((workload_level(upsert('metadata.labels', {'kueue.x-k8s.io/queue-name': 'team-a'})),), upsert('spec.hostIPC', False))
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from combinators.data import Owned
from combinators.errors import ArgumentTypeError, TransformError
from combinators.fusion import Op
from combinators.limits import short_repr
from combinators.transform import Compose, Transform, TransformLike, apply_step, chain, identity

__all__ = (
    "workload_level",
    "WorkloadLevel",
    "split_levels",
    "is_workload_level",
    "pod_level",
    "is_document_level",
    "split_at_documents",
    "WorkloadCheck",
    "workload_checks",
    "WorkloadMetadataError",
    "NoWorkloadMetadataError",
    "UnsupportedWorkloadError",
)


class WorkloadLevel(Transform):
    """A step that acts on the workload object, not on its pods (see :func:`workload_level`).

    Applied to a document, it applies ``transform`` to it: to a pod, that is
    the pod itself. The workload API finds it with :func:`split_levels`.
    """

    __slots__ = ("transform",)
    name = "workload_level"

    def __init__(self, transform: TransformLike) -> None:
        if not callable(transform):
            raise ArgumentTypeError(
                f"transform must be a transform or a callable doc -> doc, "
                f"got {short_repr(transform)}",
                argument="transform",
                factory="workload_level",
                value=transform,
            )
        self.transform = transform
        self._init_params(transform)

    def _apply(self, doc: Any, owned: Owned) -> Any:
        return apply_step(self.transform, doc, owned)

    def _fusion_ops(self) -> tuple[Op, ...] | None:
        # on a pod it is its transform, so a chain of recipes applied to pods still fuses
        return self.transform._fusion_ops() if isinstance(self.transform, Transform) else None


def workload_level(transform: TransformLike) -> Transform:
    """Mark ``transform`` as acting on the workload object around the pods.

    On a pod it is ``transform``; the workload API applies it once to the
    workload's metadata, given as ``{"metadata": ...}`` (see the module's
    documentation). Marking a marked step again changes nothing.

    >>> from combinators import replace_at
    >>> queue = workload_level(replace_at("metadata.labels.team", "ml"))
    >>> job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi"},
    ...        "spec": {"template": {"spec": {"containers": []}}}}
    >>> from transforms.kube.workloads import apply_to_workload
    >>> done = apply_to_workload(queue, job)
    >>> done["metadata"], done["spec"] is job["spec"]
    ({'name': 'pi', 'labels': {'team': 'ml'}}, True)
    >>> workload_level(queue) is queue
    True
    """
    if isinstance(transform, WorkloadLevel):
        return transform
    return WorkloadLevel(transform)


def _recipe_body(step: TransformLike) -> Transform | None:
    """The body of a recipe (a named transform that keeps its composed body as
    ``body``, as :class:`recipes.Recipe` does), else ``None``."""
    if not isinstance(step, Transform) or isinstance(step, WorkloadLevel):
        return None
    body = getattr(step, "body", None)
    return body if isinstance(body, Transform) else None


def split_levels(transform: TransformLike) -> tuple[tuple[TransformLike, ...], TransformLike]:
    """``(workload-level steps, the pod-level rest)`` of an overlay, each in the order written.

    Without a workload-level step, the rest is ``transform`` itself; where
    every step is one, the rest is ``identity``. A recipe whose body is all
    workload-level is one such step, itself (so that errors and blame name
    it); one whose body mixes both is cut like a composition.

    >>> from combinators import chain, upsert
    >>> team = upsert("metadata.labels.team", "ml")
    >>> split_levels(team) == ((), team), split_levels(workload_level(team))
    (True, ((workload_level(upsert('metadata.labels.team', 'ml')),), identity))
    """
    if isinstance(transform, WorkloadLevel):
        return (transform,), identity
    if isinstance(transform, Compose):
        inner = transform.steps
    else:
        body = _recipe_body(transform)
        if body is None:
            return (), transform
        found, rest = split_levels(body)
        if not found:
            return (), transform
        return ((transform,), identity) if rest is identity else (found, rest)
    split = [split_levels(step) for step in inner]
    if not any(found for found, _ in split):
        return (), transform
    found = tuple(step for steps, _ in split for step in steps)
    return found, chain(*(rest for _, rest in split if rest is not identity))


def is_workload_level(step: TransformLike) -> bool:
    """Whether every step of ``step`` acts on the workload object (and it has one).

    >>> from combinators import upsert
    >>> is_workload_level(workload_level(upsert("metadata.labels.a", "b"))), \\
    ...     is_workload_level(upsert("metadata.labels.a", "b"))
    (True, False)
    """
    found, rest = split_levels(step)
    return bool(found) and rest is identity


def pod_level(step: TransformLike) -> TransformLike:
    """``step`` without its workload-level steps: what it does to a workload's pod templates.

    >>> from combinators import chain, upsert
    >>> pod_level(chain(workload_level(upsert("metadata.labels.a", "b")), upsert("spec.x", 1)))
    upsert('spec.x', 1)
    """
    return split_levels(step)[1]


@runtime_checkable
class WorkloadCheck(Protocol):
    """What a workload-level step requires of the workload it acts on (see :func:`workload_checks`)."""

    def check_workload(self, kind: str, api_version: str | None) -> None:
        """Raise an :class:`UnsupportedWorkloadError` unless the step may act on a workload
        of ``kind`` (the kind table's name for it) and ``api_version`` (``None`` where the
        document has none)."""


def _checks_in(step: TransformLike, found: list[WorkloadCheck]) -> None:
    if isinstance(step, WorkloadLevel):
        _checks_in(step.transform, found)
        return
    if isinstance(step, Compose):
        for each in step.steps:
            _checks_in(each, found)
        return
    if not isinstance(step, Transform):
        return
    for requirement in getattr(step, "requires", ()):
        if isinstance(requirement, WorkloadCheck) and requirement not in found:
            found.append(requirement)
    body = _recipe_body(step)
    if body is not None:
        _checks_in(body, found)


def workload_checks(transform: TransformLike) -> tuple[WorkloadCheck, ...]:
    """The checks that the workload-level steps of ``transform`` make of the workload they
    act on, each once, in the order written.

    A check is a requirement of a recipe (its ``requires``, as
    :class:`recipes.Recipe` keeps them) that has ``check_workload(kind,
    api_version)``: ``kueue_queue`` requires a kind that Kueue queues. They are
    found where :func:`split_levels` finds workload-level steps, and in the
    steps those hold. Without any, ``()``.

    >>> from dataclasses import dataclass
    >>> from combinators import upsert
    >>> @dataclass(frozen=True)
    ... class NotOnADaemonSet:
    ...     def check_workload(self, kind, api_version):
    ...         if kind == "DaemonSet":
    ...             raise UnsupportedWorkloadError("not on a DaemonSet", kind=kind,
    ...                                            api_version=api_version, supported=())
    >>> class Labelled(Transform):  # a recipe that requires it, reduced to the bone
    ...     name = "labelled"
    ...     requires = (NotOnADaemonSet(),)
    ...     body = workload_level(upsert("metadata.labels", {"team": "ml"}))
    ...     def _apply(self, doc, owned):
    ...         return self.body(doc)
    >>> workload_checks(chain(upsert("spec.hostIPC", False), Labelled()))
    (NotOnADaemonSet(),)
    >>> workload_checks(workload_level(upsert("metadata.labels", {"team": "ml"})))
    ()
    """
    found: list[WorkloadCheck] = []
    for step in split_levels(transform)[0]:
        _checks_in(step, found)
    return tuple(found)


def is_document_level(step: TransformLike) -> bool:
    """Whether ``step`` acts on whole documents: it has ``matches_document(doc)``, which
    says which documents it is for (a strategic merge patch naming its kind, as kustomize
    writes one), and that gives ``None`` only for a step meant for pods.

    >>> for_web, for_pods = (lambda doc: doc), (lambda doc: doc)
    >>> for_web.matches_document = lambda doc: doc.get("metadata", {}).get("name") == "web"
    >>> for_pods.matches_document = lambda doc: None
    >>> is_document_level(for_web), is_document_level(for_pods)
    (True, False)
    """
    matches = getattr(step, "matches_document", None)
    # asked about no document at all: one meant for pods says None whatever it is given
    return callable(matches) and matches({}) is not None


def _cut(step: TransformLike) -> list[TransformLike] | None:
    """The finest steps of ``step`` where it holds a whole-document step (in a
    composition, a recipe's body), else ``None``."""
    if is_document_level(step):
        return [step]
    if isinstance(step, Compose):
        inner = step.steps
    else:
        body = _recipe_body(step)
        if body is None:
            return None
        inner = (body,)
    cuts = [_cut(each) for each in inner]
    if all(cut is None for cut in cuts):
        return None
    return [
        piece
        for each, cut in zip(inner, cuts, strict=True)
        for piece in (cut if cut is not None else [each])
    ]


def split_at_documents(transform: TransformLike) -> tuple[TransformLike, ...]:
    """An overlay cut at its whole-document steps (:func:`is_document_level`), in the order
    written: each such step alone, and the steps between two of them chained.

    Without one, ``(transform,)`` itself. Compositions are cut, and a
    recipe's body where it holds one; inside another combinator a step acts
    where that combinator applies it.

    >>> from combinators import chain, upsert
    >>> web = lambda doc: doc
    >>> web.matches_document = lambda doc: doc.get("metadata", {}).get("name") == "web"
    >>> [is_document_level(piece) for piece in split_at_documents(
    ...     chain(upsert("spec.hostIPC", False), web, upsert("spec.hostPID", False)))]
    [False, True, False]
    >>> plain = upsert("spec.hostIPC", False)
    >>> split_at_documents(plain)[0] is plain
    True
    """
    pieces = _cut(transform)
    if pieces is None:
        return (transform,)
    found: list[TransformLike] = []
    run: list[TransformLike] = []
    for piece in pieces:
        if is_document_level(piece):
            if run:
                found.append(chain(*run))
                run = []
            found.append(piece)
        else:
            run.append(piece)
    if run:
        found.append(chain(*run))
    return tuple(found)


class WorkloadMetadataError(TransformError, ValueError):
    """A workload-level step changed more than the workload's metadata; ``keys`` are what else."""

    def __init__(self, message: str, *, keys: tuple[str, ...]) -> None:
        super().__init__(message)
        self.keys = keys


class NoWorkloadMetadataError(TransformError, LookupError):
    """A workload-level step was to act on a workload whose kind keeps no metadata for the
    workloads it makes (a RayCronJob's RayJobs get none of its labels).

    ``kind`` and ``name`` name the workload.
    """

    def __init__(self, message: str, *, kind: str, name: str | None) -> None:
        super().__init__(message)
        self.kind = kind
        self.name = name


class UnsupportedWorkloadError(TransformError, TypeError):
    """A workload-level step was to act on a kind of workload that does not read what it
    writes (``kueue_queue`` on a DaemonSet: Kueue never reads the label there).

    ``kind`` and ``api_version`` are the workload's (``api_version`` ``None`` where it has
    none); ``supported`` names the kinds the step is for.
    """

    def __init__(
        self, message: str, *, kind: str, api_version: str | None, supported: tuple[str, ...]
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.api_version = api_version
        self.supported = supported
