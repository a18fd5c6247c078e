"""One run: overlays over one pod, and the checks asked for on what they made.

:func:`run` folds the overlays (:class:`~transforms.run.loaded.Overlays`)
over a pod, or takes what a door folded already (``after``), and returns a
:class:`Run`: the pod before and after, the changes (one diff,
:func:`~transforms.analysis.explanation.changes_between`), who wrote each part
(one provenance walk, :class:`~transforms.analysis.provenance.Writers`) and the
findings of every check :class:`~transforms.run.settings.Checks` asks for, each
with its writers. The changes and the walk are made when first asked for: a run
that finds nothing walks nothing.

>>> from combinators import upsert
>>> from transforms.run import Checks, Overlays, given
>>> overlays = Overlays([given(upsert("spec.hostNetwork", True), "net.yaml")])
>>> done = run(overlays, {"spec": {}}, Checks(deny=("spec.hostNetwork",)))
>>> done.after, [str(finding) for finding in done.findings]
({'spec': {'hostNetwork': True}}, ['spec.hostNetwork: a denied path was changed (denied: spec.hostNetwork)'])
>>> [str(found.origin) for found in done.findings[0].writers]
['net.yaml']
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from combinators import MISSING, TransformError, chain
from transforms.run.loaded import Overlays
from transforms.run.settings import Checks

if TYPE_CHECKING:
    from transforms.run.findings import Finding

__all__ = ("Run", "run")

_NO_CHECKS = Checks()


def _same(problem: Any) -> tuple[str, ...]:
    """What makes two problems one: a reference rule's by its path, rule and the value
    found there (its message may name what else the pod holds, which an overlay changes:
    "no volume named 'data'; volumes are: dshm" is the problem the pod had with none);
    a schema problem by its path and message."""
    if problem.rule is not None:
        return (problem.path, problem.rule, repr(problem.found))
    return (problem.path, problem.message)


class _Writers:
    """Who wrote what in one run, found when first asked: held by the run and by each
    of its findings, and holding neither (no reference cycle: a fold of 1,000 pods
    leaves nothing for the collector)."""

    __slots__ = ("before", "changed", "overlays", "_walk", "_prefixes", "_walks")

    def __init__(self, before: Any, changed: bool, overlays: Overlays) -> None:
        self.before = before  # the pod the overlays were given
        self.changed = changed
        self.overlays = overlays
        self._walk: Any = MISSING
        self._prefixes: dict[int, Any] = {}
        self._walks: dict[int, Any] = {}  # each overlay's walk over what those before made

    def walk(self) -> Any:
        if self._walk is MISSING:
            from transforms.analysis.blame import writers

            try:
                self._walk = writers(self.overlays.steps, self.before)
            except TransformError:
                self._walk = None
        return self._walk

    def at(self, where: str) -> tuple[Any, ...]:
        from combinators import path

        if not self.changed:
            return ()
        try:
            at = path(where)
        except TransformError:
            return ()
        walk = self.walk()
        return () if walk is None else tuple(walk.at(at))

    def _before(self, index: int) -> Any:
        if index not in self._prefixes:
            try:
                self._prefixes[index] = chain(*self.overlays.transforms[:index])(self.before)
            except TransformError:
                self._prefixes[index] = None
        return self._prefixes[index]

    def located(self, label: str, where: Any) -> tuple[str, Any]:
        from transforms.analysis.blame import writers
        from transforms.run.findings import label_of

        labels = self.overlays.labels
        if label not in labels:
            return label, None
        index = labels.index(label)
        overlay = self.overlays.items[index]
        if overlay.source is None:
            return label, None
        if index not in self._walks:
            before = self._before(index)
            try:
                self._walks[index] = None if before is None else writers(overlay.steps, before)
            except TransformError:
                self._walks[index] = None
        walk = self._walks[index]
        found = None if walk is None else walk.last(where)
        if found is None or found.origin is None or found.origin.line is None:
            return label, None
        return label_of(found.origin), found


class Run:
    """What :func:`run` made of one pod: ``before`` and ``after`` the overlays, the
    ``findings`` of the checks (:class:`~transforms.run.findings.Finding`), and, when
    asked for, the ``changes`` and the ``walk`` of who wrote what."""

    __slots__ = ("before", "after", "overlays", "findings", "__dict__")

    def __init__(self, before: Any, after: Any, overlays: Overlays) -> None:
        self.before = before
        self.after = after
        self.overlays = overlays
        self.findings: tuple[Finding, ...] = ()
        # the pod the overlays were given, where it is not ``before`` (a pod spec kept among
        # a kind's own fields, or with fields kept apart), and whether they changed it
        self._given: Any = before
        self._changed_given = after is not before

    @functools.cached_property
    def _writers(self) -> _Writers:
        # only where a finding asks
        return _Writers(self._given, self._changed_given, self.overlays)

    @property
    def changed(self) -> bool:
        """Whether the overlays changed the pod (a transform that changes nothing gives
        back the very object)."""
        return self.after is not self.before

    @functools.cached_property
    def changes(self) -> list[Any]:
        """Every change from ``before`` to ``after``
        (:class:`~transforms.analysis.explanation.Change`), in document order."""
        from transforms.analysis.explanation import changes_between

        return changes_between(self.before, self.after) if self.changed else []

    @property
    def walk(self) -> Any:
        """The provenance walk of every overlay's finest steps over ``before``
        (:class:`~transforms.analysis.provenance.Writers`), made once; ``None`` where a
        step fails on it alone (a door that changed what the overlays made, as TorchX
        substitutes its macros, is asked about what the overlays wrote)."""
        return self._writers.walk()

    def writers_at(self, where: str) -> tuple[Any, ...]:
        """The steps that wrote what is at ``where`` (a path, as a check names it); ``()``
        where the overlays changed nothing, or none can be told."""
        return self._writers.at(where)

    def located(self, label: str, where: Any) -> tuple[str, Any]:
        """``FILE:LINE`` of the step of the overlay ``label`` names (one of the
        overlays' labels) that last wrote ``where``, applied after the overlays before
        it, with that step's :class:`~transforms.analysis.provenance.Blame`; ``label``
        and ``None`` where none can be told (an overlay given in Python)."""
        return self._writers.located(label, where)

    def _finding(
        self, kind: str, problem: Any, severity: str | None = None, at: str | None = None
    ) -> Finding:
        """A finding of ``problem``, its writers those of ``at`` in the pod the overlays
        were given (``problem.path`` by default)."""
        from transforms.run.findings import Finding  # imported by the first finding

        return Finding(
            kind,
            severity or problem.severity,
            problem.path,
            problem.message,
            problem,
            functools.partial(self._writers.at, problem.path if at is None else at),
        )

    def _conflict(self, conflict: Any, severity: str) -> Finding:
        from transforms.run.findings import Finding

        first, first_by = self.located(conflict.first, conflict.path)
        second, second_by = self.located(conflict.second, conflict.path)
        named = dataclasses.replace(conflict, first=first, second=second)
        text = str(named)
        head = f"{named.path or '(the document)'}: "
        known = tuple(found for found in (first_by, second_by) if found is not None)
        return Finding(
            "conflict",
            severity,
            str(named.path),
            text[len(head) :] if text.startswith(head) else text,
            named,
            functools.partial(_given, known),
        )


def _given(found: tuple[Any, ...]) -> tuple[Any, ...]:
    return found


def _conflicts(pod: Any, overlays: Overlays) -> tuple[Any, list[Any]]:
    """The fold of ``overlays`` over ``pod`` and the conflicts between them: the result is
    the plain fold's, the last overlay having the last word."""
    from combinators.conflicts import ConflictError, checked_fold
    from transforms.analysis.explanation import merge_keys

    try:
        # list elements named by their merge keys, as explain and the findings name them
        found = checked_fold(
            overlays.transforms, pod, mode="error", labels=overlays.labels, keys=merge_keys()
        )
        return found, []
    except ConflictError as err:
        return overlays.transform(pod), list(err.conflicts)


def run(
    overlays: Overlays,
    pod: Any,
    checks: Checks = _NO_CHECKS,
    *,
    kind: str = "Pod",
    template: Any = None,
    after: Any = MISSING,
    after_template: Any = None,
    then: Callable[[Any], Any] | None = None,
) -> Run:
    """Fold ``overlays`` over ``pod`` (API-form data of ``kind``: ``Pod``,
    ``PodTemplateSpec``, ``PodSpec``) and make the ``checks``.

    ``after`` is what the overlays made of ``pod`` where the door folded them itself
    (over whole documents, say); ``then`` is what the door makes of the result before
    it is checked, where the overlays changed it (TorchX substitutes its macros).
    ``template`` is the :class:`~transforms.kube.workloads.PodTemplate` the pod is,
    where it is one: the volumes its controller adds count as the pod's own for
    validation and the policy, and the checks read the pod as the controller makes it
    (:func:`~transforms.kube.discovery.made_pod`). ``after_template`` is that template as
    the fold's result has it, where its kind keeps pod fields apart from it (a Tekton
    TaskRun's ``podTemplate``: :func:`~transforms.kube.discovery.found_again`), so that a
    change the overlays wrote there is validated, checked by the policy and by
    ``allow``/``deny``, as one in the pod is. An overlay that fails raises its
    :class:`~combinators.TransformError`; what the checks find is in ``findings``.

    >>> from combinators import upsert
    >>> from transforms.run import given
    >>> pod = {"spec": {"containers": [{"name": "c", "image": "i"}]}}
    >>> bad = Overlays([given(upsert("spec.containers[0].ports", "80"), "ports.yaml")])
    >>> found = run(bad, pod, Checks(validate=True)).findings
    >>> [(finding.kind, finding.severity, finding.path) for finding in found]
    [('validation', 'error', 'spec.containers[name=c].ports')]
    >>> run(Overlays([]), pod).after is pod
    True
    """
    conflicts: list[Any] = []
    if after is MISSING:
        if checks.conflicts != "last-wins":
            after, conflicts = _conflicts(pod, overlays)
        else:
            after = overlays.transform(pod)
        if then is not None and after is not pod:
            after = then(after)
    elif checks.conflicts != "last-wins" and after is not pod:
        conflicts = _conflicts(pod, overlays)[1]
    done = Run(pod, after, overlays)
    if not checks.any:
        return done
    found: list[Finding] = []
    made = template if after_template is None else after_template
    # a change may be only in the pod fields its kind keeps apart from the template
    changed = after is not pod or _kept_apart_changed(template, made)
    if template is not None and template.component is not None:
        done._given, done._changed_given = _given_pod(pod, template), changed
    # the pod as it runs: with the volumes its controller adds (a StatefulSet's claims)
    validating = checks.validate and (changed or not checks.only_new)
    whole = _with_volumes(after, made) if validating or checks.policy is not None else after
    # a bare spec's overlays were given {spec: ...}: who wrote what is said so
    bare = template is not None and template.root == "PodSpec"
    if validating:
        found += _invalid(done, checks, kind, template, whole, made)
    if checks.policy is not None:
        from transforms.checks.policies import policy_problems

        found += [
            done._finding("policy", problem, "error", _of_pod(problem.path) if bare else None)
            for problem in policy_problems(whole, checks.policy, kind=kind)
        ]
    if checks.path_policy is not None and changed:
        found += [
            done._finding("paths", problem, "error", _of_pod(problem.path) if bare else None)
            for problem in _path_problems(checks.path_policy, pod, after, template, made)
        ]
    severity = "error" if checks.conflicts == "error" else "warning"
    found += [done._conflict(conflict, severity) for conflict in conflicts]
    done.findings = tuple(found)
    return done


def _with_volumes(pod: Any, template: Any) -> Any:
    if template is None:
        return pod
    from transforms.kube.workloads import with_added_volumes

    return with_added_volumes(pod, template)


def _given_pod(value: Any, template: Any) -> Any:
    """The pod the overlays are given for ``value``, a pod spec kept among fields of its
    kind's own (:func:`~transforms.kube.components.pod_of`, with the fields kept apart)."""
    from combinators.data import copy_plain, is_map
    from transforms.kube.components import pod_of

    component = template.component
    if not is_map(value):
        return value
    outside = component.outside_given
    return pod_of(value, component, template.root, None if outside is None else copy_plain(outside))


def _kept_apart_changed(template: Any, made: Any) -> bool:
    """Whether the pod fields ``template``'s kind keeps apart from it differ in ``made``,
    the template as the fold's result has it."""
    if made is template or template is None or template.component is None:
        return False
    return bool(template.component.outside_given != made.component.outside_given)


def _path_problems(policy: Any, pod: Any, after: Any, template: Any, made: Any) -> list[Any]:
    """What ``policy`` (``allow``/``deny``) finds in the change from ``pod`` to ``after``,
    read as the pods their controller makes (a pod's paths, as the policy names them)
    where the template is not one already: a bare spec, a pod kept among a kind's own
    fields or with fields kept apart. A problem's path is then the pod's under the
    template, as validation's: its spec's without ``spec.``."""
    if template is None or (template.component is None and template.root != "PodSpec"):
        return list(policy.problems(pod, after))
    from transforms.kube.discovery import made_pod

    found = policy.problems(made_pod(pod, template), made_pod(after, made))
    if template.root != "PodSpec":
        return list(found)
    return [dataclasses.replace(problem, path=_in_spec(problem.path)) for problem in found]


def _of_pod(where: str) -> str:
    """A spec's path as its pod's: ``nodeSelector`` is ``spec.nodeSelector``."""
    if not where:
        return "spec"
    return f"spec{where}" if where.startswith("[") else f"spec.{where}"


def _in_spec(where: str) -> str:
    """A pod's path as its spec's: ``spec.nodeSelector`` is ``nodeSelector``."""
    if where == "spec":
        return ""
    return where[len("spec.") :] if where.startswith("spec.") else where


def _invalid(
    done: Run, checks: Checks, kind: str, template: Any, whole: Any, made: Any = None
) -> list[Finding]:
    """Validation's findings: every problem of ``whole`` (the pod after, as it runs, of
    ``made``, the template as the result has it), or only those the pod before did not
    have (see :func:`_same`)."""
    from transforms.checks.validation import problems

    found = problems(whole, kind=kind, k8s_version=checks.k8s_version)
    made = template if made is None else made
    filled = () if made is None else getattr(made, "filled_in", ())
    if found and filled:  # what the kind's controller fills in is no problem
        from transforms.checks.validation import without_filled_in

        found = without_filled_in(found, whole, filled, kind=kind)
    if found and checks.only_new:  # the usual case, nothing found: "before" is not validated
        before = _with_volumes(done.before, template)
        had = {
            _same(problem)
            for problem in problems(before, kind=kind, k8s_version=checks.k8s_version)
        }
        found = [problem for problem in found if _same(problem) not in had]
    bare = template is not None and template.root == "PodSpec"
    return [
        done._finding("validation", problem, None, _of_pod(problem.path) if bare else None)
        for problem in found
    ]
