"""YAML read strictly and within bounds: deep nesting, duplicate keys, tags on a pipeline,
NUL bytes and bad encodings all end in an OverlayError at the exact file, line and column.

The deep inputs run in a child process with a time and a memory budget
(``tests.budget.within``), so a regression fails its test instead of hanging the run.
"""

from __future__ import annotations

import pathlib
import sys
from typing import Any

import pytest
import yaml

from combinators.limits import MAX_DEPTH
from tests.budget import within
from tests.yaml_paths import yaml_path  # noqa: F401  (the fixture: libyaml, then pure Python)
from transforms.errors import OverlayError
from transforms.io import load_overlay, loads_overlay
from transforms.io.safe_yaml import MAX_NODES, StrictLoader, check_graph, load_documents

# every test twice: on libyaml, then on pure Python (tests/yaml_paths.py)
pytestmark = pytest.mark.usefixtures("yaml_path")

DEEP = 10_000


def _where(call: Any, *args: Any) -> tuple[str | None, int | None, int | None, str]:
    """Run ``call`` in a budgeted child; what it raised must be an OverlayError: its place."""
    outcome = within(_place, call, *args, seconds=10, megabytes=512)
    assert outcome.status == "returned", (outcome.status, outcome.error_types, outcome.error_text)
    found: tuple[str | None, int | None, int | None, str] = outcome.value
    return found


def _place(call: Any, *args: Any) -> tuple[str | None, int | None, int | None, str]:
    try:
        call(*args)
    except OverlayError as err:
        return err.source, err.line, err.column, err.message
    raise AssertionError("accepted")


def _manifest(text: str) -> list[Any]:
    return load_documents(text, "jobs.yaml")


# ---------------------------------------------------------------- depth

FLOW = "spec:\n  nodeSelector: " + "[" * DEEP + "]" * DEEP + "\n"
# a block map's text grows with the square of its depth (10,000 levels: 100 MB), so it goes
# twice as deep as the interpreter's recursion limit, past what a recursive reader survives
BLOCK_DEEP = 2 * sys.getrecursionlimit()
BLOCK_MAP = (
    "".join("  " * level + "a:\n" for level in range(BLOCK_DEEP)) + "  " * BLOCK_DEEP + "x\n"
)
BLOCK_SEQ = "- " * DEEP + "x\n"


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        # level 1 is the document's map, 2 spec's, so the 99th "[" opens level 101
        (FLOW, 2, 16 + 98 + 1),
        (BLOCK_MAP, MAX_DEPTH + 1, 2 * MAX_DEPTH + 1),
        (BLOCK_SEQ, 1, 2 * MAX_DEPTH + 1),
    ],
)
@pytest.mark.parametrize("reader", [loads_overlay, _manifest], ids=["overlay", "manifest"])
def test_deep_yaml_is_refused_at_the_documented_depth(
    reader: Any, text: str, line: int, column: int
) -> None:
    _, found_line, found_column, message = _where(reader, text)
    assert (found_line, found_column) == (line, column)
    assert message.startswith(f"nests deeper than {MAX_DEPTH} levels")


def test_deep_yaml_in_an_overlay_file_names_the_file(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text(FLOW)
    assert _where(load_overlay, str(path))[:3] == (str(path), 2, 115)


def test_depth_made_by_aliases_is_counted() -> None:
    # each level of anchors is shallow; what the aliases stand for nests 121 levels
    text = "a: &a " + "[" * 60 + "1" + "]" * 60 + "\nb: " + "[" * 60 + "*a" + "]" * 60 + "\n"
    for reader in (loads_overlay, _manifest):
        _, line, column, message = _where(reader, text)
        # level 1 is the document, 2-61 b's lists, so level 101 is a's 40th "[" (from column 7)
        assert (line, column, message.split(";")[0]) == (
            1,
            7 + 39,
            f"nests deeper than {MAX_DEPTH} levels of maps and lists",
        )


def test_nesting_up_to_the_bound_is_read() -> None:
    # the document's map is level 1; spec's value 2; nodeSelector's lists the rest
    depth = MAX_DEPTH - 2
    text = "spec:\n  x: " + "[" * depth + "]" * depth + "\n"
    [document] = load_documents(text, "ok.yaml")
    value = document["spec"]["x"]
    for _ in range(depth - 1):
        value = value[0]
    assert value == []
    with pytest.raises(OverlayError, match="nests deeper"):
        load_documents(text.replace("[", "[[", 1).replace("]", "]]", 1), "no.yaml")


def test_alias_bombs_stay_refused() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 10) + "]" for n in range(1, 9)]
    text = "\n".join(lines) + "\n"
    for reader in (loads_overlay, _manifest):
        _, line, column, message = _where(reader, text)
        assert (line, column) == (1, 1)
        assert "expands to more than" in message


def test_a_manifest_may_write_out_many_nodes_but_aliases_add_few() -> None:
    # each item writes out seven nodes (a map, two keys, their values, a list's two items):
    # the text holds about 117,000, more than MAX_NODES, and none of them is an alias's
    count = MAX_NODES // 6
    items = "items:\n" + "".join(f"- {{name: n{n}, v: [1, 2]}}\n" for n in range(count))
    assert len(_manifest(items)[0]["items"]) == count


def _fan_out(levels: int, name: str = "a") -> str:
    """An annotations map whose aliases expand to 9 ** ``levels`` scalars and a few lists
    more, in a few hundred bytes."""
    lines = [f"    {name}0: &{name}0 [x, x, x, x, x, x, x, x, x]"]
    lines += [
        f"    {name}{n}: &{name}{n} [" + ", ".join([f"*{name}{n - 1}"] * 9) + "]"
        for n in range(1, levels + 1)
    ]
    return "metadata:\n  annotations:\n" + "\n".join(lines) + "\n"


def test_the_node_bound_is_the_whole_files() -> None:
    # one document of about 75,000 nodes is within the bound; twenty of them, in a file of
    # 6 KB, are not: the documents count together, for an overlay as for a manifest
    one = _fan_out(4)
    size = check_graph(yaml.compose(one))
    assert 70_000 < size < MAX_NODES
    assert loads_overlay(one) is not None and len(_manifest(one)) == 1
    text = "---\n".join([one] * 20)
    assert len(text) < 8_000
    for reader in (loads_overlay, _manifest):
        _, line, column, message = _where(reader, text)
        assert (line, column) == (one.count("\n") + 2, 1), reader  # the second document
        assert message.startswith(
            f"with the documents before it, the stream expands to more than {MAX_NODES} nodes"
        ), message


def test_load_documents_bounds_the_whole_stream_when_asked() -> None:
    # ten plain documents of 21 nodes: 210 in all
    text = "---\n".join(["spec: {" + ", ".join(f"k{n}: v" for n in range(9)) + "}\n"] * 10)
    assert len(load_documents(text, "m.yaml", max_nodes=210)) == 10
    with pytest.raises(OverlayError, match="the stream expands to more than 209 nodes") as caught:
        load_documents(text, "m.yaml", max_nodes=209)
    assert caught.value.line == 1 + 9 * 2  # the tenth document


# ---------------------------------------------------------------- duplicate keys

DUPLICATES = [
    ("spec:\n  nodeSelector:\n    gpu: a100\n    zone: x\n    gpu: h100\n", 5, 5, "'gpu'", 3, 5),
    ("- op: upsert\n  path: spec.x\n  op: remove_at\n", 3, 3, "'op'", 1, 3),
    ("spec: {a: 1, 'a': 2}\n", 1, 14, "'a'", 1, 8),
    ("spec: 1\nmetadata: {}\nspec: 2\n", 3, 1, "'spec'", 1, 1),
]


@pytest.mark.parametrize(
    ("text", "line", "column", "key", "first_line", "first_column"), DUPLICATES
)
@pytest.mark.parametrize("reader", [loads_overlay, _manifest], ids=["overlay", "manifest"])
def test_duplicate_keys_name_both_places(
    reader: Any, text: str, line: int, column: int, key: str, first_line: int, first_column: int
) -> None:
    with pytest.raises(OverlayError) as caught:
        reader(text)
    assert (caught.value.line, caught.value.column) == (line, column)
    assert caught.value.message == (
        f"duplicate key {key} (first at line {first_line}, column {first_column})"
    )


def test_keys_equal_once_read_are_duplicates_too() -> None:
    # 1 and 1.0 would be one key of the dict: the second would silently win
    with pytest.raises(OverlayError, match=r"duplicate key 1\.0 \(first at line 1, column 2\)"):
        _manifest("{1: a, 1.0: b}")


def test_a_merge_key_may_be_overridden() -> None:
    # YAML's merge keys (<<) are defaults the map's own keys override, as kubectl reads them
    [document] = _manifest("base: &b {a: 1, c: 3}\nspec:\n  <<: *b\n  a: 2\n")
    assert document["spec"] == {"a": 2, "c": 3}


MERGED_TAGS = [
    "!nonsense",
    "!replace",
    "!!python/object/apply:os.system",
    "!<tag:yaml.org,2002:python/object/new:dict>",
]


@pytest.mark.parametrize("tag", MERGED_TAGS)
@pytest.mark.parametrize("form", ["map", "list", "tagged list"])
@pytest.mark.parametrize("reader", [loads_overlay, _manifest], ids=["overlay", "manifest"])
def test_a_tag_on_what_a_merge_key_merges_is_refused(reader: Any, tag: str, form: str) -> None:
    # PyYAML merges the map's keys and drops its tag unread: hostIPC was set, exit 0
    value = {
        "map": f"{tag} {{hostIPC: true}}",
        "list": f"[{tag} {{hostIPC: true}}]",
        "tagged list": f"{tag} [{{hostIPC: true}}]",
    }[form]
    text = f"spec:\n  <<: {value}\n"
    with pytest.raises(OverlayError) as caught:
        reader(text)
    err = caught.value
    shown = tag.removeprefix("!<").removesuffix(">").replace("!!", "tag:yaml.org,2002:")
    what = "list" if form == "tagged list" else "map"
    assert (err.line, err.column) == (2, 7 + (form == "list"))
    assert err.message.startswith(
        f"the tag {shown!r} on a {what} a merge key ('<<') merges is refused"
    ), err.message


def test_a_tag_reached_through_an_alias_is_refused_where_it_is_merged() -> None:
    # the anchor is defined inside a merge, so the tagged map is only ever merged
    text = "kind: Pod\nbase: {<<: &b !!map {hostIPC: true}}\nspec: {<<: *b}\n"
    assert _manifest(text)[0]["spec"] == {"hostIPC": True}
    with pytest.raises(OverlayError, match="the tag '!frob' on a map a merge key") as caught:
        _manifest(text.replace("!!map", "!frob"))
    assert (caught.value.line, caught.value.column) == (2, 12)  # the anchored map


@pytest.mark.parametrize("reader", [loads_overlay, _manifest], ids=["overlay", "manifest"])
def test_a_merge_with_yaml_own_tags_is_read(reader: Any) -> None:
    text = "spec:\n  <<: !!map {hostname: h}\n  subdomain: s\n"
    empty: dict[str, Any] = {}
    read = reader(text)
    spec = read(empty)["spec"] if reader is loads_overlay else read[0]["spec"]
    assert spec == {"hostname": "h", "subdomain": "s"}
    text = "spec:\n  <<: !!seq [!!map {hostname: h}]\n"
    read = reader(text)
    spec = read(empty)["spec"] if reader is loads_overlay else read[0]["spec"]
    assert spec == {"hostname": "h"}


def test_the_strict_loader_refuses_duplicates_with_pyyaml_marks() -> None:
    with pytest.raises(yaml.constructor.ConstructorError) as caught:
        yaml.load("a: 1\nb: {c: 1, c: 2}\n", Loader=StrictLoader)
    assert caught.value.problem_mark is not None
    assert (caught.value.problem_mark.line, caught.value.problem_mark.column) == (1, 10)


# ---------------------------------------------------------------- tags on a pipeline


@pytest.mark.parametrize(
    ("text", "line", "column", "tag", "hint"),
    [
        (
            "!!python/object/apply:os.system\n- echo hi\n",
            1,
            1,
            "'tag:yaml.org,2002:python/object/apply:os.system'",
            "Python object tags are never run",
        ),
        ("--- !foo\n- op: upsert\n  path: spec.x\n  value: 1\n", 1, 5, "'!foo'", "podfold's tags:"),
        (
            "!replace\n- op: upsert\n  path: spec.x\n  value: 1\n",
            1,
            1,
            "'!replace'",
            "inside a partial pod",
        ),
    ],
)
def test_a_tag_on_a_pipeline_is_checked(
    text: str, line: int, column: int, tag: str, hint: str
) -> None:
    with pytest.raises(OverlayError) as caught:
        loads_overlay(text)
    assert (caught.value.line, caught.value.column) == (line, column)
    assert f"takes no tag, found {tag}" in caught.value.message
    assert hint in caught.value.message


def test_an_untagged_or_seq_tagged_pipeline_is_read() -> None:
    pod: dict[str, Any] = {}
    for text in (
        "- op: upsert\n  path: spec.hostname\n  value: h\n",
        "!!seq\n- op: upsert\n  path: spec.hostname\n  value: h\n",
    ):
        assert loads_overlay(text)(pod) == {"spec": {"hostname": "h"}}


# ---------------------------------------------------------------- encoding


@pytest.mark.parametrize(
    ("text", "line", "column", "char"),
    [
        ("spec:\n  nodeSelector: {a: b\x00}\n", 2, 22, "#x0000"),
        ("spec:\r\n  x: \ud800\n", 2, 6, "#xd800"),
        ("a: 1\rb: \x07\n", 2, 4, "#x0007"),
    ],
)
@pytest.mark.parametrize("reader", [loads_overlay, _manifest], ids=["overlay", "manifest"])
def test_characters_yaml_cannot_carry_are_placed(
    reader: Any, text: str, line: int, column: int, char: str
) -> None:
    with pytest.raises(OverlayError) as caught:
        reader(text)
    assert (caught.value.line, caught.value.column) == (line, column)
    assert char in caught.value.message


def test_a_nul_byte_in_a_file_names_the_file(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "nul.yaml"
    path.write_bytes(b"spec:\n  nodeSelector:\n    gpu: a1\x0000\n")
    with pytest.raises(OverlayError) as caught:
        load_overlay(path)
    assert (caught.value.source, caught.value.line, caught.value.column) == (str(path), 3, 12)


def test_a_file_that_is_not_utf8_names_the_place(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"metadata:\n  labels: {owner: " + "José".encode("latin-1") + b"}\n")
    with pytest.raises(OverlayError) as caught:
        load_overlay(path)
    err = caught.value
    assert (err.source, err.line, err.column) == (str(path), 2, 22)
    assert "not UTF-8: byte 0xe9" in err.message


def test_utf8_with_a_byte_order_mark_is_read(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbfmetadata:\n  labels: {owner: " + "José".encode() + b"}\n")
    empty: dict[str, Any] = {}
    assert load_overlay(path)(empty)["metadata"]["labels"] == {"owner": "José"}


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("spec: &s {nodeSelector: *s}\n", 1, 7),
        ("spec:\n  tolerations: &t [*t]\n", 2, 16),
    ],
)
@pytest.mark.parametrize("reader", [loads_overlay, _manifest], ids=["overlay", "manifest"])
def test_an_alias_inside_its_own_anchor_is_a_cycle(
    reader: Any, text: str, line: int, column: int
) -> None:
    _, found_line, found_column, message = _where(reader, text)
    assert (found_line, found_column) == (line, column)
    assert "(a cycle)" in message


# ---------------------------------------------------------------- only what JSON carries


@pytest.mark.parametrize(
    ("text", "column", "tag"),
    [
        ("metadata:\n  labels: {team: !!binary bWw=}\n", 18, "!!binary"),
        ("metadata:\n  finalizers: !!set {a, b}\n", 15, "!!set"),
        ("metadata:\n  finalizers: !!omap [a: 1]\n", 15, "!!omap"),
        ("metadata:\n  finalizers: !!pairs [a: 1]\n", 15, "!!pairs"),
    ],
)
@pytest.mark.parametrize("reader", [loads_overlay, _manifest], ids=["overlay", "manifest"])
def test_tags_json_cannot_carry_are_refused_in_place(
    reader: Any, text: str, column: int, tag: str
) -> None:
    with pytest.raises(OverlayError) as caught:
        reader(text)
    assert (caught.value.line, caught.value.column) == (2, column)
    assert caught.value.message.startswith(f"{tag} makes a Python ")


@pytest.mark.parametrize(
    "text",
    [
        "metadata:\n  annotations: {built: 2024-01-02}\n",
        "metadata:\n  annotations: {built: !!timestamp 2024-01-02}\n",
    ],
)
def test_dates_stay_the_text_written(text: str) -> None:
    # Kubernetes reads YAML as JSON, where 2024-01-02 is text
    empty: dict[str, Any] = {}
    assert loads_overlay(text)(empty)["metadata"]["annotations"] == {"built": "2024-01-02"}
    assert _manifest(text)[0]["metadata"]["annotations"] == {"built": "2024-01-02"}
