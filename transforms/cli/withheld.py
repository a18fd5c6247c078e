"""Output written as a stream is made and printed once the run has succeeded: nothing is
printed where a check fails, and the memory held does not grow with the stream.
``podfold validate`` holds the lines of the problems it finds so
(:meth:`Withheld.add_text`): a stream refused late prints none of them.

A :class:`Withheld` takes the documents a part at a time (:meth:`Withheld.add`),
writes them as :func:`~transforms.cli.documents.dump_documents` writes them all
at once (a YAML stream; or JSON: one object, or a ``List`` of several) into a
temporary file, which stays in memory while small, and :meth:`Withheld.release`
prints it through :func:`~transforms.cli.output.echo` (a write that fails is an
error naming the output). The text is the same, byte for byte, as
``dump_documents`` of all the documents:

>>> import io, sys
>>> saved, sys.stdout = sys.stdout, io.StringIO()
>>> with Withheld("json") as out:
...     out.add([{"kind": "Pod"}]); out.add([]); out.add([{"kind": "Job", "spec": {}}])
...     out.release()
>>> printed, sys.stdout = sys.stdout.getvalue(), saved
>>> from transforms.cli.documents import dump_documents
>>> printed == dump_documents([{"kind": "Pod"}, {"kind": "Job", "spec": {}}], "json")
True
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from types import TracebackType
from typing import Any

__all__ = ("Withheld",)

_IN_MEMORY = 2**20
"""Characters held in memory before the text goes to a temporary file."""
_CHUNK = 1 << 20


def _json(document: Any, indent: str) -> str:
    import json

    text = json.dumps(document, indent=2, ensure_ascii=False, default=str)
    return indent + text.replace("\n", "\n" + indent) if indent else text


class Withheld:
    """The output of a run, held until :meth:`release` (see the module's text)."""

    def __init__(self, output: str = "yaml") -> None:
        self.output = output
        self.count = 0  # documents added
        self._first: Any = None  # JSON: the first document, until a second says it is a List
        self._file: Any = io.StringIO()  # a temporary file once it holds _IN_MEMORY
        self._held = 0

    def __enter__(self) -> Withheld:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._file.close()

    def _write(self, text: str) -> None:
        from transforms.cli.output import OutputError

        try:
            if self._held + len(text) > _IN_MEMORY and isinstance(self._file, io.StringIO):
                import tempfile

                held = self._file.getvalue()
                self._file = tempfile.TemporaryFile(  # noqa: SIM115 - closed by __exit__
                    mode="w+", encoding="utf-8", errors="surrogatepass"
                )
                self._file.write(held)
            self._file.write(text)
            self._held += len(text)
        except OSError as err:  # the temporary directory full: said, nothing printed
            import errno

            reason = err.strerror or str(err) or type(err).__name__
            name = errno.errorcode.get(err.errno, "") if err.errno is not None else ""
            raise OutputError(
                f"stdout: cannot hold the output until the run ends, in the temporary "
                f"directory (TMPDIR): {reason}{f' ({name})' if name else ''}; nothing was "
                f"printed",
                target="stdout",
                code=err.errno,
                reason=reason,
            ) from None

    def add_text(self, text: str) -> None:
        """Write ``text`` as it is: what a command prints that is not documents (the
        problems ``validate`` finds, a line each), with ``output`` ``"text"``."""
        self._write(text)

    def add(self, documents: Sequence[Any]) -> None:
        """Write ``documents``, the stream's next."""
        if not documents:
            return
        if self.output == "json":
            for document in documents:
                self._add_json(document)
            return
        from transforms.io.streams import dump_stream

        self.add_dumped(dump_stream(documents), len(documents))

    def add_dumped(self, text: str, count: int) -> None:
        """Write ``count`` documents that ``text`` is (:func:`~transforms.io.streams.dump_stream`
        of them, made elsewhere: in the worker of :mod:`transforms.cli.worker`), with
        ``output`` ``"yaml"``."""
        if not count:
            return
        if self.count:  # as the emitter parts documents: an empty one ('{}') on the '---' line
            text = ("--- " if text[:1] in "{[" else "---\n") + text
        self._write(text)
        self.count += count

    def _add_json(self, document: Any) -> None:
        if self.count == 0:
            self._first = document
        else:
            if self.count == 1:
                self._write('{\n  "apiVersion": "v1",\n  "kind": "List",\n  "items": [\n')
                self._write(_json(self._first, "    "))
                self._first = None
            self._write(",\n" + _json(document, "    "))
        self.count += 1

    def release(self, color: bool | None = None) -> None:
        """Print what was written, as ``dump_documents`` of all the documents prints it
        (text with ANSI styles: as :func:`~transforms.cli.output.echo` prints it with
        ``color``)."""
        from transforms.cli.output import echo

        if self.output == "json":
            if self.count == 1:
                self._write(_json(self._first, "") + "\n")
            elif self.count == 0:
                self._write(_json({"apiVersion": "v1", "kind": "List", "items": []}, "") + "\n")
            else:
                self._write("\n  ]\n}\n")
        self._file.seek(0)
        while True:
            chunk = self._file.read(_CHUNK)
            if not chunk:
                break
            echo(chunk, nl=False, color=color)
