"""Overlays on TorchX roles, the fold over every pod TorchX renders, and the
schedulers that run it (``kubernetes_overlay``, ``kubernetes_mcad_overlay``).

>>> from transforms.torchx import role_overlays, with_overlays
>>> from torchx.specs import Role
>>> role_overlays(with_overlays(Role(name="trainer", image="t:1"),
...                             {"spec": {"nodeSelector": {"gpu": "a100"}}}))
[overlay({'spec': {'nodeSelector': {'gpu': 'a100'}}})]

``import transforms.torchx`` imports neither TorchX nor the modules below:
each name loads its module on first use.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names, for type checkers; at run time each loads on first use
    from transforms.torchx.errors import LaunchError, UnknownRunOptionError
    from transforms.torchx.folding import (
        FoldError,
        FoldSettings,
        FoldViolationsError,
        RoleConflictWarning,
        Violation,
        substitute_macros,
    )
    from transforms.torchx.options import fold_settings
    from transforms.torchx.roles import METADATA_KEY, role_overlays, with_overlays

# name -> the module that defines it
_WHERE = {
    "with_overlays": "roles", "role_overlays": "roles", "METADATA_KEY": "roles",
    "FoldError": "folding", "FoldSettings": "folding", "substitute_macros": "folding",
    "FoldViolationsError": "folding", "Violation": "folding", "RoleConflictWarning": "folding",
    "LaunchError": "errors", "UnknownRunOptionError": "errors", "fold_settings": "options",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'transforms.torchx' has no attribute {name!r}")
    value = getattr(import_module(f"transforms.torchx.{module}"), name)
    globals()[name] = value  # later look-ups find it directly
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


__all__ = ("with_overlays", "role_overlays", "METADATA_KEY", "FoldError", "FoldSettings",
           "substitute_macros", "FoldViolationsError", "Violation", "RoleConflictWarning",
           "LaunchError", "UnknownRunOptionError", "fold_settings")
