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

import sys

# not typing's: importing typing (and re, enum, ... with it) would cost ``import transforms``
# more than all the rest; type checkers treat any TYPE_CHECKING as true
TYPE_CHECKING = False
if TYPE_CHECKING:  # the names, for type checkers; at run time each loads on first use
    from typing import Any

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
    "as_transform": "io.normalize",
    "load_overlay": "io.loading",
    "loads_overlay": "io.loading",
    "dump_overlay": "io.dumping",
    "overlay": "forms.partial",
    "Overlay": "forms.partial",
    "PUT": "forms.partial",
    "JOIN": "forms.partial",
    "DEL": "forms.partial",
    "Append": "forms.markers",
    "AppendUnique": "forms.markers",
    "Default": "forms.markers",
    "MergeBy": "forms.markers",
    "Prepend": "forms.markers",
    "Remove": "forms.markers",
    "Replace": "forms.markers",
    "build_pipeline": "forms.pipeline",
    "build_step": "forms.pipeline",
    "json_patch": "forms.patches",
    "merge_patch": "forms.patches",
    "strategic_merge": "forms.patches",
    "explain": "analysis.explanation",
    "describe": "analysis.explanation",
    "changes_between": "analysis.explanation",
    "Explanation": "analysis.explanation",
    "Change": "analysis.explanation",
    "OverlayError": "errors",
    "UnknownNameError": "errors",
}


def __getattr__(name: str) -> "Any":
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'transforms' has no attribute {name!r}")
    qualified = f"transforms.{module}"
    __import__(qualified)  # importlib.import_module, without importing importlib
    value = getattr(sys.modules[qualified], name)
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
