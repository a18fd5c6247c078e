"""The changed files of a run spliced by two processes
(:mod:`transforms.cli.shared_splices`): each text, or each refusal, is what one process
gives, in order, whichever process spliced it, and where the second process fails or
is lost; and ``podfold apply -i`` on a directory of many files writes and says what one
process writes and says, to the byte."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest

from tests import warm
from transforms.cli.shared_splices import SHARED_CHARACTERS, splice_all
from transforms.io.splicing import SpliceError

REPO = Path(__file__).resolve().parent.parent
HERE = os.getpid()


def upper(text: str, refuse: bool = False, kill: bool = False) -> Any:
    def splice() -> str:
        if kill and os.getpid() != HERE:
            os.kill(os.getpid(), signal.SIGKILL)  # as the out-of-memory killer would
        if refuse:
            raise SpliceError(f"refused {text}", source=f"{text}.yaml", line=2, column=1)
        return text.upper()

    return splice


def test_each_text_in_order_and_each_refusal_as_one_process_gives_it() -> None:
    texts = [f"file {number}" for number in range(9)]
    splices = [
        (len(text), upper(text, refuse=number % 4 == 1)) for number, text in enumerate(texts)
    ]
    shared = splice_all(splices, debug=False, least=0)
    alone = splice_all(splices, debug=True, least=0)  # --debug: one process
    assert [str(each) for each in shared] == [str(each) for each in alone]
    assert [type(each) for each in shared] == [
        SpliceError if number % 4 == 1 else str for number in range(len(texts))
    ]
    assert str(shared[1]) == "file 1.yaml:2:1: cannot edit in place: refused file 1"


def test_a_second_process_lost_leaves_every_splice_to_this_one() -> None:
    texts = [f"file {number}" for number in range(6)]
    splices = [(len(text), upper(text, kill=True)) for text in texts]
    assert splice_all(splices, debug=False, least=0) == [text.upper() for text in texts]


def test_what_only_this_process_may_splice_is_spliced_here() -> None:
    # a file of two halves is joined where its second process answers: never there
    splices = [(None, lambda: str(os.getpid()))] + [(5, lambda: "x") for _ in range(3)]
    assert splice_all(splices, debug=False, least=0)[0] == str(HERE)


def _job(number: int) -> str:
    return f"""\
# job {number}: its comment is kept
apiVersion: batch/v1
kind: Job
metadata: {{name: 'train-{number}'}}   # flow style, kept
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: trainer
          image: "trainer:1"
"""


ALIASED = """\
kind: Pod
metadata: &m {name: p}
spec:
  containers: [{name: c, image: x}]
  nodeSelector: *m
"""


def test_in_place_on_many_files_does_what_one_process_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from transforms.cli import worker

    files = {
        f"{number:02}.yaml": "---\n".join(map(_job, range(number, number + 12)))
        for number in range(30)
    }
    files["15.yaml"] = ALIASED + "---\n" + files["15.yaml"]  # refused: an alias is edited
    files["03.yaml"] = files["03.yaml"] + "---\n" + ALIASED
    assert sum(map(len, files.values())) > SHARED_CHARACTERS
    for run in ("shared", "alone"):
        (tmp_path / run).mkdir()
        for name, text in files.items():
            (tmp_path / run / name).write_text(text)
    overlay = str(REPO / "examples" / "a100.yaml")
    shared = warm.run("podfold", ["apply", "-f", overlay, "-i", "shared"], cwd=tmp_path)
    with monkeypatch.context() as patched:  # one process: no second is ever forked
        patched.setattr(worker, "can_fork", lambda debug: False)
        alone = warm.run("podfold", ["apply", "-f", overlay, "-i", "alone"], cwd=tmp_path)
    assert (shared.returncode, alone.returncode) == (1, 1), shared.stderr + alone.stderr
    assert shared.stderr.replace("shared", "alone") == alone.stderr
    assert alone.stderr.count("cannot edit in place") == 2
    for name, text in files.items():
        written = (tmp_path / "shared" / name).read_text()
        assert written == (tmp_path / "alone" / name).read_text()
        assert (written == text) == (name in ("03.yaml", "15.yaml")), name


def test_an_interrupt_ends_the_second_process(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    forked: list[int] = []
    fork = os.fork

    def recorded() -> int:
        pid = fork()
        if pid:
            forked.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", recorded)

    def interrupted() -> str:  # here: a user's ctrl-C as the first file is spliced
        raise KeyboardInterrupt

    def slow() -> str:  # there: still splicing when the run ends
        time.sleep(60)
        return "never"

    splices: list[tuple[int | None, Any]] = [(100, interrupted), (60, slow), (50, slow)]
    with pytest.raises(KeyboardInterrupt):
        splice_all(splices, debug=False, least=0)
    assert len(forked) == 1
    with pytest.raises(ChildProcessError):  # ended and waited for
        os.waitpid(forked[0], os.WNOHANG)
