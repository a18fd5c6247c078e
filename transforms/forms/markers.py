"""Markers: say, inside a partial pod, what to do with a value other than the default.

A partial pod merges into a pod: maps merge key by key, an untagged list is
appended (TorchX's rule), anything else replaces. A marker changes that for
one value. In YAML they are tags (``!replace``, ``!append-unique``, ...); in
Python they are these small immutable values:

>>> from transforms import overlay
>>> pod = {"spec": {"tolerations": [{"key": "a"}], "hostIPC": True}}
>>> overlay({"spec": {"tolerations": Replace([]), "hostIPC": Remove()}})(pod)
{'spec': {'tolerations': []}}

An untagged list appends every time it is applied; :class:`AppendUnique`
appends only the items not there yet, so an overlay that adds a toleration
can be applied to a pod that has it, or applied twice, without a duplicate:

>>> add = overlay({"spec": {"tolerations": AppendUnique([{"key": "a"}, {"key": "b"}])}})
>>> add(pod)["spec"]["tolerations"]
[{'key': 'a'}, {'key': 'b'}]
>>> add(add(pod)) == add(pod)
True
"""

from __future__ import annotations

from typing import Any

from pyrsistent import freeze

from combinators.data import copy_plain
from combinators.limits import short_repr

__all__ = (
    "Marker",
    "Append",
    "AppendUnique",
    "Prepend",
    "Replace",
    "Remove",
    "Default",
    "MergeBy",
    "MARKERS",
)


class Marker:
    """Base of the markers; a marker holds a plain copy of its value."""

    __slots__ = ("value",)
    tag = ""

    def __init__(self, value: Any = None) -> None:
        self.value = copy_plain(value)

    def _key(self) -> Any:
        return freeze(self.value)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Marker) and type(other) is type(self) and self._key() == other._key()
        )

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._key()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({short_repr(self.value)})"


class Append(Marker):
    """Append the items of a list (the default for a list; explicit here)."""

    __slots__ = ()
    tag = "!append"


class AppendUnique(Marker):
    """Append the items of a list that are not there yet, each once, as
    ``append_at(..., unique=True)`` does (strict equality: ``1`` is neither
    ``True`` nor ``1.0``): applying it twice equals applying it once."""

    __slots__ = ()
    tag = "!append-unique"


class Prepend(Marker):
    """Put the items of a list before the existing ones."""

    __slots__ = ()
    tag = "!prepend"


class Replace(Marker):
    """Replace whatever is there, lists and maps included, with the value."""

    __slots__ = ()
    tag = "!replace"


class Remove(Marker):
    """Remove the key."""

    __slots__ = ()
    tag = "!remove"

    def __init__(self, value: Any = None) -> None:
        super().__init__(None)

    def __repr__(self) -> str:
        return "Remove()"


class Default(Marker):
    """Set the value only where the key is absent (missing or null)."""

    __slots__ = ()
    tag = "!default"


class MergeBy(Marker):
    """Merge list items into the elements with the same key field(s); append the rest.

    An item merges into its element as a partial pod merges into a pod, so the
    element keeps what the item leaves out: maps merge, tags act on the element's
    own values, lists append, and a list Kubernetes merges by a key (``env`` by
    ``name``, ``volumeMounts`` by ``mountPath``, ``ports`` by ``containerPort``
    and ``protocol``) merges by it, at any depth of the item.

    >>> from transforms import overlay
    >>> pod = {"spec": {"containers": [{"name": "app", "env": [{"name": "A", "value": "1"}],
    ...                                 "volumeMounts": [{"name": "v", "mountPath": "/local"}]}]}}
    >>> new = overlay({"spec": {"containers": MergeBy([{"name": "app",
    ...     "env": [{"name": "A", "value": "2"}, {"name": "B", "value": "3"}],
    ...     "volumeMounts": [{"name": "d", "mountPath": "/data"}]}])}})(pod)
    >>> new["spec"]["containers"][0]["env"]
    [{'name': 'A', 'value': '2'}, {'name': 'B', 'value': '3'}]
    >>> [mount["mountPath"] for mount in new["spec"]["containers"][0]["volumeMounts"]]
    ['/local', '/data']
    """

    __slots__ = ("key",)
    tag = "!merge-by"

    def __init__(self, value: Any = None, key: str | tuple[str, ...] = "name") -> None:
        super().__init__(value)
        self.key = key if isinstance(key, str) else tuple(key)

    def _key(self) -> Any:
        return (self.key, freeze(self.value))

    def __repr__(self) -> str:
        if self.key == "name":
            return f"MergeBy({short_repr(self.value)})"
        return f"MergeBy({short_repr(self.value)}, key={short_repr(self.key)})"


MARKERS: tuple[type[Marker], ...] = (
    Append,
    AppendUnique,
    Prepend,
    Replace,
    Remove,
    Default,
    MergeBy,
)
