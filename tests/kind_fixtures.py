"""What the tests of the built-in kinds share: an upstream manifest's documents, and the
validation errors of a template's pod as its kind's controller makes it (what it fills in
is no error)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from transforms.checks.validation import problems, without_filled_in
from transforms.kube.workloads import with_added_volumes

__all__ = ("MANIFESTS", "documents", "errors", "knative_revision")

MANIFESTS = Path(__file__).parent / "manifests"


def documents(name: str) -> list[Any]:
    """The documents of ``tests/manifests/<name>``, read anew (the tests may change them)."""
    return [doc for doc in yaml.safe_load_all((MANIFESTS / name).read_text()) if doc]


def errors(template: Any, value: Any) -> set[tuple[str, str | None]]:
    """The (path, message) of each validation error of ``template``'s pod in ``value``."""
    made = with_added_volumes(value, template)
    found = without_filled_in(
        problems(made, kind=template.root), made, template.filled_in, kind=template.root
    )
    return {(problem.path, problem.message) for problem in found if problem.severity == "error"}


def knative_revision(configuration: Any) -> dict[str, Any]:
    """The Revision Knative makes of a Configuration's (or a Service's) template, as its
    MakeRevision does: the template's metadata and spec, the namespace and a name of the
    Configuration's (Knative's upstream repositories publish no Revision manifest)."""
    template = configuration["spec"]["template"]
    metadata = {
        **template.get("metadata", {}),
        "namespace": configuration["metadata"].get("namespace", "default"),
    }
    metadata.setdefault("name", f"{configuration['metadata']['name']}-00001")
    return {
        "apiVersion": configuration["apiVersion"],
        "kind": "Revision",
        "metadata": metadata,
        "spec": template["spec"],
    }
