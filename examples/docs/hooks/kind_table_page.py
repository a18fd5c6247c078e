"""The table of built-in workload kinds, written from the kind registry when the site is built.

The page's source holds only the marker ``<!-- kinds -->``; this hook puts in
its place one row for each place of each built-in kind's pods, in the
registry's order (as ``podfold kinds`` lists them): the kind and its API
group, the path, what the place holds, how its role is named and its main
container. The table is the records themselves, so it cannot say other than
the code does.

>>> from transforms.kube.table import BUILTIN_KINDS
>>> rows = kind_rows(BUILTIN_KINDS)
>>> print(rows[0])
| `Pod` | any | (the document) | a pod | - | - |
>>> print(next(row for row in rows if "`PyTorchJob`" in row))
| `PyTorchJob` | any | `spec.pytorchReplicaSpecs[*].template` | a pod template | the key | `pytorch` |
>>> print(next(row for row in rows if "`Workflow`" in row))
| `Workflow` | `argoproj.io/*` | `spec.templates[*]` | a bare pod spec, among fields of the kind's own, where it has `container` or `script` | its `name` | `main`, at `container` or `script` |
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from transforms.kube.containers import FIRST
from transforms.kube.records import BY_KEY, DOCUMENT, POD, SPEC, TEMPLATE, Location, WorkloadKind
from transforms.kube.table import BUILTIN_KINDS

__all__ = ("MARKER", "PAGE", "kind_rows", "kind_table", "on_page_markdown")

MARKER = "<!-- kinds -->"
PAGE = "reference/kinds.md"

_HOLDS = {
    TEMPLATE: "a pod template",
    POD: "a pod",
    SPEC: "a bare pod spec",
    DOCUMENT: "whole workloads",
}


def _group(entry: WorkloadKind) -> str:
    """The record's ``apiVersion`` as ``podfold kinds`` words it: ``any`` where it has none."""
    if entry.group is None:
        return "any"
    return f"`{entry.group or 'core'}/{entry.version or '*'}`"


def _holds(location: Location) -> str:
    words = _HOLDS.get(location.holds, str(location.holds))
    if location.component is not None:
        words += ", among fields of the kind's own"
    if location.only_with:
        either = " or ".join(f"`{name}`" for name in location.only_with)
        words += f", where it has {either}"
    return words


def _role(location: Location) -> str:
    if location.role is not None:
        return f"`{location.role}`"
    if location.role_field == BY_KEY:
        return "the key"
    if location.role_field is not None:
        return f"its `{location.role_field}`"
    return "-"


def _main(location: Location) -> str:
    place = None if location.component is None else location.component.container
    if place is not None and place.name is not None:
        others = len(place.at) - 1
        more = (
            f" (or {others} other keys)"
            if others > 1
            else (f" or `{place.at[1]}`" if others else "")
        )
        return f"`{place.name}`, at `{place.at[0]}`{more}"
    if location.main is None:
        return "-"
    return "the first" if location.main == FIRST else f"`{location.main.name}`"


def kind_rows(kinds: Iterable[WorkloadKind]) -> list[str]:
    """One table row for each place of each kind's pods; the kind and group on its first."""
    rows = []
    for entry in kinds:
        for number, location in enumerate(entry.locations):
            first = number == 0
            cells = (
                f"`{entry.kind}`" if first else "",
                _group(entry) if first else "",
                f"`{location.path}`" if str(location.path) else "(the document)",
                _holds(location),
                _role(location),
                _main(location),
            )
            rows.append("| " + " | ".join(cells) + " |")
    return rows


def kind_table(kinds: Iterable[WorkloadKind]) -> str:
    """The whole table, with its header and a line counting the kinds."""
    entries = list(kinds)
    header = (
        "| Kind | apiVersion | Pods at | Holds | Role | Main container |",
        "|---|---|---|---|---|---|",
    )
    count = f"{len(entries)} built-in kinds."
    return "\n".join((count, "", *header, *kind_rows(entries)))


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """mkdocs' hook: the kinds page gets the built-in kinds' table in place of its marker."""
    if page.file.src_uri != PAGE:
        return markdown
    if MARKER not in markdown:
        raise ValueError(f"{PAGE} has no {MARKER} marker where the kind table goes")
    return markdown.replace(MARKER, kind_table(BUILTIN_KINDS))
