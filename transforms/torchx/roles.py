"""Overlays kept on TorchX roles, in ``Role.metadata["kubernetes"]``.

>>> from torchx.specs import Role
>>> from combinators import upsert
>>> role = Role(name="trainer", image="trainer:1")
>>> gpu = with_overlays(role, upsert("spec.nodeSelector", {"gpu": "a100"}))
>>> role.metadata                      # the given role is left as it was
{}
>>> role_overlays(gpu)
[upsert('spec.nodeSelector', {'gpu': 'a100'})]
"""

from __future__ import annotations

import dataclasses
from typing import Any

from torchx.specs import Role

from combinators import Transform
from transforms.io.loading import loads_overlay
from transforms.io.normalize import OverlayLike, as_transform

__all__ = ("with_overlays", "role_overlays", "METADATA_KEY")

METADATA_KEY = "kubernetes"


def _stored(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, list):
        return list(value)
    return [value]


def with_overlays(role: Role, *overlays: OverlayLike) -> Role:
    """A new role whose ``metadata["kubernetes"]`` holds ``overlays`` after any it had.

    Overlays may take any form :func:`transforms.as_transform` accepts:
    transforms, functions ``pod -> pod``, dicts, YAML paths or URIs. Each is
    checked now, so a bad one fails here rather than at launch, with a
    :class:`~combinators.TransformError` (an :class:`~combinators.ArgumentTypeError`
    for a value that is no overlay at all, an
    :class:`~transforms.errors.OverlayError` for a YAML file or text).
    """
    for item in overlays:
        _one(item)
    metadata = dict(role.metadata)
    metadata[METADATA_KEY] = [*_stored(metadata.get(METADATA_KEY)), *overlays]
    return dataclasses.replace(role, metadata=metadata)


def _one(item: Any) -> Transform:
    if isinstance(item, str) and ("\n" in item or item.lstrip().startswith(("{", "["))):
        return loads_overlay(item, source="role metadata")  # inline JSON or YAML text
    return as_transform(item)


def role_overlays(role: Role) -> list[Transform]:
    """The overlays a role holds, in order, each made a transform.

    Reads what :func:`with_overlays` stores and what roles written for
    upstream TorchX hold: a dict (a partial pod, or upstream's
    ``{"__torchx_overlays__": True, "V1Pod": ...}``), a YAML or JSON text, or
    a path or URI of a YAML file. A plain function comes back as a
    composition of that one step (``chain(fn)``), so every item is a
    :class:`~combinators.Transform`.
    """
    return [_one(item) for item in _stored(role.metadata.get(METADATA_KEY))]
