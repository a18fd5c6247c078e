"""The splicing engine: a fold's changes written into a stream's own text, the rest kept.

Laws, with hypothesis, on documents written in random styles (block and flow, quoted
and plain, comments and blank lines) and random overlays:

* splicing a document's fold gives text that reads back as the folded document;
* splicing a document that did not change gives the very same text.

And the edits each kind of change makes, line by line, on small manifests.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from combinators import TransformError
from tests.doc_strategies import json_docs, plain_transforms_for
from transforms.errors import OverlayError
from transforms.io.safe_yaml import load_manifest
from transforms.io.splicing import Composed, SpliceError, splice
from transforms.io.streams import dump_stream


def _scalar(draw: st.DrawFn, value: Any) -> str:
    written = dump_stream([{"k": value}], width=2**30)[3:].rstrip("\n")
    if isinstance(value, str) and "\n" not in written:
        style = draw(st.sampled_from(("plain", "single", "double")))
        if style == "double" and not any(0x7F <= ord(c) <= 0x9F for c in value):
            return json.dumps(value, ensure_ascii=False)
        if style == "single" and not written.startswith('"') and "\n" not in value:
            return "'" + value.replace("'", "''") + "'"
    return written


def _key(value: str) -> str:
    return dump_stream([{value: 0}], width=2**30).rsplit(":", 1)[0]


def _comment(draw: st.DrawFn) -> str:
    return (
        "  # " + draw(st.sampled_from(("why", "a: b", "- x", "'q'"))) if draw(st.booleans()) else ""
    )


def _block(draw: st.DrawFn, value: Any, indent: int) -> list[str]:
    """Lines writing ``value`` as the content of a block collection at ``indent``."""
    pad = " " * indent
    lines: list[str] = []
    if draw(st.integers(0, 4)) == 0:
        lines.append(pad + "# a comment line")
    if draw(st.integers(0, 5)) == 0:
        lines.append("")
    if isinstance(value, dict):
        for key, item in value.items():
            lines.extend(_entry(draw, pad + _key(key) + ":", item, indent, indent + 2))
    else:
        for item in value:
            lines.extend(_entry(draw, pad + "-", item, indent, indent + 2))
    return lines


def _entry(draw: st.DrawFn, head: str, value: Any, indent: int, inner: int) -> list[str]:
    if isinstance(value, (dict, list)) and value and draw(st.booleans()):
        nested = inner
        if head.endswith(":") and isinstance(value, list) and draw(st.booleans()):
            nested = indent  # a list at its key's indentation, as kubectl writes it
        return [head + _comment(draw), *_block(draw, value, nested)]
    if isinstance(value, (dict, list)):
        return [head + " " + json.dumps(value, ensure_ascii=False) + _comment(draw)]
    if isinstance(value, str) and "\n" in value and draw(st.booleans()):
        written = dump_stream([{"k": value}])[2:]
        body = written.splitlines()
        return [head + body[0] + _comment(draw)] + [
            (" " * (inner - 2) + line if line else line) for line in body[1:]
        ]
    return [head + " " + _scalar(draw, value) + _comment(draw)]


@st.composite
def written_docs(draw: st.DrawFn) -> tuple[str, Any]:
    """A document and a text of it in random styles, read back as it is."""
    block = draw(st.integers(0, 5)) > 0
    doc = draw(json_docs())
    if doc and block:
        lines = _block(draw, doc, 0)
    else:
        lines = [json.dumps(doc, ensure_ascii=False)]
    text = "\n".join(["# leading comment", "---", *lines, "# trailing", ""])
    try:
        read, _ = load_manifest(text, "m.yaml")
    except Exception:
        assume(False)
    assume(len(read) == 1 and read[0] == doc)
    return text, read[0]


OTHER = "kind: ConfigMap  # left as it is\ndata: {x: '1'}\n"


def _with_others(draw: st.DrawFn, text: str) -> tuple[str, int, int]:
    """``text`` among documents that do not change: the text, how many come before it
    and how many after."""
    before, after = draw(st.integers(0, 2)), draw(st.integers(0, 2))
    parts = [OTHER] * before + [text] + [OTHER] * after
    return "---\n".join(parts), before, after


def _indented(text: str) -> str:
    """``text`` (see :func:`written_docs`) with its document indented as a whole."""
    head, marker, body = text.partition("---\n")
    return (
        head
        + marker
        + "".join("  " + line if line.strip() else line for line in body.splitlines(True))
    )


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.data())
def test_spliced_text_reads_back_as_the_fold(data: st.DataObject) -> None:
    # load(splice(text, [(doc, f(doc))])) == [f(doc)], and the same text where the nodes
    # are those its reader composed: splice(.., composed=kept) == splice(..)
    text, doc = data.draw(written_docs())
    if data.draw(st.booleans()):  # a document indented as a whole reads as it did
        text = _indented(text)
        try:
            assume(load_manifest(text, "m.yaml")[0] == [doc])
        except OverlayError:
            assume(False)
    transform = data.draw(plain_transforms_for(doc))
    try:
        after = transform(doc)
    except TransformError:
        assume(False)
    assume(isinstance(after, dict))
    stream, ahead, behind = _with_others(data.draw, text)
    other = load_manifest(OTHER, "o.yaml")[0][0]
    pairs = [(other, other)] * ahead + [(doc, after)] + [(other, other)] * behind
    try:
        spliced = splice(stream, pairs, "m.yaml")
    except SpliceError as err:
        pytest.fail(f"{err}\n{stream}\n{doc}\n->{after}")
    assert load_manifest(spliced, "m.yaml")[0] == [pair[1] for pair in pairs]
    assert spliced.count(OTHER) == ahead + behind
    nodes: list[Any] = []
    load_manifest(stream, "m.yaml", nodes)
    kept = Composed.of(stream, nodes)
    if kept is not None:  # None where a key is written "=" (no plain document): composed anew
        assert splice(stream, pairs, "m.yaml", composed=kept) == spliced


@given(written_docs())
def test_unchanged_document_keeps_the_very_text(written: tuple[str, Any]) -> None:
    # splice(text, [(doc, doc)]) is text
    text, doc = written
    assert splice(text, [(doc, doc)], "m.yaml") is text
    assert splice(text, [(doc, json.loads(json.dumps(doc)))], "m.yaml") is text


def _lines_changed(text: str, spliced: str) -> tuple[list[str], list[str]]:
    """The lines a diff of the two texts removes and adds."""
    removed: list[str] = []
    added: list[str] = []
    for line in difflib.unified_diff(text.splitlines(), spliced.splitlines(), lineterm="", n=0):
        if line.startswith(("---", "+++", "@@")):
            continue
        (removed if line.startswith("-") else added).append(line[1:])
    return removed, added


def _fold(text: str, *steps: Any, last: tuple[Any, ...] = ()) -> str:
    """``text`` with ``steps`` folded over its first document, ``last`` over its last."""
    from combinators import chain

    documents, _ = load_manifest(text, "m.yaml")
    afters = list(documents)
    afters[0] = chain(*steps)(afters[0])
    afters[-1] = chain(*last)(afters[-1])
    return splice(text, list(zip(documents, afters, strict=True)), "m.yaml")


MANIFEST = """\
# the job's pod: keep this comment
apiVersion: batch/v1
kind: Job   # a Job
metadata:
  name: 'pi'
  labels: {team: ml, tier: "gold"}
spec:
  template:
    spec:

      containers:
      - name: pi  # the only one
        image: "perl:5"
        args:
        - |
          echo 1
          echo 2
        env:
        - name: A
          value: 'x'
      restartPolicy: Never
---
# a document of comments only
---
kind: ConfigMap
data: {a: '1'}
"""


def test_a_document_indented_as_a_whole_is_edited_and_read_back_as_it_is() -> None:
    # its text is read back from its line's start: "a: 2\n  b: 2" alone would not read
    text = "---\n  a: 1  # one\n  b: 2\n---\n  c: 3\n"
    pairs = [({"a": 1, "b": 2}, {"a": 2, "b": 2}), ({"c": 3}, {"c": 3})]
    assert splice(text, pairs, "m.yaml") == "---\n  a: 2  # one\n  b: 2\n---\n  c: 3\n"


def test_a_value_below_a_nested_explicit_key_keeps_its_colon_in_place() -> None:
    # the key '? |' ends at the start of the ':' line: the new value is written after the ':'
    text = "spec:\n  ? |\n    k\n  : null  # why\n  # trailing\n"
    before = {"spec": {"k\n": None}}
    spliced = splice(text, [(before, {"spec": {"k\n": [1]}})], "m.yaml")
    assert spliced == "spec:\n  ? |\n    k\n  :  # why\n  - 1\n  # trailing\n"


def test_the_nodes_its_reader_kept_splice_as_the_text_composed_again() -> None:
    from combinators import compose, upsert
    from transforms.io.splicing import splice_part

    overlay = compose(upsert("spec.template.spec.hostIPC", True), upsert("metadata.name", "p"))
    for text in (MANIFEST, "\ufeff" + MANIFEST, MANIFEST.replace("\n", "\r\n")):
        nodes: list[Any] = []
        documents, _ = load_manifest(text, "m.yaml", nodes)
        kept = Composed.of(text, nodes)
        assert kept is not None and len(kept.nodes) == len(documents) == 2
        pairs = [(documents[0], overlay(documents[0])), (documents[1], documents[1])]
        whole = splice(text, pairs, "m.yaml")
        assert whole != text and splice(text, pairs, "m.yaml", composed=kept) == whole
        cut = text.index("---")  # the parts, each with the nodes of its own documents
        first = splice_part(text[:cut], pairs, "m.yaml", composed=kept.part(0))
        last = splice_part(text[cut:], pairs, "m.yaml", last=True, composed=kept.part(cut))
        assert (first[1], last[1]) == (1, 1)
        assert first[0] + last[0] == whole


def test_a_document_its_reader_built_otherwise_keeps_no_node() -> None:
    # a merge key ('<<') is built by the constructor, which rewrites the nodes it merges
    text = "a: &x {k: 1}\nb:\n  <<: *x\n---\nc: 1\n"
    nodes: list[Any] = []
    load_manifest(text, "m.yaml", nodes)
    assert nodes[0] is None and nodes[1] is not None
    assert Composed.of(text, nodes) is None


def test_a_changed_scalar_is_one_line_in_its_quoting_style() -> None:
    from combinators import upsert

    spliced = _fold(
        MANIFEST,
        upsert("metadata.name", "pi2"),
        upsert("spec.template.spec.containers[name=pi].image", "perl:6"),
        upsert("metadata.labels.tier", "silver"),
    )
    removed, added = _lines_changed(MANIFEST, spliced)
    assert removed == [
        "  name: 'pi'",
        '  labels: {team: ml, tier: "gold"}',
        '        image: "perl:5"',
    ]
    assert added == [
        "  name: 'pi2'",
        '  labels: {team: ml, tier: "silver"}',
        '        image: "perl:6"',
    ]


def test_new_keys_and_elements_go_where_they_belong_written_as_apply_writes() -> None:
    from combinators import append_at, upsert

    spliced = _fold(
        MANIFEST,
        upsert("spec.template.spec.nodeSelector", {"gpu": "a100"}),
        append_at("spec.template.spec.containers[name=pi].env", {"name": "B", "value": "y"}),
        last=(upsert("data.b", "2"),),
    )
    removed, added = _lines_changed(MANIFEST, spliced)
    assert removed == ["data: {a: '1'}"]
    assert added == [
        "        - name: B",
        "          value: 'y'",
        "      nodeSelector:",
        "        gpu: a100",
        'data: {a: \'1\', "b": "2"}',
    ]
    assert spliced.count("#") == MANIFEST.count("#")
    assert "        - |\n          echo 1\n          echo 2\n" in spliced


HELM_STYLE = """\
spec:
  template:
    spec:
      containers:  # the lists are indented under their keys, as helm create writes them
        - name: web
          image: nginx
          ports:
            - containerPort: 80
"""


def test_new_lists_are_indented_under_their_keys_where_the_document_indents_its_own() -> None:
    from combinators import append_at, upsert

    new = {"name": "side", "image": "busybox", "args": ["a", "b"]}
    overlays = (
        append_at("spec.template.spec.containers", new),
        upsert("spec.template.spec.containers[name=web].env", [{"name": "A", "value": "1"}]),
        upsert("spec.template.spec.tolerations", [{"key": "gpu", "operator": "Exists"}]),
    )
    removed, added = _lines_changed(HELM_STYLE, _fold(HELM_STYLE, *overlays))
    assert removed == []
    assert added == [
        "          env:",
        "            - name: A",
        "              value: '1'",
        "        - name: side",
        "          image: busybox",
        "          args:",
        "            - a",
        "            - b",
        "      tolerations:",
        "        - key: gpu",
        "          operator: Exists",
    ]
    # the same document written as kubectl writes lists, at their keys' indentation, gets
    # its new lists so
    kubectl_style = """\
spec:
  template:
    spec:
      containers:
      - name: web
        image: nginx
        ports:
        - containerPort: 80
"""
    assert load_manifest(kubectl_style, "m.yaml")[0] == load_manifest(HELM_STYLE, "m.yaml")[0]
    removed, added = _lines_changed(kubectl_style, _fold(kubectl_style, *overlays))
    assert removed == []
    assert added == [
        "        env:",
        "        - name: A",
        "          value: '1'",
        "      - name: side",
        "        image: busybox",
        "        args:",
        "        - a",
        "        - b",
        "      tolerations:",
        "      - key: gpu",
        "        operator: Exists",
    ]


def test_the_list_style_is_the_one_the_document_writes_most() -> None:
    from combinators import upsert

    # two lists indented under their keys, one at its key's: indented, as most are
    text = HELM_STYLE + "      volumes:\n      - name: v\n        emptyDir: {}\n"
    assert _lines_changed(
        text, _fold(text, upsert("spec.template.spec.tolerations", [{"key": "gpu"}]))
    ) == ([], ["      tolerations:", "        - key: gpu"])
    # no list to go by: as podfold writes them
    text = "spec:\n  template:\n    spec:\n      hostIPC: true\n"
    assert _lines_changed(
        text, _fold(text, upsert("spec.template.spec.tolerations", [{"key": "gpu"}]))
    ) == ([], ["      tolerations:", "      - key: gpu"])


REORDERED = """\
spec:
  containers:
  # above the list: stays here
  - name: a   # first
    image: a:1
    # b's own comment
  - name: b
    image: b:1

  # c is the sidecar
  - name: c
    image: c:1  # pinned
  # after the list
  restartPolicy: Never
"""


def _reordered(text: str, order: list[int], **changed: Any) -> str:
    documents, _ = load_manifest(text, "m.yaml")
    before = documents[0]
    containers = [dict(before["spec"]["containers"][index]) for index in order]
    for name, image in changed.items():
        next(item for item in containers if item["name"] == name)["image"] = image
    after = {**before, "spec": {**before["spec"], "containers": containers}}
    return splice(text, [(before, after)], "m.yaml")


def test_a_reordered_list_moves_its_elements_lines_with_their_comments() -> None:
    assert _reordered(REORDERED, [2, 0, 1]) == (
        "spec:\n  containers:\n  # above the list: stays here\n"
        "\n  # c is the sidecar\n  - name: c\n    image: c:1  # pinned\n"
        "  - name: a   # first\n    image: a:1\n"
        "    # b's own comment\n  - name: b\n    image: b:1\n"
        "  # after the list\n  restartPolicy: Never\n"
    )
    crlf = REORDERED.replace("\n", "\r\n")
    assert _reordered(crlf, [2, 0, 1]) == _reordered(REORDERED, [2, 0, 1]).replace("\n", "\r\n")
    assert _reordered(REORDERED, [0, 1, 2]) is REORDERED


def test_a_reordered_list_that_changed_too_is_written_anew() -> None:
    # an element changed as well, an anchor in the list, the file ending on the list's
    # last line: the list is written whole, as apply writes it (its comments with it)
    for text, changed in (
        (REORDERED, {"a": "a:2"}),
        (REORDERED.replace("image: b:1", "image: &b b:1"), {}),
        (REORDERED.split("  # after the list")[0].rstrip("\n"), {}),
    ):
        spliced = _reordered(text, [2, 0, 1], **changed)
        assert "# c is the sidecar" not in spliced and "# b's own comment" not in spliced
        assert "  - name: c\n    image: c:1\n  - name: a\n" in spliced


def test_removed_entries_are_cut_with_their_lines() -> None:
    from combinators import remove_at

    spliced = _fold(MANIFEST, remove_at("spec.template.spec.containers[name=pi].args"))
    removed, added = _lines_changed(MANIFEST, spliced)
    assert removed == ["        args:", "        - |", "          echo 1", "          echo 2"]
    assert added == []
    emptied = _fold(MANIFEST, remove_at("spec.template.spec.containers[name=pi].env[name=A]"))
    assert _lines_changed(MANIFEST, emptied) == (
        ["        env:", "        - name: A", "          value: 'x'"],
        ["        env: []"],
    )


def test_unchanged_text_crlf_and_byte_order_mark_are_kept() -> None:
    from combinators import upsert

    crlf = "\ufeffkind: Pod\r\nspec:\r\n  a: 1  # one\r\n"
    spliced = _fold(crlf, upsert("spec.b", 2), upsert("spec.a", 3))
    assert spliced == "\ufeffkind: Pod\r\nspec:\r\n  a: 3  # one\r\n  b: 2\r\n"
    assert _fold(MANIFEST) is MANIFEST


@pytest.mark.parametrize(
    ("text", "step", "message"),
    [
        (
            "kind: Pod\nbase: &base {a: 1}\nspec: *base\n",
            ("spec.a", 2),
            "m.yaml:3:1: cannot edit in place: document 1: spec is an alias (*): what it "
            "stands for is written elsewhere",
        ),
        (
            "kind: Pod\nbase: &base {a: 1}\nspec: *base\n",
            ("base.a", 2),
            "m.yaml:2:7: cannot edit in place: document 1: base is anchored (&): an alias "
            "may stand for it elsewhere",
        ),
        (
            "kind: Pod\nbase: &b {a: 1}\nspec:\n  <<: *b\n  c: 1\n",
            ("spec.a", 2),
            "m.yaml:4:3: cannot edit in place: document 1: spec merges another map ('<<'): "
            "what is merged is written elsewhere",
        ),
    ],
)
def test_an_edit_through_an_alias_or_merge_is_refused_naming_where(
    text: str, step: tuple[str, Any], message: str
) -> None:
    from combinators import upsert

    with pytest.raises(SpliceError) as caught:
        _fold(text, upsert(*step))
    assert str(caught.value) == message


def test_a_json_file_keeps_an_entry_a_line_and_stays_json() -> None:
    from combinators import upsert

    text = '{\n  "kind": "Pod",\n  "spec": {\n    "containers": [{"name": "c"}]\n  }\n}\n'
    spliced = _fold(text, upsert("spec.nodeSelector", {"gpu": "a100"}), upsert("kind", "Pod2"))
    assert spliced == (
        '{\n  "kind": "Pod2",\n  "spec": {\n    "containers": [{"name": "c"}],\n'
        '    "nodeSelector": {"gpu": "a100"}\n  }\n}\n'
    )
    assert json.loads(spliced) == {
        "kind": "Pod2",
        "spec": {"containers": [{"name": "c"}], "nodeSelector": {"gpu": "a100"}},
    }
