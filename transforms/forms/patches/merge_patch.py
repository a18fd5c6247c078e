"""RFC 7396 JSON Merge Patch as a pure transform.

>>> merge_patch({"a": {"b": None, "c": 1}})({"a": {"b": 0}, "d": [1]})
{'a': {'c': 1}, 'd': [1]}
"""

from __future__ import annotations

from typing import Any

from pyrsistent import PMap, PVector, freeze

from combinators.data import (
    MISSING,
    Owned,
    copy_plain,
    delete_key,
    is_map,
    set_key,
    strict_equal,
)
from combinators.shape import check_value
from combinators.transform import Transform

__all__ = ("merge_patch",)


def _without_nulls(patch: Any) -> Any:
    """A fresh plain copy of a patch value with its ``null`` map members dropped."""
    if is_map(patch):
        return {key: _without_nulls(value) for key, value in patch.items() if value is not None}
    return copy_plain(patch)


def _merge(target: Any, patch: Any, persistent: bool, owned: Owned) -> Any:
    """RFC 7396 ``MergePatch(target, patch)``, returning ``target`` itself when unchanged."""
    if not is_map(patch):
        if target is not MISSING and strict_equal(target, patch):
            return target
        return freeze(copy_plain(patch)) if persistent else copy_plain(patch)
    if target is MISSING or not is_map(target):
        fresh = _without_nulls(patch)
        return freeze(fresh) if persistent else fresh
    result = target
    for key, value in patch.items():
        current = result.get(key, MISSING)
        if value is None:
            if current is not MISSING:
                result = delete_key(result, key, owned)
            continue
        merged = _merge(current, value, persistent, owned)
        if merged is not current:
            result = set_key(result, key, merged, owned)
    return result


class _MergePatch(Transform):
    __slots__ = ("patch",)
    name = "merge_patch"

    def __init__(self, patch: Any) -> None:
        check_value(patch, argument="patch", factory="merge_patch")
        self.patch = copy_plain(patch)
        self._init_params(self.patch)

    def _apply(self, doc: Any, owned: Owned) -> Any:
        persistent = isinstance(doc, (PMap, PVector))
        return _merge(doc, self.patch, persistent, owned)


def merge_patch(patch: Any) -> Transform:
    """An RFC 7396 JSON Merge Patch: ``null`` deletes, maps merge, the rest replaces.

    - a map in the patch merges key by key into a map (recursively), or
      replaces a non-map; its ``null`` members delete keys;
    - a list or a scalar replaces what was there, whole;
    - a patch that is not a map replaces the whole document;
    - only maps along changed keys are copied; no change returns the same pod;
    - what JSON cannot hold (a key that is no string, a set) fails when built.

    >>> pod = {"metadata": {"labels": {"app": "x"}}, "spec": {"tolerations": [{"key": "a"}]}}
    >>> merge_patch({"spec": {"tolerations": [{"key": "b"}]}})(pod)["spec"]
    {'tolerations': [{'key': 'b'}]}
    >>> merge_patch({"metadata": {"annotations": None}})(pod) is pod
    True
    """
    return _MergePatch(patch)
