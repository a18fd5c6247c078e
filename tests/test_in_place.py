"""``podfold apply --in-place``: each changed file written back, only the lines the change
needs, atomically; and the faults an in-place write must survive (SIGINT, SIGTERM, a full
disk, a directory that cannot be written to), each leaving every file whole."""

from __future__ import annotations

import difflib
import errno
import os
import resource
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests import warm
from transforms.io.writing import WriteError, write_in_place

REPO = Path(__file__).resolve().parent.parent
A100 = REPO / "examples" / "a100.yaml"

JOB = """\
# why this job exists: keep me
apiVersion: batch/v1
kind: Job
metadata:
  name: pi   # the name
spec:
  template:
    spec:
      containers:
      - name: pi
        image: "perl:5.34"   # pinned
        command: ["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"]

      restartPolicy: Never
---
# a comment-only document stays
"""
CONFIG = "# nothing for the overlays here\nkind: ConfigMap\ndata: {a: 'y'}\n"
ALIASED = "kind: Pod\nmetadata: &m {name: p}\nspec:\n  containers: [{name: c, image: x}]\nx: *m\n"
SELECTOR = "spec:\n  nodeSelector: {pool: gpu}\n"


def podfold(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return warm.run("podfold", args, cwd=cwd)


def changed_lines(before: str, after: str) -> list[str]:
    return [
        line
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def test_in_place_writes_only_the_changed_files_and_lines(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(JOB)
    (tmp_path / "job.yaml").chmod(0o604)
    (tmp_path / "cm.yaml").write_text(CONFIG)
    (tmp_path / "o.yaml").write_text(SELECTOR)
    untouched = (tmp_path / "cm.yaml").stat()
    done = podfold("apply", "-f", "o.yaml", "-i", "job.yaml", "cm.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert done.stderr == "podfold: job.yaml: written in place\n"
    written = (tmp_path / "job.yaml").read_text()
    assert changed_lines(JOB, written) == ["+      nodeSelector:", "+        pool: gpu"]
    assert oct((tmp_path / "job.yaml").stat().st_mode & 0o777) == "0o604"
    now = (tmp_path / "cm.yaml").stat()
    assert (now.st_ino, now.st_mtime_ns) == (untouched.st_ino, untouched.st_mtime_ns)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cm.yaml", "job.yaml", "o.yaml"]
    again = podfold("apply", "-f", "o.yaml", "-i", ".", cwd=tmp_path)  # nothing left to change
    assert again.returncode == 0 and again.stderr == (  # the overlay is no manifest of "."
        "podfold: warning: ./o.yaml: given as an overlay (-f), so left out of the manifests of .\n"
    )
    assert (tmp_path / "job.yaml").read_text() == written


def test_an_upstream_file_s_new_lists_are_indented_as_its_own(tmp_path: Path) -> None:
    # Kubeflow's PyTorchJob sample indents its lists under their keys ('args:' then
    # '  - "python3"'), as many upstream manifests and Helm's charts do
    upstream = REPO / "tests" / "manifests" / "kubeflow" / "pytorchjob-simple.yaml"
    original = upstream.read_text()
    (tmp_path / "job.yaml").write_text(original)
    done = podfold("apply", "-f", str(A100), "-i", "job.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    each_replica = [
        "+              volumeMounts:",
        "+                - mountPath: /dev/shm",
        "+                  name: dshm",
        "+              env:",
        "+                - name: NCCL_DEBUG",
        "+                  value: INFO",
        "+          nodeSelector:",
        "+            cloud.google.com/gke-accelerator: nvidia-tesla-a100",
        "+          tolerations:",
        "+            - key: nvidia.com/gpu",
        "+              operator: Exists",
        "+              effect: NoSchedule",
        "+          volumes:",
        "+            - name: dshm",
        "+              emptyDir:",
        "+                medium: Memory",
        "+                sizeLimit: 16Gi",
    ]
    assert changed_lines(original, (tmp_path / "job.yaml").read_text()) == 2 * each_replica


def test_a_list_a_strategic_patch_reorders_keeps_its_comments(tmp_path: Path) -> None:
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
        "  - name: trainer   # the main one\n    image: trainer:1.4\n"
        "  # the sidecar ships logs\n  - name: logs\n    image: fluent-bit:3.0\n"
        "  restartPolicy: Never\n"
    )
    (tmp_path / "pod.yaml").write_text(pod)
    (tmp_path / "order.yaml").write_text(
        "- strategic:\n    spec:\n"
        "      $setElementOrder/containers: [{name: logs}, {name: trainer}]\n"
    )
    done = podfold("apply", "-f", "order.yaml", "-i", "pod.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "pod.yaml").read_text() == pod.replace(
        "  - name: trainer   # the main one\n    image: trainer:1.4\n", ""
    ).replace(
        "  restartPolicy",
        "  - name: trainer   # the main one\n    image: trainer:1.4\n  restartPolicy",
    )


def test_a_file_that_cannot_be_edited_exactly_is_refused_and_the_others_written(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.yaml").write_text(ALIASED)
    (tmp_path / "b.yaml").write_text(JOB)
    (tmp_path / "o.yaml").write_text("metadata:\n  labels: {team: ml}\n")
    done = podfold("apply", "-f", "o.yaml", "-i", "a.yaml", "b.yaml", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "podfold: error: a.yaml:2:11: cannot edit in place: document 1: metadata is anchored "
        "(&): an alias may stand for it elsewhere; the file is left as it is",
        "podfold: b.yaml: written in place",
    ]
    assert (tmp_path / "a.yaml").read_text() == ALIASED
    assert changed_lines(JOB, (tmp_path / "b.yaml").read_text()) == [
        "+    metadata:",
        "+      labels:",
        "+        team: ml",
    ]


def test_in_place_refuses_stdin_and_o(tmp_path: Path) -> None:
    (tmp_path / "o.yaml").write_text(SELECTOR)
    (tmp_path / "job.yaml").write_text(JOB)
    stdin = podfold("apply", "-f", "o.yaml", "-i", cwd=tmp_path)
    assert stdin.returncode == 2 and "not standard input" in stdin.stderr
    remote = podfold("apply", "-f", "o.yaml", "-i", "s3://bucket/job.yaml", cwd=tmp_path)
    assert remote.returncode == 2 and "not s3://bucket/job.yaml" in remote.stderr
    output = podfold("apply", "-f", "o.yaml", "-i", "-o", "json", "job.yaml", cwd=tmp_path)
    assert output.returncode == 2 and "-o json is for what is printed" in output.stderr
    assert (tmp_path / "job.yaml").read_text() == JOB


def test_a_failed_check_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(JOB)
    (tmp_path / "o.yaml").write_text("spec:\n  hostNetwork: true\n")
    done = podfold("apply", "-f", "o.yaml", "-i", "--policy", "baseline", "job.yaml", cwd=tmp_path)
    assert done.returncode == 1 and "violation" in done.stderr
    assert (tmp_path / "job.yaml").read_text() == JOB


# ---------------------------------------------------------------- faults of the write


@pytest.fixture
def target(tmp_path: Path) -> Path:
    path = tmp_path / "job.yaml"
    path.write_text(JOB)
    path.chmod(0o640)
    return path


def whole_and_alone(path: Path) -> None:
    """The file is as it was, and no temporary file is left beside it."""
    assert path.read_text() == JOB
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def fail_at(monkeypatch: pytest.MonkeyPatch, name: str, fault: Callable[..., Any]) -> None:
    monkeypatch.setattr(f"os.{name}", fault)  # the os module the writer calls


def test_a_full_disk_leaves_the_file_whole(target: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = os.write
    calls: list[int] = []

    def full(descriptor: int, data: Any) -> int:
        calls.append(1)
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(descriptor, bytes(data[:10]))  # takes part, then the disk is full

    fail_at(monkeypatch, "write", full)
    with pytest.raises(WriteError) as caught:
        write_in_place(str(target), JOB * 3)
    assert str(caught.value) == (
        f"{target}: cannot write the file in place: No space left on device (ENOSPC); "
        f"it is left as it was"
    )
    whole_and_alone(target)


def test_a_directory_that_cannot_be_written_leaves_the_file_whole(
    target: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def read_only(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr("tempfile.mkstemp", read_only)
    with pytest.raises(WriteError, match=r"Read-only file system \(EROFS\); it is left as it was"):
        write_in_place(str(target), "kind: Job\n")
    whole_and_alone(target)


def test_sigint_while_writing_leaves_the_file_whole(
    target: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(descriptor: int) -> None:
        os.kill(os.getpid(), signal.SIGINT)  # Python's handler: KeyboardInterrupt, here

    fail_at(monkeypatch, "fsync", interrupted)
    # Python's own handler, whatever an earlier test of this process set (TorchX's local
    # scheduler sets one that raises its own SignalException)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            write_in_place(str(target), "kind: Job\n")
    finally:
        signal.signal(signal.SIGINT, previous)
    whole_and_alone(target)


def in_child(work: Callable[[], None]) -> int:
    """Run ``work`` in a forked child; its wait status."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            work()
        except WriteError as err:
            os._exit(3 if err.errno in (errno.EFBIG, errno.ENOSPC) else 4)
        except BaseException:
            os._exit(5)
        os._exit(0)
    return os.waitpid(pid, 0)[1]


def test_sigterm_while_writing_leaves_the_file_whole_and_ends_the_run_by_it(
    target: Path,
) -> None:
    def work() -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # as a run starts (not an earlier test's)
        setattr(os, "fsync", lambda descriptor: os.kill(os.getpid(), signal.SIGTERM))  # noqa: B010
        write_in_place(str(target), "kind: Job\n")

    status = in_child(work)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM
    whole_and_alone(target)


def test_a_file_past_its_size_limit_leaves_the_file_whole(target: Path) -> None:
    def work() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (256, 256))
        write_in_place(str(target), JOB * 10)

    status = in_child(work)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 3
    whole_and_alone(target)


def test_a_symbolic_link_keeps_pointing_at_the_file_written(tmp_path: Path) -> None:
    real = tmp_path / "real.yaml"
    real.write_text(JOB)
    link = tmp_path / "link.yaml"
    link.symlink_to(real.name)
    write_in_place(str(link), "kind: Job\n")
    assert link.is_symlink() and real.read_text() == "kind: Job\n"


def test_a_failure_on_one_file_leaves_every_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from transforms.io.writing import write_files_in_place

    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text(JOB)
    second.write_text(JOB)
    real_fsync = os.fsync
    seen: list[int] = []

    def fails_second(descriptor: int) -> None:
        seen.append(descriptor)
        if len(seen) == 2:
            raise OSError(errno.EIO, "Input/output error")
        real_fsync(descriptor)

    fail_at(monkeypatch, "fsync", fails_second)
    with pytest.raises(WriteError, match="Input/output error"):
        write_files_in_place([(str(first), "kind: Job\n"), (str(second), "kind: Job\n")])
    assert first.read_text() == JOB and second.read_text() == JOB
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.yaml", "b.yaml"]
