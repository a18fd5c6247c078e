"""Overlays loaded once: each a transform and its finest steps, each step with its origin.

A YAML file is read once and parsed once (:func:`load_file`): the parse that
builds its transform keeps each step's node, from which its finest steps and
their lines are made, only when a finding asks who wrote it. An overlay given
in Python (:func:`given`) is one step, named by its label.

>>> loaded = loads("- {op: upsert, path: spec.hostIPC, value: true}", "ipc.yaml")
>>> loaded.transform({}), [str(step.origin) for step in loaded.steps]
({'spec': {'hostIPC': True}}, ['ipc.yaml:1: step 1: set spec.hostIPC to true'])
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from typing import Any

from combinators import Transform
from combinators.transform import TransformLike

__all__ = ("Loaded", "load_file", "loads", "given", "unique_labels")


class Loaded:
    """One overlay: ``label`` names it in findings (its file, or what the door calls
    it), ``transform`` is what it does; ``source`` and ``text`` are its file and the
    text read from it (``None`` for an overlay given in Python); ``nodes`` each step
    with its YAML node, as the one parse kept them
    (:class:`~transforms.io.loading.StepNode`). Equal overlays compare equal."""

    __slots__ = ("label", "transform", "source", "text", "nodes", "_steps")

    def __init__(
        self,
        label: str,
        transform: TransformLike,
        source: str | None = None,
        text: str | None = None,
        nodes: tuple[Any, ...] | None = None,
    ) -> None:
        self.label = label
        self.transform = transform
        self.source = source
        self.text = text
        self.nodes = nodes
        self._steps: tuple[Any, ...] | None = None

    def _key(self) -> tuple[Any, ...]:
        return (self.label, self.transform, self.source, self.text)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Loaded):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash((Loaded, *self._key()))

    def __repr__(self) -> str:
        return f"Loaded({self.label!r}, {self.transform!r}, source={self.source!r})"

    @property
    def steps(self) -> tuple[Any, ...]:
        """The finest steps (:class:`~transforms.analysis.blame.Step`), each with its
        origin (file, line, the recipe's step), made on first use: from the nodes the load
        kept; from the text (parsed once more) where the transform was built elsewhere;
        from the file, read again, where no text was kept. An overlay given in Python, or
        a file that no longer loads, is one step named by its file or ``label``."""
        if self._steps is None:
            self._steps = self._made_steps()
        return self._steps

    def _made_steps(self) -> tuple[Any, ...]:
        from combinators import TransformError
        from transforms.analysis.blame import Origin, Step, load_steps, node_steps, yaml_steps

        if self.source is not None:
            try:
                if self.nodes is not None:
                    return tuple(node_steps(self.nodes, self.source))
                if self.text is not None:
                    return tuple(yaml_steps(self.text, self.source))
                return tuple(load_steps(self.source))  # no text kept: the file, read again
            except TransformError:
                pass
        return (Step(self.transform, Origin(self.source if self.source else self.label)),)


def loads(text: str, source: str, *, label: str | None = None, kind: str | None = "Pod") -> Loaded:
    """The overlay the YAML ``text`` of the file ``source`` describes, parsed once;
    errors as :func:`~transforms.io.loading.loads_overlay` raises them."""
    from transforms.io.loading import loads_overlay_steps

    transform, nodes = loads_overlay_steps(text, source, kind, factory="loads_overlay")
    return Loaded(source if label is None else label, transform, source, text, nodes)


def load_file(
    uri: str | os.PathLike[str], *, text: str | None = None, kind: str | None = "Pod"
) -> Loaded:
    """The overlay in the YAML file at ``uri`` (a path or an fsspec URI), read once (not at
    all where its ``text`` is given: a pipe gives its text once) and parsed once."""
    from transforms.io.loading import read_overlay_text

    source = os.fspath(uri)
    return loads(read_overlay_text(source) if text is None else text, source, kind=kind)


def given(
    transform: TransformLike, label: str, *, source: str | None = None, text: str | None = None
) -> Loaded:
    """An overlay built elsewhere (``transform``): from the file ``source`` whose ``text``
    was read, where given, whose steps are parsed from it only when asked for; else one
    step named by ``label``."""
    return Loaded(label, transform, source, text)


def unique_labels(labels: Sequence[str]) -> list[str]:
    """``labels`` with repeats told apart (``a.yaml``, ``a.yaml (2nd time)``), so a
    conflict's label names one overlay.

    >>> unique_labels(["a.yaml", "b.yaml", "a.yaml"])
    ['a.yaml', 'b.yaml', 'a.yaml (2nd time)']
    """
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        count = seen.get(label, 0) + 1
        seen[label] = count
        suffix = {2: "2nd", 3: "3rd"}.get(count, f"{count}th")
        out.append(label if count == 1 else f"{label} ({suffix} time)")
    return out


class Overlays:
    """The overlays of a run, in the order they apply: their chain and their labels (told
    apart where repeated) made once, however many pods they run over.

    >>> from combinators import upsert
    >>> overlays = Overlays([given(upsert("a", 1), "a.yaml"), given(upsert("b", 2), "a.yaml")])
    >>> overlays.transform({}), overlays.labels
    ({'a': 1, 'b': 2}, ('a.yaml', 'a.yaml (2nd time)'))
    """

    __slots__ = ("items", "transform", "labels", "__dict__")

    def __init__(self, items: Sequence[Loaded]) -> None:
        from combinators import chain

        self.items = tuple(items)
        self.transform: Transform = chain(*(item.transform for item in self.items))
        self.labels = tuple(unique_labels([item.label for item in self.items]))

    def __len__(self) -> int:
        return len(self.items)

    def __repr__(self) -> str:
        return f"Overlays({list(self.items)!r})"

    @functools.cached_property
    def transforms(self) -> tuple[TransformLike, ...]:
        """Each overlay's transform, in order."""
        return tuple(item.transform for item in self.items)

    @functools.cached_property
    def steps(self) -> tuple[Any, ...]:
        """The finest steps of every overlay, in order (made on first use)."""
        return tuple(step for item in self.items for step in item.steps)
