"""Errors raised by paths and transforms.

Every error is a :class:`TransformError`; each subclass also derives from the
built-in exception a caller would reach for (``LookupError``, ``TypeError``,
``ValueError``, ``AssertionError``), so ``except KeyError``-style code keeps
working where it makes sense. Errors carry structured fields, and their
message names the path, the part of it that failed and what was there instead.

>>> from combinators import path
>>> err = PathError("no key 'nodeSelectr'", path=path("spec.nodeSelectr"), part_index=1,
...                 near_misses=("nodeSelector",))
>>> print(err)
no key 'nodeSelectr' (part 2 of spec.nodeSelectr); did you mean nodeSelector?
>>> isinstance(err, LookupError)
True

A message stays short on any input (:mod:`combinators.limits`): the path is
written at most :data:`~combinators.limits.MAX_REPR` characters long, the
names present and the near misses as :func:`~combinators.limits.short_names`
lists them (the first ten and how many more), and, as a last resort for a
message its builder did not keep short, no line is longer than
:data:`~combinators.limits.MAX_LINE` characters.

>>> err = PathError("no element [name=trainr]", path=path("spec.containers[name=trainr]"),
...                 present=tuple(f"trainer-{i}" for i in range(10_000)),
...                 present_label="names present")
>>> print(err)  # doctest: +NORMALIZE_WHITESPACE
no element [name=trainr] (in spec.containers[name=trainr]); names present: trainer-0,
trainer-1, trainer-2, trainer-3, trainer-4, trainer-5, trainer-6, trainer-7, trainer-8,
trainer-9 and 9,990 more
>>> text = str(TransformError("x" * 100_000))
>>> len(text), text[-29:]
(999, 'x... (99,029 more characters)')
"""

from __future__ import annotations

from combinators._typing import TYPE_CHECKING
from combinators.limits import MAX_LINE, MAX_NAME, MAX_REPR, short_line, short_names, short_repr
from combinators.near import did_you_mean

if TYPE_CHECKING:
    from typing import Any

    from combinators.paths import Path

__all__ = (
    "TransformError",
    "PathError",
    "PathSyntaxError",
    "TypeClashError",
    "ExpectationError",
    "StepError",
    "NestingError",
    "ArgumentError",
    "ArgumentTypeError",
)


class TransformError(Exception):
    """Base of every error podfold raises.

    ``steps`` lists where in a composition the error happened, outermost
    first (for example ``("step 3 of 8: upsert('spec.nodeSelector', ...)",)``);
    compositions add to it as the error travels up.

    No line of its message, nor of its ``str`` (whichever subclass writes it:
    a subclass's own ``__str__`` is bounded too), is longer than
    :data:`~combinators.limits.MAX_LINE` characters: the last resort behind the
    builders of messages, which write values short themselves.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("__str__")
        if own is not None and not getattr(own, "bounded", False):

            def bounded_str(self: TransformError) -> str:
                return _short_lines(own(self))

            bounded_str.bounded = True  # type: ignore[attr-defined]
            bounded_str.__qualname__ = f"{cls.__qualname__}.__str__"
            bounded_str.__doc__ = own.__doc__
            cls.__str__ = bounded_str  # type: ignore[method-assign]

    def __init__(
        self, message: str, *, path: Path | None = None, part_index: int | None = None
    ) -> None:
        message = _short_lines(message)
        super().__init__(message)
        self.message = message
        self.path = path
        self.part_index = part_index
        self.steps: tuple[str, ...] = ()
        # set while an error raised at a value ``for_each`` reached travels up through
        # its walk: ``path`` is relative to that value, ``trail`` the way to it so far
        self.relative = False
        self.trail: tuple[Any, ...] = ()

    def _where(self) -> str:
        if self.path is None:
            return ""
        if not self.path.parts:  # the root: an empty path prints as nothing
            return " (at the top level)"
        shown = short_repr(self.path, MAX_REPR, quoted=False)
        if self.part_index is not None and 0 <= self.part_index < len(self.path.parts):
            return f" (part {self.part_index + 1} of {shown})"
        return f" (in {shown})"

    def _detail(self) -> str:
        return ""

    def with_step(self, step: str) -> TransformError:
        """Record one more enclosing step (outermost ends up first); returns ``self``."""
        self.steps = (step, *self.steps)
        return self

    def __str__(self) -> str:
        text = self.message + self._where() + self._detail()
        if self.steps:
            text += " [in " + " > ".join(self.steps) + "]"
        return _short_lines(text)

    __str__.bounded = True  # type: ignore[attr-defined]

    def __reduce__(self) -> Any:  # keep errors picklable despite keyword-only fields
        return (_rebuild, (type(self), self.__dict__.copy()))


def _short_lines(text: str) -> str:
    """``text`` with no line longer than :data:`~combinators.limits.MAX_LINE`: the last
    resort for a message whose builder quoted a value whole."""
    if len(text) <= MAX_LINE:
        return text
    return "\n".join(short_line(line) for line in text.split("\n"))


def _rebuild(cls: type[TransformError], state: dict[str, Any]) -> TransformError:
    err = cls.__new__(cls)
    Exception.__init__(err, state.get("message", ""))
    err.__dict__.update(state)
    return err


class PathError(TransformError, LookupError):
    """A path leads nowhere: a missing key, an index out of range, no match.

    ``near_misses`` holds what was there instead (keys of the map, names of
    the list's elements, ...), best first.
    """

    def __init__(
        self,
        message: str,
        *,
        path: Path | None = None,
        part_index: int | None = None,
        near_misses: tuple[str, ...] = (),
        present: tuple[str, ...] = (),
        present_label: str = "present",
    ) -> None:
        super().__init__(message, path=path, part_index=part_index)
        self.near_misses = tuple(near_misses)
        self.present = tuple(present)
        self.present_label = present_label

    def _detail(self) -> str:
        return _listed(self.near_misses, self.present, self.present_label)

    # LookupError's __str__ would otherwise win for KeyError-like subclasses
    __str__ = TransformError.__str__


class PathSyntaxError(TransformError, ValueError):
    """A path's text does not parse; ``text`` and ``position`` point at the fault."""

    def __init__(self, message: str, *, text: str, position: int) -> None:
        super().__init__(message)
        self.text = text
        self.position = position

    def __str__(self) -> str:
        # a window of the text around the fault: a path may be thousands of characters long
        start = max(0, self.position - 60)
        shown = self.text[start : self.position + 60]
        before = "..." if start else ""
        after = "..." if len(self.text) > self.position + 60 else ""
        caret = " " * (len(before) + self.position - start) + "^"
        return (
            f"{self.message} at character {self.position + 1}\n  {before}{shown}{after}\n  {caret}"
        )


class TypeClashError(TransformError, TypeError):
    """A value has the wrong kind for the operation: appending to a map, say.

    ``expected`` names what the operation needed, ``found`` what was there.
    """

    def __init__(
        self,
        message: str,
        *,
        path: Path | None = None,
        part_index: int | None = None,
        expected: str = "",
        found: str = "",
    ) -> None:
        super().__init__(message, path=path, part_index=part_index)
        self.expected = expected
        self.found = found


class ExpectationError(TransformError, AssertionError):
    """An :func:`~combinators.expect` step found something other than expected."""

    def __init__(
        self,
        message: str,
        *,
        path: Path | None = None,
        found: int = 0,
        present: tuple[str, ...] = (),
        present_label: str = "present",
        near_misses: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message, path=path)
        self.found = found
        self.present = tuple(present)
        self.present_label = present_label
        self.near_misses = tuple(near_misses)

    def _where(self) -> str:
        return ""  # the message names the path already

    def _detail(self) -> str:
        return _listed(self.near_misses, self.present, self.present_label)


def _listed(near: tuple[str, ...], present: tuple[str, ...], label: str) -> str:
    """The near misses (:func:`~combinators.near.did_you_mean`) and what is present,
    each list as short as :func:`~combinators.limits.short_names` keeps it."""
    return did_you_mean(near) + (f"; {label}: " + short_names(present) if present else "")


class StepError(TransformError):
    """A step that is not a podfold transform (a plain function) raised, or returned
    what no document may hold (a string where a pod was, a ``set``).

    The original exception, if any, is kept as ``__cause__`` and in ``cause``.
    """

    def __init__(self, message: str, *, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.cause = cause


class NestingError(TransformError, ValueError):
    """A document nests deeper than :data:`~combinators.limits.MAX_DEPTH`, or contains itself.

    ``path`` is where, in the whole document; ``cycle`` says whether the
    structure contains itself there (rather than being merely too deep).
    """

    def __init__(self, message: str, *, path: Path | None = None, cycle: bool = False) -> None:
        super().__init__(message, path=path)
        self.cycle = cycle

    def _where(self) -> str:
        return ""  # the message names the place already


class ArgumentError(TransformError, ValueError):
    """A factory was given an argument it cannot build a transform from.

    Raised when a transform is *built* (``merge_by(..., key=())``,
    ``shm_size("16GB")``), never when one is applied. ``argument`` names the
    argument, ``factory`` the factory it was given to (filled in by the
    factory when the check that failed is shared), ``value`` what was given.

    >>> err = ArgumentError("size must be a quantity such as '16Gi', got '16GB'",
    ...                     argument="size", factory="shm_size", value="16GB")
    >>> print(err)
    shm_size(): size must be a quantity such as '16Gi', got '16GB'
    >>> isinstance(err, ValueError), err.argument
    (True, 'size')
    """

    def __init__(
        self, message: str, *, argument: str, factory: str | None = None, value: Any = None
    ) -> None:
        super().__init__(message)
        self.argument = argument
        self.factory = factory
        self.value = value

    def _where(self) -> str:
        # the message names the place already; ``path``, where set, is the place inside
        # the argument's value, for tools that point at it (a YAML loader, say)
        return ""

    def in_factory(self, factory: str) -> ArgumentError:
        """Name the factory, unless an inner one is named already; returns ``self``."""
        if self.factory is None:
            self.factory = factory
        return self

    def __str__(self) -> str:
        text = TransformError.__str__(self)
        # an argument's name is the user's where it is a keyword given by name: shown short
        shown = short_repr(self.argument, MAX_NAME, quoted=False)
        if not text.startswith((self.argument, shown)):
            text = f"{shown}: {text}"
        return _short_lines(f"{self.factory}(): {text}" if self.factory else text)


class ArgumentTypeError(ArgumentError, TypeError):
    """An :class:`ArgumentError` where the argument has the wrong type (``chain(1)``)."""
