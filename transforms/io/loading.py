"""Loading overlays from YAML, safely, with every error pointing into the file.

A file holds one or more YAML documents, applied in order. A document is
either a partial pod (a map; see :mod:`transforms.forms.partial`) whose values may
carry tags, or a pipeline (a list of steps; see :mod:`transforms.forms.pipeline`).

Tags in a partial pod:

==================  ===========================================================
``!append``         append the list's items (what an untagged list does)
``!append-unique``  append the list's items not there yet, each once: applying
                    the overlay twice equals applying it once
``!prepend``        put the list's items first
``!replace``        replace whatever is there
``!remove``         remove the key
``!default``        set only where absent (missing or null)
``!merge-by``       merge list items by ``name``; ``!merge-by:<field>[,<field>]``
                    names other key fields, as does the map form
                    ``!merge-by {items: [...], key: [<field>, ...]}``
``!!python/tuple``  replace (TorchX's files); no Python object is built
==================  ===========================================================

Loading is safe and strict (:mod:`transforms.io.safe_yaml`): the loader
derives from PyYAML's safe loader (libyaml's ``yaml.CSafeLoader`` where PyYAML
has it, :func:`overlay_loader`), refuses every other tag (on a pipeline's
own list too, and on what a merge key ``<<`` merges), a key written twice in
one map, nesting deeper than :data:`~combinators.limits.MAX_DEPTH` levels, a
file whose documents together would expand past :data:`MAX_NODES` nodes,
aliases counted as what they stand for (the "billion laughs"), and text YAML
cannot carry (a NUL byte, bytes that are not UTF-8), each with the file, line
and column. A file is read within bounds (:mod:`transforms.io.sources`): no
device, at most ``PODFOLD_MAX_OVERLAY_BYTES``, a URI within
``PODFOLD_READ_TIMEOUT`` seconds.

>>> t = loads_overlay('''
... spec:
...   nodeSelector: {gpu: a100}
...   tolerations: !replace [{key: nvidia.com/gpu, operator: Exists}]
... ''')
>>> t({"spec": {"tolerations": [{"key": "old"}]}})
{'spec': {'tolerations': [{'key': 'nvidia.com/gpu', 'operator': 'Exists'}], 'nodeSelector': {'gpu': 'a100'}}}
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import yaml

from combinators import ArgumentError, ArgumentTypeError, Transform, TransformError, chain
from combinators.editing import PathEdit
from combinators.limits import short_repr
from combinators.paths import Index, Key
from combinators.transform import Compose
from transforms.checks.fields import (
    UnknownFieldError,
    check_json_patch_fields,
    check_merge_patch_fields,
    check_overlay_fields,
    check_path_fields,
    check_strategic_fields,
)
from transforms.errors import OverlayError
from transforms.forms import kinds
from transforms.forms.catalog import Catalog
from transforms.forms.markers import (
    Append,
    AppendUnique,
    Default,
    MergeBy,
    Prepend,
    Remove,
    Replace,
)
from transforms.forms.partial import Overlay, field_of, overlay
from transforms.forms.pipeline import build_step
from transforms.io import safe_yaml
from transforms.io.safe_yaml import (
    MAX_NODES,
    CStrictLoader,
    StrictLoader,
    check_graph,
    check_text,
    decode,
    read_stream,
    yaml_error,
)
from transforms.kube.workloads import workload_kind

__all__ = (
    "load_overlay",
    "loads_overlay",
    "loads_overlay_steps",
    "StepNode",
    "read_source",
    "read_overlay_text",
    "OverlayLoader",
    "COverlayLoader",
    "overlay_loader",
    "MAX_NODES",
)


_NOT_TEXT = {
    f"tag:yaml.org,2002:{name}": word
    for name, word in (
        ("bool", "a boolean"),
        ("int", "an integer"),
        ("float", "a number"),
        ("null", "null"),
    )
}


def _check_keys(loader: Any, node: yaml.MappingNode) -> None:
    """Refuse a key YAML reads as no string (``off:``, ``yes:``, ``1.0:``), where it is
    written: a pod's keys are strings, and the key as read (``False``) is not what was
    written."""
    for key, _ in node.value:
        if isinstance(key, yaml.ScalarNode) and key.tag in _NOT_TEXT:
            value = loader.construct_object(key)
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"the key {short_repr(key.value)} is read by YAML as "
                f"{_NOT_TEXT[key.tag]} ({short_repr(value)}), and the keys of a pod are "
                f"strings: quote it ('{short_repr(key.value, quoted=False)}')",
                key.start_mark,
            )


class OverlayLoader(StrictLoader):
    """:class:`~transforms.io.safe_yaml.StrictLoader` (``yaml.SafeLoader``, no duplicate
    keys, bounded depth) with podfold's tags; any other tag is refused, and so is a key
    YAML reads as no string."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        _check_keys(self, node)
        return super().construct_mapping(node, deep=deep)


class COverlayLoader(CStrictLoader):
    """:class:`OverlayLoader` on libyaml (:class:`~transforms.io.safe_yaml.CStrictLoader`):
    the same tags, the same refusals at the same places."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        _check_keys(self, node)
        result: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        return result


def overlay_loader() -> Any:
    """The loader class :func:`loads_overlay` reads with: :class:`COverlayLoader` where
    :data:`~transforms.io.safe_yaml.LIBYAML` holds, else :class:`OverlayLoader`.

    >>> overlay_loader() is (COverlayLoader if safe_yaml.LIBYAML else OverlayLoader)
    True
    """
    return COverlayLoader if safe_yaml.LIBYAML else OverlayLoader


def _sequence_or_scalar(loader: Any, node: yaml.Node) -> Any:
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node, deep=True)
    return loader.construct_scalar(node)


def _any(loader: Any, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        # resolve the scalar as YAML would have without the tag: a quoted one is a string
        # (a plain scalar's style is None from PyYAML's parser, "" from libyaml's)
        tag = loader.resolve(yaml.ScalarNode, node.value, (not node.style, False))
        return loader.construct_object(
            yaml.ScalarNode(tag, node.value, node.start_mark, node.end_mark, node.style), deep=True
        )
    return _sequence_or_scalar(loader, node)


def _marker(cls: type[Any]) -> Callable[[Any, yaml.Node], Any]:
    def construct(loader: Any, node: yaml.Node) -> Any:
        return cls(_any(loader, node))

    return construct


def _remove(loader: Any, node: yaml.Node) -> Remove:
    if not (isinstance(node, yaml.ScalarNode) and node.value in ("", "~", "null")):
        raise yaml.constructor.ConstructorError(
            None, None, "!remove takes no value (write 'key: !remove')", node.start_mark
        )
    return Remove()


def _merge_by_default(loader: Any, node: yaml.Node) -> MergeBy:
    if isinstance(node, yaml.MappingNode):  # the long form: {items: [...], key: field or [fields]}
        spec = loader.construct_mapping(node, deep=True)
        unknown = [name for name in spec if name not in ("items", "key")]
        if unknown or "items" not in spec:
            found = f"found {short_repr(unknown[0])}" if unknown else "'items' is missing"
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"!merge-by on a map takes 'items' (the list to merge) and, if the key "
                f"field is not name, 'key' (a field or a list of fields); {found}",
                node.start_mark,
            )
        key = spec.get("key", "name")
        fields = key if isinstance(key, list) else [key]
        if not fields or not all(isinstance(field, str) and field for field in fields):
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"!merge-by's 'key' is a field or a list of fields, not {short_repr(key)}",
                node.start_mark,
            )
        return MergeBy(spec["items"], key=tuple(key) if isinstance(key, list) else key)
    return MergeBy(_any(loader, node))


def _merge_by_fields(loader: Any, suffix: str, node: yaml.Node) -> MergeBy:
    fields = tuple(field.strip() for field in suffix.split(",") if field.strip())
    if not fields:
        raise yaml.constructor.ConstructorError(
            None, None, "!merge-by: names no key field (write !merge-by:name)", node.start_mark
        )
    return MergeBy(_any(loader, node), key=fields[0] if len(fields) == 1 else fields)


def _tuple(loader: Any, node: yaml.Node) -> tuple[Any, ...]:
    if not isinstance(node, yaml.SequenceNode):
        raise yaml.constructor.ConstructorError(
            None, None, "!!python/tuple takes a list", node.start_mark
        )
    return tuple(loader.construct_sequence(node, deep=True))


def _undefined(loader: Any, node: yaml.Node) -> Any:
    raise yaml.constructor.ConstructorError(
        None,
        None,
        f"unknown or unsafe tag {short_repr(node.tag)} (podfold's tags: !append, "
        f"!append-unique, "
        f"!prepend, !replace, !remove, !default, !merge-by; and TorchX's !!python/tuple, read as "
        f"a list that replaces)",
        node.start_mark,
    )


for _loader in (OverlayLoader, COverlayLoader):
    for _tag, _cls in (
        ("!append", Append),
        ("!append-unique", AppendUnique),
        ("!prepend", Prepend),
        ("!replace", Replace),
        ("!default", Default),
    ):
        _loader.add_constructor(_tag, _marker(_cls))
    _loader.add_constructor("!remove", _remove)
    _loader.add_constructor("!merge-by", _merge_by_default)
    _loader.add_multi_constructor("!merge-by:", _merge_by_fields)
    _loader.add_constructor("tag:yaml.org,2002:python/tuple", _tuple)
    _loader.add_constructor(None, _undefined)


def _error(message: str, source: str, mark: Any, step: int | None) -> OverlayError:
    line = mark.line + 1 if mark is not None else None
    column = mark.column + 1 if mark is not None else None
    return OverlayError(message, source=source, line=line, column=column, step=step)


def _locate(node: yaml.Node, parts: list[str | int], key_itself: bool = False) -> yaml.Node:
    """The deepest node along ``parts`` (keys and list indexes), for error positions.

    A key also finds the operator key about it (``__join__:containers:name``).
    With ``key_itself``, a last part that is a key gives the key's node, not
    its value's (where the key is what is wrong).
    """
    for number, part in enumerate(parts):
        if (
            isinstance(part, int)
            and isinstance(node, yaml.SequenceNode)
            and -len(node.value) <= part < len(node.value)
        ):
            node = node.value[part]
            continue
        if not isinstance(part, str) or not isinstance(node, yaml.MappingNode):
            break
        for key_node, value_node in node.value:
            key = getattr(key_node, "value", None)
            if key == part or (
                isinstance(key, str) and key.startswith("__") and field_of(key) == part
            ):
                node = key_node if key_itself and number == len(parts) - 1 else value_node
                break
        else:
            break
    return node


def loads_overlay(
    text: str, source: str = "<string>", kind: str | None = "Pod", catalog: Catalog | None = None
) -> Transform:
    """Build the transform a YAML text describes (``source`` names it in errors).

    Field names in partial pods, in steps' paths and in ``strategic``,
    ``merge_patch`` and ``json_patch`` steps (keys, JSON Pointers and the
    values they add; a strategic patch's directives are no fields) are checked
    against the official schema of ``kind`` (``Pod``, ``PodSpec``,
    ``PodTemplateSpec``; a ``strategic`` step's own ``kind`` where it gives
    one); ``kind=None`` skips the check, for documents that are not pods.
    ``catalog`` maps the names of ``recipe`` steps to factories (the
    installed catalogs by default). Every error is an
    :class:`~transforms.errors.OverlayError` with the line and column.

    >>> loads_overlay(b"spec: {}")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentTypeError: loads_overlay(): text must be YAML text (a str), got bytes: b'spec: {}'; decode it first, or give load_overlay its file
    """
    return loads_overlay_steps(text, source, kind, catalog, factory="loads_overlay")[0]


class StepNode:
    """One step of a YAML overlay as it was built, with the YAML node it was built from:
    ``document`` counts from 1, ``number`` is its place in that document's pipeline (from
    1), ``None`` for a partial pod. What names the step's line later needs no second parse.
    (A plain class: a dataclass would cost every ``podfold apply`` its start-up.)
    """

    __slots__ = ("step", "node", "document", "number")

    def __init__(self, step: Any, node: yaml.Node, document: int, number: int | None) -> None:
        self.step = step
        self.node = node
        self.document = document
        self.number = number

    def __repr__(self) -> str:
        return f"StepNode({self.step!r}, document={self.document}, number={self.number})"


def loads_overlay_steps(
    text: str,
    source: str = "<string>",
    kind: str | None = "Pod",
    catalog: Catalog | None = None,
    *,
    factory: str = "loads_overlay_steps",
) -> tuple[Transform, tuple[StepNode, ...]]:
    """The transform of :func:`loads_overlay` and, from the same parse, each of its steps
    with its node (:class:`StepNode`), for what names an overlay's lines (one parse).

    >>> transform, steps = loads_overlay_steps("- {op: upsert, path: spec.hostIPC, value: true}")
    >>> transform({}), [(step.document, step.number, step.node.start_mark.line) for step in steps]
    ({'spec': {'hostIPC': True}}, [(1, 1, 0)])
    """
    if not isinstance(text, str):
        hint = (
            "; decode it first, or give load_overlay its file"
            if isinstance(text, (bytes, bytearray))
            else ""
        )
        raise ArgumentTypeError(
            f"text must be YAML text (a str), got {_kind_of(text)}{hint}",
            argument="text",
            factory=factory,
            value=text,
        )
    if not isinstance(source, str):
        raise ArgumentTypeError(
            f"source must be a str naming the text, got {_kind_of(source)}",
            argument="source",
            factory=factory,
            value=source,
        )
    check_text(text, source)
    nodes: list[StepNode] = []

    def read(loader: Any, documents: Iterator[yaml.Node]) -> list[Any]:
        steps: list[Any] = []
        document = expanded = 0
        try:
            for node in documents:  # the bound is the file's: all its documents together
                expanded += check_graph(node, MAX_NODES, before=expanded)
                steps.extend(_document(loader, node, source, document, kind, catalog, text, nodes))
                document += 1
        except yaml.MarkedYAMLError as err:  # in the document being read
            raise yaml_error(err, source, document, text) from None
        except yaml.YAMLError as err:  # pragma: no cover - every YAML error we meet is marked
            raise OverlayError(str(err), source=source) from None
        return steps

    return chain(*read_stream(text, read, overlay_loader(), OverlayLoader)), tuple(nodes)


_PATCHES = ("strategic_merge", "merge_patch", "json_patch")
"""The names of the patch kinds' steps (their kinds' names too)."""


def _check(step: Any, kind: str | None) -> None:
    """Check the field names a built step will touch: a partial pod's keys, a
    path's keys, a patch's keys (a JSON Patch's pointers and values too)."""
    if kind is None:
        return
    if isinstance(step, Compose):
        for inner in step.steps:
            _check(inner, kind)
    elif isinstance(step, Overlay):
        check_overlay_fields(step.source, kind)
    elif isinstance(step, PathEdit):
        check_path_fields(step.path, kind)
    elif isinstance(step, Transform) and step.name in _PATCHES:
        # the name first: kind_of learns every kind's class from examples it builds, once (a
        # strategic patch's reads the schema), which a recipe's step need not pay for
        name = kinds.kind_of(step, {}).name
        args, options = step.params
        if name == "strategic_merge":
            check_strategic_fields(args[0], options.get("kind", kind))
        elif name == "merge_patch":
            check_merge_patch_fields(args[0], kind)
        elif name == "json_patch":
            check_json_patch_fields(args[0], kind)


def _document(
    loader: Any,
    node: yaml.Node,
    source: str,
    index: int,
    kind: str | None,
    catalog: Catalog | None,
    text: str,
    nodes: list[StepNode],
) -> list[Any]:
    if isinstance(node, yaml.SequenceNode):
        if node.tag != _SEQ:  # a tag on the pipeline's own list is read, not dropped
            raise _error(
                f"a pipeline (the document's list of steps) takes no tag, found "
                f"{short_repr(node.tag)}{_tag_hint(node.tag)}",
                source,
                node.start_mark,
                index,
            )
        built = []
        for number, step_node in enumerate(node.value):
            try:
                step = loader.construct_object(step_node, deep=True)
            except yaml.MarkedYAMLError as err:  # a refused tag, in this step
                raise yaml_error(err, source, number, text) from None
            try:
                built_step = build_step(step, catalog)
                _check(built_step, kind)
                built.append(built_step)
                nodes.append(StepNode(built_step, step_node, index + 1, number + 1))
            except OverlayError:
                raise
            except TransformError as err:
                keys = _step_keys(step, err)
                where = _locate(step_node, keys, _names_a_key(err, keys))
                raise _error(str(err), source, where.start_mark, number) from err
        return built
    if isinstance(node, yaml.MappingNode):
        data = loader.construct_object(node, deep=True)
        named = data.get("kind")
        if kind == "Pod" and isinstance(named, str) and named != "Pod":
            hint = (
                "; to merge it into each such workload as kubectl and kustomize merge a "
                "patch, make it a step: '- strategic:' with the document indented under it"
                if workload_kind(named, data.get("apiVersion")) is not None
                else ""
            )
            raise _error(
                f"a document with kind: {short_repr(named, quoted=False)} is not a "
                f"partial pod (overlays "
                f"apply to pods){hint}",
                source,
                _locate(node, ["kind"], True).start_mark,
                index,
            )
        try:
            built_overlay = overlay(data)
            _check(built_overlay, kind)
            nodes.append(StepNode(built_overlay, node, index + 1, None))
            return [built_overlay]
        except TransformError as err:
            keys = list(err.location) if isinstance(err, UnknownFieldError) else _keys_of(err)
            where = _locate(node, keys, isinstance(err, UnknownFieldError))
            raise _error(str(err), source, where.start_mark, index) from err
    if isinstance(node, yaml.ScalarNode) and node.value in ("", "~", "null"):
        return []  # an empty document changes nothing
    raise _error(
        "a document is a partial pod (a map) or a pipeline (a list of steps), "
        f"not {short_repr(node.tag.rsplit(':', 1)[-1], quoted=False)}",
        source,
        node.start_mark,
        None,
    )


_SEQ = "tag:yaml.org,2002:seq"
_OWN_TAGS = (
    "!append, !append-unique, !prepend, !replace, !remove, !default, !merge-by, !!python/tuple"
)


def _tag_hint(tag: str) -> str:
    if tag.startswith("tag:yaml.org,2002:python/") and tag != "tag:yaml.org,2002:python/tuple":
        return " (Python object tags are never run)"
    if tag == "tag:yaml.org,2002:python/tuple" or tag.split(":")[0] in _OWN_TAGS.split(", "):
        return " (podfold's tags go on the values inside a partial pod)"
    return f" (podfold's tags: {_OWN_TAGS})"


def _step_keys(step: Any, err: TransformError) -> list[str | int]:
    """Where in a step map ``err`` points: into its overlay, at its path, or at
    the argument it names."""
    if not isinstance(step, dict):
        return []
    if isinstance(err, UnknownFieldError):
        for key in ("overlay", *_PATCH_KEYS):
            if key in step:
                return [key, *err.location]
    if "overlay" in step:
        return ["overlay", *_keys_of(err)]
    if err.path is not None:
        return ["path"]
    if isinstance(err, ArgumentError) and err.argument in step:
        return [err.argument]
    return []


_PATCH_KEYS = ("strategic", "merge_patch", "json_patch")


def _names_a_key(err: TransformError, keys: list[str | int]) -> bool:
    """Whether the error is about a key itself (an unknown field), not about a
    value (a JSON Patch's pointer is a value: the position is the pointer's)."""
    return isinstance(err, UnknownFieldError) and keys[-1:] not in (["path"], ["from"])


def _keys_of(err: BaseException) -> list[str | int]:
    path = getattr(err, "path", None)
    if path is None:
        return []
    parts: list[str | int] = []
    for part in path.parts:
        if isinstance(part, Key):
            parts.append(part.name)
        elif isinstance(part, Index):
            parts.append(part.index)
        else:
            break
    return parts


def load_overlay(
    uri: str | os.PathLike[str], kind: str | None = "Pod", catalog: Catalog | None = None
) -> Transform:
    """Build the transform in the YAML file at ``uri``: a path or any fsspec URI.

    Errors are :class:`~transforms.errors.OverlayError` carrying the file,
    line and column, and the step's index (a file that cannot be read names
    the file); field names and recipes are checked as :func:`loads_overlay` does.
    The file is read within bounds (:func:`read_source`): no device, at most
    ``PODFOLD_MAX_OVERLAY_BYTES``, a URI within ``PODFOLD_READ_TIMEOUT`` seconds.

    >>> load_overlay(5)
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentTypeError: load_overlay(): uri must be a path or a URI (a str or an os.PathLike), got int: 5
    """
    path = uri if isinstance(uri, str) else os.fspath(uri) if isinstance(uri, os.PathLike) else None
    if not isinstance(path, str):
        raise ArgumentTypeError(
            f"uri must be a path or a URI (a str or an os.PathLike), got {_kind_of(uri)}",
            argument="uri",
            factory="load_overlay",
            value=uri,
        )
    return loads_overlay(decode(read_source(path), path), source=path, kind=kind, catalog=catalog)


def read_overlay_text(uri: str | os.PathLike[str]) -> str:
    """The text of the overlay file at ``uri``, read once within bounds (as
    :func:`load_overlay` reads it) and decoded: what a caller keeps to build the
    transform (:func:`loads_overlay`) and, later, name its lines, without reading
    the source again (a pipe gives its text once; a server may answer anew).

    >>> import fsspec
    >>> with fsspec.open("memory://podfold-doc/once.yaml", "w") as handle:
    ...     _ = handle.write("spec: {hostIPC: true}\\n")
    >>> read_overlay_text("memory://podfold-doc/once.yaml")
    'spec: {hostIPC: true}\\n'
    """
    path = os.fspath(uri)
    return decode(read_source(path), path)


def _kind_of(value: Any) -> str:
    return f"{type(value).__name__}: {short_repr(value)}"


def read_source(source: str) -> bytes:
    """The bytes of the overlay at ``source``, a path or any fsspec URI, read within an
    overlay's bounds (:func:`transforms.io.sources.read_source`: no device, at most
    ``PODFOLD_MAX_OVERLAY_BYTES``, a URI within ``PODFOLD_READ_TIMEOUT`` seconds).

    Whatever stops the read is an :class:`~transforms.errors.OverlayError`
    naming ``source`` and saying why on one line: the exception's class and
    message, then its causes' (what a message already says is left out).

    >>> read_source("memory://podfold-doc/absent.yaml")
    Traceback (most recent call last):
      ...
    transforms.errors.OverlayError: memory://podfold-doc/absent.yaml: cannot read the overlay: FileNotFoundError
    """
    from transforms.io import sources

    return sources.read_source(source, "overlay")
