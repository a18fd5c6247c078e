"""Folding each role's overlays over every pod TorchX renders.

TorchX renders one pod per replica (``V1Pod`` objects). For each one this
module turns the pod into plain API-form data, applies the role's overlays
in order (then the launch-time ones), substitutes TorchX's macros in what the
overlays wrote, and validates the result. The request that comes out holds
plain pods; nothing of the ``AppDef`` or of TorchX's request is changed.

An overlay that fails, or a pod left invalid, stops the whole fold
(:class:`FoldError`, naming role and replica). What the settings add on
top (a Pod Security profile, lists of paths the overlays may or may not
change, conflicts between overlays as errors) is checked on every pod, and
every finding of every role and replica is listed at the end in one
:class:`FoldViolationsError`.

Python's cyclic garbage collector is paused while the pods of one request
are folded (:func:`_collector_paused`), and put back as the caller had it.
Why: TorchX has just rendered the request, tens of model objects a pod,
and the fold's own allocations trigger the full collection that those
leave pending; at 1,000 replicas and more, walking them cost more than the
fold itself. What the fold throws away is freed by reference counting as
it goes, as it makes no reference cycles (a test holds it to that), so
nothing piles up while the collector waits. An overlay that is a plain
function and makes cycles leaves them for the first collection after the
fold: garbage in proportion to the request, never more.
"""

from __future__ import annotations

import functools
import gc
import string
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from torchx.specs import AppDef

from combinators import ArgumentError, TransformError
from combinators.conflicts import Conflict, ConflictWarning
from combinators.data import MISSING, is_map, is_seq
from combinators.transform import TransformLike, describe_step
from transforms.checks.policies import PolicyError
from transforms.checks.problems import PodValidationError, Problem
from transforms.forms.kinds import may_write_macros
from transforms.kube.convert import pod_to_dict
from transforms.run import CONFLICT_MODES, Checks, Overlays, conflict_mode, given, run
from transforms.torchx.errors import LaunchError
from transforms.torchx.roles import METADATA_KEY, role_overlays

__all__ = (
    "FoldError",
    "FoldViolationsError",
    "Violation",
    "RoleConflictWarning",
    "FoldSettings",
    "CONFLICT_MODES",
    "fold_volcano_job",
    "fold_app_wrapper",
    "substitute_macros",
)

LABEL_ROLE_INDEX = "torchx.pytorch.org/role-index"
LABEL_REPLICA_ID = "torchx.pytorch.org/replica-id"
LABEL_INSTANCE = "app.kubernetes.io/instance"


class FoldError(LaunchError):
    """An overlay failed, or left an invalid pod, for one replica of one role."""

    def __init__(self, message: str, *, role: str, replica: int) -> None:
        super().__init__(message)
        self.role = role
        self.replica = replica

    def __str__(self) -> str:
        return f"role {self.role!r}, replica {self.replica}: {self.message}"


@dataclass(frozen=True)
class Violation:
    """One finding on one pod: a Pod Security rule broken, a path an overlay may
    not change, or two overlays writing one path (``check``: ``"policy"``,
    ``"paths"`` or ``"conflict"``); ``found`` is the
    :class:`~transforms.checks.problems.Problem` or the conflict itself."""

    role: str
    replica: int
    check: str
    text: str
    found: Any = None

    def __str__(self) -> str:
        return f"role {self.role!r}, replica {self.replica}: {self.text}"


class FoldViolationsError(LaunchError, PolicyError):
    """Pods broke the fold's checks; ``violations`` lists every one, per role and
    replica. Also a :class:`~transforms.checks.policies.PolicyError`, whose
    ``problems`` are the policy and path-list findings.

    >>> print(FoldViolationsError([Violation("ps", 0, "paths", "spec.hostNetwork: denied")]))
    1 violation:
      role 'ps', replica 0: spec.hostNetwork: denied
    """

    def __init__(self, violations: Sequence[Violation]) -> None:
        count = len(violations)
        lines = [f"{count} violation{'s' if count != 1 else ''}:"]
        lines += [f"  {violation}" for violation in violations]
        LaunchError.__init__(self, "\n".join(lines))
        self.violations = tuple(violations)
        self.problems = tuple(
            violation.found for violation in violations if isinstance(violation.found, Problem)
        )
        self.heading = lines[0]


class RoleConflictWarning(ConflictWarning):
    """A conflict between overlays on the pods of some replicas of one role.

    >>> from combinators import path
    >>> print(RoleConflictWarning(Conflict(path("spec.hostIPC"), "a.yaml:2", "b.yaml:1",
    ...                                    False, True), "trainer", (0, 1)))
    role 'trainer', replicas 0, 1: spec.hostIPC: a.yaml:2 wrote False, then b.yaml:1 wrote True
    """

    def __init__(self, conflict: Conflict, role: str, replicas: Sequence[int]) -> None:
        super().__init__(conflict)
        self.role = role
        self.replicas = tuple(replicas)
        plural = "s" if len(self.replicas) != 1 else ""
        which = ", ".join(str(replica) for replica in self.replicas)
        self.args = (f"role {role!r}, replica{plural} {which}: {conflict}",)


@dataclass(frozen=True)
class FoldSettings:
    """How to fold: launch-time overlays for every role (``extra``) and for
    one role (``per_role``: pairs of a role's name and its overlays, applied
    after ``extra``), validation on or off; the Kubernetes version.

    The checks on top: ``policy`` (a Pod Security profile, ``"baseline"`` or
    ``"restricted"``), ``allow`` and ``deny`` (paths the overlays may change,
    or may not), ``conflicts`` (one of :data:`CONFLICT_MODES`). ``labels``
    names the launch-time overlays in messages (their files), ``extra``'s
    first, then ``per_role``'s in order; ``texts`` holds, for each file read,
    its text as it was read (file, text), so that conflicts name its lines
    without reading it again.
    """

    extra: tuple[TransformLike, ...] = ()
    validate: bool = True
    k8s_version: str | None = None
    per_role: tuple[tuple[str, tuple[TransformLike, ...]], ...] = ()
    policy: str | None = None
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    conflicts: str = "last-wins"
    labels: tuple[str, ...] = ()
    texts: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        conflict_mode(self.conflicts, "FoldSettings")

    @functools.cached_property
    def checks(self) -> Checks:
        """The checks the run makes of every pod (:class:`transforms.run.Checks`): every
        problem validation finds, not only those the overlays brought, as TorchX's pod
        is sent whole; a path of ``allow`` or ``deny`` that does not parse raises here."""
        checks = Checks(
            validate=self.validate,
            k8s_version=self.k8s_version,
            only_new=False,
            policy=self.policy,
            allow=self.allow,
            deny=self.deny,
            conflicts=self.conflicts,
        )
        checks.path_policy  # noqa: B018 - built now: a bad path fails before any pod
        return checks

    def for_role(self, name: str) -> tuple[TransformLike, ...]:
        """The launch-time overlays of the role ``name``: every role's, then its own.

        >>> from combinators import upsert
        >>> settings = FoldSettings(extra=(upsert("a", 1),),
        ...                         per_role=(("ps", (upsert("b", 2),)),))
        >>> settings.for_role("ps"), settings.for_role("trainer")
        ((upsert('a', 1), upsert('b', 2)), (upsert('a', 1),))
        """
        return tuple(step for step, _, _ in self._named(name))

    def labels_for_role(self, name: str) -> tuple[str, ...]:
        """The labels of :meth:`for_role`'s overlays: their files where known.

        >>> from combinators import upsert
        >>> FoldSettings(extra=(upsert("a", 1),), labels=("a.yaml",)).labels_for_role("ps")
        ('a.yaml',)
        >>> FoldSettings(extra=(upsert("a", 1),)).labels_for_role("ps")
        ("launch-time overlay 1: upsert('a', 1)",)
        """
        return tuple(label for _, label, _ in self._named(name))

    def _named(self, name: str) -> list[tuple[TransformLike, str, str | None]]:
        """(overlay, label, its file or ``None``) for each launch-time overlay of ``name``."""
        given = list(self.labels)
        found: list[tuple[TransformLike, str | None]] = [
            (step, given.pop(0) if given else None) for step in self.extra
        ]
        for role, steps in self.per_role:
            for step in steps:
                source = given.pop(0) if given else None
                if role == name:
                    found.append((step, source))
        return [
            (
                step,
                source
                if source is not None
                else f"launch-time overlay {number}: {describe_step(step)}",
                source,
            )
            for number, (step, source) in enumerate(found, 1)
        ]


def substitute_macros(new: Any, old: Any, values: Mapping[str, str]) -> Any:
    """Substitute ``${name}`` macros in the strings of ``new`` that ``old`` lacks.

    Subtrees ``new`` shares with ``old`` (the very same objects) are skipped:
    only what the overlays wrote is looked at, and only changed containers
    are copied.

    >>> old = {"args": ["${replica_id}"]}
    >>> new = {"args": old["args"], "env": [{"name": "RANK", "value": "${replica_id}"}]}
    >>> substitute_macros(new, old, {"replica_id": "3"})
    {'args': ['${replica_id}'], 'env': [{'name': 'RANK', 'value': '3'}]}
    >>> old = {"containers": [{"args": ["${replica_id}"]}]}
    >>> new = {"containers": [{**old["containers"][0], "env": [{"value": "${replica_id}"}]}]}
    >>> substitute_macros(new, old, {"replica_id": "3"})
    {'containers': [{'args': ['${replica_id}'], 'env': [{'value': '3'}]}]}
    """
    if new is old:
        return new
    cls = type(new)
    if cls is str:
        return _substituted(new, values) if "${" in new else new
    if cls is dict or (cls is not list and is_map(new)):
        return _in_map(new, old, values)
    if cls is list or is_seq(new):
        return _in_list(new, old, values)
    return new


def _in_map(new: Any, old: Any, values: Mapping[str, str]) -> Any:
    before = old if type(old) is dict or (old is not MISSING and is_map(old)) else _EMPTY
    result = new
    for key, value in new.items():
        kind = type(value)
        # most values are strings without a macro, or other scalars: no call for those
        if (kind is str and "${" not in value) or kind in _OTHER_SCALARS:
            continue
        was = before.get(key, MISSING)
        if value is was:
            continue
        if kind is dict:
            changed = _in_map(value, was, values)
        elif kind is list:
            changed = _in_list(value, was, values)
        else:
            changed = substitute_macros(value, was, values)
        if changed is not value:
            if result is new:
                result = dict(new)
            result[key] = changed
    return result


def _in_list(new: Any, old: Any, values: Mapping[str, str]) -> Any:
    if type(old) is list:
        olds = old
    else:
        olds = list(old) if old is not MISSING and is_seq(old) else []
    count = len(olds)
    kept: set[int] | None = None
    items = new
    for position, item in enumerate(new):
        if position < count and item is olds[position]:  # the common case: kept in place
            continue
        kind = type(item)
        if (kind is str and "${" not in item) or kind in _OTHER_SCALARS:
            continue
        if kept is None:
            kept = {id(element) for element in olds}
        if id(item) in kept:
            continue
        # an edited element still shares its untouched parts with the old one
        # in its place: those are skipped (any other old element works too)
        was = olds[position] if position < count else MISSING
        if kind is dict:
            changed = _in_map(item, was, values)
        else:
            changed = substitute_macros(item, was, values)
        if changed is not item:
            if items is new:
                items = list(new)
            items[position] = changed
    return items


def _substituted(text: str, values: Mapping[str, str]) -> str:
    """``string.Template(text).safe_substitute(values)``, as TorchX substitutes, with
    ``text`` parsed once however many replicas it is substituted for.

    >>> _substituted("r${replica_id}-$app_id $$ ${nope} $", {"replica_id": "3", "app_id": "a"})
    'r3-a $ ${nope} $'
    """
    return "".join(
        part if type(part) is str else values.get(part[0], part[1])
        for part in _template_parts(text)
    )


@functools.lru_cache(maxsize=1024)
def _template_parts(text: str) -> tuple[str | tuple[str, str], ...]:
    """``text`` as literal pieces and ``(name, as written)`` macros, as ``string.Template`` reads it."""
    parts: list[str | tuple[str, str]] = []
    end = 0
    for match in string.Template.pattern.finditer(text):
        parts.append(text[end : match.start()])
        name = match.group("named") or match.group("braced")
        # "$$" is one "$"; a "$" that starts no macro is kept, as safe_substitute keeps it
        parts.append((name, match.group()) if name else match.group("escaped") or match.group())
        end = match.end()
    parts.append(text[end:])
    return tuple(parts)


_EMPTY: Mapping[str, Any] = {}
_OTHER_SCALARS = frozenset({int, float, bool, type(None)})


def _macro_values(app_id: str, replica_id: int, rank0_env: str) -> dict[str, str]:
    return {"img_root": "", "app_id": app_id, "replica_id": str(replica_id), "rank0_env": rank0_env}


class _Folder:
    """The fold of one request, a thin door over :func:`transforms.run.run`: each
    role's overlays are loaded once; what the run finds on every pod is gathered and
    reported by :meth:`finish`."""

    def __init__(
        self, app: AppDef, settings: FoldSettings, rank0_env: Callable[[int, int], str]
    ) -> None:
        self.app = app
        self.settings = settings
        self.rank0_env = rank0_env
        self.overlays: list[Overlays] = []
        self.macros: list[bool] = []
        self.violations: list[Violation] = []
        # a conflict's text and role -> the conflict and the replicas it was found on
        self.warnings: dict[tuple[str, str], tuple[Conflict, list[int]]] = {}
        names = [role.name for role in app.roles]
        for name, _ in settings.per_role:
            if name not in names:
                raise ArgumentError(
                    f"no role named {name!r}; roles present: {', '.join(names)}",
                    argument="role_overlays",
                    value=name,
                )
        texts = dict(settings.texts)
        for role in app.roles:
            try:
                own = role_overlays(role)
            except TransformError as err:
                raise FoldError(
                    f"cannot read its overlays: {err}", role=role.name, replica=0
                ) from err
            loaded = [
                given(step, f'metadata["{METADATA_KEY}"][{index}] of role {role.name!r}')
                for index, step in enumerate(own)
            ]
            loaded += [
                given(step, label, source=source, text=texts.get(source) if source else None)
                for step, label, source in settings._named(role.name)
            ]
            overlays = Overlays(loaded)
            self.overlays.append(overlays)
            # whether macros may need substituting: each step's kind says what it writes
            self.macros.append(any(may_write_macros(step) for step in overlays.transforms))
        self.checks = settings.checks

    def fold(self, pod: Any) -> dict[str, Any]:
        plain = pod_to_dict(pod)
        labels = plain.get("metadata", {}).get("labels", {})
        role_index = int(labels.get(LABEL_ROLE_INDEX, 0))
        replica_id = int(labels.get(LABEL_REPLICA_ID, 0))
        role = self.app.roles[role_index]

        def then(new: Any) -> Any:
            if not is_map(new):  # only a pod may take a pod's place in the request
                raise FoldError(
                    f"its overlays gave back {type(new).__name__} {new!r:.60} instead of a pod",
                    role=role.name,
                    replica=replica_id,
                )
            if not self.macros[role_index]:
                return new
            values = _macro_values(
                labels.get(LABEL_INSTANCE, ""), replica_id, self.rank0_env(role_index, replica_id)
            )
            return substitute_macros(new, plain, values)

        try:
            done = run(self.overlays[role_index], plain, self.checks, then=then)
        except FoldError:
            raise
        except TransformError as err:
            raise FoldError(str(err), role=role.name, replica=replica_id) from err
        if done.findings:
            self._found(role.name, replica_id, done.findings)
        result: dict[str, Any] = done.after
        return result

    def _found(self, role: str, replica: int, findings: Sequence[Any]) -> None:
        """Say what the run found on one pod: an invalid pod stops the fold; a conflict
        is a violation (``conflicts="error"``) or a warning, gathered by role; a policy
        or path finding is a violation."""
        errors = [
            found.found
            for found in findings
            if found.kind == "validation" and found.severity == "error"
        ]
        if errors:
            err = PodValidationError(errors)
            raise FoldError(
                f"the pod is not valid after its overlays:\n{err}", role=role, replica=replica
            ) from err
        for found in findings:
            if found.kind != "conflict":
                continue
            named = found.found
            if found.severity == "error":
                self.violations.append(
                    Violation(role, replica, "conflict", f"conflict at {named}", named)
                )
            else:
                self.warnings.setdefault((role, str(named)), (named, []))[1].append(replica)
        for found in findings:
            if found.kind in ("policy", "paths"):
                self.violations.append(
                    Violation(role, replica, found.kind, str(found.found), found.found)
                )

    def finish(self) -> None:
        """Warn of each conflict once (naming the replicas), then raise if any pod broke a check.

        A warning is shown at ``FILE:LINE`` of the later write where an
        overlay file's line made it (Python prints that line beneath), else
        at the caller of the dry run.
        """
        for (role, _), (conflict, replicas) in self.warnings.items():
            warning = RoleConflictWarning(conflict, role, replicas)
            file, _, line = conflict.second.rpartition(":")
            if file and line.isdigit():
                warnings.warn_explicit(warning, RoleConflictWarning, file, int(line))
            else:
                warnings.warn(warning, stacklevel=4)
        if self.violations:
            raise FoldViolationsError(self.violations)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off inside, and afterwards as it was before.

    Only the automatic collections pause; reference counting frees garbage as
    usual, and ``gc.collect()`` still collects. On the way out, error or not,
    the collector is switched back on if, and only if, it was on when the
    block was entered: a caller that keeps it off finds it off. (The switch
    is the whole process's: folds in several threads each put back what they
    found, so it ends as the first one found it.)

    >>> was_on = gc.isenabled()
    >>> with _collector_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled() == was_on
    True
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def fold_volcano_job(
    app: AppDef,
    resource: Mapping[str, Any],
    settings: FoldSettings,
) -> dict[str, Any]:
    """A new Volcano Job in which every ``spec.tasks[*].template`` is folded."""
    first = app.roles[0].name if app.roles else ""
    from torchx.schedulers.kubernetes_scheduler import normalize_str

    rank0 = f"VC_{normalize_str(first)}_0_HOSTS".upper()
    folder = _Folder(
        app, settings, lambda role, replica: "TORCHX_RANK0_HOST" if role == replica == 0 else rank0
    )
    spec = resource["spec"]
    with _collector_paused():
        tasks = [{**task, "template": folder.fold(task["template"])} for task in spec["tasks"]]
    folder.finish()
    return {**resource, "spec": {**spec, "tasks": tasks}}


def fold_app_wrapper(
    app: AppDef,
    resource: Mapping[str, Any],
    settings: FoldSettings,
) -> dict[str, Any]:
    """A new AppWrapper in which every pod of ``spec.resources.GenericItems`` is folded.

    The Service and PodGroup items are left as they are.
    """
    from torchx.schedulers.kubernetes_mcad_scheduler import cleanup_str

    first = app.roles[0].name if app.roles else ""
    rank0 = f"TORCHX_MCAD_{cleanup_str(first)}_0_HOSTS".upper().replace("-", "")
    folder = _Folder(
        app, settings, lambda role, replica: "TORCHX_RANK0_HOST" if role == replica == 0 else rank0
    )
    spec = resource["spec"]
    with _collector_paused():
        items = [_fold_item(item, folder) for item in spec["resources"]["GenericItems"]]
    folder.finish()
    return {**resource, "spec": {**spec, "resources": {**spec["resources"], "GenericItems": items}}}


def _fold_item(item: Mapping[str, Any], folder: _Folder) -> Any:
    template = item.get("generictemplate")
    if _is_pod(template):
        return {**item, "generictemplate": folder.fold(template)}
    return item


def _is_pod(value: Any) -> bool:
    from kubernetes.client import V1Pod

    if isinstance(value, V1Pod):
        return True
    return is_map(value) and value.get("kind") == "Pod"
