"""TorchX's macros (``${replica_id}``, ``$app_id``, ...) as a form of value in what
overlays write: TorchX substitutes them per replica; elsewhere (the command line,
Flyte) they stay text, and are warned of.

>>> sorted(macros_written({"env": [{"name": "RANK", "value": "${replica_id}"}]}, {}))
['${replica_id}']
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ("TORCHX_MACROS", "macros_written")

TORCHX_MACROS = ("img_root", "base_img_root", "app_id", "replica_id", "rank0_env")
"""The macros TorchX substitutes in a role's strings (``torchx.specs.macros``), named
here so that the command line does not import TorchX."""

_MACRO = re.compile(
    r"\$(?:\{(" + "|".join(TORCHX_MACROS) + r")\}|(" + "|".join(TORCHX_MACROS) + r")\b)"
)


def macros_written(new: Any, old: Any) -> set[str]:
    """The TorchX macros (``${replica_id}``, ``$app_id``, ...) in the strings of ``new``
    that are not in ``old`` the same way: the subtrees ``new`` shares with ``old``
    (the very same objects, untouched by an overlay) are skipped.

    >>> old = {"args": ["${replica_id}"]}
    >>> sorted(macros_written({"args": old["args"], "env": [{"value": "$app_id-${rank0_env}"}]},
    ...                       old))
    ['$app_id', '${rank0_env}']
    >>> macros_written(old, old)
    set()
    """
    found: set[str] = set()
    stack = [(new, old)]
    while stack:
        value, was = stack.pop()
        if type(value) is str:
            if "$" in value:
                found.update(match.group() for match in _MACRO.finditer(value))
        elif isinstance(value, dict):
            before = was if isinstance(was, dict) else {}
            for key, item in value.items():
                kind = type(item)  # most values are scalars, or shared with the old value
                if kind in _SCALARS or (kind is str and "$" not in item):
                    continue
                if item is not before.get(key):
                    stack.append((item, before.get(key)))
        elif isinstance(value, list):
            olds = was if isinstance(was, list) else []
            for position, item in enumerate(value):
                kind = type(item)
                if kind in _SCALARS or (kind is str and "$" not in item):
                    continue
                previous = olds[position] if position < len(olds) else None
                if item is not previous:
                    stack.append((item, previous))
    return found


_SCALARS = frozenset({int, float, bool, type(None)})
