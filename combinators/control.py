"""Control: apply a transform to every match, choose by a predicate, assert.

>>> pod = {"spec": {"containers": [{"name": "a"}, {"name": "b"}]}}
>>> from combinators import upsert
>>> for_each("spec.containers[*]", upsert("imagePullPolicy", "Always"))(pod)
{'spec': {'containers': [{'name': 'a', 'imagePullPolicy': 'Always'}, {'name': 'b', 'imagePullPolicy': 'Always'}]}}
"""

from __future__ import annotations

from combinators._typing import TYPE_CHECKING
from combinators.data import Owned, freeze_value, is_map, is_seq, kind_name
from combinators.editing import SKIP, PathEdit
from combinators.errors import (
    ArgumentError,
    ArgumentTypeError,
    ExpectationError,
    TransformError,
)
from combinators.fusion import CHECK, Op
from combinators.limits import short_repr
from combinators.near import near_misses
from combinators.paths import All, End, Match, Path, PathLike, as_path
from combinators.reading import exists, select
from combinators.shape import guarded_copy
from combinators.transform import (
    Transform,
    apply_step,
    call_foreign,
    describe_step,
    identity,
)

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Union

    from combinators.transform import TransformLike

    Predicate = Union[PathLike, Callable[[Any], bool]]
    Count = Union[int, str, Callable[[int], bool]]

__all__ = ("for_each", "when", "expect")


class _ForEach(PathEdit):
    __slots__ = ("transform",)
    name = "for_each"

    def __init__(self, target: PathLike, transform: TransformLike) -> None:
        if not callable(transform):
            raise ArgumentTypeError(
                f"transform must be a transform or a callable doc -> doc, "
                f"got {short_repr(transform)}",
                argument="transform",
                factory="for_each",
                value=transform,
            )
        self._init_path(target, SKIP, SKIP)
        self.transform = transform
        self._init_params(self.path, transform)

    def _compile(self) -> None:
        # no compiled fast path: an error inside must learn which element it came from
        super()._compile()
        # and no fast leaf: a bound method held by its own object is a cycle, which only
        # the collector frees (a for_each may be made for each document of a stream)
        self._compiled = self._lone = self._fast_leaf = None

    def _fusion_ops(self) -> tuple[Op, ...] | None:
        # A path that selects at most one element, and an inner transform made of
        # path edits: the same edits at the joined paths. Where the path reaches
        # nothing (or several elements) the fused function falls back, and this
        # for_each runs as itself.
        parts = self.path.parts
        if not parts or any(type(part) in (All, End) for part in parts):
            return None
        inner = self.transform._fusion_ops() if isinstance(self.transform, Transform) else None
        if inner is None or any(op.kind == CHECK for op in inner):
            return None
        return tuple(
            Op(
                op.kind,
                (*parts, *op.parts),
                op.payload,
                op.extra,
                exists=len(parts) + op.exists,
                missing=op.missing,
            )
            for op in inner
        )

    def leaf(self, old: Any, persistent: bool, owned: Owned) -> Any:
        try:
            new = apply_step(self.transform, old, owned, document=False)
        except TransformError as err:
            # its path is relative to ``old``: the walk up adds the way to ``old``
            err.relative, err.trail = True, ()
            raise
        if persistent and new is not old and type(new) in (dict, list):
            # a plain function (alone, or a step of a composition) may build plain values
            return freeze_value(new)
        return new

    def _apply_slow(self, doc: Any, owned: Owned) -> Any:
        try:
            return super()._apply_slow(doc, owned)
        except TransformError as err:
            if err.relative:
                # the error's path, made whole: the element's own place, then the inner path
                trail, inner = err.trail, err.path
                err.relative, err.trail = False, ()
                if inner is None:
                    err.path, err.part_index = Path(trail), None
                else:
                    err.path = Path((*trail, *inner.parts))
                    if err.part_index is not None:
                        err.part_index += len(trail)
            raise


def for_each(target: PathLike, transform: TransformLike) -> Transform:
    """Apply ``transform`` to every value ``target`` reaches; paths in it are relative.

    Where ``target`` reaches nothing, the document comes back unchanged.

    >>> from combinators import append_at
    >>> pod = {"spec": {"containers": [{"name": "a"}, {"name": "b", "args": ["-v"]}]}}
    >>> for_each("spec.containers[*]", append_at("args", "--fast"))(pod)["spec"]["containers"]
    [{'name': 'a', 'args': ['--fast']}, {'name': 'b', 'args': ['-v', '--fast']}]
    >>> for_each("spec.initContainers[*]", append_at("args", "--fast"))(pod) is pod
    True

    A plain function (alone, or a step of ``transform``) is given a copy of
    each value and returns one of its kind: a map for a map (a container
    stays a container), a list for a list, a scalar for a scalar; a null may
    become anything. Anything else is a
    :class:`~combinators.errors.StepError` naming the function, the place and
    what it returned (``update_at`` is the one to change a value's kind):

    >>> for_each("spec.containers[*].args[*]", str.upper)(pod)["spec"]["containers"][1]
    {'name': 'b', 'args': ['-V']}
    >>> for_each("spec.containers[*]", lambda container: None)(pod)
    Traceback (most recent call last):
      ...
    combinators.errors.StepError: <lambda> returned null where it was given a map; for_each's function returns a map for a map, a list for a list, a scalar for a scalar (in spec.containers[0])
    """
    return _ForEach(target, transform)


class _When(Transform):
    __slots__ = ("predicate", "then", "otherwise", "_test")
    name = "when"

    def __init__(self, predicate: Predicate, then: TransformLike, otherwise: TransformLike) -> None:
        for argument, step in (("transform", then), ("otherwise", otherwise)):
            if not callable(step):
                raise ArgumentTypeError(
                    f"{argument} must be a transform or a callable "
                    f"doc -> doc, got {short_repr(step)}",
                    argument=argument,
                    factory="when",
                    value=step,
                )
        self.predicate = predicate
        self.then = then
        self.otherwise = otherwise
        if isinstance(predicate, (str, Path)):
            try:
                where = as_path(predicate, "predicate")
            except ArgumentError as err:
                raise err.in_factory("when") from None
            self._test: Callable[[Any], bool] | Path = where
            self._init_params(
                str(where), then, **({} if otherwise is identity else {"otherwise": otherwise})
            )
        elif callable(predicate):
            self._test = predicate
            self._init_params(
                predicate, then, **({} if otherwise is identity else {"otherwise": otherwise})
            )
        else:
            raise ArgumentTypeError(
                f"predicate must be a path or a function doc -> bool, got {short_repr(predicate)}",
                argument="predicate",
                factory="when",
                value=predicate,
            )

    def _apply(self, doc: Any, owned: Owned) -> Any:
        return apply_step(self._chosen(doc, owned), doc, owned)

    def _apply_inside(self, value: Any, owned: Owned) -> Any:
        return apply_step(self._chosen(value, owned), value, owned, document=False)

    def _chosen(self, doc: Any, owned: Owned) -> TransformLike:
        test = self._test
        if isinstance(test, Path):
            holds = exists(doc, test)
        else:
            owned.forget()  # the predicate is the caller's code and may keep the document
            holds = call_foreign(test, guarded_copy(doc))  # and may change what it gets
        return self.then if holds else self.otherwise


def when(
    predicate: Predicate, transform: TransformLike, otherwise: TransformLike = identity
) -> Transform:
    """Apply ``transform`` where ``predicate`` holds, ``otherwise`` elsewhere.

    ``predicate`` is a function ``doc -> bool`` or a path, which holds when
    it reaches at least one value.

    >>> from combinators import upsert
    >>> gpu = when("spec.containers[*].resources.limits['nvidia.com/gpu']",
    ...            upsert("spec.nodeSelector", {"pool": "gpu"}))
    >>> gpu({"spec": {"containers": [{"resources": {"limits": {"nvidia.com/gpu": 1}}}]}})["spec"]["nodeSelector"]
    {'pool': 'gpu'}
    >>> pod = {"spec": {"containers": [{}]}}
    >>> gpu(pod) is pod
    True
    """
    return _When(predicate, transform, otherwise)


_MAX_DIGITS = 4_000


def _count_test(count: Count) -> tuple[Callable[[int], bool], str]:
    # the tests are bound methods of ints (``n == count``, ``least <= n``): they pickle,
    # as a transform must, and need neither functools nor operator imported
    if isinstance(count, int) and not isinstance(count, bool):
        if count < 0:
            raise ArgumentError(
                f"count cannot be negative, got {short_repr(count)}",
                argument="count",
                factory="expect",
                value=count,
            )
        return int(count).__eq__, short_repr(int(count))
    if isinstance(count, str):
        import re  # not on import: re costs more than all of combinators

        found = re.match(r"\s*(\d+)\s*\+\s*\Z", count)
        if not found:
            raise ArgumentError(
                f"count text must read like '1+', got {short_repr(count)}",
                argument="count",
                factory="expect",
                value=count,
            )
        if len(found.group(1)) > _MAX_DIGITS:  # int() refuses text past 4,300 digits
            raise ArgumentError(
                f"count text has more than {_MAX_DIGITS:,} digits, got {short_repr(count)}",
                argument="count",
                factory="expect",
                value=count,
            )
        least = int(found.group(1))
        return least.__le__, f"at least {short_repr(least)}"
    if callable(count):
        return count, f"a count satisfying {describe_step(count)}"
    raise ArgumentTypeError(
        f"count is an int, 'N+' or a predicate, got {short_repr(count)}",
        argument="count",
        factory="expect",
        value=count,
    )


class _Expect(Transform):
    __slots__ = ("path", "count", "_test", "_wanted")
    name = "expect"

    def __init__(self, target: PathLike, count: Count) -> None:
        try:
            self.path = as_path(target)
        except ArgumentError as err:
            raise err.in_factory("expect") from None
        self.count = count
        self._test, self._wanted = _count_test(count)
        self._init_params(
            self.path, **({} if count == 1 and not isinstance(count, bool) else {"count": count})
        )

    def _fusion_ops(self) -> tuple[Op, ...] | None:
        return (Op(CHECK, (), self._check),)

    def _check(self, doc: Any) -> None:
        self._apply(doc, Owned())

    def _apply(self, doc: Any, owned: Owned) -> Any:
        found = select(doc, self.path)
        if call_foreign(self._test, len(found)):  # a count predicate is the caller's code
            return doc
        present = self._present(doc)
        last = self.path.parts[-1] if self.path.parts else None
        near = (
            near_misses(str(last.fields[0][1]), present)
            if not found and present and isinstance(last, Match)
            else ()
        )
        raise ExpectationError(
            f"expected {self._wanted} match{'es' if self._wanted != '1' else ''} "
            f"for {self.path}, found {len(found)}{self._blocked(doc) if not found else ''}",
            path=self.path,
            found=len(found),
            present=present,
            present_label=self._present_label(),
            near_misses=near,
        )

    def _blocked(self, doc: Any) -> str:
        """Where the path met a value of the wrong kind (a string where a list was read,
        say): ``'; spec.containers holds a string ('oops'), not a list'``, else ``''``."""
        parts = self.path.parts
        for size in range(len(parts)):
            values = select(doc, Path(parts[:size]))
            if not values:
                return ""
            listed = parts[size].is_list_part()
            if not any(is_seq(value) if listed else is_map(value) for value in values):
                where = str(Path(parts[:size])) or "the document"
                return (
                    f"; {where} holds {kind_name(values[0])}, not {'a list' if listed else 'a map'}"
                )
        return ""

    def _present_label(self) -> str:
        last = self.path.parts[-1] if self.path.parts else None
        return f"{last.fields[0][0]}s present" if isinstance(last, Match) else "present"

    def _present(self, doc: Any) -> tuple[str, ...]:
        parts = self.path.parts
        if not parts or not isinstance(parts[-1], Match):
            return ()
        field = parts[-1].fields[0][0]
        lists = select(doc, Path(parts[:-1]))
        return tuple(
            str(element[field])
            for seq in lists
            if is_seq(seq)
            for element in seq
            if is_map(element) and field in element
        )


def expect(target: PathLike, count: Count = 1) -> Transform:
    """Assert how many values ``target`` reaches; return the document unchanged.

    ``count`` is an exact number, a text such as ``"1+"`` (at least one), or
    a predicate on the number found. Otherwise raise an
    :class:`~combinators.errors.ExpectationError` (also an ``AssertionError``)
    saying what was found instead.

    >>> pod = {"spec": {"containers": [{"name": "trainer-0"}, {"name": "sidecar"}]}}
    >>> expect("spec.containers[*]", "1+")(pod) is pod
    True
    >>> expect("spec.containers[name=trainr]")(pod)
    Traceback (most recent call last):
      ...
    combinators.errors.ExpectationError: expected 1 match for spec.containers[name=trainr], found 0; did you mean trainer-0?; names present: trainer-0, sidecar
    """
    return _Expect(target, count)
