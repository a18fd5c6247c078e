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

>>> overlay({"spec": {"__put__:volumes": [], "tolerations": []}})({})
{'spec': {'volumes': [], 'tolerations': []}}

``!merge-by`` (a :class:`~transforms.forms.markers.MergeBy`, podfold's own;
upstream has no such tag) merges each item into the element with the same key
by these same rules, so nothing the item leaves out is lost, at any depth: its
maps merge, its tags act on the element's own values, and its untagged lists
append, but for one kind: a list Kubernetes merges by a key (a container's
``env`` by ``name``, ``volumeMounts`` by ``mountPath``, ``ports`` by
``containerPort`` and ``protocol``, which defaults to ``TCP``) merges by that
key, as ``kubectl patch --type strategic`` merges it, so an env name already
there is set, not given twice. An entry of such a list that lacks the key is
refused where it is written. ``__join__`` keeps upstream's rule: a matched
item's top-level fields overwrite, lists and maps whole.

>>> pod = {"spec": {"containers": [{"name": "app", "args": ["-v"], "env": [
...     {"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf", "key": "token"}}},
...     {"name": "NCCL_DEBUG", "value": "WARN"}]}]}}
>>> debug = overlay({"spec": {"containers": MergeBy([{"name": "app", "args": ["--fast"],
...     "env": [{"name": "NCCL_DEBUG", "value": "INFO"}, {"name": "LR", "value": "1e-4"}]}])}})
>>> [app] = debug(pod)["spec"]["containers"]
>>> app["args"], [(var["name"], var.get("value")) for var in app["env"]]
(['-v', '--fast'], [('TOKEN', None), ('NCCL_DEBUG', 'INFO'), ('LR', '1e-4')])
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

from pyrsistent import freeze

from combinators import Path, Transform, append_at, prepend_at
from combinators.data import (
    MISSING,
    REMOVE,
    Owned,
    Template,
    copy_plain,
    delete_key,
    empty_map,
    empty_seq,
    extend_seq,
    is_map,
    is_seq,
    kind_name,
    rebuild_seq,
    set_key,
    strict_equal,
    strict_key,
)
from combinators.editing import PathEdit, persistent_world
from combinators.errors import ArgumentError, ArgumentTypeError, TransformError, TypeClashError
from combinators.limits import MAX_NAME, short_names, short_repr
from combinators.paths import Index, Key, Match
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
from transforms.forms.patches._listkeys import NO_META, FieldMeta, field_meta
from transforms.kube.kinds import check_pod_document

__all__ = ("overlay", "Overlay", "PUT", "JOIN", "DEL", "unwrap_torchx", "field_of")

_PUT, _JOIN, _DEL = "__put__:", "__join__:", "__del__:"
_OPERATORS = (_PUT, _JOIN, _DEL)
TORCHX_CONTAINER = "__torchx_overlays__"
_Where = tuple["str | int | _Item", ...]  # keys and item places; a pod path has matched items


def _operator_key(factory: str, argument: str, value: Any) -> str:
    """``value`` checked as the field name an operator key carries (``PUT("volumes")``):
    a non-empty string without ``:``, which the key's own syntax uses."""
    if not isinstance(value, str):
        raise ArgumentTypeError(
            f"{argument} must be a field name (a string), got {short_repr(value)}",
            argument=argument,
            factory=factory,
            value=value,
        )
    if not value or ":" in value:
        raise ArgumentError(
            f"{argument} must be a field name without ':', got {short_repr(value)}",
            argument=argument,
            factory=factory,
            value=value,
        )
    return value


def PUT(key: str) -> str:
    """The operator key that replaces ``key``'s value: ``PUT("volumes")``.

    >>> PUT("volumes")
    '__put__:volumes'
    >>> PUT(5)
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentTypeError: PUT(): key must be a field name (a string), got 5
    """
    return _PUT + _operator_key("PUT", "key", key)


def JOIN(key: str, *, on: str) -> str:
    """The operator key that merges list items by a field: ``JOIN("env", on="name")``.

    >>> JOIN("env", on="name")
    '__join__:env:name'
    """
    return f"{_JOIN}{_operator_key('JOIN', 'key', key)}:{_operator_key('JOIN', 'on', on)}"


def DEL(key: str) -> str:
    """The operator key that removes ``key``: ``{DEL("nodeSelector"): None}``."""
    return _DEL + _operator_key("DEL", "key", key)


def unwrap_torchx(value: Any) -> Any:
    """Take the pod overlay out of upstream's ``{"__torchx_overlays__": True, "V1Pod": ...}``."""
    if is_map(value) and value.get(TORCHX_CONTAINER) is True:
        return value.get("V1Pod", {})
    return value


class _Edit:
    """A marker compiled to the combinator that does its work."""

    __slots__ = ("edit",)

    def __init__(self, edit: PathEdit) -> None:
        self.edit = edit


def _bad(
    message: str, value: Any, of_type: bool = False, where: _Where | None = None
) -> ArgumentError:
    """The error for a partial pod :func:`overlay` cannot be built from; ``where`` is
    the place in it, for tools that point at it (a YAML loader gives the line)."""
    kind = ArgumentTypeError if of_type else ArgumentError
    err = kind(message, argument="partial_pod", factory="overlay", value=value)
    if where is not None:
        err.path = _path(where)
    return err


def _compile(value: Any, where: _Where, in_item: bool = False) -> Any:
    """Check a partial pod, swap the list markers for combinators, and resolve
    what goes into the pod as it is (see :func:`_materialize`) once, here.

    ``in_item`` says ``value`` lies inside a ``!merge-by`` item, at any depth:
    there an untagged list the schema gives a merge key merges by it."""
    if isinstance(value, (Append, AppendUnique, Prepend, MergeBy)):
        items = value.value
        if not isinstance(items, list):
            raise _bad(
                f"{value.tag} at {_text(where)} needs a list, got {kind_name(items)}",
                items,
                of_type=True,
                where=where,
            )
        if isinstance(value, MergeBy):
            fields = (value.key,) if isinstance(value.key, str) else tuple(value.key)
            return _keyed_merge(items, fields, where, implied=False)
        target = Path(Key(k) for k in where if isinstance(k, str))
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
                raise _bad(
                    f"keys of an overlay are strings; {short_repr(key)} at {_text(where)} is not",
                    key,
                    of_type=True,
                )
            if key.startswith(_JOIN):
                _check_join(key, item, where)
                compiled[key] = _materialize(item)
            elif key.startswith((_PUT, _DEL)):
                _check_operator(key, where)
                compiled[key] = _materialize(item)
            else:
                compiled[key] = _compile(item, (*where, key), in_item)
        return compiled
    if isinstance(value, tuple):
        return tuple(_materialize(value))
    if in_item and type(value) is list:
        meta = _list_meta(where)
        if meta.merge and meta.keys:
            return _keyed_merge(value, meta.keys, where, implied=True, meta=meta)
    return _materialize(value)


def _list_meta(where: _Where) -> FieldMeta:
    """What the schema says of the pod list at ``where`` in a partial pod (its merge
    key), read from the table strategic merge reads; ``NO_META`` off the schema."""
    type_name: str | None = "Pod"
    for key in where[:-1]:
        if isinstance(key, str):  # an int is an item's place in a !merge-by list
            type_name = field_meta(type_name, key).type
    last = where[-1] if where else None
    return field_meta(type_name, last) if isinstance(last, str) else NO_META


def _keyed_merge(
    items: list[Any],
    fields: tuple[str, ...],
    where: _Where,
    *,
    implied: bool,
    meta: FieldMeta | None = None,
) -> _KeyedMerge:
    """``!merge-by`` (or, with ``implied``, an untagged list with a Kubernetes merge key
    inside a ``!merge-by`` item): each item, compiled as a partial pod of its own,
    merges into the element with the same key fields; the others are appended."""
    if meta is None:
        meta = _list_meta(where)
    # a key field the API server defaults (a port's protocol) may be left out, in the
    # items as in the pod's elements, when the key is the one the schema gives the list
    defaults = dict(meta.defaults) if meta.keys == fields else {}
    compiled: list[_Item] = []
    for number, item in enumerate(items):
        if not is_map(item):
            raise _bad(
                _keyed_text(where, fields, implied, number, f"is {kind_name(item)}"),
                item,
                of_type=True,
                where=(*where, number) if implied else where,
            )
        absent = [
            field
            for field in fields
            if (field in item and isinstance(item[field], Marker))
            or (field not in item and field not in defaults)
        ]
        if absent:
            if not implied and _holds_tags(item):
                raise _bad(
                    f"!merge-by at {_text(where)}: an item with tags inside names its "
                    f"key field{'s' if len(fields) > 1 else ''} ({short_names(fields)})",
                    item,
                    where=where,
                )
            tagged = [field for field in absent if field in item]
            what = (
                f"tags its key field {short_names(tagged)}, which is a plain value"
                if tagged
                else f"has no {short_names(absent)}"
            )
            raise _bad(
                _keyed_text(
                    where, fields, implied, number, f"({short_repr(item)}) {what}", defaults
                ),
                item,
                where=(*where, number) if implied else where,
            )
        values = tuple(item[field] if field in item else defaults[field] for field in fields)
        compiled.append(_Item(fields, values, _compile(item, (*where, number), True)))
    return _KeyedMerge(fields, defaults, tuple(compiled))


def _keyed_text(
    where: _Where,
    fields: tuple[str, ...],
    implied: bool,
    number: int,
    what: str,
    defaults: dict[str, Any] | None = None,
) -> str:
    """What is wrong with item ``number`` of a list merged by ``fields``."""
    names = short_names(fields)
    if defaults:
        names += (
            " ("
            + ", ".join(
                f"{short_repr(field, MAX_NAME, quoted=False)} defaulting to "
                f"{short_repr(value, MAX_NAME, quoted=False)}"
                for field, value in defaults.items()
            )
            + ")"
        )
    plural = len(fields) > 1
    if not implied:
        return (
            f"!merge-by at {_text(where)}: item {number} {what}; the items are maps that "
            f"name the key field{'s' if plural else ''} ({names})"
        )
    field = short_repr(str(where[-1]), MAX_NAME, quoted=False)
    return (
        f"{_text((*where, number))} {what}; inside a !merge-by item {field} merges by "
        f"{names}, as Kubernetes merges it, so each entry is a map that names "
        f"{'them' if plural else 'it'} (write {field}: !append [...] to add entries as "
        f"they are)"
    )


def _holds_tags(value: Any) -> bool:
    """Whether a map holds a marker or an operator key, at any depth of its maps."""
    return any(
        isinstance(item, Marker)
        or (isinstance(key, str) and key.startswith(_OPERATORS))
        or (is_map(item) and _holds_tags(item))
        for key, item in value.items()
    )


class _Item:
    """An item of a list merged by key: its key values, and the item compiled."""

    __slots__ = ("fields", "values", "identity", "compiled", "_fresh")

    def __init__(self, fields: tuple[str, ...], values: tuple[Any, ...], compiled: Any) -> None:
        self.fields = fields
        self.values = values
        self.identity = strict_key(values[0] if len(values) == 1 else values)
        self.compiled = compiled
        self._fresh: Template | None = None

    def template(self) -> Template:
        """The element the item makes where none matches: merged into nothing once,
        on first use (thousands of new volumes are copied, not merged one by one)."""
        if self._fresh is None:
            self._fresh = Template(
                _merge_map({}, self.compiled, (self,), False, Owned()), private=True
            )
        return self._fresh

    def match(self) -> Match:
        """The path part of the element the item merges into, for messages."""
        return Match(zip(self.fields, self.values, strict=True))


class _KeyedMerge:
    """A list merged by key fields, each item by the partial-pod rules (see :func:`_keyed_merge`).

    A pod element matches an item when its key fields equal the item's, a left-out
    field counting as the value the API server defaults it to (a port's ``protocol``
    is ``TCP``); the first such element is merged into; an item that matches none is
    appended, and a later item with its key merges into the appended one."""

    __slots__ = ("fields", "defaults", "items")

    def __init__(
        self, fields: tuple[str, ...], defaults: dict[str, Any], items: tuple[_Item, ...]
    ) -> None:
        self.fields = fields
        self.defaults = defaults
        self.items = items

    def _identity(self, element: Any) -> Any:
        values = []
        for field in self.fields:
            found = element.get(field, MISSING)
            if found is MISSING:
                found = self.defaults.get(field, MISSING)
                if found is MISSING:
                    return MISSING
            values.append(found)
        return strict_key(values[0] if len(values) == 1 else tuple(values))

    def merge(self, old: Any, where: _Where, persistent: bool, owned: Owned) -> Any:
        if old is MISSING or old is None:
            old = empty_seq(persistent)
        elif not is_seq(old) or isinstance(old, str):
            raise _clash(where, old, [])
        positions: dict[Any, int] = {}
        if len(self.fields) == 1 and not self.defaults:  # the common case, kept short
            key = self.fields[0]
            for position, element in enumerate(old):
                if type(element) is dict or is_map(element):
                    found = element.get(key, MISSING)
                    if found is not MISSING:  # strict_key(text) is the text
                        positions.setdefault(
                            found if type(found) is str else strict_key(found), position
                        )
        else:
            for position, element in enumerate(old):
                if is_map(element):
                    identity = self._identity(element)
                    if identity is not MISSING:
                        positions.setdefault(identity, position)
        changes: dict[int, Any] = {}
        appended: list[Any] = []
        size = len(old)
        for item in self.items:
            at = positions.get(item.identity)
            if at is None:
                positions[item.identity] = size + len(appended)
                appended.append((item._fresh or item.template()).fresh(persistent))
            elif at >= size:  # an item appended before, with the same key
                appended[at - size] = _merge_map(
                    appended[at - size], item.compiled, (*where, item), persistent, owned
                )
            else:
                current = changes.get(at, old[at])
                merged = _merge_map(current, item.compiled, (*where, item), persistent, owned)
                if merged is not current:
                    changes[at] = merged
        result = rebuild_seq(old, changes, (), owned) if changes else old
        if appended:
            result = extend_seq(result, appended, None, owned)
        return result


def _check_operator(key: str, where: _Where) -> None:
    """``__put__:`` and ``__del__:`` name the field they are about."""
    if not field_of(key):
        operator = key.rstrip(":")
        raise _bad(
            f"{short_repr(key)} at {_text(where)} names no field; write "
            f"'{operator}:<field>' ({operator}:volumes, say)",
            key,
            where=(*where, key),
        )


def _check_join(key: str, items: Any, where: _Where) -> None:
    field, _, on = key[len(_JOIN) :].partition(":")
    if not field or not on:
        raise _bad(
            f"malformed join key {short_repr(key)} at {_text(where)}; "
            f"write '__join__:<key>:<field>'",
            key,
        )
    if not isinstance(items, list) or not all(is_map(x) for x in items):
        got = (
            kind_name(items)
            if not isinstance(items, list)
            else "a list with an item that is not a map"
        )
        raise _bad(
            f"{short_repr(key)} at {_text(where)} needs a list of maps, got {got}",
            items,
            of_type=True,
        )


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
                    result = _join(
                        result,
                        field,
                        key[len(_JOIN) :].partition(":")[2],
                        _materialize(item),
                        (field,),
                        False,
                        Owned(),
                    )
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


def _path(where: _Where) -> Path:
    """A place in a partial pod (keys, an item's index) or in the pod (keys, matches)."""
    return Path(
        Key(k) if isinstance(k, str) else Index(k) if isinstance(k, int) else k.match()
        for k in where
    )


def _text(where: _Where) -> str:
    return short_repr(_path(where), quoted=False) or "the top level"


class Overlay(Transform):
    """A partial pod, compiled; build it with :func:`overlay`."""

    __slots__ = ("source", "_compiled")
    name = "overlay"

    def __init__(self, source: Any) -> None:
        source = unwrap_torchx(source)
        if not is_map(source):
            raise _bad(
                f"an overlay is a map (a partial pod), got {kind_name(source)}",
                source,
                of_type=True,
            )
        # only JSON-shaped data (and markers around it), not too deep, no cycles
        check_value(
            source, argument="partial_pod", factory="overlay", markers=(Marker,), located=True
        )
        self.source = copy_plain_keep_markers(source)
        self._compiled = _compile(self.source, ())
        self._init_params(self.source)

    def _apply(self, doc: Any, owned: Owned) -> Any:
        if not is_map(doc):
            raise TypeClashError(
                f"an overlay applies to a map, got {kind_name(doc)}",
                expected="a map",
                found=kind_name(doc),
            )
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


def _fresh(value: Any, where: _Where, persistent: bool, owned: Owned) -> Any:
    """A new value for a key the pod lacks."""
    if isinstance(value, _KeyedMerge):
        return value.merge(MISSING, where, persistent, owned)
    if isinstance(value, _Edit):
        return _leaf(value, MISSING, where, persistent, owned)
    if isinstance(value, Marker):
        if isinstance(value, Remove):
            return REMOVE
        value = value.value
    elif type(value) is dict:
        return _merge_map(empty_map(persistent), value, where, persistent, owned)
    plain = copy_plain(value)  # compiled values are plain already: tuples became lists
    return freeze(plain) if persistent else plain


def _leaf(value: _Edit, current: Any, where: _Where, persistent: bool, owned: Owned) -> Any:
    """The tag's edit applied to ``current``; an error it raises without a place is
    given the tag's place in the pod (matched items included)."""
    try:
        return value.edit.leaf(current, persistent, owned)
    except TransformError as err:
        if getattr(err, "path", None) is None:
            err.path = _path(where)
        raise


def _clash(where: _Where, current: Any, value: Any) -> TypeClashError:
    found, given = kind_name(current), kind_name(value)
    # the error's own text adds "(in <path>)"
    return TypeClashError(
        f"type mismatch: the pod has {found}, the overlay {given}",
        path=_path(where),
        expected=given,
        found=found,
    )


def _merge_value(current: Any, value: Any, where: _Where, persistent: bool, owned: Owned) -> Any:
    if current is MISSING:
        return _fresh(value, where, persistent, owned)
    if isinstance(value, _KeyedMerge):
        return value.merge(current, where, persistent, owned)
    if isinstance(value, _Edit):
        if current is not None and (not is_seq(current) or isinstance(current, str)):
            raise _clash(where, current, [])  # named by the path in the pod, matches included
        return _leaf(value, current, where, persistent, owned)
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
            rest = key[len(prefix) :]
            return rest.split(":", 1)[0] if prefix == _JOIN else rest
    return key


def _drop_operator_keys(base: Any, field: str, owned: Owned) -> Any:
    """``base`` without the operator keys about ``field``, as upstream resolves a conflict."""
    stale = [
        key
        for key in base
        if isinstance(key, str) and key.startswith(_OPERATORS) and field_of(key) == field
    ]
    for key in stale:
        base = delete_key(base, key, owned)
    return base


def _merge_map(base: Any, ov: dict[str, Any], where: _Where, persistent: bool, owned: Owned) -> Any:
    result = base
    # Upstream lets the last operation on a field win over operator keys the
    # base map holds (stored, unresolved overlays); a pod rarely has any.
    conflicts = _has_operator_keys(base)
    for key, value in ov.items():
        if conflicts:
            result = _drop_operator_keys(result, field_of(key), owned)
        if key.startswith("__"):
            if key.startswith(_PUT):
                field = key[len(_PUT) :]
                current = result.get(field, MISSING)
                if current is MISSING or not strict_equal(current, value):
                    plain = copy_plain(value)
                    result = set_key(result, field, freeze(plain) if persistent else plain, owned)
                continue
            if key.startswith(_DEL):
                field = key[len(_DEL) :]
                if field in result:
                    result = delete_key(result, field, owned)
                continue
            if key.startswith(_JOIN):
                field, _, on = key[len(_JOIN) :].partition(":")
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


def _join(
    base: Any, field: str, on: str, items: list[Any], where: _Where, persistent: bool, owned: Owned
) -> Any:
    """Upstream's JOIN: matched items overwrite top-level fields; others append."""
    current = base.get(field, MISSING)
    if current is MISSING:
        plain = copy_plain(items)
        return set_key(base, field, freeze(plain) if persistent else plain, owned)
    if not is_seq(current) or not all(is_map(element) for element in current):
        found = (
            kind_name(current) if not is_seq(current) else "a list with an item that is not a map"
        )
        raise TypeClashError(
            f"join needs a list of maps; the pod has {found}",
            path=_path(where),
            expected="a list of maps",
            found=found,
        )
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
