"""Warnings the commands print on stderr, and what finds them: overlay files with no
step, pods podfold cannot reach, overlays that reach no pod, TorchX macros left as text.

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

__all__ = (
    "TORCHX_MACROS",
    "warn",
    "warn_empty_overlays",
    "warn_unmatched_patches",
    "warn_unreached",
    "warn_reached_nothing",
    "warn_reached_none",
    "UnmatchedPatches",
    "UnusedPlaces",
    "StreamNotices",
    "warn_unused_places",
    "macros_written",
)


def warn(message: str) -> None:
    """Print ``podfold: warning: message`` on stderr (a progress line there cleared first)."""
    from transforms.cli.progress import clear

    clear()
    click.echo(f"podfold: warning: {message}", err=True)


def warn_empty_overlays(uris: Sequence[str], steps: Sequence[Any]) -> None:
    """Warn for each overlay file that holds no step (empty, or only comments)."""
    from combinators import identity

    for uri, step in zip(uris, steps, strict=True):
        if step is identity:
            warn(
                f"{uri}: the overlay holds no step (the file is empty or only comments); "
                f"it changes nothing"
            )


def warn_unmatched_patches(
    uris: Sequence[str], steps: Sequence[Any], documents: Sequence[Any]
) -> None:
    """Warn for each workload patch (a strategic patch naming its kind and name, as
    kustomize writes one) that targets no document of the stream: it changes nothing."""
    patches = UnmatchedPatches(uris, steps)
    patches.see(documents)
    patches.warn()


def _searched(documents: Sequence[Any]) -> list[Any]:
    """The documents, and the items of each ``kind: List`` among them."""
    return [
        *documents,
        *(
            item
            for document in documents
            if isinstance(document, dict) and document.get("kind") == "List"
            for item in (document.get("items") or [])
        ),
    ]


class UnmatchedPatches:
    """:func:`warn_unmatched_patches`, for a stream seen a part at a time: what it keeps
    is a flag a patch and the workload kinds seen, whatever the stream's length."""

    def __init__(self, uris: Sequence[str], steps: Sequence[Any]) -> None:
        self.patches = [
            (uri, patch)
            for uri, step in zip(uris, steps, strict=True)
            for patch in _workload_patches(step)
        ]
        self.matched = [False] * len(self.patches)
        self.kinds: set[str] = set()

    def see(self, documents: Sequence[Any]) -> None:
        """Note the workload patches that target one of ``documents``."""
        if not self.patches:
            return
        from transforms.kube.workloads import workload_kind

        searched = _searched(documents)
        for index, (_, patch) in enumerate(self.patches):
            if not self.matched[index]:
                self.matched[index] = any(patch.matches_document(each) for each in searched)
        self.kinds.update(
            str(document.get("kind"))
            for document in searched
            if isinstance(document, dict)
            and workload_kind(document.get("kind"), document.get("apiVersion")) is not None
        )

    def warn(self) -> None:
        """Warn for each patch that targeted no document seen."""
        kinds = sorted(self.kinds)
        for (uri, patch), matched in zip(self.patches, self.matched, strict=True):
            if matched:
                continue
            metadata = patch.patch.get("metadata")
            name = metadata.get("name") if isinstance(metadata, dict) else None
            warn(
                f"{uri}: the strategic patch for {patch.patch.get('kind')}"
                f"{f' {name!r}' if name else ''} matches no document of the stream, so it "
                f"changes nothing (workloads present: {', '.join(kinds) or 'none'})"
            )


def _workload_patches(step: Any) -> list[Any]:
    """The strategic patches of whole workloads in ``step``, found as the workload API
    finds them (:func:`~transforms.kube.scopes.split_at_documents`: compositions and
    recipe bodies are searched)."""
    from transforms.kube.scopes import is_document_level, split_at_documents

    return [piece for piece in split_at_documents(step) if is_document_level(piece)]


def warn_unreached(
    documents: Sequence[Any],
    source: str,
    *,
    first: int = 1,
    recorded: set[tuple[str | None, str]] | None = None,
    whole: bool = True,
) -> int:
    """Warn for each document that holds pods no overlay reaches (an unknown kind with
    what looks like containers, a template that is missing or not a map):
    :func:`~transforms.kube.workloads.unreached_pods`; and for a stream with no document
    at all (an empty file, only comments or ``---``), as kubectl does. Returns how many
    documents were warned about. For a part of a stream (``whole`` false), ``first`` is
    the number of its first document, ``recorded`` the kinds whose record was shown
    already (and is given this part's)."""
    from textwrap import indent

    from transforms.kube.table import api_group
    from transforms.kube.workloads import unreached_pods

    if not documents and whole:
        warn(f"{source}: no documents (the input is empty, or only comments and '---')")
    warned = 0
    recorded = set() if recorded is None else recorded  # each kind's record once
    for number, document in enumerate(documents, first):
        found = unreached_pods(document)
        warned += bool(found)
        for unreached in found:
            said = f"{source}: document {number}: {unreached}"
            key = (unreached.kind, api_group(unreached.api_version))
            if unreached.record and key not in recorded:
                recorded.add(key)
                said += (
                    "; a record that reaches its containers, to check and put in a "
                    "--kinds file:\n" + indent(unreached.record, "    ").rstrip("\n")
                )
            warn(said)
    return warned


def warn_unused_places(documents: Sequence[Any], source: str) -> None:
    """Warn for each place (``pods[i]``) of a declared kind's record (a ``--kinds`` file's,
    a package's, one registered in Python) that no document of that kind in the stream
    has, as a ``--select`` that picks nothing is warned about: a path mistyped, or a
    kind's other version. Kinds with no document in the stream are not about it."""
    places = UnusedPlaces()
    places.see(documents)
    places.warn(source)


class StreamNotices:
    """What a command that reads a stream a part at a time says of it besides its own
    output, the same for ``apply``, ``explain`` and ``validate``: as each part is read
    (:meth:`see`), the documents holding pods no overlay reaches
    (:func:`warn_unreached`, each kind's record shown once); once it has all been read
    (:meth:`end`), a stream with no document, and the declared places
    (:class:`UnusedPlaces`) and workload patches (:class:`UnmatchedPatches`, of ``uris``
    and their ``steps``) that met nothing in it. ``documents`` and ``unreached`` count
    what was read and warned about."""

    def __init__(self, source: str, uris: Sequence[str] = (), steps: Sequence[Any] = ()) -> None:
        self.source = source
        self.places = UnusedPlaces()
        self.patches = UnmatchedPatches(uris, steps)
        self.recorded: set[tuple[str | None, str]] = set()
        self.documents = 0
        self.unreached = 0

    def see(self, documents: Sequence[Any], first: int) -> None:
        """Warn of what ``documents`` (the part whose first is document ``first``) hold
        that no overlay reaches; note them for :meth:`end`."""
        self.documents += len(documents)
        self.unreached += warn_unreached(
            documents, self.source, first=first, recorded=self.recorded, whole=False
        )
        self.places.see(documents)
        self.patches.see(documents)

    def end(self) -> None:
        """Warn of a stream with no document, and of the places and patches that met
        nothing in it."""
        if not self.documents:
            warn(f"{self.source}: no documents (the input is empty, or only comments and '---')")
        self.places.warn(self.source)
        self.patches.warn()


class UnusedPlaces:
    """:func:`warn_unused_places`, for a stream seen a part at a time: what it keeps is a
    count a declared kind and the places reached, whatever the stream's length."""

    def __init__(self) -> None:
        from transforms.kube.registry import current_kinds

        self.registry = current_kinds()
        self.seen: dict[Any, int] = {}  # each declared kind: how many of its documents
        self.reached: set[tuple[Any, int]] = set()

    def see(self, documents: Sequence[Any]) -> None:
        """Note the declared kinds of ``documents`` and the places they have."""
        from combinators.data import is_map
        from transforms.kube.records import reach
        from transforms.kube.registry import BUILT_IN, kind_origin

        seen, reached = self.seen, self.reached
        for document in _searched(documents):
            if not is_map(document):
                continue
            entry = self.registry.lookup(document.get("kind"), document.get("apiVersion"))
            if entry is None or kind_origin(entry) == BUILT_IN:
                continue
            seen[entry] = seen.get(entry, 0) + 1
            for index, location in enumerate(entry.locations):
                if (entry, index) not in reached and any(
                    True for _ in reach(document, location.path.parts, location)
                ):
                    reached.add((entry, index))

    def warn(self, source: str) -> None:
        """Warn for each place of a declared kind seen that no document of it had."""
        from transforms.kube.registry import kind_origin

        for entry, count in self.seen.items():
            for index, location in enumerate(entry.locations):
                if (entry, index) in self.reached:
                    continue
                documents_of = f"{count} {entry.kind} document{'s' if count != 1 else ''}"
                warn(
                    f"{kind_origin(entry)}: kind record {entry.kind}, pods[{index}]: no "
                    f"document of {source} has {location.path or 'the top level'} (of its "
                    f"{documents_of}), so no pod is found there"
                )


def warn_reached_nothing(
    source: str,
    steps: Sequence[Any],
    documents: Sequence[Any],
    templates: Sequence[Sequence[Any]],
    result: Sequence[Any],
    unreached: int = 0,
) -> None:
    """Warn where overlays with steps in them met no pod template in the whole stream, and
    so changed nothing (as a ``--select`` that picks nothing is refused; kubectl has no
    such case, so it is no error). Where ``unreached`` documents were warned about
    already (:func:`warn_unreached`: pods no overlay reaches), it says so."""
    changed = any(after is not before for after, before in zip(result, documents, strict=True))
    warn_reached_none(source, steps, len(documents), any(templates) or changed, unreached)


def warn_reached_none(
    source: str, steps: Sequence[Any], count: int, reached: bool, unreached: int = 0
) -> None:
    """:func:`warn_reached_nothing` of a stream of ``count`` documents, seen a part at a
    time: ``reached``, whether any held a pod template or was changed."""
    from combinators import identity

    if not count or reached or all(step is identity for step in steps):
        return
    if unreached:  # each was named: say what it comes to
        held = (
            f"podfold reaches the pods of none of the {unreached} documents that hold some"
            if unreached != 1
            else "podfold does not reach the pods of the document that holds some"
        )
        warn(
            f"{source}: the overlays reach no pod template: {held} (named above), so "
            f"nothing changed"
        )
        return
    held = (
        f"none of the {count} documents holds one podfold knows of"
        if count != 1
        else "the document holds none podfold knows of"
    )
    warn(f"{source}: the overlays reach no pod template: {held}, so nothing changed")
