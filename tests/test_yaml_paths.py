"""libyaml and pure Python read and write YAML alike: the same documents, refusals and text.

Where PyYAML has libyaml, podfold parses with it (``CStrictLoader``,
``COverlayLoader``) and writes with its emitter (``CStreamDumper``); the
pure-Python classes remain for where it does not. The tests of loading, YAML
safety and dumping run on both (``tests/yaml_paths.py``); these check the two
against each other directly, on random texts and documents and on the hostile
corpus, name the few inputs on which they knowingly differ, and check that the
one-pass builder of plain documents and the event writer give what PyYAML's
constructor and representer give.
"""

from __future__ import annotations

import json
import math
import os
import pathlib
import re
import subprocess
import sys
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combinators.limits import MAX_DEPTH
from tests import test_hostile as hostile
from tests.budget import within
from tests.test_hostile import _warm as _warm  # the corpus's fixture: fills caches
from transforms.errors import OverlayError
from transforms.io import loading, plain, safe_yaml, streams
from transforms.io.loading import loads_overlay
from transforms.io.quoting import quote_foreign_scalars
from transforms.io.safe_yaml import (
    CManifestLoader,
    CStrictLoader,
    ManifestLoader,
    StrictLoader,
    load_documents,
    load_manifest,
)
from transforms.io.streams import dump_stream

REPO = pathlib.Path(__file__).resolve().parent.parent
LIBYAML = hasattr(yaml, "CSafeLoader")
needs_libyaml = pytest.mark.skipif(not LIBYAML, reason="PyYAML is built without libyaml here")
EXAMPLES = settings(
    max_examples=settings.default.max_examples * 6,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def _outcome(read: Any, text: str, libyaml: bool) -> tuple[Any, ...]:
    safe_yaml.LIBYAML = libyaml  # restored by the tests' monkeypatch
    try:
        return ("read", repr(read(text)))
    except OverlayError as err:
        return ("refused", err.line, err.column, err.message)


def _read_manifest(text: str) -> Any:
    return load_documents(text, "m.yaml")


def _read_overlay(text: str) -> Any:
    return loads_overlay(text, "o.yaml", kind=None)


def _read_as_kubectl(text: str) -> Any:
    return load_manifest(text, "m.yaml")  # the documents and the plain booleans, with places


# ---------------------------------------------------------------- reading

# pieces of YAML, joined at random: structure, quoting, anchors, tags (podfold's too)
PIECES = [
    *"ab1-:[]{},'\"\n #&*!|>?%@`~.",
    "  ",
    "- ",
    ": ",
    "\n  ",
    "\n- ",
    "&x ",
    "*x",
    "!x ",
    "!!str ",
    "!!int ",
    "!append ",
    "!merge-by:a,b ",
    "---\n",
    "...\n",
    "\\",
    "0x1",
    "1.5",
    "null",
    "true",
    "<<: ",
    "2024-01-02",
    "key",
    "\n    ",
    "é",
    "\U0001f600",
    "y",
    "N",
    "on",
    "Off",
    "23:30",
    "1e3",
    "08",
    "0o17",
    "-.inf",
    "=",
    "1_",
    "0b+1",
]
# where libyaml reads what PyYAML's parser refuses (see test_where_libyaml_reads_more); the
# last: a "?" after the start of a plain scalar, in a flow collection (roughly)
KNOWN = re.compile(r"\t|[|>][-+0-9]*#|![^\s!]*!|[\[{].*[^\s\[\]{},?]\s*\?", re.DOTALL)


@needs_libyaml
@EXAMPLES
@given(st.lists(st.sampled_from(PIECES), max_size=14).map("".join))
def test_libyaml_and_pure_python_read_alike(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    # every text: the same documents, or the same refusal at the same line and column
    monkeypatch.setattr(safe_yaml, "LIBYAML", True)
    if KNOWN.search(text):
        return
    for read in (_read_manifest, _read_overlay, _read_as_kubectl):
        assert _outcome(read, text, True) == _outcome(read, text, False), (read, text)


@needs_libyaml
@pytest.mark.parametrize(
    ("text", "libyaml", "pure"),
    [
        # a tab between a key and its value (YAML 1.2 and kubectl allow it)
        ("a:\tb\n", [{"a": "b"}], (1, 3, "found character '\\t' that cannot start any token")),
        # a block scalar's header followed by a comment with no space before it
        (
            "a: |#\n  x\n",
            [{"a": "x\n"}],
            (1, 5, "expected chomping or indentation indicators, but found '#'"),
        ),
        # a tag handle of punctuation: both refuse it, each in its own words
        (
            "- !*! 1\n",
            (1, 3, "could not determine a constructor for the tag '!*!'"),
            (1, 4, "expected '!', but found '*'"),
        ),
        # a "?" inside a plain scalar in a flow collection (YAML 1.2 allows it)
        ("[a?b]\n", [["a?b"]], (1, 3, "expected ',' or ']', but got '?'")),
        ("[a\n ? b]\n", [["a ? b"]], (2, 2, "expected ',' or ']', but got '?'")),
    ],
)
def test_where_libyaml_reads_more(
    monkeypatch: pytest.MonkeyPatch, text: str, libyaml: Any, pure: Any
) -> None:
    # the known differences, kept as they are: libyaml's grammar is the wider
    for flag, wanted in ((True, libyaml), (False, pure)):
        monkeypatch.setattr(safe_yaml, "LIBYAML", flag)
        try:
            found: Any = load_documents(text, "m.yaml")
        except OverlayError as err:
            found = (err.line, err.column, err.message)
        assert found == wanted, flag


@needs_libyaml
@pytest.mark.parametrize("read", [_read_manifest, _read_overlay, _read_as_kubectl])
@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        # nothing to merge: the empty value placed at the "]" or "}" after it, as libyaml
        # places it (PyYAML's parser placed it a column before, after the ":")
        ("[<<: ]", 1, 6, "expected a mapping or list of mappings for merging, but found scalar"),
        ("{<<: }", 1, 6, "expected a mapping or list of mappings for merging, but found scalar"),
        ("[ <<: ]\n", 1, 7, "expected a mapping or list of mappings for merging, but found scalar"),
        (
            "{a: 1, <<: }",
            1,
            12,
            "expected a mapping or list of mappings for merging, but found scalar",
        ),
        (
            "{<<: # c\n}",
            2,
            1,
            "expected a mapping or list of mappings for merging, but found scalar",
        ),
    ],
)
def test_an_empty_node_in_a_flow_collection_is_placed_alike(
    monkeypatch: pytest.MonkeyPatch, read: Any, text: str, line: int, column: int, message: str
) -> None:
    # the same refusal at the same line and column on libyaml and on PyYAML's parser
    monkeypatch.setattr(safe_yaml, "LIBYAML", True)
    for libyaml in (True, False):
        assert _outcome(read, text, libyaml) == ("refused", line, column, message), libyaml


@needs_libyaml
@pytest.mark.parametrize(
    "text", ["[a: ]", "{a: , b: }", "[? ]", "{? }", "[? : ]", "{? : }", "[ ? x : ]", "{a: # c\n }"]
)
def test_empty_nodes_in_flow_collections_are_composed_at_libyaml_s_places(text: str) -> None:
    # every node, the empty keys and values too, starts where libyaml starts it
    def starts(loader: Any) -> list[tuple[str, int, int]]:
        found, stack = [], [yaml.compose(text, Loader=loader)]
        while stack:
            node = stack.pop()
            found.append((node.tag, node.start_mark.line, node.start_mark.column))
            if isinstance(node, yaml.SequenceNode):
                stack.extend(node.value)
            elif isinstance(node, yaml.MappingNode):
                stack.extend(part for pair in node.value for part in pair)
        return found

    assert starts(StrictLoader) == starts(CStrictLoader)


@needs_libyaml
def test_an_empty_key_is_refused_where_libyaml_places_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # an empty key ("?" and nothing) at the token after it, on both paths
    monkeypatch.setattr(safe_yaml, "LIBYAML", True)
    for libyaml in (True, False):
        assert _outcome(_read_overlay, "{? }", libyaml)[1:3] == (1, 4), libyaml
        assert _outcome(_read_as_kubectl, "[? : ]", libyaml)[1:3] == (1, 5), libyaml


@needs_libyaml
def test_a_libyaml_refusal_is_worded_and_placed_by_pyyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    # libyaml alone places this at 2:1 in its own words; podfold gives PyYAML's, on both paths
    with pytest.raises(yaml.MarkedYAMLError) as libyaml_alone:
        yaml.compose("a: [1", Loader=yaml.CSafeLoader)
    assert (libyaml_alone.value.problem_mark.line, libyaml_alone.value.problem) == (
        1,
        "did not find expected ',' or ']'",
    )
    for flag in (True, False):
        monkeypatch.setattr(safe_yaml, "LIBYAML", flag)
        with pytest.raises(OverlayError) as caught:
            load_documents("a: [1", "m.yaml")
        assert (caught.value.line, caught.value.column, caught.value.message) == (
            1,
            6,
            "expected ',' or ']', but got '<stream end>'",
        )


@needs_libyaml
def test_comma_tags_libyaml_refuses_still_load(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "ports: !merge-by:containerPort,protocol [{containerPort: 80, protocol: TCP}]\n"
    with pytest.raises(yaml.YAMLError):
        yaml.compose(text, Loader=yaml.CSafeLoader)  # so PyYAML's parser reads it instead
    monkeypatch.setattr(safe_yaml, "LIBYAML", True)
    on_libyaml = loads_overlay(text, kind=None)
    monkeypatch.setattr(safe_yaml, "LIBYAML", False)
    assert on_libyaml == loads_overlay(text, kind=None)
    assert on_libyaml({"ports": []}) == {"ports": [{"containerPort": 80, "protocol": "TCP"}]}


def test_the_pure_path_uses_no_libyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    # with LIBYAML off, nothing of libyaml's is built: its classes are made to fail
    class Refused:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            raise AssertionError("a libyaml class was used on the pure path")

    monkeypatch.setattr(safe_yaml, "LIBYAML", False)
    monkeypatch.setattr(safe_yaml, "CStrictLoader", Refused)
    monkeypatch.setattr(loading, "COverlayLoader", Refused)
    monkeypatch.setattr(streams, "CStreamDumper", Refused)
    assert load_documents("a: [1]\n", "m.yaml") == [{"a": [1]}]
    assert loads_overlay("spec: {hostIPC: true}\n")({"spec": {}}) == {"spec": {"hostIPC": True}}
    assert dump_stream([{"a": [1]}]) == "a:\n- 1\n"
    assert safe_yaml.strict_loader() is StrictLoader
    assert loading.overlay_loader() is loading.OverlayLoader


def test_an_empty_node_tagged_with_a_bare_bang_is_an_empty_string(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # YAML's non-specific tag makes a scalar a string; PyYAML's parser alone made it null
    for flag in (True, False):
        monkeypatch.setattr(safe_yaml, "LIBYAML", flag)
        assert load_documents("a: !\nb: ! 1\n", "m.yaml") == [{"a": "", "b": 1}]


@pytest.mark.parametrize("text", ["\ufeffa: 1\n---\n\ufeffb: 2\n", "a: x\ufeffy\n"])
def test_a_byte_order_mark_after_the_start_is_refused(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    # libyaml skipped it, PyYAML read it as text: neither guess is made
    line, column = (3, 1) if text.startswith("\ufeff") else (1, 5)
    for flag in (True, False):
        monkeypatch.setattr(safe_yaml, "LIBYAML", flag)
        for read in (_read_manifest, _read_overlay):
            with pytest.raises(OverlayError, match="byte-order mark") as caught:
                read(text)
            assert (caught.value.line, caught.value.column) == (line, column)
    assert load_documents("\ufeffa: 1\n", "m.yaml") == [{"a": 1}]  # at the start: read


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: !!int\n", "!!int takes an integer, not ''"),
        ("a: !!int 0x\n", "!!int takes an integer, not '0x'"),
        ("a: !!float x\n", "!!float takes a number, not 'x'"),
        ("a: !!bool x\n", "!!bool takes true or false, not 'x'"),
    ],
)
def test_an_explicit_tag_its_text_cannot_be_is_refused_in_place(
    monkeypatch: pytest.MonkeyPatch, text: str, message: str
) -> None:
    # was a bare IndexError, ValueError or KeyError from PyYAML's constructor
    for flag in (True, False):
        monkeypatch.setattr(safe_yaml, "LIBYAML", flag)
        for read in (_read_manifest, _read_overlay):
            with pytest.raises(OverlayError) as caught:
                read(text)
            assert (caught.value.line, caught.value.column, caught.value.message) == (1, 4, message)


YAML_CASES = [
    pytest.param(table, case, id=f"{table}/{case['id']}")
    for table, case in hostile.CASES
    if case["via"] in ("loads", "file", "cli")
]


PURE_PARSER_SLOWER = 3
"""How many times a case's time budget the pure-Python path is given: PyYAML's own scanner
takes 3.5-3.8 s of CPU to compose the 20,000 flow maps of
``growth/append-unique-20000-from-yaml``, where libyaml takes 0.5 s, and podfold's part of
either is about 1.2 s. A budget catches growth (a walk that turned quadratic takes minutes
at that size), not the parser's constant factor, which the case's own budget, set on
libyaml, left no room for."""


@pytest.mark.parametrize(("table", "case"), YAML_CASES)
def test_hostile_yaml_on_the_pure_path(
    monkeypatch: pytest.MonkeyPatch, table: str, case: dict[str, Any], tmp_path: pathlib.Path
) -> None:
    # the corpus's YAML cases (test_hostile runs them on libyaml), judged as it judges them
    monkeypatch.setattr(safe_yaml, "LIBYAML", False)
    budget = {"seconds": case.get("seconds", 5.0) * PURE_PARSER_SLOWER}
    hostile.test_hostile_case(table, {**case, **budget}, tmp_path)


@pytest.mark.parametrize(
    ("found", "allowed"),
    [
        # YAML's printable characters (and tab, line feed, carriage return)
        (
            safe_yaml._NON_PRINTABLE,
            r"\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010FFFF",
        ),
        # what libyaml writes other than in double quotes
        (streams._DOUBLE_QUOTED, r"\n\x20-\x7E\xA0-\uD7FF\uE000-\uFEFE\uFF00-\uFFFD"),
        # what libyaml writes as itself in double quotes
        (
            streams._ESCAPED,
            r"\x20-\x21\x23-\x5B\x5D-\x7E\xA0-\u2027\u202A-\uD7FF\uE000-\uFEFE"
            r"\uFF00-\uFFFD",
        ),
    ],
    ids=["yaml-text", "double-quoted", "escaped"],
)
def test_each_class_of_characters_is_the_complement_of_what_it_allows(
    found: Any, allowed: str
) -> None:
    # the classes are written as what they find (a negated class of wide ranges takes re
    # 10 ms to compile, in every process): the same characters, all 1,114,112 of them
    every = "".join(map(chr, range(0x110000)))
    complement = re.compile(f"[^{allowed}]")
    assert [match.start() for match in found.finditer(every)] == [
        match.start() for match in complement.finditer(every)
    ]


# ---------------------------------------------------------------- plain documents

KEYS = st.sampled_from(
    [
        "a",
        "name",
        "1",
        "true",
        "null",
        "0x1F",
        "1.5",
        "2024-01-02",
        "é",
        "~",
        "",
        "<<x",
        "a b",
        "y",
        "Off",
    ]
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.sampled_from(
        [
            "x",
            "",
            "1",
            "true",
            "null",
            "~",
            "0o17",
            "1_000",
            "2024-01-02",
            "12:30:00",
            ".inf",
            "-.nan",
            "a: b",
            "multi\nline\n",
            "é",
            "y",
            "N",
            "yes",
            "Off",
        ]
    )
)
DATA = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(KEYS, children, max_size=3),
    max_leaves=12,
)


def _ordered(data: Any) -> Any:
    """``data`` with the order of every map's keys made part of its value."""
    if isinstance(data, dict):
        return [("map", [(_ordered(key), _ordered(value)) for key, value in data.items()])]
    if isinstance(data, list):
        return [_ordered(item) for item in data]
    return data


@pytest.mark.parametrize(
    "loader",
    [StrictLoader, CStrictLoader, ManifestLoader, CManifestLoader],
    ids=["pure", "libyaml", "manifest-pure", "manifest-libyaml"],
)
@EXAMPLES
@given(data=DATA, flow=st.booleans())
def test_a_plain_document_is_built_as_the_constructor_builds_it(
    loader: Any, data: Any, flow: bool
) -> None:
    # plain.build(node) == the strict constructor's document, key order included (with
    # kubectl's scalars too: y, N, ... PyYAML's dumper writes plain, read as booleans, and
    # keys made text, so that y and 'true' are one key, refused alike)
    text = yaml.safe_dump(data, default_flow_style=flow, sort_keys=False, allow_unicode=True)
    node = loader(text).get_single_node()
    assert plain.is_plain(node, text, None)
    assert _built(lambda: plain.build(loader(text), node)) == _built(
        lambda: loader(text).construct_document(node)
    )


def _built(build: Any) -> Any:
    """What ``build()`` makes, key order included, or where and why it refuses."""
    try:
        return _ordered(build())
    except yaml.MarkedYAMLError as err:
        assert err.problem_mark is not None
        return (err.problem, err.problem_mark.line, err.problem_mark.column)


@pytest.mark.parametrize("loader", [StrictLoader, CStrictLoader], ids=["pure", "libyaml"])
@pytest.mark.parametrize(
    "text",
    [
        "a: 1\nb: {c: 1, d: 2, c: 3}\na: 2\n",  # the outer map first, as the constructor goes
        "- {x: 1}\n- {y: 1, 0x1: a, 1: b}\n",  # equal once read: 0x1 and 1
        "{1: a, true: b}\n",  # 1 == True, as Python's dict has it
        "k: [{a: 1}, {b: [{c: 1, c: 2}]}]\n",
    ],
)
def test_duplicate_keys_are_refused_as_the_constructor_refuses_them(loader: Any, text: str) -> None:
    node = loader(text).get_single_node()
    assert plain.is_plain(node, text, None)
    with pytest.raises(yaml.MarkedYAMLError) as built:
        plain.build(loader(text), node)
    with pytest.raises(yaml.MarkedYAMLError) as constructed:
        loader(text).construct_document(node)
    assert (
        built.value.problem,
        built.value.problem_mark.line,
        built.value.problem_mark.column,
    ) == (
        constructed.value.problem,
        constructed.value.problem_mark.line,
        constructed.value.problem_mark.column,
    )


@pytest.mark.parametrize("loader", [StrictLoader, CStrictLoader], ids=["pure", "libyaml"])
@pytest.mark.parametrize(
    "text",
    [
        "a: &x [1]\nb: *x\n",  # an alias
        "\ufeffa: &x 1\nb: [2, *x]\n",  # one at the end, after a byte-order mark
        "a: \U0001f600\nb: &x 1\nc: *x\n",  # after a character beyond the BMP
        "base: {a: 1}\nmine:\n  <<: {b: 2}\n",  # a merge key
        "a: !!binary aGk=\n",  # a tag JSON cannot carry
        "? [a]\n: 1\n",  # a key that is a list
        "a: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "\n",  # too deep
    ],
)
def test_what_is_not_plain_goes_to_the_constructor(loader: Any, text: str) -> None:
    if loader is CStrictLoader and not LIBYAML:
        pytest.skip("PyYAML is built without libyaml here")
    try:
        node = loader(text).get_single_node()
    except yaml.YAMLError:  # the pure composer stops the deep one itself
        assert loader is StrictLoader and "[" * MAX_DEPTH in text
        return
    assert not plain.is_plain(node, text, None)


def test_a_plain_document_over_the_node_bound_is_not_plain() -> None:
    text = "a: [1, 2, 3]\n"  # a map, its key, a list and three items: 6 nodes
    node = StrictLoader(text).get_single_node()
    assert plain.is_plain(node, text, 6) and not plain.is_plain(node, text, 5)


# ---------------------------------------------------------------- writing

TEXT_PIECES = st.sampled_from(
    [
        *"ab ",
        "  ",
        "\n",
        "\n\n",
        "é",
        "€",
        "\U0001f600",
        "'",
        '"',
        "\\",
        ":",
        "#",
        "-",
        "\t",
        "\r",
        "\x85",
        "\u2028",
        "\ufeff",
        "x" * 30,
        "y " * 20,
        "\x00",
        "\x7f",
        "~",
        "[",
        "{",
        ",",
        "?",
        "*",
        "&",
        "!",
        "|",
        ">",
        "%",
        "@",
        "`",
        "true",
        "1",
        "null",
        "0",
        ".",
        "e",
        "_",
        "y",
        "n",
        "x",
        "+",
    ]
)
TEXTS = st.lists(TEXT_PIECES, max_size=40).map("".join)
WRITE_KEYS = (
    TEXTS
    | st.integers(0, 200).map(lambda n: "k" * n)
    | st.tuples(st.integers(0, 130), st.sampled_from(["é", "a", "€", " "])).map(
        lambda pair: "k" * pair[0] + pair[1] * 3
    )
)  # about the 128 bytes of a simple key
WRITE_DATA = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | TEXTS,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(WRITE_KEYS, children, max_size=3)
    ),
    max_leaves=12,
)


class _Before(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """What podfold apply wrote with until now: the safe dumper, multi-line strings as blocks."""


_Before.add_representer(
    str,
    lambda dumper, value: dumper.represent_scalar(
        "tag:yaml.org,2002:str", value, style="|" if "\n" in value else None
    ),
)


class _Quoting(_Before):
    """The same, quoting the strings another reader would misread (transforms.io.quoting)."""


quote_foreign_scalars(_Quoting)


def _before(documents: list[Any], dumper: type = _Before) -> str:
    return yaml.dump_all(
        documents, Dumper=dumper, sort_keys=False, allow_unicode=True, default_flow_style=False
    )


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[key], b[key]) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


@needs_libyaml
@EXAMPLES
@given(st.lists(WRITE_DATA, min_size=1, max_size=3))
def test_libyaml_and_pure_python_write_the_same_text(
    monkeypatch: pytest.MonkeyPatch, documents: list[Any]
) -> None:
    # byte for byte, and as yaml.dump_all writes them (with the resolvers that quote what
    # another reader would misread); what is written reads back as the documents written
    monkeypatch.setattr(safe_yaml, "LIBYAML", True)
    on_libyaml = dump_stream(documents)
    assert on_libyaml == _before(documents, _Quoting)
    monkeypatch.setattr(safe_yaml, "LIBYAML", False)
    assert dump_stream(documents) == on_libyaml
    read = list(yaml.load_all(on_libyaml, Loader=yaml.SafeLoader))
    assert len(read) == len(documents)
    assert all(_same(back, document) for back, document in zip(read, documents, strict=True))


def _manifests() -> list[pathlib.Path]:
    return sorted([*REPO.glob("tests/manifests/**/*.y*ml"), *REPO.glob("examples/*.yaml")])


#: Upstream manifests holding a string that a YAML 1.1 reader (kubectl's) takes for something
#: else, which transforms.io.quoting therefore writes quoted: the file, and why.
QUOTED_UPSTREAM = {
    "llm-inference-service-dp-ep-deepseek-r1-pd-gpu-p-deepep-ht-d-pplx.yaml": (
        "an env value n, written plain upstream, is false to a YAML 1.1 reader"
    ),
}


@pytest.mark.parametrize("path", _manifests(), ids=lambda path: path.name)
def test_manifests_are_written_as_before_on_both_paths(
    monkeypatch: pytest.MonkeyPatch, path: pathlib.Path
) -> None:
    # as yaml.dump_all with the safe dumper wrote them until now (PyYAML's representer and
    # serializer, libyaml's emitter where there is one), on both paths: their strings are
    # strings to every reader, so the quoting of transforms.io.quoting changes nothing
    try:
        documents = load_documents(path.read_text(encoding="utf-8"), str(path))
    except OverlayError:
        pytest.skip("not a manifest (an overlay, with podfold's tags)")
    before = _before(documents)
    if path.name in QUOTED_UPSTREAM:  # and only there does the quoting change the text
        quoted = _before(documents, _Quoting)
        assert quoted != before, QUOTED_UPSTREAM[path.name]
        before = quoted
    for flag in (True, False):
        monkeypatch.setattr(safe_yaml, "LIBYAML", flag)
        assert dump_stream(documents) == before, flag


def test_a_document_that_is_not_plain_is_written_by_the_representer() -> None:
    looped: dict[str, Any] = {"name": "x"}
    looped["self"] = looped
    documents = [looped, {"s": {1, 2}}, {"deep": _nested(120)}]
    text = dump_stream(documents)
    assert "&id001" in text and "*id001" in text  # a map inside itself: an anchor and an alias
    assert "!!set" in text
    assert list(yaml.safe_load_all(text))[1:] == documents[1:]


@pytest.mark.parametrize("libyaml", [True, False])
def test_a_map_given_twice_is_written_twice_as_kubectl_writes_it(
    monkeypatch: pytest.MonkeyPatch, libyaml: bool
) -> None:
    # a manifest's anchor and alias (labels and matchLabels, say) read as one map twice:
    # written out in full each time, no &id001 the input never had
    monkeypatch.setattr(safe_yaml, "LIBYAML", libyaml)
    text = "metadata: {labels: &l {app: web}}\nspec: {selector: {matchLabels: *l}}\n"
    documents = load_documents(text, "<string>")
    assert documents[0]["metadata"]["labels"] is documents[0]["spec"]["selector"]["matchLabels"]
    written = dump_stream(documents)
    assert written == (
        "metadata:\n  labels:\n    app: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n"
    )


def _nested(levels: int) -> Any:
    data: Any = "leaf"
    for _ in range(levels):
        data = [data]
    return data


# ---------------------------------------------------------------- the command line


def _podfold(*args: str, pure: bool, cwd: pathlib.Path) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys\nfrom transforms.io import safe_yaml\n"
        f"safe_yaml.LIBYAML = {not pure}\n"
        "from transforms.cli import main\nmain(sys.argv[1:])\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def test_podfold_apply_prints_the_same_on_both_paths(tmp_path: pathlib.Path) -> None:
    jobs = [
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": f"j-{n}"},
            "spec": {
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "name": "c",
                                "image": "i:1",
                                "args": ["é", "multi\nline\n", "\U0001f600"],
                            }
                        ]
                    }
                }
            },
        }
        for n in range(3)
    ]
    (tmp_path / "jobs.yaml").write_text(yaml.safe_dump_all(jobs), encoding="utf-8")
    (tmp_path / "gpu.yaml").write_text(
        "spec:\n  nodeSelector: {gpu: a100}\n  tolerations: !append-unique [{key: gpu}]\n",
        encoding="utf-8",
    )
    (tmp_path / "bad.yaml").write_text("kind: Job\nspec: [1\n", encoding="utf-8")
    for args in (
        ("apply", "-f", "gpu.yaml", "jobs.yaml"),
        ("apply", "-f", "gpu.yaml", "-o", "json", "jobs.yaml"),
        ("apply", "-f", "gpu.yaml", "bad.yaml"),
    ):
        on_libyaml = _podfold(*args, pure=False, cwd=tmp_path)
        pure = _podfold(*args, pure=True, cwd=tmp_path)
        assert (pure.returncode, pure.stdout, pure.stderr) == (
            on_libyaml.returncode,
            on_libyaml.stdout,
            on_libyaml.stderr,
        ), args
    done = _podfold("apply", "-f", "gpu.yaml", "-o", "json", "jobs.yaml", pure=True, cwd=tmp_path)
    pod = json.loads(done.stdout)["items"][0]["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"gpu": "a100"} and pod["tolerations"] == [{"key": "gpu"}]
    assert (
        "bad.yaml:3:1: "
        in _podfold("apply", "-f", "gpu.yaml", "bad.yaml", pure=True, cwd=tmp_path).stderr
    )


def test_a_local_overlay_is_read_without_fsspec(tmp_path: pathlib.Path) -> None:
    # podfold apply with a local file imports no fsspec (its import costs more than the read)
    (tmp_path / "o.yaml").write_text("metadata: {labels: {a: b}}\n", encoding="utf-8")
    code = (
        "import sys\nfrom transforms.io.loading import load_overlay\n"
        "load_overlay('o.yaml')\nprint('fsspec' in sys.modules)\n"
    )
    outcome = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert outcome.stdout.strip() == "False", outcome.stderr


def test_a_missing_local_overlay_names_its_absolute_path(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # as fsspec named it: the absolute path, "~" expanded
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OverlayError) as caught:
        loading.load_overlay("absent.yaml")
    assert caught.value.source == "absent.yaml"
    assert f"No such file or directory: '{tmp_path / 'absent.yaml'}'" in str(caught.value)
    outcome = within(_missing_home_overlay, str(tmp_path))
    assert outcome.value == f"No such file or directory: '{tmp_path / 'absent.yaml'}'"


def _missing_home_overlay(home: str) -> str:
    os.environ["HOME"] = home  # in the child only
    try:
        loading.load_overlay("~/absent.yaml")
    except OverlayError as err:
        return str(err).split("] ", 1)[1]
    return "read"
