"""``podfold apply``: overlays on every selected pod template of a stream of manifests."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import click

from transforms.cli.checks import TemplateChecks, check_options
from transforms.cli.options import (
    debug_option,
    kinds_option,
    load_files,
    manifests_argument,
    output_option,
    overlay_option,
    parse_selector,
    require_documents,
    select_option,
)

__all__ = ("apply_command",)


@click.command("apply")
@debug_option
@overlay_option
@select_option
@output_option
@check_options
@kinds_option
@click.option(
    "-i",
    "--in-place",
    is_flag=True,
    help="Write the overlays' changes into each FILE (and each file of each DIR) that "
    "they change, keeping its comments, layout and quoting; print nothing.",
)
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="Draw no progress line on stderr (drawn only where stderr is a terminal, once "
    "the run takes more than a second).",
)
@manifests_argument
def apply_command(
    declared_kinds: tuple[object, ...],
    overlays: tuple[str, ...],
    select: tuple[str, ...],
    output: str,
    no_validate: bool,
    k8s_version: str | None,
    policy: str | None,
    allow: tuple[str, ...],
    deny: tuple[str, ...],
    conflicts: str,
    in_place: bool,
    quiet: bool,
    recursive: bool,
    manifests: tuple[str, ...],
) -> None:
    """Apply overlays to every pod template of a stream of manifests; print the stream.

    Reads YAML (or JSON) documents from each FILE, from each file of each DIR
    whose name ends in .yaml, .yml or .json (and of its subdirectories with
    -R), in the order of their names, as 'kubectl apply -f DIR' does, or
    from stdin with '-' or no FILE; each file is a stream of its own, and
    every message names it. Applies the overlays in the order given to every pod template the
    selector picks, and prints every document, in order, as YAML (or JSON
    with -o json). Documents with no pod pass through unchanged; a --select
    that picks no template at all is an error listing the templates present.
    An error while an overlay applies names its file and line. A stream
    with no document (an empty file: 'podfold apply ... job.yaml >
    job.yaml' empties job.yaml before podfold reads it) is an error, as
    for 'kubectl apply', and so is output that cannot be written whole.

    \b
    The kinds podfold knows, and so where their pods are: Pod, PodTemplate,
    Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController,
    Job, CronJob, Volcano Job, CronJob and JobTemplate, AppWrapper (both
    APIs, and the workloads they wrap), JobSet, Kubeflow PyTorchJob, TFJob,
    MPIJob, XGBoostJob, PaddleJob and JAXJob, Kubeflow Trainer's
    TrainingRuntime and ClusterTrainingRuntime, RayCluster, RayJob,
    RayService, RayCronJob, LeaderWorkerSet, KServe's InferenceService,
    ServingRuntime, ClusterServingRuntime and LLMInferenceService, the Spark
    operator's SparkApplication, ScheduledSparkApplication and SparkConnect,
    Knative's Service, Configuration and Revision (told from the core
    Service by group), KEDA's ScaledJob, Dask's DaskCluster, DaskWorkerGroup
    and DaskJob, Argo's Workflow, WorkflowTemplate, ClusterWorkflowTemplate
    and CronWorkflow (each template with a container or a script), Tekton's
    Task, TaskRun, Pipeline and PipelineRun, Kueue's Workload, and List
    ('podfold kinds' lists them all, with where their pods are). A document
    of another kind that holds what looks like containers (image or not) is
    printed unchanged, with a warning naming its kind and apiVersion, where
    the containers are, and a kind record that reaches them; overlays that
    reach no pod template in the whole stream are warned about too.

    --kinds FILE (repeatable) declares more kinds for the run: a YAML list
    of kind records (apiVersion, kind, pods: path, holds, role...), checked
    as an overlay file is (an unknown field is refused with its near miss,
    each error names FILE:LINE). A record of a kind and group podfold has
    replaces podfold's. A place of a record that no document of its kind in
    the stream has is warned about. Packages declare kinds with a
    'podfold.kinds' entry point.

    A step that acts on the workload object, not its pods (kueue_queue: Kueue
    reads the queue on the workload) is applied once to the workload's own
    metadata (a CronJob's spec.jobTemplate.metadata, the AppWrapper's around
    what it wraps, the pod's for a Pod), where a selected template is.

    Every pod template the overlays change is validated, as podfold
    validate does, against the schema of --k8s-version (default the newest
    bundled): each problem the overlays brought (one the template already
    had is not reported) is listed on stderr, naming the document, the
    template and the path, nothing is printed and the exit code is 1;
    warnings are listed and do not fail. --no-validate skips this.

    With --policy, --allow, --deny or --conflicts error, every selected
    template is checked once overlaid; each violation is listed on stderr
    the same way, and fails the command the same way.

    Also warned about on stderr: a YAML 1.1 boolean written plain (y, n,
    yes, on, ...) where the manifest wants a string (kubectl reads it as the
    boolean, which the API server refuses: quote it), an overlay file with
    no step, and a TorchX
    macro (${replica_id}, ${app_id}, ...) an overlay writes, which only the
    TorchX fold substitutes: apply leaves it as text.

    \b
    podfold apply -f examples/a100.yaml job.yaml | kubectl apply -f -
    podfold apply -f gpu.yaml --select kind=PyTorchJob,role=Worker train.yaml
    podfold apply -f team.yaml --policy restricted --deny 'spec.hostNetwork' job.yaml
    podfold apply -f examples/a100.yaml -R -i manifests/

    With -i (--in-place) nothing is printed: each file the overlays change is
    written back, and only those, with every comment, blank line, key order,
    quoting style, flow or block style, block scalar and '---' kept, and
    only the lines the change needs rewritten; new fields are written as
    podfold apply writes them. A file whose change cannot be written
    exactly (a value reached through an alias or a merge key '<<') is
    refused, naming its line, and left as it is; the others are written.
    Each file is written whole or not at all (a temporary file in its
    directory, renamed over it, its mode kept): an interrupted run or a
    full disk leaves no file half-written. Nothing is written where a
    check fails.
    """
    from transforms.cli.progress import Progress

    if in_place:
        from transforms.cli.in_place import check_in_place

        check_in_place(manifests, output)
    progress = Progress(quiet=quiet)
    make = functools.partial(
        _made_run,
        overlays,
        select,
        policy,
        allow,
        deny,
        conflicts,
        no_validate,
        k8s_version,
        progress,
    )
    try:
        if in_place:
            _apply_in_place(make(), manifests, recursive, overlays)
            return
        from transforms.cli.withheld import Withheld

        with Withheld(output) as printed:
            paths = _made_in_worker(manifests, recursive, overlays)
            if paths is not None:
                from transforms.cli import worker
                from transforms.cli.options import stream_manifests

                worker.fold_in_worker(
                    make, paths, stream_manifests(paths), printed, progress=progress
                )
            else:
                _apply_streams(make(), manifests, recursive, overlays, printed)
            progress.close()
            printed.release()
    finally:
        progress.close()


def _made_run(
    overlays: tuple[str, ...],
    select: tuple[str, ...],
    policy: str | None,
    allow: tuple[str, ...],
    deny: tuple[str, ...],
    conflicts: str,
    no_validate: bool,
    k8s_version: str | None,
    progress: Any,
) -> _Run:
    """The run of ``apply``'s options: the overlays loaded, the checks built (a bad flag is
    a usage error before any manifest is read), an overlay file with no step warned about."""
    from combinators import chain

    selector = parse_selector(select)
    texts: dict[str, str] = {}  # each overlay file read once: its lines are named from it
    loaded = load_files(overlays, texts)  # and parsed once: its steps keep their lines
    steps = [overlay.transform for overlay in loaded]
    build = functools.partial(
        TemplateChecks.build,
        policy,
        allow,
        deny,
        conflicts,
        overlays,
        steps,
        validate=not no_validate,
        k8s_version=k8s_version,
        loaded=loaded,
    )
    checks = build()  # a bad flag (a path, a version): a usage error before any manifest is read
    from transforms.cli.notices import warn_empty_overlays

    warn_empty_overlays(overlays, steps)
    return _Run(
        chain(*steps), steps, overlays, texts, selector, build, checks, k8s_version, progress
    )


def _made_in_worker(
    manifests: tuple[str, ...], recursive: bool, overlays: tuple[str, ...]
) -> list[str] | None:
    """The paths of ``manifests`` where the run is made in the worker that folds them
    (:func:`~transforms.cli.worker.fold_in_worker`), so that this process reads the first
    parts while the worker loads the overlays: a long stream (:func:`~transforms.cli.worker.worthwhile`)
    of regular files named each, whose paths are found without a word said. Else
    ``None``: the run is made first, here. A directory's files are found after the
    overlays are loaded, and what is said of them is said after what loading says. And
    stdin may stall (a pipe whose writer waits): an overlay refused must be said at
    once, not once the pipe has given a part."""
    import os

    from transforms.cli import worker
    from transforms.cli.options import manifest_paths

    debug = bool((click.get_current_context().find_root().obj or {}).get("debug"))
    if (
        not manifests
        or not worker.can_fork(debug)
        or any(path == "-" or not os.path.isfile(path) for path in manifests)
    ):
        return None
    try:
        paths = manifest_paths(manifests, recursive, overlays)
    except Exception:  # said once the overlays are loaded, as it always is
        return None
    return paths if worker.worthwhile(paths, debug) else None


class _Run:
    """What ``apply`` folds and checks each stream with, and what it learns of them all."""

    def __init__(
        self,
        transform: Any,
        steps: list[Any],
        overlays: tuple[str, ...],
        texts: dict[str, str],
        selector: Any,
        build: Any,
        checks: Any,
        k8s_version: str | None,
        progress: Any,
    ) -> None:
        self.transform, self.steps, self.overlays, self.texts = transform, steps, overlays, texts
        self.selector, self.build, self.checks = selector, build, checks
        self.k8s_version = k8s_version
        self.documents = 0  # of every stream
        self.reached = False  # a pod template met, or a document changed, in any stream
        self.unreached = 0  # documents warned about, holding pods podfold does not reach
        self.failed = 0  # streams whose checks failed
        self.progress = progress  # drawn where stderr is a terminal and the run is long
        from transforms.kube.selection import SelectionSeen

        # what the selector picked: in the only stream, or in any of several
        self.seen = SelectionSeen(selector) if selector is not None else None

    def fold(self, documents: list[Any], first: int, templates: Any = None) -> list[Any]:
        """The overlays folded over ``documents`` (the first of them the stream's
        ``first``), nothing checked or said: each document's result. ``templates`` are
        each document's pod templates, where they were found already."""
        from transforms.cli.located import apply_located

        if templates is None:
            from transforms.kube.workloads import pod_templates

            templates = [pod_templates(document) for document in documents]
        return apply_located(
            self.transform,
            documents,
            select=self.selector,
            overlays=self.overlays,
            templates=templates,
            texts=self.texts,
            first=first,
        )

    def check(self, documents: list[Any], result: list[Any], first: int) -> tuple[Any, Any]:
        """Check ``documents`` (``result`` the overlays' fold of them, the first of them
        the stream's ``first``) apart from any stream, in another process (the second
        half of a long file's): what the checks found, for the stream's checks to take
        (:meth:`~transforms.cli.checks.TemplateChecks.take`)."""
        from transforms.kube.workloads import pod_templates

        checks = self.build()
        templates = [pod_templates(document) for document in documents]
        checks.documents(documents, result, self.selector, templates, first=first)
        found: tuple[Any, Any] = checks.found()
        return found

    def stream(self, stream: Any, several: bool, number: int) -> Iterator[list[Any]]:
        """Fold the overlays over each part of ``stream`` (its documents, read as asked
        for) and check them; give each part's result. Said at the end: the checks'
        findings, workload patches and places of kinds that met nothing; a selection
        that picks nothing in the only stream is an error."""
        from transforms.cli.documents import boolean_warnings
        from transforms.cli.notices import StreamNotices, warn
        from transforms.kube.workloads import pod_templates

        source, selector = stream.source, self.selector
        checks = self.checks if number == 0 else self.build()  # each file's, with its name
        notices = StreamNotices(source, self.overlays, self.steps)
        seen = self.seen
        progress = self.progress
        progress.update(files=1)
        for part in stream.parts:
            documents, first = part.documents, part.first
            # the manifest's own problem, not the overlays': said, not failed; the check (and
            # the schema it reads) is loaded only where a plain YAML 1.1 boolean was read
            if part.booleans:
                for line in boolean_warnings(
                    documents, part.booleans, source, self.k8s_version, first=first
                ):
                    warn(line)
            notices.see(documents, first)
            # each document's pod templates, found once, for the fold, the checks and notices
            templates = [pod_templates(document) for document in documents]
            if seen is not None:
                seen.see(templates)
            result = part.folded
            if result is None:
                result = self.fold(documents, first, templates)
            checked = part.checked
            if checked is None:
                checks.documents(documents, result, selector, templates, first=first)
            else:  # those from ``since`` on were checked as each half was read
                since = checked[0]
                if since:
                    checks.documents(
                        documents[:since], result[:since], selector, templates[:since], first=first
                    )
                for found in checked[1]:
                    checks.take(*found)
            if not self.reached:
                self.reached = any(templates) or any(
                    after is not before for after, before in zip(result, documents, strict=True)
                )
            # the templates changed are counted only where the line is drawn
            changed = _changed(templates, result, documents) if progress.on else 0
            progress.update(documents=len(documents), changed=changed)
            yield result
        progress.erase()  # what follows is said on lines of its own
        self.documents += notices.documents
        self.unreached += notices.unreached
        if not notices.documents and not several:
            require_documents([], source, stream.opened, "apply the overlays to")
        notices.end()
        if seen is not None and not several:
            seen.check()
        try:
            checks.report(source)
        except click.exceptions.Exit:  # said, naming the file: the others are checked too
            self.failed += 1

    def end(self, streams: int, first_source: str) -> None:
        """What is said of all the streams: overlays that reached nothing, a stream of
        several files with no document at all; exit 1 where a stream's checks failed."""
        from transforms.cli.notices import warn_reached_none

        if streams > 1 and not self.documents:
            require_documents([], f"the {streams} files", None, "apply the overlays to")
        if streams > 1 and self.seen is not None:
            self.seen.check()  # picks something somewhere: each file may lack it
        everywhere = first_source if streams == 1 else f"the {streams} files"
        warn_reached_none(everywhere, self.steps, self.documents, self.reached, self.unreached)
        if self.failed:
            click.get_current_context().exit(1)


def _changed(templates: list[Any], result: list[Any], documents: list[Any]) -> int:
    """How many pod templates of ``documents`` ``result`` changed."""
    from combinators import TransformError, get_at

    changed = 0
    for found, after, before in zip(templates, result, documents, strict=True):
        if after is not before:
            for template in found:
                parts = template.path.parts
                try:
                    same = (
                        get_at(after, template.path) is get_at(before, template.path)
                        if parts
                        else after is before
                    )
                except TransformError:  # the overlays moved it: changed
                    same = False
                changed += not same
    return changed


def _apply_streams(
    run: _Run,
    manifests: tuple[str, ...],
    recursive: bool,
    overlays: tuple[str, ...],
    printed: Any,
) -> None:
    """Fold and check each stream a part at a time, adding each part's result to
    ``printed`` (:class:`~transforms.cli.withheld.Withheld`)."""
    from transforms.cli.options import manifest_paths, stream_manifests

    paths = manifest_paths(manifests, recursive, overlays)
    from transforms.cli import worker

    debug = bool((click.get_current_context().find_root().obj or {}).get("debug"))
    if worker.worthwhile(paths, debug):  # a long stream: read here, folded in a worker
        worker.fold_in_worker(run, paths, stream_manifests(paths), printed)
        return
    several = len(paths) > 1
    first_source = "<stdin>"
    for number, stream in enumerate(stream_manifests(paths)):
        if number == 0:
            first_source = stream.source
        for result in run.stream(stream, several, number):
            printed.add(result)
    run.end(len(paths), first_source)


def _apply_in_place(
    run: _Run, manifests: tuple[str, ...], recursive: bool, overlays: tuple[str, ...]
) -> None:
    """Fold and check each file whole, and write back those the overlays change; a
    long file read, folded and spliced in two halves, the second in a second process
    (:class:`~transforms.cli.halves.SecondHalf`)."""
    import gc

    from transforms.cli.halves import Read, SecondHalf
    from transforms.cli.in_place import write_back
    from transforms.cli.options import Streamed, read_manifests
    from transforms.cli.parts import Part
    from transforms.io.splicing import Composed

    debug = bool((click.get_current_context().find_root().obj or {}).get("debug"))
    results: list[list[Any]] = []
    started: list[SecondHalf] = []  # every second process, ended as the run ends
    halves: list[SecondHalf | None] = []  # each stream's, where its halves read it
    reads: list[Read | None] = []  # and what they read: folded, and checked

    def read_text(source: str, text: str) -> tuple[list[Any], list[Any]] | None:
        half = SecondHalf.start(text, source, run.fold, debug, into=started, check=run.check)
        read = half.read(run.fold) if half is not None else None
        halves.append(half if read is not None else None)
        reads.append(read)
        return (read.documents, read.booleans) if read is not None else None

    try:
        # each stream's nodes kept as they were composed: its text is edited by them
        streams = read_manifests(
            manifests, recursive, "apply the overlays to", overlays, nodes=True, read_text=read_text
        )
        # what was read lives to the run's end: the collector need not walk it again
        gc.freeze()
        several = len(streams) > 1
        composed = [Composed.of(stream.text, stream.nodes) for stream in streams]
        for number, stream in enumerate(streams):
            read = reads[number]
            whole = Part(stream.documents, stream.booleans, 1)
            if read is not None:  # folded, and checked, as its halves were read
                whole = Part(stream.documents, stream.booleans, 1, read.folded, read.checked)
            parts = iter([whole] if stream.documents else [])
            streamed = Streamed(stream.source, stream.path, stream.path, parts)
            results.append(
                [doc for result in run.stream(streamed, several, number) for doc in result]
            )
        run.end(len(streams), streams[0].source if streams else "<stdin>")
        write_back(streams, results, halves, composed)
    finally:
        gc.unfreeze()
        for half in started:
            half.cancel()  # a run that failed, or ended: no second process outlives it
