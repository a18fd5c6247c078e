"""One argument order across podfold: the transform first, then the document.

``explain(transform, pod)``, ``assert_pure(transform, pod)``,
``apply_to_workload(transform, document)``, ``fold(transforms, doc)``,
``blame(steps, pod)``: what is done comes first, what it is done to last, as
in ``map(function, items)`` and a transform's own call, ``transform(doc)``.
A ``functools.partial`` of any of them is then a function of documents.

The functions that took the document first until 0.1 (:func:`~combinators.fold`,
:func:`~combinators.conflicts.checked_fold`, ``blame`` and ``writers``) still
take it there for a while, with an :class:`ArgumentOrderWarning`: their
steps come as a list and a document is a mapping, so the two orders cannot
be mistaken for each other.

>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     transforms_first("fold", {"spec": {}}, [len])
([<built-in function len>], {'spec': {}})
>>> print(caught[0].message)
fold(doc, transforms) is the order before 0.2: write fold(transforms, doc), the transforms first
>>> transforms_first("fold", [len], {"spec": {}})
([<built-in function len>], {'spec': {}})
"""

from __future__ import annotations

from combinators._typing import TYPE_CHECKING
from combinators.data import is_map

if TYPE_CHECKING:
    from typing import Any

__all__ = ("ArgumentOrderWarning", "transforms_first")


class ArgumentOrderWarning(DeprecationWarning):
    """A call wrote the document before the transforms, the order before 0.2."""


def transforms_first(
    name: str, transforms: Any, doc: Any, *, stacklevel: int = 3
) -> tuple[Any, Any]:
    """``(transforms, doc)`` as a function ``name`` was given them, swapped (with an
    :class:`ArgumentOrderWarning` at the caller's line) where the document came first:
    a mapping where the list of steps goes, and no mapping where the document goes."""
    if type(transforms) in (list, tuple) or not is_map(transforms) or is_map(doc):
        return transforms, doc
    import warnings

    warnings.warn(
        f"{name}(doc, transforms) is the order before 0.2: write {name}(transforms, doc), "
        "the transforms first",
        ArgumentOrderWarning,
        stacklevel=stacklevel,
    )
    return doc, transforms
