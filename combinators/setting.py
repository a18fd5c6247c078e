"""Setting, merging, updating and removing what a path points at.

Every factory here takes the path first, then the value, then options, and
returns a :class:`~combinators.transform.Transform`.
"""

from __future__ import annotations

from combinators._typing import TYPE_CHECKING
from combinators.data import (
    MISSING,
    REMOVE,
    Owned,
    Template,
    freeze_value,
    merge_value,
    strict_equal,
)
from combinators.editing import CREATE, ERROR, SKIP, PathEdit
from combinators.errors import ArgumentTypeError
from combinators.fusion import MERGE, SET, Op
from combinators.limits import short_repr
from combinators.paths import Key, PathLike
from combinators.shape import check_flag, check_value, guarded_copy
from combinators.transform import Transform, call_foreign, settled

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ("upsert", "replace_at", "set_default", "update_at", "remove_at")


class _Upsert(PathEdit):
    __slots__ = ("value", "_flat_map", "_scalar")
    name = "upsert"

    def __init__(self, target: PathLike, value: Any) -> None:
        self._init_path(target, CREATE, CREATE)
        check_value(value, argument="value", factory=self.name)
        self.value = Template(value)
        self._init_params(self.path, self.value.plain)
        # the common cases, kept short in ``leaf``: a map of scalars, or a scalar
        plain = self.value.plain
        self._flat_map = plain if type(plain) is dict and self.value.flat else None
        self._scalar = not self.value.is_container

    def leaf(self, old: Any, persistent: bool, owned: Owned) -> Any:
        flat = self._flat_map
        if flat is not None and type(old) is dict:
            result = old
            writable = False
            for key, value in flat.items():
                current = result.get(key, MISSING)
                if current is value or (type(current) is type(value) and current == value):
                    continue
                if not writable:
                    result = owned.writable_map(old)
                    writable = True
                result[key] = value
            return result
        if self._scalar and not persistent:
            value = self.value.plain
            if old is value or (type(old) is type(value) and old == value):
                return old
            return value
        return merge_value(
            old, self.value.plain, self.value.frozen if persistent else None, persistent, owned
        )

    def _fusion_op(self) -> Op:
        if type(self._parts[-1]) is Key:
            if self._flat_map:  # not {}: merging it where nothing is creates a map
                return Op(MERGE, self._parts, self._flat_map)
            if self._scalar:
                return Op(SET, self._parts, (self.value.plain, "share"))
        return super()._fusion_op()


def upsert(target: PathLike, value: Any) -> Transform:
    """Merge ``value`` into what ``target`` points at, creating what is missing.

    - maps merge key by key, recursively; any other value (a list, a string,
      ``None``) replaces what was there;
    - missing parent maps are created (a list where the next part selects
      in a list); a match selector in the middle of the path must match;
    - a path ending in a match selector merges into every matching element,
      or appends a new element made of the selector's fields and ``value``;
      ``[-]`` appends, ``[*]`` merges into every element;
    - where nothing changes, the very same document comes back.

    >>> pod = {"spec": {"nodeSelector": {"zone": "a"}}}
    >>> upsert("spec.nodeSelector", {"gpu": "a100"})(pod)
    {'spec': {'nodeSelector': {'zone': 'a', 'gpu': 'a100'}}}
    >>> upsert("metadata.labels.team", "ml")(pod)
    {'spec': {'nodeSelector': {'zone': 'a'}}, 'metadata': {'labels': {'team': 'ml'}}}
    >>> upsert("spec.containers[name=sidecar]", {"image": "envoy"})({"spec": {"containers": []}})
    {'spec': {'containers': [{'name': 'sidecar', 'image': 'envoy'}]}}
    >>> upsert("spec.nodeSelector", {"zone": "a"})(pod) is pod
    True
    """
    return _Upsert(target, value)


class _Replace(PathEdit):
    __slots__ = ("value",)
    name = "replace_at"

    def __init__(self, target: PathLike, value: Any) -> None:
        self._init_path(target, CREATE, CREATE)
        check_value(value, argument="value", factory=self.name)
        self.value = Template(value)
        self._init_params(self.path, self.value.plain)

    def leaf(self, old: Any, persistent: bool, owned: Owned) -> Any:
        if old is not MISSING and strict_equal(old, self.value.plain):
            return old
        return self.value.fresh(persistent)

    def _fusion_op(self) -> Op:
        if type(self._parts[-1]) is Key and not self.value.is_container:
            return Op(SET, self._parts, (self.value.plain, "share"))
        return super()._fusion_op()


def replace_at(target: PathLike, value: Any) -> Transform:
    """Set what ``target`` points at to ``value``, whatever was there.

    Maps and lists are replaced whole (no merging); missing parent maps are
    created; a path ending in a match selector replaces every matching
    element, or appends ``value`` (with the selector's fields) when none matches.

    >>> pod = {"spec": {"volumes": [{"name": "dshm"}], "nodeSelector": {"zone": "a"}}}
    >>> replace_at("spec.nodeSelector", {"gpu": "a100"})(pod)["spec"]["nodeSelector"]
    {'gpu': 'a100'}
    >>> replace_at("spec.volumes", [])(pod)["spec"]["volumes"]
    []
    >>> replace_at("spec.hostIPC", True)({})
    {'spec': {'hostIPC': True}}
    """
    return _Replace(target, value)


class _SetDefault(PathEdit):
    __slots__ = ("value",)
    name = "set_default"

    def __init__(self, target: PathLike, value: Any) -> None:
        self._init_path(target, CREATE, CREATE)
        check_value(value, argument="value", factory=self.name)
        self.value = Template(value)
        self._init_params(self.path, self.value.plain)

    def leaf(self, old: Any, persistent: bool, owned: Owned) -> Any:
        if old is MISSING or old is None:
            return self.value.fresh(persistent)
        return old


def set_default(target: PathLike, value: Any) -> Transform:
    """Set ``target`` to ``value`` only where it is absent (missing or ``null``).

    ``False``, ``0``, ``""``, ``{}`` and ``[]`` count as present and are kept.
    Missing parent maps are created. With a match selector at the end, a
    new element is appended only when none matches.

    >>> set_default("spec.restartPolicy", "Never")({"spec": {}})
    {'spec': {'restartPolicy': 'Never'}}
    >>> pod = {"spec": {"hostIPC": False}}
    >>> set_default("spec.hostIPC", True)(pod) is pod
    True
    """
    return _SetDefault(target, value)


class _Update(PathEdit):
    __slots__ = ("fn", "default")
    name = "update_at"
    _pure_leaf = False  # ``fn`` is the caller's code

    def __init__(self, target: PathLike, fn: Callable[[Any], Any], default: Any) -> None:
        policy = ERROR if default is MISSING else CREATE
        self._init_path(target, policy, policy)
        if not callable(fn):
            raise ArgumentTypeError(
                f"fn must be a function of the value, got {short_repr(fn)}",
                argument="fn",
                factory="update_at",
                value=fn,
            )
        self.fn = fn
        if default is not MISSING:
            check_value(default, argument="default", factory="update_at")
        # a private copy, and a fresh one for each use: ``fn`` may return it as it is
        self.default = None if default is MISSING else Template(default)
        if self.default is None:
            self._init_params(self.path, fn)
        else:
            self._init_params(self.path, fn, default=self.default.plain)

    def leaf(self, old: Any, persistent: bool, owned: Owned) -> Any:
        # ``fn`` is the caller's code and may keep what it is given: nothing
        # made so far may be changed in place any more.
        owned.forget()
        if old is MISSING:
            assert self.default is not None
            old = self.default.fresh(persistent)
        # a copy: what ``fn`` does to its argument never reaches the caller's document;
        # what it leaves unchanged is shared again, the rest checked
        new = settled(self.fn, call_foreign(self.fn, guarded_copy(old)), old, "a value")
        # a persistent document gets frozen values only, whatever ``fn`` builds
        return freeze_value(new) if persistent and new is not old else new


def update_at(target: PathLike, fn: Callable[[Any], Any], default: Any = MISSING) -> Transform:
    """Replace the value at ``target`` with ``fn(value)``.

    ``fn`` is given a copy of the value (so may keep it, or change it) and may
    return a value of any kind; the document gets podfold's own copy of what
    it returns, never ``fn``'s value itself. Where ``target`` leads nowhere, a
    :class:`~combinators.errors.PathError` names the near misses, unless a
    ``default`` is given: then ``fn(default)`` is set and missing parents are
    created. With ``[*]`` or a match selector, ``fn`` runs on every match.

    >>> update_at("spec.terminationGracePeriodSeconds", lambda s: s * 2)(
    ...     {"spec": {"terminationGracePeriodSeconds": 30}})
    {'spec': {'terminationGracePeriodSeconds': 60}}
    >>> update_at("spec.containers[*].args", lambda a: [*a, "--fast"], default=[])(
    ...     {"spec": {"containers": [{"name": "t"}]}})
    {'spec': {'containers': [{'name': 't', 'args': ['--fast']}]}}
    """
    return _Update(target, fn, default)


class _Remove(PathEdit):
    __slots__ = ()
    name = "remove_at"

    def __init__(self, target: PathLike, missing_ok: bool) -> None:
        check_flag(missing_ok, argument="missing_ok", factory="remove_at")
        policy = SKIP if missing_ok else ERROR
        self._init_path(target, policy, policy)
        if missing_ok:
            self._init_params(self.path)
        else:
            self._init_params(self.path, missing_ok=False)

    def leaf(self, old: Any, persistent: bool, owned: Owned) -> Any:
        return REMOVE

    def _fusion_ops(self) -> tuple[Op, ...] | None:
        # a fused function deletes keys; removing list elements, or the whole document
        # (the root, an error), it leaves to the walk
        parts = self._parts
        return super()._fusion_ops() if parts and type(parts[-1]) is Key else None


def remove_at(target: PathLike, missing_ok: bool = True) -> Transform:
    """Remove the key, or every list element, that ``target`` points at.

    Where nothing is there the document comes back unchanged, or, with
    ``missing_ok=False``, a :class:`~combinators.errors.PathError` says what
    was there instead.

    >>> pod = {"spec": {"volumes": [{"name": "dshm"}, {"name": "data"}], "hostIPC": True}}
    >>> remove_at("spec.volumes[name=dshm]")(pod)
    {'spec': {'volumes': [{'name': 'data'}], 'hostIPC': True}}
    >>> remove_at("spec.hostIPC")(pod)
    {'spec': {'volumes': [{'name': 'dshm'}, {'name': 'data'}]}}
    >>> remove_at("spec.nodeSelector")(pod) is pod
    True
    >>> remove_at("spec.volumes[name=dshn]", missing_ok=False)(pod)
    Traceback (most recent call last):
      ...
    combinators.errors.PathError: no element [name=dshn] in spec.volumes (part 3 of spec.volumes[name=dshn]); did you mean dshm?; names present: dshm, data
    """
    return _Remove(target, missing_ok)
