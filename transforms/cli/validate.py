"""``podfold validate``: the TorchX fold's checks on every pod template of a stream of manifests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import click

from transforms.cli.checks import check_k8s_version, k8s_version_option, policy_option
from transforms.cli.options import debug_option, kinds_option, required_manifests_argument

__all__ = ("validate_command",)


@click.command("validate")
@debug_option
@k8s_version_option
@policy_option
@kinds_option
@required_manifests_argument
def validate_command(
    declared_kinds: tuple[object, ...],
    k8s_version: str | None,
    policy: str | None,
    recursive: bool,
    manifests: tuple[str, ...],
) -> None:
    """Check every pod template of each FILE against the official schema and its references.

    FILEs and DIRs are read as podfold apply reads them (-R for
    subdirectories; '-': stdin), each file on its own.

    The same checks the TorchX fold runs on every pod: unknown fields (with
    a suggestion), types, enumerations, required fields, quantities, volume
    mounts that name no volume, duplicate names, requests above limits. One
    line per problem, naming the document, the template and the path; exit
    code 1 if any is an error (warnings, such as an env name set twice, do
    not fail). With --policy, each template must also meet that Pod Security
    Standard: each violation is an error line, naming the rule. The volumes
    a controller adds to its pods (a StatefulSet's volumeClaimTemplates, a
    JobSet's volumeClaimPolicies) count as the pod's own. A document of a
    kind podfold does not know that holds what looks like containers (image
    or not) is warned about on stderr, and the summary says it was not
    checked ('podfold kinds' lists the kinds podfold knows; --kinds FILE
    declares more, as for podfold apply).

    FILE is read as kubectl reads it: y, yes, on, n, no, off (any case
    kubectl takes) written unquoted are booleans. Where one stands for a
    string (an env value, a label), its line begins with FILE:LINE:COLUMN
    and says to quote it. A FILE with no document (empty, or only comments)
    is an error: there is nothing to find valid.
    """
    from transforms.cli import worker
    from transforms.cli.options import manifest_paths, stream_manifests
    from transforms.cli.withheld import Withheld
    from transforms.run import Checks

    check_k8s_version(k8s_version)  # a usage error, found before any document is read
    checks = Checks(validate=True, k8s_version=k8s_version, only_new=False, policy=policy)
    paths = manifest_paths(manifests, recursive)
    run = _Validation(checks)
    debug = bool((click.get_current_context().find_root().obj or {}).get("debug"))
    # the problems are printed once every stream has been read: a stream refused late (a
    # syntax error in its last document) prints none, as when streams were read whole
    with Withheld("text") as printed:
        if worker.worthwhile(paths, debug):  # a long stream: read here, checked in a worker
            tally = worker.fold_in_worker(run, paths, stream_manifests(paths), printed)
        else:
            for number, stream in enumerate(stream_manifests(paths)):
                for lines in run.stream(stream, len(paths) > 1, number):
                    printed.add_text(lines)
            tally = run.end(len(paths), "")
        printed.release()
    click.echo(f"podfold: {tally.summary()}", err=True)
    if tally.errors:
        click.get_current_context().exit(1)


class _Validation:
    """What ``validate`` does with each stream, a part at a time (:meth:`stream`), and
    with all of them (:meth:`end`): the shape of a run that
    :func:`~transforms.cli.worker.fold_in_worker` can fold in a worker."""

    def __init__(self, checks: Any) -> None:
        from transforms.cli.progress import Progress

        self.checks = checks
        self.tally = _Tally()
        self.progress = Progress(terminal=False)  # validate draws none

    def stream(self, stream: Any, several: bool, number: int) -> Iterator[str]:
        """The problem lines of each part of ``stream``, one text a part (see
        :func:`_validate_stream`); the only stream, with no document, refused."""
        from transforms.cli.options import require_documents

        before = self.tally.documents
        lines: list[str] = []
        for _ in _validate_stream(stream, self.checks, self.tally, lines.append, several):
            yield "".join(lines)
            lines.clear()
        if self.tally.documents == before and not several:
            require_documents([], stream.source, stream.opened, "validate")

    def end(self, streams: int, first_source: str) -> _Tally:
        """The tally of every stream; several files with no document at all refused."""
        from transforms.cli.options import require_documents

        if streams > 1 and not self.tally.documents:
            require_documents([], f"the {streams} files", None, "validate")
        return self.tally


class _Tally:
    """What ``validate`` counts over every stream, for its summary."""

    def __init__(self) -> None:
        self.errors = self.templates = self.unreached = self.documents = 0

    def summary(self) -> str:
        templates, count = self.templates, self.documents
        plural = "s" if templates != 1 else ""
        summary = (
            f"{self.errors} error{'s' if self.errors != 1 else ''} in {templates} "
            f"pod template{plural}"
            if self.errors
            else f"{templates} pod template{plural} in {count} "
            f"document{'s' if count != 1 else ''}: valid"
        )
        if self.unreached:  # "valid" is about the templates checked: say which were not
            summary += (
                f"; {self.unreached} document"
                f"{'s hold' if self.unreached != 1 else ' holds'} pods "
                f"podfold does not reach, not checked (named above)"
            )
        return summary


def _validate_stream(
    stream: Any, checks: Any, tally: _Tally, emit: Any, several: bool
) -> Iterator[None]:
    """Check every pod template of ``stream``, a part at a time, yielding after each:
    ``emit`` each problem's line; warn (on stderr) of what the checks do not reach, as each
    part is read, and of declared places no document of the stream had, once it has all
    been read. A stream with no document is warned about where it is one of ``several``
    (else refused)."""
    from combinators import get_at
    from combinators.limits import short_repr
    from transforms.cli.documents import document_path, template_booleans, template_label
    from transforms.cli.notices import StreamNotices
    from transforms.kube.workloads import pod_templates, with_added_volumes
    from transforms.run import Overlays, run

    none = Overlays([])
    source = stream.source
    notices = StreamNotices(source)
    for part in stream.parts:
        documents, booleans = part.documents, part.booleans
        notices.see(documents, part.first)
        for number, document in enumerate(documents, part.first):
            for template in pod_templates(document):
                tally.templates += 1
                pod = get_at(document, template.path) if template.path.parts else document
                # the run of no overlay: every problem the template has, and its policy's
                found = run(none, pod, checks, kind=template.root, template=template).findings
                if found and booleans:
                    pod = with_added_volumes(pod, template)
                    located = template_booleans(number, template, pod, booleans)
                else:
                    located = {}
                for problem in (finding.found for finding in found):
                    tally.errors += problem.severity == "error"
                    prefix = "" if problem.severity == "error" else "warning: "
                    boolean = (
                        located.get((problem.path, problem.found))
                        if type(problem.found) is bool
                        else None
                    )
                    where, note = (
                        (source, "")
                        if boolean is None
                        else (f"{source}:{boolean.line}:{boolean.column}", f"; {boolean.note()}")
                    )
                    at = short_repr(document_path(str(template.path), problem.path), quoted=False)
                    emit(
                        f"{where}: {template_label(number, template)}: {prefix}{at}: "
                        f"{problem.message}{note}\n"
                    )
        yield
    tally.documents += notices.documents
    tally.unreached += notices.unreached
    if notices.documents or several:  # the only stream, with none: refused by the caller
        notices.end()
