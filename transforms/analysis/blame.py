"""Field-level provenance: which overlay, which line, which step wrote each change.

An overlay is cut into its finest steps, each with its :class:`Origin`: a
YAML file's pipeline item (its line), a partial pod (the line of the key
that wrote the field), a step of a composition, and inside a recipe the step
of its body. :func:`blame` applies the steps one by one and gives every
change of the whole overlay to the **last** step that changed that field (or
a field inside it, or a field it lies in).

>>> from combinators import chain, upsert
>>> from transforms import loads_overlay
>>> text = '''
... - {op: upsert, path: spec.nodeSelector, value: {pool: a}}
... - {op: upsert, path: spec.nodeSelector.pool, value: b}
... - {op: set_default, path: spec.restartPolicy, value: Never}
... '''
>>> for found in blame(yaml_steps(text, "gpu.yaml"), {"spec": {}}):
...     print(found)
spec.nodeSelector: (absent) -> {'pool': 'b'}  <- gpu.yaml:3: step 2: set spec.nodeSelector.pool to b
spec.restartPolicy: (absent) -> 'Never'  <- gpu.yaml:4: step 3: set spec.restartPolicy to Never where absent
>>> text = '''
... - {op: upsert, path: "spec.volumes[name=dshm]", value: {emptyDir: {}}}
... - {op: upsert, path: "spec.volumes[name=creds]", value: {secret: {secretName: c}}}
... '''
>>> for found in blame(yaml_steps(text, "volumes.yaml"), {"spec": {}}):
...     print(found.change.path, "<-", found.origin.source, found.origin.line)
spec.volumes[name=dshm] <- volumes.yaml 2
spec.volumes[name=creds] <- volumes.yaml 3
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

from combinators import Path, Transform, chain
from combinators.order import transforms_first
from combinators.paths import Key, Match
from combinators.transform import TransformLike, describe_step
from transforms.analysis.provenance import Blame, Origin, Writers
from transforms.forms import kinds
from transforms.forms.catalog import Catalog
from transforms.forms.kinds.named import composed_steps
from transforms.forms.partial import field_of
from transforms.io.loading import StepNode, loads_overlay_steps, read_source
from transforms.io.normalize import as_transform
from transforms.io.safe_yaml import decode

__all__ = (
    "Origin",
    "Step",
    "Blame",
    "blame",
    "writers",
    "steps_of",
    "yaml_steps",
    "node_steps",
    "load_steps",
)


@dataclass(frozen=True)
class Step:
    """One finest step of an overlay and its origin. ``node`` is the YAML node
    of a partial pod, to find the line of the key that wrote a field."""

    transform: TransformLike
    origin: Origin
    node: Any = field(default=None, compare=False, repr=False)
    #: the overlay's own step this one is part of (a recipe, a composition), where it is one
    whole: Any = field(default=None, compare=False, repr=False)

    def origin_of(self, where: Path) -> Origin:
        """The origin of this step's change at ``where``: a partial pod's names
        the line of the deepest key along ``where`` it holds."""
        if self.node is None:
            return self.origin
        found = _deepest(self.node, where)
        return Origin(
            self.origin.source, found.start_mark.line + 1, self.origin.step, self.origin.inner
        )


def _deepest(node: Any, where: Path) -> Any:
    """The deepest node of a partial pod along ``where``: a key's node where a
    key is the last part found, a list item's where a ``[name=...]`` matches."""
    found = node
    for part in where.parts:
        if isinstance(part, Key) and isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                key = getattr(key_node, "value", None)
                if isinstance(key, str) and field_of(key) == part.name:
                    found, node = key_node, value_node
                    break
            else:
                break
        elif isinstance(part, Match) and isinstance(node, yaml.SequenceNode):
            item = next((item for item in node.value if _node_matches(item, part)), None)
            if item is None:
                break
            found = node = item
        else:
            break  # an index: a partial pod's list items are appended, not placed
    return found


def _node_matches(node: Any, part: Match) -> bool:
    if not isinstance(node, yaml.MappingNode):
        return False
    scalars = {
        getattr(key, "value", None): getattr(value, "value", None)
        for key, value in node.value
        if isinstance(value, yaml.ScalarNode)
    }
    return all(key in scalars and str(scalars[key]) == str(value) for key, value in part.fields)


def _words(step: TransformLike, catalog: Catalog | None) -> str:
    """A step in words; a recipe as its call (its summary is for the catalog)."""
    if isinstance(step, Transform) and callable(getattr(step, "body", None)):
        return f"recipe {describe_step(step)}"
    return kinds.phrase(step, catalog)


def _expand(
    transform: TransformLike, origin: Origin, catalog: Catalog | None, node: Any = None
) -> list[Step]:
    """``transform`` cut into its finest steps: a composition into its steps, a
    recipe into its body's, each keeping ``origin`` and saying which inner step it is."""
    body = getattr(transform, "body", None) if isinstance(transform, Transform) else None
    inner = composed_steps(body) if callable(body) else composed_steps(transform)
    if len(inner) <= 1 and not (callable(body) and inner):
        return [Step(transform, origin, node)]
    owner = f"{origin.inner} > " if origin.inner else ""
    return [
        Step(
            step,
            Origin(
                origin.source,
                origin.line,
                origin.step,
                f"{owner}its step {number} of {len(inner)}: {_words(step, catalog)}",
            ),
            node,
            transform,
        )
        for number, step in enumerate(inner, 1)
    ]


def steps_of(
    transform: Any, catalog: Catalog | None = None, source: str | None = None
) -> list[Step]:
    """The finest steps of an overlay given in Python (any form
    :func:`~transforms.as_transform` takes), numbered from 1.

    >>> from combinators import upsert, remove_at, chain
    >>> [str(step.origin) for step in steps_of(chain(upsert("a", 1), remove_at("b")))]
    ['step 1: set a to 1', 'step 2: remove b']
    """
    built = as_transform(transform, catalog)
    found: list[Step] = []
    for number, step in enumerate(composed_steps(built), 1):
        origin = Origin(source, None, f"step {number}: {_words(step, catalog)}")
        found += _expand(step, origin, catalog)
    return found


def yaml_steps(
    text: str, source: str = "<string>", catalog: Catalog | None = None, kind: str | None = "Pod"
) -> list[Step]:
    """The finest steps of a YAML overlay text, each with its line in ``source``.

    The text is loaded as :func:`~transforms.loads_overlay` loads it, in the same
    parse, so a bad one raises the same :class:`~transforms.errors.OverlayError`.
    """
    return node_steps(loads_overlay_steps(text, source, kind, catalog)[1], source, catalog)


def node_steps(
    nodes: Iterable[StepNode], source: str, catalog: Catalog | None = None
) -> list[Step]:
    """The finest steps of the steps a YAML overlay was built of, as
    :func:`~transforms.io.loading.loads_overlay_steps` gives them with their nodes,
    each with its line in ``source``: no second parse.

    >>> from transforms.io.loading import loads_overlay_steps
    >>> _, nodes = loads_overlay_steps("spec: {hostIPC: true}", "ipc.yaml")
    >>> [str(step.origin) for step in node_steps(nodes, "ipc.yaml")]
    ['ipc.yaml:1: partial pod']
    """
    found: list[Step] = []
    for item in nodes:
        prefix = f"document {item.document}, " if item.document > 1 else ""
        line = item.node.start_mark.line + 1
        if item.number is None:
            found.append(Step(item.step, Origin(source, line, f"{prefix}partial pod"), item.node))
            continue
        words = f"{prefix}step {item.number}: {_words(item.step, catalog)}"
        found += _expand(item.step, Origin(source, line, words), catalog)
    return found


def load_steps(
    uri: str | os.PathLike[str],
    catalog: Catalog | None = None,
    kind: str | None = "Pod",
    text: str | None = None,
) -> list[Step]:
    """The finest steps of the YAML overlay at ``uri`` (a path or an fsspec URI);
    ``text``, where given, is the file's text as it was read already (a caller that
    built the overlay from it keeps it: a pipe gives its text once, and a server may
    answer anew), and the source is not read again."""
    source = os.fspath(uri)
    if text is None:
        text = decode(read_source(source), source)
    return yaml_steps(text, source, catalog, kind)


def _states(pod: Any, steps: Iterable[Step]) -> Iterator[Any]:
    """``pod``, then what each of ``steps`` made of it, one at a time."""
    current = pod
    yield current
    for step in steps:
        transform = (
            step.transform if isinstance(step.transform, Transform) else chain(step.transform)
        )
        current = transform(current)
        yield current


def writers(steps: Iterable[Step], pod: Any) -> Writers:
    """The walk of ``steps`` over ``pod``, applied in order, one by one: ask it which
    steps wrote a path (:meth:`~transforms.analysis.provenance.Writers.at`), or for
    every change with its writers (what :func:`blame` gives).

    >>> from combinators import upsert, chain
    >>> walk = writers(steps_of(chain(upsert("spec.nodeSelector", {"pool": "a"}),
    ...                               upsert("spec.nodeSelector.zone", "z1"))), {"spec": {}})
    >>> [(str(found.change.path), found.step) for found in walk.at("spec.nodeSelector")]
    [('spec.nodeSelector.pool', 1), ('spec.nodeSelector.zone', 2)]
    """
    if type(steps) not in (list, tuple):  # the order before 0.2: (pod, steps)
        steps, pod = transforms_first("writers", steps, pod)
    applied = list(steps)
    return Writers(_states(pod, applied), applied)


def blame(steps: Iterable[Step], pod: Any) -> list[Blame]:
    """Every change ``steps`` make to ``pod``, each with the origin of the last
    step that changed it; a change several steps wrote parts of comes as those
    parts, each with its step. The steps are applied in order, one by one.

    >>> from combinators import upsert, chain
    >>> team = chain(upsert("metadata.labels.team", "ml"), upsert("spec.hostIPC", True),
    ...              upsert("metadata.labels.team", "ai"))
    >>> for found in blame(steps_of(team), {"spec": {}}):
    ...     print(found.change.path, "<-", found.origin)
    spec.hostIPC <- step 2: set spec.hostIPC to true
    metadata <- step 3: set metadata.labels.team to ai
    """
    if type(steps) not in (list, tuple):  # the order before 0.2: (pod, steps)
        steps, pod = transforms_first("blame", steps, pod)
    return writers(list(steps), pod).changes()
