"""``podfold apply``: overlays on every selected pod template of a stream of manifests."""

from __future__ import annotations

from typing import Any

import click

from transforms.cli.checks import TemplateChecks, check_options
from transforms.cli.options import (
    debug_option,
    kinds_option,
    load_files,
    output_option,
    overlay_option,
    parse_selector,
    read_input,
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
@click.argument(
    "manifests", metavar="[FILE|-]", type=click.File("r", encoding="utf-8"), default="-"
)
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
    manifests: Any,
) -> None:
    """Apply overlays to every pod template of a stream of manifests; print the stream.

    Reads YAML (or JSON) documents from FILE, or from stdin with '-' or no
    FILE, applies the overlays in the order given to every pod template the
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
    ClusterServingRuntime and LLMInferenceService, the Spark
    operator's SparkApplication, ScheduledSparkApplication and SparkConnect,
    Knative's Service and Configuration (told from the core Service by
    group), KEDA's ScaledJob, Dask's DaskCluster, DaskWorkerGroup and
    DaskJob, Argo's Workflow, WorkflowTemplate, ClusterWorkflowTemplate and
    CronWorkflow (each template with a container or a script), and List ('podfold kinds' lists them all, with where their pods
    are). A document of another kind that holds what
    looks like containers (image or not) is printed unchanged, with a
    warning naming its kind and apiVersion, where the containers are, and a
    kind record that reaches them; overlays that reach no pod template in
    the whole stream are warned about too.

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
    """
    from combinators import chain
    from transforms.cli.documents import boolean_warnings, dump_documents, read_manifest
    from transforms.cli.located import apply_located
    from transforms.cli.notices import (
        warn,
        warn_empty_overlays,
        warn_reached_nothing,
        warn_unmatched_patches,
        warn_unreached,
        warn_unused_places,
    )
    from transforms.cli.output import echo
    from transforms.kube.workloads import pod_templates

    selector = parse_selector(select)
    texts: dict[str, str] = {}  # each overlay file read once: its lines are named from it
    loaded = load_files(overlays, texts)  # and parsed once: its steps keep their lines
    steps = [overlay.transform for overlay in loaded]
    checks = TemplateChecks.build(
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
    warn_empty_overlays(overlays, steps)
    text, source = read_input(manifests)
    documents, booleans = read_manifest(text, source)
    require_documents(documents, source, manifests, "apply the overlays to")
    # the manifest's own problem, not the overlays': said, not failed; the check (and the
    # schema it reads) is loaded only where a plain YAML 1.1 boolean was read
    for line in boolean_warnings(documents, booleans, source, k8s_version) if booleans else ():
        warn(line)
    unreached = warn_unreached(documents, source)
    warn_unused_places(documents, source)
    warn_unmatched_patches(overlays, steps, documents)
    templates = [pod_templates(document) for document in documents]  # found once, used twice
    result = apply_located(
        chain(*steps),
        documents,
        select=selector,
        require_match=True,
        overlays=overlays,
        templates=templates,
        texts=texts,
    )
    warn_reached_nothing(source, steps, documents, templates, result, unreached)
    checks.documents(documents, result, selector, templates)
    checks.report(source)
    echo(dump_documents(result, output), nl=False)
