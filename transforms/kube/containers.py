"""Which container of a pod is its main one: a convention of whoever rendered the pod.

TorchX renders the role's container first and appends sidecars after it:
the main container is ``spec.containers[0]`` (:data:`FIRST`). Flyte names
its primary container (``primary`` by default, configurable per task): the
main container is the one with that name (``MainContainer.named("primary")``).
A :class:`MainContainer` is an immutable value saying which; recipes take one.

>>> FIRST.path()
path('spec.containers[0]')
>>> MainContainer.named("primary").path()
path('spec.containers[name=primary]')
"""

from __future__ import annotations

from dataclasses import dataclass

from combinators.errors import ArgumentError, ArgumentTypeError
from combinators.limits import short_repr
from combinators.paths import Index, Key, Match, Path

__all__ = ("MainContainer", "FIRST")

_CONTAINERS = Path([Key("spec"), Key("containers")])


@dataclass(frozen=True)
class MainContainer:
    """How to find the main container: the first one (``name`` is ``None``) or the one named ``name``.

    Equal conventions compare and hash equal; the ``repr`` is the call that builds one.

    >>> MainContainer.first() == FIRST, MainContainer.named("primary")
    (True, MainContainer.named('primary'))
    >>> MainContainer.named("")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: MainContainer.named(): name: the main container's name must not be empty
    """

    name: str | None = None

    def __post_init__(self) -> None:
        if self.name is None:
            return
        factory = "MainContainer.named"
        if not isinstance(self.name, str):
            raise ArgumentTypeError(
                f"the main container's name must be a string, found "
                f"{type(self.name).__name__} {short_repr(self.name)}",
                argument="name",
                factory=factory,
                value=self.name,
            )
        if not self.name:
            raise ArgumentError(
                "the main container's name must not be empty",
                argument="name",
                factory=factory,
                value=self.name,
            )

    @classmethod
    def first(cls) -> MainContainer:
        """The first container is the main one (TorchX's rendering)."""
        return cls(None)

    @classmethod
    def named(cls, name: str) -> MainContainer:
        """The container called ``name`` is the main one (Flyte's ``primary``)."""
        return cls(name)

    def path(self) -> Path:
        """The path of the main container in a pod.

        >>> str(MainContainer.named("primary").path().child(Key("image")))
        'spec.containers[name=primary].image'
        """
        if self.name is None:
            return _CONTAINERS.child(Index(0))
        return _CONTAINERS.child(Match([("name", self.name)]))

    def __repr__(self) -> str:
        return (
            "MainContainer.first()"
            if self.name is None
            else f"MainContainer.named({short_repr(self.name)})"
        )


FIRST = MainContainer.first()
"""TorchX's convention, the default: the first container is the main one."""
