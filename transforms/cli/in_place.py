"""``podfold apply --in-place``: each file the overlays change written back, with only
what changed rewritten (:mod:`transforms.io.splicing`), each whole or not at all
(:mod:`transforms.io.writing`)."""

from __future__ import annotations

from typing import Any

import click

__all__ = ("check_in_place", "write_back")


def check_in_place(manifests: tuple[str, ...], output: str) -> None:
    """Refuse what --in-place cannot do: edit standard input, or print as -o asks."""
    if not manifests or "-" in manifests:
        raise click.UsageError(
            "--in-place writes the files it is given: give FILEs or DIRs, not standard input"
        )
    remote = next((path for path in manifests if "://" in path or "::" in path), None)
    if remote is not None:
        raise click.UsageError(f"--in-place writes files on this machine, not {remote}")
    source = click.get_current_context().get_parameter_source("output")
    if source is not None and source.name != "DEFAULT":
        raise click.UsageError(
            f"--in-place writes each file in its own format; -o {output} is for what is printed"
        )


def write_back(
    streams: list[Any], results: list[list[Any]], halves: list[Any], composed: list[Any]
) -> None:
    """Splice each stream's changes into its file's text and write the files that change,
    each atomically; a file refused is named with why and left as it is (exit 1).
    ``halves`` holds, for each stream, its :class:`~transforms.cli.halves.SecondHalf`
    (a long file read in two halves, the second spliced in a second process), or ``None``;
    ``composed``, what its reader kept of its text
    (:class:`~transforms.io.splicing.Composed`), or ``None``."""
    import gc

    from transforms.io.splicing import SpliceError, splice
    from transforms.io.writing import write_files_in_place

    edited: list[tuple[str, str]] = []
    refused = 0
    # what splicing makes (each text's nodes, the text read back) holds no cycle: the
    # collector would walk every document of the run again and again, for nothing
    gc.disable()
    try:
        for stream, result, half, kept in zip(streams, results, halves, composed, strict=True):
            pairs = list(zip(stream.documents, result, strict=True))
            if all(after is before for before, after in pairs):
                continue
            try:
                text = half.join(pairs) if half is not None else None
                if text is None:  # the halves cannot give what the whole would: spliced whole
                    text = splice(stream.text, pairs, stream.source, composed=kept)
            except SpliceError as err:
                click.echo(f"podfold: error: {err}; the file is left as it is", err=True)
                refused += 1
                continue
            if text != stream.text:
                edited.append((stream.path, text))
    finally:
        gc.enable()
    write_files_in_place(edited)  # each whole or not at all: none, where one cannot be
    for path, _ in edited:
        click.echo(f"podfold: {path}: written in place", err=True)
    if refused:
        click.get_current_context().exit(1)
