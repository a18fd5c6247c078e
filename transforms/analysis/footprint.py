"""Which paths a transform changes in a pod, and whether they lie under given prefixes.

The changes are the one diff's (:func:`combinators.diff.diff`, read as
:func:`~transforms.analysis.explanation.changes_between` reads a pod). Paths are
written in podfold's path grammar, list elements named by ``[name=...]`` (or a
list's Kubernetes merge key) where they have distinct names, by index
otherwise. Subtrees
the output shares with the input (the very same object) are skipped unread:
copy-on-write leaves untouched subtrees shared.

>>> from combinators import upsert
>>> pod = {"spec": {"nodeSelector": {}, "containers": [{"name": "trainer-0", "image": "t:1"}]}}
>>> changed_paths(upsert("spec.nodeSelector", {"gpu": "a100"}), pod)
['spec.nodeSelector.gpu']
>>> changed_paths(upsert("spec.containers[0].env", [{"name": "X", "value": "1"}]), pod)
['spec.containers[name=trainer-0].env']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from combinators import MISSING, Path, path
from combinators.covering import covers
from combinators.data import is_map, is_seq
from transforms.analysis.explanation import Change, changes_between
from transforms.io.normalize import as_transform

__all__ = ("changed_paths", "changes", "between", "outside", "last_change")


def changes(transform: Any, pod: Any) -> list[Change]:
    """The changes ``transform`` (any overlay form) makes to ``pod``, as :class:`Change` values.

    >>> from combinators import remove_at
    >>> changes(remove_at("spec.hostIPC"), {"spec": {"hostIPC": True}})
    [Change(path=path('spec.hostIPC'), before=True, after=MISSING)]
    """
    after = as_transform(transform)(pod)
    return between(pod, after)


def between(before: Any, after: Any) -> list[Change]:
    """The changes from ``before`` to ``after``; subtrees they share are not read: the one
    diff, as :func:`~transforms.analysis.explanation.changes_between` reads a pod.

    >>> spec = {"containers": [{"name": "c"}]}
    >>> between({"spec": spec}, {"spec": spec, "metadata": {}})
    [Change(path=path('metadata'), before=MISSING, after={})]
    """
    return changes_between(before, after)


def changed_paths(transform: Any, pod: Any) -> list[str]:
    """The paths ``transform`` (any overlay form) changes in ``pod``, in document order.

    A key added or removed is one path, not one per field inside it; so is a
    list element added or removed. A transform that changes nothing gives
    ``[]``; ``pod`` is left as it was.

    >>> from combinators import append_at, chain, upsert
    >>> pod = {"spec": {"tolerations": [{"key": "a"}]}}
    >>> changed_paths(chain(append_at("spec.tolerations", {"key": "b"}),
    ...                     upsert("metadata.labels", {"team": "ml"})), pod)
    ['spec.tolerations[1]', 'metadata']
    >>> changed_paths(upsert("spec.tolerations", [{"key": "a"}]), pod)
    []
    """
    return [str(change.path) for change in changes(transform, pod)]


def outside(
    found: Iterable[Change], allowed: Iterable[Path | str], before: Any, after: Any
) -> list[Change]:
    """The changes of ``found`` that are not at or under one of the ``allowed`` paths.

    An allowed path may use any selector of the grammar: ``[*]``, an index or
    ``[field=value]`` select list elements as they do in a transform, looked
    up in ``before`` and ``after``. A change above an allowed path (a map
    created to hold one new key) is looked at more closely: it is allowed if
    everything it changes inside is. A reorder of a list's named elements is a
    change of the list: outside unless the list is allowed.

    >>> from combinators import upsert
    >>> pod = {"spec": {"containers": [{"name": "trainer-0"}]}}
    >>> after = upsert("spec.nodeSelector", {"gpu": "a100"})(pod)
    >>> found = changes(upsert("spec.nodeSelector", {"gpu": "a100"}), pod)
    >>> outside(found, ["spec.nodeSelector.gpu"], pod, after)
    []
    >>> [str(c.path) for c in outside(found, ["spec.containers[*]"], pod, after)]
    ['spec.nodeSelector']
    """
    prefixes = [path(item) for item in allowed]
    left: list[Change] = []
    for change in found:
        left.extend(_outside(change, prefixes, before, after))
    return left


def _outside(change: Change, prefixes: list[Path], before: Any, after: Any) -> list[Change]:
    parents = [prefix for prefix in prefixes if len(prefix) > len(change.path)]
    if any(covers(prefix, change.path, before, after) for prefix in prefixes):
        return []
    if change.reordered or not any(
        covers(prefix.prefix(len(change.path)), change.path, before, after) for prefix in parents
    ):
        return [change]  # a reorder is of the list itself: what moved inside comes apart
    old, new = change.before, change.after
    if old is MISSING and (is_map(new) or is_seq(new)):
        old = {} if is_map(new) else []
    if new is MISSING and (is_map(old) or is_seq(old)):
        new = {} if is_map(old) else []
    if not (is_map(old) and is_map(new)) and not (is_seq(old) and is_seq(new)):
        return [change]
    inner = changes_between(old, new, at=change.path)
    if not inner:
        return [change]  # an empty map or list created or removed: the change is the key
    left: list[Change] = []
    for item in inner:
        left.extend(_outside(item, prefixes, before, after))
    return left


def last_change(states: Sequence[Any], where: str) -> int | None:
    """The index of the last of ``states`` (a document, then what each step made of
    it) that wrote what is at ``where`` (a path, as a problem names it), or ``None``:
    which step wrote what a check found. Asked only for a finding; the walk is
    :class:`~transforms.analysis.provenance.Writers`, which names every writer.

    >>> last_change([{}, {"a": 1}, {"a": 1, "b": 2}], "a"), last_change([{}, {}], "a")
    (1, None)
    """
    from combinators import TransformError
    from transforms.analysis.provenance import Writers

    try:
        at = path(where)
    except TransformError:
        return None
    found = Writers(states).last(at)
    return None if found is None else found.step
