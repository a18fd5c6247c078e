"""``--policy``, ``--allow``, ``--deny``, ``--conflicts``, and validation: the checks on
every pod template ``podfold apply`` and ``podfold explain`` change. The checks are the
run's (:mod:`transforms.run`, shared with the TorchX fold and Flyte); this module holds
the flags, and writes what the run finds as lines.

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

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import click

# what --conflicts takes, as fold() and the run (transforms.run.settings) take it: defined
# once, in combinators, whose module ``podfold --help`` imports already
from combinators.transform import CONFLICT_MODES

if TYPE_CHECKING:
    from transforms.run import Checks, Overlays

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

    @property
    def failed(self) -> bool:
        """Whether what was found fails the command."""
        return bool(self.violations or self.problems)


Label = str | Callable[[], str]
"""Where a template is, for a finding's line: the text, or what makes it when needed."""


def _text(label: Label) -> str:
    return label if isinstance(label, str) else label()


def _joined(prefix: str, path: str) -> str:
    from combinators.limits import short_repr

    # a problem's path as printed: a key of 100,000 characters keeps its start and its end
    path = short_repr(path, quoted=False)
    if not prefix:
        return path
    return f"{prefix}.{path}" if path and not path.startswith("[") else f"{prefix}{path}"


@dataclass
class TemplateChecks:
    """The checks the flags ask for (``checks``, :class:`transforms.run.Checks`) and the
    overlays loaded from their files (``overlays``), made of each pod template by the run
    (:func:`transforms.run.run`); this class only writes what it finds as lines."""

    checks: Checks
    overlays: Overlays
    findings: Findings = field(default_factory=Findings)
    macros: dict[str, str] = field(default_factory=dict)
    _last: Any = field(default=None, repr=False)  # the run :meth:`_located` asks about

    @property
    def policy(self) -> str | None:
        return self.checks.policy

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
        loaded: Sequence[Any] | None = None,
    ) -> TemplateChecks:
        """The checks; a path that does not parse, or an unknown ``k8s_version`` where
        ``validate``, is a usage error (exit code 2). ``loaded`` are the overlays as
        loaded from ``uris`` (:class:`transforms.run.Loaded`), else ``steps`` are their
        transforms and ``texts`` the files' texts as they were read (not read again)."""
        from combinators import TransformError
        from transforms.run import Checks, Overlays, given

        if validate:
            check_k8s_version(k8s_version)
        checks = Checks(
            validate=validate,
            k8s_version=k8s_version,
            policy=policy,
            allow=split_paths(allow),
            deny=split_paths(deny),
            conflicts=conflicts,
        )
        if checks.allow or checks.deny:
            from combinators import path
            from transforms.checks.fields import check_path_fields

            try:
                checks.path_policy  # noqa: B018 - built now: a bad path is a usage error
            except TransformError as err:
                flag = "'--allow'" if getattr(err, "argument", "") == "allow" else "'--deny'"
                raise click.BadParameter(str(err), param_hint=flag) from None
            # a path no pod has (a typo, a workload's field) would never match: refused
            for flag, given_paths in (("'--allow'", checks.allow), ("'--deny'", checks.deny)):
                for text in given_paths:
                    try:
                        check_path_fields(path(text), "Pod")
                    except TransformError as err:
                        raise click.BadParameter(str(err), param_hint=flag) from None
        known = dict(texts or {})
        if loaded is None:
            loaded = [
                given(step, uri, source=uri, text=known.get(uri))
                for uri, step in zip(uris, steps, strict=True)
            ]
        return cls(checks, Overlays(loaded))

    def _located(self, pod: Any, labels: Sequence[str], label: str, where: Any) -> str:
        """``FILE:LINE`` of the step of the overlay file ``label`` names that last wrote
        ``where`` in ``pod`` (:meth:`transforms.run.Run.located`; ``labels`` are the files'
        labels, as the run's are), the run of one pod kept for the questions about it."""
        from transforms.run import run

        last = self._last
        if last is None or last.before is not pod:
            last = self._last = run(self.overlays, pod, after=pod)
        return last.located(label, where)[0]  # type: ignore[no-any-return]

    def _macros(self, label: Label, before: Any, after: Any) -> None:
        from transforms.cli.notices import macros_written

        for macro in sorted(macros_written(after, before)):
            if macro not in self.macros:
                self.macros[macro] = _text(label)

    def changed(
        self,
        label: Label,
        template: Any,
        before: Any,
        after: Any,
        after_template: Any = None,
    ) -> None:
        """Validate a template the selector did not pick but the overlays changed
        (a patch of whole workloads): the other checks are for the selected ones."""
        if after is before and (after_template is None or after_template == template):
            return
        self._macros(label, before, after)
        if self.checks.validate:
            self._written(
                label, template, before, after, self.checks.validation_only, after_template
            )

    def template(
        self,
        label: Label,
        template: Any,
        before: Any,
        after: Any,
        after_template: Any = None,
    ) -> None:
        """Check one template: ``before`` and ``after`` the overlays; ``label`` says where
        (or makes the text that does, called only for a finding). ``after_template`` is
        the template as the result has it, where its kind keeps pod fields apart from it
        (:func:`~transforms.kube.discovery.found_again`): what the overlays wrote there is
        checked as what they wrote in the pod is."""
        if after is not before:
            self._macros(label, before, after)
        self._written(label, template, before, after, self.checks, after_template)

    def _written(
        self,
        label: Label,
        template: Any,
        before: Any,
        after: Any,
        checks: Checks,
        after_template: Any = None,
    ) -> None:
        """Run ``checks`` on the template, and write each finding as a line: an error of
        validation is a problem, any other error a violation, a warning a warning."""
        from transforms.run import run

        if not checks.any:
            return
        done = run(
            self.overlays,
            before,
            checks,
            kind=template.root,
            template=template,
            after=after,
            after_template=after_template,
        )
        if not done.findings:
            return
        from transforms.run import written_by  # only where there is something to say

        where = str(template.path)
        problems: list[str] = []
        violations: list[str] = []
        for finding in done.findings:
            if finding.kind == "conflict":
                # only the path is cut where long: the files that wrote it are named whole
                at = _joined(where, finding.path) if finding.path else where or "(the document)"
                line = f"conflict at {at}: {finding.message}"
            else:
                line = (
                    f"{_joined(where, finding.path)}: {finding.message}"
                    f"{written_by(finding.writers)}"
                )
            if finding.severity != "error":
                self.findings.warnings.append(f"{_text(label)}: {line}")
            elif finding.kind == "validation":
                problems.append(line)
            else:
                violations.append(line)
        if problems or violations:
            self.findings.templates += 1
            self.findings.problems += [f"{_text(label)}: {line}" for line in problems]
            self.findings.violations += [f"{_text(label)}: {line}" for line in violations]

    def documents(
        self,
        documents: Sequence[Any],
        result: Sequence[Any],
        selector: Any,
        templates: Sequence[Any] | None = None,
        first: int = 1,
    ) -> None:
        """Check every selected template of ``documents``, as ``result`` has it, and
        validate every other one the overlays changed (``templates``: each document's
        pod templates, where the caller found them already; ``first``, the number of the
        first of ``documents`` in its stream): the templates the run over documents asks
        about (:func:`~transforms.run.documents.considered_templates`)."""
        from transforms.cli.documents import template_label
        from transforms.run.documents import considered_templates

        for found in considered_templates(
            documents, result, select=selector, templates=templates, policy=self.policy
        ):
            label = functools.partial(template_label, found.index + first, found.template)
            check = self.template if found.selected else self.changed
            check(label, found.template, found.before, found.after, found.after_template)

    def found(self) -> tuple[Findings, dict[str, str]]:
        """What the checks found so far, as :meth:`take` takes it (from another process:
        it pickles)."""
        return self.findings, self.macros

    def take(self, findings: Findings, macros: Mapping[str, str]) -> None:
        """Add what other checks found (:meth:`found`) of the documents that come after
        those checked here, as if they had been checked here.

        >>> from transforms.run import Checks, Overlays
        >>> here, there = (TemplateChecks(Checks(), Overlays([])) for _ in range(2))
        >>> here.findings.problems.append("document 1: a")
        >>> here.macros["$app_id"] = "document 1"
        >>> there.findings = Findings(["document 3: c"], ["document 2: b"], [], 2)
        >>> there.macros.update({"$app_id": "document 2", "${replica_id}": "document 3"})
        >>> here.take(*there.found())
        >>> here.findings, here.macros
        (Findings(violations=['document 3: c'], problems=['document 1: a', 'document 2: b'], warnings=[], templates=2), {'$app_id': 'document 1', '${replica_id}': 'document 3'})
        """
        self.findings.violations += findings.violations
        self.findings.problems += findings.problems
        self.findings.warnings += findings.warnings
        self.findings.templates += findings.templates
        for macro, label in macros.items():
            self.macros.setdefault(macro, label)

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
        if self.findings.failed:
            failed = self.findings.problems + self.findings.violations
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
