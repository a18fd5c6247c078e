"""A stand-in for a scheduler podfold registers that this TorchX cannot run.

TorchX's CLI creates the scheduler, and reads its run options, before it
catches any error (``torchx runopts`` catches a ``ModuleNotFoundError`` only,
``torchx run`` nothing), so a factory that raises ends in a traceback. A
factory gives an :class:`UnavailableScheduler` instead: ``torchx runopts``
prints its reason as the one line under its name, and whatever else is asked
of it (a dry run, a run, a status) raises a :class:`SchedulerUnavailableError`,
a :class:`~transforms.torchx.errors.LaunchError`, which ``torchx run`` prints as
one short message.

>>> stand_in = UnavailableScheduler("lsf", "demo", "this TorchX has no lsf scheduler",
...                                 advice="choose another")
>>> print(repr(stand_in.run_opts()))  # what torchx runopts prints under the name
    this TorchX has no lsf scheduler
>>> stand_in.run_opts().cfg_from_str("queue=default")  # -cfg is read before any error shows
{}
>>> stand_in.describe("lsf://demo/job")
Traceback (most recent call last):
  ...
transforms.torchx.unavailable.SchedulerUnavailableError: this TorchX has no lsf scheduler (choose another)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

import torchx
from torchx.schedulers.api import Scheduler
from torchx.specs import runopts

from transforms.torchx.errors import LaunchError

__all__ = ("UnavailableScheduler", "SchedulerUnavailableError")


class SchedulerUnavailableError(LaunchError, LookupError):
    """A scheduler podfold registers that this TorchX cannot run: ``scheduler`` names
    it, ``torchx_version`` the TorchX; the cause is the error that stood in the way
    (importing TorchX's module), if any.

    >>> err = SchedulerUnavailableError("no such scheduler", scheduler="lsf",
    ...                                 torchx_version="9.9")
    >>> err.scheduler, isinstance(err, LaunchError), isinstance(err, LookupError)
    ('lsf', True, True)
    """

    def __init__(self, message: str, *, scheduler: str, torchx_version: str) -> None:
        self.scheduler = scheduler
        self.torchx_version = torchx_version
        super().__init__(message)


class _Unavailable(runopts):  # type: ignore[misc]
    """The run options of an :class:`UnavailableScheduler`: none, printed as the reason.

    ``torchx run`` reads ``-cfg`` with them before it catches any error, so they take
    any key (newer TorchX refuses a key the options lack, there in a traceback); the
    run then stops with the reason.
    """

    def __init__(self, reason: str) -> None:
        super().__init__()
        self._reason = reason

    def __repr__(self) -> str:
        return f"    {self._reason}"

    def cfg_from_str(self, cfg_str: str) -> dict[str, Any]:
        return {}

    def cfg_from_json_repr(self, json_repr: str) -> dict[str, Any]:
        return {}

    def resolve(self, cfg: Mapping[str, Any], *args: Any, **kwargs: Any) -> dict[str, Any]:
        return {}


class UnavailableScheduler(Scheduler):  # type: ignore[misc]
    """Stands in for the scheduler ``backend``, which this TorchX cannot run: its run
    options are none (listed as the ``reason``), and everything else raises a
    :class:`SchedulerUnavailableError`: the ``reason``, then the ``advice`` (what to
    do instead), with ``cause`` (what stood in the way) as its cause.
    """

    def __init__(
        self,
        backend: str,
        session_name: str,
        reason: str,
        cause: BaseException | None = None,
        advice: str = "",
    ) -> None:
        super().__init__(backend, session_name)
        self.reason = reason
        self.cause = cause
        self.advice = advice

    def _refuse(self) -> NoReturn:
        message = f"{self.reason} ({self.advice})" if self.advice else self.reason
        raise SchedulerUnavailableError(
            message, scheduler=self.backend, torchx_version=torchx.__version__
        ) from self.cause

    def run_opts(self) -> runopts:
        return _Unavailable(self.reason)

    # the first hook a dry run calls, in every TorchX: the run stops before anything is built
    def _validate(self, *args: Any, **kwargs: Any) -> None:
        self._refuse()

    def _submit_dryrun(self, *args: Any, **kwargs: Any) -> NoReturn:
        self._refuse()

    def schedule(self, *args: Any, **kwargs: Any) -> NoReturn:
        self._refuse()

    def describe(self, *args: Any, **kwargs: Any) -> NoReturn:
        self._refuse()

    def list(self, *args: Any, **kwargs: Any) -> NoReturn:
        self._refuse()

    def _cancel_existing(self, *args: Any, **kwargs: Any) -> NoReturn:
        self._refuse()

    def log_iter(self, *args: Any, **kwargs: Any) -> NoReturn:
        self._refuse()
