"""What a transform does: the changes it makes to one pod, and its plan in words.

:func:`explain` applies a transform and lists every change as a
:class:`Change` whose path is written in podfold's path grammar, naming list
elements by ``[name=...]`` where they have names; the unified diff of the
pod's YAML comes with it. Subtrees the transform shares with the input (the
very same object, as copy-on-write leaves them) are skipped unread.

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

import difflib
from dataclasses import dataclass, field
from typing import Any

from combinators import MISSING, Path
from combinators.data import copy_plain, is_map, is_seq, strict_equal
from combinators.paths import Index, Key, Match
from transforms.forms import kinds
from transforms.forms.catalog import Catalog
from transforms.forms.kinds.named import composed_steps
from transforms.io.normalize import as_transform

__all__ = ("Change", "Explanation", "explain", "changes_between", "describe")


@dataclass(frozen=True)
class Change:
    """One change: ``before`` and ``after`` are the values at ``path``;
    ``MISSING`` where there was, or is, nothing."""

    path: Path
    before: Any
    after: Any

    def __str__(self) -> str:
        return f"{self.path or '(the pod)'}: {_show(self.before)} -> {_show(self.after)}"


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


def _show(value: Any, width: int = 70) -> str:
    if value is MISSING:
        return "(absent)"
    text = repr(copy_plain(value))
    return text if len(text) <= width else text[:width - 3] + "..."


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
    return Explanation(before=pod, after=after, changes=changes_between(pod, after),
                       diff=_unified(pod, after))


def changes_between(before: Any, after: Any) -> list[Change]:
    """The changes from ``before`` to ``after``, in document order.

    Subtrees the two share (the very same objects) are not read: copy-on-write
    keeps them, so they did not change.

    >>> spec = {"containers": [{"name": "c"}]}
    >>> changes_between({"spec": spec}, {"spec": spec, "metadata": {}})
    [Change(path=path('metadata'), before=MISSING, after={})]
    """
    changes: list[Change] = []
    _compare(_api_form(before), _api_form(after), Path(), changes)
    return changes


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
    return "".join(difflib.unified_diff(_yaml_lines(before), _yaml_lines(after),
                                        fromfile="before", tofile="after"))


def _compare(before: Any, after: Any, where: Path, out: list[Change]) -> None:
    if before is after:
        return  # shared, so untouched: copy-on-write keeps what it does not change
    if is_map(before) and is_map(after):
        for key, old in before.items():
            new = after.get(key, MISSING)
            if new is MISSING:
                out.append(Change(where.child(Key(str(key))), old, MISSING))
            else:
                _compare(old, new, where.child(Key(str(key))), out)
        for key, new in after.items():
            if key not in before:
                out.append(Change(where.child(Key(str(key))), MISSING, new))
        return
    if is_seq(before) and is_seq(after):
        _compare_lists(before, after, where, out)
        return
    if not strict_equal(before, after):
        out.append(Change(where, before, after))


def _names(seq: Any) -> list[Any] | None:
    """The ``name`` of every element, if every element is a map with a distinct one."""
    names = [element.get("name", MISSING) if is_map(element) else MISSING for element in seq]
    if MISSING in names or not all(isinstance(n, (str, int)) for n in names):
        return None
    return names if len(set(names)) == len(names) else None


def _compare_lists(before: Any, after: Any, where: Path, out: list[Change]) -> None:
    old_names, new_names = _names(before), _names(after)
    if old_names is not None and new_names is not None and (old_names or new_names):
        kept_old = [name for name in old_names if name in new_names]
        kept_new = [name for name in new_names if name in old_names]
        if kept_old != kept_new:  # reordered: one change of the whole list
            out.append(Change(where, before, after))
            return
        # the same order: element by element, by name
        new_by_name = dict(zip(new_names, after, strict=True))
        for name, old in zip(old_names, before, strict=True):
            selector = where.child(Match((("name", name),)))
            if name in new_by_name:
                _compare(old, new_by_name[name], selector, out)
            else:
                out.append(Change(selector, old, MISSING))
        for name, new in zip(new_names, after, strict=True):
            if name not in old_names:
                out.append(Change(where.child(Match((("name", name),))), MISSING, new))
        return
    shared = min(len(before), len(after))
    common = _common_prefix(before, after)
    if common == shared or len(before) == len(after):
        # appended, dropped at the end, or changed in place: by index
        for index in range(shared):
            _compare(before[index], after[index], where.child(Index(index)), out)
        for index in range(shared, len(before)):
            out.append(Change(where.child(Index(index)), before[index], MISSING))
        for index in range(shared, len(after)):
            out.append(Change(where.child(Index(index)), MISSING, after[index]))
        return
    out.append(Change(where, before, after))


def _common_prefix(before: Any, after: Any) -> int:
    """How many leading elements the two lists share."""
    count = 0
    for old, new in zip(before, after, strict=False):
        if old is not new and not strict_equal(old, new):
            break
        count += 1
    return count


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
    return "\n".join(f"{number}. {kinds.phrase(step, catalog)}"
                     for number, step in enumerate(steps, 1))
