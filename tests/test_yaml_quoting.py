"""Strings podfold writes as YAML come back strings, for every reader kubectl and others use.

PyYAML reads ``1e-4``, ``y`` and ``08`` written plain as strings; kubectl
(go-yaml v2 under ``sigs.k8s.io/yaml``) reads them as a float, a boolean and
a float; YAML 1.2 readers (ruamel.yaml, go-yaml v3) read ``0o17`` and ``1e-4``
as numbers. Each reader's plain-scalar resolution is written out below as an
oracle, from its source or specification, independently of
:mod:`transforms.io.quoting`; every plain scalar podfold writes for a string
must be a string to all of them. kubectl itself, where it is on PATH, reads
``podfold apply``'s output last.
"""

from __future__ import annotations

import datetime
import json
import math
import pathlib
import re
import sys
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from combinators import upsert
from tests import warm
from transforms import Default, dump_overlay, loads_overlay, overlay
from transforms.cli.documents import dump_documents
from transforms.io import safe_yaml
from transforms.io.quoting import quote_foreign_scalars
from transforms.io.streams import CStreamDumper, StreamDumper, dump_stream

from .kubectl import KUBECTL, needs_kubectl, run_kubectl

REPO = pathlib.Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------- the readers, as oracles
# Each returns the kind of value a reader makes of a plain (unquoted, untagged) scalar:
# "str" or another tag's short name.

_INT64 = (-(1 << 63), (1 << 63) - 1)
_UINT64 = (1 << 64) - 1


def _go_underscore_ok(text: str) -> bool:
    # Go's strconv.underscoreOK: "_" only between digits, or between a base prefix and a digit
    saw, index = "^", 0
    if text[:1] in ("-", "+"):
        text = text[1:]
    hexadecimal = False
    if len(text) >= 2 and text[0] == "0" and text[1].lower() in "box":
        index, saw, hexadecimal = 2, "0", text[1].lower() == "x"
    for char in text[index:]:
        if (char.isdigit() and char.isascii()) or (hexadecimal and char.lower() in "abcdef"):
            saw = "0"
        elif char == "_":
            if saw != "0":
                return False
            saw = "_"
        else:
            if saw == "_":
                return False
            saw = "!"
    return saw != "_"


def _go_parse_uint(text: str, base: int) -> int | None:
    # strconv.ParseUint(text, base, 64): no sign; base 0 reads a 0x/0o/0b/0 prefix
    if not text:
        return None
    if base == 0:
        base = 10
        if text[0] == "0":
            if len(text) >= 3 and text[1].lower() in "box":
                base = {"b": 2, "o": 8, "x": 16}[text[1].lower()]
                text = text[2:]
            else:
                base, text = 8, text[1:]
                if not text:
                    return 0
    digits = "0123456789abcdef"[:base]
    if not text or any(char.lower() not in digits for char in text):
        return None
    value = int(text, base)
    return value if value <= _UINT64 else None


def _go_parse_int(text: str, base: int) -> int | None:
    # strconv.ParseInt(text, base, 64): an optional sign, then ParseUint, within int64
    sign = 1
    if text[:1] in ("-", "+"):
        sign, text = (-1 if text[0] == "-" else 1), text[1:]
    magnitude = _go_parse_uint(text, base)
    if magnitude is None:
        return None
    value = sign * magnitude
    return value if _INT64[0] <= value <= _INT64[1] else None


_GO_DECIMAL = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\Z")
_GO_HEX_FLOAT = re.compile(
    r"[-+]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)"
    r"[pP][-+]?[0-9]+\Z"
)


def _go_parse_float(text: str) -> bool:
    # strconv.ParseFloat(text, 64) succeeds (no syntax error, no overflow)
    if re.fullmatch(r"[-+]?(?:inf|infinity|nan)", text, re.IGNORECASE):
        return True
    if "_" in text and not _go_underscore_ok(text):
        return False
    body = text.replace("_", "")
    if _GO_HEX_FLOAT.match(body):
        return True
    return _GO_DECIMAL.match(body) is not None and math.isfinite(float(body))


_GO_TIMESTAMP = re.compile(  # the layouts of go-yaml's allowedTimestampFormats, for time.Parse
    r"(?P<date>[0-9]{4}-[0-9]{1,2}-[0-9]{1,2})"
    r"(?:(?:[Tt](?P<clock>[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:[.,][0-9]+)?)"
    r"(?:Z|[-+][0-9]{2}:[0-9]{2}))"
    r"|(?: [0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:[.,][0-9]+)?))?\Z"
)


def _go_timestamp(text: str) -> bool:
    match = _GO_TIMESTAMP.match(text)
    if match is None:
        return False
    year, month, day = (int(part) for part in match["date"].split("-"))
    try:
        datetime.date(year, month, day)  # time.Parse refuses a day its month lacks
    except ValueError:
        return False
    return True  # (the hours, minutes and seconds are not checked: a little more is quoted)


_GO_V2_MAP = {
    **dict.fromkeys(
        ["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"], "bool"
    ),
    **dict.fromkeys(
        ["n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"], "bool"
    ),
    **dict.fromkeys(["", "~", "null", "Null", "NULL"], "null"),
    **dict.fromkeys(
        [
            ".nan",
            ".NaN",
            ".NAN",
            ".inf",
            ".Inf",
            ".INF",
            "+.inf",
            "+.Inf",
            "+.INF",
            "-.inf",
            "-.Inf",
            "-.INF",
        ],
        "float",
    ),
    "<<": "merge",
}
_GO_V3_MAP = {
    text: kind
    for text, kind in _GO_V2_MAP.items()
    if text
    not in [
        "y",
        "Y",
        "yes",
        "Yes",
        "YES",
        "on",
        "On",
        "ON",
        "n",
        "N",
        "no",
        "No",
        "NO",
        "off",
        "Off",
        "OFF",
    ]
}
_YAML_STYLE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")


def go_yaml(text: str, version: int) -> str:
    """go-yaml's resolve(""), v2 (kubectl, sigs.k8s.io/yaml) or v3, for a plain scalar."""
    hint = text[:1]
    if hint and hint not in "+-0123456789yYnNtTfFoO~.":
        return "str"
    found = (_GO_V2_MAP if version == 2 else _GO_V3_MAP).get(text)
    if found is not None:
        return found
    if hint == ".":
        return "float" if _go_parse_float(text) else "str"
    if hint not in "+-0123456789":
        return "str"
    if _go_timestamp(text):
        return "timestamp"
    plain = text.replace("_", "")
    if _go_parse_int(plain, 0) is not None or _go_parse_uint(plain, 0) is not None:
        return "int"
    if _YAML_STYLE_FLOAT.match(plain) and _go_parse_float(plain):
        return "float"
    prefixes = ("b", "o") if version == 3 else ("b",)
    for letter, base in (("b", 2), ("o", 8)):
        if letter not in prefixes:
            continue
        if plain.startswith("0" + letter):
            if (
                _go_parse_int(plain[2:], base) is not None
                or _go_parse_uint(plain[2:], base) is not None
            ):
                return "int"
        elif plain.startswith("-0" + letter) and _go_parse_int("-" + plain[3:], base) is not None:
            return "int"
    return "str"


_CORE = [  # YAML 1.2.2, 10.3.2: tag resolution of the core schema
    ("null", r"null|Null|NULL|~|"),
    ("bool", r"true|True|TRUE|false|False|FALSE"),
    ("int", r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"),
    (
        "float",
        r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?"
        r"|[-+]?(\.inf|\.Inf|\.INF)|\.nan|\.NaN|\.NAN",
    ),
]
_RUAMEL = [  # ruamel.yaml's resolver for YAML 1.2 (its default)
    ("bool", r"true|True|TRUE|false|False|FALSE", "tTfF"),
    (
        "float",
        r"[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)|\.[0-9_]+(?:[eE][-+][0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)",
        "-+0123456789.",
    ),
    ("int", r"[-+]?0b[0-1_]+|[-+]?0o?[0-7_]+|[-+]?[0-9_]+|[-+]?0x[0-9a-fA-F_]+", "-+0123456789"),
    ("merge", r"<<", "<"),
    ("null", r"~|null|Null|NULL|", "~nN"),
    (
        "timestamp",
        r"[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]"
        r"|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?"
        r":[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?"
        r"(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?",
        "0123456789",
    ),
    ("value", r"=", "="),
]


def yaml_core(text: str) -> str:
    """The YAML 1.2 core schema."""
    for kind, pattern in _CORE:
        if re.fullmatch(pattern, text):
            return kind
    return "str"


def ruamel(text: str) -> str:
    """ruamel.yaml (YAML 1.2): tried by first character, as PyYAML's resolver does."""
    for kind, pattern, first in _RUAMEL:
        if (text[:1] in first if text else kind == "null") and re.fullmatch(pattern, text):
            return kind
    return "str"


_PYYAML = yaml.resolver.Resolver()  # the safe loader's resolver


def pyyaml(text: str) -> str:
    """PyYAML's safe loader (YAML 1.1)."""
    tag: str = _PYYAML.resolve(yaml.ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
    return tag.rsplit(":", 1)[-1]


READERS: dict[str, Callable[[str], str]] = {
    "go-yaml v2 (kubectl)": lambda text: go_yaml(text, 2),
    "go-yaml v3": lambda text: go_yaml(text, 3),
    "YAML 1.2 core": yaml_core,
    "ruamel.yaml": ruamel,
    "PyYAML": pyyaml,
}


def readers_of(text: str) -> dict[str, str]:
    """The readers that would not read the plain ``text`` as a string, and what they read."""
    return {
        name: kind
        for name, kind in ((name, read(text)) for name, read in READERS.items())
        if kind != "str"
    }


@pytest.mark.parametrize(
    ("text", "reader", "kind"),
    [
        ("1e-4", "go-yaml v2 (kubectl)", "float"),
        ("08", "go-yaml v2 (kubectl)", "float"),
        ("y", "go-yaml v2 (kubectl)", "bool"),
        ("0o17", "go-yaml v2 (kubectl)", "int"),
        ("1_000", "go-yaml v2 (kubectl)", "int"),
        ("-.5e3", "go-yaml v2 (kubectl)", "float"),
        ("0b101", "go-yaml v2 (kubectl)", "int"),
        ("2024-1-2", "go-yaml v2 (kubectl)", "timestamp"),
        ("0b+101", "go-yaml v2 (kubectl)", "int"),
        ("y", "go-yaml v3", "str"),
        ("0o17", "go-yaml v3", "int"),
        ("0o17", "YAML 1.2 core", "int"),
        ("08", "YAML 1.2 core", "int"),
        ("1e3", "YAML 1.2 core", "float"),
        ("12:30", "YAML 1.2 core", "str"),
        ("12:30", "PyYAML", "int"),
        ("1e-4", "PyYAML", "str"),
        ("Infinity", "go-yaml v2 (kubectl)", "str"),
        ("1e400", "go-yaml v2 (kubectl)", "str"),
        ("-_", "ruamel.yaml", "int"),
        ("5E-2", "ruamel.yaml", "float"),
    ],
)
def test_the_oracles_read_what_their_readers_read(text: str, reader: str, kind: str) -> None:
    # each oracle agrees with what its reader is documented, or known, to do
    assert READERS[reader](text) == kind


# ---------------------------------------------------------------- what is written

CORPUS = [
    "--lr",
    "1e-4",
    "--wd",
    "5E-2",
    "0o17",
    "y",
    "n",
    "Y",
    "N",
    "08",
    "-.5e3",
    "1.0",
    "true",
    "~",
    "null",
    "",
    "0x1F",
    "1_000",
    "12:30",
    "2024-01-01",
    "2024-1-2",
    "2024-1-2T3:04:05Z",
    "=",
    "<<",
    "+1",
    ".5",
    "-",
    "1e3",
    "Infinity",
    ".inf",
    "-.Inf",
    ".NaN",
    "yes",
    "on",
    "off",
    "0b101",
    "-0b11",
    "0b+101",
    "0o+17",
    "0777",
    "1.",
    "+.5",
    "1_0.5e1_0",
    "0_",
    "-_",
    "._5",
    "1e400",
    "99999999999999999999",
    "0x",
    "1e",
    "e1",
    "name",
    "trainer",
    "a100",
    "3g",
    "1Gi",
    "500m",
    "v1",
    "1.4.2",
    "10.0.0.1",
    "-1-",
    "+inf",
    "nan",
    "0.",
    "-0",
    "00",
    "0_0",
    "1__2",
    ".1_",
    "1e+5",
    "1E5_0",
]
"""Tricky strings: every reader's non-strings, and near misses that are strings to all."""


def _plain_scalars(text: str) -> list[str]:
    """The text of every plain scalar in the YAML ``text`` (tagged or not)."""
    return [
        event.value
        for event in yaml.parse(text)
        if isinstance(event, yaml.ScalarEvent) and event.style is None
    ]


def _misread(text: str) -> dict[str, dict[str, str]]:
    return {value: found for value in _plain_scalars(text) if (found := readers_of(value))}


@pytest.fixture(params=[True, False], ids=["libyaml", "pure-python"])
def libyaml(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    if request.param and not safe_yaml.LIBYAML:
        pytest.skip("PyYAML is built without libyaml here")
    monkeypatch.setattr(safe_yaml, "LIBYAML", request.param)
    return bool(request.param)


def test_the_corpus_is_written_quoted_where_a_reader_would_misread_it(libyaml: bool) -> None:
    documents = [{"args": CORPUS}, {"data": {text: text for text in CORPUS}}]
    text = dump_stream(documents)
    assert _misread(text) == {}
    assert list(yaml.safe_load_all(text)) == documents
    # and these are indeed written quoted (the oracles do misread them plain)
    for value in ("1e-4", "5E-2", "0o17", "y", "n", "08", "-.5e3", "0b+101", "2024-1-2"):
        assert readers_of(value), value
        assert f"- '{value}'\n" in text, value


def test_plain_strings_stay_plain(libyaml: bool) -> None:
    # what every reader reads as a string is written as before: plain
    texts = [text for text in CORPUS if not readers_of(text)]
    assert {"name", "1.4.2", "Infinity", "0x", "1e", "--lr"} <= set(texts)
    written = dump_stream([{"args": texts}])
    assert written == yaml.safe_dump({"args": texts}, sort_keys=False)


def test_non_strings_are_written_as_before(libyaml: bool) -> None:
    data = {
        "i": 8,
        "f": 1e-05,
        "big": 10**30,
        "inf": -math.inf,
        "b": False,
        "z": None,
        "nan": math.nan,
    }
    assert dump_stream([data]) == (
        "i: 8\nf: 1.0e-05\nbig: 1000000000000000000000000000000\n"
        "inf: -.inf\nb: false\nz: null\nnan: .nan\n"
    )


def test_a_configmap_passing_through_keeps_its_strings() -> None:
    configmap = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "train"},
        "data": {"LEARNING_RATE": "1e-4", "USE_AMP": "y", "SEED": "08"},
    }
    text = dump_documents([configmap])
    assert "LEARNING_RATE: '1e-4'\n" in text and "USE_AMP: 'y'\n" in text
    assert "SEED: '08'\n" in text
    assert _misread(text) == {}


def test_dump_overlay_quotes_what_a_reader_would_misread() -> None:
    for transform in (
        upsert("spec.containers[name=trainer].args", CORPUS),
        overlay({"metadata": {"labels": {text or "empty": text for text in CORPUS}}}),
    ):
        text = dump_overlay(transform)
        assert _misread(text) == {}, text
        assert loads_overlay(text, kind=None) == transform


def test_a_marker_s_string_is_quoted_where_a_reader_would_misread_it() -> None:
    for value in ("1e-4", "y", "08", "0o17"):
        transform = overlay({"spec": {"priority": Default(value)}})
        text = dump_overlay(transform)
        assert text == f"spec:\n  priority: !default '{value}'\n"
        assert loads_overlay(text, kind=None) == transform
    assert (
        dump_overlay(overlay({"spec": {"priority": Default(8)}}))
        == "spec:\n  priority: !default 8\n"
    )


def test_pyyaml_s_own_dumpers_are_left_alone() -> None:
    # a user's own yaml.dump is not changed by importing podfold
    assert yaml.safe_dump(["1e-4", "y"]) == "- 1e-4\n- y\n"
    assert yaml.dump(["1e-4", "y"]) == "- 1e-4\n- y\n"
    for dumper in (StreamDumper, CStreamDumper):
        assert dumper.yaml_implicit_resolvers is not yaml.SafeDumper.yaml_implicit_resolvers
    with pytest.raises(ValueError, match="SafeDumper is PyYAML's own class"):
        quote_foreign_scalars(yaml.SafeDumper)


# ---------------------------------------------------------------- properties

# pieces of numbers, booleans and dates, so that near misses are common
PIECES = st.sampled_from(
    [
        *"0123456789",
        "+",
        "-",
        ".",
        "_",
        "e",
        "E",
        "x",
        "o",
        "b",
        "O",
        "B",
        "X",
        "a",
        "f",
        "y",
        "n",
        "Y",
        "N",
        ":",
        "T",
        "Z",
        " ",
        "inf",
        "nan",
        "2024-",
        "1-",
        "0x",
        "0o",
        "0b",
        "~",
        "true",
        "null",
        "é",
    ]
)
TRICKY = st.lists(PIECES, max_size=8).map("".join) | st.sampled_from(CORPUS)
EXAMPLES = settings(max_examples=settings.default.max_examples * 8, deadline=None, database=None)


@EXAMPLES
@given(st.lists(TRICKY, max_size=8), st.dictionaries(TRICKY, TRICKY, max_size=6))
def test_law_every_plain_string_is_a_string_to_every_reader(
    args: list[str], data: dict[str, str]
) -> None:
    # for every string written: plain only where every reader reads it back as a string;
    # PyYAML reads back the very documents written; libyaml and pure Python write the same
    documents = [{"args": args}, {"data": data}]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(safe_yaml, "LIBYAML", False)
        pure = dump_stream(documents)
    assert _misread(pure) == {}
    assert list(yaml.safe_load_all(pure)) == documents
    if safe_yaml.LIBYAML:
        assert dump_stream(documents) == pure
    # with lists indented under their keys (apply -i, in a document written so): the same
    # documents, the same lines but for their indentation
    indented = dump_stream(documents, indented_lists=True)
    assert _misread(indented) == {}
    assert list(yaml.safe_load_all(indented)) == documents
    assert [line.lstrip(" ") for line in indented.splitlines()] == [
        line.lstrip(" ") for line in pure.splitlines()
    ]


@EXAMPLES
@given(
    st.dictionaries(
        st.text(max_size=6) | TRICKY,
        st.text(max_size=12) | TRICKY | st.lists(TRICKY, max_size=3),
        max_size=8,
    )
)
def test_law_random_maps_of_strings_round_trip(data: dict[str, Any]) -> None:
    # load(dump(data)) == data, through the stream writer and through dump_overlay
    text = dump_stream([data])
    assert yaml.safe_load(text) == data
    assert _misread(text) == {}
    written = dump_overlay(upsert("metadata.annotations", data))
    assert loads_overlay(written, kind=None) == upsert("metadata.annotations", data)
    assert _misread(written) == {}


# ---------------------------------------------------------------- kubectl reads it

PODFOLD = pathlib.Path(sys.executable).with_name("podfold")


def _json_objects(text: str) -> list[Any]:
    """The objects kubectl prints one after another."""
    decoder, found, index = json.JSONDecoder(), [], 0
    text = text.strip()
    while index < len(text):
        value, index = decoder.raw_decode(text, index)
        found.append(value)
        index = len(text) - len(text[index:].lstrip())
    return found


@needs_kubectl
def test_kubectl_reads_podfold_apply_s_strings_as_strings(tmp_path: pathlib.Path) -> None:
    args = [
        "--lr",
        "1e-4",
        "--wd",
        "5E-2",
        "0o17",
        "y",
        "n",
        "08",
        "-.5e3",
        "0x1F",
        "1_000",
        ".5",
        "+1",
        "1e3",
        "Y",
        "N",
        "0b101",
        "2024-1-2",
    ]
    data = {"LEARNING_RATE": "1e-4", "USE_AMP": "y", "SEED": "08", "n": "n", "08": "1_000"}
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "train"},
        "spec": {"containers": [{"name": "trainer", "image": "trainer:1", "args": args}]},
    }
    configmap = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "train"},
        "data": data,
    }
    # JSON is YAML: the strings in quotes, as a user would write them
    (tmp_path / "q.yaml").write_text(
        f"{json.dumps(pod)}\n---\n{json.dumps(configmap)}\n", encoding="utf-8"
    )
    applied = warm.run(
        "podfold",
        ["apply", "-f", str(REPO / "examples" / "a100.yaml"), "q.yaml"],
        cwd=tmp_path,
        timeout=120,
    )
    assert applied.returncode == 0, applied.stderr
    read = run_kubectl(
        "patch",
        "--local",
        "-f",
        "-",
        "--type",
        "merge",
        "-p",
        "{}",
        "-o",
        "json",
        input=applied.stdout,
    )
    assert read.returncode == 0, read.stderr
    by_kind = {item["kind"]: item for item in _json_objects(read.stdout)}
    assert by_kind["Pod"]["spec"]["containers"][0]["args"] == args
    assert by_kind["ConfigMap"]["data"] == data
    assert "- '1e-4'\n" in applied.stdout  # quoted, though PyYAML would read it plain


def test_render_quotes_what_kubectl_would_misread(tmp_path: pathlib.Path) -> None:
    # podfold render prints TorchX's yaml.dump of the job, with the same quoting
    env = {"LR": "1e-4", "AMP": "y", "SEED": "08", "MODE": "0o17", "NAME": "trainer"}
    overlay_file = tmp_path / "env.yaml"
    overlay_file.write_text(f"- {json.dumps({'recipe': 'add_env', **env})}\n", encoding="utf-8")
    rendered = warm.run(
        "podfold",
        [
            "render",
            "--queue",
            "default",
            "-f",
            str(overlay_file),
            "examples/trainer.py:trainer",
            "--replicas",
            "1",
        ],
        cwd=REPO,
        timeout=120,
    )
    assert rendered.returncode == 0, rendered.stderr
    for value in env.values():  # (the job's numbers are plain: _misread does not apply)
        assert (
            f"value: '{value}'\n" if readers_of(value) else f"value: {value}\n"
        ) in rendered.stdout, value
    job = yaml.safe_load(rendered.stdout)
    for task in job["spec"]["tasks"]:
        found = {
            item["name"]: item["value"]
            for item in task["template"]["spec"]["containers"][0]["env"]
            if item["name"] in env
        }
        assert found == env
    if KUBECTL is not None:
        read = run_kubectl(
            "patch",
            "--local",
            "-f",
            "-",
            "--type",
            "merge",
            "-p",
            "{}",
            "-o",
            "json",
            input=rendered.stdout,
        )
        assert read.returncode == 0, read.stderr
        for task in json.loads(read.stdout)["spec"]["tasks"]:
            found = {
                item["name"]: item["value"]
                for item in task["template"]["spec"]["containers"][0]["env"]
                if item["name"] in env
            }
            assert found == env
