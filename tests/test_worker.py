"""``podfold apply`` folding a long stream in a worker process, and ``podfold validate``
checking one there, print and say, byte for byte and in order, what one process says; the worker's failures are the run's; a worker
that dies, or an interrupt, ends the run at once, printing nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
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


def _three_files_and_an_empty_one(tmp_path: Path, stream: str) -> Path:
    """A folder holding ``stream``'s documents in three files of 33, and an empty file."""
    folder = tmp_path / "manifests"
    folder.mkdir()
    documents = stream.split("---\n")
    for number in range(3):
        (folder / f"{number}.yaml").write_text("---\n".join(documents[number * 33 :][:33]))
    (folder / "empty.yaml").write_text("# nothing yet\n")
    return folder


def test_several_files_folded_in_a_worker_say_what_one_process_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _three_files_and_an_empty_one(tmp_path, jobs(90))
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


def refused_first(tmp_path: Path, case: str) -> list[str]:
    """``apply`` of a long stream whose run cannot be made, or is made with a word
    (``case``): the overlays and flags are taken in the worker, while the first parts
    are read."""
    stream = _written(tmp_path / "jobs.yaml", jobs(60))
    late = _written(tmp_path / "late.yaml", jobs(60) + "---\nkind: Job\nspec: [1, 2\n")
    overlay = tmp_path / "overlay.yaml"
    if case == "an overlay missing":
        return ["apply", "-f", str(tmp_path / "missing.yaml"), str(stream)]
    if case == "an overlay's syntax error, and the stream's":
        return ["apply", "-f", str(_written(overlay, "spec: [\n")), str(late)]
    if case == "an unknown step":
        return ["apply", "-f", str(_written(overlay, "- op: upsrt\n  path: a\n")), str(stream)]
    if case == "a version that is no version":
        return ["apply", "-f", str(A100), "--k8s-version", "one.x", str(late)]
    if case == "a denied path no pod has":
        return ["apply", "-f", str(A100), "--deny", "spec.hostNetwrk", str(late)]
    if case == "a selector that is no selector":
        return ["apply", "-f", str(A100), "--select", "colour=red", str(stream)]
    assert case == "an overlay with no step"
    return ["apply", "-f", str(_written(overlay, "# nothing yet\n")), str(stream)]


@pytest.mark.parametrize(
    "case",
    [
        "an overlay missing",
        "an overlay's syntax error, and the stream's",
        "an unknown step",
        "a version that is no version",
        "a denied path no pod has",
        "a selector that is no selector",
        "an overlay with no step",
    ],
)
def test_what_making_the_run_in_the_worker_says_is_what_one_process_says(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alone, folded = both(refused_first(tmp_path, case), tmp_path, monkeypatch)
    if case == "an overlay with no step":
        assert alone.returncode == 0, alone.stderr
        assert "no step" in alone.stderr and alone.stdout.count("kind: Job") == 60
    else:
        assert alone.returncode in (1, 2) and alone.stdout == "", alone.stderr
        assert "late.yaml" not in alone.stderr  # what the overlays and flags say comes first
    same(alone, folded)


def invalid_jobs(count: int) -> str:
    """``count`` Jobs, every ninth with a problem (a limit that is no quantity), a warning
    (an env name twice) every eleventh, beside the kinds and booleans of :func:`jobs`."""
    documents = jobs(count).split("---\n")
    for number, document in enumerate(documents):
        if number % 9 == 4 and "kind: Job" in document:
            document += "        resources: {limits: {cpu: lots}}\n"
        if number % 11 == 7 and "kind: Job" in document:
            document += "        env: [{name: A, value: '1'}, {name: A, value: '2'}]\n"
        documents[number] = document
    return "---\n".join(documents)


@pytest.mark.parametrize("case", ["valid", "problems", "a policy", "a syntax error late"])
def test_a_stream_validated_in_a_worker_says_what_one_process_says(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = tmp_path / "jobs.yaml"
    text = (
        jobs(120).replace("{shard: y}", "{shard: 'y'}")
        if case in ("valid", "a policy")
        else invalid_jobs(120)
    )
    if case == "a syntax error late":
        text += "---\nkind: Job\nspec: [1, 2\n"
    stream.write_text(text)
    args = ["validate", *(["--policy", "restricted"] if case == "a policy" else []), str(stream)]
    alone, folded = both(args, tmp_path, monkeypatch)
    if case == "valid":
        assert alone.returncode == 0, alone.stderr
        assert alone.stdout == ""
        assert alone.stderr.splitlines()[-1] == (
            "podfold: 120 pod templates in 131 documents: valid; 11 documents hold pods "
            "podfold does not reach, not checked (named above)"
        )
        assert "jobs.yaml: document 115: Trainer/t" in alone.stderr  # a kind unreached
    elif case == "a syntax error late":
        assert (alone.returncode, alone.stdout) == (1, "")  # the problems before: withheld
        assert "expected ',' or ']'" in alone.stderr
    else:
        assert alone.returncode == 1
        lines = alone.stdout.splitlines()
        assert len(lines) > 20 and lines == sorted(
            lines, key=lambda line: int(line.split("document ")[1].split(":")[0])
        )  # in the stream's order
        if case == "problems":
            assert any("warning: " in line for line in lines)
    same(alone, folded)
    if case == "problems":  # from a pipe, as from the file
        piped = both(["validate", "-"], tmp_path, monkeypatch, input=text)
        same(*piped)
        assert piped[1].stdout == alone.stdout.replace(str(stream), "<stdin>")


def test_several_files_validated_in_a_worker_say_what_one_process_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _three_files_and_an_empty_one(tmp_path, invalid_jobs(90))
    alone, folded = both(["validate", str(folder)], tmp_path, monkeypatch)
    assert alone.returncode == 1 and "empty.yaml: no documents" in alone.stderr
    assert {line.split(":")[0] for line in alone.stdout.splitlines()} == {
        str(folder / f"{number}.yaml") for number in range(3)
    }
    same(alone, folded)
    empty = tmp_path / "empty"
    empty.mkdir()
    for number in range(2):
        (empty / f"{number}.yaml").write_text("# nothing\n")
    same(*both(["validate", str(empty)], tmp_path, monkeypatch))


def test_a_worker_that_dies_ends_the_run_naming_how_and_prints_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = tmp_path / "jobs.yaml"
    stream.write_text(jobs(120))
    monkeypatch.setattr(batches, "PART_BYTES", 300)
    monkeypatch.setattr(worker, "WORKER_BYTES", 0)
    child = worker._child

    def dies(run: Any, made: bool, receive: Any, send: Any) -> None:
        receive.recv()  # a stream begun: the reader is sending its parts
        os.kill(os.getpid(), signal.SIGKILL)
        child(run, made, receive, send)  # pragma: no cover - killed

    monkeypatch.setattr(worker, "_child", dies)
    done = warm.run("podfold", ["apply", "-f", str(A100), str(stream)], timeout=60)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == (
        "podfold: error: the process folding the stream was ended by SIGKILL; nothing was printed\n"
    )


# what the run's making loads, that the reader of the stream never needs
OVERLAYS_MODULES = ("transforms.io.loading", "transforms.forms", "transforms.checks.fields")


def test_the_reader_forks_before_the_overlays_modules_are_loaded(tmp_path: Path) -> None:
    stream = _written(tmp_path / "jobs.yaml", jobs(60))
    listed = tmp_path / "loaded-at-fork.txt"
    code = textwrap.dedent(f"""
        import sys
        from transforms.io import batches
        from transforms.cli import script, worker

        def hook(event, args):  # raised in the process that forks, before it forks
            if event == "os.fork":
                names = {OVERLAYS_MODULES!r} + ("multiprocessing",)
                with open({str(listed)!r}, "a") as out:
                    out.write(" ".join(["fork:", *(n for n in names if n in sys.modules)]))

        sys.addaudithook(hook)
        worker.WORKER_BYTES, batches.PART_BYTES = 0, 300
        sys.argv = ["podfold", "apply", "-f", {str(A100)!r}, {str(stream)!r}]
        script()
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("nvidia-tesla-a100") == 60  # the overlays were loaded: there
    assert listed.read_text() == "fork:"  # one fork, none of those loaded here before it


def test_an_overlay_refused_is_said_at_once_while_stdin_gives_nothing(tmp_path: Path) -> None:
    podfold = Path(sys.executable).parent / "podfold"
    with subprocess.Popen(
        [str(podfold), "apply", "-f", str(tmp_path / "missing.yaml"), "-"],
        stdin=subprocess.PIPE,  # a pipe (long, for the worker) whose writer says nothing
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as running:
        assert running.stdin is not None and running.stderr is not None
        try:
            code = running.wait(timeout=60)  # not waiting for stdin to give a part
        finally:
            running.stdin.close()
        said = running.stderr.read().decode()
    assert code == 1
    assert said.startswith("podfold: error: ") and "missing.yaml: cannot read the overlay" in said


@pytest.mark.parametrize("where", ["the worker", "the reader"])
def test_a_message_that_cannot_be_taken_fails_the_run_never_hangs_it(
    where: str, tmp_path: Path
) -> None:
    stream = _written(tmp_path / "jobs.yaml", jobs(60))
    code = textwrap.dedent(f"""
        import os, sys
        from transforms.cli import channel, script, worker
        from transforms.io import batches

        reader, taken, real = os.getpid(), [0], channel.Reading.recv
        def recv(self):  # the third message taken there: no memory left for it
            if (os.getpid() != reader) == {where == "the worker"!r}:
                taken[0] += 1
                if taken[0] == 3:
                    raise MemoryError("no room for the message")
            return real(self)

        channel.Reading.recv = recv
        worker.WORKER_BYTES, batches.PART_BYTES = 0, 300
        sys.argv = ["podfold", "apply", "-f", {str(A100)!r}, {str(stream)!r}]
        script()
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (1, "")
    assert "Traceback" not in done.stderr  # the thread's failure is the run's, said once
    assert done.stderr.endswith(  # after what the parts taken before it said
        "podfold: internal error: MemoryError: no room for the message "
        "(run with --debug for the traceback)\n"
    )


def test_a_closed_stderr_leaves_the_run_as_one_process_leaves_it(tmp_path: Path) -> None:
    stream = _written(tmp_path / "jobs.yaml", jobs(60))  # with warnings, said on stderr
    driver = _written(
        tmp_path / "driver.py",
        "import sys\nfrom transforms.cli import script, worker\nfrom transforms.io import batches\n"
        "worker.WORKER_BYTES, batches.PART_BYTES = 0, 300\nscript()\n",
    )
    runs = [
        subprocess.run(  # stderr closed: Python's sys.stderr is None
            f"'{sys.executable}' '{driver}' {flag} apply -f '{A100}' '{stream}' 2>&-",
            shell=True,
            capture_output=True,
            text=True,
            timeout=60,
        )
        for flag in ("", "--debug")  # --debug: in one process
    ]
    assert runs[0].returncode == runs[1].returncode == 0
    assert runs[0].stdout == runs[1].stdout
    assert runs[0].stdout.count("nvidia-tesla-a100") == 60


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
        # the interrupt's one line, and no traceback from either process
        assert said.decode().strip() == "podfold: aborted", said.decode()
    else:
        assert reader.returncode == -signal.SIGTERM
    deadline = time.monotonic() + 10
    while _alive(folding):  # the worker, left without its reader, ends too
        assert time.monotonic() < deadline, f"the worker {folding} outlived its reader"
        time.sleep(0.05)
