"""The recipe catalog page, written from the installed catalog when the site is built.

The page's source holds only the marker ``<!-- catalog -->``; this hook puts in
its place, group by group, each recipe's name, its signature and the first
line of its docstring, with a link to its entry in the API reference.

>>> print(signature_of("shm_size", recipes.catalog["shm_size"]))
shm_size(size, container=None, replace=False)
>>> "### `shm_size`" in catalog_markdown(recipes.catalog)
True
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

import recipes

__all__ = ("MARKER", "PAGE", "catalog_markdown", "signature_of", "on_page_markdown")

MARKER = "<!-- catalog -->"
PAGE = "reference/recipes.md"

# the module each recipe is defined in names its group
GROUP_TITLES = {
    "scheduling": "Scheduling",
    "accelerators": "Accelerators",
    "storage": "Storage",
    "containers": "Containers",
    "pod": "Pod",
}


def signature_of(name: str, factory: Callable[..., Any]) -> str:
    """The call as a user writes it: parameters and defaults, no annotations."""
    signature = inspect.signature(factory)
    bare = [
        parameter.replace(annotation=inspect.Parameter.empty)
        for parameter in signature.parameters.values()
    ]
    plain = signature.replace(parameters=bare, return_annotation=inspect.Signature.empty)
    return f"{name}{plain}"


def summary_of(factory: Callable[..., Any]) -> str:
    """The first line of the docstring, with reStructuredText's double backticks made single."""
    lines = (inspect.getdoc(factory) or "").splitlines()
    return lines[0].replace("``", "`") if lines else ""


def catalog_markdown(catalog: Mapping[str, Callable[..., Any]]) -> str:
    """Every recipe of ``catalog``, grouped by the module that defines it, in catalog order."""
    groups: dict[str, list[str]] = {}
    for name, factory in catalog.items():
        module = factory.__module__.rsplit(".", 1)[-1]
        title = GROUP_TITLES.get(module, module.replace("_", " ").capitalize())
        groups.setdefault(title, []).append(
            "\n".join(
                (
                    f"### `{name}`",
                    "",
                    "```python",
                    signature_of(name, factory),
                    "```",
                    "",
                    f"{summary_of(factory)} [Reference](api/recipes.md#recipes.{name})",
                    "",
                )
            )
        )
    count = sum(len(entries) for entries in groups.values())
    parts = [f"{count} recipes, in {len(groups)} groups.", ""]
    for title, entries in groups.items():
        parts.extend((f"## {title}", "", *entries))
    return "\n".join(parts)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """mkdocs' hook: the catalog page gets the catalog in place of its marker."""
    if page.file.src_uri != PAGE:
        return markdown
    if MARKER not in markdown:
        raise ValueError(f"{PAGE} has no {MARKER} marker where the catalog goes")
    return markdown.replace(MARKER, catalog_markdown(recipes.catalog))
