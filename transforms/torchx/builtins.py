"""TorchX's own schedulers, registered again by podfold, on any TorchX.

TorchX 0.7.0 lists its built-in schedulers only while no package registers one
under the ``torchx.schedulers`` entry points; podfold registers its own, so it
registers TorchX 0.7.0's ten built-ins too. Entry points cannot depend on the
TorchX installed, and newer TorchX releases removed some of those schedulers
(torchx-nightly keeps ``local_docker``, ``local_cwd``, ``slurm`` and
``kubernetes``). So each name points at a :class:`BuiltinScheduler` here, which
imports TorchX's own factory when the scheduler is asked for and calls it.

Where this TorchX has no such module, or cannot import it (a package it needs
is not installed), the factory gives a
:class:`~transforms.torchx.unavailable.UnavailableScheduler` instead of
raising: ``torchx runopts`` prints the reason in one line under the name, and
``torchx run`` fails with one short message. That matters for the default
scheduler too: TorchX picks the first registered name (``aws_batch``, entry
points being listed in alphabetical order), so the message says how to choose
another.

This module imports nothing of podfold or TorchX until a factory is called: it
is what ``torchx run --scheduler local_cwd`` loads.

>>> local_cwd
BuiltinScheduler(name='local_cwd', module='torchx.schedulers.local_scheduler')
>>> type(local_cwd("demo")).__name__
'LocalScheduler'
>>> gone = BuiltinScheduler("gone", "torchx.schedulers.gone_scheduler")("demo")
>>> print(repr(gone.run_opts()))  # what torchx runopts prints under the name
    TorchX removed its gone scheduler: this TorchX (version ...) has none; podfold registers ...
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from torchx.schedulers.api import Scheduler

__all__ = ("BUILTIN_SCHEDULERS", "BuiltinScheduler")

BUILTIN_SCHEDULERS: Mapping[str, str] = {
    "local_docker": "torchx.schedulers.docker_scheduler",
    "local_cwd": "torchx.schedulers.local_scheduler",
    "slurm": "torchx.schedulers.slurm_scheduler",
    "kubernetes": "torchx.schedulers.kubernetes_scheduler",
    "kubernetes_mcad": "torchx.schedulers.kubernetes_mcad_scheduler",
    "aws_batch": "torchx.schedulers.aws_batch_scheduler",
    "aws_sagemaker": "torchx.schedulers.aws_sagemaker_scheduler",
    "gcp_batch": "torchx.schedulers.gcp_batch_scheduler",
    "ray": "torchx.schedulers.ray_scheduler",
    "lsf": "torchx.schedulers.lsf_scheduler",
}
"""TorchX 0.7.0's built-in schedulers, name -> the module holding ``create_scheduler``:
what a package registering a scheduler hides there, and what podfold registers again."""


def _choose_another() -> str:
    """What to do instead of using a scheduler this TorchX has not: it may be the
    default, which the user never typed."""
    from torchx.schedulers import DEFAULT_SCHEDULER_MODULES

    own = ", ".join(sorted(DEFAULT_SCHEDULER_MODULES))
    return (
        f"this TorchX's own are {own}: choose one with --scheduler, or pin it in "
        ".torchxconfig under [cli:run]"
    )


def _absent(module: str, err: Exception) -> bool:
    """Whether ``err``, raised importing ``module``, says this TorchX has no ``module``
    (rather than that something ``module`` imports is missing)."""
    return (
        isinstance(err, ModuleNotFoundError)
        and bool(err.name)
        and (module == err.name or module.startswith(f"{err.name}."))
    )


def _unimportable(name: str, module: str, err: Exception) -> str:
    """Why TorchX's scheduler ``name`` cannot be had, ``err`` being what importing its
    ``module`` raised."""
    import torchx

    if _absent(module, err):
        return (
            f"TorchX removed its {name} scheduler: this TorchX (version "
            f"{torchx.__version__}) has none; podfold registers the name for TorchX 0.7.0, "
            f"which drops its built-ins when a package adds a scheduler"
        )
    if isinstance(err, ModuleNotFoundError) and err.name:
        return f"TorchX's {name} scheduler needs the module {err.name!r}, which is not installed"
    return (
        f"TorchX's {name} scheduler cannot be imported here ({module}: "
        f"{type(err).__name__}: {err}; a package it needs may be missing)"
    )


@dataclasses.dataclass(frozen=True)
class BuiltinScheduler:
    """The factory TorchX calls for the built-in scheduler ``name``: TorchX's own
    ``create_scheduler`` from ``module``, imported when first called, or an
    :class:`~transforms.torchx.unavailable.UnavailableScheduler` saying why there
    is none.

    >>> slurm("demo").backend
    'slurm'
    """

    name: str
    module: str

    def __call__(self, session_name: str, *args: Any, **kwargs: Any) -> Scheduler:
        try:
            found = importlib.import_module(self.module)
        except Exception as err:  # removed from this TorchX, or a dependency is missing
            from transforms.torchx.unavailable import UnavailableScheduler

            return UnavailableScheduler(
                self.name,
                session_name,
                _unimportable(self.name, self.module, err),
                err,
                advice=_choose_another() if _absent(self.module, err) else "",
            )
        return found.create_scheduler(session_name, *args, **kwargs)


# the entry points' targets, one per name (pyproject.toml, "torchx.schedulers")
local_docker = BuiltinScheduler("local_docker", BUILTIN_SCHEDULERS["local_docker"])
local_cwd = BuiltinScheduler("local_cwd", BUILTIN_SCHEDULERS["local_cwd"])
slurm = BuiltinScheduler("slurm", BUILTIN_SCHEDULERS["slurm"])
kubernetes = BuiltinScheduler("kubernetes", BUILTIN_SCHEDULERS["kubernetes"])
kubernetes_mcad = BuiltinScheduler("kubernetes_mcad", BUILTIN_SCHEDULERS["kubernetes_mcad"])
aws_batch = BuiltinScheduler("aws_batch", BUILTIN_SCHEDULERS["aws_batch"])
aws_sagemaker = BuiltinScheduler("aws_sagemaker", BUILTIN_SCHEDULERS["aws_sagemaker"])
gcp_batch = BuiltinScheduler("gcp_batch", BUILTIN_SCHEDULERS["gcp_batch"])
ray = BuiltinScheduler("ray", BUILTIN_SCHEDULERS["ray"])
lsf = BuiltinScheduler("lsf", BUILTIN_SCHEDULERS["lsf"])
