"""Compiling a path into a function specialised for it: the fast path of every edit.

Most edits walk plain dicts and lists where every part of the path selects
exactly one existing container. For that case the path is compiled, once,
into straight-line Python (as ``dataclasses`` and ``attrs`` compile their
methods): no loop over parts, no dispatch on their kinds. The function
returns :data:`FALLBACK`, having changed nothing, for anything else (a
missing parent to create, several matches, a persistent document, a removal),
and the general walk in :mod:`combinators.editing` takes over.

The function copies the containers along the path, up to the first one the
current application already made (see :mod:`combinators.owned`), and sets
in place from there. Being generated code on the hottest path, it reads the
record's dict directly rather than through :class:`~combinators.owned.Owned`'s
methods, and does what :meth:`~combinators.owned.Owned.writable_map` does.

>>> from combinators.paths import Path
>>> fast = compile_path(Path.parse("spec.nodeSelector.gpu"), create=True)
>>> pod = {"spec": {"nodeSelector": {}}, "metadata": {}}
>>> new = fast(pod, Owned(), lambda old, persistent, owned: "a100")
>>> new, pod["spec"]["nodeSelector"], new["metadata"] is pod["metadata"]
({'spec': {'nodeSelector': {'gpu': 'a100'}}, 'metadata': {}}, {}, True)
"""

from __future__ import annotations

from combinators._typing import TYPE_CHECKING
from combinators.data import MISSING, REMOVE
from combinators.owned import Owned
from combinators.paths import All, End, Index, Key, Match, Part, Path

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Leaf = Callable[[Any, bool, Owned], Any]
    Compiled = Callable[[dict[str, Any], Owned, Leaf], Any]
else:

    def __getattr__(name: str) -> object:
        # the type aliases, for code that reads them at run time: built then, as
        # importing typing costs more than all of combinators
        if name in ("Leaf", "Compiled"):
            from collections.abc import Callable
            from typing import Any

            leaf = Callable[[Any, bool, Owned], Any]
            return leaf if name == "Leaf" else Callable[[dict[str, Any], Owned, leaf], Any]
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ("compile_path", "FALLBACK", "Leaf", "Compiled")

FALLBACK: Any = type("Fallback", (), {"__repr__": lambda self: "FALLBACK"})()
"""What a compiled path returns when the general walk must do the work."""


def _only_match(seq: list[Any], part: Match) -> int | None:
    """The position of the one element ``part`` matches, or ``None``."""
    found = None
    field, value, single = part.field, part.value, len(part.fields) == 1
    value_type = type(value)
    for position, element in enumerate(seq):
        if type(element) is dict:
            present = element.get(field, MISSING)
            if present is not value and (present != value or type(present) is not value_type):
                continue
            if not single and not part.matches(element):
                continue
        elif not part.matches(element):
            continue
        if found is not None:
            return None
        found = position
    return found


def _select(lines: list[str], names: dict[str, Any], part: Part, index: int, last: bool) -> str:
    """Lines that find ``part`` in ``n<index>`` (whose kind is already checked).

    They set ``old`` (for the last part) or ``n<index+1>``; the text returned
    is the slot to set on the way back (a constant, a variable, or ``None``
    for an append).
    """
    node, child, slot = f"n{index}", "old" if last else f"n{index + 1}", f"s{index}"
    if isinstance(part, Key):
        names[f"K{index}"] = part.name
        lines.append(
            f"    {child} = {node}.get(K{index}, MISSING)"
            if last
            else f"    {child} = {node}.get(K{index})"
        )
        return f"K{index}"
    if isinstance(part, Index):
        lines.append(f"    if not -len({node}) <= {part.index} < len({node}): return FALLBACK")
        position = f"len({node}) + {part.index}" if part.index < 0 else str(part.index)
        lines.append(f"    {slot} = {position}")
        lines.append(f"    {child} = {node}[{slot}]")
        return slot
    if isinstance(part, End):
        lines.append(f"    {child} = MISSING")
        return "None"
    assert isinstance(part, Match)
    names[f"P{index}"] = part
    if len(part.fields) == 1:
        names[f"F{index}"], names[f"V{index}"] = part.field, part.value
        names[f"T{index}"] = type(part.value)
        lines += [
            f"    {slot} = None",
            f"    for position, element in enumerate({node}):",
            "        if type(element) is dict:",
            f"            found = element.get(F{index}, MISSING)",
            f"            if found is V{index} or (found == V{index} and type(found) is T{index}):",
            f"                if {slot} is not None: return FALLBACK",
            f"                {slot} = position",
            f"        elif P{index}.matches(element): return FALLBACK",
        ]
    else:
        lines.append(f"    {slot} = only_match({node}, P{index})")
    lines.append(f"    if {slot} is None: return FALLBACK")
    lines.append(f"    {child} = {node}[{slot}]")
    return slot


_CACHE: dict[tuple[Path, bool, bool, bool], Compiled | None] = {}
_CACHE_SIZE = 4096


def compile_path(
    path: Path, *, create: bool, lone: bool = False, append: bool = False
) -> Compiled | None:
    """The fast path for ``path``, or ``None`` where it has none (``[*]``, the root).

    ``create`` says whether the leaf is called where the last part finds
    nothing (a missing key, the end of a list); without it, that case falls
    back. The compiled function takes the document, ``owned`` and the leaf.

    ``lone`` compiles the variant for a transform called on its own, where
    ``owned`` is new: then no container along the path can be one the
    application made (the leaf only ever makes containers below it), so each
    is copied without a look at ``owned``, and the copies, which nothing will
    see again, are not recorded.

    ``append`` compiles the leaf in too, for the commonest edit of all: the
    third argument is then not a leaf function but a tuple of maps (or
    lists) of scalars, a copy of each appended to the list the path finds
    (anything but a list there falls back).

    Each path and variant is compiled once and kept; when 4,096 are kept,
    all are dropped (one atomic step, safe across threads).

    >>> where = Path.parse("spec.containers[name=a].env")
    >>> compile_path(where, create=True) is compile_path(where, create=True)
    True
    >>> compile_path(where, create=True) is compile_path(where, create=True, lone=True)
    False
    """
    key = (path, create, lone, append)
    found = _CACHE.get(key, MISSING)
    if found is MISSING:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.clear()
        found = _CACHE[key] = _compile(path, create, lone, append)
    compiled: Compiled | None = found
    return compiled


def _compile(path: Path, create: bool, lone: bool, append: bool) -> Compiled | None:
    parts = path.parts
    if (
        not parts
        or not isinstance(parts[0], Key)
        or any(isinstance(part, All) for part in parts)
        or any(isinstance(part, End) for part in parts[:-1])
    ):
        return None  # the fast path starts in a dict and selects one thing per part
    names: dict[str, Any] = {
        "FALLBACK": FALLBACK,
        "MISSING": MISSING,
        "REMOVE": REMOVE,
        "only_match": _only_match,
    }
    # the caller has checked that the document is a dict
    lines = ["def fast(n0, owned, leaf):"]
    last = len(parts) - 1
    slots = []
    for index, part in enumerate(parts):
        if index > 0:  # the kind this part needs of the container it looks in
            kind = "dict" if isinstance(part, Key) else "list"
            lines.append(f"    if type(n{index}) is not {kind}: return FALLBACK")
        slots.append(_select(lines, names, part, index, index == last))
    if not create:
        lines.append("    if old is MISSING: return FALLBACK")
    if append:  # what Owned.writable_list does, then the items
        lines.append("    if type(old) is not list: return FALLBACK")
        if lone:
            lines.append("    new = old.copy()")
        else:
            lines += [
                "    made = owned._made",
                "    if id(old) in made:",
                "        new = old",
                "    else:",
                "        new = old.copy()",
                "        made[id(new)] = new",
            ]
        lines += ["    for item in leaf: new.append(item.copy())", "    if new is old: return n0"]
    else:
        lines += [
            "    new = leaf(old, False, owned)",
            "    if new is old: return n0",
            "    if new is REMOVE or new is MISSING: return FALLBACK",
        ]
        if not lone:
            # read after the leaf ran: it may have made containers, or forgotten them all
            lines.append("    made = owned._made")
    # set ``new`` and copy upwards, until a container this application made
    for index in range(last, -1, -1):
        node, slot = f"n{index}", slots[index]
        put = "{target}.append(new)" if slot == "None" else f"{{target}}[{slot}] = new"
        if not lone:
            lines += [
                f"    if id({node}) in made:",
                "        " + put.format(target=node),
                "        return n0",
            ]
        lines += [
            f"    new_{index} = {node}.copy()",
            "    " + put.format(target=f"new_{index}"),
        ]
        if not lone:
            lines.append(f"    made[id(new_{index})] = new_{index}")
        lines.append(f"    new = new_{index}")
    lines.append("    return new")
    source = "\n".join(lines)
    code = compile(source, f"<compiled path {path}>", "exec")
    exec(code, names)  # the source is ours: built above from the parts, no user text in it
    compiled: Compiled = names.pop("fast")  # not kept in its own globals: no cycle
    return compiled
