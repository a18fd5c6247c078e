"""Warnings the commands print on stderr, and what finds them: overlay files with no
step, pods podfold cannot reach, TorchX macros left as text.

A warning never fails a command: it is one line, ``podfold: warning: ...``,
naming the file (and the document) it is about.

>>> sorted(macros_written({"env": [{"name": "RANK", "value": "${replica_id}"}]}, {}))
['${replica_id}']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from transforms.forms.macros import TORCHX_MACROS, macros_written

__all__ = ("TORCHX_MACROS", "warn", "warn_empty_overlays", "warn_unreached", "macros_written")

def warn(message: str) -> None:
    """Print ``podfold: warning: message`` on stderr."""
    click.echo(f"podfold: warning: {message}", err=True)


def warn_empty_overlays(uris: Sequence[str], steps: Sequence[Any]) -> None:
    """Warn for each overlay file that holds no step (empty, or only comments)."""
    from combinators import identity

    for uri, step in zip(uris, steps, strict=True):
        if step is identity:
            warn(f"{uri}: the overlay holds no step (the file is empty or only comments); "
                 f"it changes nothing")


def warn_unreached(documents: Sequence[Any], source: str) -> None:
    """Warn for each document that holds pods no overlay reaches (an unknown kind with
    containers, a template that is missing or not a map):
    :func:`~transforms.kube.workloads.unreached_pods`; and for a stream with no document
    at all (an empty file, only comments or ``---``), as kubectl does."""
    from transforms.kube.workloads import unreached_pods

    if not documents:
        warn(f"{source}: no documents (the input is empty, or only comments and '---')")
    for number, document in enumerate(documents, 1):
        for unreached in unreached_pods(document):
            warn(f"{source}: document {number}: {unreached}")
