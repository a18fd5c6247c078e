"""Paths: one small grammar to point into nested maps and lists.

A path is a sequence of parts, written like
``spec.containers[name=trainer].env[name=NCCL_DEBUG].value``:

=============================  ==================================================
``name`` / ``["a.b/c"]``         a key of a map (quote keys with dots or brackets)
``[0]``, ``[-1]``                 an element of a list by index
``[-]``                           the end of a list: a new element goes there
``[*]``                           every element of a list
``[name=trainer]``                the elements whose field equals the value
``[containerPort=29500,protocol=TCP]``  several fields must all match
=============================  ==================================================

Unquoted match values that look like integers, ``true``/``false`` or ``null``
become those values; quote them (``[name="8080"]``) to keep a string.

>>> p = path('spec.containers[name=trainer].env[-]')
>>> p
path('spec.containers[name=trainer].env[-]')
>>> str(p)
'spec.containers[name=trainer].env[-]'
>>> path('metadata.annotations["sidecar.istio.io/inject"]').parts[-1]
Key('sidecar.istio.io/inject')
>>> path('ports[containerPort=29500,protocol=TCP]').parts[-1]
Match((('containerPort', 29500), ('protocol', 'TCP')))
>>> path('spec.containers[name=trainer')
Traceback (most recent call last):
  ...
combinators.errors.PathSyntaxError: expected ']' to close the selector at character 29
  spec.containers[name=trainer
                              ^
"""

from __future__ import annotations

from combinators._typing import TYPE_CHECKING
from combinators.errors import ArgumentError, ArgumentTypeError, PathSyntaxError
from combinators.limits import MAX_DEPTH, short_repr

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

__all__ = ("Path", "path", "Key", "Index", "End", "All", "Match", "Part", "PathLike")

_LITERALS: dict[str, Any] = {"true": True, "false": False, "null": None}


class _Grammar:
    """The grammar's regular expressions, compiled by :func:`_grammar` when the first
    path is parsed or printed: importing ``re`` costs more than all of ``combinators``."""

    __slots__ = ("ident", "bare_key", "bare_value", "int", "index")

    def __init__(self) -> None:
        import re

        self.ident = re.compile(
            r"[A-Za-z_$@/:+~-][A-Za-z0-9_$@/:+~-]*"
            r"|[0-9]+[A-Za-z_$@/:+~-][A-Za-z0-9_$@/:+~-]*"
        )
        self.bare_key = re.compile(r"[A-Za-z_$@][A-Za-z0-9_$@/:+~-]*\Z")
        self.bare_value = re.compile(r"[^,\]\"'\s=]+")
        self.int = re.compile(r"-?[0-9]+\Z")
        self.index = re.compile(r"-?[0-9]+(?=\])")


_GRAMMAR: _Grammar | None = None


def _grammar() -> _Grammar:
    """The grammar, compiled on the first call."""
    global _GRAMMAR
    if _GRAMMAR is None:
        _GRAMMAR = _Grammar()
    return _GRAMMAR


class Part:
    """One step of a path. Subclasses: Key, Index, End, All, Match."""

    __slots__ = ()

    def text(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def is_list_part(self) -> bool:
        return not isinstance(self, Key)


class Key(Part):
    """A key of a map."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        if type(name) is not str and not isinstance(name, str):
            # a map's keys are strings: Key(5) would find nothing, and print as nothing
            raise ArgumentTypeError(
                f"name: a key is a string, got {short_repr(name)}",
                argument="name",
                factory="Key",
                value=name,
            )
        self.name = name

    def text(self) -> str:
        # the global read first: a call less for every key of every path built
        if (_GRAMMAR or _grammar()).bare_key.match(self.name) and self.name not in _LITERALS:
            return self.name
        return "[" + _quote(self.name) + "]"

    def __eq__(self, other: object) -> bool:
        return type(other) is Key and other.name == self.name

    def __hash__(self) -> int:
        return hash((Key, self.name))

    def __repr__(self) -> str:
        return f"Key({self.name!r})"


class Index(Part):
    """An element of a list by position; negative counts from the end."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        if type(index) is not int and (not isinstance(index, int) or isinstance(index, bool)):
            raise ArgumentTypeError(
                f"index: a list position is an integer, got {short_repr(index)}",
                argument="index",
                factory="Index",
                value=index,
            )
        self.index = int(index)

    def text(self) -> str:
        return f"[{short_repr(self.index)}]"

    def __eq__(self, other: object) -> bool:
        return type(other) is Index and other.index == self.index

    def __hash__(self) -> int:
        return hash((Index, self.index))

    def __repr__(self) -> str:
        return f"Index({short_repr(self.index)})"


class End(Part):
    """The position after a list's last element: ``[-]``."""

    __slots__ = ()

    def text(self) -> str:
        return "[-]"

    def __eq__(self, other: object) -> bool:
        return type(other) is End

    def __hash__(self) -> int:
        return hash(End)

    def __repr__(self) -> str:
        return "End()"


class All(Part):
    """Every element of a list: ``[*]``."""

    __slots__ = ()

    def text(self) -> str:
        return "[*]"

    def __eq__(self, other: object) -> bool:
        return type(other) is All

    def __hash__(self) -> int:
        return hash(All)

    def __repr__(self) -> str:
        return "All()"


def _quote(text: str) -> str:
    """``text`` in double quotes, escaped the way the parser reads it back.

    Only the backslash and the quote are escaped: ``json.dumps`` would also
    write ``\\n`` and ``\\u00e9``, which the parser reads as plain letters.
    """
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _value_text(value: Any) -> str:
    if isinstance(value, str):
        grammar = _GRAMMAR or _grammar()
        if (
            grammar.bare_value.fullmatch(value)
            and value not in _LITERALS
            and not grammar.int.match(value)
        ):
            return value
        return _quote(value)
    import json  # rarely needed, and a few ms to import

    return json.dumps(value)


def _same(a: Any, b: Any) -> bool:
    """Equality of values of the same type: keeps ``True`` apart from ``1`` and ``1.0``,
    as the fast path of the editing engine does."""
    return type(a) is type(b) and bool(a == b)


def _match_fields(fields: Any) -> tuple[tuple[str, Any], ...]:
    """``fields`` as a Match keeps them: (name, value) pairs, one or more, names strings."""
    try:
        pairs = tuple(fields)
    except TypeError:
        pairs = None
    if pairs is None or not all(
        isinstance(pair, (tuple, list)) and len(pair) == 2 for pair in pairs
    ):
        raise ArgumentTypeError(
            f"fields: a Match takes (field, value) pairs, got {short_repr(fields)}",
            argument="fields",
            factory="Match",
            value=fields,
        )
    if not pairs:
        raise ArgumentError(
            "fields: a Match needs at least one field", argument="fields", factory="Match", value=()
        )
    for name, _ in pairs:
        if not isinstance(name, str):
            raise ArgumentTypeError(
                f"fields: a field's name is a string, got {short_repr(name)}",
                argument="fields",
                factory="Match",
                value=fields,
            )
    return tuple((name, value) for name, value in pairs)


class Match(Part):
    """The elements of a list (maps) whose fields all equal the given values."""

    __slots__ = ("fields", "field", "value", "single")

    def __init__(self, fields: Iterable[tuple[str, Any]]) -> None:
        self.fields = _match_fields(fields)
        # the first field, for the scans that look at it first
        self.field, self.value = self.fields[0]
        self.single = len(self.fields) == 1

    def matches(self, element: Any) -> bool:
        """Whether ``element`` is a map holding every field with the value."""
        if type(element) is not dict and not hasattr(element, "keys"):
            return False
        for key, value in self.fields:
            found = element.get(key, _Nothing)
            if found is not value and not _same(found, value):
                return False
        return True

    def as_map(self) -> dict[str, Any]:
        """The fields as a plain map: what a new matching element starts with."""
        return dict(self.fields)

    def text(self) -> str:
        inner = ",".join(f"{_key_text(k)}={_value_text(v)}" for k, v in self.fields)
        return f"[{inner}]"

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is Match
            and len(other.fields) == len(self.fields)
            and all(
                key == other_key and _same(value, other_value)
                for (key, value), (other_key, other_value) in zip(
                    self.fields, other.fields, strict=True
                )
            )
        )

    def __hash__(self) -> int:
        return hash((Match, self.fields))

    def __repr__(self) -> str:
        return f"Match({self.fields!r})"


class _NothingType:
    __slots__ = ()


_Nothing = _NothingType()


def _key_text(name: str) -> str:
    return name if (_GRAMMAR or _grammar()).bare_key.match(name) else _quote(name)


class Path:
    """A parsed path: an immutable sequence of :class:`Part`.

    ``Path`` values are hashable and compare by their parts. Build them with
    :func:`path`; ``str()`` gives the text back, ``repr()`` the call.

    >>> path('spec.tolerations') + '[-]'
    path('spec.tolerations[-]')
    >>> path('spec').child('nodeSelector')
    path('spec.nodeSelector')
    >>> len(path('spec.containers[0].image'))
    4
    """

    __slots__ = ("parts", "_text")

    def __init__(self, parts: Iterable[Part] = ()) -> None:
        self.parts: tuple[Part, ...] = tuple(parts)
        for part in self.parts:
            if not isinstance(part, Part):
                raise ArgumentTypeError(
                    f"parts: a Path is made of Part objects, got {short_repr(part)}",
                    argument="parts",
                    factory="Path",
                    value=part,
                )
        self._text: str | None = None  # written when first asked for: most paths never are

    @classmethod
    def parse(cls, text: str) -> Path:
        """Parse ``text``; raise :class:`PathSyntaxError` pointing at the fault."""
        return cls(_Parser(text).parse())

    def child(self, *parts: Part | str | int) -> Path:
        """A longer path: strings become keys, ints indexes."""
        extra = [
            p if isinstance(p, Part) else Index(p) if isinstance(p, int) else Key(p) for p in parts
        ]
        return Path((*self.parts, *extra))

    def prefix(self, length: int) -> Path:
        """The first ``length`` parts."""
        return Path(self.parts[:length])

    def __add__(self, other: PathLike) -> Path:
        if isinstance(other, str):
            other = Path.parse(other[1:] if other.startswith(".") else other)
        return Path((*self.parts, *as_path(other).parts))

    def __len__(self) -> int:
        return len(self.parts)

    def __iter__(self) -> Iterator[Part]:
        return iter(self.parts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Path) and other.parts == self.parts

    def __hash__(self) -> int:
        return hash((Path, self.parts))

    def __str__(self) -> str:
        text = self._text
        if text is None:
            text = self._text = _render(self.parts)
        return text

    def __repr__(self) -> str:
        return f"path({str(self)!r})"


PathLike = Path | str


def path(text: PathLike) -> Path:
    """Parse a path from text (a :class:`Path` is returned as it is).

    >>> path('spec.nodeSelector')
    path('spec.nodeSelector')
    >>> path('')
    path('')
    >>> path(3)
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentTypeError: path(): text must be a path (a string or a Path), got int: 3
    """
    try:
        return as_path(text, "text")
    except ArgumentError as err:
        raise err.in_factory("path") from None


def as_path(value: Any, argument: str = "target") -> Path:
    """``value`` as a :class:`Path`: parsed if a string, as it is if a Path.

    Anything else raises :class:`~combinators.errors.ArgumentTypeError`
    naming ``argument``; the factory that called fills in its own name.
    """
    if isinstance(value, Path):
        return value
    if isinstance(value, str):
        return _parse_cached(value)
    raise ArgumentTypeError(
        f"{argument} must be a path (a string or a Path), "
        f"got {type(value).__name__}: {short_repr(value)}",
        argument=argument,
        value=value,
    )


_CACHE: dict[str, Path] = {}


def _parse_cached(text: str) -> Path:
    # Paths are immutable values, so sharing parses is safe; the cache is bounded.
    found = _CACHE.get(text)
    if found is None:
        found = Path.parse(text)
        if len(_CACHE) < 4096:
            _CACHE[text] = found
    return found


def _render(parts: tuple[Part, ...]) -> str:
    out: list[str] = []
    for part in parts:
        text = part.text()
        if out and not text.startswith("["):
            out.append(".")
        out.append(text)
    return "".join(out)


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.grammar = _grammar()

    def fail(self, message: str, position: int | None = None) -> PathSyntaxError:
        return PathSyntaxError(
            message, text=self.text, position=self.pos if position is None else position
        )

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def parse(self) -> list[Part]:
        parts: list[Part] = []
        text = self.text
        if text == "":
            return parts
        first = True
        while self.pos < len(text):
            char = self.peek()
            if char == "[":
                parts.append(self.selector())
            elif char == "." and not first:
                self.pos += 1
                if self.peek() in ("", ".", "["):
                    raise self.fail("expected a key after '.'")
                parts.append(self.key())
            elif first:
                parts.append(self.key())
            else:
                raise self.fail(f"unexpected {char!r}; expected '.' or '['")
            first = False
            if len(parts) > MAX_DEPTH:
                raise self.fail(f"a path has at most {MAX_DEPTH} parts; this one has more")
        return parts

    def key(self) -> Key:
        char = self.peek()
        if char in ("'", '"'):
            return Key(self.quoted())
        found = self.grammar.ident.match(self.text, self.pos)
        if not found:
            raise self.fail(f"unexpected {char!r}; expected a key" if char else "expected a key")
        self.pos = found.end()
        return Key(found.group())

    def quoted(self) -> str:
        quote = self.text[self.pos]
        start = self.pos
        self.pos += 1
        chars: list[str] = []
        while True:
            if self.pos >= len(self.text):
                raise self.fail("unterminated quoted string", start)
            char = self.text[self.pos]
            if char == "\\" and self.pos + 1 < len(self.text):
                chars.append(self.text[self.pos + 1])
                self.pos += 2
                continue
            self.pos += 1
            if char == quote:
                return "".join(chars)
            chars.append(char)

    def selector(self) -> Part:
        start = self.pos
        self.pos += 1
        char = self.peek()
        part: Part
        if char == "*":
            self.pos += 1
            part = All()
        elif char == "-" and self.text[self.pos + 1 : self.pos + 2] in ("]", ""):
            self.pos += 1
            part = End()
        elif char in ("'", '"'):
            quote_at = self.pos
            name = self.quoted()
            if self.peek() == "=":  # a quoted field name: ["x.y"=1]
                self.pos = quote_at
                part = Match(self.fields())
            else:
                part = Key(name)
        else:
            number = self.grammar.index.match(self.text, self.pos)
            if number and len(number.group()) > 4_000:  # int() refuses past 4,300 digits
                raise self.fail(
                    f"an index of {len(number.group()):,} characters; a list "
                    "position has at most 4,000 digits"
                )
            if number:
                self.pos = number.end()
                part = Index(int(number.group()))
            elif char in ("]", ""):
                raise self.fail(
                    "empty selector; expected *, -, an index, a quoted key or field=value"
                )
            else:
                part = Match(self.fields())
        if self.peek() != "]":
            raise self.fail(
                "expected ']' to close the selector"
                if not self.peek()
                else f"unexpected {self.peek()!r} in selector opened at "
                f"character {start + 1}; expected ']'"
            )
        self.pos += 1
        return part

    def fields(self) -> list[tuple[str, Any]]:
        fields: list[tuple[str, Any]] = []
        while True:
            if self.peek() in ("'", '"'):
                name = self.quoted()
            else:
                found = self.grammar.ident.match(self.text, self.pos)
                if not found:
                    char = self.peek()
                    raise self.fail(
                        f"unexpected {char!r}; expected a field name"
                        if char
                        else "expected a field name"
                    )
                name = found.group()
                self.pos = found.end()
            if self.peek() != "=":
                raise self.fail(
                    f"expected '=' after field {name!r}"
                    if self.peek() in ("", "]")
                    else f"unexpected {self.peek()!r}; expected '='"
                )
            self.pos += 1
            fields.append((name, self.value()))
            if self.peek() == ",":
                self.pos += 1
                continue
            return fields

    def value(self) -> Any:
        char = self.peek()
        if char in ("'", '"'):
            return self.quoted()
        found = self.grammar.bare_value.match(self.text, self.pos)
        if not found:
            raise self.fail(
                f"unexpected {char!r}; expected a value" if char else "expected a value"
            )
        self.pos = found.end()
        raw = found.group()
        if self.grammar.int.match(raw):
            return int(raw)
        if raw in _LITERALS:
            return _LITERALS[raw]
        return raw
