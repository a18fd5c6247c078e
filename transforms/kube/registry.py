"""The current kind registry: the built-in kinds, and those declared in Python, by
installed packages and for one run.

A kind is declared with the record a built-in kind has
(:func:`~transforms.kube.records.kind_from_record`), three ways:

- in Python, :func:`register_kinds` (for the whole process; it returns the new
  registry), or a ``kinds=`` argument where one call needs a kind
  (:func:`~transforms.kube.workloads.apply_to_workload`,
  :func:`~transforms.kube.workloads.pod_templates`, ...);
- by a package, a ``podfold.kinds`` entry point naming a list of records, or a
  callable returning them, read on first use, once;
- for one run, :func:`using_kinds` (``podfold --kinds FILE`` reads a file of
  records, :mod:`transforms.io.kind_files`, and runs in it).

:func:`current_kinds` is the registry every look-up uses where it is given none:
the built-in kinds, then the installed packages' (by entry point name), then those
registered in Python, each record of a kind, group and version already there
replacing it; inside :func:`using_kinds`, the registry it was given. Each is an
immutable :class:`~transforms.kube.table.KindRegistry`: registering swaps the
current one for a new one, under a lock, and a look-up under way keeps the one it
began with.

>>> widget = {"apiVersion": "example.com/*", "kind": "Widget", "pods": [{"path": "spec.template"}]}
>>> workload_kind("Widget", "example.com/v1") is None
True
>>> with using_kinds([widget]):
...     str(workload_kind("Widget", "example.com/v1").locations[0].path)
'spec.template'
>>> workload_kind("Widget", "example.com/v1", kinds=[widget]).kind
'Widget'
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Union

from combinators.data import is_map
from combinators.errors import ArgumentTypeError, TransformError
from combinators.limits import short_repr
from transforms._entry_points import entry_points
from transforms.kube.records import KindRecordError, WorkloadKind, kind_from_record
from transforms.kube.table import BUILTIN_KINDS, KindRegistry

__all__ = (
    "GROUP",
    "BUILT_IN",
    "KindsLike",
    "DeclaredKind",
    "KindSourceError",
    "declared",
    "current_kinds",
    "register_kinds",
    "using_kinds",
    "resolve_kinds",
    "workload_kind",
    "kind_origin",
)

#: The entry point group of the packages that ship kinds.
GROUP = "podfold.kinds"

#: Where a built-in kind comes from, as :func:`kind_origin` says it.
BUILT_IN = "built-in"

KindsLike = Union[KindRegistry, Iterable[Union[Mapping[str, Any], WorkloadKind, "DeclaredKind"]]]
"""What a ``kinds=`` argument takes: a registry (used as it is), or records, kinds or
declared kinds (added to the current registry)."""


@dataclass(frozen=True)
class DeclaredKind:
    """A kind and where it was declared: ``origin`` is a file and line (``kinds.yaml:3``),
    a package's entry point, or the Python module that registered it."""

    kind: WorkloadKind
    origin: str


class KindSourceError(TransformError, ValueError):
    """An installed package's ``podfold.kinds`` entry point cannot load, or what it gives
    is not kind records; ``entry_point`` and ``distribution`` name it."""

    def __init__(self, message: str, *, entry_point: str, distribution: str | None) -> None:
        super().__init__(message)
        self.entry_point = entry_point
        self.distribution = distribution


def declared(kinds: Any, origin: str, *, what: str = "kinds") -> tuple[DeclaredKind, ...]:
    """``kinds`` (records, :class:`WorkloadKind` values or :class:`DeclaredKind` values,
    or a registry) as declared kinds, each record checked; ``origin`` is where those
    without one come from, ``what`` names the argument in errors.

    >>> [(d.kind.kind, d.origin) for d in declared([{"kind": "Widget", "pods": [{"path": "spec"}]}], "here")]
    [('Widget', 'here')]
    >>> declared("Widget", "here")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentTypeError: kinds: must be kind records (maps), kinds or a KindRegistry, got 'Widget'
    """
    if isinstance(kinds, KindRegistry):
        return tuple(DeclaredKind(entry, origin) for entry in kinds)
    if isinstance(kinds, (str, bytes)) or is_map(kinds) or not isinstance(kinds, Iterable):
        raise ArgumentTypeError(
            f"must be kind records (maps), kinds or a KindRegistry, got {short_repr(kinds)}",
            argument=what,
            value=kinds,
        )
    out = []
    for item in kinds:
        if isinstance(item, DeclaredKind):
            out.append(item)
        elif isinstance(item, WorkloadKind):
            out.append(DeclaredKind(item, origin))
        else:
            out.append(DeclaredKind(kind_from_record(item), origin))
    return tuple(out)


@dataclass(frozen=True)
class _State:
    """The process-wide part of the current registry: what packages and Python declared,
    and the registry they make with the built-in kinds."""

    installed: tuple[DeclaredKind, ...]
    registered: tuple[DeclaredKind, ...]
    registry: KindRegistry
    origins: Mapping[WorkloadKind, str]

    @classmethod
    def of(
        cls, installed: tuple[DeclaredKind, ...], registered: tuple[DeclaredKind, ...]
    ) -> _State:
        both = (*installed, *registered)
        registry = BUILTIN_KINDS.with_kinds(each.kind for each in both)
        return cls(installed, registered, registry, {each.kind: each.origin for each in both})


_lock = threading.Lock()
_state: _State | None = None  # swapped whole, under the lock; read without it
_using: contextvars.ContextVar[KindRegistry | None] = contextvars.ContextVar(
    "podfold_kinds", default=None
)
_using_origins: contextvars.ContextVar[Mapping[WorkloadKind, str]] = contextvars.ContextVar(
    "podfold_kind_origins", default=MappingProxyType({})
)


def _loaded() -> _State:
    state = _state
    if state is not None:
        return state
    with _lock:
        if _state is None:
            _swap(_State.of(_installed(), ()))
        assert _state is not None
        return _state


def _swap(state: _State) -> None:
    global _state
    _state = state


def _installed() -> tuple[DeclaredKind, ...]:
    """The kinds of every installed ``podfold.kinds`` entry point, by entry point name."""
    points = entry_points(GROUP)  # the scan the recipe catalogs share: paid by the first look-up
    return tuple(found for point in points for found in _kinds_of_entry_point(point))


def _kinds_of_entry_point(point: Any) -> tuple[DeclaredKind, ...]:
    dist = getattr(point, "dist", None)
    distribution = getattr(dist, "name", None) if dist is not None else None
    owner = f" of {distribution}" if distribution else ""
    where = (
        f"the kinds entry point {short_repr(point.name)}{owner} "
        f"({short_repr(point.value, quoted=False)})"
    )
    try:
        value = point.load()
        if callable(value) and not isinstance(value, KindRegistry):
            value = value()
    except Exception as err:  # another package's code: whatever it raises, name it
        said = short_repr(" ".join(str(err).split()), 200, quoted=False)
        raise _refused(
            where, f"cannot load: {type(err).__name__}: {said}", point.name, distribution
        ) from err
    try:
        return declared(value, f"entry point {point.name}{owner}", what=point.name)
    except KindRecordError as err:
        raise _refused(where, f"declares a bad record: {err}", point.name, distribution) from err
    except ArgumentTypeError as err:
        raise _refused(
            where,
            f"gives {short_repr(value)}: an entry point names a list of kind records, "
            f"or a callable returning them",
            point.name,
            distribution,
        ) from err


def _refused(where: str, message: str, name: str, distribution: str | None) -> KindSourceError:
    return KindSourceError(f"{where} {message}", entry_point=name, distribution=distribution)


def current_kinds() -> KindRegistry:
    """The registry that look-ups use where they are given none (see the module).

    >>> current_kinds().lookup("Deployment", "apps/v1").kind
    'Deployment'
    """
    using = _using.get()
    return using if using is not None else _loaded().registry


def resolve_kinds(kinds: KindsLike | None) -> KindRegistry:
    """The registry of a ``kinds=`` argument: the current one for ``None``, a registry as
    it is, records (or kinds) added to the current one.

    >>> resolve_kinds(None) is current_kinds()
    True
    >>> len(resolve_kinds([{"kind": "Widget", "pods": [{"path": "spec"}]}])) - len(current_kinds())
    1
    """
    if kinds is None:
        return current_kinds()
    if isinstance(kinds, KindRegistry):
        return kinds
    return current_kinds().with_kinds(each.kind for each in declared(kinds, "kinds="))


def _caller() -> str:
    frame = sys._getframe(2)
    return f"registered by {frame.f_globals.get('__name__', '?')}"


def register_kinds(kinds: KindsLike, *, origin: str | None = None) -> KindRegistry:
    """Declare ``kinds`` (records, or kinds) for the whole process, and return the new
    current registry. A record of a kind, group and version the registry has (a
    built-in one too) replaces it. ``origin`` is what ``podfold kinds`` says it came
    from (by default the module that called).

    The registry is swapped whole, under a lock: a look-up under way keeps the one it
    began with, and one that runs inside :func:`using_kinds` keeps that.
    """
    where = origin if origin is not None else _caller()
    added = declared(kinds, where)
    with _lock:
        state = _state if _state is not None else _State.of(_installed(), ())
        _swap(_State.of(state.installed, (*state.registered, *added)))
        assert _state is not None
        return _state.registry


@contextlib.contextmanager
def using_kinds(
    kinds: KindsLike | None, origins: Mapping[WorkloadKind, str] | None = None
) -> Iterator[KindRegistry]:
    """Within the block, :func:`current_kinds` is ``kinds`` (see :func:`resolve_kinds`):
    a run's own kinds (``podfold --kinds``), in this thread (or task) only.
    ``origins`` says where its kinds come from, for :func:`kind_origin`; declared kinds
    bring their own.
    """
    registry = resolve_kinds(kinds)
    known = dict(_using_origins.get())
    if kinds is not None and not isinstance(kinds, KindRegistry):
        known.update((each.kind, each.origin) for each in declared(kinds, "kinds="))
    known.update(origins or {})
    token = _using.set(registry)
    named = _using_origins.set(known)
    try:
        yield registry
    finally:
        _using_origins.reset(named)
        _using.reset(token)


def kind_origin(entry: WorkloadKind) -> str:
    """Where a kind of the current registry comes from: :data:`BUILT_IN`, a file and line,
    an entry point, the module that registered it.

    >>> kind_origin(current_kinds().lookup("Job", "batch/v1"))
    'built-in'
    """
    found = _using_origins.get().get(entry)
    if found is None:
        found = _loaded().origins.get(entry)
    return found if found is not None else BUILT_IN


def workload_kind(
    kind: Any, api_version: Any = None, *, kinds: KindsLike | None = None
) -> WorkloadKind | None:
    """The record of a kind (and ``apiVersion``, where kinds clash) in the current
    registry (or in ``kinds``), or ``None``.

    >>> workload_kind("Job", "batch.volcano.sh/v1alpha1").locations[0].path
    path('spec.tasks[*].template')
    >>> workload_kind("Service", "v1") is None
    True
    """
    return resolve_kinds(kinds).lookup(kind, api_version)
