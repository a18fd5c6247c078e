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
kubernetes_overlay has no run option 'overlay'; did you mean overlays? (torchx runopts kubernetes_overlay lists them)
>>> from torchx.specs import InvalidRunConfigException
>>> isinstance(err, InvalidRunConfigException), err.cfg_key
(True, 'overlay')
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from torchx.specs import InvalidRunConfigException
from torchx.specs.finder import ComponentValidationException

from combinators import TransformError

__all__ = ("LaunchError", "UnknownRunOptionError")


class LaunchError(TransformError, ComponentValidationException, ValueError):  # type: ignore[misc]
    """podfold refused to render a TorchX job: an overlay failed, a pod broke a
    check, or the run configuration is wrong. The message says where (role,
    replica, path; or the run option)."""


class UnknownRunOptionError(LaunchError, InvalidRunConfigException):  # type: ignore[misc]
    """A run option (``-cfg KEY=...``) the scheduler does not have: TorchX 0.7.0
    drops such a key silently, so a typo would apply nothing.

    ``cfg_key`` (TorchX's field) names the key, ``near_misses`` the options it
    may have meant.
    """

    def __init__(self, key: str, *, scheduler: str, options: Sequence[str]) -> None:
        self.cfg_key = key
        self.scheduler = scheduler
        self.near_misses = tuple(difflib.get_close_matches(key, list(options), n=3, cutoff=0.75))
        hint = f"; did you mean {', '.join(self.near_misses)}?" if self.near_misses else ""
        super().__init__(f"{scheduler} has no run option {key!r}{hint} "
                         f"(torchx runopts {scheduler} lists them)")
