"""``podfold apply`` folding a long stream in a worker process prints and says, byte for
byte and in order, what one process says; the worker's failures are the run's; a worker
that dies, or an interrupt, ends the run at once, printing nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests import warm
from tests.test_streams import A100, jobs
from transforms.cli import worker
from transforms.io import batches

ONE_PROCESS = 1 << 40
"""A :data:`~transforms.cli.worker.WORKER_BYTES` no stream reaches: one process does all."""


def both(
    args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **given: Any
) -> tuple[Any, Any]:
    """``podfold args`` run by one process, then with a worker (parts of 300 bytes: many
    of them between the two), the worker seen to have run."""
    monkeypatch.setattr(batches, "PART_BYTES", 300)
    monkeypatch.setattr(worker, "WORKER_BYTES", ONE_PROCESS)
    alone = warm.run("podfold", args, **given)
    monkeypatch.setattr(worker, "WORKER_BYTES", 0)
    mark = tmp_path / "the-worker-ran"
    mark.unlink(missing_ok=True)
    child = worker._child

    def marked(*arguments: Any) -> None:
        mark.touch()
        child(*arguments)

    monkeypatch.setattr(worker, "_child", marked)
    folded = warm.run("podfold", args, **given)
    assert mark.exists(), "no worker ran"
    return alone, folded


def same(alone: Any, folded: Any) -> None:
    assert (folded.returncode, folded.stdout, folded.stderr) == (
        alone.returncode,
        alone.stdout,
        alone.stderr,
    )


@pytest.mark.parametrize("output", ["yaml", "json"])
def test_a_stream_folded_in_a_worker_prints_and_says_what_one_process_does(
    output: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = tmp_path / "jobs.yaml"
    stream.write_text(jobs(120))
    args = ["apply", "-o", output, "-f", str(A100), str(stream)]
    alone, folded = both(args, tmp_path, monkeypatch)
    assert alone.returncode == 0, alone.stderr
    # warnings of the whole stream, in its order: a kind unreached, a plain boolean
    assert "jobs.yaml: document 115: Trainer/t" in alone.stderr
    assert "jobs.yaml:1553:23: document 126: Job/j115" in alone.stderr
    assert alone.stdout.count("nvidia-tesla-a100") == 120  # every Job
    same(alone, folded)
    # from a pipe, as from the file
    piped = both([*args[:-1], "-"], tmp_path, monkeypatch, input=stream.read_text())
    same(*piped)
    assert piped[1].stdout == alone.stdout


def test_several_files_folded_in_a_worker_say_what_one_process_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "manifests"
    folder.mkdir()
    documents = jobs(90).split("---\n")
    for number in range(3):
        (folder / f"{number}.yaml").write_text("---\n".join(documents[number * 33 :][:33]))
    (folder / "empty.yaml").write_text("# nothing yet\n")
    args = ["apply", "-f", str(A100), "--select", "kind=Job", str(folder)]
    alone, folded = both(args, tmp_path, monkeypatch)
    assert alone.returncode == 0, alone.stderr
    assert "empty.yaml: no documents" in alone.stderr
    same(alone, folded)


def broken_late(tmp_path: Path, case: str) -> list[str]:
    """A stream, and an overlay, that fail late in the stream as ``case`` says."""
    stream = tmp_path / "jobs.yaml"
    text = jobs(60)
    overlay = A100
    if case == "a syntax error":
        text += "---\nkind: Job\nspec: [1, 2\n"
    elif case == "a validation problem":
        overlay = tmp_path / "bad.yaml"
        overlay.write_text(
            "- op: upsert\n  path: spec.containers[name=c].resources.limits.cpu\n  value: lots\n"
        )
    elif case == "an overlay failing on a document":
        text += (  # shm_size would displace the volume mounted at /dev/shm
            "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: shm}\nspec:\n"
            "  template:\n    spec:\n      containers:\n      - name: c\n        image: busybox\n"
            "        volumeMounts: [{name: cache, mountPath: /dev/shm}]\n"
            "      volumes: [{name: cache, emptyDir: {}}]\n"
        )
    elif case == "a selection that picks nothing":
        return ["apply", "-f", str(A100), "--select", "kind=CronJob", str(_written(stream, text))]
    elif case == "a policy":
        return ["apply", "-f", str(A100), "--policy", "restricted", str(_written(stream, text))]
    return ["apply", "-f", str(overlay), str(_written(stream, text))]


def _written(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "case",
    [
        "a syntax error",
        "a validation problem",
        "an overlay failing on a document",
        "a selection that picks nothing",
        "a policy",
    ],
)
def test_a_failure_late_in_a_stream_folded_in_a_worker_is_said_as_one_process_says_it(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alone, folded = both(broken_late(tmp_path, case), tmp_path, monkeypatch)
    assert alone.returncode == 1 and alone.stdout == "", alone.stderr
    assert "error" in alone.stderr
    same(alone, folded)


def test_a_worker_that_dies_ends_the_run_naming_how_and_prints_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = tmp_path / "jobs.yaml"
    stream.write_text(jobs(120))
    monkeypatch.setattr(batches, "PART_BYTES", 300)
    monkeypatch.setattr(worker, "WORKER_BYTES", 0)
    child = worker._child

    def dies(run: Any, receive: Any, send: Any) -> None:
        receive.recv()  # a stream begun: the reader is sending its parts
        os.kill(os.getpid(), signal.SIGKILL)
        child(run, receive, send)  # pragma: no cover - killed

    monkeypatch.setattr(worker, "_child", dies)
    done = warm.run("podfold", ["apply", "-f", str(A100), str(stream)], timeout=60)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == (
        "podfold: error: the process folding the stream was ended by SIGKILL; nothing was printed\n"
    )


def test_the_worker_is_used_only_where_it_pays(tmp_path: Path) -> None:
    small, large = tmp_path / "small.yaml", tmp_path / "large.yaml"
    small.write_text(jobs(3))
    large.write_bytes(b"#" * worker.WORKER_BYTES)
    two_cores = len(os.sched_getaffinity(0)) > 1
    assert not worker.worthwhile([str(small)], debug=False)
    assert worker.worthwhile([str(large)], debug=False) is two_cores
    assert worker.worthwhile([str(small)] * (worker.WORKER_BYTES // 100), debug=False) is (
        two_cores
    )
    assert not worker.worthwhile([str(large)], debug=True)  # a traceback of one process
    assert not worker.worthwhile([str(tmp_path / "missing.yaml")], debug=False)


def _children(pid: int) -> list[int]:
    try:
        return [int(each) for each in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("how", ["SIGINT to the group", "SIGTERM to the reader"])
def test_an_interrupt_ends_the_reader_and_its_worker(how: str, tmp_path: Path) -> None:
    stream = tmp_path / "jobs.yaml"
    stream.write_text(jobs(20000))
    podfold = Path(sys.executable).parent / "podfold"
    with subprocess.Popen(
        [str(podfold), "apply", "-f", str(A100), str(stream)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    ) as reader:
        deadline = time.monotonic() + 30
        while not _children(reader.pid):
            assert reader.poll() is None and time.monotonic() < deadline, "no worker began"
            time.sleep(0.02)
        (folding,) = _children(reader.pid)
        if how == "SIGINT to the group":  # as a terminal's ctrl-C sends it
            os.killpg(reader.pid, signal.SIGINT)
        else:
            os.kill(reader.pid, signal.SIGTERM)
        out, said = reader.communicate(timeout=30)
    assert out == b""  # nothing half-printed
    if how == "SIGINT to the group":
        assert reader.returncode == 1
        assert said.decode().splitlines()[-1] == "podfold: aborted"
    else:
        assert reader.returncode == -signal.SIGTERM
    deadline = time.monotonic() + 10
    while _alive(folding):  # the worker, left without its reader, ends too
        assert time.monotonic() < deadline, f"the worker {folding} outlived its reader"
        time.sleep(0.05)
