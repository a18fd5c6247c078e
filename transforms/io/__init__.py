"""Overlays in and out: safe YAML loading (files, URIs, text), any form made
into a transform, and transforms written back as YAML."""

from transforms.io.dumping import dump_overlay
from transforms.io.loading import load_overlay, loads_overlay
from transforms.io.normalize import as_transform

__all__ = ("load_overlay", "loads_overlay", "dump_overlay", "as_transform")
