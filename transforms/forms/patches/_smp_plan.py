"""A strategic merge patch compiled into a plan of path steps.

When the patch is compiled, its maps without directives are walked: each run of
a map's fields becomes a path step (a :class:`~combinators.editing.PathEdit`)
at that map's path, and the steps, chained in the patch's order, are the
plan, whose paths compile as the combinators' do. Each field is compiled
too: a scalar to set, a key to delete, a list to replace, a map to merge
into, and a list merged on a merge key (containers, env, volumes, ...)
element by element, in Kubernetes' order, in one pass over the list.

Why the plan merges exactly what the whole patch merges: merging a map
without directives is merging its fields one after the other, in order, so
merging the runs one after the other is merging the whole patch. Where a
step's path does not lead through plain maps (a parent missing or of another
kind, a persistent document), the step merges its own fields from the top
with the general merge (:mod:`._smp`), which creates and replaces as merging
the whole patch would. A field the plan does not compile (directives, lists
of scalars, composite merge keys, a pod's list whose merge keys repeat) is
merged by the general merge too.

>>> plan = compile_plan({"metadata": {"labels": {"team": "ml"}},
...                      "spec": {"hostIPC": True, "containers": [{"name": "c", "image": "2"}]}},
...                     "Pod")
>>> [str(step.path) for step in plan.steps]
['metadata.labels', 'spec']
>>> pod = {"spec": {"containers": [{"name": "b"}, {"name": "c", "image": "1"}]}}
>>> plan(pod)
{'spec': {'containers': [{'name': 'b'}, {'name': 'c', 'image': '2'}], 'hostIPC': True}, 'metadata': {'labels': {'team': 'ml'}}}
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from pyrsistent import freeze

from combinators.data import MISSING, Owned, copy_plain, is_map, strict_equal
from combinators.editing import CREATE, PathEdit, persistent_world
from combinators.errors import TransformError
from combinators.fusion import MERGE, Op
from combinators.limits import MAX_DEPTH
from combinators.paths import Key, Path
from combinators.transform import Transform, chain
from transforms.forms.patches._places import TypeName
from transforms.forms.patches._smp import (
    Ctx,
    clean,
    element_label,
    field_meta_of,
    merge_field,
    merge_map,
)

__all__ = ("compile_plan",)

_SCALAR_TYPES = (str, int, float, bool)
Merge = Callable[[Any, bool, Owned], Any]


def _directives(patch: dict[str, Any]) -> bool:
    """Whether a patch map holds a directive (``$patch``, ``$retainKeys``, ...) at its top."""
    return any(key.startswith("$") for key in patch)


class _Field:
    """One field of a patch map, merged into a plain map by the general merge.

    Subclasses merge the fields they compile directly, and call this for the
    cases they leave to it. ``merge`` is given the map the field is in and
    returns it, or its copy with the field merged.
    """

    __slots__ = ("key", "value", "type_name", "where")

    def __init__(self, key: str, value: Any, type_name: TypeName, where: str) -> None:
        self.key = key
        self.value = value
        self.type_name = type_name
        self.where = where

    def merge(self, result: Any, persistent: bool, owned: Owned) -> Any:
        return merge_field(
            result, self.key, self.value, self.type_name, self.where, Ctx(persistent, owned)
        )


class _Scalars:
    """A run of fields that are strings, numbers, booleans (set, unless the same value of
    the same type is there) or nulls (the key goes), merged in one loop."""

    __slots__ = ("items",)

    def __init__(self, items: list[tuple[str, Any]]) -> None:
        self.items = tuple(items)

    def merge(self, result: Any, persistent: bool, owned: Owned) -> Any:
        return _set_scalars(result, self.items, owned)


def _set_scalars(
    mapping: dict[str, Any], items: tuple[tuple[str, Any], ...], owned: Owned
) -> dict[str, Any]:
    """``mapping`` with each item's scalar set, or its key deleted for a null (a writable
    copy, made once, where anything changes; ``mapping`` itself where nothing does)."""
    new = mapping
    writable = False
    for key, value in items:
        current = new.get(key, MISSING)
        if value is None:
            if current is MISSING:
                continue
        elif type(current) is type(value) and current == value:
            continue
        if not writable:
            new = owned.writable_map(mapping)
            writable = True
        if value is None:
            del new[key]
        else:
            new[key] = value
    return new


class _Replace(_Field):
    """A list without a merge strategy (tolerations, args): replaced whole, unless equal."""

    __slots__ = ("template",)

    def __init__(self, key: str, value: Any, type_name: TypeName, where: str) -> None:
        super().__init__(key, value, type_name, where)
        self.template = _Fresh(value)

    def merge(self, result: Any, persistent: bool, owned: Owned) -> Any:
        current = result.get(self.key, MISSING)
        if current is not MISSING and strict_equal(current, self.template.cleaned()):
            return result
        new = owned.writable_map(result)
        new[self.key] = self.template.fresh(persistent)
        return new


class _Map(_Field):
    """A map without directives at its top: its fields merged into the map there, or,
    where there is none (or something else), the map itself without its nulls."""

    __slots__ = ("fields", "template")

    def __init__(self, key: str, value: Any, type_name: TypeName, where: str) -> None:
        super().__init__(key, value, type_name, where)
        self.fields = _fields(value, field_meta_of(type_name, key).type, where)
        self.template = _Fresh(value)

    def merge(self, result: Any, persistent: bool, owned: Owned) -> Any:
        current = result.get(self.key, MISSING)
        if type(current) is dict and not persistent:
            merged = self.fields(current, persistent, owned)
            if merged is current:
                return result
        elif current is MISSING or not is_map(current):
            merged = self.template.fresh(persistent)
        else:
            return super().merge(result, persistent, owned)
        new = owned.writable_map(result)
        new[self.key] = merged
        return new


class _ScalarMap(_Map):
    """A map of scalars and nulls (labels, a node selector, resource limits): what
    :class:`_Scalars` does, inside the map there, in one loop."""

    __slots__ = ("items",)

    def __init__(self, key: str, value: Any, type_name: TypeName, where: str) -> None:
        super().__init__(key, value, type_name, where)
        self.items = tuple(value.items())

    def merge(self, result: Any, persistent: bool, owned: Owned) -> Any:
        current = result.get(self.key, MISSING)
        if type(current) is not dict or persistent:
            return super().merge(result, persistent, owned)
        merged = _set_scalars(current, self.items, owned)
        if merged is current:
            return result  # unchanged, or changed in place: this application made it
        new = owned.writable_map(result)
        new[self.key] = merged
        return new


class _MergeList(_Field):
    """A list of maps merged on one merge key (containers, env, volumes, volumeMounts).

    Compiled where every element of the patch's list is a map without
    directives whose key is a string, no two alike. Elements the pod has are
    merged in place; new ones come in as Kubernetes orders them (each right
    after the patch element before it, or first). The pod's list is read
    once; where its merge keys repeat, or are missing, Kubernetes' ordering
    of the duplicates is left to the general merge.
    """

    __slots__ = ("field", "keys", "merges", "copies", "template", "single")

    def __init__(
        self,
        key: str,
        value: Any,
        type_name: TypeName,
        where: str,
        field: str,
        element_type: TypeName,
        labels: list[str],
    ) -> None:
        super().__init__(key, value, type_name, where)
        self.field = field
        self.keys = tuple(item[field] for item in value)
        # the key itself is left out: the element found has it already (a string, checked)
        self.merges: tuple[Merge, ...] = tuple(
            _fields(
                {name: item for name, item in item.items() if name != field},
                element_type,
                f"{where}[{label}]",
            )
            for item, label in zip(value, labels, strict=True)
        )
        # each element as it comes in where the pod has none with its key: a fresh copy
        self.copies = tuple(_Fresh(item).plain for item in value)
        self.template = _Fresh(value)
        # the commonest patch of all names one element (a container): its key, merge, copy
        self.single = (self.keys[0], self.merges[0], self.copies[0]) if len(value) == 1 else None

    def merge(self, result: Any, persistent: bool, owned: Owned) -> Any:
        current = result.get(self.key, MISSING)
        if persistent or type(current) is not list:
            if persistent or (current is not MISSING and current is not None):
                return super().merge(result, persistent, owned)
            merged: Any = self.template.plain()  # no list: the patch's, without nulls
        else:
            merged = self._merged(current, owned)
            if merged is None:
                return super().merge(result, persistent, owned)
            if merged is current:
                return result
        new = owned.writable_map(result)
        new[self.key] = merged
        return new

    def _merged(self, current: list[Any], owned: Owned) -> Any:
        """The merged list; ``current`` itself when unchanged; ``None``: not compiled here.

        Small lists are the rule (a pod's containers, a container's env), so one
        loop does what a few comprehensions would: their set-up costs more here.
        """
        field = self.field
        index: dict[Any, int] = {}
        try:
            for element in current:
                if type(element) is not dict:
                    return None
                index[element[field]] = len(index)
        except (KeyError, TypeError):  # an element without the key; a key no string
            return None
        if len(index) != len(current):
            return None  # keys repeat: Kubernetes may reorder the duplicates
        if self.single is not None:  # what follows, for one element
            key, merge, copy = self.single
            found = index.get(key)
            if found is None:
                merged = [copy()]
                merged += current
                return owned.adopt(merged)
            element = current[found]
            if type(element[field]) is not str:
                return None  # see below
            merged_element = merge(element, False, owned)
            if merged_element is element:
                return current
            one_changed = owned.writable_list(current)
            one_changed[found] = merged_element
            return one_changed
        positions: list[int | None] = []
        new = 0
        last = -1
        in_order = True
        for key in self.keys:
            found = index.get(key)
            if found is None:
                new += 1
            else:
                if type(current[found][field]) is not str:
                    # a str subclass: the general merge sets the key anew, which the
                    # element merges here leave out
                    return None
                if found < last:
                    in_order = False
                last = found
            positions.append(found)
        if new:
            if new == len(positions):  # all new: they come first
                merged = [copy() for copy in self.copies]
                merged += current
                return owned.adopt(merged)
            return self._woven(current, positions, owned)
        if not in_order:
            return self._woven(current, positions, owned)
        # every element is there, in the patch's order: merged in place
        changed: list[Any] | None = None
        for merge, position in zip(self.merges, positions, strict=True):
            assert position is not None
            element = current[position]
            merged_element = merge(element, False, owned)
            if merged_element is not element:
                if changed is None:
                    changed = owned.writable_list(current)
                changed[position] = merged_element
        return current if changed is None else changed

    def _woven(self, current: list[Any], positions: list[int | None], owned: Owned) -> Any:
        """Kubernetes' order: the patch's elements in its order; each of the pod's others
        before the first of the patch's that the pod has after it."""
        taken = {found for found in positions if found is not None}
        merged: list[Any] = []
        next_one = 0
        for merge, copy, found in zip(self.merges, self.copies, positions, strict=True):
            if found is None:
                merged.append(copy())
                continue
            for earlier in range(next_one, found):
                if earlier not in taken:
                    merged.append(current[earlier])
            next_one = max(next_one, found)
            merged.append(merge(current[found], False, owned))
        merged.extend(
            element for at, element in enumerate(current) if at >= next_one and at not in taken
        )
        return owned.adopt(merged)


class _Fresh:
    """A patch value as it goes where there is nothing to merge it into: without its
    nulls and directives (see :func:`._smp.clean`), a fresh copy each time.

    Made ready when first needed: most are never needed (the pod has the map).
    """

    __slots__ = ("value", "_cleaned", "_copy", "_frozen")

    def __init__(self, value: Any) -> None:
        self.value = value
        self._cleaned: Any = MISSING
        self._copy: Callable[[], Any] | None = None
        self._frozen: Any = MISSING

    def _ready(self) -> Callable[[], Any]:
        cleaned = self._cleaned = clean(self.value)
        # a map or list of scalars: a shallow copy is a whole copy
        flat = type(cleaned) in (dict, list) and all(
            type(item) in _SCALAR_TYPES or item is None
            for item in (cleaned.values() if type(cleaned) is dict else cleaned)
        )
        copy = self._copy = cleaned.copy if flat else functools.partial(copy_plain, cleaned)
        return copy

    def cleaned(self) -> Any:
        """The value without its nulls and directives: to compare with, never to change."""
        if self._copy is None:
            self._ready()
        return self._cleaned

    def plain(self) -> Any:
        """A fresh plain copy."""
        copy = self._copy
        if copy is None:
            copy = self._ready()
        return copy()

    def fresh(self, persistent: bool) -> Any:
        """A fresh plain copy, or for a persistent document the frozen value."""
        if not persistent:
            return self.plain()
        if self._frozen is MISSING:
            self._frozen = freeze(self.cleaned())
        return self._frozen


def _merge_list_field(key: str, value: Any, type_name: TypeName, where: str) -> _Field:
    """A merge list's field compiled, where it can be (see :class:`_MergeList`)."""
    meta = field_meta_of(type_name, key)
    if len(meta.keys) != 1 or meta.defaults or not value:
        return _Field(key, value, type_name, where)
    field = meta.keys[0]
    seen: set[str] = set()
    for item in value:
        if (
            type(item) is not dict
            or _directives(item)
            or type(item.get(field)) is not str
            or item[field] in seen
        ):
            return _Field(key, value, type_name, where)
        seen.add(item[field])
    labels = [element_label(item, meta) for item in value]
    return _MergeList(key, value, type_name, where, field, meta.type, labels)


def _field(key: str, value: Any, type_name: TypeName, where: str) -> _Field:
    """The field ``key: value`` of a patch map of ``type_name``, compiled."""
    if type(value) is dict and not _directives(value):
        if value and all(item is None or type(item) in _SCALAR_TYPES for item in value.values()):
            return _ScalarMap(key, value, type_name, where)
        return _Map(key, value, type_name, where)
    if type(value) is list:
        if not field_meta_of(type_name, key).merge:
            return _Replace(key, value, type_name, where)
        return _merge_list_field(key, value, type_name, where)
    return _Field(key, value, type_name, where)


class _Sequence:
    """Several merges, one after the other."""

    __slots__ = ("merges",)

    def __init__(self, merges: list[Merge]) -> None:
        self.merges = tuple(merges)

    def merge(self, old: Any, persistent: bool, owned: Owned) -> Any:
        result = old
        for merge in self.merges:
            result = merge(result, persistent, owned)
        return result


def _fields(patch: dict[str, Any], type_name: TypeName, where: str) -> Merge:
    """What merges the fields of a patch map without directives into a plain map, in the
    patch's order: each run of scalars and nulls in one loop, each other field compiled."""
    merges: list[Merge] = []
    run: list[tuple[str, Any]] = []
    for key, value in patch.items():
        if value is None or type(value) in _SCALAR_TYPES:
            run.append((key, value))
            continue
        if run:
            merges.append(_Scalars(run).merge)
            run = []
        merges.append(_field(key, value, type_name, f"{where}.{key}").merge)
    if run:
        merges.append(_Scalars(run).merge)
    return merges[0] if len(merges) == 1 else _Sequence(merges).merge


_SCALAR_TYPES = (str, int, float, bool)


class _Step(PathEdit):
    """A run of fields of one patch map, merged at that map's path (see the module)."""

    __slots__ = ("fields", "here", "wrapped", "type_name", "where", "root", "template")
    name = "strategic_merge"

    def __init__(
        self,
        parts: tuple[Key, ...],
        here: dict[str, Any],
        type_name: TypeName,
        where: str,
        root: TypeName,
    ) -> None:
        self.fields = _fields(here, type_name, where)
        self.here = here
        self.type_name = type_name
        self.where = where
        self.root = root
        # what the map becomes where there is none
        self.template = _Fresh(here)
        wrapped = here
        for part in reversed(parts):
            wrapped = {part.name: wrapped}
        self.wrapped = wrapped  # the run as a patch from the top
        self._init_path(Path(parts), CREATE, CREATE)
        self._init_params(self.path, here)

    def __repr__(self) -> str:
        return f"strategic_merge step at {str(self.path) or 'the top'}"

    def _annotate(self, err: TransformError) -> None:
        """Nothing to add: the general merge's errors name the place in the patch."""

    def leaf(self, old: Any, persistent: bool, owned: Owned) -> Any:
        if type(old) is dict and not persistent:
            return self.fields(old, False, owned)
        if old is MISSING or not is_map(old):
            return self.template.fresh(persistent)
        return merge_map(old, self.here, self.type_name, self.where, Ctx(persistent, owned))

    def _apply_slow(self, doc: Any, owned: Owned) -> Any:
        if not self._parts and type(doc) is dict:
            return self.leaf(doc, False, owned)
        return merge_map(
            doc, self.wrapped, self.root, str(self.root), Ctx(persistent_world(doc), owned)
        )

    def _fusion_ops(self) -> tuple[Op, ...] | None:
        # A run of scalars (no null: that deletes) merges as a fused MERGE does: each
        # key set where it differs, the map (and its parents) made where missing.
        here = self.here
        if (
            self._parts
            and self._compiled is not None
            and here
            and all(type(value) in _SCALAR_TYPES for value in here.values())
        ):
            return (Op(MERGE, self._parts, here),)
        return super()._fusion_ops()


def _descends(value: Any) -> bool:
    """Whether a patch value is a map whose fields get steps of their own."""
    return type(value) is dict and bool(value) and not _directives(value)


def _steps(
    patch: dict[str, Any],
    type_name: TypeName,
    where: str,
    parts: tuple[Key, ...],
    root: TypeName,
    steps: list[Transform],
) -> None:
    run: dict[str, Any] = {}
    for key, value in patch.items():
        if _descends(value) and len(parts) < MAX_DEPTH - 1:
            if run:
                steps.append(_Step(parts, run, type_name, where, root))
                run = {}
            _steps(
                value,
                field_meta_of(type_name, key).type,
                f"{where}.{key}",
                (*parts, Key(key)),
                root,
                steps,
            )
        else:
            run[key] = value
    if run:
        steps.append(_Step(parts, run, type_name, where, root))


def compile_plan(patch: dict[str, Any], root: TypeName) -> Transform | None:
    """The plan of a checked patch for a document of type ``root``; ``None`` where the
    patch has directives at its top (the general merge does it all).

    ``patch`` is the transform's own copy: the plan keeps parts of it.
    """
    if _directives(patch):
        return None
    steps: list[Transform] = []
    _steps(patch, root, str(root), (), root, steps)
    return chain(*steps)
