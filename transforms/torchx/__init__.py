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

from typing import TYPE_CHECKING

from transforms._lazy import lazy_exports

if TYPE_CHECKING:  # the names, for type checkers; at run time each loads on first use
    from transforms.torchx.errors import EmptyOverlayWarning, LaunchError, UnknownRunOptionError
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
_HOMES = {
    "with_overlays": "transforms.torchx.roles",
    "role_overlays": "transforms.torchx.roles",
    "METADATA_KEY": "transforms.torchx.roles",
    "FoldError": "transforms.torchx.folding",
    "FoldSettings": "transforms.torchx.folding",
    "substitute_macros": "transforms.torchx.folding",
    "FoldViolationsError": "transforms.torchx.folding",
    "Violation": "transforms.torchx.folding",
    "RoleConflictWarning": "transforms.torchx.folding",
    "LaunchError": "transforms.torchx.errors",
    "EmptyOverlayWarning": "transforms.torchx.errors",
    "UnknownRunOptionError": "transforms.torchx.errors",
    "fold_settings": "transforms.torchx.options",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals())


__all__ = (
    "with_overlays",
    "role_overlays",
    "METADATA_KEY",
    "FoldError",
    "FoldSettings",
    "substitute_macros",
    "FoldViolationsError",
    "Violation",
    "RoleConflictWarning",
    "LaunchError",
    "UnknownRunOptionError",
    "EmptyOverlayWarning",
    "fold_settings",
)
