"""Overlays in and out: safe YAML loading (files, URIs, text), any form made
into a transform, and transforms written back as YAML.

Each name is imported from its module when first asked for, so that a
program that only loads overlays (``podfold apply``) does not import the writer.
"""

from transforms._lazy import TYPE_CHECKING, lazy_exports

if TYPE_CHECKING:
    from transforms.io.dumping import dump_overlay
    from transforms.io.loading import load_overlay, loads_overlay
    from transforms.io.normalize import as_transform

_HOMES = {
    "load_overlay": "transforms.io.loading",
    "loads_overlay": "transforms.io.loading",
    "dump_overlay": "transforms.io.dumping",
    "as_transform": "transforms.io.normalize",
}

__all__ = ("load_overlay", "loads_overlay", "dump_overlay", "as_transform")

__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals())
