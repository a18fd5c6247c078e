"""Output is never lost: a write of podfold's output that fails, or takes part of what it
was given, is an error; and a stream with no document is refused where its output or its
verdict would be about nothing.

The installed ``podfold``, in child processes with time limits, writing to the real
faults: ``/dev/full`` (``ENOSPC``), a file at its size limit (``RLIMIT_FSIZE`` with
``SIGXFSZ`` ignored: ``EFBIG``), a full tmpfs (where mounting one is permitted), a closed
descriptor 1 (``>&-``), and a pipe whose reader stops reading (after 10 bytes of an output
larger than the pipe, before any byte of one the pipe would hold whole); each with and
without ``PYTHONUNBUFFERED=1`` (an unbuffered stdout takes part of a write and says so only
in the count it returns), for every command that writes output, YAML and JSON, outputs of
megabytes (through many buffers) and of a few lines (in one buffer, written as podfold ends).
By default every command meets a fault, and every fault meets every size of output with
both bufferings (21 runs of podfold); ``PODFOLD_FAULT_MATRIX=full`` runs the whole product,
every command against every fault with both bufferings (130 runs), as CI does.

What each ends in: a full disk, a file too large, a closed stdout: exit code 1 and one line
on stderr naming stdout (and the file behind it) and the system's reason, what was written a
prefix of the output; a reader that went away: podfold ends silently by ``SIGPIPE``, as
``yes | head`` ends ``yes``. Never exit code 0, never "Exception ignored", never a traceback.
"""

from __future__ import annotations

import errno
import os
import re
import resource
import shlex
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
PODFOLD = Path(sys.executable).with_name("podfold")
A100 = REPO / "examples" / "a100.yaml"
DEPLOYMENT = REPO / "tests" / "manifests" / "kubernetes" / "nginx-deployment.yaml"
TIMEOUT = 300

NAMES = {errno.ENOSPC: "No space left on device (ENOSPC)", errno.EFBIG: "File too large (EFBIG)"}


# ---------------------------------------------------------------- what each command writes


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Manifests for outputs of a few lines and of megabytes."""
    root = tmp_path_factory.mktemp("inputs")
    deployment = DEPLOYMENT.read_text()
    block = "".join(f"    line {n} {'x' * 100}\n" for n in range(100))
    data = "".join(f"  key{n}: |\n{block}" for n in range(200))  # 2.2 MB, one ConfigMap
    (root / "large.yaml").write_text(
        f"{deployment}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: large\ndata:\n{data}"
    )
    (root / "many.yaml").write_text(
        "---\n".join(
            deployment.replace("name: nginx-deployment", f"name: web-{n}") for n in range(300)
        )
    )

    def pod(containers: int) -> str:
        return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n" + "".join(
            f"  - name: c{n}\n    image: nginx\n    imagePullPolicy: Sometimes\n"
            for n in range(containers)
        )

    (root / "invalid.yaml").write_text(pod(1))
    (root / "invalids.yaml").write_text(pod(1000))  # 1,000 lines of problems, 160 kB
    return {path.stem: path for path in root.iterdir()}


@dataclass(frozen=True)
class Command:
    """A podfold command line that writes output, and how much of it."""

    name: str
    args: Callable[[dict[str, Path]], list[str]]
    large: bool
    marks: tuple[Any, ...] = ()

    def param(self, *rest: Any) -> Any:
        return pytest.param(
            self, *rest, marks=self.marks, id="-".join([self.name, *(str(item) for item in rest)])
        )


HELD_IN_MEMORY = 2**20
"""What ``apply`` and ``validate`` hold of their output in memory before a temporary file
takes it."""

RENDER = ["render", "--queue", "default", "-f", str(A100), "examples/trainer.py:trainer"]
COMMANDS = (
    Command("apply-yaml", lambda paths: ["apply", "-f", str(A100), str(DEPLOYMENT)], False),
    Command(
        "apply-yaml-large", lambda paths: ["apply", "-f", str(A100), str(paths["large"])], True
    ),
    Command(
        "apply-json", lambda paths: ["apply", "-o", "json", "-f", str(A100), str(DEPLOYMENT)], False
    ),
    Command(
        "apply-json-large",
        lambda paths: ["apply", "-o", "json", "-f", str(A100), str(paths["large"])],
        True,
    ),
    Command("explain", lambda paths: ["explain", "-f", str(A100), str(DEPLOYMENT)], False),
    Command(
        "explain-large",
        lambda paths: ["explain", "-f", str(A100), str(paths["many"])],
        True,
    ),
    Command("validate", lambda paths: ["validate", str(paths["invalid"])], False),
    Command("validate-large", lambda paths: ["validate", str(paths["invalids"])], True),
    Command("render-yaml", lambda paths: RENDER, False),
    Command("render-json", lambda paths: [*RENDER[:1], "-o", "json", *RENDER[1:]], False),
    Command("render-yaml-large", lambda paths: [*RENDER, "--replicas", "80"], True),
    Command("recipes", lambda paths: ["recipes"], False),
    Command("recipes-name", lambda paths: ["recipes", "shm_size"], False),
)
BUFFERING = ("buffered", "unbuffered")
FAULTS = ("full-device", "size-limit", "full-filesystem", "closed-stdout", "reader-stops")

#: ``full``: every command with both bufferings against every fault (130 runs of podfold),
#: as CI runs it. By default, a cover (:func:`_cover`): every command meets one fault, and
#: every fault meets each size of output with each buffering, in 21 runs.
FULL_MATRIX = os.environ.get("PODFOLD_FAULT_MATRIX", "") == "full"


def _cover() -> list[tuple[Command, str, str]]:
    """The default runs, as ``(command, fault, buffering)``: each command with a fault and
    a buffering taken in turn, then, for each fault, size of output and buffering that no
    run has yet, the command of that size that has met fewest faults (rendering, which
    starts TorchX, last)."""
    runs = [
        (command, FAULTS[number % len(FAULTS)], BUFFERING[number // len(FAULTS) % 2])
        for number, command in enumerate(COMMANDS)
    ]
    for fault in FAULTS:
        for large in (False, True):
            for buffering in BUFFERING:
                if (fault, large, buffering) in {(f, c.large, b) for c, f, b in runs}:
                    continue
                met = {(c.name, f) for c, f, _ in runs}
                fresh = [c for c in COMMANDS if c.large == large and (c.name, fault) not in met]
                chosen = min(
                    fresh,
                    key=lambda c: (c.name.startswith("render"), sum(r[0] is c for r in runs)),
                )
                runs.append((chosen, fault, buffering))
    return runs


def matrix(fault: str) -> list[Any]:
    """The (command, buffering) cases of ``fault``."""
    if FULL_MATRIX:
        return [command.param(buffering) for command in COMMANDS for buffering in BUFFERING]
    return [command.param(buffering) for command, f, buffering in _cover() if f == fault]


def environment(buffering: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # the size limit is for the output, not a .pyc
    if buffering == "unbuffered":
        env["PYTHONUNBUFFERED"] = "1"
    return env


def podfold(
    args: list[str], stdout: Any, buffering: str, preexec_fn: Callable[[], None] | None = None
) -> tuple[int, str]:
    """Run podfold with ``stdout``: its exit status and what it wrote on stderr (a pipe:
    a file would be under the size limit too)."""
    done = subprocess.run(
        [str(PODFOLD), *args],
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=subprocess.PIPE,
        cwd=REPO,
        env=environment(buffering),
        preexec_fn=preexec_fn,
        timeout=TIMEOUT,
        check=False,
    )
    return done.returncode, done.stderr.decode()


@pytest.fixture(scope="module")
def complete(
    inputs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Callable[[Command], bytes]:
    """What each command writes whole, to a file with room for it."""
    root = tmp_path_factory.mktemp("complete")
    written: dict[str, bytes] = {}

    def of(command: Command) -> bytes:
        if command.name not in written:
            out = root / command.name
            with out.open("wb") as stdout:
                status, stderr = podfold(command.args(inputs), stdout, "buffered")
            assert status == (1 if command.name.startswith("validate") else 0), stderr
            written[command.name] = out.read_bytes()
            # a large output passes through the pipe's and the file's buffers twice at least
            assert len(written[command.name]) > (1 << 17 if command.large else 0)
        return written[command.name]

    return of


def is_prefix(written: bytes, whole: bytes) -> bool:
    """Whether ``written`` is how ``whole`` begins, the name TorchX draws for each job aside."""

    def drawn(data: bytes) -> bytes:
        return re.sub(rb"trainer-[0-9a-z]*", b"trainer-*", data)

    return drawn(whole).startswith(drawn(written))


def the_error(text: str) -> str:
    """The one error line on stderr, with nothing else there but warnings."""
    assert "Traceback" not in text and "Exception ignored" not in text, text
    lines = [line for line in text.splitlines() if not line.startswith("podfold: warning: ")]
    assert len(lines) == 1 and lines[0].startswith("podfold: error: "), text
    return lines[0].removeprefix("podfold: error: ")


def ended_by_sigpipe(status: int, text: str) -> None:
    assert status == -signal.SIGPIPE, (status, text)
    assert "error" not in text and "Exception ignored" not in text, text


# ---------------------------------------------------------------- faults


def test_the_matrix_covers_every_command_and_every_fault_size_and_buffering() -> None:
    cases = {
        (fault, case.values[0].name, case.values[1]) for fault in FAULTS for case in matrix(fault)
    }
    large = {command.name: command.large for command in COMMANDS}
    assert {c for _, c, _ in cases} == {c.name for c in COMMANDS}
    assert {(f, large[c], b) for f, c, b in cases} == {
        (f, size, b) for f in FAULTS for size in (False, True) for b in BUFFERING
    }
    if FULL_MATRIX:
        assert len(cases) == len(FAULTS) * len(COMMANDS) * len(BUFFERING)
    else:
        assert len(cases) < len(FAULTS) * len(COMMANDS)  # a run per fault of each, and less
        assert sum(name.startswith("render") for _, name, _ in cases) == 3


@pytest.mark.parametrize(("command", "buffering"), matrix("full-device"))
def test_a_full_device_is_an_error(
    command: Command, buffering: str, inputs: dict[str, Path], tmp_path: Path
) -> None:
    # /dev/full refuses every write with ENOSPC: small outputs fail as podfold ends
    with open("/dev/full", "wb") as full:
        status, stderr = podfold(command.args(inputs), full, buffering)
    assert status == 1
    assert (
        the_error(stderr)
        == f"stdout: cannot write the output: {NAMES[errno.ENOSPC]}; what was written is incomplete"
    )


@pytest.mark.parametrize(("command", "buffering"), matrix("size-limit"))
def test_a_file_past_its_size_limit_is_an_error(
    command: Command,
    buffering: str,
    inputs: dict[str, Path],
    tmp_path: Path,
    complete: Callable[[Command], bytes],
) -> None:
    # RLIMIT_FSIZE: a write past the limit takes what fits, the next one fails with EFBIG
    limit = 1 << 16 if command.large else 100
    whole = complete(command)
    assert len(whole) > limit

    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    out = tmp_path / "out.yaml"
    with out.open("wb") as stdout:
        status, stderr = podfold(command.args(inputs), stdout, buffering, limited)
    assert status == 1
    if command.name.startswith(("apply", "validate")) and len(whole) > HELD_IN_MEMORY:
        # apply (and validate) holds what it prints until the run has succeeded, past a
        # megabyte in a temporary file: the limit is on every file the process writes,
        # that one first
        assert the_error(stderr) == (
            f"stdout: cannot hold the output until the run ends, in the temporary "
            f"directory (TMPDIR): {NAMES[errno.EFBIG]}; nothing was printed"
        )
        assert out.read_bytes() == b""
        return
    assert the_error(stderr) == (
        f"stdout ({out}): cannot write the output: "
        f"{NAMES[errno.EFBIG]}; what was written is "
        f"incomplete"
    )
    written = out.read_bytes()
    assert len(written) == limit and is_prefix(written, whole)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs of 64 KiB, mounted for the test."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"a tmpfs cannot be mounted here: {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True, timeout=60, check=True)


@pytest.mark.parametrize(("command", "buffering"), matrix("full-filesystem"))
def test_a_full_filesystem_is_an_error(
    command: Command,
    buffering: str,
    inputs: dict[str, Path],
    tmp_path: Path,
    small_disk: Path,
    complete: Callable[[Command], bytes],
) -> None:
    # a large output fills the disk; for a small one, the disk is full already
    if not command.large:
        filler = os.open(small_disk / "filler", os.O_WRONLY | os.O_CREAT)
        try:
            with pytest.raises(OSError) as full:
                while True:
                    os.write(filler, b"\0" * 4096)
        finally:
            os.close(filler)
        assert full.value.errno == errno.ENOSPC
    out = small_disk / "out.yaml"
    with out.open("wb") as stdout:
        status, stderr = podfold(command.args(inputs), stdout, buffering)
    assert status == 1
    assert the_error(stderr) == (
        f"stdout ({out}): cannot write the output: "
        f"{NAMES[errno.ENOSPC]}; what was written is "
        f"incomplete"
    )
    assert is_prefix(out.read_bytes(), complete(command))


@pytest.mark.parametrize(("command", "buffering"), matrix("closed-stdout"))
def test_a_closed_stdout_is_an_error(
    command: Command, buffering: str, inputs: dict[str, Path], tmp_path: Path
) -> None:
    # podfold ... >&- : descriptor 1 is not open when podfold starts
    status, stderr = podfold(
        command.args(inputs), subprocess.DEVNULL, buffering, lambda: os.close(1)
    )
    assert status == 1
    assert the_error(stderr) == (
        "stdout: cannot write the output: it is closed (EBADF); give podfold a stdout, "
        "a file or a pipe ('> out.yaml')"
    )


@pytest.mark.parametrize(("command", "buffering"), matrix("reader-stops"))
def test_a_reader_that_stops_ends_podfold_by_sigpipe(
    command: Command, buffering: str, inputs: dict[str, Path], tmp_path: Path
) -> None:
    # podfold ... | head -c 10: the pipe holds 64 KiB, so a small output is refused only
    # where the reader is gone before podfold writes; a large one, after 10 bytes
    if not command.large:
        reader, writer = os.pipe()
        os.close(reader)
        try:
            status, stderr = podfold(command.args(inputs), writer, buffering)
        finally:
            os.close(writer)
    else:
        child = subprocess.Popen(
            [str(PODFOLD), *command.args(inputs)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=REPO,
            env=environment(buffering),
        )
        try:
            assert child.stdout is not None
            assert len(child.stdout.read(10)) == 10
            child.stdout.close()
            stderr = child.communicate(timeout=TIMEOUT)[1].decode()
            status = child.returncode
        finally:
            child.kill()
            child.wait(TIMEOUT)
    ended_by_sigpipe(status, stderr)


def test_the_shell_sees_a_broken_pipe_as_head_s_writer_does(inputs: dict[str, Path]) -> None:
    # yes | head -c 10 and podfold apply ... | head -c 10 end with the same status
    apply = shlex.join([str(PODFOLD), "apply", "-f", str(A100), str(inputs["large"])])
    script = (
        f"yes | head -c 10 >/dev/null; yes=${{PIPESTATUS[0]}}; "
        f"{apply} | head -c 10 >/dev/null; echo $yes ${{PIPESTATUS[0]}}"
    )
    done = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=environment("unbuffered"),
        timeout=TIMEOUT,
        check=False,
    )
    assert done.stdout.split() == ["141", "141"], done.stderr
    assert done.stderr == ""


def test_a_valid_stream_with_stdout_closed_loses_nothing() -> None:
    # validate writes on stdout only the problems it finds: with none, nothing is lost
    status, stderr = podfold(
        ["validate", str(DEPLOYMENT)], subprocess.DEVNULL, "unbuffered", lambda: os.close(1)
    )
    assert (status, stderr) == (0, "podfold: 1 pod template in 1 document: valid\n")


# ---------------------------------------------------------------- a stream with no document


EMPTY = "---\n# nothing here yet\n---\n"


@pytest.mark.parametrize(
    ("command", "purpose"),
    [
        (["apply", "-f", str(A100)], "apply the overlays to"),
        (["validate"], "validate"),
    ],
)
def test_a_stream_with_no_document_is_an_error(
    command: list[str], purpose: str, tmp_path: Path
) -> None:
    # as kubectl apply refuses one: "error: no objects passed to apply"
    manifest = tmp_path / "job.yaml"
    for text in ("", EMPTY):
        manifest.write_text(text)
        for source, args, stdin in (
            (str(manifest), [*command, str(manifest)], None),
            ("<stdin>", [*command, "-"], text),
        ):
            done = subprocess.run(
                [str(PODFOLD), *args],
                input=stdin,
                capture_output=True,
                text=True,
                cwd=REPO,
                timeout=TIMEOUT,
                check=False,
            )
            assert (done.returncode, done.stdout) == (1, ""), done.stderr
            assert done.stderr == (
                f"podfold: error: {source}: no documents (the input is "
                f"empty, or only comments and '---'): nothing to "
                f"{purpose}\n"
            )


@pytest.mark.parametrize(
    ("script", "named"),
    [
        ('"$0" apply -f "$1" "$2" > "$2"', "job.yaml"),
        ('"$0" apply -f "$1" < "$2" > "$2"', "<stdin>"),
    ],
)
def test_apply_onto_its_own_input_is_an_error_that_says_so(
    script: str, named: str, tmp_path: Path
) -> None:
    # the shell empties job.yaml before podfold reads it
    job = tmp_path / "job.yaml"
    job.write_text(DEPLOYMENT.read_text())
    done = subprocess.run(
        ["sh", "-c", script, str(PODFOLD), str(A100), str(job)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=TIMEOUT,
        check=False,
    )
    source = str(job) if named == "job.yaml" else named
    assert done.returncode == 1
    assert done.stderr == (
        f"podfold: error: {source}: no documents (the input is empty, or "
        f"only comments and '---'): nothing to apply the overlays to; "
        f"{source} is the file stdout writes to, so the shell emptied it "
        f"before podfold started: write the output to another file\n"
    )


def test_explain_of_a_stream_with_no_document_warns_as_kubectl_diff_succeeds(
    tmp_path: Path,
) -> None:
    # explain writes a diff, never the stream back: nothing to lose, as kubectl diff says
    manifest = tmp_path / "empty.yaml"
    manifest.write_text(EMPTY)
    done = subprocess.run(
        [str(PODFOLD), "explain", "-f", str(A100), str(manifest)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout == "# 0 of 0 pod templates in 0 documents change\n"
    assert done.stderr == (
        f"podfold: warning: {manifest}: no documents (the input is empty, "
        f"or only comments and '---')\n"
    )
