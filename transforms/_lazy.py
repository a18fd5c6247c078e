"""Names a package exports but imports only when first asked for (PEP 562).

>>> getattr_, dir_ = lazy_exports("pkg", {"dumps": "json"}, {})
>>> getattr_("dumps")([1])
'[1]'
>>> getattr_("loads")
Traceback (most recent call last):
  ...
AttributeError: module 'pkg' has no attribute 'loads'
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

__all__ = ("lazy_exports",)


def lazy_exports(
    package: str, homes: dict[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``.

    Each name in ``homes`` is imported from its module (an absolute name) when
    first read, then kept in ``namespace`` (the package's ``globals()``), so
    later look-ups find it directly.
    """

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(home), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *homes})

    return __getattr__, __dir__
