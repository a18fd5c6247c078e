"""A long file's second half read, folded and spliced in a second process
(:mod:`transforms.cli.halves`): the halves give the very text the whole splice gives, or
nothing, and then the whole is spliced; on each way the halves can fail (a half refused,
a second process that folds otherwise or is lost, a text that cannot be cut, an
interrupted run), on streams with comments, block scalars, flow style and CRLF."""

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
from transforms.cli.halves import FIRST_SHARE, HALVES_BYTES, SecondHalf, cut_point, second_half
from transforms.io.safe_yaml import load_manifest
from transforms.io.splicing import Composed, SpliceError, splice, splice_part
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


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("count", [2, 9, 40])
def test_the_halves_give_the_text_the_whole_splice_gives(newline: str, count: int) -> None:
    text = stream(count, newline)
    half = started(text)
    nodes: list[Any] = []
    documents, _ = load_manifest(text, "jobs.yaml", nodes)
    pairs = list(zip(documents, gpu_fold(documents, 1), strict=True))
    pid = half.pid
    joined = half.join(pairs, Composed.of(text, nodes))  # the first half by the nodes kept
    assert joined is not None
    assert joined == splice(text, pairs, "jobs.yaml")
    assert text[half.cut :].startswith("---") and half.cut >= len(text) * FIRST_SHARE
    assert load_manifest(joined, "jobs.yaml")[0] == [after for _, after in pairs]
    assert joined.count("# shard") == text.count("# shard")  # every comment kept
    half.cancel()
    assert gone(pid) and half.pid == 0


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
def test_a_half_refused_gives_nothing_and_the_whole_says_where(where: str) -> None:
    jobs = stream(10, styles=(0, 3))
    text = ALIASED + "---\n" + jobs if where == "first" else jobs + "---\n" + ALIASED
    _, pairs = folded(text, labelled)
    half = started(text, labelled)
    pid = half.pid
    assert half.join(pairs) is None
    half.cancel()
    assert gone(pid)
    with pytest.raises(SpliceError) as refused:
        splice(text, pairs, "jobs.yaml")
    line = text[: text.index("x: *m")].count("\n") + 1
    assert f"jobs.yaml:{line}:" in str(refused.value), str(refused.value)


def test_a_second_process_that_folds_otherwise_gives_nothing() -> None:
    here = os.getpid()

    def otherwise(documents: list[Any], first: int) -> list[Any]:
        label = "here" if os.getpid() == here else "there"
        return [{**document, "folded": label} for document in documents]

    text = stream(12)
    documents, pairs = folded(text, otherwise)
    assert splice(text, pairs, "jobs.yaml").count("folded: here") == len(documents)
    assert started(text, otherwise).join(pairs) is None


def test_a_lost_second_process_gives_nothing() -> None:
    here = os.getpid()

    def killed(documents: list[Any], first: int) -> list[Any]:
        if os.getpid() != here:
            os.kill(os.getpid(), signal.SIGKILL)  # as the system's out-of-memory killer would
        return gpu_fold(documents, first)

    text = stream(12)
    _, pairs = folded(text, killed)
    half = started(text, killed)
    pid = half.pid
    assert half.join(pairs) is None
    half.cancel()
    assert gone(pid)


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


def test_in_place_on_a_long_file_writes_what_one_process_writes(tmp_path: Path) -> None:
    text = stream(1600, "\r\n")
    assert len(text) > HALVES_BYTES
    for name in ("shared.yaml", "alone.yaml"):
        (tmp_path / name).write_text(text, newline="")
    overlay = str(REPO / "examples" / "a100.yaml")
    shared = warm.run("podfold", ["apply", "-f", overlay, "-i", "shared.yaml"], cwd=tmp_path)
    alone = warm.run(
        "podfold", ["--debug", "apply", "-f", overlay, "-i", "alone.yaml"], cwd=tmp_path
    )
    assert (shared.returncode, alone.returncode) == (0, 0), shared.stderr + alone.stderr
    written = (tmp_path / "shared.yaml").read_bytes()
    assert written != text.encode() and written == (tmp_path / "alone.yaml").read_bytes()


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
