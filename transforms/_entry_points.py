"""The installed packages' entry points: one scan, shared by every group podfold reads.

The recipe catalogs (``podfold.recipes``, :mod:`transforms.forms.catalog`) and the kinds
(``podfold.kinds``, :mod:`transforms.kube.registry`) are both read from what
:mod:`importlib.metadata` finds on ``sys.path``. Finding it reads every distribution's
``entry_points.txt``, whichever group is asked for: a run that needs both reads them once.
A changed ``sys.path`` (a folder of packages added) is scanned anew.

>>> [point.value for point in entry_points("podfold.recipes") if point.name == "podfold"]
['recipes:catalog']
>>> entry_points("no.such.group")
()
"""

from __future__ import annotations

import sys
from functools import lru_cache

from transforms._lazy import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable
    from importlib.metadata import EntryPoint
    from typing import Protocol

    class _Scanned(Protocol):
        """What :func:`importlib.metadata.entry_points` gives: ``SelectableGroups`` on
        Python 3.10 and 3.11, ``EntryPoints`` after."""

        def select(self, *, group: str) -> Iterable[EntryPoint]: ...


__all__ = ("entry_points",)


def entry_points(group: str) -> tuple[EntryPoint, ...]:
    """The entry points of ``group`` that the distributions on ``sys.path`` declare, by
    name (as :func:`importlib.metadata.entry_points` finds them: the first distribution
    of a name on the path). Nothing is loaded."""
    found = _scan(tuple(sys.path)).select(group=group)
    return tuple(sorted(found, key=lambda point: point.name))


@lru_cache(maxsize=1)
def _scan(path: tuple[str, ...]) -> _Scanned:
    """Every entry point on ``path`` (the key: the scan reads ``sys.path``), every group."""
    # tens of ms with email, zipfile and csv: paid by the first run that reads one
    from importlib.metadata import entry_points as scanned

    return scanned()
