"""The forms an overlay comes in, each built into a transform: partial pods
(TorchX's rules) and their markers, pipelines of steps, recipes found by name,
and Kubernetes' three patch formats. :mod:`transforms.forms.kinds` says, once
per kind of step, how it is built from YAML, written back, put in words and
what it may write."""

from transforms.forms.catalog import build_recipe, recipe_catalog
from transforms.forms.markers import (
    Append,
    AppendUnique,
    Default,
    Marker,
    MergeBy,
    Prepend,
    Remove,
    Replace,
)
from transforms.forms.partial import DEL, JOIN, PUT, Overlay, overlay
from transforms.forms.patches import json_patch, merge_patch, strategic_merge
from transforms.forms.pipeline import build_pipeline, build_step

__all__ = (
    "overlay",
    "Overlay",
    "PUT",
    "JOIN",
    "DEL",
    "Marker",
    "Append",
    "AppendUnique",
    "Prepend",
    "Replace",
    "Remove",
    "Default",
    "MergeBy",
    "build_step",
    "build_pipeline",
    "recipe_catalog",
    "build_recipe",
    "json_patch",
    "merge_patch",
    "strategic_merge",
)
