"""Kubernetes client objects and API-form data: one converter each way.

:func:`to_data` turns a client object (``V1Pod``, ``V1PodSpec``, any model of
the ``kubernetes`` client) into plain API-form data, and a client-style dict
(``V1Pod.to_dict()``, snake_case keys) into API form by the schema.
:func:`to_client` turns API-form data back into the client object.

Both walk each model class's fields (``attribute_map``, ``openapi_types``),
learnt once per class: the client's own ``sanitize_for_serialization`` and
``ApiClient.deserialize`` give the same results but inspect every value
generically and, going in, build a configuration per object, which matters
on every pod of a large job.

>>> from kubernetes.client import V1Container, V1Pod, V1PodSpec
>>> pod = V1Pod(spec=V1PodSpec(containers=[V1Container(name="c", image_pull_policy="Always")]))
>>> to_data(pod)
{'spec': {'containers': [{'imagePullPolicy': 'Always', 'name': 'c'}]}}
>>> to_client(to_data(pod), "V1Pod") == pod
True
"""

from __future__ import annotations

import datetime
import functools
import importlib
import re
from collections.abc import Callable, Mapping
from typing import Any

from combinators.errors import ArgumentError, ArgumentTypeError, TransformError
from combinators.limits import short_repr
from combinators.near import did_you_mean, near_misses
from transforms.kube.kinds import check_kind
from transforms.kube.schema import Field, Schema, Type, schema_for

__all__ = ("ConversionError", "to_data", "to_client", "pod_to_dict")

_SCALARS = (str, int, float, bool)


class ConversionError(TransformError, TypeError):
    """Data that cannot become the client object asked for; says where and what was there.

    >>> to_client({"spec": {"containers": {"name": "c"}}}, "V1Pod")
    Traceback (most recent call last):
      ...
    transforms.kube.convert.ConversionError: spec.containers: expected a list for list[V1Container], found dict {'name': 'c'}
    """

    def __init__(self, where: str, message: str, found: Any = None) -> None:
        super().__init__(f"{short_repr(where, quoted=False) if where else '(root)'}: {message}")
        self.where = where
        self.found = found


# ---------------------------------------------------------------------------
# client objects -> data


@functools.cache
def _fields(cls: Any) -> tuple[tuple[str, str, str], ...]:
    """(python name, stored attribute, JSON key) of a client model class, in the client's order.

    Clients up to 36 keep a field ``name`` in ``_name`` behind a property
    (``_exec`` in the name-mangled ``_V1Probe__exec``); later ones, pydantic
    models, keep it in the model field whose alias is ``name`` (``var_exec``).
    """
    attribute_map: dict[str, str] = getattr(cls, "attribute_map", {})
    model_fields: dict[str, Any] = getattr(cls, "model_fields", None) or {}
    by_alias = {
        getattr(info, "alias", None) or field: field for field, info in model_fields.items()
    }
    fields = []
    for name, key in attribute_map.items():
        if name in by_alias:
            attribute = by_alias[name]
        elif isinstance(getattr(cls, name, None), property):
            attribute = "_" + name
            if attribute.startswith("__"):
                attribute = f"_{cls.__name__.lstrip('_')}{attribute}"
        else:
            attribute = name
        fields.append((name, attribute, key))
    return tuple(fields)


def _is_model(value: Any) -> bool:
    return hasattr(type(value), "attribute_map") and hasattr(value, "__dict__")


# values that are their own plain data: kept as they are, without a call
_LEAVES = frozenset({str, int, float, bool, type(None), bytes})


def _model_data(value: Any) -> Any:
    """Plain data for a client model, a list, a dict or a scalar; ``None`` fields dropped."""
    cls: Any = type(value)
    if cls in _LEAVES:
        return value
    if cls is list or cls is tuple:
        return [item if type(item) in _LEAVES else _model_data(item) for item in value]
    if cls is dict:
        return {
            key: item if type(item) in _LEAVES else _model_data(item) for key, item in value.items()
        }
    convert = _OBJECT_DATA.get(cls)
    if convert is not None:
        return convert(value)
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    if getattr(value, "__dict__", None) is None or not hasattr(cls, "attribute_map"):
        raise ConversionError("", f"cannot turn {cls.__name__} into plain data", value)
    return _object_data(cls)(value)


# model class -> its compiled converter (:func:`_object_data`); a cache, filled once per class
_OBJECT_DATA: dict[type, Callable[[Any], dict[str, Any]]] = {}


def _object_data(cls: type) -> Callable[[Any], dict[str, Any]]:
    """The converter of one model class's objects: straight-line code, one test per field.

    Every pod TorchX renders is walked (some 30 model objects and lists a
    pod, 20 to 40 fields a model class, most of them unset): reading each
    field by name, with no loop and no call for a scalar, takes about two
    thirds of the time of a loop over the fields.
    """
    lines = ["def convert(value):", "    stored = value.__dict__", "    out = {}"]
    for _, attribute, key in _fields(cls):
        lines += [
            f"    item = stored.get({attribute!r})",
            "    if item is not None:",
            f"        out[{key!r}] = item if type(item) in leaves else data(item)",
        ]
    lines.append("    return out")
    names: dict[str, Any] = {"leaves": _LEAVES, "data": _model_data}
    code = compile("\n".join(lines), f"<to_data of {cls.__name__}>", "exec")
    # the source is ours: field names and keys enter only as repr() literals
    exec(code, names)
    convert: Callable[[Any], dict[str, Any]] = names["convert"]
    _OBJECT_DATA[cls] = convert
    return convert


def _plain(value: Any) -> Any:
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if _is_model(value):
        return _model_data(value)
    return value


def _convert(value: Any, shape: Field, schema: Schema) -> Any:
    kind = shape.kind
    if kind == "object" and shape.ref is not None and isinstance(value, Mapping):
        return _convert_object(value, schema.types[shape.ref], schema)
    if kind == "list" and shape.item is not None and isinstance(value, (list, tuple)):
        return [None if item is None else _convert(item, shape.item, schema) for item in value]
    if kind == "map" and shape.item is not None and isinstance(value, Mapping):
        return {
            key: None if item is None else _convert(item, shape.item, schema)
            for key, item in value.items()
        }
    return _plain(value)


def _convert_object(value: Mapping[str, Any], type_: Type, schema: Schema) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in value.items():
        if item is None:
            continue
        name = key if key in type_.fields else type_.alias(key)
        if name is None:  # unknown: kept as written, so validation can name it
            out[key] = _plain(item)
        else:
            out[name] = _convert(item, type_.fields[name], schema)
    return out


def to_data(value: Any, kind: str = "Pod", *, k8s_version: str | None = None) -> Any:
    """API-form data (camelCase keys, plain dicts and lists) for a client object or a dict.

    A client model object (any class of ``kubernetes.client``, a list of
    them) is walked field by field; ``kind`` is not needed. A mapping is read
    as a ``kind`` (``Pod``, ``PodSpec``, ``PodTemplateSpec``) in client style
    or API form, and its field names become the schema's spelling
    (``node_selector`` -> ``nodeSelector``, ``_exec`` -> ``exec``,
    ``pod_ips`` -> ``podIPs``; the ``k8s_version`` schema, default the newest).
    Either way, fields set to ``None`` are dropped and datetimes become ISO
    strings; keys of free-form maps (labels, annotations, nodeSelector,
    resource limits) and keys the schema does not know are kept as written.
    Always a new value; the input is left alone.

    >>> from kubernetes.client import V1Probe, V1ExecAction
    >>> to_data(V1Probe(_exec=V1ExecAction(command=["true"]), period_seconds=5))
    {'exec': {'command': ['true']}, 'periodSeconds': 5}
    >>> to_data({"api_version": "v1", "metadata": {"labels": {"team_name": "ml"}},
    ...          "spec": {"node_selector": {"gpu_type": "a100"}, "host_ipc": None}})
    {'apiVersion': 'v1', 'metadata': {'labels': {'team_name': 'ml'}}, 'spec': {'nodeSelector': {'gpu_type': 'a100'}}}
    """
    if isinstance(value, Mapping):
        schema = schema_for(k8s_version)
        return _convert_object(value, schema.root(check_kind(kind, factory="to_data")), schema)
    return _model_data(value)


def pod_to_dict(pod: Any) -> dict[str, Any]:
    """A pod as API-form data, fast: :func:`to_data`, except that a dict is returned as it is.

    >>> pod = {"spec": {}}
    >>> pod_to_dict(pod) is pod
    True
    """
    if isinstance(pod, dict):
        return pod
    result: dict[str, Any] = to_data(pod)
    return result


# ---------------------------------------------------------------------------
# data -> client objects

# Where a value is, while building: nested pairs (parent, key), rendered only for errors.
_Trail = Any
_Decode = Callable[[Any, _Trail], Any]
_NATIVE: dict[str, type] = {"str": str, "int": int, "float": float, "bool": bool}
_LIST = re.compile(r"list\[(.*)\]$")
_DICT = re.compile(r"dict\[([^,]*), (.*)\]$")
# clients up to 36 spell container types ``list[V1Container]``, ``dict[str, str]``;
# 37 (pydantic models) ``List[V1Container]``, ``Dict[str, str]``
_GENERIC = re.compile(r"\b(List|Dict)\[")


def _where(trail: _Trail) -> str:
    keys: list[Any] = []
    while trail is not None:
        trail, key = trail
        keys.append(key)
    text = ""
    for key in reversed(keys):
        text += f"[{key}]" if type(key) is int else (f".{key}" if text else str(key))
    return text


def _fail(trail: _Trail, message: str, found: Any) -> ConversionError:
    return ConversionError(_where(trail), message, found)


def _found(value: Any) -> str:
    return f"{type(value).__name__} {short_repr(value, 60)}"


def _model_class(name: str) -> Any:
    import kubernetes.client.models as models  # heavy: imported on first use only

    cls = getattr(models, name, None)
    if not isinstance(cls, type) or not hasattr(cls, "openapi_types"):
        return None
    return cls


@functools.cache
def _decoder(openapi_type: str, strict: bool = False) -> _Decode:
    """How to turn API data into a value of a client type name (``list[V1Container]``, ``int``)."""
    openapi_type = _GENERIC.sub(lambda match: match.group(0).lower(), openapi_type)
    if (match := _LIST.match(openapi_type)) is not None:
        item = _decoder(match.group(1), strict)

        def decode_list(value: Any, trail: _Trail) -> Any:
            if type(value) is not list and (
                isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__")
            ):
                raise _fail(
                    trail, f"expected a list for {openapi_type}, found {_found(value)}", value
                )
            return [
                None if element is None else item(element, (trail, index))
                for index, element in enumerate(value)
            ]

        return decode_list
    if (match := _DICT.match(openapi_type)) is not None:
        item = _decoder(match.group(2), strict)

        def decode_dict(value: Any, trail: _Trail) -> Any:
            if not isinstance(value, Mapping):
                raise _fail(
                    trail, f"expected a map for {openapi_type}, found {_found(value)}", value
                )
            return {
                key: None if element is None else item(element, (trail, key))
                for key, element in value.items()
            }

        return decode_dict
    if openapi_type in _NATIVE:
        return _primitive(_NATIVE[openapi_type])
    if openapi_type == "object":
        return lambda value, trail: value
    if openapi_type == "bytes":  # 37's name for base64 data (a Secret's): kept as written
        return _bytes
    if openapi_type in ("datetime", "date"):
        return _time_decoder(openapi_type)
    cls = _model_class(openapi_type)
    if cls is None:
        raise ConversionError("", f"the kubernetes client has no type {openapi_type!r}")
    return lambda value, trail: _build(cls, value, trail, strict)


def _primitive(native: type) -> _Decode:
    def decode(value: Any, trail: _Trail) -> Any:
        if type(value) is native:
            return value
        if isinstance(value, _SCALARS):  # as the client does: "2" for 2 in a str field
            try:
                return native(value)
            except ValueError:
                pass
        raise _fail(trail, f"expected {native.__name__}, found {_found(value)}", value)

    return decode


def _bytes(value: Any, trail: _Trail) -> Any:
    if isinstance(value, (str, bytes)):
        return value
    raise _fail(trail, f"expected base64 data (a string), found {_found(value)}", value)


def _time_decoder(openapi_type: str) -> _Decode:
    def decode(value: Any, trail: _Trail) -> Any:
        if isinstance(value, (datetime.datetime, datetime.date)):
            return value
        # the client's own parser (dateutil, a dependency of the client), for the same results
        parse = importlib.import_module("dateutil.parser").parse
        try:
            parsed = parse(value)
        except (ValueError, TypeError, OverflowError):
            raise _fail(trail, f"expected a {openapi_type}, found {_found(value)}", value) from None
        return parsed.date() if openapi_type == "date" else parsed

    return decode


# A field of a model class, for building: where its value goes (the stored
# attribute, or the keyword of the class), the Python type a value of it has
# when it needs no conversion (str for a str field; else None), and its decoder.
_Slot = tuple[str, "type | None", _Decode]


@functools.cache
def _plan(cls: Any, strict: bool = False) -> tuple[dict[str, _Slot], dict[str, Any], bool]:
    """For a model class: JSON key -> slot, the blank ``__dict__`` of a new object, and
    whether objects are built by setting it directly (else by calling the class).

    37's pydantic models are built directly too (``model_construct``): their
    validation would refuse, say, a pod spec without containers, which older
    clients build without a word and :mod:`transforms.checks` reports better.
    """
    types: dict[str, str] = cls.openapi_types
    fields = _fields(cls)
    pydantic = bool(getattr(cls, "model_fields", None))
    direct = pydantic or all(attribute != name for name, attribute, _ in fields)
    by_key = {
        key: (
            attribute if direct else name,
            _NATIVE.get(types[name]),
            _decoder(types[name], strict),
        )
        for name, attribute, key in fields
    }
    blank: dict[str, Any] = {attribute: None for _, attribute, _ in fields}
    if not pydantic:
        blank["discriminator"] = None
    return by_key, blank, direct


@functools.cache
def _configuration() -> Any:
    """The configuration objects built here carry, made once like an ``ApiClient``'s.

    The client's models read only ``client_side_validation`` from it, when a
    field is set later; ``ApiClient.deserialize`` likewise shares its own.
    """
    from kubernetes.client import Configuration

    return Configuration.get_default_copy()


def _build(cls: Any, value: Any, trail: _Trail, strict: bool = False) -> Any:
    if type(value) is not dict and not isinstance(value, Mapping):
        raise _fail(trail, f"expected a map for {cls.__name__}, found {_found(value)}", value)
    by_key, blank, direct = _plan(cls, strict)
    state = dict(blank) if direct else {}
    get = by_key.get
    for key, item in value.items():
        slot = get(key)
        if slot is None or item is None:  # unknown keys are left out, as the client does
            if strict and slot is None and item is not None:
                raise _unknown(cls, key, item, trail, by_key)
            continue
        target, native, decode = slot
        state[target] = item if type(item) is native else decode(item, (trail, key))
    if not direct:
        return cls(**state)
    if hasattr(cls, "model_construct"):
        # 37's pydantic models, built without their validation, as older clients' are
        return cls.model_construct(**state)
    state["local_vars_configuration"] = _configuration()
    built = cls.__new__(cls)
    built.__dict__.update(state)
    return built


def _unknown(
    cls: Any, key: str, item: Any, trail: _Trail, known: Mapping[str, Any]
) -> ConversionError:
    hint = did_you_mean(near_misses(key, list(known)))
    return _fail(
        (trail, key),
        f"{cls.__name__} has no field {short_repr(key)}{hint} (this "
        f"kubernetes "
        f"client would drop it), found {_found(item)}",
        item,
    )


def _resolve(model: Any) -> Any:
    if isinstance(model, str):
        cls = _model_class(model)
        if cls is None:
            raise ArgumentError(
                f"no kubernetes client model named {short_repr(model)} (such as 'V1Pod')",
                argument="model",
                factory="to_client",
                value=model,
            )
        return cls
    if (
        isinstance(model, type)
        and hasattr(model, "openapi_types")
        and hasattr(model, "attribute_map")
    ):
        return model
    raise ArgumentTypeError(
        f"expected a kubernetes client model class or its name, found {_found(model)}",
        argument="model",
        factory="to_client",
        value=model,
    )


def to_client(data: Any, model: Any, *, strict: bool = False) -> Any:
    """The kubernetes client object of class ``model`` (``"V1Pod"`` or the class) for API data.

    Nested objects, lists and maps become their client types; datetimes are
    parsed; a scalar of another type is converted as the client does (``2``
    in a ``str`` field becomes ``"2"``). Keys the class does not know are left
    out and ``None`` fields stay unset, as ``ApiClient.deserialize`` does; the
    client's own field checks (a container must have a name) are not run:
    :mod:`transforms.checks` checks pods, with better messages. Data of the
    wrong shape raises :class:`ConversionError`, naming the path; so does,
    with ``strict=True``, a key the class does not know, with the near misses
    (nothing an overlay wrote is dropped without a word).

    >>> probe = to_client({"exec": {"command": ["true"]}, "periodSeconds": 5}, "V1Probe")
    >>> probe._exec.command, probe.period_seconds
    (['true'], 5)
    >>> to_client({}, "V1Nope")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: to_client(): model: no kubernetes client model named 'V1Nope' (such as 'V1Pod')
    >>> to_client({"spec": {"nodeSelectr": {"gpu": "a100"}}}, "V1Pod", strict=True)
    Traceback (most recent call last):
      ...
    transforms.kube.convert.ConversionError: spec.nodeSelectr: V1PodSpec has no field 'nodeSelectr'; did you mean nodeSelector? (this kubernetes client would drop it), found dict {'gpu': 'a100'}
    """
    return _build(_resolve(model), data, None, strict)
