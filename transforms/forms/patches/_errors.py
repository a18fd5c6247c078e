"""Errors of the patch formats, on top of podfold's own.

>>> err = InvalidPatchError("op 0: unknown op 'ad'", index=0)
>>> isinstance(err, ValueError), err.index
(True, 0)
"""

from __future__ import annotations

from combinators.errors import TransformError

__all__ = ("InvalidPatchError", "PatchTestFailed")


class InvalidPatchError(TransformError, ValueError):
    """A patch is malformed: an unknown op, a missing field, a bad directive.

    ``index`` is the position of the faulty operation in a JSON Patch
    (``None`` for merge and strategic patches, whose message names the field).
    """

    def __init__(self, message: str, *, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index


class PatchTestFailed(TransformError, AssertionError):
    """A JSON Patch ``test`` operation found another value than the one expected.

    ``index`` is the operation's position, ``pointer`` its JSON Pointer,
    ``expected`` the value the operation gave and ``found`` what was there.
    """

    def __init__(self, message: str, *, index: int, pointer: str, expected: object,
                 found: object) -> None:
        super().__init__(message)
        self.index = index
        self.pointer = pointer
        self.expected = expected
        self.found = found
