"""``--policy``, ``--allow``, ``--deny``, ``--conflicts``, and validation: the checks on
every pod template ``podfold apply`` and ``podfold explain`` change.

* validation, on unless ``--no-validate``: every template the overlays
  changed is checked as ``podfold validate`` checks it (the official schema
  of ``--k8s-version``, and the references between its parts); only the
  problems the overlays brought are reported (a problem the template had
  already, by path and message, is not), and only errors fail;
* ``--policy baseline|restricted``: every selected template, as the overlays
  leave it, meets the Pod Security Standard (``transforms.checks.policies``);
* ``--allow PATH`` / ``--deny PATH`` (repeatable, or ``;``-separated): the
  overlays change only paths under an allowed one, none under a denied one
  (``transforms.checks.paths``);
* ``--conflicts warn|error``: two overlay files that write different values
  at one path of a template are named, each by its file and the line that
  wrote the path (``combinators.conflicts``); the default ``last-wins``
  checks nothing, the last file has the last word.

Every finding of every document and template is listed, one line each, on
stderr, with the overlay line that wrote what it found (``(written by
FILE:LINE)``; where several steps wrote parts of it, as two files that each
add a volume, each with its part: ``(written by shm.yaml:1 at
spec.volumes[name=dshm], secret.yaml:3 at spec.volumes[name=creds])``); any
violation (a conflict only with ``error``) fails the command with exit code 1
and prints no documents.

>>> from transforms.cli.checks import split_paths
>>> split_paths(("spec.hostNetwork;spec.hostPID", "spec.containers[*].securityContext"))
('spec.hostNetwork', 'spec.hostPID', 'spec.containers[*].securityContext')
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import click

__all__ = (
    "PROFILES",
    "CONFLICT_MODES",
    "policy_option",
    "path_options",
    "conflicts_option",
    "k8s_version_option",
    "validate_options",
    "check_options",
    "check_k8s_version",
    "split_paths",
    "TemplateChecks",
    "Findings",
)

PROFILES = ("baseline", "restricted")
"""The Pod Security Standards profiles (``transforms.checks.policies.PROFILES``, named
here so that ``podfold --help`` imports no checks)."""

CONFLICT_MODES = ("last-wins", "warn", "error")
"""What ``--conflicts`` takes (the TorchX run option ``conflicts`` takes the same)."""

F = TypeVar("F", bound=Callable[..., Any])


class _Choice(click.Choice[str]):
    """``click.Choice``, writing a long value short in its error (click's quotes it whole)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from combinators.limits import MAX_REPR, short_repr

        if isinstance(value, str) and len(value) > MAX_REPR and value not in self.choices:
            choices = ", ".join(repr(choice) for choice in self.choices)
            self.fail(f"{short_repr(value)} is not one of {choices}.", param, ctx)
        return super().convert(value, param, ctx)


def policy_option(command: F) -> F:
    """``--policy baseline|restricted``."""
    return click.option(
        "--policy",
        type=_Choice(PROFILES),
        default=None,
        help="A Pod Security Standards profile every selected pod template "
        "must meet once overlaid.",
    )(command)


def path_options(command: F) -> F:
    """``--allow PATH`` and ``--deny PATH``, repeatable, ``;``-separated."""
    command = click.option(
        "--deny",
        "deny",
        multiple=True,
        metavar="PATH[;PATH]",
        help="A path the overlays may not change, e.g. "
        "'spec.containers[*].securityContext' (repeatable).",
    )(command)
    return click.option(
        "--allow",
        "allow",
        multiple=True,
        metavar="PATH[;PATH]",
        help="Paths the overlays may change: no other (repeatable).",
    )(command)


def conflicts_option(command: F) -> F:
    """``--conflicts last-wins|warn|error``."""
    return click.option(
        "--conflicts",
        type=_Choice(CONFLICT_MODES),
        default="last-wins",
        show_default=True,
        help="When two overlay files write different values at one path: "
        "let the last win, warn, or fail.",
    )(command)


def k8s_version_option(command: F) -> F:
    """``--k8s-version VERSION``: the schema to check against."""
    return click.option(
        "--k8s-version",
        metavar="VERSION",
        help="The Kubernetes version whose schema to check against (default: the newest bundled).",
    )(command)


def validate_options(command: F) -> F:
    """``--no-validate`` and ``--k8s-version``."""
    command = k8s_version_option(command)
    return click.option(
        "--no-validate",
        "no_validate",
        is_flag=True,
        help="Do not check the pod templates the overlays change against "
        "the schema and their references.",
    )(command)


def check_options(command: F) -> F:
    """``--no-validate``, ``--k8s-version``, ``--policy``, ``--allow``, ``--deny`` and
    ``--conflicts`` together."""
    return validate_options(policy_option(path_options(conflicts_option(command))))


def check_k8s_version(version: str | None) -> None:
    """Refuse an unknown ``--k8s-version`` as a usage error (exit code 2), before any
    document is read."""
    from combinators import TransformError
    from transforms.kube.schema import schema_for

    try:
        schema_for(version)
    except TransformError as err:
        raise click.BadParameter(str(err), param_hint="'--k8s-version'") from None


def split_paths(given: Sequence[str]) -> tuple[str, ...]:
    """The paths of repeated ``--allow``/``--deny`` flags, each ``;``-separated (see the module)."""
    return tuple(item.strip() for flag in given for item in flag.split(";") if item.strip())


@dataclass
class Findings:
    """What the checks found: ``violations`` (of a policy, of the paths allowed, a
    conflict) and ``problems`` (errors the overlays brought, found by validation)
    fail the command, ``warnings`` do not; ``templates`` counts the templates that
    had either."""

    violations: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    templates: int = 0


Label = str | Callable[[], str]
"""Where a template is, for a finding's line: the text, or what makes it when needed."""


def _text(label: Label) -> str:
    return label if isinstance(label, str) else label()


def _label(origin: Any) -> str:
    """``FILE:LINE`` of an overlay step's origin (the file alone where no line is known)."""
    if origin is None or origin.source is None:
        return str(origin) if origin is not None else "(unknown)"
    return origin.source if origin.line is None else f"{origin.source}:{origin.line}"


def _same(problem: Any) -> tuple[str, ...]:
    """What makes two problems one: a reference rule's by its path, rule and the value
    found there (its message may name what else the pod holds, which an overlay changes:
    "no volume named 'data'; volumes are: dshm" is the problem the pod had with none);
    a schema problem by its path and message."""
    if problem.rule is not None:
        return (problem.path, problem.rule, repr(problem.found))
    return (problem.path, problem.message)


def _joined(prefix: str, path: str) -> str:
    from combinators.limits import short_repr

    # a problem's path as printed: a key of 100,000 characters keeps its start and its end
    path = short_repr(path, quoted=False)
    if not prefix:
        return path
    return f"{prefix}.{path}" if path and not path.startswith("[") else f"{prefix}{path}"


@dataclass
class TemplateChecks:
    """The checks the flags ask for, with the overlays' files (``uris``) and the
    transforms loaded from them (``steps``), for :meth:`template`; ``validate``
    against the schema of ``k8s_version``."""

    policy: str | None
    allow: tuple[str, ...]
    deny: tuple[str, ...]
    conflicts: str
    uris: tuple[str, ...]
    steps: tuple[Any, ...]
    validate: bool = False
    k8s_version: str | None = None
    path_policy: Any = None
    findings: Findings = field(default_factory=Findings)
    macros: dict[str, str] = field(default_factory=dict)
    file_steps: dict[str, Any] = field(default_factory=dict)  # each file's finest steps, read once
    texts: Mapping[str, str] = field(default_factory=dict)  # each file's text, as read
    # the provenance walks and the pods the files before each made, of the template being
    # checked: its findings ask about the same pod, each conflict about two files of it
    walks: dict[tuple[int, int, int], tuple[Any, Any]] = field(default_factory=dict)
    prefixes: dict[tuple[int, int], tuple[Any, Any]] = field(default_factory=dict)

    def _file_steps(self, index: int) -> list[Any]:
        """The finest steps of the ``index``-th overlay file, each file read once a run (one
        whole step where its steps cannot be told: the transform loaded from it)."""
        from combinators import TransformError
        from transforms.analysis.blame import Origin, Step, load_steps

        uri = self.uris[index]
        if uri not in self.file_steps:
            try:
                self.file_steps[uri] = load_steps(uri, text=self.texts.get(uri))
            except TransformError:
                self.file_steps[uri] = None
        found = self.file_steps[uri]
        return found if found is not None else [Step(self.steps[index], Origin(uri))]

    def _writers(self, pod: Any, files: range | None = None) -> Any:
        """The provenance walk of the overlay files' steps (``files``: which, by index;
        all by default) over ``pod``, or ``None`` where a step fails on it; each made once
        a template."""
        from combinators import TransformError
        from transforms.analysis.blame import writers

        files = range(len(self.uris)) if files is None else files
        key = (id(pod), files.start, files.stop)
        found = self.walks.get(key)
        if found is not None and found[0] is pod:
            return found[1]
        try:
            walk = writers(pod, [step for index in files for step in self._file_steps(index)])
        except TransformError:
            walk = None
        self.walks[key] = (pod, walk)
        return walk

    def _before(self, pod: Any, index: int) -> Any:
        """What the overlay files before the ``index``-th make of ``pod`` (``None`` where
        one fails on it), made once a template."""
        from combinators import TransformError, chain

        key = (id(pod), index)
        found = self.prefixes.get(key)
        if found is not None and found[0] is pod:
            return found[1]
        try:
            before = chain(*self.steps[:index])(pod)
        except TransformError:
            before = None
        self.prefixes[key] = (pod, before)
        return before

    def _forget(self) -> None:
        """Let the walks of the last template go: the next asks about another pod."""
        self.walks.clear()
        self.prefixes.clear()

    @classmethod
    def build(
        cls,
        policy: str | None,
        allow: Sequence[str],
        deny: Sequence[str],
        conflicts: str,
        uris: Sequence[str],
        steps: Sequence[Any],
        *,
        validate: bool = False,
        k8s_version: str | None = None,
        texts: Mapping[str, str] | None = None,
    ) -> TemplateChecks:
        """The checks; a path that does not parse, or an unknown ``k8s_version`` where
        ``validate``, is a usage error (exit code 2). ``texts`` are the overlay files'
        texts as they were read (the files are not read again)."""
        if validate:
            check_k8s_version(k8s_version)
        checks = cls(
            policy,
            split_paths(allow),
            split_paths(deny),
            conflicts,
            tuple(uris),
            tuple(steps),
            validate,
            k8s_version,
            texts=dict(texts or {}),
        )
        if checks.allow or checks.deny:
            from combinators import TransformError, path
            from transforms.checks.fields import check_path_fields
            from transforms.checks.paths import PathPolicy

            try:
                checks.path_policy = PathPolicy(allow=checks.allow, deny=checks.deny)
            except TransformError as err:
                flag = "'--allow'" if getattr(err, "argument", "") == "allow" else "'--deny'"
                raise click.BadParameter(str(err), param_hint=flag) from None
            # a path no pod has (a typo, a workload's field) would never match: refused
            for flag, given in (("'--allow'", checks.allow), ("'--deny'", checks.deny)):
                for text in given:
                    try:
                        check_path_fields(path(text), "Pod")
                    except TransformError as err:
                        raise click.BadParameter(str(err), param_hint=flag) from None
        return checks

    def _invalid(self, label: Label, template: Any, before: Any, after: Any) -> list[str]:
        """The errors validation finds in ``after`` that ``before`` did not have (see
        :func:`_same`); the new warnings go to the findings' warnings."""
        from transforms.checks.validation import problems
        from transforms.kube.workloads import with_added_volumes

        found = problems(
            with_added_volumes(after, template), kind=template.root, k8s_version=self.k8s_version
        )
        if not found:  # the usual case: "before" is not validated at all
            return []
        had = {
            _same(problem)
            for problem in problems(
                with_added_volumes(before, template),
                kind=template.root,
                k8s_version=self.k8s_version,
            )
        }
        where = str(template.path)
        errors = []
        for problem in found:
            if _same(problem) in had:
                continue
            line = (
                f"{_joined(where, problem.path)}: {problem.message}{self._by(before, problem.path)}"
            )
            if problem.severity == "error":
                errors.append(line)
            else:
                self.findings.warnings.append(f"{_text(label)}: {line}")
        return errors

    def _macros(self, label: Label, before: Any, after: Any) -> None:
        from transforms.cli.notices import macros_written

        for macro in sorted(macros_written(after, before)):
            if macro not in self.macros:
                self.macros[macro] = _text(label)

    def changed(self, label: Label, template: Any, before: Any, after: Any) -> None:
        """Validate a template the selector did not pick but the overlays changed
        (a patch of whole workloads): the other checks are for the selected ones."""
        self._forget()
        if after is not before:
            self._macros(label, before, after)
        if self.validate and after is not before:
            errors = self._invalid(label, template, before, after)
            if errors:
                self.findings.templates += 1
                self.findings.problems += [f"{_text(label)}: {line}" for line in errors]

    def template(self, label: Label, template: Any, before: Any, after: Any) -> None:
        """Check one template: ``before`` and ``after`` the overlays; ``label`` says where
        (or makes the text that does, called only for a finding)."""
        self._forget()
        if after is not before:
            self._macros(label, before, after)
        invalid = (
            self._invalid(label, template, before, after)
            if self.validate and after is not before
            else []
        )
        found: list[str] = []
        where = (
            str(template.path)
            if self.policy is not None
            or (
                after is not before
                and (self.path_policy is not None or self.conflicts != "last-wins")
            )
            else ""
        )
        if self.policy is not None:
            from transforms.checks.policies import policy_problems

            found += [
                f"{_joined(where, problem.path)}: {problem.message}"
                f"{self._by(before, problem.path) if after is not before else ''}"
                for problem in policy_problems(after, self.policy, kind=template.root)
            ]
        if self.path_policy is not None and after is not before:
            found += [
                f"{_joined(where, problem.path)}: {problem.message}{self._by(before, problem.path)}"
                for problem in self.path_policy.problems(before, after)
            ]
        if self.conflicts != "last-wins" and after is not before:
            for conflict in self._conflicts(before):
                line = f"conflict at {_joined(where, str(conflict))}"
                if self.conflicts == "error":
                    found.append(line)
                else:
                    self.findings.warnings.append(f"{_text(label)}: {line}")
        if found or invalid:
            self.findings.templates += 1
            self.findings.problems += [f"{_text(label)}: {line}" for line in invalid]
            self.findings.violations += [f"{_text(label)}: {line}" for line in found]

    def documents(
        self,
        documents: Sequence[Any],
        result: Sequence[Any],
        selector: Any,
        templates: Sequence[Any] | None = None,
    ) -> None:
        """Check every selected template of ``documents``, as ``result`` has it, and
        validate every other one the overlays changed (``templates``: each document's
        pod templates, where the caller found them already)."""
        from combinators import get_at
        from transforms.cli.documents import template_label
        from transforms.kube.workloads import pod_templates

        for number, (document, overlaid) in enumerate(zip(documents, result, strict=True), 1):
            if overlaid is document and self.policy is None:
                continue  # only a policy checks the templates the overlays left as they were
            found = pod_templates(document) if templates is None else templates[number - 1]
            for template in found:
                selected = selector is None or selector.matches(template)
                if not selected and overlaid is document:
                    continue
                before = get_at(document, template.path) if template.path.parts else document
                after = get_at(overlaid, template.path) if template.path.parts else overlaid
                label = functools.partial(template_label, number, template)
                if selected:
                    self.template(label, template, before, after)
                else:
                    self.changed(label, template, before, after)

    def _by(self, pod: Any, where: str) -> str:
        """`` (written by FILE:LINE)``: the overlay steps that wrote what is at ``where``
        (a path of the pod, as a problem names it) when applied to ``pod``, each with
        the part it wrote where they are several (``FILE:LINE at PATH, ...``); ``''``
        where none can be told. Asked only for a finding."""
        from combinators import TransformError, path

        try:
            at = path(where)
        except TransformError:
            return ""
        walk = self._writers(pod)
        found = [] if walk is None else walk.at(at)
        parts: dict[str, list[str]] = {}
        for item in found:
            parts.setdefault(_label(item.origin), []).append(str(item.change.path))
        if len(parts) <= 1:
            return "".join(f" (written by {label})" for label in parts)
        named = []
        for label, paths in parts.items():
            more = f" and {len(paths) - 1} more" if len(paths) > 1 else ""
            named.append(f"{label} at {paths[0]}{more}")
        return f" (written by {', '.join(named)})"

    def _conflicts(self, pod: Any) -> list[Any]:
        from combinators.conflicts import ConflictError, checked_fold
        from transforms.torchx.origins import unique_labels

        labels = unique_labels(list(self.uris))
        try:
            checked_fold(pod, self.steps, mode="error", labels=labels)
        except ConflictError as err:
            return [
                dataclasses.replace(
                    conflict,
                    first=self._located(pod, labels, conflict.first, conflict.path),
                    second=self._located(pod, labels, conflict.second, conflict.path),
                )
                for conflict in err.conflicts
            ]
        return []

    def _located(self, pod: Any, labels: list[str], label: str, where: Any) -> str:
        """``FILE:LINE`` of the step of the file ``label`` names that last wrote ``where``
        (a conflict's path), applied after the files before it; ``label`` where none can be told."""
        index = labels.index(label)
        before = self._before(pod, index)
        if before is None:
            return label
        walk = self._writers(before, range(index, index + 1))
        found = None if walk is None else walk.last(where)
        if found is None or found.origin is None or found.origin.line is None:
            return label
        return _label(found.origin)

    def report(self, source: str) -> None:
        """Print the warnings, then the problems and violations, and exit 1 if there
        are any."""
        for macro, label in self.macros.items():
            click.echo(
                f"podfold: warning: {source}: {label}: the overlays write the TorchX "
                f"macro {macro}, which only the TorchX fold substitutes; it is left "
                f"as text here",
                err=True,
            )
        for line in self.findings.warnings:
            click.echo(f"podfold: warning: {source}: {line}", err=True)
        failed = self.findings.problems + self.findings.violations
        if failed:
            for line in failed:
                click.echo(f"{source}: {line}", err=True)
            counts = [
                f"{count} {noun}{'s' if count != 1 else ''}"
                for count, noun in (
                    (len(self.findings.problems), "problem"),
                    (len(self.findings.violations), "violation"),
                )
                if count
            ]
            templates = self.findings.templates
            click.echo(
                f"podfold: error: {' and '.join(counts)} in {templates} pod "
                f"template{'s' if templates != 1 else ''}",
                err=True,
            )
            click.get_current_context().exit(1)
