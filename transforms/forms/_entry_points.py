"""The entry points of one group, as ``importlib.metadata.entry_points(group=...)`` finds
them, without importing ``importlib.metadata`` where that can be avoided.

Importing ``importlib.metadata`` imports ``email`` (with ``socket``, ``calendar``,
``random``), ``zipfile``, ``pathlib``, ``csv`` and ``textwrap``: tens of milliseconds,
more than the rest of a ``podfold apply`` of a small manifest, which finds its recipes
through the entry point group ``podfold.recipes``. Where every distribution finder
on ``sys.meta_path`` is the standard path finder and ``sys.path`` holds directories
(and paths that do not exist), :func:`entry_points` reads the same files in the same
order as ``importlib.metadata`` (Python 3.10 to 3.13): each ``sys.path`` entry in turn,
its ``*.dist-info`` and ``*.egg-info`` entries grouped by normalized name in the
order the directory lists them, the first distribution of each name winning, each
one's ``entry_points.txt`` read as its parser reads it. Anywhere else (a zip file or
an egg on ``sys.path``, another finder of distributions, a name that only the
distribution's metadata can tell) it asks ``importlib.metadata``.

>>> [point.value for point in entry_points("podfold.recipes")]  # doctest: +SKIP
['recipes:catalog']
>>> EntryPoint("dumps", "json:dumps", "any").load()([1])
'[1]'
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from typing import Any

__all__ = ("EntryPoint", "entry_points")

_SUFFIXES = (".dist-info", ".egg-info")


class EntryPoint:
    """One entry point: ``name = value`` in the ``[group]`` section of a distribution's
    ``entry_points.txt``. (Not a named tuple: building that class costs more than a scan.)

    >>> EntryPoint("podfold", "recipes:catalog", "podfold.recipes")
    EntryPoint(name='podfold', value='recipes:catalog', group='podfold.recipes')
    """

    __slots__ = ("name", "value", "group")

    def __init__(self, name: str, value: str, group: str) -> None:
        self.name = name
        self.value = value
        self.group = group

    def __repr__(self) -> str:
        return f"EntryPoint(name={self.name!r}, value={self.value!r}, group={self.group!r})"

    def load(self) -> Any:
        """The object ``value`` names (``module:attribute.attribute``), as
        ``importlib.metadata.EntryPoint.load`` finds it: the module is imported."""
        import functools
        from importlib import import_module

        match = re.match(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?"
                         r"((?P<extras>\[.*\])\s*)?$", self.value)
        if match is None:
            raise ValueError(f"entry point {self.name!r} of group {self.group!r}: "
                             f"{self.value!r} names no module")
        module = import_module(match.group("module"))
        attributes = filter(None, (match.group("attr") or "").split("."))
        return functools.reduce(getattr, attributes, module)


class _Unusual(Exception):
    """Something only ``importlib.metadata`` reads as it should."""


def entry_points(group: str) -> list[EntryPoint]:
    """The entry points of ``group`` of the installed distributions, in the order
    ``importlib.metadata.entry_points(group=group)`` gives them."""
    try:
        return list(_scan(group))
    except _Unusual:
        from importlib.metadata import entry_points as metadata_entry_points

        return [EntryPoint(point.name, point.value, point.group)
                for point in metadata_entry_points(group=group)]


def _scan(group: str) -> Iterator[EntryPoint]:
    from importlib.machinery import PathFinder

    if any(finder is not PathFinder for finder in sys.meta_path
           if getattr(finder, "find_distributions", None) is not None):
        raise _Unusual
    # importlib.metadata keeps the first distribution of each name, one path after another
    unique: dict[str, tuple[str, str]] = {}
    for root in sys.path:
        if not isinstance(root, str) or os.path.basename(root).lower().endswith(".egg"):
            raise _Unusual
        for name, child in _distributions(root).items():
            unique.setdefault(name, (root, child))
    for root, child in unique.values():
        yield from _parsed(_read(os.path.join(root, child, "entry_points.txt")), group)


def _distributions(root: str) -> dict[str, str]:
    """The first metadata directory of each normalized name in ``root``, in listing order."""
    try:
        children = os.listdir(root or ".")
    except NotADirectoryError:  # a zip file, perhaps: importlib.metadata reads those
        raise _Unusual from None
    except OSError:  # not there, or not readable: importlib.metadata finds nothing either
        return {}
    infos: dict[str, str] = {}
    for child in children:
        low = child.lower()
        if low.endswith(_SUFFIXES):
            stem = low.rpartition(".")[0]
            if not child.endswith(_SUFFIXES) or not stem:  # its name is read from its metadata
                raise _Unusual
            name = _normalized(stem.partition("-")[0])
            infos.setdefault(name, child)
    return infos


def _normalized(name: str) -> str:
    """PEP 503's normalization, dashes as underscores (importlib.metadata's ``Prepared``)."""
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


def _read(file: str) -> str:
    try:
        with open(file, encoding="utf-8") as handle:
            return handle.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
        return ""


def _parsed(text: str, group: str) -> Iterator[EntryPoint]:
    """The ``group`` section's entry points; a line with no ``=`` in any section is a
    ``ValueError``, as it is to importlib.metadata."""
    section: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
            continue
        if section is None:
            continue
        name, value = line.split("=", 1)
        if section == group:
            yield EntryPoint(name.strip(), value.strip(), section)
