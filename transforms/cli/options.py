"""What the commands share: ``--debug``, ``-f OVERLAY``, ``--select``, ``-o``, ``--kinds``,
reading a stream, and refusing one with no document."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import click

from transforms.cli.documents import FORMATS, ManifestError

__all__ = (
    "debug_option",
    "overlay_option",
    "select_option",
    "output_option",
    "kinds_option",
    "read_input",
    "manifests_argument",
    "required_manifests_argument",
    "Manifest",
    "read_manifests",
    "Streamed",
    "manifest_paths",
    "stream_manifests",
    "load_overlays",
    "load_each",
    "load_files",
    "parse_selector",
    "NoDocumentsError",
    "require_documents",
)

F = TypeVar("F", bound=Callable[..., Any])


def _set_debug(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    root = ctx.find_root()
    if value and isinstance(root.obj, dict):
        root.obj["debug"] = True


def debug_option(command: F) -> F:
    """``--debug``: a traceback with every error (accepted before or after the command)."""
    return click.option(
        "--debug",
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=_set_debug,
        help="Print the traceback with an error.",
    )(command)


def overlay_option(command: F) -> F:
    """``-f/--filename OVERLAY``, repeatable, applied in the order given."""
    return click.option(
        "-f",
        "--filename",
        "overlays",
        multiple=True,
        required=True,
        metavar="OVERLAY",
        help="An overlay: a YAML file or any fsspec URI (s3://, gs://, "
        "https://...). Repeat it to apply several, in order.",
    )(command)


def select_option(command: F) -> F:
    """``--select SEL``, repeatable: which pod templates, as ``kind=...,role=...,label:k=v``."""
    return click.option(
        "--select",
        "select",
        multiple=True,
        metavar="SEL",
        help="Only the pod templates that match, e.g. "
        "'kind=PyTorchJob,role=Worker' or 'name=web,label:team=ml'. "
        "Repeated, the conditions join as within one: a field given "
        "more than once (kind, name, role) matches either value, "
        "different fields and every label must all hold.",
    )(command)


def output_option(command: F) -> F:
    """``-o yaml|json``."""
    return click.option(
        "-o",
        "--output",
        type=click.Choice(FORMATS),
        default="yaml",
        show_default=True,
        help="The output format.",
    )(command)


def _use_kinds(ctx: click.Context, _param: click.Parameter, value: Sequence[str]) -> Any:
    """Read the ``--kinds`` files and run the command in the registry they make with the
    current one (:func:`~transforms.kube.registry.using_kinds`), until it ends: what
    the overlay files build (a strategic patch of a declared kind) is built in it too.
    The declared kinds are the parameter's value."""
    if not value:
        return ()
    from transforms.io.kind_files import load_kind_files
    from transforms.kube.registry import using_kinds

    found = load_kind_files(value)
    ctx.with_resource(using_kinds(found))
    return found


def kinds_option(command: F) -> F:
    """``--kinds FILE``, repeatable: kind records (where a kind keeps its pods) for this run."""
    return click.option(
        "--kinds",
        "declared_kinds",
        multiple=True,
        metavar="FILE",
        callback=_use_kinds,
        help="A YAML file of kind records: where the pods of a kind podfold does "
        "not know are (or of one it knows: a record of a kind and group "
        "that podfold has replaces it). Repeat it for several; 'podfold "
        "kinds' lists every kind known.",
    )(command)


def read_input(stream: Any) -> tuple[str, str]:
    """The text of a ``click.File`` argument and the name to give it in errors, read
    within the bounds :func:`transforms.cli.documents.read_input` keeps (a device, a
    source over the size limit, a file that is not UTF-8: one line, exit 1)."""
    from transforms.cli import documents

    return documents.read_input(stream)


def manifests_argument(command: F) -> F:
    """``[FILE|DIR|-]...`` and ``-R/--recursive``: the manifests, as ``kubectl apply -f``
    takes them (none, or ``-``: standard input)."""
    return _manifests(command, required=False)


def required_manifests_argument(command: F) -> F:
    """``FILE|DIR|-...``: as :func:`manifests_argument`, at least one (``-`` for stdin)."""
    return _manifests(command, required=True)


def _manifests(command: F, required: bool) -> F:
    command = click.option(
        "-R",
        "--recursive",
        is_flag=True,
        help="Read the directories given, and their subdirectories, each file whose "
        "name ends in .yaml, .yml or .json.",
    )(command)
    metavar = "FILE|DIR|-..." if required else "[FILE|DIR|-]..."
    return click.argument(
        "manifests", metavar=metavar, nargs=-1, required=required, callback=_paths_exist
    )(command)


def _paths_exist(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> Any:
    """Refuse a path that is not there as a usage error (2), as an argument of a file."""
    import os

    for path in value:
        if path != "-" and "://" not in path and "::" not in path and not os.path.lexists(path):
            raise click.BadParameter(f"{path!r}: No such file or directory", ctx, param)
    return value


@dataclass(frozen=True)
class Manifest:
    """One stream of manifests as read: ``source`` names it in every message (the file's
    path as given, ``<stdin>``), ``path`` is the file (``None`` for standard input),
    ``text`` what it holds, ``documents`` and ``booleans`` what
    :func:`~transforms.cli.documents.read_manifest` read of it, and ``nodes`` each
    document's composed node, where they were asked for (to edit the text by)."""

    source: str
    path: str | None
    text: str
    documents: list[Any]
    booleans: list[Any]
    nodes: list[Any] | None = None


def read_manifests(
    given: Sequence[str],
    recursive: bool,
    purpose: str | None = None,
    overlays: Sequence[str] = (),
    *,
    nodes: bool = False,
    read_text: Callable[[str, str], tuple[list[Any], list[Any]] | None] | None = None,
) -> list[Manifest]:
    """The streams ``given`` names (files, directories: :func:`~transforms.io.sources.manifest_files`;
    ``-`` or nothing: standard input), each read within bounds and parsed on its own, as
    kubectl reads each file of ``-f DIR`` (documents do not run on from one file into the
    next); where ``purpose`` is given, a stream with no document is refused
    (:func:`require_documents`), and of several, only all of them with none. A file of a
    directory given that is one of the ``overlays`` (an overlay kept beside the manifests it
    is for) is left out, with a warning: it is no manifest. With ``nodes``, each
    stream's composed nodes are kept (:attr:`Manifest.nodes`). ``read_text``, where
    given, is called with each file's name and text as soon as it is read, and reads
    its documents and booleans where it can (as :func:`~transforms.cli.documents.read_manifest`
    would: no node is kept of them, then); where it gives ``None``, they are read here."""
    import sys

    from transforms.cli.documents import ManifestError, read_manifest
    from transforms.errors import OverlayError
    from transforms.io.safe_yaml import decode
    from transforms.io.sources import manifest_files, read_source

    try:
        paths = manifest_files(given or ["-"], recursive)
    except OverlayError as err:
        raise ManifestError(err.message, source=err.source) from None
    paths = _without_overlays(paths, given, overlays)
    read: list[Manifest] = []
    for path in paths:
        if path == "-":
            text, source = read_input(sys.stdin)
            stream: Any = sys.stdin
        else:
            source, stream = path, path
            try:
                text = decode(read_source(path, "manifest"), path)
            except OverlayError as err:
                raise ManifestError(
                    err.message, source=err.source, line=err.line, column=err.column
                ) from None
        given_read = read_text(source, text) if read_text is not None else None
        kept: list[Any] | None = [] if nodes and given_read is None else None
        documents, booleans = given_read or read_manifest(text, source, kept)
        if purpose is not None and len(paths) == 1:
            require_documents(documents, source, stream, purpose)
        read.append(
            Manifest(source, None if path == "-" else path, text, documents, booleans, kept)
        )
    if purpose is not None and len(paths) > 1 and not any(each.documents for each in read):
        # of several, one file with none is warned about (as kubectl skips it); all: refused
        require_documents([], f"the {len(paths)} files", None, purpose)
    return read


@dataclass(frozen=True)
class Streamed:
    """One stream of manifests read a part at a time (:func:`stream_manifests`): ``source``
    names it in every message, ``path`` is the file (``None`` for standard input),
    ``opened`` what was opened (the path, or ``sys.stdin``), ``parts`` its documents
    (:class:`~transforms.cli.parts.Part`), read as they are asked for."""

    source: str
    path: str | None
    opened: Any
    parts: Iterator[Any]


def manifest_paths(
    given: Sequence[str], recursive: bool, overlays: Sequence[str] = ()
) -> list[str]:
    """The manifest files ``given`` names (``-``: standard input), as :func:`read_manifests`
    finds them: a file of a directory that is one of the ``overlays`` left out, warned about."""
    from transforms.cli.documents import ManifestError
    from transforms.errors import OverlayError
    from transforms.io.sources import manifest_files

    try:
        paths = manifest_files(given or ["-"], recursive)
    except OverlayError as err:
        raise ManifestError(err.message, source=err.source) from None
    return _without_overlays(paths, given, overlays)


def stream_manifests(paths: Sequence[str]) -> Iterator[Streamed]:
    """The streams of ``paths`` (:func:`manifest_paths`), as :func:`read_manifests` reads
    them, each opened when it is reached and read a part at a time
    (:func:`~transforms.cli.parts.read_parts`): what is held is one part of one
    stream, whatever their length. A stream's file is closed when the next is asked
    for; a stream with no document is the caller's to refuse
    (:func:`require_documents`)."""
    import sys

    from transforms.cli.documents import ManifestError
    from transforms.cli.parts import read_parts
    from transforms.errors import OverlayError
    from transforms.io.sources import open_source

    for path in paths:
        source = "<stdin>" if path == "-" else path
        try:
            handle = open_source(path, "manifest")
        except OverlayError as err:
            raise ManifestError(
                err.message, source=err.source, line=err.line, column=err.column
            ) from None
        with handle:
            yield Streamed(
                source,
                None if path == "-" else path,
                sys.stdin if path == "-" else path,
                read_parts(handle, source),
            )


def load_overlays(overlays: Sequence[str]) -> Any:
    """The overlays, loaded in order and chained into one transform."""
    from combinators import chain

    return chain(*load_each(overlays))


def load_each(overlays: Sequence[str], texts: dict[str, str] | None = None) -> list[Any]:
    """The overlays, loaded in order, one transform each; each file is read once, and
    its text kept in ``texts`` (where given) for what names its lines later (blame,
    ``(written by FILE:LINE)``), which must not read it again: a pipe or process
    substitution (``-f <(...)``) gives its text once."""
    return [loaded.transform for loaded in load_files(overlays, texts)]


def _without_overlays(paths: list[str], given: Sequence[str], overlays: Sequence[str]) -> list[str]:
    """``paths`` without the files found in a directory of ``given`` that are among the
    ``overlays`` (the same file, however named), each warned about; a file named itself
    is read as it is asked."""
    import os

    if not overlays:
        return paths
    named = set(given)
    kept = []
    for path in paths:
        if (
            path != "-"
            and path not in named
            and any(_same_file(path, overlay) for overlay in overlays)
        ):
            from transforms.cli.notices import warn  # the forms' macros: not on every start

            folder = os.path.dirname(path) or "."
            warn(f"{path}: given as an overlay (-f), so left out of the manifests of {folder}")
            continue
        kept.append(path)
    return kept


def _same_file(path: str, overlay: str) -> bool:
    import os

    try:
        return os.path.samefile(path, overlay)
    except (OSError, ValueError):  # a URI, a file that is not there: not this file
        return False


def load_files(overlays: Sequence[str], texts: dict[str, str] | None = None) -> list[Any]:
    """The overlay files, in order, each read once and parsed once into a
    :class:`transforms.run.Loaded` (its transform, and its steps with their lines); each
    file's text is kept in ``texts`` where given (see :func:`load_each`)."""
    from transforms.io.loading import read_overlay_text
    from transforms.run.loaded import loads

    kept: dict[str, str] = {} if texts is None else texts
    found: dict[str, Any] = {}  # a file given twice is one overlay, applied twice
    loaded = []
    for uri in overlays:
        if uri not in found:
            if uri not in kept:
                kept[uri] = read_overlay_text(uri)
            found[uri] = loads(kept[uri], uri)
        loaded.append(found[uri])
    return loaded


def parse_selector(select: Sequence[str]) -> Any:
    """One selector from the ``--select`` flags (``None`` for none): the flags'
    conditions are joined as if written in one, so a field given more than once
    (``--select role=Master --select role=Worker``) matches either value, and
    different fields (and every label) must all hold. A bad one is a usage error (2)."""
    if not select:
        return None
    from combinators import ArgumentError
    from transforms.kube.workloads import Selector

    try:
        return Selector.parse(",".join(item for item in select if item))
    except ArgumentError as err:
        raise click.BadParameter(str(err), param_hint="'--select'") from None


class NoDocumentsError(ManifestError):
    """A stream with no document at all (empty, or only comments and ``---``) given to a
    command whose output or verdict is about its documents: ``source`` names it."""


def require_documents(documents: Sequence[Any], source: str, stream: Any, purpose: str) -> None:
    """Refuse a stream with no document, as kubectl refuses one ("no objects passed to
    apply"): a :class:`NoDocumentsError` saying there is ``nothing to {purpose}``, and,
    where the stream is the very file stdout writes to (``podfold apply -f o.yaml
    job.yaml > job.yaml``: the shell emptied it before podfold started), that too.

    >>> require_documents([{"kind": "Pod"}], "pod.yaml", None, "validate")
    >>> require_documents([], "job.yaml", None, "validate")
    Traceback (most recent call last):
      ...
    transforms.cli.options.NoDocumentsError: job.yaml: no documents (the input is empty, or only comments and '---'): nothing to validate
    """
    if documents:
        return
    message = f"no documents (the input is empty, or only comments and '---'): nothing to {purpose}"
    if _is_stdout(stream):
        message += (
            f"; {source} is the file stdout writes to, so the shell emptied it before "
            f"podfold started: write the output to another file"
        )
    raise NoDocumentsError(message, source=source)


def _is_stdout(stream: Any) -> bool:
    """Whether ``stream`` reads the regular file that stdout writes to (through a
    descriptor of its own: with stdout closed, the stream may have been given its 1)."""
    import os
    import stat
    import sys

    try:
        if isinstance(stream, str):  # a file's path, read through a descriptor of its own
            descriptor, stdout = -1, sys.stdout.fileno()
            read, written = os.stat(stream), os.fstat(stdout)
        else:
            descriptor, stdout = stream.fileno(), sys.stdout.fileno()
            read, written = os.fstat(descriptor), os.fstat(stdout)
    except (AttributeError, OSError, ValueError):  # no descriptor (a test's stream), or no stdout
        return False
    return (
        descriptor != stdout
        and stat.S_ISREG(read.st_mode)
        and (read.st_dev, read.st_ino) == (written.st_dev, written.st_ino)
    )
