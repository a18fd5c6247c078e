"""``--policy``, ``--allow``, ``--deny``, ``--conflicts``: the checks on every pod template
``podfold apply`` and ``podfold explain`` change.

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
stderr; any violation (a conflict only with ``error``) fails the command with
exit code 1 and prints no documents.

>>> from transforms.cli.checks import split_paths
>>> split_paths(("spec.hostNetwork;spec.hostPID", "spec.containers[*].securityContext"))
('spec.hostNetwork', 'spec.hostPID', 'spec.containers[*].securityContext')
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import click

__all__ = ("PROFILES", "CONFLICT_MODES", "policy_option", "path_options", "conflicts_option",
           "check_options", "split_paths", "TemplateChecks", "Findings")

PROFILES = ("baseline", "restricted")
"""The Pod Security Standards profiles (``transforms.checks.policies.PROFILES``, named
here so that ``podfold --help`` imports no checks)."""

CONFLICT_MODES = ("last-wins", "warn", "error")
"""What ``--conflicts`` takes (the TorchX run option ``conflicts`` takes the same)."""

F = TypeVar("F", bound=Callable[..., Any])


def policy_option(command: F) -> F:
    """``--policy baseline|restricted``."""
    return click.option("--policy", type=click.Choice(PROFILES), default=None,
                        help="A Pod Security Standards profile every selected pod template "
                             "must meet once overlaid.")(command)


def path_options(command: F) -> F:
    """``--allow PATH`` and ``--deny PATH``, repeatable, ``;``-separated."""
    command = click.option("--deny", "deny", multiple=True, metavar="PATH[;PATH]",
                           help="A path the overlays may not change, e.g. "
                                "'spec.containers[*].securityContext' (repeatable).")(command)
    return click.option("--allow", "allow", multiple=True, metavar="PATH[;PATH]",
                        help="Paths the overlays may change: no other (repeatable).")(command)


def conflicts_option(command: F) -> F:
    """``--conflicts last-wins|warn|error``."""
    return click.option("--conflicts", type=click.Choice(CONFLICT_MODES), default="last-wins",
                        show_default=True,
                        help="When two overlay files write different values at one path: "
                             "let the last win, warn, or fail.")(command)


def check_options(command: F) -> F:
    """``--policy``, ``--allow``, ``--deny`` and ``--conflicts`` together."""
    return policy_option(path_options(conflicts_option(command)))


def split_paths(given: Sequence[str]) -> tuple[str, ...]:
    """The paths of repeated ``--allow``/``--deny`` flags, each ``;``-separated (see the module)."""
    return tuple(item.strip() for flag in given for item in flag.split(";") if item.strip())


@dataclass
class Findings:
    """What the checks found: ``violations`` fail the command, ``warnings`` do not;
    ``templates`` counts the templates that had a violation."""

    violations: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    templates: int = 0


def _joined(prefix: str, path: str) -> str:
    if not prefix:
        return path
    return f"{prefix}.{path}" if path and not path.startswith("[") else f"{prefix}{path}"


@dataclass
class TemplateChecks:
    """The checks the flags ask for, with the overlays' files (``uris``) and the
    transforms loaded from them (``steps``), for :meth:`template`."""

    policy: str | None
    allow: tuple[str, ...]
    deny: tuple[str, ...]
    conflicts: str
    uris: tuple[str, ...]
    steps: tuple[Any, ...]
    path_policy: Any = None
    findings: Findings = field(default_factory=Findings)

    @classmethod
    def build(cls, policy: str | None, allow: Sequence[str], deny: Sequence[str],
              conflicts: str, uris: Sequence[str], steps: Sequence[Any]) -> TemplateChecks:
        """The checks; a path that does not parse is a usage error (exit code 2)."""
        checks = cls(policy, split_paths(allow), split_paths(deny), conflicts, tuple(uris),
                     tuple(steps))
        if checks.allow or checks.deny:
            from combinators import TransformError
            from transforms.checks.paths import PathPolicy

            try:
                checks.path_policy = PathPolicy(allow=checks.allow, deny=checks.deny)
            except TransformError as err:
                flag = "'--allow'" if getattr(err, "argument", "") == "allow" else "'--deny'"
                raise click.BadParameter(str(err), param_hint=flag) from None
        return checks

    @property
    def active(self) -> bool:
        """Whether any check was asked for."""
        return bool(self.policy or self.path_policy is not None or self.conflicts != "last-wins")

    def template(self, label: str, template: Any, before: Any, after: Any) -> None:
        """Check one template: ``before`` and ``after`` the overlays; ``label`` says where."""
        where = str(template.path)
        found: list[str] = []
        if self.policy is not None:
            from transforms.checks.policies import policy_problems

            found += [f"{_joined(where, problem.path)}: {problem.message}"
                      for problem in policy_problems(after, self.policy, kind=template.root)]
        if self.path_policy is not None and after is not before:
            found += [f"{_joined(where, problem.path)}: {problem.message}"
                      for problem in self.path_policy.problems(before, after)]
        if self.conflicts != "last-wins" and after is not before:
            for conflict in self._conflicts(before):
                line = f"conflict at {_joined(where, str(conflict))}"
                if self.conflicts == "error":
                    found.append(line)
                else:
                    self.findings.warnings.append(f"{label}: {line}")
        if found:
            self.findings.templates += 1
            self.findings.violations += [f"{label}: {line}" for line in found]

    def documents(self, documents: Sequence[Any], result: Sequence[Any], selector: Any) -> None:
        """Check every selected template of ``documents``, as ``result`` has it."""
        from combinators import get_at
        from transforms.cli.documents import template_label
        from transforms.kube.workloads import pod_templates

        for number, (document, overlaid) in enumerate(zip(documents, result, strict=True), 1):
            for template in pod_templates(document):
                if selector is not None and not selector.matches(template):
                    continue
                before = get_at(document, template.path) if template.path.parts else document
                after = get_at(overlaid, template.path) if template.path.parts else overlaid
                self.template(template_label(number, template), template, before, after)

    def _conflicts(self, pod: Any) -> list[Any]:
        from combinators.conflicts import ConflictError, checked_fold
        from transforms.torchx.origins import unique_labels

        labels = unique_labels(list(self.uris))
        try:
            checked_fold(pod, self.steps, mode="error", labels=labels)
        except ConflictError as err:
            return [dataclasses.replace(
                conflict, first=self._located(pod, labels, conflict.first, conflict.path),
                second=self._located(pod, labels, conflict.second, conflict.path))
                for conflict in err.conflicts]
        return []

    def _located(self, pod: Any, labels: list[str], label: str, where: Any) -> str:
        from combinators import chain
        from transforms.torchx.origins import written_at

        index = labels.index(label)
        before = chain(*self.steps[:index])(pod)
        return written_at(before, self.uris[index], where) or label

    def report(self, source: str) -> None:
        """Print the warnings, then the violations and exit 1 if there are any."""
        for line in self.findings.warnings:
            click.echo(f"podfold: warning: {source}: {line}", err=True)
        if self.findings.violations:
            for line in self.findings.violations:
                click.echo(f"{source}: {line}", err=True)
            count, templates = len(self.findings.violations), self.findings.templates
            click.echo(f"podfold: error: {count} violation{'s' if count != 1 else ''} in "
                       f"{templates} pod template{'s' if templates != 1 else ''}", err=True)
            click.get_current_context().exit(1)
