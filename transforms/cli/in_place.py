"""``podfold apply --in-place``: each file the overlays change written back, with only
what changed rewritten (:mod:`transforms.io.splicing`), each whole or not at all
(:mod:`transforms.io.writing`)."""

from __future__ import annotations

import functools
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

    from transforms.cli.shared_splices import splice_all
    from transforms.io.splicing import SpliceError
    from transforms.io.writing import write_files_in_place

    edited: list[tuple[str, str]] = []
    refused = 0
    changed: list[Any] = []  # each changed stream, and what splices it
    for stream, result, half, kept in zip(streams, results, halves, composed, strict=True):
        pairs = list(zip(stream.documents, result, strict=True))
        if any(after is not before for before, after in pairs):
            done = functools.partial(_spliced, stream, pairs, half, kept)
            # a file of two halves is joined here, where its second process answers
            changed.append((stream, (None if half is not None else len(stream.text), done)))
    debug = bool((click.get_current_context().find_root().obj or {}).get("debug"))
    # what splicing makes (each text's nodes, the text read back) holds no cycle: the
    # collector would walk every document of the run again and again, for nothing
    gc.disable()
    try:
        texts = splice_all([splices for _, splices in changed], debug)
    finally:
        gc.enable()
    for (stream, _), text in zip(changed, texts, strict=True):
        if isinstance(text, SpliceError):
            click.echo(f"podfold: error: {text}; the file is left as it is", err=True)
            refused += 1
        elif text != stream.text:
            edited.append((stream.path, text))
    write_files_in_place(edited)  # each whole or not at all: none, where one cannot be
    for path, _ in edited:
        click.echo(f"podfold: {path}: written in place", err=True)
    if refused:
        click.get_current_context().exit(1)


def _spliced(stream: Any, pairs: list[tuple[Any, Any]], half: Any, kept: Any) -> str:
    """``stream``'s text with the changes of ``pairs`` spliced in: joined from its halves
    where it has them (:class:`~transforms.cli.halves.SecondHalf`), else spliced whole by
    the nodes its reader ``kept``, where it kept them."""
    from transforms.io.splicing import splice

    text = half.join(pairs) if half is not None else None
    if text is None:  # the halves cannot give what the whole would: spliced whole
        text = splice(stream.text, pairs, stream.source, composed=kept)
    return text
