"""The recipe catalog page, written from the installed catalog when the site is built.

The page's source holds only the marker ``<!-- catalog -->``; this hook puts in
its place, group by group, each recipe of the installed catalogs (as
``podfold recipes`` lists them) with its signature, its YAML step and the first
line of its docstring, and a link to its entry in the API reference.

>>> catalog = recipe_catalog()
>>> print(signature_of("shm_size", catalog["shm_size"]))
shm_size(size, container=None, replace=False)
>>> entry = catalog_markdown(catalog).split("### `shm_size`", 1)[1].split("###", 1)[0]
>>> print(entry.strip())
```python
shm_size(size, container=None, replace=False)
```
<BLANKLINE>
Size the shared memory at `/dev/shm` (the memory-backed `dshm` emptyDir volume). [Reference](api/recipes.md#recipes.shm_size)
<BLANKLINE>
In YAML: `- {recipe: shm_size, size: ..., container: ..., replace: ...}`
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from transforms.forms.catalog import recipe_catalog, yaml_call

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


def reference(name: str, factory: Callable[..., Any]) -> str:
    """A link to the recipe's entry in the API reference, where podfold's own catalog has it."""
    if factory.__module__.split(".", 1)[0] != "recipes":
        return ""  # a recipe of another package's catalog: its documentation is its own
    return f"[Reference](api/recipes.md#recipes.{name})"


def in_yaml(name: str, factory: Callable[..., Any]) -> tuple[str, ...]:
    """The recipe as a step of a YAML pipeline, as ``podfold recipes NAME`` prints it."""
    step = yaml_call(name, factory)
    return () if step is None else (f"In YAML: `{step}`", "")


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
                    f"{summary_of(factory)} {reference(name, factory)}".rstrip(),
                    "",
                    *in_yaml(name, factory),
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
    return markdown.replace(MARKER, catalog_markdown(recipe_catalog()))
