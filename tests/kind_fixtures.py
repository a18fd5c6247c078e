"""What the tests of the built-in kinds share: an upstream manifest's documents, and the
validation errors of a template's pod as its kind's controller makes it (what it fills in
is no error)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from transforms.checks.validation import problems, without_filled_in
from transforms.kube.workloads import with_added_volumes

__all__ = ("MANIFESTS", "documents", "errors")

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
