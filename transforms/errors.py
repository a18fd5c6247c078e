"""Errors of loading overlays: where in which file, and which step.

>>> err = OverlayError("unknown tag '!apend'", source="a100.yaml", line=3, column=17, step=1)
>>> print(err)
a100.yaml:3:17: step 2: unknown tag '!apend'
>>> isinstance(err, ValueError)
True
"""

from __future__ import annotations

from combinators.errors import TransformError

__all__ = ("OverlayError",)


class OverlayError(TransformError, ValueError):
    """An overlay could not be read or built.

    ``source`` names the file (or ``<string>``), ``line`` and ``column`` count
    from 1, ``step`` is the index of the pipeline step or YAML document
    (from 0), where known.
    """

    def __init__(self, message: str, *, source: str = "<string>", line: int | None = None,
                 column: int | None = None, step: int | None = None) -> None:
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
