"""Every form an overlay comes in, made into one transform.

>>> t = as_transform({"spec": {"nodeSelector": {"gpu": "a100"}}})
>>> t
overlay({'spec': {'nodeSelector': {'gpu': 'a100'}}})
>>> as_transform([{"op": "add", "path": "/spec/hostIPC", "value": True}])({"spec": {}})
{'spec': {'hostIPC': True}}
>>> as_transform(t) is t
True
"""

from __future__ import annotations

import os
from typing import Any

from combinators import ArgumentTypeError, Transform, chain
from combinators.data import is_map
from combinators.limits import short_repr
from transforms.forms.catalog import Catalog
from transforms.forms.partial import overlay
from transforms.forms.patches import json_patch
from transforms.io.loading import load_overlay

__all__ = ("as_transform", "OverlayLike")

OverlayLike = Any
"""A transform, a callable ``pod -> pod``, a dict, a list, a string or a path."""


def _is_json_patch(items: list[Any]) -> bool:
    return bool(items) and all(
        is_map(item) and "op" in item and "path" in item and isinstance(item.get("op"), str)
        for item in items
    )


def as_transform(value: OverlayLike, catalog: Catalog | None = None) -> Transform:
    """The transform ``value`` stands for.

    - a transform: itself; any other callable ``pod -> pod``: a composition
      of that one step (``chain(fn)``), whose exceptions come out as
      :class:`~combinators.StepError` naming it;
    - a dict: a partial pod with TorchX's overlay semantics (:func:`transforms.forms.partial`),
      upstream's ``{"__torchx_overlays__": True, "V1Pod": {...}}`` container included;
    - a list of RFC 6902 operations (maps with ``op`` and ``path``): :func:`json_patch`;
      any other list: each item normalised, applied in order;
    - a string or ``os.PathLike``: a YAML file loaded with :func:`load_overlay`
      (a path or any fsspec URI; ``catalog`` names the recipes it may use).

    Anything else is an :class:`~combinators.ArgumentTypeError` (a ``TypeError``).

    >>> as_transform(42)
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentTypeError: as_transform(): value: cannot make an overlay of int: 42; give a transform, a function pod -> pod, a dict, a list or a YAML path
    """
    if isinstance(value, Transform):
        return value
    if callable(value):
        return chain(value)
    if is_map(value):
        return overlay(value)
    if isinstance(value, (str, os.PathLike)):
        return load_overlay(value, catalog=catalog)
    if isinstance(value, (list, tuple)):
        items = list(value)
        if _is_json_patch(items):
            return json_patch(items)
        return chain(*(as_transform(item, catalog) for item in items))
    raise ArgumentTypeError(
        f"cannot make an overlay of {type(value).__name__}: "
        f"{short_repr(value)}; give "
        "a transform, a function pod -> pod, a dict, a list or a YAML path",
        argument="value",
        factory="as_transform",
        value=value,
    )
