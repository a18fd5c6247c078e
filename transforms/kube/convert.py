"""Kubernetes client objects (``V1Pod`` and the rest) to plain API-form data.

The client's own ``ApiClient.sanitize_for_serialization`` gives the same
result, but it inspects every value generically; this walk knows each model
class's fields once, which matters on every pod of a large job.

>>> from kubernetes.client import V1Pod, V1PodSpec, V1Container
>>> pod_to_dict(V1Pod(spec=V1PodSpec(containers=[V1Container(name="c", image_pull_policy="Always")])))
{'spec': {'containers': [{'imagePullPolicy': 'Always', 'name': 'c'}]}}
"""

from __future__ import annotations

import datetime
from functools import cache
from typing import Any

__all__ = ("pod_to_dict", "model_to_dict")

_SCALARS = (str, int, float, bool)


@cache
def _fields(cls: Any) -> tuple[tuple[str, str], ...]:
    """(stored attribute, JSON key) of a client model class, in the client's order.

    Clients up to 36 keep a field ``name`` in ``_name`` behind a property
    (``_exec`` in the name-mangled ``_V1Probe__exec``); later ones, pydantic
    models, keep it in the model field whose alias is ``name`` (``var_exec``).
    """
    attribute_map: dict[str, str] = getattr(cls, "attribute_map", {})
    model_fields: dict[str, Any] = getattr(cls, "model_fields", None) or {}
    by_alias = {getattr(info, "alias", None) or field: field
                for field, info in model_fields.items()}
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
        fields.append((attribute, key))
    return tuple(fields)


def model_to_dict(value: Any) -> Any:
    """Plain data for a client model, a list, a dict or a scalar; ``None`` fields dropped."""
    cls: Any = type(value)
    if cls in _SCALARS or value is None:
        return value
    if cls is list or cls is tuple:
        return [model_to_dict(item) for item in value]
    if cls is dict:
        return {key: model_to_dict(item) for key, item in value.items()}
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    stored = getattr(value, "__dict__", None)
    if stored is None or not hasattr(cls, "attribute_map"):
        raise TypeError(f"cannot turn {cls.__name__} into plain data")
    out: dict[str, Any] = {}
    for attribute, key in _fields(cls):
        item = stored.get(attribute)
        if item is not None:
            out[key] = model_to_dict(item)
    return out


def pod_to_dict(pod: Any) -> dict[str, Any]:
    """A pod as plain API-form data; a dict is returned as it is."""
    if isinstance(pod, dict):
        return pod
    result: dict[str, Any] = model_to_dict(pod)
    return result
