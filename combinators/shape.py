"""Only JSON-shaped data gets in; nothing nests without bound; functions cannot hurt the caller.

What a transform inserts into a document (a combinator's value, a partial
pod, a patch) may only be what JSON can carry: strings, numbers, booleans,
``None``, lists and maps with string keys, nested at most
:data:`~combinators.limits.MAX_DEPTH` levels and never containing itself.
:func:`check_value` refuses anything else when the transform is built,
naming the place inside the value:

>>> check_value({"labels": {"team": b"ml"}}, argument="value", factory="upsert")
Traceback (most recent call last):
  ...
combinators.errors.ArgumentTypeError: upsert(): value.labels.team is a bytes (b'ml'); only strings, numbers, booleans, null, lists and maps with string keys can go into a document
>>> loop = {}; loop["self"] = loop
>>> check_value({"labels": loop}, argument="value", factory="upsert")
Traceback (most recent call last):
  ...
combinators.errors.ArgumentError: upsert(): value.labels is a cycle: value.labels.self is value.labels again

A function of the caller's is given a copy of the document
(:func:`guarded_copy`), so what it does to its argument never reaches the
caller's document; :func:`settle` takes what it returned as podfold's own
(sharing the input's unchanged parts, copying the rest, changing nothing the
function holds) and finds what JSON cannot carry in it.
"""

from __future__ import annotations

from itertools import islice

from combinators._typing import TYPE_CHECKING
from combinators.data import MISSING, is_map, is_persistent, is_seq, strict_equal
from combinators.errors import ArgumentError, ArgumentTypeError, NestingError
from combinators.limits import MAX_DEPTH, short_repr
from combinators.paths import Index, Key, Part, Path

if TYPE_CHECKING:
    from typing import Any

__all__ = (
    "check_value",
    "check_flag",
    "value_problem",
    "place_text",
    "guarded_copy",
    "settle",
    "JSON_ONLY",
    "UnfitValue",
)

JSON_ONLY = (
    "only strings, numbers, booleans, null, lists and maps with string keys can go into a document"
)

# the scalars JSON carries as they are (a float only where finite: JSON has no NaN or Infinity)
_OK = frozenset({str, int, bool, type(None)})


class UnfitValue(Exception):
    """A place in a value that JSON cannot carry, as :func:`_walk` finds it: where (``parts``),
    what, and of which sort; raised and caught inside podfold, never reaching a caller."""

    def __init__(self, parts: tuple[Part, ...], what: str, sort: str) -> None:
        super().__init__(what)
        self.parts = parts
        self.what = what
        self.sort = sort  # "type", "depth" or "cycle"


def place_text(base: str, parts: tuple[Part, ...], limit: int = 160) -> str:
    """``base`` followed by ``parts`` as a path (cut short in the middle when long).

    >>> place_text("value", (Key("labels"), Index(0)))
    'value.labels[0]'
    >>> place_text("", (Key("spec"), Key("nodeSelector")))
    'spec.nodeSelector'
    >>> place_text("", ())
    'the top level'
    """
    text = str(Path(parts))
    if base:
        text = base + ("" if not text or text.startswith("[") else ".") + text
    if not text:
        return "the top level"
    if len(text) > limit:
        text = f"{text[: limit // 2 - 2]}...{text[-(limit // 2 - 2) :]} ({len(parts)} levels)"
    return text


def _parts(trail: list[Any]) -> tuple[Part, ...]:
    return tuple(Index(step) if type(step) is int else Key(step) for step in trail)


def _too_deep(root: Any, trail: list[Any], markers: tuple[type, ...] = ()) -> UnfitValue:
    """Too deep at ``trail``: a cycle if a container on the way is its own ancestor."""
    seen: dict[int, int] = {}
    node = root
    for level in range(len(trail) + 1):
        first = seen.setdefault(id(node), level)
        if first != level:
            return UnfitValue(_parts(trail[:first]), "", "cycle")
        if level < len(trail):
            while markers and isinstance(node, markers):
                node = getattr(node, "value")  # noqa: B009 - a marker's value
            node = node[trail[level]]
    return UnfitValue(_parts(trail), f"nests deeper than {MAX_DEPTH} levels", "depth")


class _Deep(Exception):
    """Deeper than allowed at ``trail``; :func:`_too_deep` says whether it is a cycle."""

    def __init__(self, trail: list[Any]) -> None:
        super().__init__()
        self.trail = list(trail)


def _walk(value: Any, trail: list[Any], depth: int, markers: tuple[type, ...]) -> None:
    """Raise :class:`UnfitValue` (or :class:`_Deep`) at the first place JSON cannot carry."""
    cls = type(value)
    if cls is dict or (cls is not list and is_map(value)):
        if depth >= MAX_DEPTH:
            raise _Deep(trail)
        depth += 1
        for key, item in value.items():
            if type(key) is not str and not isinstance(key, str):
                raise UnfitValue(
                    _parts(trail),
                    f"has a key that is not a string: {short_repr(key, 60)} ({type(key).__name__})",
                    "type",
                )
            if not key.isascii():
                _check_text(key, trail, "has a key that")
            if type(item) is str:
                if not item.isascii():
                    trail.append(key)
                    _check_text(item, trail, "is a string that")
                    trail.pop()
            elif type(item) not in _OK:
                trail.append(key)
                _walk(item, trail, depth, markers)
                trail.pop()
        return
    if cls is list or is_seq(value):
        if depth >= MAX_DEPTH:
            raise _Deep(trail)
        depth += 1
        for position, item in enumerate(value):
            if type(item) is str:
                if not item.isascii():
                    trail.append(position)
                    _check_text(item, trail, "is a string that")
                    trail.pop()
            elif type(item) not in _OK:
                trail.append(position)
                _walk(item, trail, depth, markers)
                trail.pop()
        return
    if markers and isinstance(value, markers):
        _walk(getattr(value, "value"), trail, depth, markers)  # noqa: B009
        return
    if isinstance(value, str):
        if not value.isascii():
            _check_text(value, trail, "is a string that")
        return
    if isinstance(value, float):
        if value - value != 0.0:  # nan and the infinities: nan - nan and inf - inf are nan
            raise UnfitValue(
                _parts(trail),
                f"is {value!r}, a number JSON cannot carry (JSON numbers are finite)",
                "type",
            )
        return
    if cls in _OK or isinstance(value, int):
        return
    raise UnfitValue(_parts(trail), f"is {_what(value)}", "type")


def _check_text(text: str, trail: list[Any], what: str) -> None:
    """Text JSON can carry: no lone half of a UTF-16 surrogate pair (``"\\ud800"``)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise UnfitValue(
            _parts(trail),
            f"{what} holds {text[err.start]!r} at character "
            f"{err.start + 1}, half of a UTF-16 pair, which is "
            f"no text",
            "type",
        ) from None


def _find(value: Any, markers: tuple[type, ...]) -> UnfitValue | None:
    try:
        _walk(value, [], 0, markers)
    except UnfitValue as problem:
        return problem
    except _Deep as deep:
        return _too_deep(value, deep.trail, markers)
    return None


def _what(value: Any) -> str:
    name = type(value).__name__
    article = "an" if name[:1].lower() in "aeiou" else "a"
    return f"{article} {name} ({short_repr(value, 60)})"


def value_problem(value: Any, markers: tuple[type, ...] = ()) -> UnfitValue | None:
    """The first place in ``value`` that JSON cannot carry, or ``None``.

    ``markers`` are wrapper types (a partial pod's markers) whose ``.value``
    is checked in their place.

    >>> value_problem({"a": [1, "x", None, {"b": 2.5}]}) is None
    True
    >>> found = value_problem({"a": [1, {2, 3}]})
    >>> str(Path(found.parts)), found.what
    ('a[1]', 'is a set ({2, 3})')
    """
    if type(value) in _OK:
        return None
    return _find(value, markers)


def _describe(problem: UnfitValue, base: str) -> str:
    where = place_text(base, problem.parts)
    return f"{where} {problem.what}" + (f"; {JSON_ONLY}" if problem.sort == "type" else "")


def check_value(
    value: Any,
    *,
    argument: str,
    factory: str | None = None,
    markers: tuple[type, ...] = (),
    located: bool = False,
) -> None:
    """Refuse, when a transform is built, a value JSON cannot carry, naming the place in it.

    An :class:`~combinators.errors.ArgumentTypeError` for a wrong type or a
    key that is no string, an :class:`~combinators.errors.ArgumentError` for
    a value nested deeper than :data:`~combinators.limits.MAX_DEPTH` levels
    or containing itself. With ``located``, the error's ``path`` is the place
    inside ``value`` (for a value that is a document's part, such as a partial pod).

    >>> check_value(["--fast", {"a": 1}], argument="items", factory="append_at")
    >>> check_value({1: "a"}, argument="value", factory="upsert")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentTypeError: upsert(): value has a key that is not a string: 1 (int); only strings, numbers, booleans, null, lists and maps with string keys can go into a document
    """
    if type(value) in _OK:
        return
    problem = _find(value, markers)
    if problem is not None:
        err = problem_error(problem, value, argument=argument, factory=factory)
        if located:
            err.path = Path(problem.parts)
        raise err


def check_flag(value: Any, *, argument: str, factory: str | None = None) -> None:
    """Refuse a flag that is not ``True`` or ``False`` (``"false"`` and ``"no"`` are truthy).

    >>> check_flag(False, argument="unique", factory="append_at")
    >>> check_flag("false", argument="unique", factory="append_at")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentTypeError: append_at(): unique is a flag, true or false; got a string ('false')
    """
    if type(value) is not bool:
        raise ArgumentTypeError(
            f"{argument} is a flag, true or false; got {_kind(value)}",
            argument=argument,
            factory=factory,
            value=value,
        )


def _kind(value: Any) -> str:
    if isinstance(value, str):
        return f"a string ({short_repr(value, 60)})"
    if isinstance(value, (int, float)):
        return f"a number ({short_repr(value)})"
    return "null" if value is None else _what(value)


def problem_error(
    problem: UnfitValue, value: Any, *, argument: str, factory: str | None = None
) -> ArgumentError:
    """The construction error for ``problem`` found in ``value`` (given as ``argument``)."""
    message = problem_text(problem, argument, value)
    kind = ArgumentTypeError if problem.sort == "type" else ArgumentError
    return kind(message, argument=argument, factory=factory, value=None)


def problem_text(problem: UnfitValue, base: str, value: Any) -> str:
    """``problem`` in words, the place written after ``base``; ``value`` is where it was found."""
    if problem.sort == "cycle":
        where = place_text(base, problem.parts)
        back = _back_reference(value, problem.parts)
        return f"{where} is a cycle: {place_text(base, back)} is {where} again"
    return _describe(problem, base)


def _back_reference(value: Any, parts: tuple[Part, ...]) -> tuple[Part, ...]:
    """The place below ``parts`` (a container) where the container comes back, first found."""
    node = value
    for part in parts:
        node = node[part.name] if isinstance(part, Key) else node[part.index]  # type: ignore[attr-defined]
    target = id(node)
    trail: list[Part] = list(parts)
    # breadth-first, bounded: the reference back is at most MAX_DEPTH levels below
    frontier: list[tuple[Any, tuple[Part, ...]]] = [(node, tuple(trail))]
    for _ in range(MAX_DEPTH):
        following: list[tuple[Any, tuple[Part, ...]]] = []
        for container, where in frontier:
            children = (
                ((Key(str(k)), v) for k, v in container.items())
                if is_map(container)
                else ((Index(i), v) for i, v in enumerate(container))
            )
            for part, child in children:
                if id(child) == target:
                    return (*where, part)
                if is_map(child) or is_seq(child):
                    following.append((child, (*where, part)))
        frontier = following[:10_000]
        if not frontier:
            break
    return parts


def guarded_copy(doc: Any, where: str = "") -> Any:
    """A copy of ``doc``'s maps and lists, for a function of the caller's to have.

    Whatever the function does to it never reaches ``doc``. Persistent
    values (``PMap``, ``PVector``) are immutable and kept as they are;
    scalars are shared. A document nested deeper than
    :data:`~combinators.limits.MAX_DEPTH` levels, or containing itself, is a
    :class:`~combinators.errors.NestingError` naming the place.

    >>> pod = {"spec": {"containers": [{"name": "a"}]}}
    >>> copy = guarded_copy(pod)
    >>> copy == pod, copy["spec"]["containers"][0] is pod["spec"]["containers"][0]
    (True, False)
    """
    if type(doc) is not dict and type(doc) is not list and not isinstance(doc, (dict, list)):
        return doc
    try:
        return _copy(doc, 0)
    except _TooDeep:
        pass
    problem = _find(doc, ())
    if problem is not None and problem.sort != "type":
        raise NestingError(
            _nesting_text(problem, doc, where),
            path=Path(problem.parts),
            cycle=problem.sort == "cycle",
        )
    raise NestingError(
        f"the document nests deeper than {MAX_DEPTH} levels", path=None
    )  # pragma: no cover - _walk finds it


def _nesting_text(problem: UnfitValue, doc: Any, where: str) -> str:
    text = problem_text(problem, "", doc)
    return f"{where}: {text}" if where else f"the document: {text}"


class _TooDeep(Exception):
    pass


_CONTAINERS = (dict, list, tuple)


def _copy(value: Any, depth: int) -> Any:
    if depth >= MAX_DEPTH:
        raise _TooDeep
    depth += 1
    cls = type(value)
    if cls is dict:
        new = value.copy()
        for key, item in new.items():
            kind = type(item)
            if (
                kind is dict
                or kind is list
                or (kind not in _OK and isinstance(item, _CONTAINERS) and not is_persistent(item))
            ):
                new[key] = _copy(item, depth)
        return new
    if cls is list:
        new_list = value.copy()
        for position, item in enumerate(new_list):
            kind = type(item)
            if (
                kind is dict
                or kind is list
                or (kind not in _OK and isinstance(item, _CONTAINERS) and not is_persistent(item))
            ):
                new_list[position] = _copy(item, depth)
        return new_list
    if cls is not tuple and isinstance(value, tuple):
        # a named tuple: immutable, kept, unless it holds maps or lists, which are copied
        if not any(isinstance(item, _CONTAINERS) and not is_persistent(item) for item in value):
            return value
        items = [
            _copy(item, depth)
            if isinstance(item, _CONTAINERS) and not is_persistent(item)
            else item
            for item in value
        ]
        make = getattr(cls, "_make", None)
        return make(items) if callable(make) else tuple(items)
    items = [
        _copy(item, depth) if isinstance(item, _CONTAINERS) and not is_persistent(item) else item
        for item in (value.values() if isinstance(value, dict) else value)
    ]
    if isinstance(value, dict):
        return dict(zip(value.keys(), items, strict=True))
    return tuple(items) if cls is tuple else items


def settle(new: Any, old: Any) -> Any:
    """What a function returned (``new``) for ``old``: podfold's own, sharing what it left unchanged.

    Where a part of ``new`` equals the part of ``old`` at the same place, the
    part of ``old`` takes its place (so unchanged parts are shared, and an
    unchanged whole is ``old`` itself); only the parts that differ are
    checked, and a part JSON cannot carry raises :class:`UnfitValue` (its
    ``parts`` say where). ``new`` is left as it was, and what comes back holds
    none of its maps and lists: where it differs from ``old`` the maps and
    lists are new ones, so the function may keep what it returned, and change
    it later, without reaching the result (nor the result the function's value).

    >>> old = {"spec": {"a": [1, 2]}, "metadata": {"name": "x"}}
    >>> settle({"spec": {"a": [1, 2]}, "metadata": {"name": "x"}}, old) is old
    True
    >>> returned = {"spec": {"a": [1, 2]}, "metadata": {"name": "y"}}
    >>> new = settle(returned, old)
    >>> new["spec"] is old["spec"], new["metadata"]["name"], returned["spec"] is old["spec"]
    (True, 'y', False)
    >>> new is returned, new["metadata"] is returned["metadata"]
    (False, False)
    """
    trail: list[Any] = []
    try:
        return _settle(new, old, trail)
    except _Deep as deep:
        raise _too_deep(new, deep.trail) from None


def _settle(new: Any, old: Any, trail: list[Any]) -> Any:
    if new is old:
        return old
    kind = type(new)
    if kind in _OK:
        if type(old) is kind and new == old:
            return old
        if kind is str and not new.isascii():
            _check_text(new, trail, "is a string that")
        return new
    if kind is float:
        if type(old) is float and new == old:
            return old
        _walk(new, trail, len(trail), ())  # finite, or refused
        return new
    if kind is dict and type(old) is dict:
        # built only once a part differs: until then every part so far is old's
        merged: dict[Any, Any] | None = None if len(new) == len(old) else {}
        alike = 0
        for key, item in new.items():
            before = old.get(key, MISSING)
            if item is not before:
                if before is MISSING:
                    # a key of old's is the caller's, not the function's doing
                    if type(key) is not str and not isinstance(key, str):
                        raise UnfitValue(
                            _parts(trail),
                            f"has a key that is not a string: "
                            f"{short_repr(key, 60)} "
                            f"({type(key).__name__})",
                            "type",
                        )
                    trail.append(key)
                    value = _fresh(item, trail)
                else:
                    trail.append(key)
                    value = _settle(item, before, trail)
                trail.pop()
                if value is not before:
                    if merged is None:
                        merged = {earlier: old[earlier] for earlier in islice(new, alike)}
                    merged[key] = value
                    continue
            if merged is None:
                alike += 1
            else:
                merged[key] = before
        return old if merged is None else merged
    if kind is list and type(old) is list:
        size = len(old)
        result: list[Any] | None = None if len(new) == size else []
        for position, item in enumerate(new):
            before = old[position] if position < size else MISSING
            if item is not before:
                trail.append(position)
                value = _fresh(item, trail) if before is MISSING else _settle(item, before, trail)
                trail.pop()
                if value is not before:
                    if result is None:
                        result = old[:position]
                    result.append(value)
                    continue
            if result is not None:
                result.append(before)
        return old if result is None else result
    if (is_map(new) or is_seq(new)) and strict_equal(new, old):
        return old  # persistent values, tuples: equal as a whole, or checked as a whole
    return _fresh(new, trail)


def _fresh(value: Any, trail: list[Any]) -> Any:
    """``value``, with nothing of ``old`` to share: checked, and its maps and lists copied."""
    _walk(value, trail, len(trail), ())
    if type(value) in _OK or not isinstance(value, _CONTAINERS) or is_persistent(value):
        return value
    return _copy(value, 0)  # _walk has bounded its depth
