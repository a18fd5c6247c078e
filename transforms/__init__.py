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

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names, for type checkers; at run time each loads on first use
    from transforms.dumping import dump_overlay
    from transforms.errors import OverlayError
    from transforms.loading import load_overlay, loads_overlay
    from transforms.markers import Append, Default, MergeBy, Prepend, Remove, Replace
    from transforms.normalize import as_transform
    from transforms.patches import json_patch, merge_patch, strategic_merge
    from transforms.pipeline import build_pipeline, build_step

# Two functions share their module's name: bound here, before anything imports
# the module (which would bind the module itself under that name).
from transforms.explain import Change, Explanation, changes_between, describe, explain
from transforms.overlay import DEL, JOIN, PUT, Overlay, overlay

# name -> the module that defines it: importing ``transforms`` stays cheap (the
# pytest plugin loads it in every test session of anyone who installs podfold)
_WHERE = {
    "dump_overlay": "dumping", "OverlayError": "errors",
    "load_overlay": "loading", "loads_overlay": "loading",
    "Append": "markers", "Default": "markers", "MergeBy": "markers", "Prepend": "markers",
    "Remove": "markers", "Replace": "markers", "as_transform": "normalize",
    "json_patch": "patches", "merge_patch": "patches", "strategic_merge": "patches",
    "build_pipeline": "pipeline", "build_step": "pipeline",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'transforms' has no attribute {name!r}")
    value = getattr(import_module(f"transforms.{module}"), name)
    globals()[name] = value  # later look-ups find it directly
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


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
