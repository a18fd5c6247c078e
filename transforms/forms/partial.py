"""Partial pods as transforms, with TorchX's overlay semantics and nothing mutated.

A partial pod is a map that merges into a pod, as upstream TorchX's
``apply_overlay`` does, but copy-on-write:

- a map merges key by key, recursively;
- a list is appended to the list in the pod (an ``AppendUnique`` list, the
  ``!append-unique`` tag, appends only the items not there yet);
- a tuple (``!!python/tuple`` in YAML) replaces the list in the pod;
- anything else replaces what was there;
- a map or list meeting something of another kind (a map where the pod has
  a list, a list where it has a string) is a type clash, an error naming the path;
- the operator keys ``"__put__:<key>"`` (replace), ``"__join__:<key>:<on>"``
  (merge list items by the field ``<on>``: the item's top-level fields
  overwrite, unmatched items are appended) and ``"__del__:<key>"`` (remove);
- markers (:mod:`transforms.forms.markers`, YAML tags) say what to do with one value.

>>> pod = {"spec": {"containers": [{"name": "main", "image": "v1"}], "tolerations": []}}
>>> new = overlay({"spec": {"nodeSelector": {"gpu": "a100"},
...                         "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
...                         "__join__:containers:name": [{"name": "main", "image": "v2"}]}})(pod)
>>> new["spec"]["containers"], new["spec"]["nodeSelector"]
([{'name': 'main', 'image': 'v2'}], {'gpu': 'a100'})
>>> pod["spec"]["tolerations"]
[]

Where upstream differs, on purpose: operator keys and markers inside a value
that is new to the pod (a map the pod lacks, appended list items, the values
of ``__put__``/``__join__`` keys and of markers) are resolved as if merged into
nothing, so no operator key or marker ever lands in a pod (upstream copies
such keys in verbatim); and a tuple always becomes a list (upstream keeps a
tuple that replaces a scalar or sits inside a new value).
When the pod itself holds operator keys (a stored, unresolved overlay), the
last operation on a field wins over them, as upstream resolves the conflict.
The items of ``!merge-by`` (a :class:`~transforms.forms.markers.MergeBy`) are
the exception: a tag inside one (``env: !merge-by [...]`` in a container)
acts on the matched element's own value, once the item's other fields are
merged into it.

>>> overlay({"spec": {"__put__:volumes": [], "tolerations": []}})({})
{'spec': {'volumes': [], 'tolerations': []}}
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

from pyrsistent import freeze

from combinators import Path, Transform, append_at, for_each, merge_by, prepend_at
from combinators.data import (
    MISSING,
    REMOVE,
    Owned,
    copy_plain,
    delete_key,
    empty_map,
    extend_seq,
    is_map,
    is_seq,
    kind_name,
    set_key,
    strict_equal,
    strict_key,
)
from combinators.editing import PathEdit, persistent_world
from combinators.errors import ArgumentError, ArgumentTypeError, TypeClashError
from combinators.limits import short_repr
from combinators.paths import Key, Match
from combinators.shape import check_value
from transforms.forms.markers import (
    Append,
    AppendUnique,
    Default,
    Marker,
    MergeBy,
    Prepend,
    Remove,
)
from transforms.kube.kinds import check_pod_document

__all__ = ("overlay", "Overlay", "PUT", "JOIN", "DEL", "unwrap_torchx", "field_of")

_PUT, _JOIN, _DEL = "__put__:", "__join__:", "__del__:"
_OPERATORS = (_PUT, _JOIN, _DEL)
TORCHX_CONTAINER = "__torchx_overlays__"


def PUT(key: str) -> str:
    """The operator key that replaces ``key``'s value: ``PUT("volumes")``."""
    return _PUT + key


def JOIN(key: str, *, on: str) -> str:
    """The operator key that merges list items by a field: ``JOIN("env", on="name")``."""
    return f"{_JOIN}{key}:{on}"


def DEL(key: str) -> str:
    """The operator key that removes ``key``: ``{DEL("nodeSelector"): None}``."""
    return _DEL + key


def unwrap_torchx(value: Any) -> Any:
    """Take the pod overlay out of upstream's ``{"__torchx_overlays__": True, "V1Pod": ...}``."""
    if is_map(value) and value.get(TORCHX_CONTAINER) is True:
        return value.get("V1Pod", {})
    return value


class _Edit:
    """A marker compiled to the combinator that does its work."""

    __slots__ = ("edit",)

    def __init__(self, edit: PathEdit | _TaggedMerge) -> None:
        self.edit = edit


def _bad(message: str, value: Any, of_type: bool = False,
         where: tuple[str, ...] | None = None) -> ArgumentError:
    """The error for a partial pod :func:`overlay` cannot be built from; ``where`` is
    the place in it, for tools that point at it (a YAML loader gives the line)."""
    kind = ArgumentTypeError if of_type else ArgumentError
    err = kind(message, argument="partial_pod", factory="overlay", value=value)
    if where is not None:
        err.path = Path(Key(k) for k in where)
    return err


def _compile(value: Any, where: tuple[str, ...]) -> Any:
    """Check a partial pod, swap the list markers for combinators, and resolve
    what goes into the pod as it is (see :func:`_materialize`) once, here."""
    if isinstance(value, (Append, AppendUnique, Prepend, MergeBy)):
        items = value.value
        if not isinstance(items, list):
            raise _bad(f"{value.tag} at {_text(where)} needs a list, got {kind_name(items)}",
                       items, of_type=True, where=where)
        target = Path(Key(k) for k in where)
        if isinstance(value, MergeBy):
            return _merge_by(target, items, value.key, where)
        items = _materialize(items)
        if isinstance(value, AppendUnique):
            return _Edit(append_at(target, *items, unique=True))  # type: ignore[arg-type]
        factory = append_at if isinstance(value, Append) else prepend_at
        return _Edit(factory(target, *items))  # type: ignore[arg-type]
    if isinstance(value, Remove):
        return value
    if isinstance(value, Marker):
        return type(value)(_materialize(value.value))
    if is_map(value):
        compiled = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise _bad(f"keys of an overlay are strings; {short_repr(key)} at "
                           f"{_text(where)} is not",
                           key, of_type=True)
            if key.startswith(_JOIN):
                _check_join(key, item, where)
                compiled[key] = _materialize(item)
            elif key.startswith((_PUT, _DEL)):
                _check_operator(key, where)
                compiled[key] = _materialize(item)
            else:
                compiled[key] = _compile(item, (*where, key))
        return compiled
    if isinstance(value, tuple):
        return tuple(_materialize(value))
    return _materialize(value)


def _merge_by(target: Path, items: list[Any], key: str | tuple[str, ...],
              where: tuple[str, ...]) -> Any:
    """``!merge-by``: the items merge into the list's elements by ``key``; a tag inside an
    item (``env: !merge-by [...]``, ``args: !append [...]``) acts on the element's own
    value, as it does anywhere in a partial pod, once the item's other fields are merged."""
    fields = (key,) if isinstance(key, str) else tuple(key)
    plain_items, tagged = [], []
    for item in items:
        plain, marked = _split_tagged(item) if is_map(item) else (item, None)
        plain_items.append(plain)
        if marked:
            if not all(field in item for field in fields):
                raise _bad(f"!merge-by at {_text(where)}: an item with tags inside names its "
                           f"key field{'s' if len(fields) > 1 else ''} ({', '.join(fields)})",
                           item, where=where)
            tagged.append((Match((field, item[field]) for field in fields),
                           Overlay(marked)))
    edit: Any = merge_by(target, _materialize(plain_items), key=key)  # a PathEdit
    return _Edit(edit) if not tagged else _Edit(_TaggedMerge(edit, tuple(tagged)))


def _split_tagged(item: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``item``'s fields without tags, and its tagged fields (found through nested maps)."""
    plain: dict[str, Any] = {}
    marked: dict[str, Any] = {}
    for key, value in item.items():
        if isinstance(value, Marker) or (isinstance(key, str) and key.startswith(_OPERATORS)):
            marked[key] = value
        elif is_map(value):
            inner_plain, inner_marked = _split_tagged(value)
            if inner_marked:
                marked[key] = inner_marked
                if inner_plain:
                    plain[key] = inner_plain
            else:
                plain[key] = value
        else:
            plain[key] = value
    return plain, marked


class _TaggedMerge:
    """A ``!merge-by`` whose items hold tags: the merge, then each item's tagged fields
    applied to the elements its key matches (see :func:`_merge_by`)."""

    __slots__ = ("merge", "tagged")

    def __init__(self, merge: Any, tagged: tuple[tuple[Match, Overlay], ...]) -> None:
        self.merge = merge
        self.tagged = tagged

    def leaf(self, old: Any, persistent: bool, owned: Owned) -> Any:
        new = self.merge.leaf(old, persistent, owned)
        for match, edit in self.tagged:
            new = for_each(Path((match,)), edit)(new)
        return new


def _check_operator(key: str, where: tuple[str, ...]) -> None:
    """``__put__:`` and ``__del__:`` name the field they are about."""
    if not field_of(key):
        operator = key.rstrip(":")
        raise _bad(f"{short_repr(key)} at {_text(where)} names no field; write "
                   f"'{operator}:<field>' ({operator}:volumes, say)", key, where=(*where, key))


def _check_join(key: str, items: Any, where: tuple[str, ...]) -> None:
    field, _, on = key[len(_JOIN):].partition(":")
    if not field or not on:
        raise _bad(f"malformed join key {short_repr(key)} at {_text(where)}; "
                   f"write '__join__:<key>:<field>'", key)
    if not isinstance(items, list) or not all(is_map(x) for x in items):
        got = kind_name(items) if not isinstance(items, list) \
            else "a list with an item that is not a map"
        raise _bad(f"{short_repr(key)} at {_text(where)} needs a list of maps, got {got}", items,
                   of_type=True)


def _materialize(value: Any) -> Any:
    """The plain value a part of an overlay puts into the pod where nothing was.

    Markers and operator keys inside it are resolved as if merged into
    nothing (``!remove`` drops the key or list item), tuples become lists.
    """
    if isinstance(value, AppendUnique) and isinstance(value.value, list):
        return _unique(_materialize(value.value))
    if isinstance(value, Marker):
        return REMOVE if isinstance(value, Remove) else _materialize(value.value)
    if is_map(value):
        result: dict[Any, Any] = {}
        for key, item in value.items():
            if isinstance(key, str) and key.startswith(_OPERATORS):
                field = field_of(key)
                if not key.startswith(_JOIN):
                    _check_operator(key, ())
                if key.startswith(_JOIN):
                    _check_join(key, item, ())
                    result = _join(result, field, key[len(_JOIN):].partition(":")[2], _materialize(item),
                                   (field,), False, Owned())
                    continue
                result.pop(field, None)
                if key.startswith(_DEL):
                    continue
                key = field
            new = _materialize(item)
            if new is REMOVE:
                result.pop(key, None)
            else:
                result[key] = new
        return result
    if is_seq(value):
        return [new for new in map(_materialize, value) if new is not REMOVE]
    return value


def _unique(items: list[Any]) -> list[Any]:
    """``items`` without the ones equal to an earlier one, as ``append_at(unique=True)`` skips them."""
    kept: list[Any] = []
    seen: set[Any] = set()
    for item in items:
        key = strict_key(item)
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept


def _text(where: tuple[str, ...]) -> str:
    return str(Path(Key(k) for k in where)) or "the top level"


class Overlay(Transform):
    """A partial pod, compiled; build it with :func:`overlay`."""

    __slots__ = ("source", "_compiled")
    name = "overlay"

    def __init__(self, source: Any) -> None:
        source = unwrap_torchx(source)
        if not is_map(source):
            raise _bad(f"an overlay is a map (a partial pod), got {kind_name(source)}", source,
                       of_type=True)
        # only JSON-shaped data (and markers around it), not too deep, no cycles
        check_value(source, argument="partial_pod", factory="overlay", markers=(Marker,),
                    located=True)
        self.source = copy_plain_keep_markers(source)
        self._compiled = _compile(self.source, ())
        self._init_params(self.source)

    def _apply(self, doc: Any, owned: Owned) -> Any:
        if not is_map(doc):
            raise TypeClashError(f"an overlay applies to a map, got {kind_name(doc)}",
                                 expected="a map", found=kind_name(doc))
        # a partial pod merges into a pod, never into a Deployment's spec nor into
        # a client's snake_case to_dict(): a few look-ups, refused naming the kind
        check_pod_document(doc, overlay=self.name)
        return _merge_map(doc, self._compiled, (), persistent_world(doc), owned)


def copy_plain_keep_markers(value: Any) -> Any:
    """A plain copy that keeps markers and tuples as they are."""
    if isinstance(value, Marker):
        return value
    if isinstance(value, tuple):
        return tuple(copy_plain_keep_markers(item) for item in value)
    if is_map(value):
        return {key: copy_plain_keep_markers(item) for key, item in value.items()}
    if is_seq(value):
        return [copy_plain_keep_markers(item) for item in value]
    return value


def overlay(partial_pod: Any) -> Transform:
    """A transform that merges ``partial_pod`` into a pod, by TorchX's rules.

    See the module's documentation for the rules. Bad operator keys and
    marker values fail here, when the overlay is built.

    >>> overlay({"spec": {"__put__:volumes": []}})({"spec": {"volumes": [{"name": "a"}]}})
    {'spec': {'volumes': []}}
    >>> overlay({"spec": {"__del__:nodeSelector": None}})({"spec": {"nodeSelector": {}}})
    {'spec': {}}
    """
    return Overlay(partial_pod)


def _fresh(value: Any, where: tuple[str, ...], persistent: bool, owned: Owned) -> Any:
    """A new value for a key the pod lacks."""
    if isinstance(value, _Edit):
        return value.edit.leaf(MISSING, persistent, owned)
    if isinstance(value, Marker):
        if isinstance(value, Remove):
            return REMOVE
        value = value.value
    elif type(value) is dict:
        return _merge_map(empty_map(persistent), value, where, persistent, owned)
    plain = copy_plain(value)  # compiled values are plain already: tuples became lists
    return freeze(plain) if persistent else plain


def _clash(where: tuple[str, ...], current: Any, value: Any) -> TypeClashError:
    found, given = kind_name(current), kind_name(value)
    # the error's own text adds "(in <path>)"
    return TypeClashError(f"type mismatch: the pod has {found}, the overlay {given}",
                          path=Path(Key(k) for k in where),
                          expected=given, found=found)


def _merge_value(current: Any, value: Any, where: tuple[str, ...], persistent: bool,
                 owned: Owned) -> Any:
    if current is MISSING:
        return _fresh(value, where, persistent, owned)
    if isinstance(value, _Edit):
        return value.edit.leaf(current, persistent, owned)
    if isinstance(value, Marker):
        if isinstance(value, Remove):
            return REMOVE
        if isinstance(value, Default) and current is not None:
            return current
        if strict_equal(current, value.value):
            return current
        return _fresh(value, where, persistent, owned)
    if type(value) is dict:
        if not is_map(current):
            raise _clash(where, current, value)
        return _merge_map(current, value, where, persistent, owned)
    if isinstance(value, tuple):
        if is_map(current):
            raise _clash(where, current, value)
        if strict_equal(current, value):
            return current
        return _fresh(value, where, persistent, owned)
    if type(value) is list:
        if not is_seq(current):
            raise _clash(where, current, value)
        if not value:
            return current
        return append_items(current, value, persistent, owned)
    if is_map(current) or is_seq(current):
        raise _clash(where, current, value)
    if strict_equal(current, value):
        return current
    return value


def append_items(current: Any, items: list[Any], persistent: bool, owned: Owned) -> Any:
    """``current`` with fresh copies of ``items`` appended."""
    fresh = [freeze(copy_plain(item)) if persistent else copy_plain(item) for item in items]
    return extend_seq(current, fresh, None, owned)


def _has_operator_keys(mapping: Any) -> bool:
    """Whether ``mapping`` holds keys that look like operator keys (a stored overlay does)."""
    try:
        return any(map(str.startswith, mapping, repeat("__")))
    except TypeError:  # a key that is no string
        return any(isinstance(key, str) and key.startswith("__") for key in mapping)


def field_of(key: str) -> str:
    """The field an operator key is about (``"__join__:env:name"`` is about ``env``)."""
    for prefix in _OPERATORS:
        if key.startswith(prefix):
            rest = key[len(prefix):]
            return rest.split(":", 1)[0] if prefix == _JOIN else rest
    return key


def _drop_operator_keys(base: Any, field: str, owned: Owned) -> Any:
    """``base`` without the operator keys about ``field``, as upstream resolves a conflict."""
    stale = [key for key in base if isinstance(key, str) and key.startswith(_OPERATORS)
             and field_of(key) == field]
    for key in stale:
        base = delete_key(base, key, owned)
    return base


def _merge_map(base: Any, ov: dict[str, Any], where: tuple[str, ...], persistent: bool,
               owned: Owned) -> Any:
    result = base
    # Upstream lets the last operation on a field win over operator keys the
    # base map holds (stored, unresolved overlays); a pod rarely has any.
    conflicts = _has_operator_keys(base)
    for key, value in ov.items():
        if conflicts:
            result = _drop_operator_keys(result, field_of(key), owned)
        if key.startswith("__"):
            if key.startswith(_PUT):
                field = key[len(_PUT):]
                current = result.get(field, MISSING)
                if current is MISSING or not strict_equal(current, value):
                    plain = copy_plain(value)
                    result = set_key(result, field, freeze(plain) if persistent else plain, owned)
                continue
            if key.startswith(_DEL):
                field = key[len(_DEL):]
                if field in result:
                    result = delete_key(result, field, owned)
                continue
            if key.startswith(_JOIN):
                field, _, on = key[len(_JOIN):].partition(":")
                result = _join(result, field, on, value, (*where, field), persistent, owned)
                continue
        current = result.get(key, MISSING)
        new = _merge_value(current, value, (*where, key), persistent, owned)
        if new is current:
            continue
        if new is REMOVE:
            if current is not MISSING:
                result = delete_key(result, key, owned)
            continue
        result = set_key(result, key, new, owned)
    return result


def _join(base: Any, field: str, on: str, items: list[Any], where: tuple[str, ...],
          persistent: bool, owned: Owned) -> Any:
    """Upstream's JOIN: matched items overwrite top-level fields; others append."""
    current = base.get(field, MISSING)
    if current is MISSING:
        plain = copy_plain(items)
        return set_key(base, field, freeze(plain) if persistent else plain, owned)
    if not is_seq(current) or not all(is_map(element) for element in current):
        found = kind_name(current) if not is_seq(current) \
            else "a list with an item that is not a map"
        raise TypeClashError(f"join needs a list of maps; the pod has {found}",
                             path=Path(Key(k) for k in where),
                             expected="a list of maps", found=found)
    # like upstream, the last element with a given key is the one merged into; keys are
    # compared strictly (1 is not True) and may be maps or lists
    positions = {strict_key(element[on]): i for i, element in enumerate(current) if on in element}
    result = list(current)
    changed = False
    for item in items:
        position = positions.get(strict_key(item[on]), -1) if on in item else -1
        if position >= 0:
            element = result[position]
            for key, value in item.items():
                if key == on or (key in element and strict_equal(element[key], value)):
                    continue
                plain = copy_plain(value)
                element = set_key(element, key, freeze(plain) if persistent else plain, owned)
            if element is not result[position]:
                result[position] = element
                changed = True
        else:
            plain = copy_plain(item)
            result.append(freeze(plain) if persistent else plain)
            changed = True
    if not changed:
        return base
    new_list: Any = freeze(result) if persistent else owned.adopt(result)
    return set_key(base, field, new_list, owned)
