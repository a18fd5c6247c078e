"""The installed packages' entry points: one scan, shared by every group podfold reads.

The recipe catalogs (``podfold.recipes``, :mod:`transforms.forms.catalog`) and the kinds
(``podfold.kinds``, :mod:`transforms.kube.registry`) are what the distributions on
``sys.path`` declare, as :func:`importlib.metadata.entry_points` finds them: the first
distribution of a (normalized) name on the path, its ``entry_points.txt``. A run that needs
both groups scans once; a changed ``sys.path`` (a folder of packages added) is scanned anew.

Every run of the command line reads them, and importing :mod:`importlib.metadata` (with
``email``, ``zipfile`` and ``csv``) took 38 ms of a start of 300 ms here, with 11 ms more
for its scan of 140 distributions. So where every entry of ``sys.path`` is a folder and
the finders are Python's own, this module reads the ``*.dist-info`` and ``*.egg-info``
folders itself, as :mod:`importlib.metadata` reads them (in 2 ms); anywhere else (a zip or
an egg on the path, a finder of another package's that finds distributions) it asks
:mod:`importlib.metadata`. ``tests/test_entry_points.py`` checks that both find the same.

>>> [point.value for point in entry_points("podfold.recipes") if point.name == "podfold"]
['recipes:catalog']
>>> entry_points("no.such.group")
()
"""

from __future__ import annotations

import os
import re
import sys
from functools import lru_cache

from transforms._lazy import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

__all__ = ("EntryPoint", "entry_points")

_ENTRY = re.compile(r"\s*(?P<name>.+?)\s*=\s*(?P<value>.+?)\s*$")
_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")


class Distribution:
    """The distribution an entry point comes from: its ``name``, as its metadata gives it
    (read from its folder ``info`` when first asked for)."""

    __slots__ = ("_name", "_info")

    def __init__(self, name: str | None, info: str | None = None) -> None:
        self._name = name
        self._info = info

    @property
    def name(self) -> str:
        if self._name is None:
            self._name = (_name(self._info) if self._info is not None else None) or ""
        return self._name

    def __repr__(self) -> str:
        return f"Distribution({self.name!r})"


class EntryPoint:
    """An entry point: ``name = value`` in ``group``, of ``dist``; what
    :class:`importlib.metadata.EntryPoint` gives of it (``module``, ``attr``, :meth:`load`).

    >>> point = EntryPoint("podfold", "recipes:catalog", "podfold.recipes", None)
    >>> point.module, point.attr, point.load() is __import__("recipes").catalog
    ('recipes', 'catalog', True)
    """

    __slots__ = ("name", "value", "group", "dist")

    def __init__(self, name: str, value: str, group: str, dist: Any) -> None:
        self.name = name
        self.value = value
        self.group = group
        self.dist = dist

    @property
    def module(self) -> str:
        found = _VALUE.match(self.value)
        return found.group("module") if found else self.value

    @property
    def attr(self) -> str | None:
        found = _VALUE.match(self.value)
        return found.group("attr") if found else None

    def load(self) -> Any:
        """The object the entry point names: its module imported, then its attributes."""
        found = _VALUE.match(self.value)
        if found is None:
            raise ValueError(f"entry point {self.name}: {self.value!r} is not module:attribute")
        __import__(found.group("module"))
        value = sys.modules[found.group("module")]
        attributes = found.group("attr")
        for attribute in attributes.split(".") if attributes else ():
            value = getattr(value, attribute)
        return value

    def _key(self) -> tuple[str, str, str, str | None]:
        return (self.name, self.value, self.group, getattr(self.dist, "name", None))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EntryPoint) and other._key() == self._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"EntryPoint(name={self.name!r}, value={self.value!r}, group={self.group!r})"


def entry_points(group: str) -> tuple[EntryPoint, ...]:
    """The entry points of ``group`` that the distributions on ``sys.path`` declare, by
    name (as :func:`importlib.metadata.entry_points` finds them: the first distribution
    of a name on the path). Nothing is loaded."""
    return _scan(tuple(sys.path)).get(group, ())


@lru_cache(maxsize=1)
def _scan(path: tuple[str, ...]) -> dict[str, tuple[EntryPoint, ...]]:
    """Every entry point on ``path`` (the key: the scan reads ``sys.path``), by group."""
    found = _read_folders(path) if _plain(path) else None
    points = _from_importlib(path) if found is None else found
    groups: dict[str, list[EntryPoint]] = {}
    for point in points:
        groups.setdefault(point.group, []).append(point)
    return {
        group: tuple(sorted(each, key=lambda point: point.name)) for group, each in groups.items()
    }


def _plain(path: Iterable[str]) -> bool:
    """Whether :mod:`importlib.metadata` would find the distributions in ``path``'s
    folders alone: no entry that is a file (a zip), no finder but Python's own."""
    import importlib.machinery

    for finder in sys.meta_path:
        if hasattr(finder, "find_distributions") and finder is not importlib.machinery.PathFinder:
            return False
    return not any(os.path.isfile(entry) for entry in path if entry)


def _normalized(name: str) -> str:
    """A distribution's name as :mod:`importlib.metadata` compares them (PEP 503, with
    ``_``): ``Foo.Bar-baz`` and ``foo_bar_baz`` are one."""
    return re.sub(r"[-_.]+", "_", name).lower()


def _read_folders(path: Iterable[str]) -> list[EntryPoint] | None:
    """The entry points of the first distribution of each name in ``path``'s folders, as
    :mod:`importlib.metadata` reads them; ``None`` where it meets what it leaves to
    :mod:`importlib.metadata` (an egg). An ``entry_points.txt`` that is not UTF-8 (another
    package's, broken) gives none, where :mod:`importlib.metadata` fails on it."""
    seen: set[str] = set()
    points: list[EntryPoint] = []
    for entry in path:
        folder = entry or "."
        try:
            names = os.listdir(folder)
        except OSError:  # not there, or not readable: importlib.metadata skips it too
            continue
        for name in names:
            low = name.lower()
            if low.endswith(".egg"):
                return None
            if not low.endswith((".dist-info", ".egg-info")):
                continue
            normalized = _normalized(low.rpartition(".")[0].partition("-")[0])
            if normalized in seen:
                continue
            seen.add(normalized)
            info = os.path.join(folder, name)
            try:
                with open(os.path.join(info, "entry_points.txt"), encoding="utf-8") as text:
                    written = text.read()
            except OSError:  # none (most have none), or an egg-info file
                continue
            except UnicodeDecodeError:  # another package's broken file: none of its points
                continue
            points.extend(_parsed(written, Distribution(None, info)))
    return points


def _name(info: str) -> str | None:
    """The ``Name`` a distribution's metadata gives (its first lines), or ``None``."""
    for metadata in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(info, metadata), encoding="utf-8") as text:
                for line in text:
                    if not line.strip():
                        break  # the headers end at the first blank line
                    if line.lower().startswith("name:"):
                        return line.split(":", 1)[1].strip()
        except (OSError, UnicodeDecodeError):
            continue
    return None


def _parsed(text: str, dist: Distribution) -> list[EntryPoint]:
    """The entry points of ``dist`` its ``entry_points.txt`` declares (an INI file of
    groups, each line ``name = value``; ``#`` begins a comment), as
    :mod:`importlib.metadata` reads it."""
    points: list[EntryPoint] = []
    group = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            group = line[1:-1].strip()
            continue
        found = _ENTRY.match(line)
        if group is not None and found is not None:
            points.append(EntryPoint(found.group("name"), found.group("value"), group, dist))
    return points


def _from_importlib(path: Iterable[str]) -> list[EntryPoint]:
    """Every entry point of the first distribution of each name on ``path``, as
    :mod:`importlib.metadata` finds them."""
    import importlib.metadata

    seen: set[str] = set()
    points: list[EntryPoint] = []
    for found in importlib.metadata.distributions(path=list(path)):
        name = found.metadata["Name"] or ""
        if _normalized(name) in seen:
            continue
        seen.add(_normalized(name))
        dist = Distribution(name)
        points.extend(
            EntryPoint(point.name, point.value, point.group, dist) for point in found.entry_points
        )
    return points
