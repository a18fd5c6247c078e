"""Plain YAML documents built in one pass: the strict constructor's work, without its generality.

Most manifests are trees of maps, lists and scalars: no aliases, no tags but
YAML's own for maps, lists, strings, numbers, booleans, null and dates, no
merge keys (``<<``). :func:`is_plain` says whether a composed document is one
(and within :data:`~combinators.limits.MAX_DEPTH` levels and the node bound);
:func:`build` then makes what the strict loaders' constructor makes of it,
value for value, refusing a key written twice with the same message, at the
same place and in the same order (maps level by level, as PyYAML's
constructor defers them), without recursion and without the bookkeeping the
constructor keeps for aliases and custom tags: several times faster. Any
other document goes to the constructor.

>>> import yaml
>>> from transforms.io.safe_yaml import StrictLoader
>>> text = "kind: Job\\nspec: {parallelism: 2, created: 2024-01-02, ports: [80, 0x1F]}\\n"
>>> loader = StrictLoader(text)
>>> node = loader.get_single_node()
>>> is_plain(node, text, None)
True
>>> build(loader, node)
{'kind': 'Job', 'spec': {'parallelism': 2, 'created': '2024-01-02', 'ports': [80, 31]}}
>>> is_plain(yaml.compose("a: &x [1]\\nb: *x\\n"), "a: &x [1]\\nb: *x\\n", None)
False
"""

from __future__ import annotations

from collections import deque
from typing import Any

import yaml

from combinators.limits import MAX_DEPTH, short_repr
from transforms.io.scalars import NUMBER_TAG

__all__ = ("is_plain", "build", "duplicate_key")

_PREFIX = "tag:yaml.org,2002:"
_STR, _FLOAT = _PREFIX + "str", _PREFIX + "float"
_MAP, _SEQ = _PREFIX + "map", _PREFIX + "seq"
_SCALARS = frozenset(
    {*(_PREFIX + name for name in ("str", "int", "float", "bool", "null", "timestamp")), NUMBER_TAG}
)
_Scalar, _Mapping, _Sequence = yaml.ScalarNode, yaml.MappingNode, yaml.SequenceNode


def duplicate_key(key: Any, first: yaml.Node, again: yaml.Node) -> yaml.MarkedYAMLError:
    """The refusal of ``key`` written again at ``again``, naming where it was ``first`` (and,
    for a boolean, how it was written there where that differs: ``on`` and ``y`` are both
    ``True``).

    >>> print(duplicate_key(True, yaml.compose("on"), yaml.compose("yes")).problem)
    duplicate key True (first at line 1, column 1, written 'on': both are read as True)
    """
    shown = short_repr(key, 60)
    mark = first.start_mark
    written = first.value if isinstance(first, yaml.ScalarNode) else None
    differs = (
        f", written {written!r}: both are read as {shown}"
        if isinstance(key, (bool, str))
        and isinstance(written, str)
        and isinstance(again, yaml.ScalarNode)
        and written != again.value
        and len(written) <= 60
        else ""
    )
    return yaml.constructor.ConstructorError(
        None,
        None,
        f"duplicate key {shown} (first at line {mark.line + 1}, column {mark.column + 1}{differs})",
        again.start_mark,
    )


def is_plain(node: yaml.Node, text: str, max_nodes: int | None) -> bool:
    """Whether the composed document ``node`` of ``text`` is a plain tree :func:`build`
    builds: no alias (no ``*`` in its text), YAML's own tags only, keys that are
    scalars and no merge keys, at most :data:`MAX_DEPTH` levels and ``max_nodes``
    nodes (aliases aside, what :func:`~transforms.io.safe_yaml.check_graph` counts)."""
    # an alias is written "*name" inside its document; libyaml counts marks from after a
    # byte-order mark, PyYAML from before it, hence the character more on each side
    start, end = node.start_mark.index, node.end_mark.index
    if text.find("*", max(start - 1, 0), end + 1) != -1:
        return False
    if type(node) is _Scalar:
        return node.tag in _SCALARS
    count = 1
    stack = [(node, 1)]
    while stack:
        current, level = stack.pop()
        if level > MAX_DEPTH:
            return False
        if type(current) is _Mapping:
            if current.tag != _MAP:
                return False
            for key, value in current.value:
                if type(key) is not _Scalar or key.tag not in _SCALARS:
                    return False  # a merge key (or a "=" key) is no plain scalar
                if type(value) is _Scalar:
                    if value.tag not in _SCALARS:
                        return False
                else:
                    stack.append((value, level + 1))
            count += 2 * len(current.value)
        else:
            if current.tag != _SEQ:
                return False
            for item in current.value:
                if type(item) is _Scalar:
                    if item.tag not in _SCALARS:
                        return False
                else:
                    stack.append((item, level + 1))
            count += len(current.value)
    return max_nodes is None or count <= max_nodes


def build(loader: Any, node: yaml.Node) -> Any:
    """The data of the plain document ``node`` (see :func:`is_plain`), as
    ``loader.construct_document(node)`` makes it (keys made text where the loader makes
    them so, by its ``json_key``: :func:`~transforms.io.scalars.json_key`); a key written
    twice in one map is a ``ConstructorError`` (:func:`duplicate_key`)."""
    constructors = loader.yaml_constructors
    json_key = getattr(loader, "json_key", None)
    # each integer, boolean, null and date text built once (a float each time: two
    # NaN keys are two keys)
    scalars: dict[tuple[str, str], Any] = {}

    def scalar(item: Any) -> Any:
        tag = item.tag
        if tag == _STR:
            return item.value
        if tag == _FLOAT:
            return constructors[tag](loader, item)
        key = (tag, item.value)
        value = scalars.get(key, scalars)
        if value is scalars:
            value = scalars[key] = constructors[tag](loader, item)
        return value

    if type(node) is _Scalar:
        return scalar(node)
    root: Any = {} if type(node) is _Mapping else []
    pending: deque[tuple[Any, Any]] = deque([(node, root)])
    child: Any
    while pending:
        current, data = pending.popleft()
        if type(current) is _Mapping:
            seen: dict[Any, yaml.Node] = {}
            keys = []
            for key_node, _ in current.value:
                key = scalar(key_node)
                if json_key is not None and type(key) is not str:
                    key = json_key(key, key_node)
                first = seen.setdefault(key, key_node)
                if first is not key_node:
                    raise duplicate_key(key, first, key_node)
                keys.append(key)
            for key, (_, value_node) in zip(keys, current.value, strict=True):
                if type(value_node) is _Scalar:
                    data[key] = scalar(value_node)
                else:
                    data[key] = child = {} if type(value_node) is _Mapping else []
                    pending.append((value_node, child))
        else:
            for item in current.value:
                if type(item) is _Scalar:
                    data.append(scalar(item))
                else:
                    child = {} if type(item) is _Mapping else []
                    data.append(child)
                    pending.append((item, child))
    return root
