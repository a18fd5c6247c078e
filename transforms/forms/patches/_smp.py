"""Kubernetes strategic merge patch, the general merge: any document, every directive.

:mod:`transforms.forms.patches.strategic` describes the semantics; this module
merges a whole patch into a whole document (``merge_map``), or one field of a
map (``merge_field``), and checks patches when they are built (``check_patch``).
The compiled plan (:mod:`transforms.forms.patches._smp_plan`) falls back to it
for whatever it does not compile.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Union

from pyrsistent import freeze, pvector

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
from combinators.limits import short_repr
from transforms.forms.patches._errors import InvalidPatchError
from transforms.forms.patches._listkeys import NO_META, FieldMeta, field_meta
from transforms.forms.patches._places import PlaceMeta, TypeName, WorkloadPlace

__all__ = (
    "PATCH",
    "RETAIN_KEYS",
    "SET_ORDER",
    "DELETE_FROM",
    "Ctx",
    "Meta",
    "TypeName",
    "check_patch",
    "clean",
    "dropped",
    "element_label",
    "field_meta_of",
    "invalid",
    "json_kind",
    "key_function",
    "merge_field",
    "merge_list",
    "merge_map",
    "normalize_order",
    "value_key",
)

PATCH = "$patch"
RETAIN_KEYS = "$retainKeys"
SET_ORDER = "$setElementOrder/"
DELETE_FROM = "$deleteFromPrimitiveList/"
_DIRECTIVE_VALUES = ("replace", "delete", "merge")

Key = Any  # a hashable stand-in for a merge key's value(s), or for a scalar element


def value_key(value: Any) -> Key:
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


_PLAIN_KINDS = {
    dict: "map",
    list: "list",
    str: "str",
    int: "number",
    float: "number",
    bool: "bool",
    type(None): "null",
}


def json_kind(value: Any) -> str:
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


def invalid(message: str, argument: str = "patch") -> InvalidPatchError:
    return InvalidPatchError(message, argument=argument, factory="strategic_merge")


def _at(where: str) -> str:
    """A place in the patch, for a message: its keys are the user's, of any length."""
    return short_repr(where, quoted=False)


Meta = Union[FieldMeta, PlaceMeta]
"""What the merge engine reads of a field: the schema's patch metadata, or a workload place's."""


def field_meta_of(type_name: TypeName, key: str) -> Meta:
    """The patch metadata of ``key`` in ``type_name``: a workload place's (from its kind's
    record, :mod:`._places`), or the schema's."""
    if isinstance(type_name, WorkloadPlace):
        meta = type_name.meta(key)
        return NO_META if meta is None else meta
    return field_meta(type_name, key)


class Ctx:
    """What one application needs: document kind and the copy-on-write record."""

    __slots__ = ("persistent", "owned")

    def __init__(self, persistent: bool, owned: Owned) -> None:
        self.persistent = persistent
        self.owned = owned

    def fresh(self, patch_value: Any) -> Any:
        """A patch value to insert: without nulls and directive-marked maps, fresh or frozen."""
        value = clean(patch_value)
        return freeze(value) if self.persistent else value

    def seq(self, items: list[Any]) -> Any:
        return pvector(items) if self.persistent else items


def clean(value: Any) -> Any:
    """A plain copy of ``value`` without ``null`` members, directives and deleted maps.

    >>> clean({"a": None, "b": [{"$patch": "delete", "name": "x"}, {"name": "y"}],
    ...         "$retainKeys": ["b"], "c": {"$patch": "merge", "d": 1}})
    {'b': [{'name': 'y'}], 'c': {'d': 1}}
    """
    if is_map(value):
        return {
            key: clean(item)
            for key, item in value.items()
            if item is not None and not key.startswith("$") and not dropped(item)
        }
    if is_seq(value):
        return [clean(item) for item in value if not dropped(item)]
    return value


def dropped(value: Any) -> bool:
    """Whether Kubernetes drops this patch value when there is nothing to apply it to."""
    return is_map(value) and value.get(PATCH, "merge") != "merge"


def merge_map(original: Any, patch: Any, type_name: TypeName, where: str, ctx: Ctx) -> Any:
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
            field = key[len(SET_ORDER) :]
            result = _set_element_order(
                result, patch, field, order, type_name, f"{where}.{field}", ctx
            )
            done.add(field)
    deletions = []
    for key, value in patch.items():
        if key in done or key in (PATCH, RETAIN_KEYS) or key.startswith(SET_ORDER):
            continue
        if key.startswith(DELETE_FROM):
            deletions.append((key[len(DELETE_FROM) :], value))
            continue
        result = merge_field(result, key, value, type_name, f"{where}.{key}", ctx)
    # Kubernetes visits a patch's keys in no set order; deleting last makes a scalar that
    # is both added and deleted end up deleted.
    for field, value in deletions:
        current = result.get(field, MISSING)
        if current is MISSING or not is_seq(current) or not is_seq(value):
            continue
        doomed = {value_key(item) for item in value}
        kept = [item for item in current if value_key(item) not in doomed]
        if len(kept) != len(current):
            result = set_key(result, field, ctx.seq(kept), ctx.owned)
    return result


def merge_field(
    result: Any, key: str, value: Any, type_name: TypeName, where: str, ctx: Ctx
) -> Any:
    current = result.get(key, MISSING)
    if value is None:
        return result if current is MISSING else delete_key(result, key, ctx.owned)
    if current is MISSING or json_kind(current) != json_kind(value):
        if dropped(value):  # '$patch: replace' or 'delete' of what is not there
            return result if current is MISSING else delete_key(result, key, ctx.owned)
        return set_key(result, key, ctx.fresh(value), ctx.owned)
    meta = field_meta_of(type_name, key)
    if is_map(value):
        merged = merge_map(current, value, meta.type, where, ctx)
    elif is_seq(value):
        merged = (
            merge_list(current, value, meta, where, ctx)
            if meta.merge
            else _same_or(current, ctx.fresh(value))
        )
    else:
        merged = _same_or(current, value)
    return result if merged is current else set_key(result, key, merged, ctx.owned)


def _same_or(current: Any, new: Any) -> Any:
    return current if strict_equal(current, new) else new


def _retain_keys(result: Any, patch: Any, retain: Any, where: str, ctx: Ctx) -> Any:
    if not is_seq(retain):
        raise invalid(f"$retainKeys at {_at(where)} must be a list, got {kind_name(retain)}")
    for item in retain:
        if type(item) is not str:  # field names; a list or map here cannot even be compared
            raise invalid(f"$retainKeys at {_at(where)} lists field names, got {kind_name(item)}")
    keep = set(retain)
    for key, value in patch.items():
        if value is None or key.startswith((PATCH, RETAIN_KEYS, SET_ORDER, DELETE_FROM)):
            continue
        if key not in keep:
            raise invalid(
                f"{_at(f'{where}.{key}')} is set by the patch but "
                f"not listed in $retainKeys ({', '.join(map(str, retain))})"
            )
    if not is_map(result):
        return result
    for key in [key for key in result if key not in keep]:
        result = delete_key(result, key, ctx.owned)
    return result


def key_function(meta: Meta, where: str) -> Callable[[Any, bool], Key]:
    """Identity of a list element: its merge key's values (maps) or itself (scalars).

    With ``strict``, an element without the (first) key field is an error, as
    it is for a patch's elements; a pod's element without one matches nothing.
    """
    if not meta.keys:
        return lambda item, strict: value_key(item)
    defaults = dict(meta.defaults)

    def key_of(item: Any, strict: bool) -> Key:
        if not is_map(item):
            raise invalid(
                f"{_at(where)} holds maps merged on {', '.join(meta.keys)}; got {kind_name(item)}"
            )
        values = []
        for field in meta.keys:
            value = item.get(field, defaults.get(field, MISSING))
            if value is MISSING and strict and field == meta.keys[0]:
                raise invalid(
                    f"an element of {_at(where)} has no "
                    f"merge key {short_repr(field)}: {short_repr(copy_plain(item))}"
                )
            if strict and (is_map(value) or is_seq(value)):
                # kubectl panics here; a merge key is a string or a number
                raise invalid(
                    f"an element of {_at(where)} has {kind_name(value)} as its merge "
                    f"key {short_repr(field)}; merge keys are strings or numbers: "
                    f"{short_repr(copy_plain(item))}"
                )
            values.append(MISSING if value is MISSING else value_key(value))
        return values[0] if len(values) == 1 else tuple(values)

    if len(meta.keys) > 1 or defaults:
        return key_of
    only = meta.keys[0]

    def single_key_of(item: Any, strict: bool) -> Key:
        value = item.get(only, MISSING) if is_map(item) else MISSING
        if value is MISSING or (strict and (is_map(value) or is_seq(value))):
            return key_of(item, strict)  # which says what is wrong, where it is wrong
        return value_key(value)

    return single_key_of


def _element_kind(where: str, *lists: Sequence[Any]) -> str | None:
    kinds = {json_kind(item) for items in lists for item in items}
    if len(kinds) > 1:
        raise invalid(
            f"the elements of {_at(where)} are not all of one kind: {', '.join(sorted(kinds))}"
        )
    kind = next(iter(kinds), None)
    if kind == "list":
        raise invalid(f"{_at(where)} is a list of lists; strategic merge patch cannot merge those")
    return kind


def merge_list(original: Any, patch: Any, meta: Meta, where: str, ctx: Ctx) -> Any:
    """A list merged as Kubernetes does (``mergeSlice``); ``original`` when unchanged."""
    if not original and not patch:
        return original
    kind = _element_kind(where, original, patch)
    key_of = key_function(meta if kind == "map" else NO_META, where)
    if kind != "map":
        merged = _dedupe_scalars([*original, *(ctx.fresh(item) for item in patch)])
        patch_items = patch
        base = list(original)
    else:
        if not meta.keys:
            raise invalid(f"{_at(where)} has no merge key")
        base, patch_items = _special_elements(list(original), patch, key_of, where, ctx)
        merged = _merge_elements(base, patch_items, key_of, meta, where, ctx)
    ordered = normalize_order(merged, patch_items, base, key_of)
    if strict_equal(ordered, original):  # identical elements short-cut the comparison
        return original
    return ctx.seq(ordered)


def _special_elements(
    original: list[Any], patch: Any, key_of: Callable[[Any, bool], Key], where: str, ctx: Ctx
) -> tuple[list[Any], list[Any]]:
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


def _merge_elements(
    base: list[Any],
    patch_items: list[Any],
    key_of: Callable[[Any, bool], Key],
    meta: Meta,
    where: str,
    ctx: Ctx,
) -> list[Any]:
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
            merged[index] = merge_map(
                merged[index], item, meta.type, f"{where}[{element_label(item, meta)}]", ctx
            )
    return merged


def element_label(item: Any, meta: Meta) -> str:
    return ",".join(f"{field}={item.get(field)}" for field in meta.keys if field in item)


def _dedupe_scalars(items: list[Any]) -> list[Any]:
    """Kubernetes' ``deduplicateScalars``: each value once, in one pass.

    Kubernetes swaps a later duplicate with the last item; the order does not
    matter here, since :func:`normalize_order` orders the merged list after.
    """
    seen: set[Key] = set()
    kept = []
    for item in items:
        key = value_key(item)
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept


def normalize_order(
    merged: list[Any],
    order: Sequence[Any],
    server_order: Sequence[Any],
    key_of: Callable[[Any, bool], Key],
) -> list[Any]:
    """Kubernetes' ``normalizeElementOrder``: patch elements in ``order``, server ones woven in.

    Elements named in ``order`` come in that order; the others keep their
    order in ``server_order`` and are placed before the first patch element
    that the server list has after them.
    """
    wanted = _first_positions(order, key_of)
    server = _first_positions(server_order, key_of)
    keyed = [(key_of(item, False), item) for item in merged]
    patch_items = sorted(
        (pair for pair in keyed if pair[0] in wanted), key=lambda pair: wanted[pair[0]]
    )
    server_only = sorted(
        (pair for pair in keyed if pair[0] not in wanted), key=lambda pair: server.get(pair[0], -1)
    )
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


def _set_element_order(
    result: Any, patch: Any, field: str, order: Any, type_name: TypeName, where: str, ctx: Ctx
) -> Any:
    """Merge ``field`` and then order it as ``$setElementOrder/<field>`` says."""
    if not is_seq(order):
        raise invalid(f"$setElementOrder/{_at(field)} must be a list, got {kind_name(order)}")
    meta = field_meta_of(type_name, field)
    current = result.get(field, MISSING)
    value = patch.get(field, MISSING)
    if current is not MISSING and not is_seq(current):
        raise invalid(
            f"$setElementOrder/{_at(field)} orders a list, but {_at(where)} is {kind_name(current)}"
        )
    if value is not MISSING and not is_seq(value):
        raise invalid(
            f"$setElementOrder/{_at(field)} orders a list, "
            f"but the patch sets {_at(where)} to {kind_name(value)}"
        )
    if current is MISSING and value is MISSING:
        return result
    kind = _element_kind(
        where, [] if current is MISSING else current, [] if value is MISSING else value
    )
    key_of = key_function(meta if kind == "map" else NO_META, where)
    if value is not MISSING:
        _check_order(value, order, key_of, kind, where)
    if value is MISSING:
        merged = current
    elif current is MISSING:
        merged = ctx.fresh(value)
    elif meta.merge:
        merged = merge_list(current, value, meta, where, ctx)
    else:
        merged = _same_or(current, ctx.fresh(value))
    ordered = normalize_order(list(merged), order, [] if current is MISSING else current, key_of)
    if current is not MISSING and strict_equal(ordered, current):
        return result
    return set_key(result, field, ctx.seq(ordered), ctx.owned)


def _check_order(
    value: Any, order: Any, key_of: Callable[[Any, bool], Key], kind: str | None, where: str
) -> None:
    """The patch's elements must appear in ``order``, in the same relative order."""
    named = [item for item in value if not (is_map(item) and PATCH in item)]
    position = 0
    keys = [key_of(item, True) for item in order]
    for item in named:
        key = key_of(item, True)
        while position < len(keys) and keys[position] != key:
            position += 1
        if position == len(keys):
            raise invalid(
                f"the patch's elements of {_at(where)} are not "
                f"in $setElementOrder/{_at(where.rsplit('.', 1)[-1])} or not "
                f"in its order"
            )
        position += 1


def check_patch(patch: Any, type_name: TypeName, where: str) -> None:
    """Reject malformed directives, and merge-list elements without their key, when built."""
    if not is_map(patch):
        return
    for key, value in patch.items():
        if not isinstance(key, str):
            raise invalid(f"{_at(where)} has a non-string key {short_repr(key)}")
        if key == PATCH and value not in _DIRECTIVE_VALUES:
            raise invalid(
                f"{_at(where)} has '$patch: {short_repr(value, 60, quoted=False)}'; "
                f"directives are: {', '.join(_DIRECTIVE_VALUES)}"
            )
        if key == RETAIN_KEYS or key.startswith((SET_ORDER, DELETE_FROM)):
            if not is_seq(value):
                raise invalid(f"{_at(f'{where}.{key}')} must be a list, got {kind_name(value)}")
            if key.startswith(SET_ORDER):
                _check_order_items(
                    value,
                    field_meta_of(type_name, key[len(SET_ORDER) :]),
                    f"{where}.{key[len(SET_ORDER) :]}",
                )
            continue
        if key.startswith("$") and key != PATCH:
            raise invalid(f"unknown directive {short_repr(key)} at {_at(where)}")
        meta = field_meta_of(type_name, key)
        if is_map(value):
            check_patch(value, meta.type, f"{where}.{key}")
        elif is_seq(value):
            _check_elements(value, meta, f"{where}.{key}")


def _check_order_items(order: Any, meta: Meta, where: str) -> None:
    """The items of ``$setElementOrder/<field>`` name elements by the list's merge key, as
    kubectl requires: a map without it (or with a map as its value) is refused."""
    if not (meta.merge and meta.keys):
        return
    key_of = key_function(meta, where)
    for item in order:
        if is_map(item):
            key_of(item, True)


def _check_elements(items: Any, meta: Meta, where: str) -> None:
    key_of = key_function(meta, where) if meta.merge and meta.keys else None
    for item in items:
        if not is_map(item):
            continue
        directive = item.get(PATCH, MISSING)
        bare_merge = directive == "merge" and len(item) == 1
        if key_of is not None and directive != "replace" and not bare_merge:
            key_of(item, True)
        check_patch(item, meta.type, f"{where}[{element_label(item, meta)}]")
