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

from transforms._lazy import TYPE_CHECKING, lazy_exports

if TYPE_CHECKING:  # the names, for type checkers; at run time each loads on first use
    from transforms.analysis.explanation import (
        Change,
        Explanation,
        changes_between,
        describe,
        explain,
    )
    from transforms.errors import OverlayError, UnknownNameError
    from transforms.forms.markers import (
        Append,
        AppendUnique,
        Default,
        MergeBy,
        Prepend,
        Remove,
        Replace,
    )
    from transforms.forms.partial import DEL, JOIN, PUT, Overlay, overlay
    from transforms.forms.patches import json_patch, merge_patch, strategic_merge
    from transforms.forms.pipeline import build_pipeline, build_step
    from transforms.io.dumping import dump_overlay
    from transforms.io.loading import load_overlay, loads_overlay
    from transforms.io.normalize import as_transform

# name -> the module that defines it: ``import transforms`` loads none of them
_WHERE = {
    "as_transform": "transforms.io.normalize",
    "load_overlay": "transforms.io.loading",
    "loads_overlay": "transforms.io.loading",
    "dump_overlay": "transforms.io.dumping",
    "overlay": "transforms.forms.partial",
    "Overlay": "transforms.forms.partial",
    "PUT": "transforms.forms.partial",
    "JOIN": "transforms.forms.partial",
    "DEL": "transforms.forms.partial",
    "Append": "transforms.forms.markers",
    "AppendUnique": "transforms.forms.markers",
    "Default": "transforms.forms.markers",
    "MergeBy": "transforms.forms.markers",
    "Prepend": "transforms.forms.markers",
    "Remove": "transforms.forms.markers",
    "Replace": "transforms.forms.markers",
    "build_pipeline": "transforms.forms.pipeline",
    "build_step": "transforms.forms.pipeline",
    "json_patch": "transforms.forms.patches",
    "merge_patch": "transforms.forms.patches",
    "strategic_merge": "transforms.forms.patches",
    "explain": "transforms.analysis.explanation",
    "describe": "transforms.analysis.explanation",
    "changes_between": "transforms.analysis.explanation",
    "Explanation": "transforms.analysis.explanation",
    "Change": "transforms.analysis.explanation",
    "OverlayError": "transforms.errors",
    "UnknownNameError": "transforms.errors",
}


__all__ = (
    "as_transform",
    "overlay",
    "Overlay",
    "PUT",
    "JOIN",
    "DEL",
    "Append",
    "AppendUnique",
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
    "UnknownNameError",
)

__getattr__, __dir__ = lazy_exports(__name__, _WHERE, globals())
