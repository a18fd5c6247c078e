"""Errors of the patch formats, on top of podfold's own.

>>> err = InvalidPatchError("op 0: unknown op 'ad'", index=0, argument="ops",
...                         factory="json_patch")
>>> isinstance(err, ArgumentError), isinstance(err, ValueError), err.index, err.argument
(True, True, 0, 'ops')
>>> print(err)
json_patch(): ops: op 0: unknown op 'ad'
"""

from __future__ import annotations

from typing import Any

from combinators.errors import ArgumentError, TransformError

__all__ = ("InvalidPatchError", "PatchTestFailed")


class InvalidPatchError(ArgumentError):
    """A patch is malformed: an unknown op, a missing field, a bad directive.

    An :class:`~combinators.errors.ArgumentError` (so a ``ValueError``):
    ``argument`` names the builder's argument (``ops`` of :func:`json_patch`,
    ``patch`` or ``kind`` of the others), ``factory`` the builder. Most are
    raised when the patch is built; a strategic patch whose lists do not fit
    the pod's fails when applied. ``index`` is the position of the faulty
    operation in a JSON Patch (``None`` for merge and strategic patches,
    whose message names the field).
    """

    def __init__(
        self,
        message: str,
        *,
        index: int | None = None,
        argument: str = "patch",
        factory: str | None = None,
        value: Any = None,
    ) -> None:
        super().__init__(message, argument=argument, factory=factory, value=value)
        self.index = index


class PatchTestFailed(TransformError, AssertionError):
    """A JSON Patch ``test`` operation found another value than the one expected.

    ``index`` is the operation's position, ``pointer`` its JSON Pointer,
    ``expected`` the value the operation gave and ``found`` what was there.
    """

    def __init__(
        self, message: str, *, index: int, pointer: str, expected: object, found: object
    ) -> None:
        super().__init__(message)
        self.index = index
        self.pointer = pointer
        self.expected = expected
        self.found = found
