"""The containers one application of a transform made itself: its licence to edit in place.

Transforms are copy-on-write: they never change what they are given. Within
one application of a composition, though, a step may change in place a map
or list that an earlier step of the *same* application made, since nobody
else has seen it yet; that is what keeps an eight-step overlay from copying
the same maps eight times. :class:`Owned` is that record, and the only way
to touch it, as pyrsistent's ``PMap._Evolver`` confines in-place edits to
one object:

- :meth:`Owned.writable_map` / :meth:`Owned.writable_list` hand back a
  container the step may change: the very same one when this application
  made it, else a shallow copy, registered;
- :meth:`Owned.adopt` registers a container the step built itself;
- :meth:`Owned.forget` drops everything, before foreign code (a user's
  function) runs: it may keep what it is given, so from then on nothing made
  earlier may change in place.

>>> pod = {"spec": {"nodeSelector": {}}}
>>> owned = Owned()
>>> spec = owned.writable_map(pod["spec"])
>>> spec is pod["spec"], owned.writable_map(spec) is spec, owned.owns(spec)
(False, True, True)
>>> owned.forget()
>>> owned.owns(spec), owned.is_dirty()
(False, False)
"""

from __future__ import annotations

from combinators._typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, TypeVar

    C = TypeVar("C")

__all__ = ("Owned",)


class Owned:
    """What the current application made, by ``id()``; see the module's documentation.

    The record also keeps those containers alive, so an ``id`` is never
    reused while it lasts. It lives as long as one application: a new one
    for each call of a transform.
    """

    __slots__ = ("_made",)

    def __init__(self) -> None:
        # id -> container. Compiled fast paths (combinators.compiled) read it
        # directly: a method call per level would cost more than the edit.
        self._made: dict[int, Any] = {}

    def owns(self, container: Any) -> bool:
        """Whether this application made ``container`` (so may change it in place)."""
        return id(container) in self._made

    def is_dirty(self) -> bool:
        """Whether anything is registered (``False`` after :meth:`forget`)."""
        return bool(self._made)

    def adopt(self, container: C) -> C:
        """Register ``container``, which the caller has just built; returns it."""
        self._made[id(container)] = container
        return container

    def writable_map(self, mapping: Any) -> dict[Any, Any]:
        """``mapping`` itself if this application made it, else a registered plain copy.

        >>> owned, labels = Owned(), {"app": "x"}
        >>> copy = owned.writable_map(labels)
        >>> copy == labels, copy is labels, owned.writable_map(copy) is copy
        (True, False, True)
        """
        made = self._made
        if id(mapping) in made:
            result: dict[Any, Any] = mapping
            return result
        new = mapping.copy() if type(mapping) is dict else dict(mapping)
        made[id(new)] = new
        return new

    def writable_list(self, seq: Any) -> list[Any]:
        """``seq`` itself if this application made it, else a registered plain copy."""
        made = self._made
        if id(seq) in made:
            result: list[Any] = seq
            return result
        new = seq.copy() if type(seq) is list else list(seq)
        made[id(new)] = new
        return new

    def forget(self) -> None:
        """Forget everything: foreign code is about to see what was made so far."""
        self._made.clear()

    def __repr__(self) -> str:
        return f"<Owned: {len(self._made)} containers>"
