"""What the tests of the built-in kinds share: an upstream manifest's documents, and the
validation errors of a template's pod as its kind's controller makes it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from transforms.checks.validation import problems
from transforms.kube.workloads import with_added_volumes

__all__ = ("MANIFESTS", "documents", "errors")

MANIFESTS = Path(__file__).parent / "manifests"


def documents(name: str) -> list[Any]:
    """The documents of ``tests/manifests/<name>``, read anew (the tests may change them)."""
    return [doc for doc in yaml.safe_load_all((MANIFESTS / name).read_text()) if doc]


def errors(template: Any, value: Any) -> set[tuple[str, str | None]]:
    """The (path, message) of each validation error of ``template``'s pod in ``value``."""
    made = with_added_volumes(value, template)
    return {
        (problem.path, problem.message)
        for problem in problems(made, kind=template.root)
        if problem.severity == "error"
    }
