"""Every source is read once and within bounds, and every failure to read it is one line naming it.

Each command runs in a child process with a wall-time limit and its address
space limited to 1.5 GB (``resource.RLIMIT_AS``), so a read that hangs or grows
without end fails its test instead of hanging the run or the machine: servers
on a local port that never answer, stall halfway or never end their body;
device files (``/dev/zero``, ``/dev/urandom``); a pipe from ``/dev/zero``; a zip
member that inflates a thousandfold; ``/proc/self/mem``, whose reads fail.
"""

from __future__ import annotations

import io
import os
import resource
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from combinators import ArgumentTypeError, TransformError
from tests.budget import within
from transforms.cli.documents import ManifestError, read_input
from transforms.errors import OverlayError
from transforms.io import load_overlay, loads_overlay
from transforms.io.sources import (
    MAX_MANIFEST_BYTES,
    MAX_OVERLAY_BYTES,
    READ_TIMEOUT,
    max_bytes,
    read_open,
    read_source,
    read_timeout,
)

PODFOLD = Path(sys.executable).with_name("podfold")
MEMORY = 1536 * 2**20  # the child's whole address space
POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: 'c:1'}]\n"
OVERLAY = "spec:\n  nodeSelector: {gpu: a100}\n"
TIMEOUT = 1.0  # PODFOLD_READ_TIMEOUT in these tests


def _limit_memory() -> None:  # pragma: no cover - runs in the child, before podfold
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def podfold(
    *args: str, cwd: Path, env: dict[str, str] | None = None, stdin: Any = None, seconds: float = 60
) -> tuple[subprocess.CompletedProcess[str], float]:
    """``podfold ARGS`` in a child within the budget, and the seconds it took (wall time)."""
    started = time.monotonic()
    done = subprocess.run(
        [str(PODFOLD), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        errors="replace",
        env={**os.environ, **(env or {})},
        stdin=stdin if stdin is not None else subprocess.DEVNULL,
        timeout=seconds,
        preexec_fn=_limit_memory,
    )
    return done, time.monotonic() - started


def one_error(done: subprocess.CompletedProcess[str]) -> str:
    """The one line a failed command printed, checked to be podfold's own error (exit 1)."""
    assert done.returncode == 1, (done.returncode, done.stderr[-2000:])
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr[-2000:]
    assert lines[0].startswith("podfold: error: "), lines[0]
    return lines[0].removeprefix("podfold: error: ")


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "pod.yaml").write_text(POD)
    (tmp_path / "o.yaml").write_text(OVERLAY)
    return tmp_path


# ---------------------------------------------------------------- servers on a local port


class _Handler(BaseHTTPRequestHandler):
    """Answers as the server's ``mode`` says: ``silent`` (accepts, never answers),
    ``stall`` (promises 1,000 bytes, sends 40, then nothing), ``endless`` (a body
    that never ends), ``ok`` (the overlay)."""

    protocol_version = "HTTP/1.1"
    server: Any

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def do_GET(self) -> None:
        self._answer(body=True)

    def _answer(self, body: bool) -> None:
        mode, release = self.server.mode, self.server.release
        if mode == "silent":
            release.wait()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/yaml")
        if mode == "endless":
            self.send_header("Connection", "close")
            self.end_headers()
            line = b"# " + b"x" * 1021 + b"\n"
            try:
                while body and not release.is_set():
                    self.wfile.write(line * 64)
            except OSError:  # the reader went away: as it should
                pass
            self.close_connection = True
            return
        data = OVERLAY.encode() if mode == "ok" else b"spec:\n  nodeSelector:\n" + b"#" * 1000
        self.send_header("Content-Length", str(len(data) if mode == "ok" else 1000))
        self.end_headers()
        if not body:
            return
        if mode == "ok":
            self.wfile.write(data)
            return
        self.wfile.write(data[:40])
        self.wfile.flush()
        release.wait()


@pytest.fixture
def serve() -> Iterator[Any]:
    """``serve(mode)``: the URL of an overlay on a server started in this process."""
    started: list[ThreadingHTTPServer] = []

    def start(mode: str) -> str:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        server.daemon_threads = True
        server.mode, server.release = mode, threading.Event()  # type: ignore[attr-defined]
        threading.Thread(target=server.serve_forever, daemon=True).start()
        started.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/o.yaml"

    yield start
    for server in started:
        server.release.set()  # type: ignore[attr-defined]
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("mode", ["silent", "stall"])
def test_a_server_that_does_not_answer_or_stalls_is_given_up_on(
    files: Path, serve: Any, mode: str
) -> None:
    url = serve(mode)
    done, seconds = podfold(
        "apply",
        "-f",
        url,
        "pod.yaml",
        cwd=files,
        env={"PODFOLD_READ_TIMEOUT": str(TIMEOUT)},
        seconds=30,
    )
    assert one_error(done) == (
        f"{url}: cannot read the overlay: not read within {TIMEOUT:g} s, the most a read may "
        f"take (PODFOLD_READ_TIMEOUT sets it): the server did not answer, or stopped sending"
    )
    assert seconds < TIMEOUT + 10  # podfold's own start-up included


def test_an_endless_body_is_refused_at_the_bound(files: Path, serve: Any) -> None:
    url = serve("endless")
    done, _ = podfold(
        "apply",
        "-f",
        url,
        "pod.yaml",
        cwd=files,
        env={"PODFOLD_MAX_OVERLAY_BYTES": "4Mi"},
        seconds=30,
    )
    assert one_error(done) == (
        f"{url}: cannot read the overlay: it is larger than the 4 MiB "
        f"an overlay may hold (PODFOLD_MAX_OVERLAY_BYTES sets the bound)"
    )


def test_a_server_that_answers_is_read(files: Path, serve: Any) -> None:
    url = serve("ok")
    # a bound no loaded machine reaches: what is tested is that the answer is read
    done, _ = podfold("apply", "-f", url, "pod.yaml", cwd=files, env={"PODFOLD_READ_TIMEOUT": "30"})
    assert done.returncode == 0, done.stderr
    assert "nodeSelector:\n    gpu: a100\n" in done.stdout


def test_the_timeout_bounds_a_library_read_too(serve: Any) -> None:
    url = serve("silent")
    outcome = within(read_source, url, timeout=1.0, seconds=10)
    assert outcome.raised("OverlayError"), (outcome.status, outcome.error_text)
    assert outcome.error_text.startswith(f"{url}: cannot read the overlay: not read within 1 s")


# ---------------------------------------------------------------- devices, pipes, /proc


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_is_refused_as_an_overlay(files: Path, device: str) -> None:
    done, _ = podfold("apply", "-f", device, "pod.yaml", cwd=files, seconds=30)
    assert one_error(done) == (
        f"{device}: cannot read the overlay: it is a character device, "
        f"not a file (a path is read if it names a regular file or a "
        f"pipe)"
    )


def test_a_device_is_refused_as_a_manifest(files: Path) -> None:
    done, _ = podfold("apply", "-f", "o.yaml", "/dev/zero", cwd=files, seconds=30)
    assert one_error(done) == (
        "/dev/zero: cannot read the manifest: it is a character device, "
        "not a file (a path is read if it names a regular file or a pipe)"
    )


def test_dev_null_reads_as_empty(files: Path) -> None:
    overlay, _ = podfold("apply", "-f", "/dev/null", "pod.yaml", cwd=files)
    assert overlay.returncode == 0, overlay.stderr
    assert "/dev/null: the overlay holds no step" in overlay.stderr
    manifest, _ = podfold("apply", "-f", "o.yaml", "/dev/null", cwd=files)
    assert "/dev/null: no documents" in manifest.stderr  # read, and found empty
    assert "device" not in manifest.stderr


def test_an_endless_pipe_is_refused_at_the_bound(files: Path) -> None:
    zeros = subprocess.Popen(["cat", "/dev/zero"], stdout=subprocess.PIPE)
    try:
        done, _ = podfold(
            "apply",
            "-f",
            "o.yaml",
            cwd=files,
            stdin=zeros.stdout,
            seconds=30,
            env={"PODFOLD_MAX_MANIFEST_BYTES": "4Mi"},
        )
    finally:
        zeros.kill()
        zeros.wait()
        assert zeros.stdout is not None
        zeros.stdout.close()
    assert one_error(done) == (
        "<stdin>: cannot read the manifest: it is larger than the 4 MiB "
        "a manifest may hold (PODFOLD_MAX_MANIFEST_BYTES sets the bound)"
    )


def test_a_device_on_standard_input_is_refused(files: Path) -> None:
    with open("/dev/zero", "rb") as zeros:
        done, _ = podfold("apply", "-f", "o.yaml", cwd=files, stdin=zeros, seconds=30)
    assert one_error(done).startswith(
        "<stdin>: cannot read the manifest: it is a character device, not a file"
    )


def test_a_fifo_is_read(files: Path) -> None:
    fifo = files / "o.fifo"
    os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "w") as pipe:  # blocks until podfold opens it
            pipe.write(OVERLAY)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    done, _ = podfold("apply", "-f", str(fifo), "pod.yaml", cwd=files, seconds=30)
    writer.join(5)
    assert done.returncode == 0, done.stderr
    assert "nodeSelector:\n    gpu: a100\n" in done.stdout


@pytest.mark.parametrize("role", ["overlay", "manifest"])
def test_a_read_that_fails_names_the_source_and_the_systems_words(files: Path, role: str) -> None:
    args = (
        ["-f", "/proc/self/mem", "pod.yaml"]
        if role == "overlay"
        else ["-f", "o.yaml", "/proc/self/mem"]
    )
    done, _ = podfold("apply", *args, cwd=files, seconds=30)
    assert one_error(done) == (
        f"/proc/self/mem: cannot read the {role}: OSError: [Errno 5] Input/output error"
    )


def test_a_directory_keeps_the_systems_refusal(files: Path) -> None:
    done, _ = podfold("apply", "-f", str(files), "pod.yaml", cwd=files, seconds=30)
    assert one_error(done) == (
        f"{files}: cannot read the overlay: IsADirectoryError: [Errno 21] Is a directory: '{files}'"
    )


# ---------------------------------------------------------------- sizes


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A zip of 300 KB whose one member inflates to 300 MB of zeros."""
    path = tmp_path_factory.mktemp("bomb") / "bomb.zip"
    chunk = bytes(1 << 20)
    with (
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive,
        archive.open("b.yaml", "w", force_zip64=True) as member,
    ):
        for _ in range(300):
            member.write(chunk)
    assert path.stat().st_size < 2 << 20
    return path


def test_a_zip_bomb_is_refused_before_it_is_inflated(files: Path, bomb: Path) -> None:
    uri = f"zip://b.yaml::{bomb}"
    done, _ = podfold(
        "apply",
        "-f",
        uri,
        "pod.yaml",
        cwd=files,
        seconds=30,
        env={"PODFOLD_MAX_OVERLAY_BYTES": "1Mi"},
    )
    assert one_error(done) == (
        f"{uri}: cannot read the overlay: it is 300 MiB, larger than "
        f"the 1 MiB an overlay may hold (PODFOLD_MAX_OVERLAY_BYTES sets "
        f"the bound)"
    )


def test_an_overlay_in_a_zip_is_read(files: Path) -> None:
    with zipfile.ZipFile(files / "o.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("o.yaml", OVERLAY)
    done, _ = podfold("apply", "-f", "zip://o.yaml::o.zip", "pod.yaml", cwd=files)
    assert done.returncode == 0, done.stderr
    assert "nodeSelector:\n    gpu: a100\n" in done.stdout


def test_a_file_past_the_bound_is_refused_before_it_is_read(files: Path) -> None:
    (files / "big.yaml").write_text("# " + "x" * (3 << 20) + "\n" + OVERLAY)
    done, _ = podfold(
        "apply",
        "-f",
        "big.yaml",
        "pod.yaml",
        cwd=files,
        env={"PODFOLD_MAX_OVERLAY_BYTES": "2097152"},
    )
    assert one_error(done) == (
        "big.yaml: cannot read the overlay: it is 3.0 MiB, larger than "
        "the 2 MiB an overlay may hold (PODFOLD_MAX_OVERLAY_BYTES sets "
        "the bound)"
    )


def test_the_bound_is_the_last_byte_read(tmp_path: Path) -> None:
    # a source of exactly the bound is read; one byte more is refused: a file by its size,
    # before it is read, a stream at that byte
    for size in (1000, 1001):
        data = b"#" * (size - 1) + b"\n"
        path = tmp_path / f"{size}.yaml"
        path.write_bytes(data)
        if size == 1000:
            assert read_source(str(path), limit=1000) == data
            assert read_open(io.BytesIO(data), "<stdin>", limit=1000) == data
            continue
        with pytest.raises(OverlayError) as by_size:
            read_source(str(path), limit=1000)
        assert by_size.value.message.endswith(
            ": it is 1,001 bytes, larger than the 1,000 "
            "bytes an overlay may hold "
            "(PODFOLD_MAX_OVERLAY_BYTES sets the bound)"
        )
        with pytest.raises(OverlayError) as by_stream:
            read_open(io.BytesIO(data), "<stdin>", limit=1000)
        assert by_stream.value.message.endswith(
            ": it is larger than the 1,000 bytes a "
            "manifest may hold "
            "(PODFOLD_MAX_MANIFEST_BYTES sets the bound)"
        )


def test_a_stream_is_read_in_chunks_up_to_the_bound() -> None:
    class Endless(io.RawIOBase):
        asked = 0

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int:
            self.asked += len(buffer)
            buffer[:] = bytes(len(buffer))
            return len(buffer)

    endless = Endless()
    with pytest.raises(OverlayError, match="larger than the 3 MiB a manifest may hold"):
        read_open(endless, "<stdin>", limit=3 << 20)  # type: ignore[arg-type]
    assert endless.asked == (3 << 20) + 1  # never a byte past the one that is too many


def test_the_bounds_and_the_timeout_are_read_when_a_source_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert (max_bytes("overlay"), max_bytes("manifest"), read_timeout()) == (
        MAX_OVERLAY_BYTES,
        MAX_MANIFEST_BYTES,
        READ_TIMEOUT,
    )
    monkeypatch.setenv("PODFOLD_MAX_OVERLAY_BYTES", "64Mi")
    monkeypatch.setenv("PODFOLD_MAX_MANIFEST_BYTES", "1000")
    monkeypatch.setenv("PODFOLD_READ_TIMEOUT", "2.5")
    assert (max_bytes("overlay"), max_bytes("manifest"), read_timeout()) == (64 << 20, 1000, 2.5)


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("PODFOLD_MAX_OVERLAY_BYTES", "lots", "a whole number of bytes"),
        ("PODFOLD_MAX_MANIFEST_BYTES", "0", "a whole number of bytes, at least 1"),
        ("PODFOLD_MAX_OVERLAY_BYTES", "1.5", "a whole number of bytes"),
        ("PODFOLD_READ_TIMEOUT", "soon", "a number of seconds above 0"),
        ("PODFOLD_READ_TIMEOUT", "-1", "a number of seconds above 0"),
        ("PODFOLD_READ_TIMEOUT", "nan", "a number of seconds above 0"),
    ],
)
def test_a_bad_setting_is_refused_naming_it(
    files: Path, serve: Any, variable: str, value: str, says: str
) -> None:
    done, _ = podfold("apply", "-f", serve("ok"), "pod.yaml", cwd=files, env={variable: value})
    line = one_error(done)
    assert line.startswith(f"{variable}: must be {says}") and line.endswith(f", not {value!r}")


# ---------------------------------------------------------------- encodings and arguments


def test_a_manifest_that_is_not_utf8_fails_as_an_overlay_does(files: Path) -> None:
    text = b"kind: Pod\nmetadata: {name: caf\xe9}\n"
    (files / "bad.yaml").write_bytes(text)
    manifest, _ = podfold("apply", "-f", "o.yaml", "bad.yaml", cwd=files)
    overlay, _ = podfold("apply", "-f", "bad.yaml", "pod.yaml", cwd=files)
    said = (
        "bad.yaml:2:21: the file is not UTF-8: byte 0xe9 (byte 30 of the file) cannot be "
        "read (invalid continuation byte)"
    )
    assert one_error(manifest) == said
    assert one_error(overlay) == said


def test_a_utf16_manifest_says_how_to_write_it(files: Path) -> None:
    (files / "u16.yaml").write_bytes(POD.encode("utf-16"))
    done, _ = podfold("apply", "-f", "o.yaml", "u16.yaml", cwd=files)
    assert one_error(done).endswith(
        "it begins as UTF-16 does: write it as UTF-8 (PowerShell 5 "
        "writes UTF-16: use 'Out-File -Encoding utf8')"
    )


def test_read_input_is_a_manifest_error_naming_the_stream(tmp_path: Path) -> None:
    import click

    with (
        click.File("r", encoding="utf-8").convert("/dev/zero", None, None) as stream,
        pytest.raises(ManifestError) as caught,
    ):
        read_input(stream)
    assert str(caught.value).startswith(
        "/dev/zero: cannot read the manifest: it is a character device"
    )
    path = tmp_path / "pod.yaml"
    path.write_text(POD)
    with click.File("r", encoding="utf-8").convert(str(path), None, None) as stream:
        assert read_input(stream) == (POD, str(path))


@pytest.mark.parametrize(
    ("call", "argument", "value"),
    [
        (load_overlay, "uri", 5),
        (load_overlay, "uri", b"o.yaml"),
        (loads_overlay, "text", 5),
        (loads_overlay, "text", b"spec: {}"),
        (lambda value: loads_overlay("spec: {}", source=value), "source", 5),
    ],
)
def test_an_argument_of_the_wrong_type_is_refused_naming_it(
    call: Any, argument: str, value: Any
) -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        call(value)
    assert isinstance(caught.value, TypeError) and isinstance(caught.value, TransformError)
    assert caught.value.argument == argument
    assert f"{argument} must be" in str(caught.value)
    assert f"got {type(value).__name__}: {value!r}" in str(caught.value)
