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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from combinators import MISSING, Path, Transform, identity
from combinators.data import copy_plain, is_map, is_seq, strict_equal
from combinators.paths import Index, Key, Match
from combinators.transform import Compose, describe_step
from transforms.forms.catalog import recipe_catalog
from transforms.forms.markers import Append, Default, Marker, MergeBy, Prepend, Remove, Replace
from transforms.forms.partial import Overlay
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


def explain(transform: Any, pod: Any) -> Explanation:
    """Apply ``transform`` (any overlay form) to ``pod`` and say what changed.

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
    after = as_transform(transform)(pod)
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
    _compare(before, after, Path(), changes)
    return changes


def _yaml_lines(doc: Any) -> list[str]:
    text = yaml.safe_dump(copy_plain(doc), sort_keys=False, allow_unicode=True,
                          default_flow_style=False)
    return text.splitlines(keepends=True)


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


def describe(transform: Any, catalog: Mapping[str, Callable[..., Any]] | None = None) -> str:
    """A plan in plain words, one numbered line per step.

    >>> from combinators import chain, append_at, remove_at
    >>> print(describe(chain(append_at("spec.tolerations", {"key": "gpu"}, unique=True),
    ...                      remove_at("spec.hostIPC"))))
    1. append 1 item to spec.tolerations, skipping items already there
    2. remove spec.hostIPC
    """
    transform = as_transform(transform)
    steps = transform.steps if isinstance(transform, Compose) else \
        () if transform is identity else (transform,)
    if not steps:
        return "leave the pod as it is"
    return "\n".join(f"{number}. {_phrase(step, catalog)}"
                     for number, step in enumerate(steps, 1))


def _flow(value: Any, width: int = 60) -> str:
    """A value as short flow-style YAML: ``{gpu: a100}``."""
    try:
        text = yaml.safe_dump(copy_plain(value), default_flow_style=True, width=10_000,
                              allow_unicode=True, sort_keys=False).strip()
    except yaml.YAMLError:
        text = repr(value)
    if text.endswith("\n..."):
        text = text[:-4].strip()
    text = text.removesuffix("...").strip()
    return text if len(text) <= width else text[:width - 3] + "..."


def _items(count: int) -> str:
    return f"{count} item{'s' if count != 1 else ''}"


def _inner(step: Any, catalog: Mapping[str, Callable[..., Any]] | None) -> str:
    if isinstance(step, Compose):
        return "; then ".join(_phrase(inner, catalog) for inner in step.steps)
    if step is identity:
        return "nothing"
    return _phrase(step, catalog)


def _phrase(step: Any, catalog: Mapping[str, Callable[..., Any]] | None) -> str:
    if not isinstance(step, Transform):
        return f"call {describe_step(step)}"
    if isinstance(step, Overlay):
        actions = _overlay_actions(step.source, ())
        return "overlay: " + ("; ".join(actions) if actions else "nothing")
    name = step.name
    args, kwargs = step.params
    module = type(step).__module__
    if module.startswith("combinators"):
        phrase = _combinator_phrase(name, args, kwargs, catalog)
        if phrase is not None:
            return phrase
    if module.startswith("transforms.forms.patches"):
        if name == "json_patch":
            ops = ", ".join(f"{op.get('op')} {op.get('path')}" for op in args[0])
            return f"apply a JSON Patch: {ops}" if ops else "apply an empty JSON Patch"
        if name == "merge_patch":
            return f"apply a JSON merge patch {_flow(args[0])}"
        if name == "strategic_merge":
            kind = kwargs.get("kind", "Pod")
            return f"apply a strategic merge patch to the {kind}: {_flow(args[0])}"
    recipes = _catalog(catalog)
    factory = recipes.get(name)
    if factory is not None:
        summary = (factory.__doc__ or "").strip().splitlines()
        return f"recipe {describe_step(step)}" + (f": {summary[0]}" if summary else "")
    return describe_step(step)


def _catalog(catalog: Mapping[str, Callable[..., Any]] | None) -> Mapping[str, Any]:
    if catalog is not None:
        return catalog
    try:
        return recipe_catalog()
    except Exception:  # a broken catalog must not stop a description
        return {}


def _combinator_phrase(name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                       catalog: Mapping[str, Callable[..., Any]] | None) -> str | None:
    where = str(args[0]) if args else ""
    if name == "upsert":
        value = args[1]
        return f"merge {_flow(value)} into {where}" if is_map(value) else \
            f"set {where} to {_flow(value)}"
    if name == "replace_at":
        return f"replace {where} with {_flow(args[1])}"
    if name == "set_default":
        return f"set {where} to {_flow(args[1])} where absent"
    if name == "update_at":
        default = f" (from {_flow(kwargs['default'])} where absent)" if "default" in kwargs else ""
        return f"update {where} with {describe_step(args[1])}{default}"
    if name == "remove_at":
        return f"remove {where}" + (", which must be there" if kwargs.get("missing_ok") is False
                                    else "")
    unique = ", skipping items already there" if kwargs.get("unique") else ""
    if name == "append_at":
        return f"append {_items(len(args) - 1)} to {where}{unique}"
    if name == "prepend_at":
        return f"put {_items(len(args) - 1)} at the start of {where}{unique}"
    if name == "insert_at":
        side = "before" if "before" in kwargs else "after"
        return f"insert {_items(len(args) - 1)} into {where} {side} {kwargs[side]}{unique}"
    if name == "merge_by":
        key = kwargs.get("key", "name")
        keys = key if isinstance(key, str) else ", ".join(key)
        return (f"merge {_items(len(args[1]))} into {where} by {keys}, "
                f"appending those not there")
    if name == "for_each":
        return f"for each of {where}: {_inner(args[1], catalog)}"
    if name == "when":
        test = f"{where} exists" if isinstance(args[0], str) else describe_step(args[0])
        text = f"if {test}: {_inner(args[1], catalog)}"
        if "otherwise" in kwargs:
            text += f"; otherwise: {_inner(kwargs['otherwise'], catalog)}"
        return text
    if name == "expect":
        count = kwargs.get("count", 1)
        wanted = f"at least {count[:-1]}" if isinstance(count, str) else \
            f"{count}" if isinstance(count, int) else describe_step(count)
        return f"check that {where} matches {wanted}"
    return None


def _overlay_actions(value: Any, where: tuple[str, ...]) -> list[str]:
    """What a partial pod does, one phrase per path it touches."""
    here = str(Path(Key(k) for k in where)) or "the pod"
    if isinstance(value, Marker):
        if isinstance(value, Remove):
            return [f"remove {here}"]
        if isinstance(value, Replace):
            return [f"replace {here} with {_flow(value.value)}"]
        if isinstance(value, Default):
            return [f"set {here} to {_flow(value.value)} where absent"]
        if isinstance(value, Append):
            return [f"append {_items(len(value.value))} to {here}"]
        if isinstance(value, Prepend):
            return [f"put {_items(len(value.value))} at the start of {here}"]
        if isinstance(value, MergeBy):
            keys = value.key if isinstance(value.key, str) else ", ".join(value.key)
            return [f"merge {_items(len(value.value))} into {here} by {keys}"]
    if isinstance(value, tuple):
        return [f"replace {here} with {_flow(list(value))}"]
    if isinstance(value, list):
        return [f"append {_items(len(value))} to {here}"]
    if not is_map(value):
        return [f"set {here} to {_flow(value)}"]
    if value and all(not isinstance(v, (Marker, tuple, list)) and not is_map(v)
                     for v in value.values()) and not any(
                         isinstance(k, str) and k.startswith("__") for k in value):
        return [f"merge {_flow(value)} into {here}"]
    actions: list[str] = []
    for key, item in value.items():
        child = str(Path(Key(k) for k in (*where, _field(key))))
        if key.startswith("__put__:"):
            actions.append(f"replace {child} with {_flow(item)}")
        elif key.startswith("__del__:"):
            actions.append(f"remove {child}")
        elif key.startswith("__join__:"):
            on = key[len("__join__:"):].partition(":")[2]
            actions.append(f"merge {_items(len(item))} into {child} by {on} "
                           f"(top-level fields), appending those not there")
        else:
            actions.extend(_overlay_actions(item, (*where, key)))
    return actions


def _field(key: str) -> str:
    for prefix in ("__put__:", "__del__:"):
        if key.startswith(prefix):
            return key[len(prefix):]
    if key.startswith("__join__:"):
        return key[len("__join__:"):].partition(":")[0]
    return key
