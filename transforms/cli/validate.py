"""``podfold validate``: the TorchX fold's checks on every pod template of a stream of manifests."""

from __future__ import annotations

from typing import Any

import click

from transforms.cli.checks import check_k8s_version, k8s_version_option, policy_option
from transforms.cli.options import debug_option, read_input

__all__ = ("validate_command",)

def _joined(prefix: str, path: str) -> str:
    if not prefix:
        return path
    return f"{prefix}.{path}" if path and not path.startswith("[") else f"{prefix}{path}"


@click.command("validate")
@debug_option
@k8s_version_option
@policy_option
@click.argument("manifests", metavar="FILE|-", type=click.File("r", encoding="utf-8"))
def validate_command(k8s_version: str | None, policy: str | None, manifests: Any) -> None:
    """Check every pod template of FILE against the official schema and its references.

    The same checks the TorchX fold runs on every pod: unknown fields (with
    a suggestion), types, enumerations, required fields, quantities, volume
    mounts that name no volume, duplicate names, requests above limits. One
    line per problem, naming the document, the template and the path; exit
    code 1 if any is an error (warnings, such as an env name set twice, do
    not fail). With --policy, each template must also meet that Pod Security
    Standard: each violation is an error line, naming the rule. The volumes
    a controller adds to its pods (a StatefulSet's volumeClaimTemplates, a
    JobSet's volumeClaimPolicies) count as the pod's own. A document of a
    kind podfold does not know that holds containers is warned about on
    stderr (see podfold apply --help for the kinds podfold knows).
    """
    from combinators import get_at
    from transforms.checks.validation import problems
    from transforms.cli.documents import read_documents, template_label
    from transforms.cli.notices import warn_unreached
    from transforms.kube.workloads import pod_templates, with_added_volumes

    check_k8s_version(k8s_version)  # a usage error, found before any document is read
    text, source = read_input(manifests)
    documents = read_documents(text, source)
    warn_unreached(documents, source)
    errors = templates = 0
    for number, document in enumerate(documents, 1):
        for template in pod_templates(document):
            templates += 1
            pod = get_at(document, template.path) if template.path.parts else document
            pod = with_added_volumes(pod, template)
            found = problems(pod, kind=template.root, k8s_version=k8s_version)
            if policy is not None:
                from transforms.checks.policies import policy_problems

                found += policy_problems(pod, policy, kind=template.root)
            for problem in found:
                errors += problem.severity == "error"
                prefix = "" if problem.severity == "error" else "warning: "
                click.echo(f"{source}: {template_label(number, template)}: {prefix}"
                           f"{_joined(str(template.path), problem.path)}: {problem.message}")
    plural = "s" if templates != 1 else ""
    summary = (f"{errors} error{'s' if errors != 1 else ''} in {templates} pod template{plural}"
               if errors else f"{templates} pod template{plural} in {len(documents)} "
                              f"document{'s' if len(documents) != 1 else ''}: valid")
    click.echo(f"podfold: {summary}", err=True)
    if errors:
        click.get_current_context().exit(1)
