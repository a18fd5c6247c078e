"""Assertions for unit tests of overlays: purity, idempotence, validity, where they write.

Each helper raises :class:`AssertionError` with a message that says what
went wrong, lists the changes by path and shows a unified diff of the pod's
YAML; on success it returns what a test usually checks next (the output pod,
or the changed paths).

>>> from combinators import append_at, upsert
>>> pod = {"spec": {"containers": [{"name": "trainer-0", "image": "t:1"}]}}
>>> assert_pure(upsert("spec.nodeSelector", {"gpu": "a100"}), pod)["spec"]["nodeSelector"]
{'gpu': 'a100'}
>>> assert_idempotent(append_at("spec.tolerations", {"key": "gpu"}), pod)
Traceback (most recent call last):
  ...
AssertionError: not idempotent: a second application changed the pod (before: applied once, after: applied twice)
1 change:
  spec.tolerations[1]: (absent) -> {'key': 'gpu'}
<BLANKLINE>
--- before
+++ after
@@ -4,3 +4,4 @@
     image: t:1
   tolerations:
   - key: gpu
+  - key: gpu
"""

from __future__ import annotations

import copy
import difflib
import functools
import pprint
from collections.abc import Callable, Iterable
from typing import Any

from combinators import Path, Transform
from combinators.data import strict_equal
from transforms.analysis.explanation import explain
from transforms.analysis.footprint import between, outside
from transforms.io.normalize import as_transform

__all__ = ("assert_pure", "assert_idempotent", "assert_valid_pod", "assert_changes",
           "describe_difference")

_VANDAL = "__podfold_testing_changed_this__"


def describe_difference(before: Any, after: Any) -> str:
    """The changes from ``before`` to ``after`` by path, then the unified diff of their YAML.

    >>> print(describe_difference({"spec": {"hostIPC": False}}, {"spec": {"hostIPC": True}}))
    1 change:
      spec.hostIPC: False -> True
    <BLANKLINE>
    --- before
    +++ after
    @@ -1,2 +1,2 @@
     spec:
    -  hostIPC: false
    +  hostIPC: true
    """
    try:
        return str(explain(functools.partial(_constant, after), before)).rstrip("\n")
    except Exception:  # values YAML cannot show (a set, an object): fall back on repr
        lines = difflib.unified_diff(pprint.pformat(before).splitlines(keepends=True),
                                     pprint.pformat(after).splitlines(keepends=True),
                                     fromfile="before", tofile="after")
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines).rstrip()


def _constant(value: Any, _: Any) -> Any:
    return value


def _as_callable(transform: Any) -> Callable[[Any], Any]:
    return as_transform(transform)


def assert_pure(transform: Any, pod: Any) -> Any:
    """Check that ``transform`` leaves ``pod`` alone and hands out nothing it keeps; return its output.

    Three checks: ``pod`` deep-equals a deep copy taken before the call; no
    map or list of the output is one the transform holds in its own values
    (parameters, closures, defaults); and after every map and list of one
    output is changed, another application to an equal pod gives what the
    first one gave. ``transform`` may be any overlay form. A plain function
    is always given a copy (its edits never reach the caller), so what this
    catches in practice is a hand-written :class:`~combinators.Transform`
    that edits what it is given:

    >>> from combinators import Transform
    >>> class Label(Transform):
    ...     name = "label"
    ...     def __init__(self): self._init_params()
    ...     def _apply(self, pod, owned):
    ...         pod.setdefault("metadata", {})["labels"] = {"team": "ml"}
    ...         return pod
    >>> assert_pure(Label(), {"spec": {}})
    Traceback (most recent call last):
      ...
    AssertionError: not pure: the transform changed its input (before: the input as given, after: the input after the call)
    1 change:
      metadata: (absent) -> {'labels': {'team': 'ml'}}
    <BLANKLINE>
    --- before
    +++ after
    @@ -1 +1,4 @@
     spec: {}
    +metadata:
    +  labels:
    +    team: ml
    """
    apply = _as_callable(transform)
    before = copy.deepcopy(pod)
    first = apply(pod)
    if not strict_equal(pod, before):
        raise AssertionError("not pure: the transform changed its input (before: the input "
                             "as given, after: the input after the call)\n"
                             + describe_difference(before, pod))
    _check_nothing_shared(transform, pod, first)
    out = apply(copy.deepcopy(before))
    snapshot = copy.deepcopy(out)
    if not strict_equal(snapshot, first):
        raise AssertionError("not pure: two applications to equal pods gave different pods "
                             "(before: the first output, after: the second)\n"
                             + describe_difference(first, snapshot))
    _vandalise(out)
    again = apply(copy.deepcopy(before))
    if not strict_equal(again, snapshot):
        raise AssertionError("not pure: after one output was changed, the next application "
                             "gave a different pod, so the transform hands out objects it "
                             "keeps (before: the first output, after: the next one)\n"
                             + describe_difference(snapshot, again))
    return first


def _check_nothing_shared(transform: Any, pod: Any, output: Any) -> None:
    owned: dict[int, str] = {}
    _collect_owned(transform, "the transform", owned, set())
    for item_id in _container_ids(pod):
        owned.pop(item_id, None)  # the caller's own objects, given to the transform
    if not owned:
        return
    for where, value in _containers(output, ""):
        held = owned.get(id(value))
        if held is not None:
            raise AssertionError(
                f"not pure: the output's {where or 'root'} is the very object held by "
                f"{held}; changing the output would change the transform\n"
                f"  shared value: {_short(value)}")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 100 else text[:97] + "..."


def _container_ids(doc: Any) -> set[int]:
    return {id(value) for _, value in _containers(doc, "")}


def _containers(doc: Any, where: str) -> Iterable[tuple[str, Any]]:
    """Every mutable map and list in ``doc``, with where it is (once each)."""
    stack = [(where, doc)]
    seen: set[int] = set()
    while stack:
        here, value = stack.pop()
        if id(value) in seen:
            continue
        if isinstance(value, dict):
            seen.add(id(value))
            yield here, value
            stack.extend((f"{here}.{key}" if here else str(key), item)
                         for key, item in value.items())
        elif isinstance(value, (list, set)):
            seen.add(id(value))
            yield here, value
            stack.extend((f"{here}[{index}]", item) for index, item in enumerate(value))


def _collect_owned(value: Any, label: str, owned: dict[int, str], seen: set[int]) -> None:
    """Ids of the mutable maps and lists reachable from a transform's own values."""
    if id(value) in seen or value is None or isinstance(value, (str, bytes, int, float)):
        return
    seen.add(id(value))
    parts: list[Any] = []
    if isinstance(value, (dict, list, set)):
        owned.setdefault(id(value), label)
        parts = list(value.values()) if isinstance(value, dict) else list(value)
    elif isinstance(value, tuple):
        parts = list(value)
    elif isinstance(value, Transform):
        label = repr(value) if len(repr(value)) <= 80 else f"{value.name}(...)"
        args, kwargs = value.params
        parts = [*args, *kwargs.values(), *_slot_values(value)]
    elif isinstance(value, functools.partial):
        parts = [value.func, *value.args, *value.keywords.values()]
    elif callable(value):
        parts = [*(cell.cell_contents for cell in getattr(value, "__closure__", None) or ()
                   if _filled(cell)),
                 *(getattr(value, "__defaults__", None) or ()),
                 *(getattr(value, "__kwdefaults__", None) or {}).values(),
                 getattr(value, "__self__", None)]
    for part in parts:
        _collect_owned(part, label, owned, seen)


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 (an empty cell raises)
    except ValueError:
        return False
    return True


def _slot_values(value: Any) -> list[Any]:
    found = []
    for cls in type(value).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if hasattr(value, name):
                found.append(getattr(value, name))
    return found


def _vandalise(doc: Any) -> None:
    """Change every map and list in ``doc``, in place."""
    for _, value in list(_containers(doc, "")):
        if isinstance(value, dict):
            value[_VANDAL] = True
        elif isinstance(value, list):
            value.append(_VANDAL)
        else:
            value.add(_VANDAL)


def assert_idempotent(transform: Any, pod: Any) -> Any:
    """Check that applying ``transform`` twice gives what applying it once gives; return that.

    >>> from combinators import append_at
    >>> assert_idempotent(append_at("spec.tolerations", {"key": "gpu"}, unique=True),
    ...                   {"spec": {}})
    {'spec': {'tolerations': [{'key': 'gpu'}]}}
    """
    apply = _as_callable(transform)
    once = apply(pod)
    twice = apply(once)
    if not strict_equal(once, twice):
        raise AssertionError("not idempotent: a second application changed the pod "
                             "(before: applied once, after: applied twice)\n"
                             + describe_difference(once, twice))
    return once


def assert_valid_pod(pod: Any, k8s_version: str | None = None, *, kind: str = "Pod",
                     warnings: bool = False) -> Any:
    """Check ``pod`` against the official schema and its references; return it.

    Fails listing every error (and, with ``warnings=True``, every warning)
    that :func:`transforms.checks.validation.problems` finds, by path.

    >>> assert_valid_pod({"spec": {"containers": [{"name": "c", "image": "x",
    ...     "volumeMounts": [{"name": "data", "mountPath": "/data"}]}], "hostIPC": "yes"}})
    Traceback (most recent call last):
      ...
    AssertionError: the pod is not valid (Kubernetes 1.37), 2 problems:
      spec.hostIPC: expected boolean, found string 'yes'
      spec.containers[name=c].volumeMounts[name=data].name: no volume named 'data'; volumes are: (none)
    """
    from transforms.checks.validation import problems
    from transforms.kube.schema import schema_for

    found = [problem for problem in problems(pod, kind=kind, k8s_version=k8s_version)
             if warnings or problem.severity == "error"]
    if found:
        count = len(found)
        version = schema_for(k8s_version).version
        lines = [f"the pod is not valid (Kubernetes {version}), "
                 f"{count} problem{'s' if count != 1 else ''}:"]
        lines += [f"  {problem}" for problem in found]
        raise AssertionError("\n".join(lines))
    return pod


def assert_changes(transform: Any, pod: Any, only: Iterable[Path | str] | Path | str, *,
                   nothing_ok: bool = False) -> list[str]:
    """Check that ``transform`` changes ``pod`` only at or under the ``only`` paths;
    return the paths it changed.

    ``only`` holds paths in podfold's grammar; list elements may be selected
    by ``[*]``, an index or ``[field=value]``. Changing nothing fails too,
    unless ``nothing_ok``: an overlay whose selector matches nothing is
    usually a bug.

    >>> from combinators import chain, upsert
    >>> pod = {"spec": {"containers": [{"name": "trainer-0", "image": "t:1"}]}}
    >>> t = chain(upsert("spec.nodeSelector", {"gpu": "a100"}),
    ...           upsert("spec.containers[0].env", [{"name": "A", "value": "1"}]))
    >>> assert_changes(t, pod, only=["spec.nodeSelector", "spec.containers[*].env"])
    ['spec.containers[name=trainer-0].env', 'spec.nodeSelector']
    >>> assert_changes(t, pod, only=["spec.nodeSelector"])
    Traceback (most recent call last):
      ...
    AssertionError: changes outside spec.nodeSelector:
      spec.containers[name=trainer-0].env: (absent) -> [{'name': 'A', 'value': '1'}]
    <BLANKLINE>
    2 changes:
      spec.containers[name=trainer-0].env: (absent) -> [{'name': 'A', 'value': '1'}]
      spec.nodeSelector: (absent) -> {'gpu': 'a100'}
    <BLANKLINE>
    --- before
    +++ after
    @@ -2,3 +2,8 @@
       containers:
       - name: trainer-0
         image: t:1
    +    env:
    +    - name: A
    +      value: '1'
    +  nodeSelector:
    +    gpu: a100
    """
    allowed = [only] if isinstance(only, (str, Path)) else list(only)  # one path, or several
    after = _as_callable(transform)(pod)
    found = between(pod, after)
    if not found and not nothing_ok:
        raise AssertionError("the transform changed nothing (pass nothing_ok=True if that "
                             "is expected)")
    stray = outside(found, allowed, pod, after)
    if stray:
        listed = ", ".join(str(item) for item in allowed) or "(nothing allowed)"
        raise AssertionError(f"changes outside {listed}:\n"
                             + "\n".join(f"  {change}" for change in stray)
                             + "\n\n" + describe_difference(pod, after))
    return [str(change.path) for change in found]
