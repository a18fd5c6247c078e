"""Names a package exports but imports only when first asked for (PEP 562).

Every package of podfold that defers its imports builds its ``__getattr__`` and
``__dir__`` here, and names for type checkers what it defers under
:data:`TYPE_CHECKING`:

>>> getattr_, dir_ = lazy_exports("pkg", {"dumps": "json"}, {})
>>> getattr_("dumps")([1])
'[1]'
>>> getattr_("loads")
Traceback (most recent call last):
  ...
AttributeError: module 'pkg' has no attribute 'loads'
>>> dir_()
['dumps']
"""

# ``import transforms`` loads this module and nothing else: no typing, importlib or
# __future__ (each costs more than the package), so annotations are strings here.
import sys

TYPE_CHECKING = False
"""``False`` at run time, taken as true by type checkers (mypy and pyright read any constant
of this name so): ``typing.TYPE_CHECKING`` without importing typing."""

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ("TYPE_CHECKING", "lazy_exports")


def lazy_exports(
    package: "str", homes: "dict[str, str]", namespace: "dict[str, Any]"
) -> "tuple[Callable[[str], Any], Callable[[], list[str]]]":
    """``__getattr__`` and ``__dir__`` for ``package``.

    Each name in ``homes`` is imported from its module (an absolute name) when
    first read, then kept in ``namespace`` (the package's ``globals()``), so
    later look-ups find it directly; a name not in ``homes`` is an
    ``AttributeError``, as for any module.
    """

    def __getattr__(name: "str") -> "Any":
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        __import__(home)  # importlib.import_module, without importing importlib
        value = getattr(sys.modules[home], name)
        namespace[name] = value
        return value

    def __dir__() -> "list[str]":
        return sorted({*namespace, *homes})

    return __getattr__, __dir__
