"""Transforms as values, and the ways to combine them.

A transform is a callable ``doc -> doc`` that never mutates its input. The
ones podfold builds are immutable values: they compare and hash by their
parameters (frozen with pyrsistent) and their ``repr`` is the call that
builds them. Any other callable ``doc -> doc`` can be composed with them.

>>> from combinators import upsert
>>> f = upsert("metadata.labels", {"team": "ml"})
>>> g = upsert("spec.nodeSelector", {"gpu": "a100"})
>>> compose(f, g)
compose(upsert('metadata.labels', {'team': 'ml'}), upsert('spec.nodeSelector', {'gpu': 'a100'}))
>>> compose(f, g) == chain(g, f)
True
>>> compose() is identity, compose(f) is f
(True, True)
>>> fold([g, f], {})
{'spec': {'nodeSelector': {'gpu': 'a100'}}, 'metadata': {'labels': {'team': 'ml'}}}
"""

from __future__ import annotations

from combinators._typing import TYPE_CHECKING
from combinators.compiled import FALLBACK
from combinators.data import (
    Owned,
    freeze_value,
    frozen_list,
    frozen_map,
    is_map,
    is_persistent,
    is_seq,
    kind_name,
)
from combinators.errors import (
    ArgumentError,
    ArgumentTypeError,
    StepError,
    TransformError,
    TypeClashError,
)
from combinators.fusion import Op, fuse
from combinators.limits import MAX_LINE, short_repr
from combinators.near import did_you_mean, near_misses
from combinators.paths import Path
from combinators.shape import UnfitValue, guarded_copy, problem_text, settle

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any, TypeVar, Union

    from combinators.fusion import FusedFunction

    Doc = TypeVar("Doc")
else:

    def __getattr__(name: str) -> object:
        # the type alias, for code that reads it at run time: built then, as
        # importing typing costs more than all of combinators
        if name == "TransformLike":
            from collections.abc import Callable
            from typing import Any, Union

            return Union[Transform, Callable[[Any], Any]]
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = (
    "Transform",
    "TransformLike",
    "identity",
    "compose",
    "chain",
    "fold",
    "apply_step",
    "call_foreign",
    "call_step",
    "settled",
    "same_kind",
    "describe_step",
    "CONFLICT_MODES",
)

_PLAIN = (dict, list)
_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})


class Transform:
    """Base class of podfold's transforms: a pure, immutable ``doc -> doc`` value.

    Subclasses set ``name`` (the factory's name, used by ``repr``), store their
    parameters with :meth:`_init_params` and implement :meth:`_apply`, which
    may change in place only the containers ``owned`` hands out (see
    :mod:`combinators.owned`).
    """

    __slots__ = ("_args", "_kwargs", "_frozen_key", "_hash")
    name = "transform"

    def _init_params(self, *args: Any, **kwargs: Any) -> None:
        """Record the factory's arguments, as given, for ``repr``, ``==`` and ``hash``."""
        self._args = args
        self._kwargs = kwargs
        self._frozen_key: Any = None  # frozen on first comparison: 20,000 items cost
        self._hash: int | None = None

    @property
    def _key(self) -> Any:
        """The arguments, frozen: what ``==`` and ``hash`` compare."""
        if self._frozen_key is None:
            self._frozen_key = (
                _freeze_param(self._args),
                _freeze_param(tuple(sorted(self._kwargs.items()))),
            )
        return self._frozen_key

    @_key.setter
    def _key(self, value: Any) -> None:
        self._frozen_key = value

    def _apply(self, doc: Any, owned: Owned) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _apply_inside(self, value: Any, owned: Owned) -> Any:
        """:meth:`_apply` to a value inside a document (what ``for_each`` reached): a
        plain function among the steps returns a value of its kind (see :func:`same_kind`)."""
        return self._apply(value, owned)

    def _fast_parts(self) -> tuple[Any, Any, Callable[[Any, Owned], Any]]:
        """(compiled fast path, its leaf, how to apply otherwise); see :class:`Compose`."""
        return None, None, self._apply

    def _fusion_ops(self) -> tuple[Op, ...] | None:
        """What this transform does, as ops a composition may fuse; ``None`` if it cannot.

        See :mod:`combinators.fusion`. Path edits with a pure leaf, and
        compositions of them, say what they do; a recipe adds its check.
        """
        return None

    def _annotate(self, err: TransformError) -> None:
        """Add what this transform knows to an error raised by its fast path."""

    def __call__(self, doc: Doc) -> Doc:
        if type(doc) is dict:
            result: Doc = self._apply(doc, Owned())
            return result
        return _call_on_other(self, doc)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Transform)
        # one class may serve several factories (append_at and prepend_at)
        return self.name == other.name and bool(self._key == other._key)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((type(self).__name__, self.name, self._key))
        return self._hash

    def __copy__(self) -> Transform:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Transform:
        # an immutable value: a copy is the value itself (TorchX deep-copies
        # each role, metadata and overlays included, once per replica)
        return self

    def __repr__(self) -> str:
        try:
            parts = [_param_repr(arg) for arg in self._args]
            parts += [f"{key}={_param_repr(value)}" for key, value in self._kwargs.items()]
        except RecursionError:  # transforms nested in transforms thousands deep
            return f"{self.name}(...)"
        return f"{self.name}({', '.join(parts)})"

    @property
    def params(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The arguments the transform was built with: ``(args, kwargs)``."""
        return self._args, dict(self._kwargs)


def _call_on_other(transform: Transform, doc: Doc) -> Doc:
    """``transform(doc)`` for a document that is not a ``dict``.

    A persistent document gives a persistent result, even where a step
    replaced the whole document and a later one built it anew. A JSON
    scalar is a document too (a merge patch may replace it). A document that
    is not data goes through its adapter (:mod:`combinators.documents`).
    """
    result: Doc
    if is_map(doc) or is_seq(doc) or type(doc) in _JSON_SCALARS:
        result = transform._apply(doc, Owned())
        if type(result) in _PLAIN and is_persistent(doc):
            result = freeze_value(result)
        return result
    from combinators.documents import adapter_for  # not on import: it imports typing

    try:
        adapter = adapter_for(doc)
    except TypeClashError as err:
        raise err.with_step(describe_step(transform)) from None
    data = adapter.to_data(doc)
    result = transform._apply(data, Owned())
    # nothing changed: the very same document, as for plain data
    return doc if result is data else adapter.from_data(result, like=doc)


def _freeze_param(value: Any) -> Any:
    if isinstance(value, Path) or (callable(value) and not isinstance(value, type)):
        return value
    if isinstance(value, (bool, int, float)):
        # transforms treat 1, 1.0 and True as different values; so must ``==``
        return (type(value), value)
    if isinstance(value, tuple):
        return tuple(_freeze_param(item) for item in value)
    if is_map(value):
        return frozen_map({key: _freeze_param(item) for key, item in value.items()})
    if is_seq(value):  # a list or a PVector: tuples are kept above
        return frozen_list(_freeze_param(item) for item in value)
    return freeze_value(value) if type(value) is set else value  # all freeze changes here


def _param_repr(value: Any) -> str:
    if isinstance(value, Path):
        return _bounded_repr(str(value))
    if callable(value) and not isinstance(value, (Transform, type)):
        return _function_text(value)
    return _bounded_repr(value)


def _bounded_repr(value: Any) -> str:
    # whole, so that a transform's repr builds it again; past a line's worth (a value of
    # 100,000 characters, an int past Python's 4,300-digit guard) short instead
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        return short_repr(value)
    return text if len(text) <= MAX_LINE else short_repr(value)


def _function_text(fn: Callable[..., Any]) -> str:
    """A function's name; a ``functools.partial`` or ``toolz.curry`` reads as its call.

    >>> from functools import partial
    >>> _function_text(partial(divmod, 7))
    'divmod(7)'
    """
    inner, args, keywords = (getattr(fn, name, None) for name in ("func", "args", "keywords"))
    if callable(inner) and isinstance(args, tuple) and isinstance(keywords, dict):
        given = [
            *map(_param_repr, args),
            *(f"{key}={_param_repr(value)}" for key, value in keywords.items()),
        ]
        return f"{_function_text(inner)}({', '.join(given)})" if given else _function_text(inner)
    text = getattr(fn, "__qualname__", None)
    return text if isinstance(text, str) else repr(fn)


if TYPE_CHECKING:
    TransformLike = Union[Transform, Callable[[Any], Any]]


def describe_step(step: TransformLike) -> str:
    """A short label of a step for error messages."""
    try:
        text = repr(step) if isinstance(step, Transform) else _function_text(step)
    except RecursionError:
        text = f"<{type(step).__name__}>"
    return text if len(text) <= 120 else text[:117] + "..."


def apply_step(step: TransformLike, doc: Any, owned: Owned, document: bool = True) -> Any:
    """Apply one step; a foreign callable runs through :func:`call_step`, guarded.

    A plain function may keep a reference to what it is given, so nothing
    created before it may be changed in place afterwards: ``owned`` forgets
    everything first. ``document`` is false where the step is given a value
    inside a document (as :func:`~combinators.for_each` gives it), which
    a plain function replaces with one of its kind (:func:`same_kind`).
    """
    if isinstance(step, Transform):
        return step._apply(doc, owned) if document else step._apply_inside(doc, owned)
    owned.forget()
    return call_step(step, doc, document=document)


def call_step(fn: Callable[[Any], Any], doc: Any, *, document: bool = True) -> Any:
    """Run the caller's function ``doc -> doc`` so that it cannot hurt the caller.

    - it is given a copy of ``doc``'s maps and lists, so editing its argument
      in place never changes the caller's document (a document nested
      deeper than :data:`~combinators.limits.MAX_DEPTH` levels, or containing
      itself, is refused, naming where);
    - what it raises comes out as a :class:`StepError` naming it;
    - where ``doc`` is a map (and a ``document``) it must return a map; given a value
      inside a document (not a ``document``), a value of the same kind
      (:func:`same_kind`); what it returns may hold only what JSON can carry:
      otherwise a :class:`StepError` names it and the place;
    - what it returns is left as it was, and the result holds none of its maps
      and lists (nor any of its argument's): the function may keep either and
      change it later (see :func:`settled`).

    >>> def rename(pod):
    ...     pod["metadata"]["name"] = "x"
    ...     return pod
    >>> pod = {"metadata": {"name": "a"}}
    >>> call_step(rename, pod), pod
    ({'metadata': {'name': 'x'}}, {'metadata': {'name': 'a'}})
    >>> call_step(lambda pod: "a pod", pod)
    Traceback (most recent call last):
      ...
    combinators.errors.StepError: <lambda> returned a string ('a pod') where the document was a map; a step returns the new document
    """
    result = call_foreign(fn, guarded_copy(doc))
    if document:
        if is_map(doc) and not is_map(result):
            raise StepError(
                f"{describe_step(fn)} returned {kind_name(result)} where the "
                f"document was a map; a step returns the new document",
                cause=None,
            )
    elif not same_kind(result, doc):
        raise StepError(
            f"{describe_step(fn)} returned {kind_name(result)} where it was given "
            f"{kind_name(doc)}; for_each's function returns a map for a map, a list "
            f"for a list, a scalar for a scalar",
            cause=None,
        )
    return settled(fn, result, doc)


def same_kind(value: Any, given: Any) -> bool:
    """Whether ``value`` may replace ``given`` inside a document: a map for a map, a list
    for a list, a scalar (not null) for a scalar; anything for null.

    A null stands for nothing there, so a function may fill it in; null where
    something was, or a container where a scalar was, is refused (a
    container where a map was would be a pod, a container, a template lost).

    >>> same_kind({"name": "a"}, {}), same_kind(None, {}), same_kind(["x"], {})
    (True, False, False)
    >>> same_kind(3, "three"), same_kind({"a": 1}, None), same_kind(None, "x")
    (True, True, False)
    """
    if given is None:
        return True
    if value is None:
        return False
    if is_map(given):
        return is_map(value)
    if is_seq(given):
        return is_seq(value)
    return not is_map(value) and not is_seq(value)


def settled(fn: Callable[..., Any], result: Any, given: Any, what: str = "a document") -> Any:
    """``result`` of ``fn`` as podfold's own: what it left of ``given`` unchanged is
    ``given``'s, the rest checked and copied; ``result`` itself is not changed.

    What JSON cannot carry in what changed is a :class:`StepError` naming
    ``fn`` and the place (see :func:`~combinators.shape.settle`).
    """
    try:
        return settle(result, given)
    except UnfitValue as problem:
        raise StepError(
            f"{describe_step(fn)} returned {what} where {problem_text(problem, '', result)}",
            cause=None,
        ) from None


def call_foreign(fn: Callable[[Any], Any], argument: Any) -> Any:
    """Call the caller's function; its exceptions come out as :class:`StepError`."""
    try:
        return fn(argument)
    except TransformError:
        raise
    except Exception as err:  # a user's function: report which one failed, and how
        raise StepError(
            f"{describe_step(fn)} raised {type(err).__name__}: {_error_text(err)}", cause=err
        ) from err


def _error_text(err: BaseException) -> str:
    """An exception's message, bounded (``RecursionError`` included)."""
    try:
        text = str(err)
    except Exception:  # a broken __str__ of the caller's exception
        text = f"<{type(err).__name__}>"
    return text if len(text) <= 500 else text[:497] + "..."


class _Identity(Transform):
    __slots__ = ()
    name = "identity"

    def __init__(self) -> None:
        self._init_params()

    def _apply(self, doc: Any, owned: Owned) -> Any:
        return doc

    def __repr__(self) -> str:
        return "identity"


identity: Transform = _Identity()
"""The transform that returns its input, the very same object.

>>> pod = {"spec": {}}
>>> identity(pod) is pod
True
"""


class Compose(Transform):
    """Several steps as one transform; ``steps`` are in the order they apply.

    From its second application on, a composition runs *fused*: each run of
    consecutive steps that describe themselves as ops (path edits, recipes)
    is compiled into one function (see :mod:`combinators.fusion`), which
    walks each shared path once; the other steps run between them as
    before. Where a fused function cannot be sure, the steps of its run are
    applied one by one instead, from the same input. The first application
    runs step by step: compiling costs more than a one-off application.
    """

    __slots__ = ("steps", "_plan", "_fused", "_runs", "_whole", "_whole_owned", "_chained")
    name = "compose"

    def __init__(self, steps: Sequence[TransformLike], chained: bool = False) -> None:
        self.steps = tuple(steps)
        self._chained = chained  # built by chain: shown as written, in the order it applies
        self._init_params(*reversed(self.steps))
        self._plan = _plan(self.steps)
        self._fused: _Segments | None = None
        self._runs = 0
        self._whole: FusedFunction | None = None
        self._whole_owned = True

    def __call__(self, doc: Doc) -> Doc:
        # the commonest case, shortest: all the steps fused into one function
        whole = self._whole
        if whole is not None and type(doc) is dict:
            try:
                result: Doc = whole(doc, Owned() if self._whole_owned else None)  # type: ignore[arg-type]
            except Exception:  # the steps, one by one, raise it again and name the step
                result = FALLBACK
            if result is not FALLBACK:
                return result
            return self._run_steps(doc, Owned(), True, 0, len(self.steps))  # type: ignore[no-any-return]
        return super().__call__(doc)

    def __repr__(self) -> str:
        if not self._chained:
            return super().__repr__()
        try:
            return f"chain({', '.join(_param_repr(step) for step in self.steps)})"
        except RecursionError:  # compositions nested thousands deep
            return "chain(...)"

    def __getstate__(self) -> dict[str, Any]:
        # the plans hold compiled code: rebuilt, not pickled
        return {
            name: getattr(self, name)
            for name in (*Transform.__slots__, "steps", "_chained")
            if hasattr(self, name)
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._chained = False
        for name, value in state.items():
            object.__setattr__(self, name, value)
        self._plan = _plan(self.steps)
        self._fused = None
        self._runs = 0
        self._whole = None
        self._whole_owned = True

    def _fusion_ops(self) -> tuple[Op, ...] | None:
        ops: list[Op] = []
        for step in self.steps:
            more = step._fusion_ops() if isinstance(step, Transform) else None
            if more is None:
                return None
            ops.extend(more)
        return tuple(ops)

    def _apply(self, doc: Any, owned: Owned) -> Any:
        return self._run(doc, owned, True)

    def _apply_inside(self, value: Any, owned: Owned) -> Any:
        return self._run(value, owned, False)

    def _run(self, doc: Any, owned: Owned, document: bool) -> Any:
        """Apply the steps; ``document``: see :func:`apply_step`."""
        segments = self._fused
        if segments is None:
            self._runs += 1
            if self._runs < 2:
                return self._run_steps(doc, owned, document, 0, len(self.steps))
            segments = self._fused = _segments(self.steps)
            if len(segments) == 1 and segments[0][0] is not None:
                self._whole_owned = getattr(segments[0][0], "uses_owned", True)
                self._whole = segments[0][0]
        if not segments:
            return self._run_steps(doc, owned, document, 0, len(self.steps))
        for fused, start, stop in segments:
            if fused is not None and type(doc) is dict:
                if owned._made:
                    # what came before may not change in place: were this run to fall
                    # back, the steps must find their input as it was
                    owned.forget()
                try:
                    result = fused(doc, owned)
                except Exception:  # the steps, one by one, raise it again and name the step
                    result = FALLBACK
                if result is not FALLBACK:
                    doc = result
                    continue
                owned.forget()
            doc = self._run_steps(doc, owned, document, start, stop)
        return doc

    def _run_steps(self, doc: Any, owned: Owned, document: bool, start: int, stop: int) -> Any:
        """Apply steps ``start`` to ``stop`` (exclusive) one by one."""
        number = start
        steps = self.steps
        try:
            # each step's fast path is called from here, a call less per step
            for number in range(start + 1, stop + 1):
                fast, leaf, apply = self._plan[number - 1]
                if fast is not None and type(doc) is dict:
                    result = fast(doc, owned, leaf)
                    if result is not FALLBACK:
                        doc = result
                        continue
                if apply is None:  # the caller's function
                    owned.forget()
                    doc = call_step(steps[number - 1], doc, document=document)
                    continue
                doc = apply(doc, owned)
        except TransformError as err:
            step = steps[number - 1]
            if isinstance(step, Transform):
                step._annotate(err)
            if len(steps) > 1 or isinstance(step, Transform):
                # a lone guarded function's StepError names it already
                err.with_step(f"step {number} of {len(steps)}: {describe_step(step)}")
            raise
        return doc


if TYPE_CHECKING:
    _Segments = tuple[tuple[FusedFunction | None, int, int], ...]


MAX_FUSED_OPS = 2000
"""The most ops one fused function holds: a longer run is cut into several (a step
described by more, a JSON patch of 20,000 operations say, runs step by step)."""


def _segments(steps: tuple[TransformLike, ...]) -> _Segments:
    """The composition cut into runs: each run of fusable steps compiled, the rest as they are.

    Empty where nothing fuses (no run of two steps or more): then the steps
    run one by one, as on the first application.
    """
    cuts: list[tuple[list[Op] | None, int, int]] = []
    for number, step in enumerate(steps):
        described = step._fusion_ops() if isinstance(step, Transform) else None
        last = cuts[-1] if cuts else None
        if described is None:
            if last is not None and last[0] is None:
                cuts[-1] = (None, last[1], number + 1)
            else:
                cuts.append((None, number, number + 1))
        elif (
            last is not None
            and last[0] is not None
            and len(last[0]) + len(described) <= MAX_FUSED_OPS
        ):
            last[0].extend(described)
            cuts[-1] = (last[0], last[1], number + 1)
        else:
            cuts.append((list(described), number, number + 1))
    if not any(ops is not None and len(ops) > 1 for ops, _, _ in cuts):
        return ()
    segments: list[tuple[FusedFunction | None, int, int]] = []
    for index, (ops, start, stop) in enumerate(cuts):
        if ops is None or not 2 <= len(ops) <= MAX_FUSED_OPS:
            segments.append((None, start, stop))
        else:
            # copies it makes are recorded only where later steps may change them in place
            segments.append((fuse(ops, register=index < len(cuts) - 1), start, stop))
    return tuple(segments)


if TYPE_CHECKING:
    _Plan = tuple[tuple[Any, Any, Callable[[Any, Owned], Any] | None], ...]


def _plan(steps: tuple[TransformLike, ...]) -> _Plan:
    """For each step: its compiled fast path and leaf (or ``None``s), and how to apply it."""
    plan: list[tuple[Any, Any, Callable[[Any, Owned], Any] | None]] = []
    for step in steps:
        if isinstance(step, Transform):
            plan.append(step._fast_parts())
        else:
            plan.append((None, None, None))  # called guarded, by Compose._run
    return tuple(plan)


def _flatten(steps: Iterable[TransformLike], factory: str) -> list[TransformLike]:
    flat: list[TransformLike] = []
    for number, step in enumerate(steps, 1):
        if isinstance(step, Compose):
            flat.extend(step.steps)
        elif step is identity:
            continue
        elif callable(step):
            flat.append(step)
        else:
            raise ArgumentTypeError(
                f"transforms: step {number} must be a transform or a "
                f"callable doc -> doc, got {type(step).__name__}: "
                f"{short_repr(step)}",
                argument="transforms",
                factory=factory,
                value=step,
            )
    return flat


def _composed(steps: list[TransformLike], chained: bool = False) -> Transform:
    if not steps:
        return identity
    if len(steps) == 1 and isinstance(steps[0], Transform):
        return steps[0]
    # a lone plain function too: then a Transform that calls it guarded
    return Compose(steps, chained)


def chain(*transforms: TransformLike) -> Transform:
    """Apply ``transforms`` in the order written: ``chain(f, g)(doc) == g(f(doc))``.

    Nested compositions flatten and ``identity`` steps drop out, so
    ``chain()`` is ``identity`` and ``chain(f)`` is ``f`` for a transform
    ``f``; a plain function ``doc -> doc`` becomes a step whose exceptions
    come out as :class:`~combinators.errors.StepError`, naming it.

    >>> from combinators import replace_at
    >>> chain(replace_at("a", 1), replace_at("a", 2))({})
    {'a': 2}
    >>> chain(len)
    chain(len)

    It prints as written, and equals the same steps composed right to left:

    >>> steps = chain(replace_at("a", 1), replace_at("b", 2))
    >>> steps, steps == compose(replace_at("b", 2), replace_at("a", 1))
    (chain(replace_at('a', 1), replace_at('b', 2)), True)
    """
    if len(transforms) == 1 and isinstance(transforms[0], Transform):
        return transforms[0]
    return _composed(_flatten(transforms, "chain"), chained=True)


def compose(*transforms: TransformLike) -> Transform:
    """Compose right to left, as toolz does: ``compose(f, g)(doc) == f(g(doc))``.

    ``compose()`` is ``identity`` and ``compose(f)`` is ``f`` for a transform ``f``.

    >>> from combinators import replace_at
    >>> compose(replace_at("a", 1), replace_at("a", 2))({})
    {'a': 1}
    """
    if len(transforms) == 1 and isinstance(transforms[0], Transform):
        return transforms[0]
    return _composed(_flatten(reversed(transforms), "compose"))


def _iterable(value: object) -> bool:
    from collections.abc import Iterable  # not on import: collections is slow to load

    return isinstance(value, Iterable)


CONFLICT_MODES = ("last-wins", "warn", "error")
"""What :func:`fold` does where two steps write different values at one path."""


def fold(
    transforms: Iterable[TransformLike],
    doc: Doc,
    *,
    conflicts: str = "last-wins",
    labels: Sequence[str] | None = None,
) -> Doc:
    """Apply ``transforms`` to ``doc`` in the order listed; ``doc`` is left as it was.

    Either every step applies and a new document comes back, or an error
    names the step that failed and nothing is returned.

    ``conflicts`` says what happens where two steps write different values
    at the same path: ``"last-wins"`` (the default: the later step has the
    last word), ``"warn"`` (a ``ConflictWarning`` for each) or ``"error"``
    (a ``ConflictError`` listing them all); ``labels`` names the steps in
    those reports (see :mod:`combinators.conflicts`).

    >>> from combinators import append_at
    >>> pod = {"spec": {}}
    >>> fold([append_at("spec.tolerations", {"key": "a"}),
    ...       append_at("spec.tolerations", {"key": "b"})], pod)
    {'spec': {'tolerations': [{'key': 'a'}, {'key': 'b'}]}}
    >>> pod
    {'spec': {}}
    >>> fold([], pod, conflicts="errors")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: fold(): conflicts must be one of last-wins, warn, error, got 'errors'; did you mean error?
    """
    if type(transforms) not in (list, tuple):  # the order before 0.2: (doc, transforms)
        from combinators.order import transforms_first

        transforms, doc = transforms_first("fold", transforms, doc)
    if (
        callable(transforms)
        or isinstance(transforms, (str, bytes))
        or (
            type(transforms) not in (list, tuple)
            and (not _iterable(transforms) or is_map(transforms))
        )
    ):
        raise ArgumentTypeError(
            f"transforms must be a list of transforms, got "
            f"{type(transforms).__name__}: {short_repr(transforms)}",
            argument="transforms",
            factory="fold",
            value=transforms,
        )
    if conflicts == "last-wins":
        result: Doc = _composed(_flatten(transforms, "fold"))(doc)
        return result
    if not isinstance(conflicts, str) or conflicts not in CONFLICT_MODES:
        hint = (
            did_you_mean(near_misses(conflicts, CONFLICT_MODES, n=2))
            if isinstance(conflicts, str)
            else ""
        )
        kind = ArgumentError if isinstance(conflicts, str) else ArgumentTypeError
        raise kind(
            f"conflicts must be one of {', '.join(CONFLICT_MODES)}, got "
            f"{short_repr(conflicts)}{hint}",
            argument="conflicts",
            factory="fold",
            value=conflicts,
        )
    from combinators.conflicts import checked_fold  # glue: the checks live there

    steps = _flatten(transforms, "fold")
    try:  # a warning is shown at the line that called fold
        checked: Doc = checked_fold(
            steps,
            doc,
            mode="error" if conflicts == "error" else "warn",
            labels=labels,
            stacklevel=3,
        )
    except ArgumentError as err:  # labels that do not fit: fold's argument
        if err.factory == "checked_fold":
            err.factory = "fold"
        raise
    return checked
