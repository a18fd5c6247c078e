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

from combinators import MISSING, Path, Transform, TransformError, get_at
from combinators.data import is_map, is_seq, strict_equal
from combinators.limits import short_repr
from combinators.transform import Compose, call_foreign, call_step, describe_step
from transforms.analysis.explanation import Change, explain
from transforms.analysis.footprint import between, outside
from transforms.io.normalize import as_transform

__all__ = (
    "assert_pure",
    "assert_idempotent",
    "assert_valid_pod",
    "assert_changes",
    "describe_difference",
)

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
        lines = difflib.unified_diff(
            pprint.pformat(before).splitlines(keepends=True),
            pprint.pformat(after).splitlines(keepends=True),
            fromfile="before",
            tofile="after",
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines).rstrip()


def _constant(value: Any, _: Any) -> Any:
    return value


def _as_callable(transform: Any) -> Transform:
    return as_transform(transform)


def assert_pure(transform: Any, pod: Any) -> Any:
    """Check that ``transform`` changes nothing it is given and hands out nothing it keeps;
    return its output.

    A plain function (``transform`` itself, or a step of a chain or a list)
    is checked as written: it is called, unguarded, twice, each time on a
    deep copy of the pod it would be given, and fails if a call edits its
    argument in place (a key added, removed or changed, a list element
    appended, a map or list replaced by an equal new one, keys reordered) or
    edits the argument or the output of the call before it. The message
    names the function, the first path it changed and how. Applied as an
    overlay, a function is given a copy, so the caller's pod is safe either
    way; but wherever else the function is called, it edits what it gets.
    An output that shares unchanged parts with the input is fine: podfold's
    own transforms share them.

    >>> def nccl_debug(pod):
    ...     pod["spec"]["containers"][0]["env"].append({"name": "NCCL_DEBUG", "value": "INFO"})
    ...     return pod
    >>> assert_pure(nccl_debug, {"spec": {"containers": [{"name": "main", "env": []}]}})
    Traceback (most recent call last):
      ...
    AssertionError: not pure: nccl_debug mutated its input at spec.containers[name=main].env[name=NCCL_DEBUG]: appended {'name': 'NCCL_DEBUG', 'value': 'INFO'}
    1 change:
      spec.containers[name=main].env[name=NCCL_DEBUG]: (absent) -> {'name': 'NCCL_DEBUG', 'value': 'INFO'}
    <BLANKLINE>
    --- before
    +++ after
    @@ -1,4 +1,6 @@
     spec:
       containers:
       - name: main
    -    env: []
    +    env:
    +    - name: NCCL_DEBUG
    +      value: INFO

    Then ``transform`` is checked as it is applied, with four checks:
    ``pod`` deep-equals a deep copy taken before the call, and still does
    after the next application, which leaves the first output alone too; no
    map or list of the output is one the transform holds in its own values
    (parameters, closures, defaults); and after every map and list of one
    output is changed, another application to an equal pod gives what the
    first one gave. ``transform`` may be any overlay form; what the first
    check catches is a hand-written :class:`~combinators.Transform` that
    edits what it is given:

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
    _check_functions_as_written(apply, before)
    first = apply(pod)
    if not strict_equal(pod, before):
        raise AssertionError(
            "not pure: the transform changed its input (before: the input "
            "as given, after: the input after the call)\n" + describe_difference(before, pod)
        )
    _check_nothing_shared(transform, pod, first)
    kept = copy.deepcopy(first)
    out = apply(copy.deepcopy(before))
    if not strict_equal(pod, before):
        raise AssertionError(
            "not pure: the transform changed, on its next application, the "
            "input of the previous one (before: the input as given, after: "
            "the input after the next application)\n" + describe_difference(before, pod)
        )
    if not strict_equal(first, kept):
        raise AssertionError(
            "not pure: the transform changed, on its next application, the "
            "output of the previous one (before: the output as returned, "
            "after: the output after the next application)\n" + describe_difference(kept, first)
        )
    snapshot = copy.deepcopy(out)
    if not strict_equal(snapshot, first):
        raise AssertionError(
            "not pure: two applications to equal pods gave different pods "
            "(before: the first output, after: the second)\n" + describe_difference(first, snapshot)
        )
    _vandalise(out)
    again = apply(copy.deepcopy(before))
    if not strict_equal(again, snapshot):
        raise AssertionError(
            "not pure: after one output was changed, the next application "
            "gave a different pod, so the transform hands out objects it "
            "keeps (before: the first output, after: the next one)\n"
            + describe_difference(snapshot, again)
        )
    return first


def _is_function(step: Any) -> bool:
    return callable(step) and not isinstance(step, Transform)


def _check_functions_as_written(transform: Transform, pod: Any) -> None:
    """Each plain function of ``transform`` (a chain's steps, or the lone step a function
    becomes) called unguarded on what it is given there; ``pod`` is left as it was."""
    steps = transform.steps if isinstance(transform, Compose) else (transform,)
    last = max((number for number, step in enumerate(steps) if _is_function(step)), default=-1)
    doc = copy.deepcopy(pod) if last > 0 else pod  # the steps before it may write in place
    for number, step in enumerate(steps[: last + 1]):
        if _is_function(step):
            _check_function(step, doc)
        if number < last:
            doc = call_step(step, doc) if _is_function(step) else step(doc)


def _check_function(fn: Callable[[Any], Any], doc: Any) -> None:
    """Call ``fn`` three times, each on its own deep copy of ``doc``: no call may edit its
    argument, nor what an earlier call was given or gave back; the output may hold none of
    ``fn``'s own maps and lists, and changing it may not change the next output."""
    label = describe_step(fn)
    first_in = copy.deepcopy(doc)
    first_layout = _layout(first_in)
    first_out = call_foreign(fn, first_in)
    _check_same(doc, first_in, first_layout, f"{label} mutated its input")
    if not (is_map(first_out) or is_seq(first_out)):
        return  # no document: the application says so, naming the function
    _check_nothing_shared(fn, first_in, first_out, label)
    kept_out = copy.deepcopy(first_out)
    out_layout = _layout(first_out)
    second_in = copy.deepcopy(doc)
    second_layout = _layout(second_in)
    second_out = call_foreign(fn, second_in)
    _check_same(
        doc,
        first_in,
        first_layout,
        f"{label} mutated, on its next call, the input of its previous call",
    )
    _check_same(
        kept_out,
        first_out,
        out_layout,
        f"{label} mutated, on its next call, the output of its previous call",
    )
    _check_same(doc, second_in, second_layout, f"{label} mutated its input on its second call")
    if not strict_equal(second_out, kept_out):
        return  # two outputs for equal pods: the application says so
    _vandalise(second_out)
    third_out = call_foreign(fn, copy.deepcopy(doc))
    if not strict_equal(third_out, kept_out):
        raise AssertionError(
            f"not pure: after one output of {label} was changed, its next "
            "call returned a different pod, so it hands out objects it keeps "
            "(before: its first output, after: the next one)\n"
            + describe_difference(kept_out, third_out)
        )


def _check_same(expected: Any, found: Any, layout: dict[tuple[Any, ...], Any], what: str) -> None:
    """Fail with ``what``, the first path where ``found`` is not ``expected`` and how, then
    every change: a change of value, or one of the maps and lists themselves (replaced,
    reordered) that ``layout``, taken of ``found`` before, records."""
    if not strict_equal(expected, found):
        found_changes = between(expected, found)
        if found_changes:
            first, more = found_changes[0], len(found_changes) - 1
            extra = f" (and {more} more change{'s' if more != 1 else ''})" if more else ""
            raise AssertionError(
                f"not pure: {what} at {first.path}: {_how(first, found)}"
                f"{extra}\n" + describe_difference(expected, found)
            )
        raise AssertionError(f"not pure: {what}\n" + describe_difference(expected, found))
    now = _layout(found)
    for parts, (identity, shape) in layout.items():
        where = Path().child(*parts)
        current = now.get(parts)
        if current is None:  # pragma: no cover - an equal document has every place
            continue
        if current[0] != identity:
            kind = "map" if isinstance(shape, tuple) else "list"
            raise AssertionError(
                f"not pure: {what} at {where or 'the root'}: replaced the "
                f"{kind} with an equal new one"
            )
        if current[1] != shape:
            raise AssertionError(
                f"not pure: {what} at {where or 'the root'}: reordered the "
                f"keys ({', '.join(map(str, shape))} -> "
                f"{', '.join(map(str, current[1]))})"
            )


def _how(change: Change, after: Any) -> str:
    """What ``change`` did, in words: appended, inserted, added, removed or changed."""
    if change.before is MISSING:
        parts = change.path.parts
        if parts and parts[-1].is_list_part():
            try:
                items = get_at(after, change.path.prefix(len(parts) - 1), None)
            except TransformError:  # pragma: no cover - a change's path is in the document
                items = None
            appended = is_seq(items) and len(items) > 0 and items[-1] is change.after
            return f"{'appended' if appended else 'inserted'} {_short(change.after)}"
        return f"added {_short(change.after)}"
    if change.after is MISSING:
        return f"removed {_short(change.before)}"
    return f"changed {_short(change.before)} to {_short(change.after)}"


def _layout(doc: Any) -> dict[tuple[Any, ...], Any]:
    """Where each map and list of ``doc`` is: its identity, and its keys (a map) or its
    length (a list), in document order."""
    found: dict[tuple[Any, ...], Any] = {}
    stack: list[tuple[tuple[Any, ...], Any]] = [((), doc)]
    seen: set[int] = set()
    while stack:
        parts, value = stack.pop()
        if (type(value) is not dict and type(value) is not list) or id(value) in seen:
            continue
        seen.add(id(value))
        if type(value) is dict:
            found[parts] = (id(value), tuple(value))
            stack.extend(((*parts, key), item) for key, item in reversed(value.items()))
        else:
            found[parts] = (id(value), len(value))
            stack.extend(
                ((*parts, index), item) for index, item in reversed(list(enumerate(value)))
            )
    return found


def _check_nothing_shared(
    transform: Any, pod: Any, output: Any, label: str = "the transform"
) -> None:
    owned: dict[int, str] = {}
    _collect_owned(transform, label, owned, set())
    for item_id in _container_ids(pod):
        owned.pop(item_id, None)  # the caller's own objects, given to the transform
    if not owned:
        return
    for where, value in _containers(output, ""):
        held = owned.get(id(value))
        if held is not None:
            raise AssertionError(
                f"not pure: the output's {where or 'root'} is the very object held by "
                f"{held}; changing the output would change what it holds\n"
                f"  shared value: {_short(value)}"
            )


def _short(value: Any) -> str:
    return short_repr(value, 100)  # repr() alone fails on an int past 4,300 digits


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
            stack.extend(
                (f"{here}.{key}" if here else str(key), item) for key, item in value.items()
            )
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
        parts = [
            *(
                cell.cell_contents
                for cell in getattr(value, "__closure__", None) or ()
                if _filled(cell)
            ),
            *(getattr(value, "__defaults__", None) or ()),
            *(getattr(value, "__kwdefaults__", None) or {}).values(),
            getattr(value, "__self__", None),
        ]
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

    The first output is compared as it was before the second application, so
    a transform that appends to what it is given, in place, fails too.

    >>> from combinators import append_at
    >>> assert_idempotent(append_at("spec.tolerations", {"key": "gpu"}, unique=True),
    ...                   {"spec": {}})
    {'spec': {'tolerations': [{'key': 'gpu'}]}}
    """
    apply = _as_callable(transform)
    once = apply(pod)
    kept = copy.deepcopy(once)  # a transform writing in place would change ``once`` too
    twice = apply(once)
    if not strict_equal(kept, twice):
        raise AssertionError(
            "not idempotent: a second application changed the pod "
            "(before: applied once, after: applied twice)\n" + describe_difference(kept, twice)
        )
    return once


def assert_valid_pod(
    pod: Any, k8s_version: str | None = None, *, kind: str = "Pod", warnings: bool = False
) -> Any:
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

    found = [
        problem
        for problem in problems(pod, kind=kind, k8s_version=k8s_version)
        if warnings or problem.severity == "error"
    ]
    if found:
        count = len(found)
        version = schema_for(k8s_version).version
        lines = [
            f"the pod is not valid (Kubernetes {version}), "
            f"{count} problem{'s' if count != 1 else ''}:"
        ]
        lines += [f"  {problem}" for problem in found]
        raise AssertionError("\n".join(lines))
    return pod


def assert_changes(
    transform: Any, pod: Any, only: Iterable[Path | str] | Path | str, *, nothing_ok: bool = False
) -> list[str]:
    """Check that ``transform`` changes ``pod`` only at or under the ``only`` paths;
    return the paths it changed.

    ``only`` holds paths in podfold's grammar; list elements may be selected
    by ``[*]``, an index or ``[field=value]``. Changing nothing fails too,
    unless ``nothing_ok``: an overlay whose selector matches nothing is
    usually a bug. The changes are those from ``pod`` as it was given, also
    where the transform writes into it in place.

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
    before = copy.deepcopy(pod)
    after = _as_callable(transform)(pod)
    if not strict_equal(pod, before):
        pod = before  # written in place: the changes are those from the pod as it was given
    found = between(pod, after)
    if not found and not nothing_ok:
        raise AssertionError(
            "the transform changed nothing (pass nothing_ok=True if that is expected)"
        )
    stray = outside(found, allowed, pod, after)
    if stray:
        listed = ", ".join(str(item) for item in allowed) or "(nothing allowed)"
        raise AssertionError(
            f"changes outside {listed}:\n"
            + "\n".join(f"  {change}" for change in stray)
            + "\n\n"
            + describe_difference(pod, after)
        )
    return [str(change.path) for change in found]
