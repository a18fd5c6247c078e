"""A line of progress on stderr while a long run works: files, documents, templates changed.

It is drawn only where stderr is a terminal, and only once the run has taken more than
a second (a short run says nothing); ``--quiet`` turns it off. It is one line, drawn
again in place (a carriage return), at most ten times a second; a warning printed while
it is there first clears it (:func:`clear`), and it is cleared when the run ends, so
nothing of it stays in what the terminal shows, and nothing of it goes to a file or a
pipe.

>>> import io
>>> line = Progress(stream=io.StringIO(), after=0.0, terminal=True)
>>> line.update(files=1, documents=1200, changed=800)
>>> line.stream.getvalue()
'\\rpodfold: 1 file, 1,200 documents, 800 pod templates changed\\x1b[K'
>>> line.close(); line.stream.getvalue().endswith('\\r\\x1b[K')
True
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any

__all__ = ("Progress", "clear")

_SHOWN: list[Progress] = []  # the line on the terminal now, if any
_EVERY = 0.1  # seconds between two drawings


def clear() -> None:
    """Clear the progress line from the terminal, if one is there (before a warning)."""
    for shown in _SHOWN:
        shown.erase()


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


class Progress:
    """The progress of one run (see the module's text); ``terminal`` and ``after``: whether
    to draw at all (stderr is a terminal, by default) and after how many seconds."""

    def __init__(
        self,
        *,
        quiet: bool = False,
        stream: IO[str] | None = None,
        after: float = 1.0,
        terminal: bool | None = None,
    ) -> None:
        self.stream: Any = sys.stderr if stream is None else stream
        if terminal is None:
            try:
                terminal = bool(self.stream.isatty())
            except (AttributeError, ValueError):  # closed, or no descriptor
                terminal = False
        self.on = terminal and not quiet
        self.start = time.monotonic()
        self.after = after
        self.drawn = 0.0  # when it was last drawn
        self.visible = False
        self.files = self.documents = self.changed = 0

    def update(self, *, files: int = 0, documents: int = 0, changed: int = 0) -> None:
        """Count ``files`` more files begun, ``documents`` more read and ``changed`` more
        pod templates changed; draw the line where it is time to."""
        self.files += files
        self.documents += documents
        self.changed += changed
        if not self.on:
            return
        now = time.monotonic()
        if now - self.start < self.after or now - self.drawn < _EVERY:
            return
        self.drawn = now
        self._write(
            f"\rpodfold: {_plural(self.files, 'file')}, {_plural(self.documents, 'document')}, "
            f"{_plural(self.changed, 'pod template')} changed\x1b[K"
        )
        self.visible = True
        if self not in _SHOWN:
            _SHOWN.append(self)

    def erase(self) -> None:
        """Clear the line, if drawn; it is drawn again at the next update due."""
        if self.visible:
            self._write("\r\x1b[K")
            self.visible = False
            self.drawn = 0.0

    def close(self) -> None:
        """Clear the line for good."""
        self.erase()
        self.on = False
        if self in _SHOWN:
            _SHOWN.remove(self)

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # the terminal went away: no progress, no failure
            self.on = False
            self.visible = False
