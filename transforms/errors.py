"""Errors of building and loading overlays: where in which file, which step, which name.

>>> err = OverlayError("unknown tag '!apend'", source="a100.yaml", line=3, column=17, step=1)
>>> print(err)
a100.yaml:3:17: step 2: unknown tag '!apend'
>>> isinstance(err, ValueError)
True
>>> err = UnknownNameError("unknown op 'upsrt'; did you mean upsert?", argument="op",
...                        value="upsrt", near_misses=("upsert",))
>>> isinstance(err, LookupError), isinstance(err, ValueError), err.near_misses
(True, True, ('upsert',))
"""

from __future__ import annotations

from typing import Any

from combinators.errors import ArgumentError, TransformError

__all__ = ("OverlayError", "UnknownNameError", "CatalogError")


class OverlayError(TransformError, ValueError):
    """An overlay could not be read or built.

    ``source`` names the file (or ``<string>``), ``line`` and ``column`` count
    from 1, ``step`` is the index of the pipeline step or YAML document
    (from 0), where known.
    """

    def __init__(
        self,
        message: str,
        *,
        source: str = "<string>",
        line: int | None = None,
        column: int | None = None,
        step: int | None = None,
    ) -> None:
        super().__init__(message)
        self.source = source
        self.line = line
        self.column = column
        self.step = step

    def __str__(self) -> str:
        where = self.source
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        text = f"{where}: "
        if self.step is not None:
            text += f"step {self.step + 1}: "
        text += self.message
        if self.steps:
            text += " [in " + " > ".join(self.steps) + "]"
        return text


class UnknownNameError(ArgumentError, LookupError):
    """A step names an op, a recipe or a step kind that does not exist (or
    that YAML cannot reach); ``near_misses`` holds the close names, best first."""

    def __init__(
        self,
        message: str,
        *,
        argument: str,
        factory: str | None = None,
        value: Any = None,
        near_misses: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message, argument=argument, factory=factory, value=value)
        self.near_misses = tuple(near_misses)

    def __str__(self) -> str:
        # the message names what is unknown already: no ``argument:`` prefix
        text = TransformError.__str__(self)
        return f"{self.factory}(): {text}" if self.factory else text


class CatalogError(TransformError, ValueError):
    """An installed recipe catalog is at fault: it cannot load, is not a mapping of
    names to factories, publishes a name another catalog publishes, or one of its
    factories fails with an error that is not about its arguments."""
