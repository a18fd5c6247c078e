"""The errors podfold's TorchX schedulers raise, in the form TorchX's own CLI prints briefly.

``torchx run`` (0.7.0 and later) prints a
:class:`~torchx.specs.finder.ComponentValidationException` as one short
message ("Failed to run component ... got errors: ..."), and any other
exception with its whole traceback. So every error the schedulers raise is
a :class:`LaunchError`: a :class:`~combinators.TransformError` that TorchX's
CLI takes for one of its own. An error found while reading the run
configuration keeps podfold's original error as its ``__cause__``.

>>> err = UnknownRunOptionError("overlay", scheduler="kubernetes_overlay",
...                             options=("overlays", "role_overlays", "queue"))
>>> print(err)
kubernetes_overlay has no run option 'overlay'; did you mean overlays or role_overlays? (torchx runopts kubernetes_overlay lists them)
>>> from torchx.specs import InvalidRunConfigException
>>> isinstance(err, InvalidRunConfigException), err.cfg_key
(True, 'overlay')
"""

from __future__ import annotations

from collections.abc import Sequence

from torchx.specs import InvalidRunConfigException
from torchx.specs.finder import ComponentValidationException

from combinators import TransformError
from combinators.limits import short_line, short_repr
from combinators.near import did_you_mean, near_misses

__all__ = ("LaunchError", "RunOptionError", "UnknownRunOptionError", "EmptyOverlayWarning")


class LaunchError(TransformError, ComponentValidationException, ValueError):  # type: ignore[misc]
    """podfold refused to render a TorchX job: an overlay failed, a pod broke a
    check, or the run configuration is wrong. The message says where (role,
    replica, path; or the run option)."""


class RunOptionError(LaunchError, InvalidRunConfigException):  # type: ignore[misc]
    """A run option's value (``-cfg KEY=VALUE``) that cannot be read: ``cfg_key``
    (TorchX's field) names the option, ``value`` the text given. The message
    says what was expected.

    >>> err = RunOptionError("run option validate: expected true or false, got 'maybe'",
    ...                      key="validate", value="maybe")
    >>> err.cfg_key, err.value, isinstance(err, LaunchError)
    ('validate', 'maybe', True)
    """

    def __init__(self, message: str, *, key: str, value: object = None) -> None:
        self.cfg_key = key
        self.value = value
        super().__init__(message)


class UnknownRunOptionError(RunOptionError):
    """A run option (``-cfg KEY=...``) the scheduler does not have: TorchX 0.7.0
    drops such a key silently, so a typo would apply nothing.

    ``cfg_key`` (TorchX's field) names the key, ``near_misses`` the options it
    may have meant; ``hint`` adds a guess where there is no near miss.
    """

    def __init__(
        self,
        key: str,
        *,
        scheduler: str,
        options: Sequence[str],
        value: object = None,
        hint: str = "",
    ) -> None:
        self.scheduler = scheduler
        self.near_misses = near_misses(key, list(options))
        hint = did_you_mean(self.near_misses) or (f"; {short_line(hint)}" if hint else "")
        super().__init__(
            f"{scheduler} has no run option {short_repr(key)}{hint} "
            f"(torchx runopts {scheduler} lists them)",
            key=key,
            value=value,
        )


class EmptyOverlayWarning(UserWarning):
    """An overlay a run option names holds no step (the file is empty, or only
    comments): it changes nothing, which is seldom what was meant. Shown at
    the file, as ``podfold apply`` warns of one."""
