"""The hostile corpus: every input in ``tests/hostile/`` ends as its case says, within budget.

Each table in ``tests/hostile/`` (one per class of input; the README there
says what each class is) lists cases. A case names the surface it goes in by
(``via``: ``loads``, ``file``, ``as_transform``, ``op``, ``path``,
``json_patch``, ``strategic``, ``merge_patch``, ``validate``, ``function``,
``fold``, ``explain``, ``torchx``, ``policy``, ``cli``), its input, and what
must come out (``expect``):

- ``error: Name``: a :class:`combinators.TransformError` of a class named
  ``Name`` (``TransformError`` itself for any), whose message contains every
  text of ``says`` and matches every regular expression of ``matches``
  (the file and line, the path, the step, the role and replica: the place);
- ``result``, ``at`` (``{path: value}``), ``count`` (``{path: length}``,
  of a list, a map or a string),
  ``returns: true``: the correct result, where accepting is right;
- ``either: [...]``: one of several outcomes (a deep input may be handled,
  or refused at a documented depth);
- ``exit`` (the command line's exit code) with ``says`` on what it printed.

Whatever the expectation, every case also checks that nothing it passed in
was changed, that no exception other than a ``TransformError`` escaped, that
the error's message can be printed, and that a pod that comes out holds only
what JSON can carry. Each case runs in a child process (``tests/budget.py``)
with a time and a memory budget (``seconds``, ``megabytes``; 5 s and 512 MB
above what the test process holds, unless the case says otherwise), so a
regression fails the case instead of hanging the run. ``make`` builds inputs
too large or too deep to write out (see ``_GENERATORS``) and puts each at a
dotted place of the case (``pod.spec.nodeSelector``, ``args.1``; ``|`` separates
the parts instead where a key holds a dot: ``files|pod.yaml``), as ``set``
puts literal values;
``make_text`` builds a case's ``text``, between the two strings of
``text_around``.
"""

from __future__ import annotations

import contextlib
import io
import os
import pathlib
import pickle
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

# imported here, before any child is forked, so that each child starts warm
import torchx.specs as specs
import yaml
from torchx.runner import get_runner

import transforms.torchx.schedulers  # noqa: F401
from combinators import (
    TransformError,
    append_at,
    chain,
    compose,
    fold,
    get_at,
    upsert,
)
from tests.budget import within
from transforms import (
    as_transform,
    explain,
    json_patch,
    load_overlay,
    loads_overlay,
    merge_patch,
    strategic_merge,
)
from transforms.checks.validation import validate_pod
from transforms.cli.main import main as cli_main
from transforms.torchx import with_overlays

CORPUS = pathlib.Path(__file__).parent / "hostile"
POD: dict[str, Any] = yaml.safe_load((CORPUS / "pod.yaml").read_text())
TRANSFORM_ERROR = "combinators.errors.TransformError"


# --- functions the cases name ("fn:<name>"): user code that misbehaves ----------------------


def raises_key_error(pod: Any) -> Any:
    raise KeyError("boom")


def recurses_forever(pod: Any) -> Any:
    return recurses_forever(pod)


def returns_none(pod: Any) -> Any:
    return None


def returns_text(pod: Any) -> Any:
    return "a pod"


def returns_list(pod: Any) -> Any:
    return [pod]


def returns_number(pod: Any) -> Any:
    return 42


def sets_host_ipc_in_place(pod: Any) -> Any:
    pod["spec"]["hostIPC"] = True
    return pod


def appends_env_in_place(pod: Any) -> Any:
    pod["spec"]["containers"][0]["env"].append({"name": "SNEAKY", "value": "1"})
    return pod


def clears_then_returns_new(pod: Any) -> Any:
    new = {"spec": {"containers": [{"name": "x", "image": "x:1"}]}}
    pod.clear()
    return new


def edits_in_place_then_raises(pod: Any) -> Any:
    pod["metadata"]["labels"]["half"] = "done"
    raise RuntimeError("half way")


def predicate_raises(pod: Any) -> bool:
    return 1 / 0 > 0


def predicate_edits_in_place(pod: Any) -> bool:
    pod["spec"]["hostPID"] = True
    return True


def count_raises(count: int) -> bool:
    raise ValueError("cannot count")


def update_raises(value: Any) -> Any:
    raise LookupError("no such thing")


def update_returns_set(value: Any) -> Any:
    return {"a", "b"}


def append_to_image(pod: Any) -> Any:
    return append_at("image", "x")(pod)


FUNCTIONS: dict[str, Any] = {
    fn.__name__: fn
    for fn in (
        raises_key_error,
        recurses_forever,
        returns_none,
        returns_text,
        returns_list,
        returns_number,
        sets_host_ipc_in_place,
        appends_env_in_place,
        clears_then_returns_new,
        edits_in_place_then_raises,
        predicate_raises,
        predicate_edits_in_place,
        count_raises,
        update_raises,
        update_returns_set,
    )
}
FUNCTIONS["append_to_image"] = append_at("image", "x")  # a transform, for for_each
FUNCTIONS["set_host_network"] = upsert("spec.hostNetwork", True)


def _resolve(value: Any) -> Any:
    if isinstance(value, str) and value.startswith("fn:"):
        return FUNCTIONS[value[3:]]
    return value


# --- inputs too large or too deep to write out ---------------------------------------------


def _nested(levels: int, make: Callable[[Any], Any]) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = make(value)
    return value


def _formatter(template: Any) -> Callable[[str], Any]:
    """What makes item ``i`` of ``template``: each ``{i}`` in its texts the number, a new
    map and list for each item (a case's input is a tree, no node shared)."""
    if isinstance(template, str):
        parts = template.split("{i}")
        return (lambda i: template) if len(parts) == 1 else (lambda i: i.join(parts))
    if isinstance(template, dict):
        fields = [(key, _formatter(value)) for key, value in template.items()]
        return lambda i: {key: field(i) for key, field in fields}
    if isinstance(template, list):
        items = [_formatter(value) for value in template]
        return lambda i: [item(i) for item in items]
    return lambda i: template


def _items(n: int, template: Any, start: int = 0) -> list[Any]:
    item = _formatter(template)
    return [item(str(i)) for i in range(start, start + n)]


_GENERATORS: dict[str, Callable[..., Any]] = {
    "nested_seq_text": lambda n: "[" * n + "]" * n,
    "nested_map_text": lambda n: "{a: " * n + "x" + "}" * n,
    "compact_seq_text": lambda n: "- " * n + "x\n",
    "nested_list": lambda n: _nested(n, lambda inner: [inner]),
    "nested_map": lambda n: _nested(n, lambda inner: {"a": inner}),
    "long_path": lambda n: ".".join(["a"] * n),
    "string": lambda n, char="x": char * n,
    "items": _items,
    "lines": lambda head, n, line, tail="": (
        head + "".join(line.replace("{i}", str(i)) for i in range(n)) + tail
    ),
    "mapping": lambda n, key, value: {key.replace("{i}", str(i)): value for i in range(n)},
    "an_object": lambda: object(),
}


def _generate(spec: dict[str, Any]) -> Any:
    ((name, args),) = spec.items()
    if args is None:
        args = []
    return _GENERATORS[name](*args) if isinstance(args, list) else _GENERATORS[name](args)


def _set(case: dict[str, Any], dotted: str, value: Any) -> None:
    separator = "|" if "|" in dotted else "."  # "files|pod.yaml": a key with a dot in it
    parts: list[Any] = [int(part) if part.isdigit() else part for part in dotted.split(separator)]
    node: Any = case
    for part in parts[:-1]:
        node = node[part]
    node[parts[-1]] = value


def _materialise(case: dict[str, Any]) -> dict[str, Any]:
    case = dict(case)
    case.setdefault("pod", yaml.safe_load((CORPUS / "pod.yaml").read_text()))
    for dotted, value in (case.get("set") or {}).items():
        _set(case, dotted, value)
    for dotted, spec in (case.get("make") or {}).items():
        _set(case, dotted, _generate(spec))
    if "make_text" in case:
        before, after = case.get("text_around", ["", ""])
        case["text"] = before + _generate(case["make_text"]) + after
    return case


# --- comparisons that neither recurse nor trip over cycles ---------------------------------

_SCALAR_TYPES = frozenset({str, bytes, int, float, bool, type(None)})


def _identity(number: int) -> None:
    """What a fingerprint records of an object other than data: which one it is."""


class _Fingerprinter(pickle.Pickler):
    """pickle's own walk, in C, as a fingerprint: every value with its type and its place,
    the order of maps, and which nodes are shared (its memo); data only: any other object
    (a function, ``object()``) is recorded by identity, as :func:`_walked` records it."""

    def reducer_override(self, obj: Any) -> Any:
        if obj is _identity or isinstance(obj, (dict, list, tuple, set, frozenset, str, bytes)):
            return NotImplemented
        if isinstance(obj, (int, float)):
            return NotImplemented
        return _identity, (id(obj),)


def fingerprint(value: Any) -> bytes | list[Any]:
    """A description of ``value`` that changes when any part of it does (cycles included):
    its pickle, with objects other than data by identity; where pickle cannot go (deeper
    than its recursion allows, a value that refuses it), :func:`_walked`."""
    buffer = io.BytesIO()
    try:
        _Fingerprinter(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    except (RecursionError, pickle.PicklingError, TypeError, AttributeError):
        return _walked(value)
    return buffer.getvalue()


def _walked(value: Any) -> list[Any]:
    """A flat, structural description of ``value`` (cycles and depth included), iteratively."""
    tokens: list[Any] = []
    seen: dict[int, int] = {}
    stack: list[tuple[bool, Any]] = [(False, value)]  # (is a key, item)
    while stack:
        is_key, item = stack.pop()
        if is_key:
            tokens.append(("key", type(item).__name__, repr(item)))
        elif isinstance(item, (dict, list, tuple, set, frozenset)):
            if id(item) in seen:
                tokens.append(("ref", seen[id(item)]))
                continue
            seen[id(item)] = len(seen)
            if isinstance(item, dict):
                tokens.append(("map", len(item)))
                for key, child in reversed(list(item.items())):
                    stack.append((False, child))
                    stack.append((True, key))
            elif isinstance(item, (set, frozenset)):
                tokens.append(("set", tuple(sorted(map(repr, item)))))
            elif set(map(type, item)) <= _SCALAR_TYPES:  # a flat list: compare it whole, fast
                tokens.append((type(item).__name__, tuple(map(type, item)), tuple(item)))
            else:
                tokens.append((type(item).__name__, len(item)))
                stack.extend((False, child) for child in reversed(item))
        elif isinstance(item, (str, bytes, int, float, bool)) or item is None:
            tokens.append((type(item).__name__, item))
        else:
            tokens.append(("object", id(item)))
    return tokens


_JSON_SCALARS = (str, int, float, bool, type(None))
_JSON_SCALAR_TYPES = frozenset(_JSON_SCALARS)


def not_json(value: Any) -> str | None:
    """Where ``value`` holds something JSON cannot carry (or a cycle), or ``None``."""
    stack: list[tuple[Any, str]] = [(value, "")]
    on_path: set[int] = set()
    while stack:
        item, where = stack.pop()
        if isinstance(item, _JSON_SCALARS):
            continue
        if type(item) not in (dict, list):
            return f"{where or 'the root'} holds a {type(item).__name__}"
        if id(item) in on_path:
            return f"{where} is shared or cyclic"  # a pod is a tree: no node twice
        on_path.add(id(item))
        if isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str):
                    return f"{where or 'the root'} has a {type(key).__name__} key {key!r}"
                stack.append((child, f"{where}.{key}" if where else key))
        elif not set(map(type, item)) <= _JSON_SCALAR_TYPES:
            stack.extend((child, f"{where}[{index}]") for index, child in enumerate(item))
    return None


# --- the surfaces ---------------------------------------------------------------------------


def _loads(case: dict[str, Any], tmp: pathlib.Path) -> Any:
    transform = loads_overlay(
        case["text"],
        source=case.get("source", f"{case['id']}.yaml"),
        **({"kind": case["kind"]} if "kind" in case else {}),
    )
    return transform(case["pod"]) if case.get("apply", True) else transform


def _file(case: dict[str, Any], tmp: pathlib.Path) -> Any:
    return load_overlay(CORPUS / "files" / case["file"])(case["pod"])


def _op(case: dict[str, Any], tmp: pathlib.Path) -> Any:
    import combinators

    factory = getattr(combinators, case["op"])
    args = [_resolve(arg) for arg in [*case.get("args", []), *case.get("star", [])]]
    kwargs = {key: _resolve(value) for key, value in (case.get("kwargs") or {}).items()}
    return factory(*args, **kwargs)(case["pod"])


def _path(case: dict[str, Any], tmp: pathlib.Path) -> Any:
    from combinators import path

    return str(path(case["text"]))


def _function(case: dict[str, Any], tmp: pathlib.Path) -> Any:
    fn = FUNCTIONS[case["fn"]]
    how = case.get("how", "alone")
    if how == "alone":
        return chain(fn)(case["pod"])
    if how == "compose":
        return compose(fn)(case["pod"])
    if how == "as_transform":
        return as_transform(fn)(case["pod"])
    if how == "explain":
        return [str(change) for change in explain(fn, case["pod"]).changes]
    if how == "fold":
        return fold([fn], case["pod"])
    raise AssertionError(f"unknown how: {how}")


def _fold(case: dict[str, Any], tmp: pathlib.Path) -> Any:
    steps = [_resolve(step) for step in case["steps"]]
    return fold(steps, case["pod"], **(case.get("kwargs") or {}))


def _write(tmp: pathlib.Path, name: str, text: str) -> str:
    target = tmp / name
    target.write_text(text)
    return str(target)


def _torchx(case: dict[str, Any], tmp: pathlib.Path) -> Any:
    overlays = []
    for number, item in enumerate(case.get("overlays", [])):
        if isinstance(item, dict) and set(item) == {"yaml"}:
            overlays.append(_write(tmp, f"role-{number}.yaml", item["yaml"]))
        else:
            overlays.append(_resolve(item))
    cfg: dict[str, Any] = {"queue": "default", **(case.get("cfg") or {})}
    texts = cfg.pop("overlays_yaml", None)
    if texts is not None:
        cfg["overlays"] = [_write(tmp, name, text) for name, text in texts.items()]
    role = specs.Role(
        name="trainer",
        image="trainer:1",
        entrypoint="python",
        args=["-m", "train"],
        num_replicas=case.get("replicas", 2),
        resource=specs.Resource(cpu=2, gpu=0, memMB=4000),
    )
    app = specs.AppDef("train", roles=[with_overlays(role, *overlays)])
    info = get_runner().dryrun(app, case.get("scheduler", "kubernetes_overlay"), cfg=cfg)
    return {"pods": [task["template"] for task in info.request.resource["spec"]["tasks"]]}


def _policy(case: dict[str, Any], tmp: pathlib.Path) -> Any:
    from transforms.checks.policies import policy_problems

    return [str(problem) for problem in policy_problems(case["pod"], case["profile"])]


def _cli(case: dict[str, Any], tmp: pathlib.Path) -> Any:
    for name, text in (case.get("files") or {}).items():
        (tmp / name).write_bytes(
            text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
        )
    os.chdir(tmp)  # in the child only
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            cli_main(case["args"])
        except SystemExit as done:
            code = done.code
    return {"exit": code, "stdout": out.getvalue(), "stderr": err.getvalue()}


SURFACES: dict[str, Callable[[dict[str, Any], pathlib.Path], Any]] = {
    "loads": _loads,
    "file": _file,
    "as_transform": lambda case, tmp: as_transform(case["value"])(case["pod"]),
    "op": _op,
    "path": _path,
    "json_patch": lambda case, tmp: json_patch(case["ops"])(case["pod"]),
    "strategic": lambda case, tmp: strategic_merge(case["patch"], **case.get("kwargs", {}))(
        case["pod"]
    ),
    "merge_patch": lambda case, tmp: merge_patch(case["patch"])(case["pod"]),
    "validate": lambda case, tmp: validate_pod(case["pod"], **case.get("kwargs", {})),
    "function": _function,
    "fold": _fold,
    "explain": lambda case, tmp: [
        str(c) for c in explain(as_transform(case["value"]), case["pod"]).changes
    ],
    "torchx": _torchx,
    "policy": _policy,
    "cli": _cli,
}
POD_SURFACES = {
    "loads",
    "file",
    "as_transform",
    "op",
    "json_patch",
    "strategic",
    "merge_patch",
    "validate",
    "fold",
    "torchx",
}


# --- judging what came out ------------------------------------------------------------------


def _error_failures(expect: dict[str, Any], names: list[str], text: str) -> list[str]:
    failures = []
    if TRANSFORM_ERROR not in names:
        failures.append(f"raised {names[0]}, not a TransformError: {text}")
    wanted = expect.get("error", "TransformError")
    if not any(name.rsplit(".", 1)[-1] == wanted for name in names):
        failures.append(f"raised {names[0]}, not a {wanted}: {text}")
    failures += [
        f"the message lacks {said!r}: {text}" for said in expect.get("says", ()) if said not in text
    ]
    failures += [
        f"the message does not match {pattern!r}: {text}"
        for pattern in expect.get("matches", ())
        if not re.search(pattern, text)
    ]
    return failures


def _result_failures(expect: dict[str, Any], result: Any, via: str) -> list[str]:
    if via == "cli":
        failures = []
        if result["exit"] != expect.get("exit", 0):
            failures.append(
                f"exit {result['exit']}, not {expect.get('exit', 0)}: {result['stderr'][-2000:]}"
            )
        printed = result["stdout"] + result["stderr"]
        failures += [
            f"the output lacks {said!r}: {result['stderr'][-2000:]}"
            for said in expect.get("says", ())
            if said not in printed
        ]
        if result["exit"] == 1 and not result["stderr"].startswith("podfold: error:"):
            failures.append(f"not podfold's own error: {result['stderr'][-2000:]}")
        return failures
    if not any(key in expect for key in ("result", "at", "count", "returns")):
        return [f"returned instead of raising {expect.get('error')}: {_short(result)}"]
    failures = []
    if "result" in expect and result != expect["result"]:
        failures.append(f"returned {_short(result)}, not {_short(expect['result'])}")
    for where, value in (expect.get("at") or {}).items():
        found = get_at(result, where, default="(absent)")
        if found != value:
            failures.append(f"{where} is {_short(found)}, not {_short(value)}")
    for where, length in (expect.get("count") or {}).items():
        found = get_at(result, where, default=None)
        if not isinstance(found, (list, dict, str)) or len(found) != length:
            got = len(found) if isinstance(found, (list, dict, str)) else _short(found)
            failures.append(f"{where} has {got} items, not {length}")
    return failures


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except RecursionError:
        return "(too deep to print)"
    return text if len(text) < 300 else text[:300] + "..."


def _judge(
    expect: dict[str, Any],
    via: str,
    result: Any,
    error: BaseException | None,
) -> list[str]:
    if "either" in expect:
        verdicts = [_judge(option, via, result, error) for option in expect["either"]]
        if any(not verdict for verdict in verdicts):
            return []
        return [
            "none of the accepted outcomes: "
            + " | ".join("; ".join(verdict) for verdict in verdicts)
        ]
    if error is not None:
        names = [f"{cls.__module__}.{cls.__qualname__}" for cls in type(error).__mro__]
        try:
            text = str(error)
        except BaseException as failure:
            return [f"str() of the {names[0]} raised {type(failure).__name__}"]
        if "error" not in expect:
            return [f"raised {names[0]} instead of returning: {text}"]
        return _error_failures(expect, names, text)
    if "error" in expect:
        return [f"returned {_short(result)} instead of raising {expect['error']}"]
    failures = _result_failures(expect, result, via)
    if via in POD_SURFACES:
        where = not_json(result)
        if where is not None:
            failures.append(f"the result is not JSON data: {where}")
    return failures


def run_case(case: dict[str, Any], tmp: pathlib.Path) -> list[str]:
    """Run one case (in the child) and say everything wrong with what came out."""
    case = _materialise(case)
    before = fingerprint(case)
    result: Any = None
    error: BaseException | None = None
    try:
        result = SURFACES[case["via"]](case, tmp)
    except RecursionError as err:  # judged like any other error, but not while still deep
        error = err
    except Exception as err:
        error = err
    failures = _judge(case["expect"], case["via"], result, error)
    if fingerprint(case) != before:
        failures.append("an input was changed in place")
    return failures


# --- the tests ------------------------------------------------------------------------------


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    """Fill podfold's and TorchX's caches (schema tables, compiled paths, TorchX's scheduler
    table) once in this process, so that each forked case starts warm and its budget measures
    the case, not the first use of a cache."""
    _torchx(
        {"id": "warm", "pod": POD, "overlays": [{"metadata": {"labels": {"a": "b"}}}]},
        pathlib.Path("."),
    )
    validate_pod(POD)
    loads_overlay("- {op: upsert, path: spec.hostIPC, value: false}\n")(POD)
    strategic_merge({"spec": {"hostIPC": False}})(POD)


class _CorpusLoader(yaml.SafeLoader):
    """The tables' own loader: YAML's safe tags (sets, bytes, any key), aliases that make
    cycles, and ``!!python/tuple`` for the tuples TorchX-style overlays use."""


class _FastCorpusLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The same on libyaml's parser, eight times as fast (each worker reads the tables as
    it collects); a table libyaml refuses (an escape it does not know) is read by the
    first."""


for _loader in (_CorpusLoader, _FastCorpusLoader):
    _loader.add_constructor(
        "tag:yaml.org,2002:python/tuple",
        lambda loader, node: tuple(loader.construct_sequence(node, deep=True)),
    )  # type: ignore[arg-type]


def _tables() -> Iterator[tuple[str, dict[str, Any]]]:
    for table in sorted(CORPUS.glob("*.yaml")):
        if table.name == "pod.yaml":
            continue
        text = table.read_text(encoding="utf-8")
        try:
            cases = yaml.load(text, _FastCorpusLoader)["cases"]
        except yaml.YAMLError:
            cases = yaml.load(text, _CorpusLoader)["cases"]
        for case in cases:
            yield table.stem, case


CASES = list(_tables())


def test_the_fast_loader_reads_each_table_as_the_pure_one_does() -> None:
    read = 0
    for table in sorted(CORPUS.glob("*.yaml")):
        text = table.read_text(encoding="utf-8")
        try:
            fast = yaml.load(text, _FastCorpusLoader)
        except yaml.YAMLError:
            continue  # read by the pure loader alone
        assert repr(fast) == repr(yaml.load(text, _CorpusLoader)), table.name
        read += 1
    assert read >= len(list(CORPUS.glob("*.yaml"))) - 2


@pytest.mark.parametrize(
    ("table", "case"),
    [pytest.param(table, case, id=f"{table}/{case['id']}") for table, case in CASES],
)
def test_hostile_case(table: str, case: dict[str, Any], tmp_path: pathlib.Path) -> None:
    outcome = within(
        run_case,
        case,
        tmp_path,
        seconds=case.get("seconds", 5.0),
        megabytes=case.get("megabytes", 512),
    )
    if outcome.status != "returned":
        pytest.fail(
            f"{table}/{case['id']}: {outcome.status} after {outcome.seconds:.1f} s "
            f"(budget {case.get('seconds', 5.0)} s, {case.get('megabytes', 512)} MB) "
            f"{outcome.error_text}\n{outcome.traceback[-3000:]}",
            pytrace=False,
        )
    if outcome.value:
        pytest.fail(
            f"{table}/{case['id']} ({case.get('note', '')}):\n  " + "\n  ".join(outcome.value),
            pytrace=False,
        )


def test_the_corpus_covers_every_class() -> None:
    # at least 100 inputs, every case with an id, a surface and an expectation, ids unique
    assert len(CASES) >= 100, len(CASES)
    ids = [f"{table}/{case['id']}" for table, case in CASES]
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]
    for table, case in CASES:
        assert case["via"] in SURFACES, (table, case["id"])
        assert isinstance(case["expect"], dict) and case["expect"], (table, case["id"])
    tables = {table for table, _ in CASES}
    assert tables >= {
        "yaml",
        "encoding",
        "tags",
        "aliases",
        "duplicates",
        "depth",
        "growth",
        "quantities",
        "paths",
        "json_patch",
        "strategic",
        "data",
        "flags",
        "functions",
        "places",
        "torchx",
        "cli",
    }, tables


def test_the_harness_catches_what_it_should(
    monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path
) -> None:
    # the judge fails a bare exception, the wrong class, a missing place, a changed input,
    # non-JSON data and a success where an error was expected
    assert _judge({"error": "PathError"}, "op", None, KeyError("x"))
    assert _judge({"error": "PathError"}, "op", None, TransformError("at spec.x"))
    assert _judge(
        {"error": "TransformError", "says": ["spec.x"]},
        "op",
        None,
        TransformError("somewhere else"),
    )
    assert not _judge(
        {"error": "TransformError", "says": ["spec.x"]}, "op", None, TransformError("at spec.x")
    )
    assert _judge({"returns": True}, "op", {"a": {1, 2}}, None)
    assert _judge({"error": "TransformError"}, "op", {"a": 1}, None)
    monkeypatch.setitem(SURFACES, "mutating", lambda case, tmp: case["pod"]["spec"].clear())
    assert run_case({"id": "m", "via": "mutating", "expect": {"returns": True}}, tmp_path) == [
        "an input was changed in place"
    ]
    assert fingerprint({"a": [1]}) != fingerprint({"a": [1, 2]})
    assert fingerprint([1, True]) != fingerprint([True, 1])
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    assert fingerprint(cyclic) == fingerprint(cyclic) and not_json(cyclic)
