"""Kubernetes strategic merge patch (SMP) on a Pod, as a pure transform.

The semantics, and the order of merged lists, follow Kubernetes' own
implementation (the one ``kubectl patch --type strategic`` runs):

- maps merge key by key; ``null`` deletes a key;
- a list whose schema field has patch strategy ``merge`` merges: lists of
  maps element by element on the list's merge key, lists of scalars as sets;
  every other list (tolerations, args, command, ...) is replaced whole;
- directives: ``$patch: replace`` / ``delete`` on a map or as a list element,
  ``$deleteFromPrimitiveList/<field>``, ``$setElementOrder/<field>``,
  ``$retainKeys``;
- merged lists come out in kubectl's order: patch elements in patch order,
  interleaved with the elements only the pod has, each kept in its old place
  relative to the patch's elements where both lists know them (so a new
  container named in the patch comes *before* the pod's others).

Deliberate differences from kubectl, each covered by a marked test case:

1. merge keys are the schema's ``x-kubernetes-list-map-keys``, so container
   ports merge on ``(containerPort, protocol)`` (``protocol`` defaulting to
   ``TCP``) and topology spread constraints on ``(topologyKey,
   whenUnsatisfiable)``; kubectl uses the single ``patchMergeKey``
   (``containerPort``, ``topologyKey``) and merges a UDP port into a TCP one;
2. ``$patch: merge`` (on a map or a list element) means "merge", the default,
   where kubectl rejects it;
3. values inserted from the patch (new keys, new list elements, replaced
   lists) lose their ``null`` members and directives; kubectl keeps them
   verbatim inside new list elements and replaced lists.

A patch of a workload kind podfold knows (``kind: Deployment``, as kustomize
writes them) merges as kubectl merges it: with the PodTemplateSpec rules at
the kind's template paths (:mod:`transforms.kube.workloads`), maps merging and
other lists replaced elsewhere. A pod-level patch refuses a workload document.

>>> pod = {"spec": {"containers": [{"name": "trainer", "env": [{"name": "A", "value": "1"}]}]}}
>>> overlay = strategic_merge({"spec": {"containers": [
...     {"name": "trainer", "env": [{"name": "B", "value": "2"}]}]}})
>>> overlay(pod)["spec"]["containers"][0]["env"]
[{'name': 'B', 'value': '2'}, {'name': 'A', 'value': '1'}]
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from pyrsistent import PMap, PVector, freeze, pvector

from combinators.data import (
    MISSING,
    Owned,
    copy_plain,
    delete_key,
    is_map,
    is_seq,
    kind_name,
    set_key,
    strict_equal,
    strict_key,
)
from combinators.errors import TypeClashError
from combinators.limits import short_repr
from combinators.paths import All
from combinators.paths import Key as KeyPart
from combinators.shape import check_value
from combinators.transform import Transform
from transforms.forms.patches._errors import InvalidPatchError
from transforms.forms.patches._listkeys import NO_META, ROOTS, FieldMeta, field_meta
from transforms.kube.kinds import WorkloadKindError, check_pod_document
from transforms.kube.workloads import DOCUMENT, WorkloadKind, workload_kind

__all__ = ("strategic_merge",)

PATCH = "$patch"
RETAIN_KEYS = "$retainKeys"
SET_ORDER = "$setElementOrder/"
DELETE_FROM = "$deleteFromPrimitiveList/"
_DIRECTIVE_VALUES = ("replace", "delete", "merge")

Key = Any  # a hashable stand-in for a merge key's value(s), or for a scalar element


def _value_key(value: Any) -> Key:
    """Hashable, JSON-minded identity of a scalar: ``1 == 1.0`` but ``True != 1``."""
    if type(value) is str:
        return value  # the common case; no tuple below equals a string
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("number", value)
    if isinstance(value, str):
        return str(value)
    if value is None:
        return ("null",)
    return ("other", strict_key(value))


_PLAIN_KINDS = {dict: "map", list: "list", str: "str", int: "number", float: "number",
                bool: "bool", type(None): "null"}


def _kind(value: Any) -> str:
    """The JSON type of a value, as Go's decoder sees it (all numbers alike)."""
    kind = _PLAIN_KINDS.get(type(value))
    if kind is not None:
        return kind
    if is_map(value):
        return "map"
    if is_seq(value):
        return "list"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return "null" if value is None else type(value).__name__


def _invalid(message: str, argument: str = "patch") -> InvalidPatchError:
    return InvalidPatchError(message, argument=argument, factory="strategic_merge")


class _WorkloadType(str):
    """A place in a workload above its pod templates, as a type name: its fields lead on.

    ``fields`` maps a field (``"*"``: any key) to the type below it: another
    place, or the schema's ``PodTemplateSpec``, ``Pod`` or ``ObjectMeta``.
    """

    fields: dict[str, str]


def _place(name: str) -> _WorkloadType:
    place = _WorkloadType(name)
    place.fields = {}
    return place


@functools.cache
def _workload_root(entry: WorkloadKind) -> _WorkloadType:
    """The type of a whole ``entry`` document: metadata, and the way to each template."""
    root = _place(entry.kind)
    root.fields["metadata"] = "ObjectMeta"
    for location in entry.locations:
        if location.holds == DOCUMENT:
            continue
        node = root
        parts = location.path.parts
        for index, part in enumerate(parts):
            key = part.name if type(part) is KeyPart else "*"
            assert type(part) in (KeyPart, All)
            if index == len(parts) - 1:
                node.fields[key] = location.holds
                break
            below = node.fields.get(key)
            if not isinstance(below, _WorkloadType):
                below = node.fields[key] = _place(f"{node}.{key}")
            node = below
    return root


def _field_meta(type_name: str | None, key: str) -> FieldMeta:
    """The patch metadata of ``key`` in ``type_name``: a workload place's, or the schema's."""
    if type(type_name) is _WorkloadType:
        below = type_name.fields.get(key) or type_name.fields.get("*")
        return NO_META if below is None else FieldMeta(below, False, False, (), ())
    return field_meta(type_name, key)


class _Ctx:
    """What one application needs: document kind and the copy-on-write record."""

    __slots__ = ("persistent", "owned")

    def __init__(self, persistent: bool, owned: Owned) -> None:
        self.persistent = persistent
        self.owned = owned

    def fresh(self, patch_value: Any) -> Any:
        """A patch value to insert: without nulls and directive-marked maps, fresh or frozen."""
        value = _clean(patch_value)
        return freeze(value) if self.persistent else value

    def seq(self, items: list[Any]) -> Any:
        return pvector(items) if self.persistent else items


def _clean(value: Any) -> Any:
    """A plain copy of ``value`` without ``null`` members, directives and deleted maps.

    >>> _clean({"a": None, "b": [{"$patch": "delete", "name": "x"}, {"name": "y"}],
    ...         "$retainKeys": ["b"], "c": {"$patch": "merge", "d": 1}})
    {'b': [{'name': 'y'}], 'c': {'d': 1}}
    """
    if is_map(value):
        return {key: _clean(item) for key, item in value.items()
                if item is not None and not key.startswith("$") and not _dropped(item)}
    if is_seq(value):
        return [_clean(item) for item in value if not _dropped(item)]
    return value


def _dropped(value: Any) -> bool:
    """Whether Kubernetes drops this patch value when there is nothing to apply it to."""
    return is_map(value) and value.get(PATCH, "merge") != "merge"


def _merge_map(original: Any, patch: Any, type_name: str | None, where: str, ctx: _Ctx) -> Any:
    """``patch`` merged into the map ``original``; ``original`` itself when nothing changes."""
    directive = patch.get(PATCH, MISSING)
    if directive == "replace":
        replacement = ctx.fresh({key: value for key, value in patch.items() if key != PATCH})
        return original if strict_equal(original, replacement) else replacement
    if directive == "delete":
        return original if is_map(original) and not original else ctx.fresh({})
    result = original
    retain = patch.get(RETAIN_KEYS, MISSING)
    if retain is not MISSING:
        result = _retain_keys(result, patch, retain, where, ctx)
    done: set[str] = set()
    for key, order in patch.items():
        if key.startswith(SET_ORDER):
            field = key[len(SET_ORDER):]
            result = _set_element_order(result, patch, field, order, type_name,
                                        f"{where}.{field}", ctx)
            done.add(field)
    deletions = []
    for key, value in patch.items():
        if key in done or key in (PATCH, RETAIN_KEYS) or key.startswith(SET_ORDER):
            continue
        if key.startswith(DELETE_FROM):
            deletions.append((key[len(DELETE_FROM):], value))
            continue
        result = _merge_field(result, key, value, type_name, f"{where}.{key}", ctx)
    # Kubernetes visits a patch's keys in no set order; deleting last makes a scalar that
    # is both added and deleted end up deleted.
    for field, value in deletions:
        current = result.get(field, MISSING)
        if current is MISSING or not is_seq(current) or not is_seq(value):
            continue
        doomed = {_value_key(item) for item in value}
        kept = [item for item in current if _value_key(item) not in doomed]
        if len(kept) != len(current):
            result = set_key(result, field, ctx.seq(kept), ctx.owned)
    return result


def _merge_field(result: Any, key: str, value: Any, type_name: str | None, where: str,
                 ctx: _Ctx) -> Any:
    current = result.get(key, MISSING)
    if value is None:
        return result if current is MISSING else delete_key(result, key, ctx.owned)
    if current is MISSING or _kind(current) != _kind(value):
        if _dropped(value):  # '$patch: replace' or 'delete' of what is not there
            return result if current is MISSING else delete_key(result, key, ctx.owned)
        return set_key(result, key, ctx.fresh(value), ctx.owned)
    meta = _field_meta(type_name, key)
    if is_map(value):
        merged = _merge_map(current, value, meta.type, where, ctx)
    elif is_seq(value):
        merged = (_merge_list(current, value, meta, where, ctx) if meta.merge
                  else _same_or(current, ctx.fresh(value)))
    else:
        merged = _same_or(current, value)
    return result if merged is current else set_key(result, key, merged, ctx.owned)


def _same_or(current: Any, new: Any) -> Any:
    return current if strict_equal(current, new) else new


def _retain_keys(result: Any, patch: Any, retain: Any, where: str, ctx: _Ctx) -> Any:
    if not is_seq(retain):
        raise _invalid(f"$retainKeys at {where} must be a list, "
                       f"got {kind_name(retain)}")
    keep = set(retain)
    for key, value in patch.items():
        if value is None or key.startswith((PATCH, RETAIN_KEYS, SET_ORDER, DELETE_FROM)):
            continue
        if key not in keep:
            raise _invalid(f"{where}.{key} is set by the patch but "
                           f"not listed in $retainKeys ({', '.join(map(str, retain))})")
    if not is_map(result):
        return result
    for key in [key for key in result if key not in keep]:
        result = delete_key(result, key, ctx.owned)
    return result


def _key_function(meta: FieldMeta, where: str) -> Callable[[Any, bool], Key]:
    """Identity of a list element: its merge key's values (maps) or itself (scalars).

    With ``strict``, an element without the (first) key field is an error, as
    it is for a patch's elements; a pod's element without one matches nothing.
    """
    if not meta.keys:
        return lambda item, strict: _value_key(item)
    defaults = dict(meta.defaults)

    def key_of(item: Any, strict: bool) -> Key:
        if not is_map(item):
            raise _invalid(f"{where} holds maps merged on "
                           f"{', '.join(meta.keys)}; got {kind_name(item)}")
        values = []
        for field in meta.keys:
            value = item.get(field, defaults.get(field, MISSING))
            if value is MISSING and strict and field == meta.keys[0]:
                raise _invalid(f"an element of {where} has no "
                               f"merge key {field!r}: {short_repr(copy_plain(item))}")
            if strict and (is_map(value) or is_seq(value)):
                # kubectl panics here; a merge key is a string or a number
                raise _invalid(f"an element of {where} has {kind_name(value)} as its merge "
                               f"key {field!r}; merge keys are strings or numbers: "
                               f"{short_repr(copy_plain(item))}")
            values.append(MISSING if value is MISSING else _value_key(value))
        return values[0] if len(values) == 1 else tuple(values)

    if len(meta.keys) > 1 or defaults:
        return key_of
    only = meta.keys[0]

    def single_key_of(item: Any, strict: bool) -> Key:
        value = item.get(only, MISSING) if is_map(item) else MISSING
        if value is MISSING or (strict and (is_map(value) or is_seq(value))):
            return key_of(item, strict)  # which says what is wrong, where it is wrong
        return _value_key(value)

    return single_key_of


def _element_kind(where: str, *lists: Sequence[Any]) -> str | None:
    kinds = {_kind(item) for items in lists for item in items}
    if len(kinds) > 1:
        raise _invalid(f"the elements of {where} are not all of "
                       f"one kind: {', '.join(sorted(kinds))}")
    kind = next(iter(kinds), None)
    if kind == "list":
        raise _invalid(f"{where} is a list of lists; "
                       f"strategic merge patch cannot merge those")
    return kind


def _merge_list(original: Any, patch: Any, meta: FieldMeta, where: str, ctx: _Ctx) -> Any:
    """A list merged as Kubernetes does (``mergeSlice``); ``original`` when unchanged."""
    if not original and not patch:
        return original
    kind = _element_kind(where, original, patch)
    key_of = _key_function(meta if kind == "map" else NO_META, where)
    if kind != "map":
        merged = _dedupe_scalars([*original, *(ctx.fresh(item) for item in patch)])
        patch_items = patch
        base = list(original)
    else:
        if not meta.keys:
            raise _invalid(f"{where} has no merge key")
        base, patch_items = _special_elements(list(original), patch, key_of, where, ctx)
        merged = _merge_elements(base, patch_items, key_of, meta, where, ctx)
    ordered = _normalize_order(merged, patch_items, base, key_of)
    if strict_equal(ordered, original):  # identical elements short-cut the comparison
        return original
    return ctx.seq(ordered)


def _special_elements(original: list[Any], patch: Any, key_of: Callable[[Any, bool], Key],
                      where: str, ctx: _Ctx) -> tuple[list[Any], list[Any]]:
    """Apply ``$patch`` elements: ``delete`` drops by key, ``replace`` drops the rest.

    A ``$patch: merge`` element merges like any other; alone, it does nothing.
    """
    plain = []
    replace = False
    doomed: set[Key] = set()
    for item in patch:
        directive = item.get(PATCH, MISSING)
        if directive is MISSING:
            plain.append(item)
        elif directive == "delete":
            doomed.add(key_of(item, True))
        elif directive == "replace":
            replace = True
        elif len(item) > 1:  # '$patch: merge' on an element: merge it, as without the directive
            plain.append(item)
    if doomed:  # every deletion in one pass over the list
        original = [old for old in original if key_of(old, False) not in doomed]
    if replace:
        return [ctx.fresh(item) for item in plain], []
    return original, plain


def _merge_elements(base: list[Any], patch_items: list[Any], key_of: Callable[[Any, bool], Key],
                    meta: FieldMeta, where: str, ctx: _Ctx) -> list[Any]:
    merged = list(base)
    positions: dict[Key, int] = {}
    for position, item in enumerate(merged):
        positions.setdefault(key_of(item, False), position)
    for item in patch_items:
        key = key_of(item, True)
        index = positions.get(key)
        if index is None:
            positions[key] = len(merged)
            merged.append(ctx.fresh(item))
        else:
            merged[index] = _merge_map(merged[index], item, meta.type,
                                       f"{where}[{_label(item, meta)}]", ctx)
    return merged


def _label(item: Any, meta: FieldMeta) -> str:
    return ",".join(f"{field}={item.get(field)}" for field in meta.keys if field in item)


def _dedupe_scalars(items: list[Any]) -> list[Any]:
    """Kubernetes' ``deduplicateScalars``: each value once, in one pass.

    Kubernetes swaps a later duplicate with the last item; the order does not
    matter here, since :func:`_normalize_order` orders the merged list after.
    """
    seen: set[Key] = set()
    kept = []
    for item in items:
        key = _value_key(item)
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept


def _normalize_order(merged: list[Any], order: Sequence[Any], server_order: Sequence[Any],
                     key_of: Callable[[Any, bool], Key]) -> list[Any]:
    """Kubernetes' ``normalizeElementOrder``: patch elements in ``order``, server ones woven in.

    Elements named in ``order`` come in that order; the others keep their
    order in ``server_order`` and are placed before the first patch element
    that the server list has after them.
    """
    wanted = _first_positions(order, key_of)
    server = _first_positions(server_order, key_of)
    keyed = [(key_of(item, False), item) for item in merged]
    patch_items = sorted((pair for pair in keyed if pair[0] in wanted),
                         key=lambda pair: wanted[pair[0]])
    server_only = sorted((pair for pair in keyed if pair[0] not in wanted),
                         key=lambda pair: server.get(pair[0], -1))
    result = []
    i = j = 0
    while i < len(server_only) or j < len(patch_items):
        if j >= len(patch_items):
            result.append(server_only[i][1])
            i += 1
        elif i >= len(server_only):
            result.append(patch_items[j][1])
            j += 1
        else:
            left = server.get(server_only[i][0])
            right = server.get(patch_items[j][0])
            if left is not None and right is not None and left < right:
                result.append(server_only[i][1])
                i += 1
            else:
                result.append(patch_items[j][1])
                j += 1
    return result


def _first_positions(items: Sequence[Any], key_of: Callable[[Any, bool], Key]) -> dict[Key, int]:
    positions: dict[Key, int] = {}
    for index, item in enumerate(items):
        positions.setdefault(key_of(item, False), index)
    return positions


def _set_element_order(result: Any, patch: Any, field: str, order: Any, type_name: str | None,
                       where: str, ctx: _Ctx) -> Any:
    """Merge ``field`` and then order it as ``$setElementOrder/<field>`` says."""
    if not is_seq(order):
        raise _invalid(f"$setElementOrder/{field} must be a list, "
                       f"got {kind_name(order)}")
    meta = _field_meta(type_name, field)
    current = result.get(field, MISSING)
    value = patch.get(field, MISSING)
    if current is not MISSING and not is_seq(current):
        raise _invalid(f"$setElementOrder/{field} orders a list, "
                       f"but {where} is {kind_name(current)}")
    if value is not MISSING and not is_seq(value):
        raise _invalid(f"$setElementOrder/{field} orders a list, "
                       f"but the patch sets {where} to {kind_name(value)}")
    if current is MISSING and value is MISSING:
        return result
    kind = _element_kind(where, [] if current is MISSING else current,
                         [] if value is MISSING else value)
    key_of = _key_function(meta if kind == "map" else NO_META, where)
    if value is not MISSING:
        _check_order(value, order, key_of, kind, where)
    if value is MISSING:
        merged = current
    elif current is MISSING:
        merged = ctx.fresh(value)
    elif meta.merge:
        merged = _merge_list(current, value, meta, where, ctx)
    else:
        merged = _same_or(current, ctx.fresh(value))
    ordered = _normalize_order(list(merged), order, [] if current is MISSING else current, key_of)
    if current is not MISSING and strict_equal(ordered, current):
        return result
    return set_key(result, field, ctx.seq(ordered), ctx.owned)


def _check_order(value: Any, order: Any, key_of: Callable[[Any, bool], Key], kind: str | None,
                 where: str) -> None:
    """The patch's elements must appear in ``order``, in the same relative order."""
    named = [item for item in value if not (is_map(item) and PATCH in item)]
    position = 0
    keys = [key_of(item, True) for item in order]
    for item in named:
        key = key_of(item, True)
        while position < len(keys) and keys[position] != key:
            position += 1
        if position == len(keys):
            raise _invalid(f"the patch's elements of {where} are not "
                           f"in $setElementOrder/{where.rsplit('.', 1)[-1]} or not "
                           f"in its order")
        position += 1


def _check_patch(patch: Any, type_name: str | None, where: str) -> None:
    """Reject malformed directives, and merge-list elements without their key, when built."""
    if not is_map(patch):
        return
    for key, value in patch.items():
        if not isinstance(key, str):
            raise _invalid(f"{where} has a non-string key {short_repr(key)}")
        if key == PATCH and value not in _DIRECTIVE_VALUES:
            raise _invalid(f"{where} has '$patch: {value}'; "
                           f"directives are: {', '.join(_DIRECTIVE_VALUES)}")
        if key == RETAIN_KEYS or key.startswith((SET_ORDER, DELETE_FROM)):
            if not is_seq(value):
                raise _invalid(f"{where}.{key} must be a list, "
                               f"got {kind_name(value)}")
            if key.startswith(SET_ORDER):
                _check_order_items(value, _field_meta(type_name, key[len(SET_ORDER):]),
                                   f"{where}.{key[len(SET_ORDER):]}")
            continue
        if key.startswith("$") and key != PATCH:
            raise _invalid(f"unknown directive {short_repr(key)} at {where}")
        meta = _field_meta(type_name, key)
        if is_map(value):
            _check_patch(value, meta.type, f"{where}.{key}")
        elif is_seq(value):
            _check_elements(value, meta, f"{where}.{key}")


def _check_order_items(order: Any, meta: FieldMeta, where: str) -> None:
    """The items of ``$setElementOrder/<field>`` name elements by the list's merge key, as
    kubectl requires: a map without it (or with a map as its value) is refused."""
    if not (meta.merge and meta.keys):
        return
    key_of = _key_function(meta, where)
    for item in order:
        if is_map(item):
            key_of(item, True)


def _check_elements(items: Any, meta: FieldMeta, where: str) -> None:
    key_of = _key_function(meta, where) if meta.merge and meta.keys else None
    for item in items:
        if not is_map(item):
            continue
        directive = item.get(PATCH, MISSING)
        bare_merge = directive == "merge" and len(item) == 1
        if key_of is not None and directive != "replace" and not bare_merge:
            key_of(item, True)
        _check_patch(item, meta.type, f"{where}[{_label(item, meta)}]")


def _workload_of(patch: Any, kind: str) -> WorkloadKind | None:
    """The workload kind a patch is for, from its own ``kind`` (as kustomize writes
    patches), or ``None`` for a pod-level patch."""
    if kind not in ROOTS:
        raise _invalid(f"unknown kind {kind!r}; kinds are: {', '.join(ROOTS)} (a workload "
                       f"patch names its kind in the patch: kind: Deployment)", argument="kind")
    named = patch.get("kind")
    if kind != "Pod" or named in (None, "Pod", "List") or not isinstance(named, str):
        return None
    return workload_kind(named, patch.get("apiVersion"))


def _describe(document: Any) -> str:
    metadata = document.get("metadata")
    name = metadata.get("name") if is_map(metadata) else None
    return f"{document.get('kind')}" + (f" {name!r}" if isinstance(name, str) else "")


class _StrategicMerge(Transform):
    __slots__ = ("patch", "root", "workload")
    name = "strategic_merge"

    def __init__(self, patch: Any, kind: str) -> None:
        if not isinstance(kind, str):
            raise _invalid(f"kind must be a string, got {kind_name(kind)}", argument="kind")
        if not is_map(patch):
            raise _invalid(f"a patch is a map, got {kind_name(patch)}")
        check_value(patch, argument="patch", factory="strategic_merge")
        self.patch = copy_plain(patch)
        self.workload = _workload_of(self.patch, kind)
        self.root: str = (ROOTS[kind] if self.workload is None
                          else _workload_root(self.workload))
        _check_patch(self.patch, self.root, str(self.root))
        if kind == "Pod":
            self._init_params(self.patch)
        else:
            self._init_params(self.patch, kind=kind)

    def _apply(self, doc: Any, owned: Owned) -> Any:
        if not is_map(doc):
            raise TypeClashError(f"strategic_merge: a {self.root} is a map, "
                                 f"got {kind_name(doc)}", expected="a map",
                                 found=kind_name(doc))
        if self.workload is None:
            check_pod_document(doc, overlay="strategic_merge")
        else:
            self._check_target(doc)
        ctx = _Ctx(isinstance(doc, (PMap, PVector)), owned)
        return _merge_map(doc, self.patch, self.root, str(self.root), ctx)

    def matches_document(self, doc: Any) -> bool | None:
        """``None`` for a pod-level patch; for a workload patch, whether ``doc`` is its target.

        The target is a document of the patch's kind (and API group, where
        kinds clash) with the patch's ``metadata.name``, if it names one:
        what kustomize matches a patch on. The workload API applies such a
        patch to the documents it targets and leaves the others alone.
        """
        if self.workload is None:
            return None
        if not is_map(doc) or workload_kind(doc.get("kind"), doc.get("apiVersion")) \
                != self.workload:
            return False
        patched = self.patch.get("metadata")
        name = patched.get("name") if is_map(patched) else None
        metadata = doc.get("metadata")
        return name is None or (is_map(metadata) and metadata.get("name") == name)

    def _check_target(self, doc: Any) -> None:
        if not self.matches_document(doc):
            wanted = _describe(self.patch) if "kind" in self.patch else str(self.root)
            metadata = doc.get("metadata")
            found = metadata.get("name") if is_map(metadata) else None
            raise WorkloadKindError(
                f"strategic_merge: the patch is for {wanted}, the document is "
                f"{_describe(doc) if 'kind' in doc else 'a map with no kind'}",
                kind=str(doc.get("kind")), name=found if isinstance(found, str) else None,
                overlay="strategic_merge")


def strategic_merge(patch: Any, kind: str = "Pod") -> Transform:
    """A Kubernetes strategic merge patch for a ``Pod``, ``PodSpec`` or ``PodTemplateSpec``,
    or for a workload document.

    Maps merge and ``null`` deletes; lists with a merge key (containers, env,
    volumes, volumeMounts, ports, ...) merge element by element, scalar
    lists with strategy ``merge`` (finalizers) merge as sets, other lists
    (tolerations, args, command) replace whole; directives ``$patch``,
    ``$deleteFromPrimitiveList/``, ``$setElementOrder/`` and ``$retainKeys``
    work as in Kubernetes. The result is the very same pod when nothing changes.

    >>> pod = {"metadata": {"finalizers": ["a"]},
    ...        "spec": {"containers": [{"name": "c", "image": "old"}], "tolerations": [{"key": "x"}]}}
    >>> new = strategic_merge({"metadata": {"finalizers": ["b"]},
    ...                        "spec": {"containers": [{"name": "c", "image": "new"}],
    ...                                 "tolerations": [{"key": "y"}]}})(pod)
    >>> new["metadata"]["finalizers"], new["spec"]["containers"], new["spec"]["tolerations"]
    (['b', 'a'], [{'name': 'c', 'image': 'new'}], [{'key': 'y'}])
    >>> strategic_merge({"spec": {"containers": [{"name": "c", "$patch": "delete"}]}})(pod)["spec"]
    {'containers': [], 'tolerations': [{'key': 'x'}]}
    >>> strategic_merge({"containers": [{"name": "c", "image": "old"}]}, kind="PodSpec")(
    ...     pod["spec"]) is pod["spec"]
    True

    A patch that names a workload kind (``kind: Deployment``) merges
    into that kind's documents, at its pod templates by the pod rules; a
    pod-level patch refuses a workload:

    >>> web = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
    ...        "spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": "n"}]}}}}
    >>> sidecar = strategic_merge({"apiVersion": "apps/v1", "kind": "Deployment",
    ...     "metadata": {"name": "web"},
    ...     "spec": {"template": {"spec": {"containers": [{"name": "log", "image": "l"}]}}}})
    >>> [c["name"] for c in sidecar(web)["spec"]["template"]["spec"]["containers"]]
    ['log', 'nginx']
    >>> strategic_merge({"spec": {"hostIPC": True}})(web)
    Traceback (most recent call last):
      ...
    transforms.kube.kinds.WorkloadKindError: strategic_merge: a pod-level overlay was given a Deployment document ('web'), not a pod; its pods are in its templates: apply it with transforms.kube.apply_to_workload(overlay, document) or `podfold apply`
    """
    return _StrategicMerge(patch, kind)
