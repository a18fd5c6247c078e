"""``podfold apply``: overlays on every selected pod template of a stream of manifests."""

from __future__ import annotations

from typing import Any

import click

from transforms.cli.checks import TemplateChecks, check_options
from transforms.cli.options import (
    debug_option,
    load_each,
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
@check_options
@click.argument("manifests", metavar="[FILE|-]", type=click.File("r", encoding="utf-8"),
                default="-")
def apply_command(overlays: tuple[str, ...], select: tuple[str, ...], output: str,
                  policy: str | None, allow: tuple[str, ...], deny: tuple[str, ...],
                  conflicts: str, manifests: Any) -> None:
    """Apply overlays to every pod template of a stream of manifests; print the stream.

    Reads YAML (or JSON) documents from FILE, or from stdin with '-' or no
    FILE, applies the overlays in the order given to every pod template the
    selector picks (Pods, Deployments, Jobs, CronJobs, PyTorchJobs, JobSets,
    RayClusters, Volcano Jobs, AppWrappers, ...), and prints every document,
    in order, as YAML (or JSON with -o json). Documents with no pod pass
    through unchanged; a --select that picks no template at all is an error
    listing the templates present.

    With --policy, --allow, --deny or --conflicts error, every selected
    template is checked once overlaid; each violation is listed on stderr,
    naming the document, the template and the path, and nothing is printed
    (exit code 1).

    \b
    podfold apply -f examples/a100.yaml job.yaml | kubectl apply -f -
    podfold apply -f gpu.yaml --select kind=PyTorchJob,role=Worker train.yaml
    podfold apply -f team.yaml --policy restricted --deny 'spec.hostNetwork' job.yaml
    """
    from combinators import chain
    from transforms.cli.documents import dump_documents, read_documents
    from transforms.kube.workloads import apply_to_documents

    selector = parse_selector(select)
    steps = load_each(overlays)
    checks = TemplateChecks.build(policy, allow, deny, conflicts, overlays, steps)
    text, source = read_input(manifests)
    documents = read_documents(text, source)
    result = apply_to_documents(chain(*steps), documents, select=selector, require_match=True)
    if checks.active:
        checks.documents(documents, result, selector)
        checks.report(source)
    click.echo(dump_documents(result, output), nl=False)

