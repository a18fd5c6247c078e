"""``podfold apply``: overlays on every selected pod template of a stream of manifests."""

from __future__ import annotations

from typing import Any

import click

from transforms.cli.options import (
    debug_option,
    load_overlays,
    output_option,
    overlay_option,
    parse_selector,
    read_input,
    select_option,
)

__all__ = ("apply_command",)


@click.command("apply")
@debug_option
@overlay_option
@select_option
@output_option
@click.argument("manifests", metavar="[FILE|-]", type=click.File("r", encoding="utf-8"),
                default="-")
def apply_command(overlays: tuple[str, ...], select: tuple[str, ...], output: str,
                  manifests: Any) -> None:
    """Apply overlays to every pod template of a stream of manifests; print the stream.

    Reads YAML (or JSON) documents from FILE, or from stdin with '-' or no
    FILE, applies the overlays in the order given to every pod template the
    selector picks (Pods, Deployments, Jobs, CronJobs, PyTorchJobs, JobSets,
    RayClusters, Volcano Jobs, AppWrappers, ...), and prints every document,
    in order, as YAML (or JSON with -o json). Documents with no pod pass
    through unchanged; a --select that picks no template at all is an error
    listing the templates present.

    \b
    podfold apply -f examples/a100.yaml job.yaml | kubectl apply -f -
    podfold apply -f gpu.yaml --select kind=PyTorchJob,role=Worker train.yaml
    """
    from transforms.cli.documents import dump_documents, read_documents
    from transforms.kube.workloads import apply_to_documents

    selector = parse_selector(select)
    transform = load_overlays(overlays)
    text, source = read_input(manifests)
    documents = read_documents(text, source)
    result = apply_to_documents(transform, documents, select=selector, require_match=True)
    click.echo(dump_documents(result, output), nl=False)
