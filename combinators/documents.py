"""Documents that are not plain data, through adapters that installed packages publish.

A transform edits maps and lists: ``dict`` and ``list`` (``tuple`` too), or
pyrsistent's ``PMap`` and ``PVector``, and JSON scalars. Any other document (a kubernetes
client ``V1Pod``, say) goes through a :class:`DocumentAdapter`: its
``to_data`` gives the document as fresh plain data, the transform runs on
that, and its ``from_data`` builds a new document of the same type from the
result. A transform that changes nothing gives back the very same document.

Adapters are published under the entry point group ``podfold.documents`` and
loaded once, the first time a document that is not plain data is met, so
plain documents never pay for them, and this package never imports the
packages that know those documents. A document no adapter accepts is a
:class:`~combinators.errors.TypeClashError` naming what it is and what is
accepted.

>>> adapter_for({1, 2}, adapters=())
Traceback (most recent call last):
  ...
combinators.errors.TypeClashError: a set is not a document: expected a map (dict, PMap), a list (list, tuple, PVector) or a JSON scalar
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

from combinators.errors import TypeClashError

__all__ = ("GROUP", "DocumentAdapter", "document_adapters", "adapter_for")

GROUP = "podfold.documents"
"""The entry point group adapters are published under (``name = "module:ADAPTER"``)."""

_PLAIN = "a map (dict, PMap), a list (list, tuple, PVector) or a JSON scalar"


@runtime_checkable
class DocumentAdapter(Protocol):
    """How transforms take a kind of document that is not plain data, and give it back.

    ``accepted`` says what it accepts, for messages ("kubernetes client V1Pod, ...").
    ``to_data`` must return fresh data (a transform's result may share it) and
    ``from_data`` a new document that shares nothing mutable with ``like``.
    """

    accepted: str

    def accepts(self, document: Any) -> bool:
        """Whether ``document`` is one this adapter converts; cheap, imports nothing."""

    def to_data(self, document: Any) -> Any:
        """``document`` as fresh plain data (dicts, lists, scalars)."""

    def from_data(self, data: Any, like: Any) -> Any:
        """A new document of ``like``'s type built from ``data``."""


@lru_cache(maxsize=1)
def document_adapters() -> tuple[DocumentAdapter, ...]:
    """The adapters installed packages publish under :data:`GROUP`, by entry point name.

    Loaded on the first call only; a published object that is not an
    adapter is a :class:`~combinators.errors.TypeClashError` naming it.
    """
    from importlib.metadata import entry_points  # tens of ms: paid by the first such document

    adapters = []
    for point in sorted(entry_points(group=GROUP), key=lambda point: point.name):
        adapter = point.load()
        if not isinstance(adapter, DocumentAdapter):
            raise TypeClashError(
                f"the {GROUP} entry point {point.name} = {point.value} is "
                f"not a document adapter (accepts, to_data, from_data, "
                f"accepted), found {type(adapter).__name__}",
                expected="a document adapter",
                found=type(adapter).__name__,
            )
        adapters.append(adapter)
    return tuple(adapters)


def adapter_for(
    document: Any, adapters: Iterable[DocumentAdapter] | None = None
) -> DocumentAdapter:
    """The first adapter that accepts ``document`` (of ``adapters``, default the installed ones).

    >>> adapter_for(b"pod", adapters=())
    Traceback (most recent call last):
      ...
    combinators.errors.TypeClashError: a bytes (b'pod') is not a document: expected a map (dict, PMap), a list (list, tuple, PVector) or a JSON scalar
    """
    known = document_adapters() if adapters is None else tuple(adapters)
    for adapter in known:
        if adapter.accepts(document):
            return adapter
    expected = "; ".join([_PLAIN, *(adapter.accepted for adapter in known)])
    found = _found(document)
    raise TypeClashError(
        f"{found} is not a document: expected {expected}", expected=expected, found=found
    )


def _found(document: Any) -> str:
    name = type(document).__name__
    article = "an" if name[:1].lower() in "aeiou" else "a"
    if isinstance(document, (bool, int, float, str, bytes)):
        text = repr(document)
        return f"{article} {name} ({text if len(text) <= 40 else text[:37] + '...'})"
    return f"{article} {name}"
