"""Overlays in and out: safe YAML loading (files, URIs, text), any form made
into a transform, and transforms written back as YAML.

Each name is imported from its module when first asked for, so that a
program that only loads overlays (``podfold apply``) does not import the writer.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from transforms.io.dumping import dump_overlay
    from transforms.io.loading import load_overlay, loads_overlay
    from transforms.io.normalize import as_transform

_WHERE = {"load_overlay": "loading", "loads_overlay": "loading", "dump_overlay": "dumping",
          "as_transform": "normalize"}

__all__ = ("load_overlay", "loads_overlay", "dump_overlay", "as_transform")


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'transforms.io' has no attribute {name!r}")
    value = getattr(import_module(f"transforms.io.{module}"), name)
    globals()[name] = value  # later look-ups find it directly
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})
