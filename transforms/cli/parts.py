"""Manifest streams read a part at a time: the memory a command holds does not grow with
the length of the stream.

:func:`read_parts` reads an open binary file in parts cut between documents
(:func:`transforms.io.batches.document_parts`), each read as
:func:`~transforms.cli.documents.read_manifest` reads a stream: the same
documents, and the same plain YAML 1.1 booleans, with their documents and lines
counted from the start of the whole stream. Where a part cannot be read (a
syntax error, bytes that are not UTF-8, a document that is no map, aliases that
expand too far, counted over the whole stream), the whole stream is read again
as one, and what that says is what is said: the same error, at the same line, as
reading it whole; so every refusal is worded as it always is.

>>> import io
>>> text = b"kind: Pod\\nmetadata: {name: a}\\n---\\nkind: Pod\\nspec: {hostNetwork: y}\\n"
>>> parts = list(read_parts(io.BytesIO(text), "pods.yaml", size=1))
>>> [(part.first, part.documents) for part in parts]
[(1, [{'kind': 'Pod', 'metadata': {'name': 'a'}}]), (2, [{'kind': 'Pod', 'spec': {'hostNetwork': True}}])]
>>> [(found.document, found.line, found.column) for found in parts[1].booleans]
[(2, 5, 21)]
>>> list(read_parts(io.BytesIO(b"kind: Pod\\n---\\n[a, b\\n"), "bad.yaml", size=1))
Traceback (most recent call last):
  ...
transforms.cli.documents.ManifestError: bad.yaml:4:1: expected ',' or ']', but got '<stream end>'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

__all__ = ("Part", "read_parts")


@dataclass(frozen=True)
class Part:
    """Documents of a stream read together: ``first`` is the number (from 1) of the first
    in the stream, ``booleans`` the plain YAML 1.1 booleans written in them
    (:class:`~transforms.io.booleans.PlainBoolean`: documents and lines of the stream);
    ``folded``, each document with the overlays folded over it, where that was done
    already (by the process that read the second half of a long file:
    :mod:`transforms.cli.halves`), and ``checked``, where the documents from one on
    were checked there too: its index, and what the checks of each half found, in order
    (:meth:`~transforms.cli.checks.TemplateChecks.found`)."""

    documents: list[Any]
    booleans: list[Any]
    first: int
    folded: list[Any] | None = None
    checked: tuple[int, list[Any]] | None = None


def read_parts(handle: IO[bytes], source: str, size: int | None = None) -> Iterator[Part]:
    """The documents ``handle`` reads, a part of about ``size`` bytes at a time
    (:data:`~transforms.io.batches.PART_BYTES` by default; see the module's text);
    ``source`` names the stream in every message. ``handle`` must be
    seekable where a part is refused: the stream is read again, whole, from its start."""
    from transforms.cli.documents import ManifestError, read_manifest
    from transforms.errors import OverlayError
    from transforms.io import batches
    from transforms.io.batches import document_parts
    from transforms.io.safe_yaml import decode, load_manifest_part

    read = 0  # documents given so far
    added = [0]  # nodes the aliases of the stream so far added
    try:
        for data, lines in document_parts(handle, batches.PART_BYTES if size is None else size):
            text = decode(data, source)
            documents, booleans = load_manifest_part(text, source, added)
            if any(type(document) is not dict for document in documents):
                raise ManifestError("a document is no map", source=source)  # said whole, below
            if booleans:
                booleans = [
                    dataclasses.replace(
                        found, document=found.document + read, line=found.line + lines
                    )
                    for found in booleans
                ]
            if documents:
                yield Part(documents, booleans, read + 1)
            read += len(documents)
    except (ManifestError, OverlayError):
        pass  # read whole, below: its error is the one said, as reading it whole says it
    except OSError as err:  # the file failed as it was read (an I/O error, a lost mount)
        raise _unreadable(err, source) from err
    else:
        return
    try:
        handle.seek(0)
        text = decode(handle.read(), source)
    except OSError as err:
        raise _unreadable(err, source) from err
    except OverlayError as err:
        raise ManifestError(
            err.message, source=err.source, line=err.line, column=err.column
        ) from None
    documents, booleans = read_manifest(text, source)
    # read whole, the stream reads (a part did not, where cut: never seen, but then
    # what the whole stream says is right): what the parts gave already is not given again
    rest = [found for found in booleans if found.document > read]
    if documents[read:]:
        yield Part(documents[read:], rest, read + 1)


def _unreadable(err: OSError, source: str) -> Exception:
    from transforms.cli.documents import ManifestError
    from transforms.io.sources import describe_failure

    return ManifestError(
        f"cannot read the manifest: {describe_failure(err, source)}", source=source
    )
