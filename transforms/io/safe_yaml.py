"""YAML read strictly and within bounds: every refusal an :class:`OverlayError` with its place.

What podfold reads as YAML (overlay files, manifests) is held to what
kubectl holds it to, and to bounds that keep the work small:

* a map that names a key twice is refused, naming both places (kubectl
  refuses it; PyYAML lets the last one win, silently);
* nothing nests deeper than :data:`MAX_DEPTH` levels of maps and lists (the
  engine's bound, :data:`combinators.limits.MAX_DEPTH`), counting what an
  alias stands for; the pure-Python composer is stopped at that depth, long
  before a ``RecursionError``, and what libyaml composes is checked before it
  is built;
* an overlay file expands to at most :data:`MAX_NODES` nodes, all its documents
  together, aliases counted as what they stand for (the "billion laughs"); in a
  manifest stream, which may be large, aliases may add at most as many nodes
  to what the text writes out, all its documents together;
* a NUL byte, another control character, a lone surrogate or bytes that are
  not UTF-8 are refused with the line and column where they are;
* only what JSON carries is built: ``!!binary``, ``!!set``, ``!!omap`` and
  ``!!pairs`` are refused in place, and a date or time (``2024-01-02``)
  stays the text it was written as, as Kubernetes reads it;
* an implicit key longer than YAML's 1,024 characters is refused at once,
  where it begins, and a refusal where a template was left unrendered
  (``{{ .Values.x }}``) names the template (:mod:`transforms.io.refusals`).

A manifest (:func:`load_manifest`) is read as kubectl reads it
(:mod:`transforms.io.scalars`): its numbers (``23:30`` is a string, ``1e3``,
``0o17`` and ``08`` are numbers), ``y`` and ``n`` written plain as booleans
(:mod:`transforms.io.booleans`), its keys made text as JSON's are (``1:`` is the
key ``"1"``), an infinity or NaN as a value refused, as kubectl refuses it; an
overlay keeps PyYAML's reading (YAML 1.1), but for ``=``, a string to both.

Where PyYAML has libyaml (:data:`LIBYAML`), text is parsed by libyaml
(:class:`CStrictLoader`), several times faster than by the pure-Python
parser (:class:`StrictLoader`); both build the same documents and refuse the
same input at the same line and column.

>>> load_documents("a: 1\\nb: 2\\na: 3\\n", "pod.yaml")
Traceback (most recent call last):
  ...
transforms.errors.OverlayError: pod.yaml:3:1: duplicate key 'a' (first at line 1, column 1)
>>> load_documents("spec: {name: x}\\n---\\nkind: Pod\\n", "two.yaml")
[{'spec': {'name': 'x'}}, {'kind': 'Pod'}]
>>> load_documents("[" * 150 + "]" * 150, "deep.yaml")
Traceback (most recent call last):
  ...
transforms.errors.OverlayError: deep.yaml:1:101: nests deeper than 100 levels of maps and lists; refused
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterator
from typing import Any, NoReturn, TypeVar

import yaml

from combinators.limits import MAX_DEPTH, short_repr
from transforms.errors import OverlayError
from transforms.io.booleans import PlainBoolean, plain_booleans
from transforms.io.plain import build, duplicate_key, is_plain
from transforms.io.refusals import long_key, template_hint
from transforms.io.scalars import read_as_kubectl, refuse_non_finite

__all__ = (
    "MAX_DEPTH",
    "MAX_NODES",
    "LIBYAML",
    "StrictLoader",
    "CStrictLoader",
    "strict_loader",
    "ManifestLoader",
    "CManifestLoader",
    "manifest_loader",
    "check_graph",
    "check_text",
    "decode",
    "load_documents",
    "load_manifest",
    "load_manifest_part",
    "read_stream",
    "yaml_error",
)

MAX_NODES = 100_000
"""The most YAML nodes an overlay file may expand to, all its documents together, counting each
alias as what it stands for (and the most the aliases of a manifest stream may add)."""

_MERGE = "tag:yaml.org,2002:merge"
_MAP_TAG, _SEQ_TAG = "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
_VALUE = "tag:yaml.org,2002:value"
_DEPTH = f"nests deeper than {MAX_DEPTH} levels of maps and lists; refused"
# what YAML forbids in a stream (PyYAML's own test), and the line breaks its marks count
# (written as the characters it refuses, not as the complement of those it allows:
# a negated class of such ranges takes Python's re 10 ms to compile, in every process)
_NON_PRINTABLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]"
)
_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


def _check_duplicates(loader: Any, node: yaml.Node) -> None:
    """Refuse a map whose keys repeat (as the dict they become would lose one): as the
    loader makes them, text for a manifest (its ``json_key``: ``0x1F`` and ``31`` repeat)."""
    if not isinstance(node, yaml.MappingNode):
        return
    json_key = getattr(loader, "json_key", None)
    seen: dict[Any, yaml.Node] = {}
    for key_node, _ in node.value:
        if key_node.tag == _MERGE:  # ``<<: *base`` merges; its keys may be overridden
            continue
        key = loader.construct_object(key_node, deep=True)
        try:
            if json_key is not None and type(key) is not str and _hashable(key):
                key = json_key(key, key_node)
            first = seen.setdefault(key, key_node)
        except TypeError:  # an unhashable key: the constructor says so, in place
            continue
        if first is not key_node:
            raise duplicate_key(key, first, key_node)


def _hashable(key: Any) -> bool:
    return isinstance(key, Hashable)


def _construct_json_mapping(loader: Any, node: yaml.MappingNode, deep: bool) -> dict[str, Any]:
    """The map of ``node`` with its keys made text as kubectl makes them
    (:func:`~transforms.io.scalars.json_key`), key by key: ``1`` and ``true`` are two keys
    (``"1"``, ``"true"``), where Python's dict would make them one; otherwise as
    :class:`StrictLoader` builds a map (duplicates refused, merge keys' tags checked)."""
    _check_duplicates(loader, node)
    loader.flatten_mapping(node)
    mapping: dict[str, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if not _hashable(key):
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping",
                node.start_mark,
                "found unhashable key",
                key_node.start_mark,
            )
        mapping[loader.json_key(key, key_node)] = loader.construct_object(value_node, deep=deep)
    return mapping


def _check_merged(node: yaml.MappingNode) -> None:
    """Refuse a tag on what a merge key (``<<``) merges: PyYAML merges a map's keys and
    drops its tag unread (``<<: !!python/object/apply:os.system {hostIPC: true}``
    merged ``hostIPC``), where every tag podfold does not read is to be refused."""
    for key_node, value_node in node.value:
        if key_node.tag != _MERGE:
            continue
        merged = [value_node]
        if isinstance(value_node, yaml.SequenceNode):  # <<: [*a, *b]
            if value_node.tag != _SEQ_TAG:
                _refuse_merged_tag(value_node, "list")
            merged = value_node.value
        for item in merged:
            if isinstance(item, yaml.MappingNode) and item.tag != _MAP_TAG:
                _refuse_merged_tag(item, "map")


def _refuse_merged_tag(node: yaml.Node, what: str) -> NoReturn:
    python = (
        " (Python object tags are never run)"
        if node.tag.startswith("tag:yaml.org,2002:python/")
        else ""
    )
    raise yaml.constructor.ConstructorError(
        None,
        None,
        f"the tag {short_repr(node.tag)} on a {what} a merge key ('<<') merges is "
        f"refused: "
        f"what '<<' merges takes no tag, its keys are merged as written{python}",
        node.start_mark,
    )


class StrictLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` (pure Python) that refuses duplicate keys and stops nesting at
    :data:`MAX_DEPTH`; :class:`CStrictLoader` is the same loader on libyaml.

    >>> try:
    ...     yaml.load("a: 1\\na: 2", Loader=StrictLoader)
    ... except yaml.MarkedYAMLError as err:
    ...     print(err.problem, "| at line", err.problem_mark.line + 1)
    duplicate key 'a' (first at line 1, column 1) | at line 2
    """

    _depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if not self.check_event(yaml.SequenceStartEvent, yaml.MappingStartEvent):
            return super().compose_node(parent, index)
        if self._depth >= MAX_DEPTH:
            mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
            raise yaml.composer.ComposerError(None, None, _DEPTH, mark)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def compose_scalar_node(self, anchor: dict[Any, yaml.Node]) -> yaml.ScalarNode:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if event.tag == "!" and event.value == "" and event.style is None:
            # an empty node tagged "!" is the empty string, as libyaml reads it (YAML's
            # non-specific tag makes a scalar a string); PyYAML's parser left it null
            event.implicit = (False, False)
        return super().compose_scalar_node(anchor)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        _check_duplicates(self, node)
        return super().construct_mapping(node, deep=deep)

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        _check_merged(node)
        super().flatten_mapping(node)

    # An empty key or value in a flow collection ("[a: ]", "{? }") is placed by libyaml at
    # the token after it, by PyYAML's parser at the end of the ":" or "?" before it, so a
    # refusal of that node ("[<<: ]": nothing to merge) fell a column apart on the two
    # paths: here it is placed as libyaml places it. The block forms are placed alike.
    def parse_flow_sequence_entry_mapping_key(self) -> Any:
        event = super().parse_flow_sequence_entry_mapping_key()  # type: ignore[no-untyped-call]
        if _empty(event):
            # libyaml takes the end of a "," or ":" right after "?", the start of a "]"; it
            # skips that "," too, and so places the empty value of "[? ,]" one column on
            after = self.peek_token()  # type: ignore[no-untyped-call]
            end = isinstance(after, yaml.ValueToken | yaml.FlowEntryToken)
            event.start_mark = event.end_mark = after.end_mark if end else after.start_mark
        return event

    def parse_flow_sequence_entry_mapping_value(self) -> Any:
        event = super().parse_flow_sequence_entry_mapping_value()  # type: ignore[no-untyped-call]
        return self._at_next_token(event)

    def parse_flow_mapping_key(self, first: bool = False) -> Any:
        return self._at_next_token(super().parse_flow_mapping_key(first))

    def parse_flow_mapping_value(self) -> Any:
        return self._at_next_token(super().parse_flow_mapping_value())  # type: ignore[no-untyped-call]

    def _at_next_token(self, event: Any) -> Any:
        if _empty(event):
            mark = self.peek_token().start_mark  # type: ignore[no-untyped-call]
            event.start_mark = event.end_mark = mark
        return event


def _empty(event: Any) -> bool:
    """Whether ``event`` is the empty scalar the parser makes where a node is left out (no
    text, tag or anchor: a node written with none of them has a token of its own)."""
    return (
        isinstance(event, yaml.ScalarEvent)
        and event.value == ""
        and event.tag is None
        and event.anchor is None
        and event.start_mark is event.end_mark
    )


def _not_json(loader: Any, node: yaml.Node) -> Any:
    """Refuse a standard tag whose value JSON (and so a pod) cannot carry, in place."""
    name = node.tag.rsplit(":", 1)[-1]
    instead = {"binary": "write the base64 text as a string", "set": "write a list"}.get(
        name, "write a list of maps"
    )
    raise yaml.constructor.ConstructorError(
        None,
        None,
        f"!!{name} makes a Python {_NOT_JSON[node.tag]}, which JSON (and so a pod) "
        f"cannot carry; {instead}",
        node.start_mark,
    )


_NOT_JSON = {
    "tag:yaml.org,2002:binary": "bytes value",
    "tag:yaml.org,2002:set": "set",
    "tag:yaml.org,2002:omap": "list of pairs",
    "tag:yaml.org,2002:pairs": "list of pairs",
}


# a date or time stays the text it was written as: JSON has no dates, and Kubernetes
# (YAML read as JSON) reads ``2024-01-02`` as that text
def _as_text(loader: Any, node: yaml.Node) -> str:
    return str(loader.construct_scalar(node))


def _checked(name: str, construct: Any, kind: str) -> Any:
    """PyYAML's constructor for ``!!name``, whose refusal of a text that is not ``kind``
    (an explicit ``!!int x``) is a marked error, not a bare ``ValueError``."""

    def checked(loader: Any, node: yaml.Node) -> Any:
        try:
            return construct(loader, node)
        except (ValueError, KeyError, IndexError):
            raise yaml.constructor.ConstructorError(
                None, None, f"!!{name} takes {kind}, not {short_repr(node.value)}", node.start_mark
            ) from None

    return checked


def _strict_constructors(loader: Any) -> None:
    """Give a loader class the strict constructors: tags JSON cannot carry refused, dates
    as text, a text an explicit ``!!int``, ``!!float`` or ``!!bool`` cannot read refused."""
    for tag in _NOT_JSON:
        loader.add_constructor(tag, _not_json)
    loader.add_constructor("tag:yaml.org,2002:timestamp", _as_text)
    for name, kind in (("int", "an integer"), ("float", "a number"), ("bool", "true or false")):
        tag = f"tag:yaml.org,2002:{name}"
        loader.add_constructor(tag, _checked(name, loader.yaml_constructors[tag], kind))


def _equals_as_text(loader: Any) -> None:
    """Read a plain ``=`` as the string it is to kubectl and YAML 1.2: PyYAML's resolver
    gives it YAML 1.1's ``value`` tag, which no constructor builds (``a: =`` was refused,
    naming a tag the file does not write)."""
    loader.yaml_implicit_resolvers = {
        first: [(tag, pattern) for tag, pattern in resolvers if tag != _VALUE]
        for first, resolvers in loader.yaml_implicit_resolvers.items()
    }


_strict_constructors(StrictLoader)
_equals_as_text(StrictLoader)

_CSafeLoader: Any = getattr(yaml, "CSafeLoader", StrictLoader)
LIBYAML: bool = _CSafeLoader is not StrictLoader
"""Whether podfold reads and writes YAML with libyaml (PyYAML's C extension), as it does
where PyYAML has it; the pure-Python loader and dumper give the same documents, the same
refusals at the same places, and the same text."""


class CStrictLoader(_CSafeLoader):  # type: ignore[misc]
    """:class:`StrictLoader` on libyaml (``yaml.CSafeLoader``): the same documents and the
    same refusals at the same lines and columns, parsed several times faster (where
    PyYAML has no libyaml, it is :class:`StrictLoader` under another name).

    libyaml composes a document without Python recursion (and stops at 1,000 levels of
    its own), so nesting is checked on the composed document (:func:`check_graph`)
    before anything is built from it; where libyaml stops first, :func:`yaml_error`
    places the refusal where :class:`StrictLoader` does.

    >>> yaml.load("a: 1\\nt: 2024-01-02\\n", Loader=CStrictLoader)
    {'a': 1, 't': '2024-01-02'}
    """

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        _check_duplicates(self, node)
        result: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        return result

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        _check_merged(node)
        super().flatten_mapping(node)


_strict_constructors(CStrictLoader)
_equals_as_text(CStrictLoader)


def strict_loader() -> Any:
    """The loader class :func:`load_documents` reads with: :class:`CStrictLoader` where
    :data:`LIBYAML` holds, else :class:`StrictLoader`.

    >>> strict_loader() is (CStrictLoader if LIBYAML else StrictLoader)
    True
    """
    return CStrictLoader if LIBYAML else StrictLoader


class ManifestLoader(StrictLoader):
    """:class:`StrictLoader` reading plain scalars as kubectl reads them (numbers, booleans,
    keys as text; see :mod:`transforms.io.scalars`): what a manifest is read with.

    >>> yaml.load("[y, N, 'y', yes, 23:30, 1e3, 08, {1: a}]", Loader=ManifestLoader)
    [True, False, 'y', True, '23:30', 1000.0, 8.0, {'1': 'a'}]
    """

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        return _construct_json_mapping(self, node, deep)


class CManifestLoader(CStrictLoader):
    """:class:`ManifestLoader` on libyaml (:class:`CStrictLoader`)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        return _construct_json_mapping(self, node, deep)


read_as_kubectl(ManifestLoader)
read_as_kubectl(CManifestLoader)


def _remember_tags(loader: type[Any]) -> None:
    """Make libyaml's ``loader`` resolve each plain text once (``Job``, ``name``, ``1``):
    libyaml asks the resolver, in Python, for every scalar of every document, and a
    manifest repeats most of its texts. The tag of a scalar depends on its text and
    whether it is plain or quoted only (the loader has no path resolvers), so one
    remembered is the one PyYAML's resolver gives. The first :data:`_REMEMBERED` texts
    met are kept (a stream's keys and common values come first and come back; names
    met once, later, are resolved each time). A loader with path resolvers is left as it is.
    """
    if loader.yaml_path_resolvers:  # pragma: no cover - podfold's loaders have none
        return
    resolve = loader.resolve
    scalar = yaml.ScalarNode
    tags: dict[tuple[str, Any], str] = {}

    def remembered(self: Any, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is scalar:
            key = (value, implicit)
            tag = tags.get(key)
            if tag is None:
                tag = resolve(self, kind, value, implicit)
                if len(tags) < _REMEMBERED:
                    tags[key] = tag
            return tag
        return resolve(self, kind, value, implicit)

    def unmoved(self: Any, *_: Any) -> None:
        return None  # no path resolver to follow the composer down and up the document

    loader.resolve = remembered
    loader.descend_resolver = unmoved
    loader.ascend_resolver = unmoved


_REMEMBERED = 4096
"""How many plain texts' tags :func:`_remember_tags` keeps."""

if LIBYAML:
    _remember_tags(CManifestLoader)


def manifest_loader() -> Any:
    """The loader class :func:`load_manifest` reads with: :class:`CManifestLoader` where
    :data:`LIBYAML` holds, else :class:`ManifestLoader`.

    >>> manifest_loader() is (CManifestLoader if LIBYAML else ManifestLoader)
    True
    """
    return CManifestLoader if LIBYAML else ManifestLoader


def check_graph(node: yaml.Node, max_nodes: int | None = MAX_NODES, *, before: int = 0) -> int:
    """Refuse a composed document that contains itself (an alias inside its own anchor),
    nests deeper than :data:`MAX_DEPTH` or expands to more than ``max_nodes`` nodes,
    aliases counted as what they stand for, together with the ``before`` nodes the
    documents before it in the stream expanded to; else return how many it expands to.

    Walks each node once, without recursion. Raises
    ``yaml.composer.ComposerError`` marked where the document goes too deep,
    or at its start when it is too large.

    >>> check_graph(yaml.compose("a: &x [1, 2]\\nb: [*x, *x]"))
    13
    >>> try:
    ...     check_graph(yaml.compose("a: &x [1, 2]\\nb: [*x, *x]"), max_nodes=8)
    ... except yaml.MarkedYAMLError as err:
    ...     print(err.problem)
    the document expands to more than 8 nodes (aliases counted as what they stand for); refused
    >>> try:
    ...     check_graph(yaml.compose("[1, 2]"), max_nodes=8, before=6)
    ... except yaml.MarkedYAMLError as err:
    ...     print(err.problem)
    with the documents before it, the stream expands to more than 8 nodes (aliases counted as what they stand for); refused
    """
    sizes: dict[int, tuple[int, int]] = {}  # id(node): (expanded size, levels of nesting)
    open_nodes: set[int] = set()  # entered, not yet summed: met again, a node holds itself
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    while stack:
        current, done = stack.pop()
        if id(current) in sizes:
            continue
        if not done and id(current) in open_nodes:
            raise yaml.composer.ComposerError(
                None,
                None,
                "an alias inside its own anchor makes the document contain itself "
                "(a cycle); refused",
                current.start_mark,
            )
        children = _children(current)
        if done or not children:
            size, height = 1, 0
            for child in children:
                child_size, child_height = sizes[id(child)]
                size += child_size
                height = max(height, child_height)
            sizes[id(current)] = (size, height + 1 if _is_collection(current) else 0)
            continue
        open_nodes.add(id(current))
        stack.append((current, True))
        stack.extend((child, False) for child in children if id(child) not in sizes)
    size, height = sizes[id(node)]
    if height > MAX_DEPTH:
        raise yaml.composer.ComposerError(None, None, _DEPTH, _too_deep(node, sizes).start_mark)
    if max_nodes is not None and before + size > max_nodes:
        whole = "with the documents before it, the stream" if before else "the document"
        raise yaml.composer.ComposerError(
            None,
            None,
            f"{whole} expands to more than {max_nodes} nodes (aliases "
            f"counted as what they stand for); refused",
            node.start_mark,
        )
    return size


def _is_collection(node: yaml.Node) -> bool:
    return isinstance(node, (yaml.SequenceNode, yaml.MappingNode))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _deepest_path(node: yaml.Node, sizes: dict[int, tuple[int, int]]) -> Iterator[yaml.Node]:
    """The nodes from ``node`` down its deepest branch, one collection level at a time."""
    while _is_collection(node):
        yield node
        height = sizes[id(node)][1]
        node = next(child for child in _children(node) if sizes[id(child)][1] == height - 1)


def _too_deep(node: yaml.Node, sizes: dict[int, tuple[int, int]]) -> yaml.Node:
    for level, current in enumerate(_deepest_path(node, sizes)):
        if level == MAX_DEPTH:
            return current
    return node  # pragma: no cover - only called on a document deeper than MAX_DEPTH


def check_text(text: str, source: str) -> None:
    """Refuse text YAML cannot carry (a NUL byte, control characters, lone surrogates,
    a byte-order mark after the start), naming the line and column, counted as YAML
    counts them (from 1).

    >>> check_text("spec:\\n  name: a\\x00b\\n", "pod.yaml")
    Traceback (most recent call last):
      ...
    transforms.errors.OverlayError: pod.yaml:2:10: character '\\x00' (#x0000) is not allowed in YAML (a control character, a NUL byte or a lone surrogate)

    A byte-order mark (U+FEFF) is read only as the text's first character: further
    on, libyaml skips it where PyYAML's parser reads it as text, so it is refused (as
    where two files that each begin with one are joined).

    >>> check_text("\\ufeffa: 1\\n---\\n\\ufeffb: 2\\n", "two.yaml")
    Traceback (most recent call last):
      ...
    transforms.errors.OverlayError: two.yaml:3:1: a byte-order mark (U+FEFF) is allowed only as the first character of the text; remove this one
    """
    found = _NON_PRINTABLE.search(text)
    if found is not None:
        char = found.group()
        line, column = position(text, found.start())
        raise OverlayError(
            f"character {char!r} (#x{ord(char):04x}) is not allowed in YAML "
            f"(a control character, a NUL byte or a lone surrogate)",
            source=source,
            line=line,
            column=column,
        )
    mark = text.find("\ufeff", 1)
    if mark != -1:
        line, column = position(text, mark)
        raise OverlayError(
            "a byte-order mark (U+FEFF) is allowed only as the first character "
            "of the text; remove this one",
            source=source,
            line=line,
            column=column,
        )


def position(text: str, index: int) -> tuple[int, int]:
    """The line and column (from 1) of ``text[index]``, with YAML's line breaks
    (``\\r\\n``, ``\\r``, ``\\n``, NEL, LS, PS).

    >>> position("a\\r\\nbc", 4), position("abc", 0)
    ((2, 2), (1, 1))
    """
    line, start = 1, 0
    for found in _BREAK.finditer(text, 0, index):
        line, start = line + 1, found.end()
    return line, index - start + 1


def decode(data: bytes, source: str) -> str:
    """The text of ``data`` read as UTF-8 (a leading byte-order mark is kept, as YAML
    allows it); bytes that are not UTF-8 are an :class:`OverlayError` naming where.

    >>> decode("name: é\\n".encode(), "a.yaml")
    'name: é\\n'
    >>> decode(b"a: 1\\nname: caf\\xe9\\n", "a.yaml")
    Traceback (most recent call last):
      ...
    transforms.errors.OverlayError: a.yaml:2:10: the file is not UTF-8: byte 0xe9 (byte 14 of the file) cannot be read (invalid continuation byte)
    >>> decode("kind: Pod\\n".encode("utf-16"), "u16.yaml")
    Traceback (most recent call last):
      ...
    transforms.errors.OverlayError: u16.yaml:1:1: the file is not UTF-8: byte 0xff (byte 0 of the file) cannot be read (invalid start byte); it begins as UTF-16 does: write it as UTF-8 (PowerShell 5 writes UTF-16: use 'Out-File -Encoding utf8')
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line_start = data.rfind(b"\n", 0, err.start) + 1
        line = data.count(b"\n", 0, err.start) + 1
        column = len(data[line_start : err.start].decode("utf-8", "replace")) + 1
        utf16 = (
            "; it begins as UTF-16 does: write it as UTF-8 (PowerShell 5 writes UTF-16: "
            "use 'Out-File -Encoding utf8')"
            if data[:2] in (b"\xff\xfe", b"\xfe\xff")
            else ""
        )
        raise OverlayError(
            f"the file is not UTF-8: byte 0x{data[err.start]:02x} (byte "
            f"{err.start} of the file) cannot be read ({err.reason}){utf16}",
            source=source,
            line=line,
            column=column,
        ) from None


def yaml_error(
    err: yaml.YAMLError, source: str, step: int | None = None, text: str | None = None
) -> OverlayError:
    """The :class:`OverlayError` of a PyYAML error, placed at its mark (file, line, column);
    given the ``text`` refused, a template left unrendered where the parser stopped is
    named as the likely cause, where it is (:func:`~transforms.io.refusals.template_hint`).

    >>> text = "spec:\\n  {{- if .Values.gpu }}\\n  nodeSelector: {gpu: a100}\\n  {{- end }}\\n"
    >>> print(load_documents(text, "chart.yaml"))
    Traceback (most recent call last):
      ...
    transforms.errors.OverlayError: chart.yaml:2:3: looks like an unrendered Helm template ('{{- if .Values.gpu }}'): render it with `helm template` first (YAML refused it at line 2, column 5: expected the node content, but found '-')
    """
    if isinstance(err, yaml.MarkedYAMLError):
        hint = template_hint(text, err) if text is not None else None
        if hint is not None:
            message, hint_line, hint_column = hint
            return OverlayError(
                message, source=source, line=hint_line, column=hint_column, step=step
            )
        mark = err.problem_mark or err.context_mark
        line = mark.line + 1 if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        problem = err.problem or str(err)
        return OverlayError(problem, source=source, line=line, column=column, step=step)
    if isinstance(err, yaml.reader.ReaderError):  # pragma: no cover - check_text comes first
        return OverlayError(
            f"character #x{err.character:04x} is not allowed in YAML ({err.reason})", source=source
        )
    return OverlayError(str(err), source=source, step=step)  # pragma: no cover


def load_documents(text: str, source: str, *, max_nodes: int | None = None) -> list[Any]:
    """The documents of a YAML (or JSON) stream, read strictly (:func:`strict_loader`);
    empty documents (a stray ``---``) left out, as kubectl leaves them.

    Each document is checked before it is built: depth (:data:`MAX_DEPTH`) and,
    when ``max_nodes`` is given, the size of the whole stream so far, aliases
    counted as what they stand for. Without it, the aliases of a stream may add
    at most :data:`MAX_NODES` nodes to what its text writes out, all documents
    together. Every refusal is an :class:`OverlayError` naming ``source``, line
    and column.

    >>> load_documents("a: &x [1]\\nb: *x\\nt: 2024-01-02T03:04:05Z\\n", "m.yaml")
    [{'a': [1], 'b': [1], 't': '2024-01-02T03:04:05Z'}]
    """
    return _load(text, source, max_nodes, strict_loader(), StrictLoader, None)


def load_manifest(
    text: str,
    source: str,
    nodes: list[yaml.Node | None] | None = None,
    added: list[int] | None = None,
) -> tuple[list[Any], list[PlainBoolean]]:
    """The documents of a manifest stream, read as :func:`load_documents` reads them but
    with kubectl's plain scalars (:class:`ManifestLoader`: numbers, booleans, keys as text;
    an infinity or NaN as a value refused where it is written, as kubectl refuses the
    file), and each of YAML 1.1's booleans written plain in them
    (:func:`~transforms.io.booleans.plain_booleans`).

    Where ``nodes`` is given, it is given each document's composed node, with its marks
    (what :mod:`transforms.io.splicing` edits the text by, so the text is not composed
    twice), or ``None`` for a document whose nodes are not as the text wrote them (one
    built by the constructor, which rewrites what a merge key merges) or were composed
    by the other parser (libyaml refused the text, and PyYAML's own read it: its marks
    count a byte-order mark that libyaml's do not). Where ``added`` is given, it is
    given how many nodes the stream's aliases added (see :func:`load_manifest_part`).

    >>> documents, found = load_manifest("env:\\n- {name: A, value: y}\\n- {name: B, value: 'n'}\\n", "m.yaml")
    >>> documents
    [{'env': [{'name': 'A', 'value': True}, {'name': 'B', 'value': 'n'}]}]
    >>> [(boolean.keys, boolean.text, boolean.line, boolean.column) for boolean in found]
    [(('env', 0, 'value'), 'y', 2, 20)]
    """
    found: list[PlainBoolean] = []
    before = None if added is None else [0]
    documents = _load(
        text, source, None, manifest_loader(), ManifestLoader, found, before, nodes=nodes
    )
    if added is not None and before is not None:
        added[:] = before
    return documents, found


def load_manifest_part(
    text: str, source: str, added: list[int]
) -> tuple[list[Any], list[PlainBoolean]]:
    """:func:`load_manifest` of one part of a stream, cut between documents (read a part
    at a time so that a stream of any length is never held whole): ``added`` holds how
    many nodes the aliases of the stream's earlier parts added, and is given this
    part's; their sum is bounded as :func:`load_manifest` bounds a whole stream's. The
    booleans' lines and documents are counted from the part's start.

    >>> added = [0]
    >>> load_manifest_part("a: &x [1, 2]\\nb: *x\\n", "m.yaml", added)[0], added
    ([{'a': [1, 2], 'b': [1, 2]}], [3])
    """
    found: list[PlainBoolean] = []
    return (
        _load(text, source, None, manifest_loader(), ManifestLoader, found, added),
        found,
    )


def _load(
    text: str,
    source: str,
    max_nodes: int | None,
    loader_class: Any,
    pure: Any,
    found: list[PlainBoolean] | None,
    before: list[int] | None = None,
    *,
    nodes: list[yaml.Node | None] | None = None,
) -> list[Any]:
    """The documents of ``text`` (see :func:`load_documents`); where ``found`` is given,
    the plain booleans of YAML 1.1 a loader noted reading (``yaml11_read``) go into it;
    where ``before`` is, it holds the nodes the aliases of the stream's earlier parts
    added, and is given those of this one's too; where ``nodes`` is, each document's
    composed node (see :func:`load_manifest`)."""
    check_text(text, source)
    earlier = before[0] if before is not None else 0

    def read(loader: Any, composed: Iterator[yaml.Node]) -> list[Any]:
        documents: list[Any] = []
        if found is not None:
            found.clear()  # what libyaml's pass found, where PyYAML's reads it all again
        # the marks of the parser the text is composed with where it is read for edits
        keep = nodes is not None and isinstance(loader, pure) != LIBYAML
        if nodes is not None:
            nodes.clear()
        expanded = 0  # the stream's nodes so far; and those its aliases added
        added = earlier
        try:
            for node in composed:
                if max_nodes is not None:  # a bound on the whole stream, aliases expanded
                    expanded += check_graph(node, max_nodes, before=expanded)
                if found is not None:
                    loader.non_finite_read = False
                plain = is_plain(node, text, None)
                if plain:  # most are: built in one pass
                    document = build(loader, node)
                else:
                    if max_nodes is None:
                        added += _added(node, added)
                    document = loader.construct_document(node)
                if found is not None and loader.non_finite_read:
                    refuse_non_finite(node)  # as a key it is text, as a value refused
                if document is not None:
                    documents.append(document)
                    if nodes is not None:
                        nodes.append(node if keep and plain else None)
                    if found is not None and loader.yaml11_read:
                        found.extend(plain_booleans(loader, node, document, len(documents)))
                        loader.yaml11_read = False
        except yaml.YAMLError as err:
            raise yaml_error(err, source, text=text) from None
        if before is not None:
            before[0] = added
        return documents

    return read_stream(text, read, loader_class, pure)


T = TypeVar("T")


class _Refused(Exception):
    """libyaml's parser refused the text (PyYAML's own parser has the last word)."""


def read_stream(
    text: str, read: Callable[[Any, Iterator[yaml.Node]], T], loader: Any, pure: Any
) -> T:
    """``read(a loader, its documents composed one by one)`` for the YAML stream ``text``:
    on ``loader``, and where that is libyaml's and libyaml's parser refuses the text,
    all again on ``pure``, PyYAML's pure-Python parser, which has the last word.

    So every refusal of the text's syntax is worded and placed as PyYAML's own
    parser words and places it (libyaml's messages and marks differ), whichever
    loader is used, and what only PyYAML reads (podfold's ``!merge-by:port,protocol``,
    a comma in a tag) is read on both. libyaml's grammar is the wider in a few
    places, read where libyaml is used and refused by PyYAML's parser: a tab as
    the space between a key and its value (as YAML 1.2 and kubectl allow), a
    block scalar's header with a comment right after it (``|#``), a ``?`` inside a
    plain scalar in a flow collection (``[a?b]``); and a tag handle of punctuation
    (``!*!``) is refused by both, in their own words.

    >>> read_stream("a: !x,y 1\\n", lambda loader, nodes: [node.tag for node in nodes],
    ...             CStrictLoader, StrictLoader)
    ['tag:yaml.org,2002:map']
    """
    first = loader(text)
    try:
        return read(first, _composed(first, text, refusable=loader is not pure))
    except _Refused:
        pass  # read it all again, below, on PyYAML's parser
    finally:
        first.dispose()
    second = pure(text)
    try:
        return read(second, _composed(second, text, refusable=False))
    finally:
        second.dispose()


def _composed(loader: Any, text: str, refusable: bool) -> Iterator[yaml.Node]:
    while True:
        try:
            if not loader.check_node():
                return
            node = loader.get_node()
        except yaml.MarkedYAMLError as err:
            # libyaml counts marks from after a byte-order mark, PyYAML from before it
            offset = 1 if refusable and text.startswith("\ufeff") else 0
            too_long = long_key(
                text, err, offset, lambda changed: _first_error(type(loader), changed)
            )
            if too_long is not None:
                raise too_long from None  # said at once: PyYAML's parser takes seconds on it
            if refusable:
                raise _Refused() from err
            raise
        except yaml.YAMLError as err:  # pragma: no cover - every parser error is marked
            if refusable:
                raise _Refused() from err
            raise
        yield node


def _first_error(loader_class: Any, text: str) -> yaml.MarkedYAMLError | None:
    """Where ``loader_class``'s parser first refuses ``text`` (its events, nothing built)."""
    loader = loader_class(text)
    try:
        while loader.check_event():
            loader.get_event()
    except yaml.MarkedYAMLError as err:
        return err
    finally:
        loader.dispose()
    return None


def _added(node: yaml.Node, before: int) -> int:
    """How many nodes the aliases of the composed document ``node`` add to what its text
    writes out; refused where, with the ``before`` those of the stream's earlier
    documents added, that is more than :data:`MAX_NODES` (depth and cycles checked too)."""
    added = check_graph(node, None) - _count(node)
    if before + added > MAX_NODES:
        whole = "with the documents before it, the stream" if before else "the document"
        raise yaml.composer.ComposerError(
            None,
            None,
            f"{whole} expands to more than {MAX_NODES} nodes besides those it "
            f"writes out (aliases counted as what they stand for); refused",
            node.start_mark,
        )
    return added


def _count(node: yaml.Node) -> int:
    """How many distinct nodes a composed document holds (what its text writes out)."""
    seen: set[int] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if id(current) not in seen:
            seen.add(id(current))
            stack.extend(_children(current))
    return len(seen)
