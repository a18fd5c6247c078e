"""The official schema of a Kubernetes version, compiled into checks of pods, fast.

What is checked: unknown fields (with a suggestion), wrong JSON types, enum
values, missing required fields, int-or-string values and quantities
(``"2Gi"``, ``"500m"``; not ``"2 GB"``), 32/64-bit integer ranges.

Deliberate differences from a JSON Schema validator on the official schema:
unknown fields are reported (the plain schema allows them, its ``-strict``
twin does not), quantity strings must parse, and integers must fit their
int32/int64 format. The schema of each version is compiled once into
closures, one per type, and reused for every pod: the closures test the
common case (a string or a boolean, as declared) with one type lookup.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from combinators.limits import short_repr
from combinators.near import did_you_mean
from transforms.checks.problems import PathMessage, Raw, Trail
from transforms.kube.quantity import QuantityRangeError, is_quantity, quantity_value
from transforms.kube.schema import Field, Schema, Type, schema_for, suggest_field

__all__ = ("Checker", "checker_for")

#: A compiled check: ``check(value, trail, key, out)`` appends raw findings to ``out``.
Checker = Callable[[Any, Trail, Any, list[Raw]], None]

_EXACT: dict[str, type] = {"string": str, "boolean": bool}
_INT_RANGE = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _expected(want: str) -> Callable[[Any], str]:
    return lambda found: f"expected {want}, found {_type_name(found)} {short_repr(found, 60)}"


def _is_integral(value: Any) -> bool:
    kind = type(value)
    if kind is int:
        return True
    if kind is bool:
        return False
    if kind is float:
        return bool(value.is_integer())
    return isinstance(value, int) and not isinstance(value, bool)


class _Compiler:
    """Turns the types of one schema into checker closures, one per type, lazily."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self.objects: dict[str, Checker] = {}
        # a type's name -> its field lookup and required fields (filled as it is compiled)
        self.shapes: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {}

    def object_checker(self, type_: Type) -> Checker:
        found = self.objects.get(type_.name)
        if found is not None:
            return found
        table: dict[str, tuple[Checker | None, bool, Field]] = {}
        # a field's Python type when one exact type check settles it, else its table entry
        lookup: dict[str, type | tuple[Checker | None, bool, Field]] = {}
        required = type_.required
        wrong = _expected("object")
        unknown = _Unknown(type_)

        def check(value: Any, trail: Trail, key: Any, out: list[Raw]) -> None:
            if type(value) is not dict:
                out.append((trail, key, wrong, value, "error"))
                return
            here = (trail, key)
            get = lookup.get
            for name, item in value.items():
                entry = get(name)
                if entry is type(item):  # the common case: a string or a boolean, as declared
                    continue
                if entry is None:
                    out.append((here, name, unknown, item, "error"))
                    continue
                if type(entry) is not tuple:
                    entry = table[name]
                if item is None:
                    if not entry[1]:
                        out.append((here, name, _expected_for(entry[2]), item, "error"))
                elif entry[0] is not None:
                    entry[0](item, here, name, out)
            if required:
                for name in required:
                    if name not in value:
                        out.append((here, name, f"missing required field {name}", None, "error"))

        self.objects[type_.name] = check  # before compiling fields: types may recurse
        self.shapes[type_.name] = (lookup, required)
        for name, field in type_.fields.items():
            table[name] = (self.checker(field), field.nullable, field)
            if field.kind == "scalar" and not field.enum and field.json_type in _EXACT:
                lookup[name] = _EXACT[field.json_type]
            else:
                lookup[name] = table[name]
        return check

    def checker(self, field: Field) -> Checker | None:
        """The checker of a non-null value of this field; ``None`` accepts anything."""
        kind = field.kind
        if kind == "object" and field.ref is not None:
            return self.object_checker(self.schema.types[field.ref])
        if kind == "list" and field.item is not None:
            item = field.item
            if item.kind == "object" and item.ref is not None:
                item_check = self.object_checker(self.schema.types[item.ref])
                return _object_list_checker(item_check, item, *self.shapes[item.ref])
            return _list_checker(self.checker(item), item)
        if kind == "map" and field.item is not None:
            return _map_checker(self.checker(field.item), field.item)
        if kind == "quantity":
            return _check_quantity
        if kind == "int-or-string":
            return _check_int_or_string
        if kind == "scalar":
            return _scalar_checker(field)
        if field.json_type == "object":  # free-form, but still an object
            return _check_free_object
        return None


def _expected_for(field: Field) -> Callable[[Any], str]:
    names = {
        "object": "object",
        "list": "list",
        "map": "object",
        "any": field.json_type or "value",
        "int-or-string": "integer or string",
        "quantity": "quantity",
    }
    return _expected(field.json_type or "value" if field.kind == "scalar" else names[field.kind])


class _Unknown(PathMessage):
    """The message of an unknown field; knows the type, to suggest a field."""

    __slots__ = ("type_",)

    def __init__(self, type_: Type) -> None:
        self.type_ = type_

    def text(self, where: str, key: str) -> str:
        suggestion = suggest_field(self.type_, key)
        hint = did_you_mean((suggestion,)) if suggestion is not None else ""
        return f"unknown field {short_repr(where, quoted=False)}{hint}"


def _list_checker(item_check: Checker | None, item: Field) -> Checker:
    nullable = item.nullable
    wrong = _expected("list")
    wrong_item = _expected_for(item)
    if item_check is _check_string:

        def check_strings(value: Any, trail: Trail, key: Any, out: list[Raw]) -> None:
            if type(value) is not list:
                out.append((trail, key, wrong, value, "error"))
                return
            for element in value:
                if type(element) is not str:
                    break
            else:
                return
            _list_items((trail, key), value, item_check, nullable, wrong_item, out)

        return check_strings

    def check(value: Any, trail: Trail, key: Any, out: list[Raw]) -> None:
        if type(value) is not list:
            out.append((trail, key, wrong, value, "error"))
            return
        here = (trail, key)
        for index, element in enumerate(value):
            if element is None:
                if not nullable:
                    out.append((here, index, wrong_item, element, "error"))
            elif item_check is not None:
                item_check(element, here, index, out)

    return check


def _object_list_checker(
    item_check: Checker, item: Field, lookup: dict[str, Any], required: tuple[str, ...]
) -> Checker:
    """The check of a list of objects, settling the common element without a call.

    Most elements of the lists of a pod (env vars, ports, mounts) hold only
    strings and booleans, as declared, and their required fields: such an
    element has nothing to report, which one pass over its items shows.
    Any other element gets the object's whole check.
    """
    nullable = item.nullable
    wrong = _expected("list")
    wrong_item = _expected_for(item)
    get = lookup.get

    def check(value: Any, trail: Trail, key: Any, out: list[Raw]) -> None:
        if type(value) is not list:
            out.append((trail, key, wrong, value, "error"))
            return
        here = (trail, key)
        for index, element in enumerate(value):
            if type(element) is dict:
                for name, field_value in element.items():
                    if get(name) is not type(field_value):  # not a string or boolean as declared
                        break
                else:
                    for name in required:
                        if name not in element:
                            break
                    else:
                        continue
            elif element is None:
                if not nullable:
                    out.append((here, index, wrong_item, element, "error"))
                continue
            item_check(element, here, index, out)

    return check


def _list_items(
    here: Trail,
    value: list[Any],
    item_check: Checker,
    nullable: bool,
    wrong_item: Callable[[Any], str],
    out: list[Raw],
) -> None:
    for index, element in enumerate(value):
        if element is None:
            if not nullable:
                out.append((here, index, wrong_item, element, "error"))
        else:
            item_check(element, here, index, out)


def _map_checker(item_check: Checker | None, item: Field) -> Checker:
    nullable = item.nullable
    wrong = _expected("object")
    wrong_item = _expected_for(item)
    if item_check is _check_string:

        def check_strings(value: Any, trail: Trail, key: Any, out: list[Raw]) -> None:
            if type(value) is not dict:
                out.append((trail, key, wrong, value, "error"))
                return
            for name, element in value.items():
                if type(element) is not str or type(name) is not str:
                    break
            else:
                return
            here = (trail, key)
            for name, element in value.items():
                if type(name) is not str:
                    out.append((trail, key, _key_not_string, name, "error"))
                elif element is None:
                    if not nullable:
                        out.append((here, name, wrong_item, element, "error"))
                else:
                    item_check(element, here, name, out)

        return check_strings

    def check(value: Any, trail: Trail, key: Any, out: list[Raw]) -> None:
        if type(value) is not dict:
            out.append((trail, key, wrong, value, "error"))
            return
        here = (trail, key)
        for name, element in value.items():
            if type(name) is not str:
                out.append((trail, key, _key_not_string, name, "error"))
            elif element is None:
                if not nullable:
                    out.append((here, name, wrong_item, element, "error"))
            elif item_check is not None:
                item_check(element, here, name, out)

    return check


def _key_not_string(found: Any) -> str:
    return f"the keys of a map must be strings, found {_type_name(found)} {short_repr(found, 60)}"


def _scalar_checker(field: Field) -> Checker:
    json_type, enum = field.json_type, field.enum
    wrong = _expected(json_type or "value")
    if enum:
        allowed = frozenset(enum)

        def check_enum(value: Any, trail: Trail, key: Any, out: list[Raw]) -> None:
            if type(value) is not str and not isinstance(value, str):
                out.append((trail, key, wrong, value, "error"))
            elif value not in allowed:
                out.append(
                    (
                        trail,
                        key,
                        f"{short_repr(value, 60)} is not one of: " + ", ".join(map(str, enum)),
                        value,
                        "error",
                    )
                )

        return check_enum
    if json_type == "string":
        return _check_string
    if json_type == "boolean":
        return _check_boolean
    if json_type == "number":
        return _check_number
    if json_type == "integer":
        low, high = _INT_RANGE.get(field.format or "int64", _INT_RANGE["int64"])
        fmt = field.format or "int64"

        def check_integer(value: Any, trail: Trail, key: Any, out: list[Raw]) -> None:
            if type(value) is not int and not _is_integral(value):
                out.append((trail, key, wrong, value, "error"))
            elif not low <= value <= high:
                out.append(
                    (
                        trail,
                        key,
                        f"{short_repr(value, 60)} is out of range for {fmt}",
                        value,
                        "error",
                    )
                )

        return check_integer
    raise ValueError(f"unexpected JSON type {json_type!r} for {field.name}")  # pragma: no cover


_WRONG_STRING, _WRONG_BOOLEAN = _expected("string"), _expected("boolean")
_WRONG_NUMBER, _WRONG_INT_OR_STRING = _expected("number"), _expected("integer or string")
_WRONG_OBJECT = _expected("object")


def _check_string(value: Any, trail: Trail, key: Any, out: list[Raw]) -> None:
    if type(value) is not str and not isinstance(value, str):
        out.append((trail, key, _WRONG_STRING, value, "error"))


def _check_boolean(value: Any, trail: Trail, key: Any, out: list[Raw]) -> None:
    if type(value) is not bool:
        out.append((trail, key, _WRONG_BOOLEAN, value, "error"))


def _check_number(value: Any, trail: Trail, key: Any, out: list[Raw]) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        out.append((trail, key, _WRONG_NUMBER, value, "error"))


def _check_free_object(value: Any, trail: Trail, key: Any, out: list[Raw]) -> None:
    if not isinstance(value, dict):
        out.append((trail, key, _WRONG_OBJECT, value, "error"))


def _check_int_or_string(value: Any, trail: Trail, key: Any, out: list[Raw]) -> None:
    if type(value) is not str and not isinstance(value, str) and not _is_integral(value):
        out.append((trail, key, _WRONG_INT_OR_STRING, value, "error"))


def _bad_quantity(value: Any) -> str:
    if isinstance(value, str):
        return f"{short_repr(value, 60)} is not a quantity (such as '500m', '2Gi', '1.5')"
    return f"expected quantity, found {_type_name(value)} {short_repr(value, 60)}"


def _out_of_range(value: Any) -> str:
    return QuantityRangeError(value).message


@functools.lru_cache(maxsize=4096)
def _text_verdict(text: str) -> Callable[[Any], str] | None:
    """What is wrong with a quantity written as text (``None``: nothing).

    Pods repeat a handful of quantities ('1', '500m', '2Gi'): each is read once.
    """
    if not is_quantity(text):
        return _bad_quantity
    try:
        quantity_value(text)
    except QuantityRangeError:
        return _out_of_range
    return None


def _check_quantity(value: Any, trail: Trail, key: Any, out: list[Raw]) -> None:
    if type(value) is str:
        wrong = _text_verdict(value)
        if wrong is not None:
            out.append((trail, key, wrong, value, "error"))
        return
    try:
        found = quantity_value(value)
    except QuantityRangeError:
        out.append((trail, key, _out_of_range, value, "error"))
        return
    if found is None:
        out.append((trail, key, _bad_quantity, value, "error"))


@functools.cache
def checker_for(version: str, kind: str = "Pod") -> Checker:
    """The compiled check of a root ``kind`` of a schema ``version`` (as ``Schema.version`` spells it).

    Built on first use and reused. A check is called as
    ``check(value, trail, key, out)`` and appends raw findings
    (:data:`~transforms.checks.problems.Raw`) to ``out``.

    >>> from transforms.checks.problems import render
    >>> pod, out = {"metadata": {"name": 7}}, []
    >>> checker_for("1.37")(pod, None, None, out)
    >>> [render(pod, raw, "schema").message for raw in out]
    ['expected string, found integer 7']
    """
    schema = schema_for(version)
    return _Compiler(schema).object_checker(schema.root(kind))
