"""``podfold kinds``: every workload kind podfold knows, where its pods are, and where
it comes from (built in, a ``--kinds`` file, a package's entry point, Python)."""

from __future__ import annotations

from typing import Any

import click

from transforms.cli.options import debug_option, kinds_option
from transforms.cli.output import echo

__all__ = ("kinds_command", "kind_rows", "describe_place")


def describe_place(location: Any) -> str:
    """What a place of a kind holds, how its role is named, which values are pods, and its
    containers (the main one, steps, where the others are, the name an unnamed one is
    given), in words.

    >>> from transforms.kube.records import kind_from_record
    >>> entry = kind_from_record({"kind": "PyTorchJob", "pods": [{"path": "spec.r[*].template",
    ...     "roleKey": True, "mainContainer": "pytorch"}]})
    >>> describe_place(entry.locations[0])
    'template, role: the key, main container: pytorch'
    >>> flow = kind_from_record({"kind": "Flow", "pods": [{"path": "spec.s[*]", "holds": "spec",
    ...     "roleField": "id", "onlyWith": ["run"], "container": {"at": "run", "name": "main"},
    ...     "containersAt": "helpers"}]})
    >>> describe_place(flow.locations[0])
    'pod spec, role: its id, only with: run, main container: main (at run), others at helpers'
    """
    from combinators.limits import short_names
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
    if location.only_with:
        words.append(f"only with: {' or '.join(location.only_with)}")
    if location.main is not None:
        words.append(
            "main container: the first"
            if location.main == FIRST
            else f"main container: {location.main.name}"
        )
    component = location.component
    if component is None:
        return ", ".join(words)
    if component.container is not None:
        place = component.container
        words.append(
            f"main container: {place.name or 'as named'} (at {short_names(place.at, limit=3)})"
        )
    if component.steps is not None:
        words.append(f"steps at {component.steps.at}")
    if component.containers_at != "containers":
        words.append(f"others at {component.containers_at}")
    if component.container_name is not None:
        words.append(f"unnamed ones named {component.container_name}")
    if component.pod_fields_at is not None:
        words.append(f"pod fields also at {component.pod_fields_at.describe('<role>')}")
    return ", ".join(words)


def _group(entry: Any) -> str:
    if entry.group is None:
        return "any"
    group = entry.group or "core"
    return f"{group}/{entry.version or '*'}"


def _place_row(location: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "path": str(location.path) or "(the document)",
        "holds": describe_place(location),
    }
    if location.filled_in:
        row["filledIn"] = [
            {"path": str(filled.path), "why": filled.why} for filled in location.filled_in
        ]
    return row


def kind_rows() -> list[dict[str, Any]]:
    """Each kind of the current registry, in its order, as a row: ``kind``, ``apiVersion``
    (``any``, ``group/*``, ``group/version``), ``pods`` (``path`` and ``holds`` words) and
    ``origin``; a place whose controller fills in paths of its pod has them too
    (``filledIn``: ``path`` and ``why``).

    >>> [row for row in kind_rows() if row["kind"] == "CronJob"][0]["pods"]
    [{'path': 'spec.jobTemplate.spec.template', 'holds': 'template'}]
    >>> spark = [row for row in kind_rows() if row["kind"] == "SparkApplication"][0]
    >>> spark["pods"][0]["filledIn"][0]["path"]
    'containers[0].image'
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
                "pods": [_place_row(location) for location in entry.locations],
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
    role is named; which values are pods; its main container, its steps,
    where its other containers are), and where the record comes from:
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
