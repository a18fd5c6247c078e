"""Overlays for Kubernetes pods, built on the combinator algebra.

Every form an overlay comes in (transforms, functions, TorchX-style dicts,
YAML files, JSON Patch, merge patches, strategic merge patches) becomes a
:class:`combinators.Transform`, so they all compose.

>>> from transforms import as_transform, loads_overlay
>>> from combinators import chain
>>> gpu = chain(as_transform({"spec": {"nodeSelector": {"gpu": "a100"}}}),
...             loads_overlay("[{op: set_default, path: spec.restartPolicy, value: Never}]"))
>>> gpu({"spec": {}})
{'spec': {'nodeSelector': {'gpu': 'a100'}, 'restartPolicy': 'Never'}}
"""

from transforms.dumping import dump_overlay
from transforms.errors import OverlayError
from transforms.explain import Change, Explanation, changes_between, describe, explain
from transforms.loading import load_overlay, loads_overlay
from transforms.markers import Append, Default, MergeBy, Prepend, Remove, Replace
from transforms.normalize import as_transform
from transforms.overlay import DEL, JOIN, PUT, Overlay, overlay
from transforms.patches import json_patch, merge_patch, strategic_merge
from transforms.pipeline import build_pipeline, build_step

__all__ = (
    "as_transform",
    "overlay",
    "Overlay",
    "PUT",
    "JOIN",
    "DEL",
    "Append",
    "Prepend",
    "Replace",
    "Remove",
    "Default",
    "MergeBy",
    "load_overlay",
    "loads_overlay",
    "dump_overlay",
    "explain",
    "changes_between",
    "describe",
    "Explanation",
    "Change",
    "build_step",
    "build_pipeline",
    "json_patch",
    "merge_patch",
    "strategic_merge",
    "OverlayError",
)
