"""Reading what a path points at, without changing anything.

>>> pod = {"spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]}}
>>> select(pod, "spec.containers[*].image")
['x', 'y']
>>> get_at(pod, "spec.containers[name=b].image")
'y'
"""

from __future__ import annotations

from combinators._typing import TYPE_CHECKING
from combinators.data import MISSING, is_map, is_seq, kind_name
from combinators.editing import missing_key_error, no_match_error
from combinators.errors import ArgumentError, PathError, TypeClashError
from combinators.paths import All, End, Index, Key, Match, Path, PathLike, as_path

if TYPE_CHECKING:
    from typing import Any

__all__ = ("select", "get_at", "exists")


def _step(node: Any, part: Any) -> list[Any]:
    if type(part) is Key:
        if is_map(node):
            child = node.get(part.name, MISSING)
            return [] if child is MISSING else [child]
        return []
    if not is_seq(node):
        return []
    if type(part) is All:
        return list(node)
    if type(part) is Match:
        return [element for element in node if part.matches(element)]
    if type(part) is Index:
        size = len(node)
        return [node[part.index]] if -size <= part.index < size else []
    return []  # End selects nothing that exists


def _path(target: PathLike, factory: str, doc: Any = None) -> Path:
    if type(target) is Path:
        return target
    try:
        return as_path(target)
    except ArgumentError as err:
        if isinstance(doc, (str, Path)) and not isinstance(target, (str, Path)):
            err.message += f" (the document comes first: {factory}(doc, {doc!r}))"
        raise err.in_factory(factory) from None


def select(doc: Any, target: PathLike) -> list[Any]:
    """Every value ``target`` reaches in ``doc``, in document order; ``[]`` where none.

    >>> select({"spec": {}}, "spec.tolerations[*]")
    []
    """
    return _select(doc, _path(target, "select", doc))


def _select(doc: Any, target: Path) -> list[Any]:
    frontier = [doc]
    for part in target.parts:
        frontier = [child for node in frontier for child in _step(node, part)]
        if not frontier:
            break
    return frontier


def exists(doc: Any, target: PathLike) -> bool:
    """Whether ``target`` reaches at least one value in ``doc``.

    >>> exists({"spec": {"hostIPC": False}}, "spec.hostIPC")
    True
    """
    return bool(_select(doc, _path(target, "exists", doc)))


def get_at(doc: Any, target: PathLike, default: Any = MISSING) -> Any:
    """The first value ``target`` reaches in ``doc``.

    Where it reaches none, ``default`` if one is given, else a
    :class:`~combinators.errors.PathError` naming the part that failed and
    the near misses.

    >>> get_at({"spec": {}}, "spec.nodeSelector", default={})
    {}
    >>> get_at({"spec": {"nodeSelector": {}}}, "spec.nodeSelectr")
    Traceback (most recent call last):
      ...
    combinators.errors.PathError: no key 'nodeSelectr' in spec (part 2 of spec.nodeSelectr); did you mean nodeSelector?; present: nodeSelector
    """
    where = _path(target, "get_at", doc)
    frontier = [doc]
    for index, part in enumerate(where.parts):
        found = [child for node in frontier for child in _step(node, part)]
        if not found:
            if default is not MISSING:
                return default
            raise _explain(where, index, frontier[0])
        frontier = found
    return frontier[0]


def _explain(where: Path, index: int, node: Any) -> PathError | TypeClashError:
    part = where.parts[index]
    if type(part) is Key:
        if not is_map(node):
            return TypeClashError(
                f"cannot take key {part.name!r} of {kind_name(node)}",
                path=where,
                part_index=index,
                expected="a map",
                found=kind_name(node),
            )
        return missing_key_error(where, index, node, part.name)
    if not is_seq(node):
        return TypeClashError(
            f"cannot select {part.text()} in {kind_name(node)}",
            path=where,
            part_index=index,
            expected="a list",
            found=kind_name(node),
        )
    if isinstance(part, End):
        return PathError(
            "[-] points past the end of the list and holds no value", path=where, part_index=index
        )
    assert isinstance(part, (Match, Index, All))
    return no_match_error(where, index, node, part)
