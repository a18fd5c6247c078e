"""A long file read, folded and spliced in two halves, the second in a second process
(:mod:`transforms.cli.halves`): the halves give the very documents the whole read gives
and the very text the whole splice gives, or nothing, and then the whole is read (or
spliced) here; on each way the halves can fail (a half that cannot be read or folded, a
half refused a splice, aliases that expand too far across both, a second process lost,
a text that cannot be cut, an interrupted run), on streams with comments, block
scalars, flow style and CRLF; and the command says of a long file what one process
says of it, to the byte."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from combinators import compose
from recipes import add_toleration, node_selector
from tests import warm
from transforms.cli.halves import (
    FIRST_SHARE,
    HALVES_BYTES,
    Read,
    SecondHalf,
    cut_point,
    second_half,
)
from transforms.io.safe_yaml import MAX_NODES, load_manifest
from transforms.io.splicing import SpliceError, splice, splice_part
from transforms.kube.applying import apply_to_workload

REPO = Path(__file__).resolve().parent.parent
GPU_POOL = compose(add_toleration("nvidia.com/gpu"), node_selector(pool="a100"))

Fold = Callable[[list[Any], int], list[Any]]


def gpu_fold(documents: list[Any], first: int) -> list[Any]:
    return [apply_to_workload(GPU_POOL, document) for document in documents]


def job(number: int, style: int) -> str:
    """A Job written in one of four styles, each with comments."""
    if style == 0:
        return f"""\
# shard {number}: owned by the ml team
apiVersion: batch/v1
kind: Job
metadata:
  name: train-{number}   # the name
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: trainer
          image: "ghcr.io/example/trainer:1.4.2"
          command: [python, -m, train, --shard={number}]
"""
    if style == 1:
        return f"""\
kind: Job
apiVersion: batch/v1
metadata: {{name: 'train-{number}', labels: {{team: ml}}}}
spec:
  template:
    spec:
      containers:
      - name: trainer
        image: trainer:1
        args:
        - |
          echo shard {number}
          # not a comment: the script's own line
      restartPolicy: OnFailure

"""
    if style == 2:
        return f"# a comment-only document, {number}\n"
    return f"""\
kind: ConfigMap   # nothing for the overlays here
apiVersion: v1
metadata: {{name: cm-{number}}}
data: {{a: "{number}"}}
"""


def stream(count: int, newline: str = "\n", styles: tuple[int, ...] = (0, 1, 2, 3)) -> str:
    text = "---\n".join(job(number, styles[number % len(styles)]) for number in range(count))
    return text.replace("\n", newline)


def folded(text: str, fold: Fold = gpu_fold) -> tuple[list[Any], list[tuple[Any, Any]]]:
    """The stream's documents, and each before and after ``fold``, as a run folds them."""
    documents, _ = load_manifest(text, "jobs.yaml")
    return documents, list(zip(documents, fold(documents, 1), strict=True))


def started(text: str, fold: Fold = gpu_fold) -> SecondHalf:
    half = SecondHalf.start(text, "jobs.yaml", fold, debug=False, least=0)
    assert half is not None
    return half


def gone(pid: int) -> bool:
    """Whether ``pid`` is no child of this process any more (waited for, not a zombie)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def read_by_halves(text: str, fold: Fold = gpu_fold) -> tuple[SecondHalf, Read | None]:
    half = started(text, fold)
    return half, half.read(fold)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("count", [2, 9, 40])
def test_the_halves_give_what_the_whole_gives(newline: str, count: int) -> None:
    text = stream(count, newline).replace("restartPolicy: OnFailure", "suspend: yes")
    half, read = read_by_halves(text)
    assert read is not None
    documents, booleans = load_manifest(text, "jobs.yaml")
    assert read.documents == documents and read.folded == gpu_fold(documents, 1)
    assert read.booleans == booleans and len(booleans) >= count // 4  # the file's lines
    pairs = list(zip(read.documents, read.folded, strict=True))
    pid = half.pid
    joined = half.join(pairs)
    assert joined is not None
    assert joined == splice(text, pairs, "jobs.yaml")
    assert text[half.cut :].startswith("---") and half.cut >= len(text) * FIRST_SHARE
    assert load_manifest(joined, "jobs.yaml")[0] == read.folded
    assert joined.count("# shard") == text.count("# shard")  # every comment kept
    half.cancel()
    assert gone(pid) and half.pid == 0


def test_at_most_live_second_processes_at_once_and_each_text_kept() -> None:
    from transforms.cli.halves import LIVE

    texts = [stream(12 + number) for number in range(LIVE + 2)]
    started: list[SecondHalf] = []
    reads = []
    for text in texts:
        half = SecondHalf.start(text, "jobs.yaml", gpu_fold, debug=False, least=0, into=started)
        assert half is not None and sum(1 for each in started if each.pid) <= LIVE
        reads.append(half.read(gpu_fold))
    assert [bool(half.pid) for half in started] == [False] * 2 + [True] * LIVE
    for text, half, read in zip(texts, started, reads, strict=True):
        assert read is not None
        pairs = list(zip(read.documents, read.folded, strict=True))
        assert half.join(pairs) == splice(text, pairs, "jobs.yaml")
        half.cancel()


def test_only_a_long_file_is_shared_and_never_with_debug() -> None:
    short = stream(8)
    assert SecondHalf.start(short, "jobs.yaml", gpu_fold, debug=False) is None
    long = stream(8 * HALVES_BYTES // len(short) + 8)
    assert len(long) >= HALVES_BYTES
    assert SecondHalf.start(long, "jobs.yaml", gpu_fold, debug=True) is None
    half = SecondHalf.start(long, "jobs.yaml", gpu_fold, debug=False)
    assert half is not None
    pid = half.pid
    half.cancel()
    assert gone(pid) and half.answers.closed


@pytest.mark.parametrize(
    "text",
    [
        "%YAML 1.1\n---\na: 1\n---\nb: 2\n---\nc: 3\n",  # a directive: read with what came before
        "a: 1\n---\nb: 2\n---\nc: '\ufeff'\n",  # a byte-order mark inside the text
        "a: 1\nb: 2\nc: 3\n",  # one document
        "---\na: 1\n---\nb: 2\nc: |\n  ---not a document\n  -- nor this\n",  # none after 2/5
    ],
)
def test_a_text_that_cannot_be_cut_is_spliced_whole(text: str) -> None:
    assert cut_point(text, FIRST_SHARE) is None
    assert SecondHalf.start(text, "m.yaml", gpu_fold, debug=False, least=0) is None


def test_the_cut_is_before_a_line_that_begins_a_document() -> None:
    text = "a: 1\n---\nb: |\n  ---x\n---x: 1\n--- # c\nc: 3\n---\t{d: 4}\n"
    assert text[cut_point(text, 0.2) or 0 :].startswith("--- # c")  # not "---x" nor "  ---x"
    assert text[cut_point(text, 0.8) or 0 :] == "---\t{d: 4}\n"
    assert cut_point("a: 1\n---", 0.2) == 5  # the text's last line, with no break


ALIASED = "kind: Pod\nmetadata: &m {name: p}\nspec:\n  containers: [{name: c, image: x}]\nx: *m\n"


def labelled(documents: list[Any], first: int) -> list[Any]:
    """A label written where the Pod's ``x`` aliases its metadata: no exact edit."""
    return [
        {**document, "x": {**document["x"], "labels": {"a": "b"}}} if "x" in document else document
        for document in documents
    ]


@pytest.mark.parametrize("where", ["first", "second"])
def test_a_half_refused_a_splice_gives_no_text_and_the_whole_says_where(where: str) -> None:
    jobs = stream(10, styles=(0, 3))
    text = ALIASED + "---\n" + jobs if where == "first" else jobs + "---\n" + ALIASED
    documents, pairs = folded(text, labelled)
    half, read = read_by_halves(text, labelled)
    assert read is not None and read.documents == documents  # read and folded: not refused
    pid = half.pid
    assert half.join(pairs) is None
    half.cancel()
    assert gone(pid)
    with pytest.raises(SpliceError) as refused:
        splice(text, pairs, "jobs.yaml")
    line = text[: text.index("x: *m")].count("\n") + 1
    assert f"jobs.yaml:{line}:" in str(refused.value), str(refused.value)


@pytest.mark.parametrize("where", ["first", "second"])
@pytest.mark.parametrize(
    "defect",
    ["kind: Job\nmetadata: {name: [\n", "- a list\n- not a map\n", "kind: Job\nspec: 3\n"],
)
def test_a_half_that_cannot_be_read_or_folded_gives_nothing(where: str, defect: str) -> None:
    def failing(documents: list[Any], first: int) -> list[Any]:
        if any(document.get("spec") == 3 for document in documents):
            raise ValueError("no fold for a spec of 3")
        return gpu_fold(documents, first)

    jobs = stream(12)
    text = defect + "---\n" + jobs if where == "first" else jobs + "---\n" + defect
    half = started(text, failing)
    pid = half.pid
    assert half.read(failing) is None  # read whole, and what fails said of the whole
    assert gone(pid) and half.pid == 0  # ended, and waited for


def test_aliases_that_expand_too_far_across_both_halves_give_nothing() -> None:
    # each half's aliases add 60% of the bound: each alone is read, both are refused
    items = ", ".join(str(number) for number in range(1000))
    aliases = ", ".join(["*big"] * (MAX_NODES * 6 // 10 // 1000))
    document = f"kind: ConfigMap\nbig: &big [{items}]\nmore: [{aliases}]\n"
    first = "# the first of two\n" + document
    text = first + "---\n" + document
    assert cut_point(text, FIRST_SHARE) == len(first)
    load_manifest(document, "m.yaml")  # each half alone is within the bound
    with pytest.raises(Exception, match="expands to more than"):
        load_manifest(text, "m.yaml")
    half, read = read_by_halves(text)
    assert read is None and half.pid == 0


def test_what_the_second_process_folded_is_what_is_checked_and_written() -> None:
    here = os.getpid()

    def otherwise(documents: list[Any], first: int) -> list[Any]:
        label = "here" if os.getpid() == here else "there"
        return [{**document, "folded": label} for document in documents]

    text = stream(12)
    half, read = read_by_halves(text, otherwise)
    assert read is not None
    labels = [after["folded"] for after in read.folded]
    assert labels[0] == "here" and labels[-1] == "there"  # each half folded once, where read
    joined = half.join(list(zip(read.documents, read.folded, strict=True)))
    assert joined is not None and load_manifest(joined, "jobs.yaml")[0] == read.folded
    half.cancel()


@pytest.mark.parametrize("fails", ["nowhere", "here", "there"])
def test_each_half_is_checked_where_it_is_read_numbered_in_the_file(fails: str) -> None:
    from transforms.cli.checks import Findings

    here = os.getpid()

    def check(documents: list[Any], folded: list[Any], first: int) -> tuple[Any, Any]:
        assert len(folded) == len(documents)
        if fails == ("here" if os.getpid() == here else "there"):
            raise ValueError("a check that fails: the run checks again, and says why")
        numbers = [f"document {first + index}" for index in range(len(documents))]
        return Findings(warnings=numbers), {"$app_id": numbers[0]}

    text = stream(12)
    half = SecondHalf.start(text, "jobs.yaml", gpu_fold, debug=False, least=0, check=check)
    assert half is not None
    read = half.read(gpu_fold)
    assert read is not None and read.documents == load_manifest(text, "jobs.yaml")[0]
    pairs = list(zip(read.documents, read.folded, strict=True))
    assert half.join(pairs) == splice(text, pairs, "jobs.yaml")  # warnings fail nothing
    half.cancel()
    if fails == "there":
        assert read.checked is None  # the run checks every document
        return
    assert read.checked is not None
    since, found = read.checked
    numbers = [f"document {number}" for number in range(since + 1, len(read.documents) + 1)]
    assert [warning for findings, _ in found for warning in findings.warnings] == numbers
    assert found[0][1] == {"$app_id": numbers[0]}
    if fails == "here":  # the run checks the first half's documents
        assert len(found) == 1 and since == len(read.documents) - len(found[0][0].warnings) > 0
    else:
        assert len(found) == 2 and since == 0


@pytest.mark.parametrize("where", ["first", "second"])
def test_a_half_whose_checks_fail_is_not_spliced(where: str) -> None:
    from transforms.cli.checks import Findings

    here = os.getpid()

    def check(documents: list[Any], folded: list[Any], first: int) -> tuple[Any, Any]:
        failing = where == ("first" if os.getpid() == here else "second")
        return Findings(problems=["a problem"] if failing else []), {}

    text = stream(12)
    half = SecondHalf.start(text, "jobs.yaml", gpu_fold, debug=False, least=0, check=check)
    assert half is not None
    read = half.read(gpu_fold)
    assert read is not None and read.checked is not None and read.checked[0] == 0
    # a run whose checks fail writes nothing: no text is made for it (and where the first
    # half's fail, the second process is ended at once)
    assert (half.head is None, half.pid == 0) == (
        (True, True) if where == "first" else (False, False)
    )
    half.take()
    assert half.tail is None


def test_a_lost_second_process_gives_nothing() -> None:
    here = os.getpid()

    def killed(documents: list[Any], first: int) -> list[Any]:
        if os.getpid() != here:
            os.kill(os.getpid(), signal.SIGKILL)  # as the system's out-of-memory killer would
        return gpu_fold(documents, first)

    text = stream(12)
    half = started(text, killed)
    pid = half.pid
    assert half.read(killed) is None
    assert gone(pid) and half.pid == 0


def test_a_second_process_lost_as_it_splices_gives_no_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from transforms.cli import halves

    def killed(*args: Any) -> str:  # in the second process, once it sent its documents
        import threading

        for thread in threading.enumerate():  # the one writing them
            if thread is not threading.current_thread():
                thread.join()
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("not reached")

    monkeypatch.setattr(halves, "_splice", killed)
    text = stream(12)
    half, read = read_by_halves(text)
    assert read is not None and read.documents == load_manifest(text, "jobs.yaml")[0]
    assert half.join(list(zip(read.documents, read.folded, strict=True))) is None
    half.cancel()


@settings(max_examples=settings.default.max_examples // 2, deadline=None)
@given(
    st.lists(st.integers(0, 3), min_size=2, max_size=12),
    st.sampled_from(["\n", "\r\n"]),
    st.floats(0.0, 0.95),
)
def test_law_two_parts_spliced_are_the_whole_spliced(
    styles: list[int], newline: str, share: float
) -> None:
    # splice_part(text[:cut]) + second_half(text[cut:]) == splice(text), wherever cut
    text = "---\n".join(job(number, style) for number, style in enumerate(styles))
    text = text.replace("\n", newline)
    cut = cut_point(text, share)
    if cut is None:
        return
    _, pairs = folded(text)
    head, held = splice_part(text[:cut], pairs, "jobs.yaml", newline=newline)
    tail, afters = second_half(text[cut:], "jobs.yaml", gpu_fold, newline)
    assert held + len(afters) == len(pairs)
    assert afters == [after for _, after in pairs[held:]]
    assert head + tail == splice(text, pairs, "jobs.yaml")


LONG_JOBS = stream(1600, "\r\n")
TAIL = len(LONG_JOBS) * 9 // 10  # a place in the second half, at a document's start
TAIL = LONG_JOBS.index("---", TAIL)


POD = "kind: Pod\nspec:\n"
CONTAINER = "  containers: [{name: c, image: x}]\n"


def _defective(defect: str, where: str) -> str:
    defect = defect.replace("\n", "\r\n")
    if where == "first":
        return defect + "---\r\n" + LONG_JOBS
    return LONG_JOBS[:TAIL] + "---\r\n" + defect + LONG_JOBS[TAIL:]


@pytest.mark.parametrize(
    ("defect", "flags", "status", "said"),
    [
        ("", [], 0, "written in place"),
        ("kind: Job\nmetadata: {name: [\n", [], 1, "expected"),  # a syntax error
        ("- a list\n", [], 1, "is a list, not a map"),
        # an overlay that fails: a toleration appended to what is no list
        ("kind: Job\nspec: {template: {spec: {tolerations: 3}}}\n", [], 1, "tolerations"),
        (
            f"{POD}  containers: [{{name: c, image: x, env: [{{name: A, value: y}}]}}]\n",
            [],
            0,
            "quote it",
        ),
        (f"{POD}  hostNetwork: true\n{CONTAINER}", ["--policy", "baseline"], 1, "1 violation"),
    ],
)
@pytest.mark.parametrize("where", ["first", "second"])
def test_in_place_on_a_long_file_does_what_one_process_does(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    defect: str,
    flags: list[str],
    status: int,
    said: str,
    where: str,
) -> None:
    # what is written, what is said (the file's lines, the documents' numbers) and the exit
    from transforms.cli import worker

    text = _defective(defect, where)
    assert len(text) > HALVES_BYTES
    for name in ("shared.yaml", "alone.yaml"):
        (tmp_path / name).write_text(text, newline="")
    overlay = str(REPO / "examples" / "a100.yaml")
    argv = ["apply", "-f", overlay, *flags, "-i"]
    shared = warm.run("podfold", [*argv, "shared.yaml"], cwd=tmp_path)
    with monkeypatch.context() as patched:  # one process: no second is ever forked
        patched.setattr(worker, "can_fork", lambda debug: False)
        alone = warm.run("podfold", [*argv, "alone.yaml"], cwd=tmp_path)
    assert (shared.returncode, alone.returncode) == (status, status), shared.stderr + alone.stderr
    assert said in shared.stderr
    assert shared.stderr.replace("shared.yaml", "alone.yaml") == alone.stderr
    written = (tmp_path / "shared.yaml").read_bytes()
    assert written == (tmp_path / "alone.yaml").read_bytes()
    assert (written != text.encode()) == (status == 0)


def test_a_run_interrupted_ends_the_second_process_and_writes_nothing(tmp_path: Path) -> None:
    from transforms.cli import halves

    target = tmp_path / "jobs.yaml"
    target.write_text(stream(1600))
    before = target.read_bytes()
    overlay = str(REPO / "examples" / "a100.yaml")
    answer_r, answer_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the run, interrupted once its second process is started
        status = 9
        try:
            os.close(answer_r)
            start = halves.SecondHalf.start
            seen: list[int] = []

            def interrupted(*args: Any, **kwargs: Any) -> SecondHalf | None:
                half = start(*args, **kwargs)
                assert half is not None
                seen.append(half.pid)
                os.kill(os.getpid(), signal.SIGINT)  # a user's ^C, as the run goes on
                return half

            halves.SecondHalf.start = interrupted  # type: ignore[method-assign]
            signal.signal(signal.SIGINT, signal.default_int_handler)
            os.chdir(tmp_path)
            from transforms.cli.main import main

            with contextlib.suppress(BaseException):  # the interrupt, as main lets it out
                main(["apply", "-f", overlay, "-i", "jobs.yaml"])
            os.write(answer_w, b"gone" if seen and gone(seen[0]) else b"left")
            status = 0
        finally:
            os._exit(status)
    os.close(answer_w)
    with os.fdopen(answer_r, "rb") as answer:
        said = answer.read()
    assert os.waitpid(pid, 0)[1] == 0
    assert said == b"gone"
    assert target.read_bytes() == before
    assert [path.name for path in tmp_path.iterdir()] == ["jobs.yaml"]
