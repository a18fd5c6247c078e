"""Insertions read back where they stand (:mod:`transforms.io.insertions`).

The law that makes it safe, with hypothesis: whatever the insertions are (those the
splicer makes, or the same made wrong: lines moved a line up or down, indented a
column more or less, written in another order, given a line more), a document said to
stand reads back, whole, as the folded document. And, on small manifests, each thing
that keeps a document from standing, where the whole document is then read back.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from tests.doc_strategies import json_values
from tests.test_splicing import _with_others, written_docs
from transforms.errors import OverlayError
from transforms.io.edits import Edit, Inserted
from transforms.io.insertions import read_where_they_stand
from transforms.io.read_back import canonical
from transforms.io.safe_yaml import load_manifest
from transforms.io.splicing import SpliceError, _apply, _edits, splice


def _edited(text: str, pairs: list[tuple[Any, Any]]) -> tuple[list[Edit], list[Any]]:
    edits: list[Edit] = []
    spans, _ = _edits(text, pairs, "m.yaml", edits, None, "\n")
    return edits, spans


def _standing(text: str, pairs: list[tuple[Any, Any]]) -> set[int]:
    edits, spans = _edited(text, pairs)
    return read_where_they_stand(text, spans, edits, "m.yaml")


def _claiming(edits: list[Edit], edit: Edit, **changed: Any) -> list[Edit]:
    """``edits`` with ``edit``'s claim changed as ``changed`` says, the text left as it is."""
    claim = edit.inserted
    assert claim is not None
    made = dataclasses.replace(edit, inserted=dataclasses.replace(claim, **changed))
    return [made if other is edit else other for other in edits]


def _line_starts(text: str) -> list[int]:
    return [0, *(index + 1 for index, char in enumerate(text) if char == "\n")]


@st.composite
def _made_wrong(draw: st.DrawFn, text: str, edits: list[Edit]) -> list[Edit]:
    """``edits`` with one insertion made wrong, as a splicer's slip could make it."""
    inserted = [index for index, edit in enumerate(edits) if edit.inserted is not None]
    index = draw(st.sampled_from(inserted))
    edit = edits[index]
    wrong = list(edits)
    how = draw(st.sampled_from(("moved", "indented", "swapped", "grown")))
    event(f"made wrong: {how}")
    if how == "moved":
        starts = _line_starts(text)
        at = starts.index(edit.start) if edit.start in starts else None
        assume(at is not None)
        assert at is not None
        to = draw(st.sampled_from([n for n in (at - 1, at + 1) if 0 <= n < len(starts)]))
        wrong[index] = dataclasses.replace(edit, start=starts[to], end=starts[to])
    elif how == "indented":
        by = draw(st.sampled_from((-2, -1, 1, 2)))
        lines = edit.text.splitlines(True)
        if by > 0:
            moved = "".join(" " * by + line if line.strip() else line for line in lines)
        else:
            assume(all(line[:-by] == " " * -by for line in lines if line.strip()))
            moved = "".join(line[-by:] if line.strip() else line for line in lines)
        wrong[index] = dataclasses.replace(edit, text=moved)
    elif how == "swapped":
        others = [n for n, other in enumerate(edits) if n != index and other.start == edit.start]
        assume(others)
        other = draw(st.sampled_from(others))
        wrong[index], wrong[other] = wrong[other], wrong[index]
    else:
        extra = draw(st.sampled_from(("x: 1\n", "- 1\n", "# note\n", "  |\n", "x: |\n")))
        column = draw(st.integers(0, 6))
        wrong[index] = dataclasses.replace(edit, text=edit.text + " " * column + extra)
    return wrong


_ADDED = json_values(6) | st.sampled_from(
    ("two\nlines\n", "kept\n\n", "  led\n", "no end\nline", "# hash", "a: b", "*x", "&y", "")
)


def _collections(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths of every map and list in ``data``."""
    found = [path]
    items = data.items() if isinstance(data, dict) else enumerate(data)
    for key, value in items:
        if isinstance(value, (dict, list)):
            found.extend(_collections(value, (*path, key)))
    return found


@st.composite
def _added_to(draw: st.DrawFn, doc: Any) -> Any:
    """``doc`` with a few keys and elements added to its maps and lists."""
    after = copy.deepcopy(doc)
    for _ in range(draw(st.integers(1, 4))):
        path = draw(st.sampled_from(_collections(after)))
        target = after
        for part in path:
            target = target[part]
        value = draw(_ADDED)
        if isinstance(target, dict):
            key = draw(st.sampled_from(("new", "added", "b", "z-last", "env", "name")))
            if key in target:
                continue
            target[key] = value
        else:
            target.insert(draw(st.integers(0, len(target))), value)
    return after


def _said_to_stand_reads_back(data: st.DataObject, wrong: bool) -> None:
    # stands(doc) => load(spliced)[doc] == after, the insertions made right or wrong
    text, doc = data.draw(written_docs())
    after = data.draw(_added_to(doc))
    stream, ahead, behind = _with_others(data.draw, text)
    other = load_manifest("kind: ConfigMap\ndata: {x: '1'}\n", "o.yaml")[0][0]
    pairs = [(other, other)] * ahead + [(doc, after)] + [(other, other)] * behind
    if not behind and data.draw(st.booleans()):  # the stream ends on its last value's line
        stream = stream.removesuffix("# trailing\n").rstrip("\n")
        try:
            assume(load_manifest(stream, "m.yaml")[0] == [before for before, _ in pairs])
        except OverlayError:
            assume(False)
    try:
        edits, spans = _edited(stream, pairs)
    except SpliceError:
        assume(False)
    assume(edits)
    if wrong:
        assume(any(edit.inserted is not None for edit in edits))
        edits = data.draw(_made_wrong(stream, edits))
    try:
        spliced = _apply(stream, edits, "m.yaml")
    except SpliceError:
        assume(False)
    standing = read_where_they_stand(stream, spans, edits, "m.yaml")
    event("stands" if ahead in standing else "read whole")
    if ahead not in standing:
        return
    try:
        read, _ = load_manifest(spliced, "m.yaml")
    except OverlayError as err:
        pytest.fail(f"said to stand, but does not read back ({err}):\n{spliced}")
    assert len(read) == len(pairs), spliced
    assert canonical(read[ahead]) == canonical(after), spliced


@settings(
    max_examples=settings.default.max_examples * 4,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(st.data())
def test_a_document_said_to_stand_reads_back_whole_as_the_fold(data: st.DataObject) -> None:
    _said_to_stand_reads_back(data, wrong=False)


@settings(
    max_examples=settings.default.max_examples * 8,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(st.data())
def test_insertions_made_wrong_stand_only_where_they_read_back_as_the_fold(
    data: st.DataObject,
) -> None:
    _said_to_stand_reads_back(data, wrong=True)


JOB = """\
# the trainer, as the team keeps it
apiVersion: batch/v1
kind: Job
metadata:
  name: train  # one shard
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: trainer
        image: trainer:1.4
        env:
        - name: A
          value: "1"
"""


def _job_after(job: Any) -> Any:
    spec = job["spec"]["template"]["spec"]
    container = {**spec["containers"][0], "volumeMounts": [{"name": "dshm", "mountPath": "/x"}]}
    return {
        **job,
        "spec": {
            "template": {
                "spec": {
                    **spec,
                    "containers": [container],
                    "nodeSelector": {"pool": "a100"},
                    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
                }
            }
        },
    }


def test_what_an_overlay_adds_to_pod_templates_stands_in_every_document() -> None:
    job = load_manifest(JOB, "m.yaml")[0][0]
    stream = "---\n".join([JOB] * 3)
    pairs = [(job, _job_after(job))] * 3
    assert _standing(stream, pairs) == {0, 1, 2}
    spliced = splice(stream, pairs, "m.yaml")
    assert load_manifest(spliced, "m.yaml")[0] == [after for _, after in pairs]
    assert spliced.count("# the trainer") == 3 and spliced.count("# one shard") == 3


@pytest.mark.parametrize(
    ("text", "after"),
    [
        # the map's last value a null, a flow list, a block scalar, a list at the key's column
        ("a:\n  b:\n", {"a": {"b": None, "c": 1}}),
        ("a:\n  b: [1,\n    2]\n", {"a": {"b": [1, 2], "c": 1}}),
        ("a:\n  b: |\n    text\n\n# after\n", {"a": {"b": "text\n", "c": 1}}),
        ("a:\n  b:\n  - 1\n  - 2\n", {"a": {"b": [1, 2], "c": 1}}),
        # a document indented as a whole; the stream ending without a marker
        ("  a:\n    b: 1\n", {"a": {"b": 1, "c": 1}}),
    ],
)
def test_keys_added_after_each_kind_of_last_value_stand(text: str, after: Any) -> None:
    before = load_manifest(text, "m.yaml")[0][0]
    assert _standing(text, [(before, after)]) == {0}
    assert load_manifest(splice(text, [(before, after)], "m.yaml"), "m.yaml")[0] == [after]


def test_an_element_added_before_another_stands_in_its_place() -> None:
    text = "env:\n- name: A  # first\n  value: '1'\n- name: C\n  value: '3'\n"
    before = load_manifest(text, "m.yaml")[0][0]
    env = before["env"]
    after = {"env": [env[0], {"name": "B", "value": "2"}, env[1]]}
    assert _standing(text, [(before, after)]) == {0}
    spliced = splice(text, [(before, after)], "m.yaml")
    assert load_manifest(spliced, "m.yaml")[0] == [after]
    assert "- name: B" in spliced.splitlines()[3]


def _claimed(text: str, after: Any) -> tuple[list[Edit], list[Any]]:
    """The edits and spans the splicer makes of ``text``'s one document becoming ``after``."""
    return _edited(text, [(load_manifest(text, "m.yaml")[0][0], after)])


@pytest.mark.parametrize(
    "wrong",
    [
        lambda edit: dataclasses.replace(edit, text="  " + edit.text),  # a column too deep
        lambda edit: dataclasses.replace(edit, text=edit.text[2:]),  # a column too shallow
        lambda edit: dataclasses.replace(edit, text=edit.text + "  d: 2\n"),  # a key more
        lambda edit: dataclasses.replace(edit, text=edit.text.replace("c:", "c: &x")),  # an anchor
        lambda edit: dataclasses.replace(edit, start=0, end=0),  # another place
        lambda edit: dataclasses.replace(edit, text=edit.text.rstrip("\n")),  # no line's end
        lambda edit: dataclasses.replace(edit, text="  # a note\n  " + edit.text),  # deeper
        lambda edit: dataclasses.replace(edit, text=edit.text + "---\nz: 2\n"),  # a document
        lambda edit: dataclasses.replace(edit, end=edit.end + len("z: 2\n")),  # a cut too
    ],
)
def test_insertions_not_as_said_do_not_stand(wrong: Any) -> None:
    edits, spans = _claimed("a:\n  b: 1\nz: 2\n", {"a": {"b": 1, "c": {"e": 1}}, "z": 2})
    assert read_where_they_stand("a:\n  b: 1\nz: 2\n", spans, edits, "m.yaml") == {0}
    made = [wrong(edits[0])]
    assert read_where_they_stand("a:\n  b: 1\nz: 2\n", spans, made, "m.yaml") == set()


def test_lines_inserted_at_one_place_stand_only_the_deepest_first() -> None:
    text = "a:\n  b:\n    c: 1\n"
    after = {"a": {"b": {"c": 1, "d": 2}, "e": 3}}
    edits, spans = _claimed(text, after)
    assert [edit.start for edit in edits] == [len(text)] * 2
    assert read_where_they_stand(text, spans, edits, "m.yaml") == {0}
    swapped = [edits[1], edits[0]]
    assert read_where_they_stand(text, spans, swapped, "m.yaml") == set()
    with pytest.raises(SpliceError):  # and the whole document, read back, refuses them
        from transforms.io.read_back import check

        check(_apply(text, swapped, "m.yaml"), [after], "m.yaml")


def test_a_block_scalar_added_last_takes_the_deeper_comments_after_it_and_does_not_stand() -> None:
    # the comment lines below are deeper than the new block scalar's text: read with
    # it, they are text of it; the document is read back whole, and refused
    text = "a:\n  b: 1\n        # deep\nz: 2\n"
    before = load_manifest(text, "m.yaml")[0][0]
    after = {"a": {"b": 1, "c": "two\nlines\n"}, "z": 2}
    assert _standing(text, [(before, after)]) == set()
    with pytest.raises(SpliceError, match="would not read back"):
        splice(text, [(before, after)], "m.yaml")


@pytest.mark.parametrize(
    "text",
    [
        "a:\r\n  b: 1\r\n",  # a line break other than "\n"
        "a:\n  ? b\n  : 1\n",  # an explicit key first
        "%YAML 1.2\n---\na:\n  b: 1\n",  # a directive: read whole, as the stream
    ],
)
def test_texts_whose_lines_are_not_counted_here_are_read_back_whole(text: str) -> None:
    before = load_manifest(text, "m.yaml")[0][0]
    after = {"a": {"b": 1, "c": 2}}
    if "%" not in text:
        assert _standing(text, [(before, after)]) == set()
    assert load_manifest(splice(text, [(before, after)], "m.yaml"), "m.yaml")[0] == [after]


def test_a_document_with_another_edit_is_read_back_whole() -> None:
    text = "a:\n  b: 1\n"
    before = load_manifest(text, "m.yaml")[0][0]
    after = {"a": {"b": 2, "c": 1}}
    assert _standing(text, [(before, after)]) == set()
    assert splice(text, [(before, after)], "m.yaml") == "a:\n  b: 2\n  c: 1\n"


def test_a_list_given_in_another_order_than_its_text_does_not_stand() -> None:
    text = "l:\n- name: a\n- name: c\n"
    before = load_manifest(text, "m.yaml")[0][0]
    after = {"l": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}
    edits, spans = _edited(text, [(before, after)])
    assert read_where_they_stand(text, spans, edits, "m.yaml") == {0}
    claim = edits[0].inserted
    assert claim is not None and claim.slot == 1
    made = _claiming(edits, edits[0], slot=2)  # said to go last, but written before "c"
    assert read_where_they_stand(text, spans, made, "m.yaml") == set()


def test_a_map_written_with_explicit_keys_has_no_column_told_here() -> None:
    # "? b" puts the key two columns right of where the map's entries begin: lines at the
    # key's column would not be an entry of the map
    text = "a:\n  ? b\n  : 1\n"
    before = load_manifest(text, "m.yaml")[0][0]
    after = {"a": {"b": 1, "c": 2}}
    edits, spans = _edited(text, [(before, after)])
    claim = edits[0].inserted
    assert claim is not None and text[claim.first] == "b"
    deeper = [Edit(len(text), len(text), "    c: 2\n", claim)]
    assert read_where_they_stand(text, spans, deeper, "m.yaml") == set()
    with pytest.raises(OverlayError):
        load_manifest(_apply(text, deeper, "m.yaml"), "m.yaml")


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ({"b": 1, "c": 3}, {"b": 1, "c": 2}),  # a key the map had: the fold replaced it
        ({"b": 1, "c": 3}, {"b": 1, "c": 3, "x": 0}),  # a key it had, and one not written
        ({"b": 1}, {"b": 1, "c": 2, "d": 4}),  # a key the fold added that is not written
        ({"b": 1}, {"b": 1, "d": 4}),  # written, where the fold added another
    ],
)
def test_keys_that_are_not_the_maps_new_ones_do_not_stand(before: Any, after: Any) -> None:
    text = "a:\n  b: 1\n"
    edits, spans = _claimed(text, {"a": {"b": 1, "c": 2}})
    made = _claiming(edits, edits[0], before=before, after=after)
    assert read_where_they_stand(text, spans, made, "m.yaml") == set()


def test_an_element_the_fold_put_elsewhere_than_its_lines_does_not_stand() -> None:
    text = "l:\n- name: a\n- name: c\n"
    before = load_manifest(text, "m.yaml")[0][0]
    after = {"l": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}
    edits, spans = _edited(text, [(before, after)])
    last = [{"name": "a"}, {"name": "c"}, {"name": "b"}]  # as if the fold put it last
    made = _claiming(edits, edits[0], after=last)
    assert read_where_they_stand(text, spans, made, "m.yaml") == set()


def test_lines_moved_off_an_elements_line_do_not_stand() -> None:
    text = "l:\n- name: a\n  # about c\n- name: c\n"
    before = load_manifest(text, "m.yaml")[0][0]
    after = {"l": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}
    edits, spans = _edited(text, [(before, after)])
    assert read_where_they_stand(text, spans, edits, "m.yaml") == {0}
    above = text.index("  # about c")  # above the comment: it would then be the new one's
    made = [dataclasses.replace(edits[0], start=above, end=above)]
    assert read_where_they_stand(text, spans, made, "m.yaml") == set()
    assert load_manifest(_apply(text, made, "m.yaml"), "m.yaml")[0] == [after]  # its reading


def test_lines_inserted_before_the_end_of_their_collection_do_not_stand() -> None:
    text = "a:\n  b: 1\n  c: 3\nz: 2\n"
    before = load_manifest(text, "m.yaml")[0][0]
    after = {"a": {"b": 1, "c": 3, "d": 4}, "z": 2}
    edits, spans = _edited(text, [(before, after)])
    assert read_where_they_stand(text, spans, edits, "m.yaml") == {0}
    middle = text.index("  c: 3")
    made = [dataclasses.replace(edits[0], start=middle, end=middle)]
    assert read_where_they_stand(text, spans, made, "m.yaml") == set()


def test_an_element_before_one_that_shares_a_line_with_another_dash_does_not_stand() -> None:
    # "- - a": the inner list's first "-" is not where a line of it begins
    text = "l:\n- - a\n  - b\n"
    before = load_manifest(text, "m.yaml")[0][0]
    after = {"l": [["z", "a", "b"]]}
    edits, spans = _edited(text, [(before, after)])
    assert all(edit.inserted is None for edit in edits)  # the splicer writes it otherwise
    inner = text.index("- a")
    claim = Inserted(1, inner, inner, len(text), ["z"], ["a", "b"], ["z", "a", "b"], 0)
    at = text.index("- - a")
    made = [Edit(at, at, "  - z\n", claim)]
    assert read_where_they_stand(text, spans, made, "m.yaml") == set()


@pytest.mark.parametrize("shift", [-2, -1, 1])
def test_lines_written_off_their_collections_column_do_not_stand(shift: int) -> None:
    # a scalar read alone reads the same at any column: where it stands tells
    text = "a:\n  b: 1\nz: 2\n"
    edits, spans = _claimed(text, {"a": {"b": 1, "c": 7}, "z": 2})
    edit = edits[0]
    assert edit.text == "  c: 7\n"
    moved = edit.text[-shift:] if shift < 0 else " " * shift + edit.text
    made = [dataclasses.replace(edit, text=moved)]
    assert read_where_they_stand(text, spans, made, "m.yaml") == set()


def test_an_element_inserted_inside_the_indentation_of_the_next_does_not_stand() -> None:
    text = "l:\n  - name: a\n  - name: c\n"
    before = load_manifest(text, "m.yaml")[0][0]
    after = {"l": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}
    edits, spans = _edited(text, [(before, after)])
    assert read_where_they_stand(text, spans, edits, "m.yaml") == {0}
    inside = edits[0].start + 1  # one of the spaces before "- name: c"
    made = [dataclasses.replace(edits[0], start=inside, end=inside)]
    assert read_where_they_stand(text, spans, made, "m.yaml") == set()


@pytest.mark.parametrize(
    "value", ["two\nlines\n", "two\nlines", "kept\n\n", {"k": [1, {"m": "x\n"}]}, "plain"]
)
@pytest.mark.parametrize("last", [True, False])
def test_lines_added_to_a_stream_that_ends_without_a_line_break_stand_as_read(
    value: Any, last: bool
) -> None:
    # a block scalar that ends the stream has no line break of its own to keep
    text = "a:\n  l:\n  - 1\n  b: 1"
    before = load_manifest(text, "m.yaml")[0][0]
    added = {"d": 1, "c": value} if last else {"c": value, "d": 1}
    after = {"a": {"l": [1, 2], "b": 1, **added}}
    standing = _standing(text, [(before, after)])
    try:
        spliced = splice(text, [(before, after)], "m.yaml")
    except SpliceError:
        assert standing == set()
        return
    assert not spliced.endswith("\n")
    assert load_manifest(spliced, "m.yaml")[0] == [after]
    assert standing == {0}


def test_lines_that_follow_others_inserted_after_their_collection_do_not_stand() -> None:
    # the map's key inserted a line up, above the comment, then the element's below it:
    # the key, at the map's column, ends the element, and the element's lines are read
    # as no part of it (found by hypothesis, with lines moved a line down)
    text = "a:\n- name: a\n  value: 1\n# trailing\n"
    before = load_manifest(text, "m.yaml")[0][0]
    after = {"a": [{"name": "a", "value": 1, "new": 2}], "new": 3}
    edits, spans = _edited(text, [(before, after)])
    place = text.index("# trailing")
    assert [edit.start for edit in edits] == [place, place]
    assert read_where_they_stand(text, spans, edits, "m.yaml") == {0}
    below = [dataclasses.replace(edits[0], start=len(text), end=len(text)), edits[1]]
    assert read_where_they_stand(text, spans, below, "m.yaml") == set()
    with pytest.raises(OverlayError):
        load_manifest(_apply(text, below, "m.yaml"), "m.yaml")


SIDECAR = """\
spec:
  containers:
  - name: app  # the app
    image: app:1
  volumes:
  - name: data
    emptyDir: {}
"""


def test_a_sidecar_and_the_mount_of_the_main_container_stand_together() -> None:
    # the list of containers gains an element, and its first element a key: the first
    # is the same element, told by its name
    before = load_manifest(SIDECAR, "m.yaml")[0][0]
    app = {**before["spec"]["containers"][0], "volumeMounts": [{"name": "logs"}]}
    after = {
        "spec": {
            "containers": [app, {"name": "shipper", "image": "shipper:1"}],
            "volumes": before["spec"]["volumes"],
        }
    }
    assert _standing(SIDECAR, [(before, after)]) == {0}
    assert load_manifest(splice(SIDECAR, [(before, after)], "m.yaml"), "m.yaml")[0] == [after]


def test_an_element_changed_within_is_told_only_by_a_name_of_its_own() -> None:
    text = "l:\n- a: 1\n- a: 2\n"
    before = load_manifest(text, "m.yaml")[0][0]
    after = {"l": [{"a": 1, "b": 0}, {"a": 2}, {"a": 3}]}  # no names: read back whole
    assert _standing(text, [(before, after)]) == set()
    assert load_manifest(splice(text, [(before, after)], "m.yaml"), "m.yaml")[0] == [after]
    named = "l:\n- name: one\n- name: two\n"
    before = load_manifest(named, "m.yaml")[0][0]
    after = {"l": [{"name": "one", "b": 0}, {"name": "two"}, {"name": "three"}]}
    edits, spans = _edited(named, [(before, after)])
    assert read_where_they_stand(named, spans, edits, "m.yaml") == {0}
    listed = next(edit for edit in edits if edit.inserted and edit.inserted.slot is not None)
    for wrong in (
        [{"name": "two", "b": 0}, {"name": "one"}, {"name": "three"}],  # another first
        [{"name": "one", "b": 0}, {"name": "one"}, {"name": "three"}],  # a name twice
    ):
        made = _claiming(edits, listed, after=wrong)
        assert read_where_they_stand(named, spans, made, "m.yaml") == set()


def test_elements_that_share_a_name_are_not_told_by_it() -> None:
    # the splicer writes such a list anew; made by hand, the insertions would stand
    # if a name told the elements apart: each position's name is the same, swapped
    text = "l:\n- name: a\n  v: 1\n- name: a\n  v: 2\n"
    before = load_manifest(text, "m.yaml")[0][0]
    first, second = before["l"]
    after = {"l": [{**first, "b": 0}, second, {"name": "c"}]}
    element, next_dash = text.index("name: a"), text.index("- name: a", 5)
    inside = Inserted(1, element, text.index("v: 1") + 4, next_dash, {"b": 0}, first, after["l"][0])
    swapped = [{**second, "b": 0}, first, {"name": "c"}]
    at_end = Inserted(2, 3, len(text) - 1, len(text), [{"name": "c"}], before["l"], swapped, 2)
    made = [
        Edit(next_dash, next_dash, "  b: 0\n", inside),
        Edit(len(text), len(text), "- name: c\n", at_end),
    ]
    spans = [(0, 0, len(text), 0, 2)]
    assert read_where_they_stand(text, spans, made, "m.yaml") == set()
