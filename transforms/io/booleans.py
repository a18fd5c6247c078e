"""Plain scalars read as booleans the way kubectl reads them: YAML 1.1's ``y``, ``yes``, ``on``, ``n``, ...

kubectl (``sigs.k8s.io/yaml``, on go-yaml v2) reads these, written plain
(unquoted, untagged), as booleans, as YAML 1.1 says: ``y``, ``Y``, ``yes``,
``Yes``, ``YES``, ``on``, ``On``, ``ON`` as true and ``n``, ``N``, ``no``,
``No``, ``NO``, ``off``, ``Off``, ``OFF`` as false, besides ``true`` and
``false`` in their three cases. PyYAML reads all but ``y``, ``Y``, ``n``
and ``N`` so; YAML 1.2 readers (go-yaml v3, ruamel.yaml) only ``true`` and
``false``. A manifest is read as kubectl reads it
(:func:`read_booleans_as_kubectl` gives a loader class kubectl's booleans, as
part of the rest of kubectl's reading: :func:`transforms.io.scalars.read_as_kubectl`),
so that what podfold checks and writes is what kubectl would have sent: a
``value: y`` it read as the string ``'y'`` was written back quoted, and
so meant another thing to kubectl than the file did.

Where a manifest writes one of the booleans YAML 1.2 readers take for text
(the YAML 1.1 ones, :data:`YAML11_ONLY`), :func:`plain_booleans` finds each,
key or value, with its place in the document and in the file, so that a
message can say where it was written and how to quote it.

>>> import yaml
>>> from transforms.io.safe_yaml import StrictLoader
>>> class Loader(StrictLoader):
...     pass
>>> read_booleans_as_kubectl(Loader)
>>> yaml.load("[y, n, yes, 'y', true, ya]", Loader=Loader)
[True, False, True, 'y', True, 'ya']
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

from combinators.limits import short_repr

__all__ = (
    "KUBECTL_TRUE",
    "KUBECTL_FALSE",
    "YAML11_ONLY",
    "PlainBoolean",
    "read_booleans_as_kubectl",
    "plain_booleans",
)

KUBECTL_TRUE = frozenset({"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})
"""The plain scalars kubectl (go-yaml v2's resolver) reads as ``true``."""

KUBECTL_FALSE = frozenset(
    {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"}
)
"""The plain scalars kubectl (go-yaml v2's resolver) reads as ``false``."""

YAML11_ONLY = (KUBECTL_TRUE | KUBECTL_FALSE) - {"true", "True", "TRUE", "false", "False", "FALSE"}
"""kubectl's booleans that YAML 1.2 readers read as strings (and PyYAML ``y``, ``n``)."""

_BOOL = "tag:yaml.org,2002:bool"
_STR = "tag:yaml.org,2002:str"
# the booleans PyYAML's resolver leaves to strings, the first letters they start with
_PYYAML_STRINGS = re.compile(r"(?:y|Y|n|N)\Z")


def read_booleans_as_kubectl(loader: type[Any]) -> None:
    """Make ``loader`` (a podfold loader class, never one of PyYAML's own: they are
    shared) read a plain scalar as kubectl does where kubectl reads a boolean, and note
    on the loader, as ``yaml11_read``, that it read one of :data:`YAML11_ONLY`.

    The resolver is tried only for a text that begins with ``y``, ``Y``, ``n`` or
    ``N`` and that PyYAML's own resolvers did not take; the constructor runs once
    for each boolean text of a plain document (:func:`~transforms.io.plain.build`
    keeps what it built), so the note costs nothing where no such text is.
    """
    if loader.__module__ == "yaml" or loader.__module__.startswith("yaml."):
        raise ValueError(f"{loader.__name__} is PyYAML's own class; subclass it first")
    loader.add_implicit_resolver(_BOOL, _PYYAML_STRINGS, list("yYnN"))
    loader.yaml11_read = False
    loader.add_constructor(_BOOL, _construct_bool)


def _construct_bool(loader: Any, node: yaml.ScalarNode) -> bool:
    text = loader.construct_scalar(node)
    if text in KUBECTL_TRUE or text in KUBECTL_FALSE:
        if text in YAML11_ONLY:
            loader.yaml11_read = True
        return text in KUBECTL_TRUE
    lowered = text.lower()  # an explicit !!bool: PyYAML's spellings, any case
    if lowered in ("yes", "true", "on", "no", "false", "off"):
        return lowered in ("yes", "true", "on")
    raise yaml.constructor.ConstructorError(
        None, None, f"!!bool takes true or false, not {short_repr(text)}", node.start_mark
    )


@dataclass(frozen=True)
class PlainBoolean:
    """One of :data:`YAML11_ONLY` written plain in a manifest, read as the boolean
    ``value``: where it is (``keys``, the keys and indexes from its document's top;
    for a key, those of its map), in which document (from 1, as the documents read
    are numbered) and at which ``line`` and ``column`` of the file (from 1).

    >>> found = PlainBoolean(1, ("spec", "containers", 0, "env", 0, "value"), "y", True, 9, 14)
    >>> found.note()
    "y, written plain, is the boolean true to kubectl (YAML 1.1): quote it ('y') if a string is meant"
    """

    document: int
    keys: tuple[Any, ...]
    text: str
    value: bool
    line: int
    column: int
    is_key: bool = False

    def note(self) -> str:
        """What the text is to kubectl, and how to write the string it may have meant.

        >>> PlainBoolean(1, ("metadata", "labels"), "y", True, 5, 5, is_key=True).note()
        "y, a key written plain, is the boolean true to kubectl (YAML 1.1), so the key 'true': quote it ('y') if the key 'y' is meant"
        """
        truth = str(self.value).lower()
        if self.is_key:
            return (
                f"{self.text}, a key written plain, is the boolean {truth} to kubectl "
                f"(YAML 1.1), so the key '{truth}': quote it ('{self.text}') if the key "
                f"'{self.text}' is meant"
            )
        return (
            f"{self.text}, written plain, is the boolean {truth} to kubectl "
            f"(YAML 1.1): quote it ('{self.text}') if a string is meant"
        )


def plain_booleans(loader: Any, node: yaml.Node, data: Any, document: int) -> list[PlainBoolean]:
    """Each of :data:`YAML11_ONLY` written plain in the composed document ``node``,
    which ``loader`` built into ``data`` (the ``document``-th read), key or value, in
    the order written (an anchored one where each alias stands): where ``data`` holds the boolean it was read as (a key given
    again, or a merge key's, that ``data`` does not keep is left out).

    Walks the nodes once, without recursion; an alias is followed where it stands
    (the document was bounded before it was built). Where ``loader`` makes keys text
    (its ``json_key``: a manifest's, as kubectl makes them), a key ``y`` is found where
    ``data`` has the key ``'true'``.
    """
    json_key = getattr(loader, "json_key", None)
    found: list[PlainBoolean] = []
    stack: list[tuple[yaml.Node, Any, tuple[Any, ...]]] = [(node, data, ())]
    while stack:
        current, value, keys = stack.pop()
        if isinstance(current, yaml.MappingNode):
            if not isinstance(value, dict):
                continue
            later: list[tuple[yaml.Node, Any, tuple[Any, ...]]] = []
            for key_node, value_node in current.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    continue
                read = _scalar(loader, key_node)
                key = read if json_key is None or type(read) is str else json_key(read)
                if key not in value:
                    continue
                if _is_yaml11(key_node) and isinstance(read, bool):
                    found.append(_found(document, keys, key_node, read, is_key=True))
                item = value[key]
                if isinstance(value_node, yaml.ScalarNode):
                    if _is_yaml11(value_node) and isinstance(item, bool):
                        found.append(_found(document, (*keys, key), value_node, item))
                else:
                    later.append((value_node, item, (*keys, key)))
            stack.extend(reversed(later))
        elif isinstance(current, yaml.SequenceNode):
            if not isinstance(value, list) or len(value) != len(current.value):
                continue
            later = []
            for index, (item_node, item) in enumerate(zip(current.value, value, strict=True)):
                if isinstance(item_node, yaml.ScalarNode):
                    if _is_yaml11(item_node) and isinstance(item, bool):
                        found.append(_found(document, (*keys, index), item_node, item))
                else:
                    later.append((item_node, item, (*keys, index)))
            stack.extend(reversed(later))
        elif _is_yaml11(current) and isinstance(value, bool):
            found.append(_found(document, keys, current, value))
    return sorted(found, key=lambda boolean: (boolean.line, boolean.column))


def _is_yaml11(node: yaml.Node) -> bool:
    # plain: the style is None from PyYAML's parser, "" from libyaml's
    return (
        isinstance(node, yaml.ScalarNode)
        and node.tag == _BOOL
        and not node.style
        and node.value in YAML11_ONLY
    )


def _scalar(loader: Any, node: yaml.ScalarNode) -> Any:
    if node.tag == _STR:
        return node.value
    construct = loader.yaml_constructors.get(node.tag)
    return None if construct is None else construct(loader, node)


def _found(
    document: int, keys: tuple[Any, ...], node: yaml.Node, value: bool, is_key: bool = False
) -> PlainBoolean:
    mark = node.start_mark
    return PlainBoolean(document, keys, node.value, value, mark.line + 1, mark.column + 1, is_key)
