"""Selecting pod templates: :class:`Selector` (by kind, name, role and labels), the
workloads around the selected templates, and the error of a selector that picks none.

>>> Selector.parse("kind=PyTorchJob,role=Worker")
Selector(kinds=('PyTorchJob',), roles=('Worker',))
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import InitVar, dataclass
from typing import Any

from combinators.data import is_map
from combinators.errors import ArgumentError, ArgumentTypeError, TransformError
from combinators.limits import short_names, short_repr
from transforms.kube.discovery import PodTemplate, WorkloadMetadata, shown_name, templates_of
from transforms.kube.registry import KindsLike, resolve_kinds
from transforms.kube.table import KindRegistry

__all__ = ("Selector", "workloads_of", "SelectionError", "SelectionSeen", "check_selection")


def _strings(value: Any, argument: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    items = tuple(value)
    for item in items:
        if not isinstance(item, str):
            raise ArgumentTypeError(
                f"{argument} must be strings, got {short_repr(item)}",
                argument=argument,
                factory="Selector",
                value=value,
            )
    return items


def _canonical_kind(kind: str, registry: KindRegistry) -> str:
    names = registry.names
    known = names.get(kind.lower())
    if known is not None:
        return known
    from combinators.near import did_you_mean, near_misses

    hint = did_you_mean(near_misses(kind, sorted(names.values())))
    raise ArgumentError(
        f"unknown workload kind {short_repr(kind)}{hint}; kinds with pods are: "
        f"{', '.join(sorted(names.values()))} (podfold kinds lists them; --kinds FILE "
        f"declares more)",
        argument="kinds",
        factory="Selector",
        value=kind,
    )


_SELECTOR_PART = re.compile(r"\s*(kind|name|role|label:([^=,\s]+))\s*=\s*([^,]*?)\s*$")


@dataclass(frozen=True)
class Selector:
    """Which templates an overlay applies to: by kind, name, role and labels.

    Each field holds alternatives (any may match); the fields must all
    match. ``kinds`` and ``names`` match the template's workload or any
    workload around it (``kind=AppWrapper`` selects everything it wraps);
    kinds are checked against the current registry (or ``registry``, not a
    field: see :func:`~transforms.kube.registry.resolve_kinds`), case aside.
    ``labels`` are ``(key, value)`` pairs, all required. An empty selector
    selects everything.

    >>> Selector(kinds="pytorchjob", roles=("Worker",))
    Selector(kinds=('PyTorchJob',), roles=('Worker',))
    """

    kinds: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()
    labels: tuple[tuple[str, str], ...] = ()
    registry: InitVar[KindsLike | None] = None

    def __post_init__(self, registry: KindsLike | None) -> None:
        given = _strings(self.kinds, "kinds")
        known = resolve_kinds(registry) if given else None  # no look-up for no kind
        kinds = tuple(_canonical_kind(kind, known) for kind in given) if known is not None else ()
        object.__setattr__(self, "kinds", kinds)
        object.__setattr__(self, "names", _strings(self.names, "names"))
        object.__setattr__(self, "roles", _strings(self.roles, "roles"))
        pairs = self.labels.items() if isinstance(self.labels, Mapping) else self.labels
        labels = tuple((key, value) for key, value in pairs)
        for key, value in labels:
            if not isinstance(key, str) or not isinstance(value, str):
                raise ArgumentTypeError(
                    f"labels must be string pairs, got {short_repr((key, value))}",
                    argument="labels",
                    factory="Selector",
                    value=labels,
                )
        object.__setattr__(self, "labels", labels)

    @classmethod
    def parse(cls, text: str, *, registry: KindsLike | None = None) -> Selector:
        """A selector from text: ``kind=PyTorchJob,role=Worker,label:team=ml``.

        Parts are separated by commas; a field given twice means either value;
        ``registry`` is where the kinds are checked (the current registry by default).

        >>> Selector.parse("kind=PyTorchJob,role=Worker,role=Master,label:team=ml")
        Selector(kinds=('PyTorchJob',), roles=('Worker', 'Master'), labels=(('team', 'ml'),))
        >>> Selector.parse("rol=Worker")
        Traceback (most recent call last):
          ...
        combinators.errors.ArgumentError: Selector.parse(): text: 'rol=Worker' is not kind=..., name=..., role=... or label:KEY=VALUE
        """
        if not isinstance(text, str):
            raise ArgumentTypeError(
                f"text must be a string, got {type(text).__name__}",
                argument="text",
                factory="Selector.parse",
                value=text,
            )
        fields: dict[str, list[Any]] = {"kind": [], "name": [], "role": [], "label": []}
        for part in text.split(",") if text.strip() else ():
            found = _SELECTOR_PART.match(part)
            if found is None or not found.group(3):
                raise ArgumentError(
                    f"{short_repr(part.strip())} is not kind=..., name=..., "
                    f"role=... or "
                    f"label:KEY=VALUE",
                    argument="text",
                    factory="Selector.parse",
                    value=text,
                )
            if found.group(2) is not None:
                fields["label"].append((found.group(2), found.group(3)))
            else:
                fields[found.group(1)].append(found.group(3))
        try:
            return cls(
                tuple(fields["kind"]),
                tuple(fields["name"]),
                tuple(fields["role"]),
                tuple(fields["label"]),
                registry,
            )
        except ArgumentError as err:
            err.factory = "Selector.parse"
            raise

    def matches(self, template: PodTemplate) -> bool:
        """Whether ``template`` is selected.

        >>> from combinators import path
        >>> from pyrsistent import pmap
        >>> template = PodTemplate(path("spec.template"), "Deployment", "web", None,
        ...                        "PodTemplateSpec", pmap({"team": "ml"}), (("Deployment", "web"),))
        >>> Selector.parse("kind=Deployment,label:team=ml").matches(template)
        True
        >>> Selector.parse("role=Worker").matches(template)
        False
        """
        if self.kinds or self.names:
            owners = template.workloads or ((template.kind, template.name),)
            if not any(
                (not self.kinds or kind in self.kinds) and (not self.names or name in self.names)
                for kind, name in owners
            ):
                return False
        if self.roles and template.role not in self.roles:
            return False
        labels = template.labels
        return all(labels.get(key) == value for key, value in self.labels)

    def __bool__(self) -> bool:
        return bool(self.kinds or self.names or self.roles or self.labels)

    def __repr__(self) -> str:
        given = [
            f"{name}={short_repr(getattr(self, name))}"
            for name in ("kinds", "names", "roles", "labels")
            if getattr(self, name)
        ]
        return f"Selector({', '.join(given)})"


def workloads_of(
    templates: Iterable[PodTemplate], select: Selector | None = None
) -> tuple[WorkloadMetadata, ...]:
    """The metadata of the workloads around the ``templates`` that ``select`` picks, each
    once, in document order: where workload-level steps act. A Pod, its own workload, has
    none.

    >>> from transforms.kube.discovery import pod_templates
    >>> cron = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "nightly"},
    ...         "spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": []}}}}}}
    >>> [metadata.describe() for metadata in workloads_of(pod_templates(cron))]
    ['CronJob/nightly metadata (spec.jobTemplate.metadata)']
    """
    return tuple(
        dict.fromkeys(
            template.workload_metadata
            for template in templates
            if template.workload_metadata is not None
            and (select is None or select.matches(template))
        )
    )


class SelectionError(TransformError, LookupError):
    """A selector picked no pod template of a stream; ``present`` says what was there."""

    def __init__(self, message: str, *, present: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.present = present

    def _detail(self) -> str:
        return "; templates present: " + short_names(self.present) if self.present else ""


def _describe_template(template: PodTemplate) -> str:
    where = (
        f"{shown_name(template.kind)}/{shown_name(template.name)}"
        if template.name
        else shown_name(template.kind)
    )
    return f"{where} role={shown_name(template.role)}" if template.role else where


def check_selection(
    select: Selector,
    documents: Iterable[Any],
    templates: Sequence[tuple[PodTemplate, ...]] | None = None,
    *,
    kinds: KindsLike | None = None,
) -> None:
    """Raise a :class:`SelectionError` unless ``select`` picks a template of ``documents``
    (``kinds``: where each kind keeps its pods, the current registry by default).

    The error lists every template present (kind/name and role), so a typo in
    a role or a name shows at once.

    >>> job = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "mnist"},
    ...        "spec": {"pytorchReplicaSpecs": {"Worker": {"template": {"spec": {}}}}}}
    >>> check_selection(Selector.parse("role=Wroker"), [job])
    Traceback (most recent call last):
      ...
    transforms.kube.selection.SelectionError: no pod template matches Selector(roles=('Wroker',)); templates present: PyTorchJob/mnist role=Worker
    """
    registry = resolve_kinds(kinds) if templates is None else None
    found = (
        [
            template
            for document in documents
            if is_map(document)
            for template in templates_of(document, registry)
        ]
        if registry is not None
        else [template for each in templates or () for template in each]
    )
    seen = SelectionSeen(select)
    seen.see([found])
    seen.check()


class SelectionSeen:
    """:func:`check_selection` for a stream seen a part at a time: whether ``select`` picked
    a template yet and, until it does, the templates present (to name in the error).

    >>> job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "a"},
    ...        "spec": {"template": {"spec": {}}}}
    >>> seen = SelectionSeen(Selector.parse("kind=CronJob"))
    >>> seen.see([templates_of(job, resolve_kinds(None))]); seen.check()
    Traceback (most recent call last):
      ...
    transforms.kube.selection.SelectionError: no pod template matches Selector(kinds=('CronJob',)); templates present: Job/a
    """

    def __init__(self, select: Selector) -> None:
        self.select = select
        self.matched = False
        self.any = False
        self.present: dict[str, None] = {}

    def see(self, templates: Sequence[Sequence[PodTemplate]]) -> None:
        """Note each document's ``templates``."""
        if self.matched:
            return
        for each in templates:
            for template in each:
                self.any = True
                if self.select.matches(template):
                    self.matched = True
                    self.present.clear()
                    return
                self.present[_describe_template(template)] = None

    def check(self) -> None:
        """Raise the :class:`SelectionError` of a selector that picked no template seen."""
        if self.matched:
            return
        raise SelectionError(
            f"no pod template matches {self.select!r}"
            + ("" if self.any else " (the documents hold no pod template)"),
            present=tuple(self.present),
        )
