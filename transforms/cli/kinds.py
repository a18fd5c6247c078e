"""``podfold kinds``: every workload kind podfold knows, where its pods are, and where
it comes from (built in, a ``--kinds`` file, a package's entry point, Python)."""

from __future__ import annotations

from typing import Any

import click

from transforms.cli.options import debug_option, kinds_option
from transforms.cli.output import echo

__all__ = ("kinds_command", "kind_rows", "describe_place")


def describe_place(location: Any) -> str:
    """What a place of a kind holds, how its role is named and its main container, in words.

    >>> from transforms.kube.records import kind_from_record
    >>> entry = kind_from_record({"kind": "PyTorchJob", "pods": [{"path": "spec.r[*].template",
    ...     "roleKey": True, "mainContainer": "pytorch"}]})
    >>> describe_place(entry.locations[0])
    'template, role: the key, main container: pytorch'
    """
    from transforms.kube.containers import FIRST
    from transforms.kube.records import BY_KEY, DOCUMENT, POD, SPEC, TEMPLATE

    words = [
        {TEMPLATE: "template", POD: "pod", SPEC: "pod spec", DOCUMENT: "workloads"}.get(
            location.holds, str(location.holds)
        )
    ]
    if location.role is not None:
        words.append(f"role: {location.role}")
    elif location.role_field == BY_KEY:
        words.append("role: the key")
    elif location.role_field is not None:
        words.append(f"role: its {location.role_field}")
    if location.main is not None:
        words.append(
            "main container: the first"
            if location.main == FIRST
            else f"main container: {location.main.name}"
        )
    return ", ".join(words)


def _group(entry: Any) -> str:
    if entry.group is None:
        return "any"
    group = entry.group or "core"
    return f"{group}/{entry.version or '*'}"


def kind_rows() -> list[dict[str, Any]]:
    """Each kind of the current registry, in its order, as a row: ``kind``, ``apiVersion``
    (``any``, ``group/*``, ``group/version``), ``pods`` (``path`` and ``holds`` words) and
    ``origin``.

    >>> [row for row in kind_rows() if row["kind"] == "CronJob"][0]["pods"]
    [{'path': 'spec.jobTemplate.spec.template', 'holds': 'template'}]
    """
    from transforms.kube.registry import BUILT_IN, current_kinds, kind_origin
    from transforms.kube.table import BUILTIN_KINDS

    builtin = {(entry.kind, entry.group, entry.version) for entry in BUILTIN_KINDS}
    rows = []
    for entry in current_kinds():
        origin = kind_origin(entry)
        if origin != BUILT_IN and (entry.kind, entry.group, entry.version) in builtin:
            origin += " (replaces built-in)"
        rows.append(
            {
                "kind": entry.kind,
                "apiVersion": _group(entry),
                "pods": [
                    {
                        "path": str(location.path) or "(the document)",
                        "holds": describe_place(location),
                    }
                    for location in entry.locations
                ],
                "origin": origin,
            }
        )
    return rows


@click.command("kinds")
@debug_option
@kinds_option
@click.option(
    "-o",
    "--output",
    type=click.Choice(("text", "json")),
    default="text",
    show_default=True,
    help="The output format.",
)
def kinds_command(declared_kinds: tuple[object, ...], output: str) -> None:
    """List the workload kinds podfold knows: where each keeps its pods, and where it comes from.

    Each kind with its API group and version ('any': every group without a
    record of its own), each place of its pods (a path, what it holds:
    a pod template, a pod, a bare pod spec, or whole workloads; how its
    role is named; its main container), and where the record comes from:
    built-in, a --kinds file and line, a package's 'podfold.kinds' entry
    point, or the Python module that registered it. With --kinds FILE, the
    file's kinds are listed too, as podfold apply would use them.

    \b
    podfold kinds
    podfold kinds --kinds my-kinds.yaml -o json
    """
    rows = kind_rows()
    if output == "json":
        import json

        echo(json.dumps(rows, indent=2))
        return
    pods = [pod for row in rows for pod in row["pods"]]
    # each column as wide as its widest cell, as kubectl get lays out its table
    widths = (
        max(len(row["kind"]) for row in rows),
        max(len(row["apiVersion"]) for row in rows),
        max(len(row["origin"]) for row in rows),
        max(len(pod["path"]) for pod in pods),
    )

    def line(*cells: str) -> str:
        padded = [f"{cell:<{width}}" for cell, width in zip(cells, widths, strict=False)]
        return "  ".join((*padded, *cells[len(widths) :])).rstrip()

    echo(line("KIND", "APIVERSION", "FROM", "PODS AT", "HOLDS"))
    for row in rows:
        for number, pod in enumerate(row["pods"]):
            first = number == 0
            echo(
                line(
                    row["kind"] if first else "",
                    row["apiVersion"] if first else "",
                    row["origin"] if first else "",
                    pod["path"],
                    pod["holds"],
                )
            )
