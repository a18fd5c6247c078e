"""A manifest's plain scalars are read as kubectl reads them: numbers, times, dates, nulls, keys.

kubectl reads YAML with ``sigs.k8s.io/yaml`` (go-yaml v2, then JSON); podfold read
manifests with PyYAML's YAML 1.1 resolvers, and the two differ: ``23:30`` was the
integer 1410 to podfold (base 60) and is the string ``"23:30"`` to kubectl, so
``podfold apply`` wrote ``1410`` where the file meant ``"23:30"`` (in a ConfigMap
with no pod too) and ``podfold validate`` refused it where a string is wanted; ``1e3``,
``0o17`` and ``08`` were strings to podfold and are numbers to kubectl, so apply wrote
``backoffLimit: 1e1`` back as ``'1e1'``. Every expectation here is checked against
kubectl itself where it is on PATH (``kubectl patch --local --type merge -p {} -o
json`` prints what it read), many scalars to a call.
"""

from __future__ import annotations

import decimal
import itertools
import json
import math
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.yaml_paths import yaml_path  # noqa: F401  (the fixture: libyaml, then pure Python)
from transforms.cli.documents import ManifestError, dump_documents, read_documents
from transforms.cli.main import main
from transforms.errors import OverlayError
from transforms.io import safe_yaml
from transforms.io.loading import loads_overlay
from transforms.io.safe_yaml import load_manifest

from .kubectl import needs_kubectl, run_kubectl

_INT64 = (-(1 << 63), (1 << 63) - 1)

# ---------------------------------------------------------------- helpers


def _kubectl(text: str) -> tuple[int, Any]:
    """What kubectl reads a manifest stream as: its exit code and the objects it prints (as
    data), or what it says when it cannot read the stream."""
    with tempfile.TemporaryDirectory() as tmp:
        manifest = Path(tmp) / "m.yaml"
        manifest.write_text(text, encoding="utf-8")
        done = run_kubectl(
            "patch",
            "--local",
            "-f",
            str(manifest),
            "--type",
            "merge",
            "-p",
            "{}",
            "-o",
            "json",
            timeout=120,
        )
    if done.returncode != 0:
        return done.returncode, done.stderr.replace(str(manifest), "m.yaml")
    decoder, objects, index = json.JSONDecoder(), [], 0
    printed = done.stdout.strip()
    while index < len(printed):  # one object after another
        found, index = decoder.raw_decode(printed, index)
        objects.append(found)
        index = len(printed) - len(printed[index:].lstrip())
    return 0, objects


def _kubectl_reads(text: str) -> list[Any]:
    code, read = _kubectl(text)
    assert code == 0, read
    assert isinstance(read, list)
    return read


def _as_kubectl_prints(value: Any) -> Any:
    """``value`` as kubectl prints what it read as it: made JSON (Go writes a float with no
    fraction below 1e21 as its shortest digits and zeros), then Kubernetes' unstructured
    data (a JSON number an int64 where it is one, else a float)."""
    if isinstance(value, dict):
        return {key: _as_kubectl_prints(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_kubectl_prints(item) for item in value]
    if type(value) is int and not _INT64[0] <= value <= _INT64[1]:
        return float(value)
    if type(value) is float and value.is_integer() and abs(value) < 1e21:
        written = int(decimal.Decimal(repr(value)))
        return written if _INT64[0] <= written <= _INT64[1] else value
    return value


def _same(printed: Any, read: Any) -> bool:
    """Whether kubectl's ``printed`` value is podfold's ``read`` one, as kubectl prints it
    (a number kubectl prints past 2**53 is compared as the float it is)."""
    expected = _as_kubectl_prints(read)
    if isinstance(printed, bool) or isinstance(expected, bool):
        return type(printed) is type(expected) and printed == expected
    if isinstance(printed, (int, float)) and isinstance(expected, (int, float)):
        if type(printed) is int and type(expected) is int:
            return printed == expected
        return float(printed) == float(expected)
    return type(printed) is type(expected) and printed == expected


def _is_plain_scalar(text: str) -> bool:
    """Whether ``- text`` is a list of one plain scalar, ``text`` (PyYAML's parser, before
    any resolver: what both readers are then given)."""
    if text != text.strip() or "\t" in text:
        return False
    try:
        events = list(yaml.parse(f"- {text}\n"))
    except yaml.YAMLError:
        return False
    scalars = [event for event in events if isinstance(event, yaml.ScalarEvent)]
    starts = [
        event
        for event in events
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent))
    ]
    return (
        len(scalars) == 1
        and len(starts) == 1
        and scalars[0].value == text
        and scalars[0].style is None
        and scalars[0].tag is None
    )


def _is_plain_key(text: str) -> bool:
    """Whether ``- text: v`` is a list of one map whose key is the plain scalar ``text``."""
    try:
        events = list(yaml.parse(f"- {text}: v\n"))
    except yaml.YAMLError:
        return False
    scalars = [event for event in events if isinstance(event, yaml.ScalarEvent)]
    return (
        len(scalars) == 2
        and scalars[0].value == text
        and scalars[0].style is None
        and scalars[0].tag is None
        and scalars[1].value == "v"
    )


def _configmap(values: list[str], keys: tuple[str, ...] | list[str] = ()) -> str:
    """A ConfigMap whose data holds each text written plain: as a list item, and as the key
    of a map of its own (no two keys in one map: kubectl keeps the last of two that read
    alike, where podfold refuses them)."""
    lines = [
        "apiVersion: v1",
        "kind: ConfigMap",
        "metadata:",
        "  name: scalars",
        "data:",
        "  values:",
    ]
    lines += [f"  - {text}" if text else "  -" for text in values]
    if keys:
        lines.append("  keys:")
        lines += [f"  - {text}: v" for text in keys]
    return "\n".join(lines) + "\n"


def _podfold(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as done:
        main(list(args))
    out, err = capsys.readouterr()
    code = done.value.code
    return code if isinstance(code, int) else 0, out, err


# ---------------------------------------------------------------- what each scalar is

NAN = float("nan")
CASES: list[tuple[str, Any]] = [
    # base 60 is no number to kubectl (YAML 1.1's sexagesimals: PyYAML read 1410, 750, 90.5)
    ("23:30", "23:30"),
    ("12:30", "12:30"),
    ("1:30.5", "1:30.5"),
    ("190:20:30", "190:20:30"),
    ("-1:30", "-1:30"),
    ("12:30:00", "12:30:00"),
    # a float needs no dot, and its exponent no sign (PyYAML: strings)
    ("1e3", 1000.0),
    ("1E3", 1000.0),
    ("1e+3", 1000.0),
    ("6.02e23", 6.02e23),
    ("1.5e3", 1500.0),
    ("0.1e1", 1.0),
    ("1_e3", 1000.0),
    ("12e3_0", 1.2e31),
    ("1e-4", 1e-4),
    ("-1.5e-3", -0.0015),
    (".5e3", 500.0),
    ("1e1", 10.0),
    ("1.0e+1", 10.0),
    # integers as Go's strconv reads them, underscores dropped
    ("0o17", 15),
    ("0O17", 15),
    ("0x1F", 31),
    ("0X1F", 31),
    ("-0x1F", -31),
    ("+0x1F", 31),
    ("0b101", 5),
    ("0B101", 5),
    ("-0b101", -5),
    ("0b+101", 5),
    ("0b-101", -5),
    ("0777", 511),
    ("-0o17", -15),
    ("+12", 12),
    ("1_000", 1000),
    ("-_1", -1),
    ("1_", 1),
    ("0_x1F", 31),
    ("00", 0),
    ("007", 7),
    ("-0", 0),
    ("9223372036854775807", (1 << 63) - 1),
    ("18446744073709551615", (1 << 64) - 1),
    ("-9223372036854775808", -(1 << 63)),
    # a leading zero with digits that are not octal: a decimal float
    ("08", 8.0),
    ("012345678", 12345678.0),
    ("09.5", 9.5),
    # past 64 bits: a decimal a float, anything else a string; a float past the largest too
    ("99999999999999999999", 1e20),
    ("-9223372036854775809", -9223372036854775809.0),
    ("0x1FFFFFFFFFFFFFFFFF", "0x1FFFFFFFFFFFFFFFFF"),
    ("-0xFFFFFFFFFFFFFFFF", "-0xFFFFFFFFFFFFFFFF"),
    ("1e400", "1e400"),
    ("1.0e+400", "1.0e+400"),
    ("1e-400", 0.0),
    ("1" * 5000, "1" * 5000),
    ("0" * 70 + "17", 15),
    ("0x" + "0" * 70 + "1F", 31),
    ("0" * 70 + "8", 8.0),
    ("0b" + "1" * 65, "0b" + "1" * 65),
    # floats led by a dot: strconv.ParseFloat, an underscore only between digits
    (".5", 0.5),
    ("-.5", -0.5),
    ("+.5", 0.5),
    ("1.", 1.0),
    ("1._", 1.0),
    (".5_0", 0.5),
    ("._5", "._5"),
    (".5_", ".5_"),
    (".5e_1", ".5e_1"),
    (".e3", ".e3"),
    ("1_0.5", 10.5),
    ("0.0", 0.0),
    ("-0.0", -0.0),
    # near misses: strings to both
    ("0b", "0b"),
    ("0x", "0x"),
    ("0o", "0o"),
    ("1e", "1e"),
    ("_1", "_1"),
    ("0x1p3", "0x1p3"),
    ("0o-17", "0o-17"),
    ("-0b+101", "-0b+101"),
    ("0B+101", "0B+101"),
    ("1.4.2", "1.4.2"),
    ("10.0.0.1", "10.0.0.1"),
    ("500m", "500m"),
    ("1Gi", "1Gi"),
    ("+", "+"),
    (".", "."),
    ("inf", "inf"),
    ("nan", "nan"),
    ("Infinity", "Infinity"),
    (".iNf", ".iNf"),
    ("+.nan", "+.nan"),
    ("1-2", "1-2"),
    ("0x_", "0x_"),
    # dates and times stay the text they were written as
    ("2024-01-02", "2024-01-02"),
    ("2024-1-2", "2024-1-2"),
    ("2024-01-02T03:04:05Z", "2024-01-02T03:04:05Z"),
    ("2024-01-02 03:04:05", "2024-01-02 03:04:05"),
    # null, and words that are not
    ("~", None),
    ("null", None),
    ("Null", None),
    ("NULL", None),
    ("", None),
    ("nUll", "nUll"),
    ("=", "="),
    ("<<", "<<"),
    # booleans (YAML 1.1's, as kubectl has them)
    ("y", True),
    ("N", False),
    ("yes", True),
    ("Off", False),
    ("true", True),
    ("ya", "ya"),
]
NON_FINITE = [
    (".inf", math.inf),
    ("-.inf", -math.inf),
    ("+.Inf", math.inf),
    (".INF", math.inf),
    (".nan", NAN),
    (".NaN", NAN),
    (".NAN", NAN),
]


def _read_values(text: str) -> list[Any]:
    documents, _ = load_manifest(text, "m.yaml")
    values: list[Any] = documents[0]["data"]["values"]
    return values


@pytest.mark.usefixtures("yaml_path")
def test_each_scalar_is_read_as_kubectl_reads_it() -> None:
    # the value and its type (8.0 is no 8, '1e3' no 1000.0), on libyaml and pure Python
    texts = [text for text, _ in CASES]
    read = _read_values(_configmap(texts))
    wrong = [
        (text, got, wanted)
        for (text, wanted), got in zip(CASES, read, strict=True)
        if type(got) is not type(wanted)
        or got != wanted
        or math.copysign(1, got if isinstance(got, float) else 1)
        != math.copysign(1, wanted if isinstance(wanted, float) else 1)
    ]
    assert wrong == []


@needs_kubectl
def test_the_cases_are_what_kubectl_reads() -> None:
    # the table above is kubectl's reading, not a guess: each value as kubectl prints it
    texts = [text for text, _ in CASES]
    [configmap] = _kubectl_reads(_configmap(texts))
    printed = configmap["data"]["values"]
    wrong = [
        (text, kubectl, wanted)
        for (text, wanted), kubectl in zip(CASES, printed, strict=True)
        if not _same(kubectl, wanted)
    ]
    assert wrong == []


@needs_kubectl
@pytest.mark.parametrize(("text", "value"), NON_FINITE)
def test_an_infinity_or_nan_as_a_value_is_refused_where_it_is_written(
    text: str, value: float
) -> None:
    # kubectl refuses the file (JSON has no such number); podfold read it and validate
    # passed it, apply wrote it back for kubectl to refuse
    manifest = _configmap(["a", text])
    code, said = _kubectl(manifest)
    assert code != 0 and "json: unsupported value" in said
    go = "NaN" if math.isnan(value) else "+Inf" if value > 0 else "-Inf"
    for flag in (True, False):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(safe_yaml, "LIBYAML", flag)
            with pytest.raises(OverlayError) as caught:
                load_manifest(manifest, "m.yaml")
        assert (caught.value.line, caught.value.column) == (8, 5)
        assert caught.value.message == (
            f"{text} is the float {go} to kubectl, which JSON cannot carry: kubectl refuses "
            f"the file (json: unsupported value: {go}); quote it ('{text}') if a string is "
            f"meant"
        )


# every text of up to three characters (and four, of fewer) that numbers, signs, dots,
# underscores, exponents, base prefixes and colons make: each read as kubectl reads it
SHORT = sorted(
    {
        "".join(chars)
        for length in range(1, 4)
        for chars in itertools.product("0178+-._eExXobB:", repeat=length)
    }
    | {"".join(chars) for chars in itertools.product("01+-._eExb:", repeat=4)}
)


@needs_kubectl
def test_every_short_number_like_text_is_read_as_kubectl_reads_it() -> None:
    texts = [text for text in SHORT if _is_plain_scalar(text)]
    assert len(texts) > 10_000
    [configmap] = _kubectl_reads(_configmap(texts))
    printed = configmap["data"]["values"]
    assert len(printed) == len(texts)
    for flag in (True, False):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(safe_yaml, "LIBYAML", flag)
            read = _read_values(_configmap(texts))
        wrong = [
            (text, kubectl, mine)
            for text, kubectl, mine in zip(texts, printed, read, strict=True)
            if not _same(kubectl, mine)
        ]
        assert wrong[:20] == [], flag


@needs_kubectl
@pytest.mark.usefixtures("yaml_path")
def test_every_short_text_written_as_a_string_is_a_string_to_kubectl() -> None:
    # the writer's side: what apply writes for a string holding each text (quoted where
    # kubectl would read a plain one as something else) reads back as that string
    texts = sorted({*SHORT, *(text for text, _ in CASES), *(text for text, _ in NON_FINITE)})
    configmap = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "s"},
        "data": {"values": texts, "keys": [{text: "v"} for text in texts]},
    }
    [read] = _kubectl_reads(dump_documents([configmap]))
    assert read["data"]["values"] == texts
    assert [next(iter(item)) for item in read["data"]["keys"]] == texts


# ---------------------------------------------------------------- keys

KEYS = [
    "23:30",
    "1e3",
    "08",
    "0x1F",
    "0o17",
    "y",
    "true",
    "Off",
    "1.5",
    "1.0",
    "6.02e23",
    "99999999999999999999",
    "-0",
    "2024-01-02",
    "1e400",
    ".inf",
    "-.inf",
    ".nan",
    "1234567.0",
    "0.0001",
    "0.00001",
    "3.14159265358979",
    "123456789.0",
    "1e6",
    "-0.0",
    "100000.0",
    "1e21",
    "0.1",
    "1e300",
    "1e-50",
    "3.4e38",
    "16777217",
    "16777217.0",
    "name",
    "=",
    "9223372036854775807",
]


@pytest.mark.usefixtures("yaml_path")
def test_keys_are_made_text_as_kubectl_makes_them() -> None:
    # JSON's keys are strings: kubectl writes a boolean, an integer or a float key as text
    # (a float as Go's shortest form of it as a 32-bit float)
    documents, _ = load_manifest(_configmap([], KEYS), "m.yaml")
    keys = [next(iter(item)) for item in documents[0]["data"]["keys"]]
    assert keys == [
        "23:30",
        "1000",
        "8",
        "31",
        "15",
        "true",
        "true",
        "false",
        "1.5",
        "1",
        "6.02e+23",
        "1e+20",
        "0",
        "2024-01-02",
        "1e400",
        ".inf",
        "-.inf",
        ".nan",
        "1.234567e+06",
        "0.0001",
        "1e-05",
        "3.1415927",
        "1.2345679e+08",
        "1e+06",
        "-0",
        "100000",
        "1e+21",
        "0.1",
        ".inf",
        "0",
        "3.4e+38",
        "16777217",
        "1.6777216e+07",
        "name",
        "=",
        "9223372036854775807",
    ]


@needs_kubectl
def test_the_keys_are_what_kubectl_makes_of_them() -> None:
    [configmap] = _kubectl_reads(_configmap([], KEYS))
    documents, _ = load_manifest(_configmap([], KEYS), "m.yaml")
    assert configmap["data"]["keys"] == documents[0]["data"]["keys"]


@pytest.mark.usefixtures("yaml_path")
def test_keys_that_read_alike_to_python_but_not_to_kubectl_are_two_keys() -> None:
    # 1 and true were one key (1 == True in Python's dict): refused as a duplicate
    text = "kind: ConfigMap\ndata: {1: a, y: b, 1.5: c}\n"
    assert read_documents(text, "m.yaml") == [
        {"kind": "ConfigMap", "data": {"1": "a", "true": "b", "1.5": "c"}}
    ]


@pytest.mark.usefixtures("yaml_path")
def test_keys_that_kubectl_reads_alike_are_refused_saying_how_each_was_written() -> None:
    with pytest.raises(ManifestError) as caught:
        read_documents("data:\n  0x1F: a\n  31: b\n", "m.yaml")
    assert str(caught.value) == (
        "m.yaml:3:3: duplicate key '31' (first at line 2, column 3, "
        "written '0x1F': both are read as '31')"
    )


@needs_kubectl
@pytest.mark.parametrize(
    ("key", "problem"),
    [
        (
            "~",
            "the key '~' is null to kubectl, which cannot read a null key (unsupported map key "
            "of type: <nil>): quote it ('~') if a string is meant",
        ),
        (
            "null",
            "the key 'null' is null to kubectl, which cannot read a null key (unsupported "
            "map key of type: <nil>): quote it ('null') if a string is meant",
        ),
        (
            "18446744073709551615",
            "the key '18446744073709551615' is an integer past 2**63 - 1, "
            "which kubectl reads as an unsigned one and cannot read as a key (unsupported map key "
            "of type: uint64): quote it ('18446744073709551615') if a string is meant",
        ),
    ],
)
def test_a_key_kubectl_cannot_read_is_refused_where_it_is_written(key: str, problem: str) -> None:
    text = _configmap(["a"], [key])
    code, said = _kubectl(text)
    assert code != 0 and "unsupported map key" in said
    for flag in (True, False):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(safe_yaml, "LIBYAML", flag)
            with pytest.raises(OverlayError) as caught:
                load_manifest(text, "m.yaml")
        assert (caught.value.line, caught.value.column, caught.value.message) == (9, 5, problem)


def test_a_label_whose_key_is_a_number_is_validated_as_the_text_kubectl_sends(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # was an internal error ('int' object has no attribute 'partition')
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {1: a}\n"
        "spec:\n  containers: [{name: c, image: x}]\n"
    )
    code, out, err = _podfold(capsys, "validate", str(manifest))
    assert (code, out) == (0, ""), err


# ---------------------------------------------------------------- explicit tags


@needs_kubectl
@pytest.mark.usefixtures("yaml_path")
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("!!float 1", 1.0),
        ("!!int 0x1F", 31),
        ("!!int 0o17", 15),
        ("!!float 1e3", 1000.0),
        ('!!int "12"', 12),
        ("!!str 12", "12"),
        ("!!float 08", 8.0),
    ],
)
def test_an_explicit_number_tag_reads_its_text_as_kubectl_does(text: str, value: Any) -> None:
    assert _read_values(_configmap([text])) == [value]
    [configmap] = _kubectl_reads(_configmap([text]))
    assert _same(configmap["data"]["values"][0], value)


@needs_kubectl
@pytest.mark.usefixtures("yaml_path")
@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "!!int 23:30",
            "!!int takes an integer, not '23:30': kubectl reads it as a string and refuses the tag",
        ),
        (
            "!!int 1e3",
            "!!int takes an integer, not '1e3': kubectl reads it as the float 1000.0 "
            "and refuses the tag",
        ),
        (
            "!!float 1:30.5",
            "!!float takes a number, not '1:30.5': kubectl reads it as a string "
            "and refuses the tag",
        ),
        (
            "!!float 18446744073709551615",
            "!!float takes a number, not '18446744073709551615': "
            "kubectl reads it as the integer 18446744073709551615 and refuses the tag",
        ),
    ],
)
def test_an_explicit_number_tag_kubectl_refuses_is_refused_in_place(
    text: str, problem: str
) -> None:
    manifest = _configmap(["a", text])
    code, said = _kubectl(manifest)
    assert code != 0 and "cannot decode" in said
    with pytest.raises(OverlayError) as caught:
        load_manifest(manifest, "m.yaml")
    assert (caught.value.line, caught.value.column, caught.value.message) == (8, 5, problem)


def test_overlays_keep_their_reading_but_read_an_equals_sign() -> None:
    # podfold's own format: YAML 1.1's numbers, as documented; `=` was refused ("could not
    # determine a constructor for the tag 'tag:yaml.org,2002:value'"), as in manifests
    transform = loads_overlay("metadata:\n  annotations: {a: =, b: 1e3, c: 23:30}\n", kind=None)
    assert transform({"metadata": {}}) == {
        "metadata": {"annotations": {"a": "=", "b": "1e3", "c": 1410}}
    }


# ---------------------------------------------------------------- apply and validate

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: nightly
  annotations: {backup-window: 23:30}
spec:
  backoffLimit: 1e1
  template:
    metadata:
      annotations: {started: 2024-01-02, window: 12:30}
    spec:
      restartPolicy: Never
      containers:
      - name: backup
        image: busybox
        args: ["--start", 12:30, "--ratio", 1:30.5, "--mode", 0o17, "--seed", 08]
        env: [{name: START_AT, value: 23:30}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: schedule}
data: {START_AT: 23:30, RATIO: 1:30.5, WHEN: 2024-01-02, SCALE: 1e3, RATE: 6.02e23}
"""


@pytest.mark.usefixtures("yaml_path")
def test_apply_writes_each_scalar_as_it_was_read(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # 23:30 came out as 1410, 12:30 as 750, 1:30.5 as 90.5, backoffLimit: 1e1 as '1e1'
    (tmp_path / "file.yaml").write_text(JOB)
    (tmp_path / "gpu.yaml").write_text("spec:\n  nodeSelector: {gpu: a100}\n")
    code, out, err = _podfold(
        capsys, "apply", "-f", str(tmp_path / "gpu.yaml"), str(tmp_path / "file.yaml")
    )
    assert code == 0, err
    job, configmap = yaml.safe_load_all(out)
    assert job["metadata"]["annotations"] == {"backup-window": "23:30"}
    assert job["spec"]["backoffLimit"] == 10.0
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert container["args"] == [
        "--start",
        "12:30",
        "--ratio",
        "1:30.5",
        "--mode",
        15,
        "--seed",
        8.0,
    ]
    assert container["env"] == [{"name": "START_AT", "value": "23:30"}]
    assert configmap["data"] == {
        "START_AT": "23:30",
        "RATIO": "1:30.5",
        "WHEN": "2024-01-02",
        "SCALE": 1000.0,
        "RATE": 6.02e23,
    }
    assert job["spec"]["template"]["metadata"]["annotations"] == {
        "started": "2024-01-02",
        "window": "12:30",
    }
    assert "backoffLimit: 10.0\n" in out and "START_AT: '23:30'\n" in out


@needs_kubectl
def test_apply_s_output_means_to_kubectl_what_its_input_meant(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # but for the overlay's node selector; the ConfigMap, which has no pod, passes through
    # meaning exactly what it meant
    (tmp_path / "file.yaml").write_text(JOB)
    (tmp_path / "gpu.yaml").write_text("spec:\n  nodeSelector: {gpu: a100}\n")
    code, out, err = _podfold(
        capsys, "apply", "-f", str(tmp_path / "gpu.yaml"), str(tmp_path / "file.yaml")
    )
    assert code == 0, err
    job, configmap = _kubectl_reads(JOB)
    job["spec"]["template"]["spec"]["nodeSelector"] = {"gpu": "a100"}
    assert _kubectl_reads(out) == [job, configmap]
    assert job["spec"]["template"]["spec"]["containers"][0]["env"] == [
        {"name": "START_AT", "value": "23:30"}
    ]


def test_validate_passes_what_kubectl_reads_as_strings(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # was: "expected string, found integer 1410" for the env var and the annotation
    manifest = tmp_path / "file.yaml"
    manifest.write_text(JOB.replace(', "--mode", 0o17, "--seed", 08', ""))
    code, out, err = _podfold(capsys, "validate", str(manifest))
    assert (code, out) == (0, ""), err


# ---------------------------------------------------------------- the law, against kubectl

# pieces of numbers, times, dates and words, so that near misses are common
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
        ":",
        "T",
        "Z",
        "inf",
        "nan",
        "Inf",
        "2024-01-",
        "12:30",
        "1e",
        "0x",
        "0o",
        "0b",
        "~",
        "y",
        "n",
        "true",
        "null",
        "train",
        "v1.4",
        "Gi",
        "m",
        "=",
        "<<",
    ]
)
TEXTS = (
    st.lists(PIECES, min_size=1, max_size=6).map("".join)
    | st.sampled_from([text for text, _ in CASES])
).filter(_is_plain_scalar)


@needs_kubectl
@settings(
    max_examples=settings.default.max_examples // 2,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    values=st.lists(TEXTS, min_size=1, max_size=40),
    keys=st.lists(TEXTS.filter(_is_plain_key), max_size=20),
)
def test_law_apply_s_output_means_to_kubectl_what_its_input_meant(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, values: list[str], keys: list[str]
) -> None:
    # kubectl(apply(manifest)) == kubectl(manifest) but for what the overlay changed: for a
    # Job's args and env values (folded) and a ConfigMap's data (passed through); where
    # kubectl refuses the input (an infinity as a value, a null key), podfold refuses it too
    env = "".join(
        f"        - name: V{number}\n          value: {text}\n"
        for number, text in enumerate(values)
    )
    job = (
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n"
        "    spec:\n      restartPolicy: Never\n      containers:\n      - name: c\n"
        "        image: x\n        args:\n"
        + "".join(f"        - {text}\n" for text in values)
        + "        env:\n"
        + env
    )
    text = job + "---\n" + _configmap(values, keys)
    (tmp_path / "in.yaml").write_text(text)
    (tmp_path / "gpu.yaml").write_text("spec:\n  nodeSelector: {gpu: a100}\n")
    code, out, err = _podfold(
        capsys,
        "apply",
        "--no-validate",
        "-f",
        str(tmp_path / "gpu.yaml"),
        str(tmp_path / "in.yaml"),
    )
    kubectl_code, read = _kubectl(text)
    if kubectl_code != 0:
        assert code == 1 and "in.yaml:" in err, (read, err)
        return
    assert code == 0, err
    documents, _ = load_manifest(text, "in.yaml")  # podfold reads what kubectl reads
    assert all(
        _same(printed, mine)
        for printed, mine in zip(
            read[1]["data"]["values"], documents[1]["data"]["values"], strict=True
        )
    )
    read[0]["spec"]["template"]["spec"]["nodeSelector"] = {"gpu": "a100"}
    assert _kubectl_reads(out) == read


@pytest.mark.usefixtures("yaml_path")
def test_what_apply_writes_reads_back_as_what_it_read() -> None:
    # load(dump(documents)) == documents, for every case
    texts = [text for text, _ in CASES]
    documents = read_documents(_configmap(texts, KEYS), "m.yaml")
    again = read_documents(dump_documents(documents), "out.yaml")
    assert json.dumps(again) == json.dumps(documents)
