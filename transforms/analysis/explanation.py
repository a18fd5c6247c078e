"""What a transform does: the changes it makes to one pod, and its plan in words.

:func:`explain` applies a transform and lists every change as a
:class:`Change` whose path is written in podfold's path grammar, naming list
elements by ``[name=...]`` where they have names; the unified diff of the
pod's YAML comes with it. The changes are the one diff's
(:func:`combinators.diff.diff`), told a pod's lists' keys. Subtrees the
transform shares with the input (the very same object, as copy-on-write leaves
them) are skipped unread.

>>> from combinators import append_at, chain, upsert
>>> t = chain(upsert("spec.nodeSelector", {"gpu": "a100"}),
...           append_at("spec.containers[name=trainer].args", "--fast"))
>>> pod = {"spec": {"containers": [{"name": "trainer", "args": ["-v"]}]}}
>>> for change in explain(t, pod).changes:
...     print(change)
spec.containers[name=trainer].args[1]: (absent) -> '--fast'
spec.nodeSelector: (absent) -> {'gpu': 'a100'}
>>> print(describe(t))
1. merge {gpu: a100} into spec.nodeSelector
2. append 1 item to spec.containers[name=trainer].args
"""

from __future__ import annotations

import bisect
import difflib
import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from combinators import Path
from combinators.data import copy_plain
from combinators.diff import Change, Keys, diff
from combinators.diff import element_name as name_element
from combinators.paths import Match
from transforms.forms import kinds
from transforms.forms.catalog import Catalog
from transforms.forms.kinds.named import composed_steps
from transforms.io.normalize import as_transform

__all__ = (
    "Change",
    "Explanation",
    "explain",
    "changes_between",
    "describe",
    "element_name",
    "merge_keys",
    "unified_diff",
)


@dataclass(frozen=True)
class Explanation:
    """The changes a transform made to a pod, and the diff of its YAML."""

    before: Any
    after: Any
    changes: list[Change] = field(default_factory=list)
    diff: str = ""

    def __str__(self) -> str:
        if not self.changes:
            return "no changes"
        count = len(self.changes)
        lines = [f"{count} change{'s' if count != 1 else ''}:"]
        lines += [f"  {change}" for change in self.changes]
        return "\n".join(lines) + "\n\n" + self.diff


def explain(transform: Any, pod: Any, catalog: Catalog | None = None) -> Explanation:
    """Apply ``transform`` (any overlay form; ``catalog`` names the recipes a
    YAML file uses) to ``pod`` and say what changed.

    >>> e = explain({"spec": {"hostIPC": True}}, {"spec": {"hostIPC": False}})
    >>> e.changes
    [Change(path=path('spec.hostIPC'), before=False, after=True)]
    >>> print(e.diff, end="")
    --- before
    +++ after
    @@ -1,2 +1,2 @@
     spec:
    -  hostIPC: false
    +  hostIPC: true
    """
    after = as_transform(transform, catalog)(pod)
    return Explanation(
        before=pod, after=after, changes=changes_between(pod, after), diff=_unified(pod, after)
    )


def changes_between(before: Any, after: Any, *, at: Path | None = None) -> list[Change]:
    """The changes from ``before`` to ``after``, in document order; ``at`` is where the
    two lie in a pod (their changes' paths start with it, and it names the lists
    in them: ``volumeMounts`` by ``mountPath``, see :func:`element_name`).

    The one diff, :func:`combinators.diff.diff`, given the pod's lists' keys
    (:func:`merge_keys`); a kubernetes client object is read as its API form.
    Subtrees the two share (the very same objects) are not read: copy-on-write
    keeps them, so they did not change. Named elements that moved are one change
    of their list, marked ``reordered``; what changed inside them follows, by name.

    >>> spec = {"containers": [{"name": "c"}]}
    >>> changes_between({"spec": spec}, {"spec": spec, "metadata": {}})
    [Change(path=path('metadata'), before=MISSING, after={})]
    >>> from combinators import path
    >>> [str(change.path) for change in changes_between(
    ...     [], [{"name": "d", "mountPath": "/d"}], at=path("spec.containers[0].volumeMounts"))]
    ['spec.containers[0].volumeMounts[mountPath=/d]']
    """
    return diff(_api_form(before), _api_form(after), at=at, keys=merge_keys())


def _api_form(doc: Any) -> Any:
    """A kubernetes client object as its API-form data (``spec.nodeSelector``, as
    overlays name it), anything else as it is."""
    if hasattr(type(doc), "openapi_types"):
        from transforms.kube.convert import to_data

        return to_data(doc)
    return doc


def _yaml_lines(doc: Any) -> list[str]:
    from transforms.io.streams import dump_stream  # libyaml's emitter, as podfold apply writes

    return dump_stream([copy_plain(_api_form(doc))]).splitlines(keepends=True)


def _unified(before: Any, after: Any) -> str:
    if before is after:
        return ""
    return "".join(unified_diff(_yaml_lines(before), _yaml_lines(after)))


def unified_diff(
    before: Sequence[str],
    after: Sequence[str],
    fromfile: str = "before",
    tofile: str = "after",
    context: int = 3,
) -> Iterator[str]:
    """The lines of a unified diff of two lists of lines, as :func:`difflib.unified_diff`
    writes them; its cost grows with the length of the lines, not their square.

    Two short texts are matched by difflib. In longer ones, lines that occur once
    on each side and in the same order are matched first (as patience diff
    matches them: a container's ``- name: trainer-7``), and difflib matches the
    short runs of lines between them; a long run is matched the same way on the
    lines unique within it, or where none is (tolerations in pairs of one key) on
    each line's first, second, ... occurrence on each side. difflib alone
    compares each run of unmatched lines with the whole rest of the text, which
    took seconds on a pod of a few thousand containers.

    >>> print("".join(unified_diff(["a\\n", "b\\n"], ["a\\n", "c\\n"])), end="")
    --- before
    +++ after
    @@ -1,2 +1,2 @@
     a
    -b
    +c
    """
    started = False
    for group in _Anchored(before, after).get_grouped_opcodes(context):
        if not started:
            started = True
            yield f"--- {fromfile}\n"
            yield f"+++ {tofile}\n"
        first, last = group[0], group[-1]
        yield f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (" " + line for line in before[i1:i2])
                continue
            if tag in ("replace", "delete"):
                yield from ("-" + line for line in before[i1:i2])
            if tag in ("replace", "insert"):
                yield from ("+" + line for line in after[j1:j2])


def _range(start: int, stop: int) -> str:
    """A hunk's range as a unified diff writes it (difflib's own rule)."""
    length = stop - start
    if length == 1:
        return f"{start + 1}"
    return f"{start + 1 if length else start},{length}"


class _Anchored(difflib.SequenceMatcher[str]):
    """A matcher whose blocks are anchored on the lines unique to each side first."""

    def __init__(self, before: Sequence[str], after: Sequence[str]) -> None:
        super().__init__(None, before, after)
        self._sides = (before, after)
        self._blocks: list[difflib.Match] | None = None

    def get_matching_blocks(self) -> list[difflib.Match]:
        if self._blocks is None:
            self._blocks = _matching_blocks(*self._sides)
        return self._blocks


_SMALL_GAP = 250_000
"""The most pairs of lines (lines before times lines after) difflib compares in one run
between anchors: its cost grows with that product where lines repeat."""


def _matching_blocks(a: Sequence[str], b: Sequence[str]) -> list[difflib.Match]:
    blocks: list[tuple[int, int, int]] = []
    ranges = [(0, len(a), 0, len(b))]  # runs of lines still to match, each on both sides
    while ranges:
        a_start, a_stop, b_start, b_stop = ranges.pop()
        if a_start == a_stop or b_start == b_stop:
            continue
        old, new = a[a_start:a_stop], b[b_start:b_stop]
        if len(old) * len(new) <= _SMALL_GAP:
            between = difflib.SequenceMatcher(None, old, new)
            blocks += [
                (a_start + i, b_start + j, size)
                for i, j, size in between.get_matching_blocks()
                if size
            ]
            continue
        # a long run: anchored on its own unique lines, as patience diff recurses, else
        # (no line unique in it) on the n-th time a line occurs on each side; nothing in
        # common, nothing matches
        anchors = _anchors(old, new) or _longest_run(_occurrences(old, new))
        start_a, start_b = a_start, b_start
        for anchor_a, anchor_b in anchors:
            blocks.append((a_start + anchor_a, b_start + anchor_b, 1))
            ranges.append((start_a, a_start + anchor_a, start_b, b_start + anchor_b))
            start_a, start_b = a_start + anchor_a + 1, b_start + anchor_b + 1
        if anchors:
            ranges.append((start_a, a_stop, start_b, b_stop))
    merged: list[tuple[int, int, int]] = []
    for i, j, size in sorted(blocks):
        if merged and merged[-1][0] + merged[-1][2] == i and merged[-1][1] + merged[-1][2] == j:
            merged[-1] = (merged[-1][0], merged[-1][1], merged[-1][2] + size)
        else:
            merged.append((i, j, size))
    return [difflib.Match(*block) for block in (*merged, (len(a), len(b), 0))]


def _anchors(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int]]:
    """The pairs of positions of lines that occur once in ``a`` and once in ``b``, the
    longest run of them in the same order on both sides (patience sorting)."""
    counts: dict[str, list[int]] = {}
    for index, line in enumerate(a):
        counts.setdefault(line, [0, 0, index])[0] += 1
    for index, line in enumerate(b):
        found = counts.get(line)
        if found is not None:
            found[1] += 1
            if found[1] == 1:
                found.append(index)
    return _longest_run(
        sorted((found[2], found[3]) for found in counts.values() if found[0] == 1 and found[1] == 1)
    )


def _occurrences(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int]]:
    """The pairs of positions of each line's first occurrence in ``a`` and in ``b``, its
    second in each, and so on, in the order of ``a``."""
    where: dict[str, list[int]] = {}
    for index, line in enumerate(b):
        where.setdefault(line, []).append(index)
    seen: dict[str, int] = {}
    pairs = []
    for index, line in enumerate(a):
        found = where.get(line)
        count = seen.get(line, 0)
        if found is not None and count < len(found):
            pairs.append((index, found[count]))
            seen[line] = count + 1
    return pairs


def _longest_run(pairs: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of ``pairs`` (in increasing first positions) whose second positions
    increase too (patience sorting: n log n)."""
    tops: list[int] = []  # the smallest last b-position of an increasing run of each length
    ends: list[int] = []  # the pair that ends it
    previous: list[int] = []
    for number, (_, position) in enumerate(pairs):
        length = bisect.bisect_left(tops, position)
        if length == len(tops):
            tops.append(position)
            ends.append(number)
        else:
            tops[length], ends[length] = position, number
        previous.append(ends[length - 1] if length else -1)
    run: list[tuple[int, int]] = []
    number = ends[-1] if ends else -1
    while number >= 0:
        run.append(pairs[number])
        number = previous[number]
    return run[::-1]


def _compare(before: Any, after: Any, where: Path, out: list[Change]) -> None:
    out += diff(before, after, at=where, keys=merge_keys())


@functools.cache
def merge_keys() -> dict[str, Keys]:
    """The key fields of each list of a pod, by the list's field name, as the bundled
    schema gives them (its strategic-merge keys, or its list-map keys): each key
    field, and whether an element may leave it out (the API server defaults it: a
    port's ``protocol``). A name two lists key differently is left out. The table
    :func:`~combinators.diff.diff` is given to name a pod's list elements.

    >>> merge_keys()["volumeMounts"], merge_keys()["ports"]
    ((('mountPath', False),), (('containerPort', False), ('protocol', True)))
    """
    from transforms.kube.schema import schema_for

    schema = schema_for()
    found: dict[str, set[Keys]] = {}
    for type_ in schema.types.values():
        for name, field_ in type_.fields.items():
            keys = field_.list_map_keys or ((field_.merge_key,) if field_.merge_key else ())
            element = field_.item.ref if field_.kind == "list" and field_.item is not None else None
            if not keys or element is None:
                continue
            fields = schema.types[element].fields
            found.setdefault(name, set()).add(
                tuple((key, key in fields and fields[key].default is not None) for key in keys)
            )
    return {name: next(iter(keys)) for name, keys in found.items() if len(keys) == 1}


def element_name(where: Path | str | None, element: Any) -> Match | None:
    """The selector that names ``element`` of the list at ``where`` (its path, or its
    field's name) in a change's path: its Kubernetes merge key (``volumeMounts`` by
    ``mountPath``, ``ports`` by ``containerPort`` and ``protocol``, ``containers``,
    ``volumes`` and ``env`` by ``name``), ``name`` for a list the schema gives none;
    ``None`` for an element that lacks the key, holds one that is neither a string
    nor an integer (YAML's unquoted ``name: true`` is a boolean), or is no map.

    >>> from combinators import path
    >>> element_name(path("spec.containers[name=c].volumeMounts"),
    ...              {"name": "dshm", "mountPath": "/dev/shm"}).text()
    '[mountPath=/dev/shm]'
    >>> element_name("ports", {"containerPort": 80}).text()
    '[containerPort=80]'
    >>> element_name("tolerations", {"key": "gpu"}) is None
    True
    >>> element_name("env", {"name": "true"}).text()
    '[name="true"]'
    """
    return name_element(where, element, merge_keys())


# ---------------------------------------------------------------- describe


def describe(transform: Any, catalog: Catalog | None = None) -> str:
    """A plan in plain words, one numbered line per step.

    Each kind of step says how it reads in :mod:`transforms.forms.kinds`;
    ``catalog`` names the recipes (the installed catalogs by default; one
    that cannot be loaded names none, rather than stopping the description).

    >>> from combinators import chain, append_at, remove_at
    >>> print(describe(chain(append_at("spec.tolerations", {"key": "gpu"}, unique=True),
    ...                      remove_at("spec.hostIPC"))))
    1. append 1 item to spec.tolerations, skipping items already there
    2. remove spec.hostIPC
    """
    steps = composed_steps(as_transform(transform, catalog))
    if not steps:
        return "leave the pod as it is"
    return "\n".join(
        f"{number}. {kinds.phrase(step, catalog)}" for number, step in enumerate(steps, 1)
    )
