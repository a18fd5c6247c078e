"""``podfold explain``: what overlays would change, per document and pod template, as a diff."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import click

from transforms.cli.checks import TemplateChecks, check_options
from transforms.cli.options import (
    debug_option,
    kinds_option,
    load_files,
    overlay_option,
    parse_selector,
    required_manifests_argument,
    select_option,
)

__all__ = ("explain_command", "styled_diff")

_STYLES = (
    ("+++", {"bold": True}),
    ("---", {"bold": True}),
    ("@@", {"fg": "cyan"}),
    ("+", {"fg": "green"}),
    ("-", {"fg": "red"}),
)


def styled_diff(lines: Iterable[str], color: bool) -> str:
    """The lines of a unified diff, coloured as ``git diff`` colours them where ``color``.

    >>> styled_diff(["@@ -1 +1 @@\\n", "-a\\n", "+b\\n"], color=True).split("\\n")[1]
    '\\x1b[31m-a\\x1b[0m'
    >>> styled_diff(["-a\\n"], color=False)
    '-a\\n'
    """
    out = []
    for line in lines:
        style = next((style for prefix, style in _STYLES if line.startswith(prefix)), None)
        if color and style is not None:
            out.append(click.style(line.rstrip("\n"), **style) + "\n")
        else:
            out.append(line)
    return "".join(out)


def _yaml_lines(value: Any) -> list[str]:
    from transforms.cli.documents import dump_documents

    return dump_documents([value]).splitlines(keepends=True)


@click.command("explain")
@debug_option
@overlay_option
@select_option
@click.option(
    "--blame",
    is_flag=True,
    help="Name, for every changed field, the overlay file and line, or the "
    "recipe and step, that wrote it.",
)
@click.option(
    "--color",
    type=click.Choice(("auto", "always", "never")),
    default="auto",
    show_default=True,
    help="Colour the diff (auto: when stdout is a terminal).",
)
@check_options
@kinds_option
@required_manifests_argument
def explain_command(
    declared_kinds: tuple[object, ...],
    overlays: tuple[str, ...],
    select: tuple[str, ...],
    blame: bool,
    color: str,
    no_validate: bool,
    k8s_version: str | None,
    policy: str | None,
    allow: tuple[str, ...],
    deny: tuple[str, ...],
    conflicts: str,
    recursive: bool,
    manifests: tuple[str, ...],
) -> None:
    """Show what the overlays would change in each FILE, per document and pod template.

    FILEs and DIRs are read as podfold apply reads them (-R for
    subdirectories; '-': stdin), each file on its own; with several,
    each template's label begins with its file.

    A unified diff of each pod template's YAML; templates that do not change
    are left out. A step that acts on the workload object (kueue_queue) shows
    as a diff of the workload's metadata, where it is written. With --blame, each changed field is listed with the step
    that wrote it last: 'a100.yaml:5: partial pod', or 'a100.yaml:10:
    document 2, step 1: recipe shm_size('16Gi') > its step 3 of 3: ...';
    a field several steps wrote parts of is listed by part, each with its
    step: 'spec.volumes[name=dshm]' and 'spec.volumes[name=creds]' where two
    files each added one volume.
    Each changed template is validated as podfold apply validates it (unless
    --no-validate), and with --policy, --allow, --deny or --conflicts each
    selected template is checked as for podfold apply: findings are listed on
    stderr after the diffs, and a problem or a violation makes the exit code 1.
    Warnings are those of podfold apply, and so is --kinds FILE.
    """
    from combinators import chain
    from transforms.cli.notices import warn_empty_overlays
    from transforms.cli.options import manifest_paths, stream_manifests
    from transforms.cli.withheld import Withheld
    from transforms.kube.selection import SelectionSeen

    selector = parse_selector(select)
    texts: dict[str, str] = {}  # each overlay file read once: blame names lines from it
    loaded = load_files(overlays, texts)  # and parsed once: its steps keep their lines
    each = [overlay.transform for overlay in loaded]
    checks = TemplateChecks.build(
        policy,
        allow,
        deny,
        conflicts,
        overlays,
        each,
        validate=not no_validate,
        k8s_version=k8s_version,
        loaded=loaded,
    )
    warn_empty_overlays(overlays, each)
    paths = manifest_paths(manifests, recursive, overlays)
    several = len(paths) > 1
    explained = _Explained(
        chain(*each),
        each,
        [step for overlay in loaded for step in overlay.steps] if blame else [],
        overlays,
        texts,
        selector,
        checks,
        blame,
        color,
    )
    seen = SelectionSeen(selector) if selector is not None else None
    # the diffs are printed once every stream has been read: a stream refused late (a
    # syntax error in its last document), or an overlay failing there, prints none
    with Withheld("text") as printed:
        explained.out = printed.add_text
        for stream in stream_manifests(paths):
            explained.stream(stream, f"{stream.source}: " if several else "", seen)
            if seen is not None and not several:
                seen.check()
        if seen is not None and several:
            seen.check()  # picks something somewhere: each file may lack it
        printed.add_text(explained.summary() + "\n")
        printed.release(color={"auto": None, "always": True, "never": False}[color])
    first = "<stdin>" if paths[0] == "-" else paths[0]
    checks.report(first if not several else f"the {len(paths)} files")


class _Explained:
    """What ``explain`` diffs and checks each stream with, a part at a time, and what it
    counts of them all: ``out`` takes the text it prints."""

    def __init__(
        self,
        transform: Any,
        each: list[Any],
        steps: list[Any],
        overlays: tuple[str, ...],
        texts: dict[str, str],
        selector: Any,
        checks: Any,
        blame: bool,
        color: str,
    ) -> None:
        from transforms.kube.scopes import is_workload_level

        self.transform, self.each, self.overlays, self.texts = transform, each, overlays, texts
        self.selector, self.checks, self.blame, self.color = selector, checks, blame, color
        self.steps = steps
        # a workload-level step (kueue_queue) acts on the workload's metadata, not its pods
        self.workload_steps = [step for step in steps if is_workload_level(step.transform)]
        self.pod_steps = [step for step in steps if not is_workload_level(step.transform)]
        self.changed = self.total = self.workloads = self.read = 0
        self.out: Any = None

    def summary(self) -> str:
        total, read, workloads = self.total, self.read, self.workloads
        return (
            f"# {self.changed} of {total} pod template{'s' if total != 1 else ''} "
            f"in {read} document{'s' if read != 1 else ''} change"
            + (
                f"; the metadata of {workloads} workload{'s' if workloads != 1 else ''} changes"
                if workloads
                else ""
            )
        )

    def stream(self, stream: Any, prefix: str, seen: Any) -> None:
        """Diff and check each part of ``stream``; warn, as each part is read, of pods no
        overlay reaches and, once it has all been read, of workload patches and declared
        places that met nothing in it."""
        from transforms.cli.located import apply_located
        from transforms.cli.notices import StreamNotices
        from transforms.kube.workloads import pod_templates

        source = stream.source
        notices = StreamNotices(source, self.overlays, self.each)
        for part in stream.parts:
            documents = part.documents
            notices.see(documents, part.first)
            templates = [pod_templates(document) for document in documents]
            if seen is not None:
                seen.see(templates)
            result = apply_located(
                self.transform,
                documents,
                select=self.selector,
                overlays=self.overlays,
                templates=templates,
                texts=self.texts,
                first=part.first,
            )
            for number, (document, after, found) in enumerate(
                zip(documents, result, templates, strict=True), part.first
            ):
                self.document(prefix, number, document, after, found)
        self.read += notices.documents
        notices.end()

    def document(
        self, prefix: str, number: int, document: Any, after_document: Any, templates: Any
    ) -> None:
        """Diff and check each pod template of one document, and its workload's metadata."""
        from combinators import exists, get_at
        from transforms.cli.documents import template_label
        from transforms.kube.discovery import found_again, made_pod
        from transforms.kube.workloads import workloads_of

        selector, checks = self.selector, self.checks
        for template in templates:
            before = get_at(document, template.path) if template.path.parts else document
            after = get_at(after_document, template.path) if template.path.parts else after_document
            label = prefix + template_label(number, template)
            # where the kind keeps pod fields apart (a Tekton run's podTemplate), the
            # template as the result has them: what the overlays wrote there counts
            again = found_again(template, after_document)
            if selector is not None and not selector.matches(template):
                checks.changed(label, template, before, after, again)
                continue
            self.total += 1
            checks.template(label, template, before, after, again)
            blamed = self.steps if template.workload_metadata is None else self.pod_steps
            shown = (
                None if again is template else (made_pod(before, template), made_pod(after, again))
            )
            self.changed += self.show(label, before, after, blamed, shown)
        for metadata in workloads_of(templates, selector):
            if metadata.path is None:
                continue
            before = (
                {"metadata": get_at(document, metadata.path)}
                if exists(document, metadata.path)
                else {}
            )
            after = (
                {"metadata": get_at(after_document, metadata.path)}
                if exists(after_document, metadata.path)
                else {}
            )
            self.workloads += self.show(
                f"{prefix}document {number}: {metadata.describe()}",
                before,
                after,
                self.workload_steps,
            )

    def show(
        self,
        label: str,
        before: Any,
        after: Any,
        blamed: list[Any],
        seen: tuple[Any, Any] | None = None,
    ) -> bool:
        """Write the diff of ``before`` and ``after`` (and its blame); whether they differ.
        ``seen``: the two pods the diff is of, where they are not ``before`` and ``after``
        themselves (a kind that keeps pod fields apart from its template)."""
        from transforms.analysis.blame import blame as blame_of
        from transforms.analysis.explanation import changes_between, unified_diff

        old, new = seen if seen is not None else (before, after)
        changes = changes_between(old, new) if old is not new else []
        if not changes:
            return False
        count = len(changes)
        out = self.out
        out(click.style(f"# {label}: {count} change{'s' if count != 1 else ''}", bold=True) + "\n")
        out(styled_diff(unified_diff(_yaml_lines(old), _yaml_lines(new)), self.color != "never"))
        if self.blame:
            out("# blame:\n")
            for found in blame_of(blamed, before):
                origin = found.origin if found.origin is not None else "(no one step)"
                out(f"#   {found.change.path or '(the pod)'}  <- {origin}\n")
        return True
