"""A stream read a part at a time reads as the whole stream does: the same documents, the
same plain booleans (documents and lines of the whole stream), the same refusals; and
``podfold apply`` of a stream in many parts prints and says what it does in one part."""

from __future__ import annotations

import io
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests import warm
from tests.terminal import on_a_terminal
from transforms.cli.documents import ManifestError, read_manifest
from transforms.cli.parts import read_parts
from transforms.errors import OverlayError
from transforms.io import batches
from transforms.io.batches import document_parts, line_breaks
from transforms.io.safe_yaml import decode

REPO = Path(__file__).resolve().parent.parent
MANIFESTS = sorted((REPO / "tests" / "manifests").rglob("*.yaml"))
A100 = REPO / "examples" / "a100.yaml"


def whole(data: bytes, source: str) -> tuple[list[Any], list[Any]]:
    """The stream read whole, as ``podfold`` read every stream before it read in parts."""
    try:
        text = decode(data, source)
    except OverlayError as err:
        raise ManifestError(
            err.message, source=err.source, line=err.line, column=err.column
        ) from None
    return read_manifest(text, source)


def in_parts(data: bytes, source: str, size: int) -> tuple[list[Any], list[Any]]:
    documents: list[Any] = []
    booleans: list[Any] = []
    for part in read_parts(io.BytesIO(data), source, size):
        assert part.first == len(documents) + 1
        documents += part.documents
        booleans += part.booleans
    return documents, booleans


def refusal(read: Any) -> str:
    with pytest.raises(ManifestError) as caught:
        read()
    return str(caught.value)


def test_the_upstream_manifests_read_alike_in_parts() -> None:
    assert len(MANIFESTS) > 50
    plain = b"kind: Pod\nmetadata:\n  labels: {a: y, b: 'n', c: on}\n"
    joined = plain
    for path in MANIFESTS:
        data = path.read_bytes()
        expected = whole(data, path.name)
        for size in (1, 200):
            assert in_parts(data, path.name, size) == expected, (path, size)
        joined += data if data.startswith(b"---") else b"---\n" + data
        if not joined.endswith(b"\n"):
            joined += b"\n"
    joined += b"---\n" + plain
    # all of them in one stream: documents and booleans numbered from the stream's start
    expected = whole(joined, "all.yaml")
    assert sum(1 for _ in document_parts(io.BytesIO(joined), 1)) > 50
    assert in_parts(joined, "all.yaml", 1) == expected
    count = len(expected[0])
    assert [found.document for found in expected[1]] == [1, 1, count, count]
    assert expected[1][-1].line == joined.count(b"\n")


BROKEN = {
    "syntax": b"a: [1, 2\n",
    "not UTF-8": b"metadata: {name: caf\xe9}\n",
    "a list": b"- kind: Pod\n",
    "joined": b"kind: Pod\nmetadata: {name: b}\nkind: Job\n",
    "tab": b"a:\n\tb: 1\n",
    "a directive twice": b"%YAML 1.1\n%YAML 1.1\n",
    "an alias of nothing": b"a: *nowhere\n",
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_refusal_late_in_a_stream_is_said_as_the_whole_stream_says_it(name: str) -> None:
    good = b"".join(
        b"---\napiVersion: v1\nkind: Pod\nmetadata: {name: p%d}\nspec: {containers: []}\n" % n
        for n in range(40)
    )
    data = good + b"---\n" + BROKEN[name] + b"---\nkind: Pod\n"
    said = refusal(lambda: whole(data, "s.yaml"))
    assert ":" in said and said.startswith("s.yaml")
    for size in (1, 100, 10_000):
        assert refusal(lambda size=size: in_parts(data, "s.yaml", size)) == said


def test_aliases_are_bounded_over_the_whole_stream_not_each_part() -> None:
    from transforms.io.safe_yaml import MAX_NODES

    # each document adds just under a tenth of the bound through its aliases
    width = MAX_NODES // 10 // 100
    document = (
        b"---\nkind: ConfigMap\nx: &x [" + b", ".join([b"1"] * width) + b"]\n"
        b"y: [" + b", ".join([b"*x"] * 99) + b"]\n"
    )
    data = document * 12
    said = refusal(lambda: whole(data, "a.yaml"))
    assert "expands to more than" in said
    assert refusal(lambda: in_parts(data, "a.yaml", 1)) == said
    assert in_parts(document * 5, "a.yaml", 1) == whole(document * 5, "a.yaml")


lines = st.sampled_from(
    [
        b"a: 1\n",
        b"---\n",
        b"--- |\n",
        b"  x\n",
        b"---x: 1\n",
        b"# c\n",
        b"%YAML 1.1\n",
        b"...\n",
        b"\n",
        b"b: 'q'\r\n",
        b"c: d\xc2\x85e\n",
        b"--- {}\n",
    ]
)


@given(st.lists(lines, max_size=30), st.integers(1, 40))
def test_parts_cut_only_before_a_document_start_and_join_to_the_stream(
    stream: list[bytes], size: int
) -> None:
    data = b"".join(stream)
    parts = list(document_parts(io.BytesIO(data), size))
    assert b"".join(part for part, _ in parts) == data
    before = 0
    for number, (part, counted) in enumerate(parts):
        assert counted == before
        before += line_breaks(part)
        if number:  # a document start, or the directives (and comments) before one
            start = part
            while start[:1] in (b"%", b"#"):
                start = start.split(b"\n", 1)[1]
            assert start.startswith(b"---") and start[3:4] in (b"", b" ", b"\t", b"\r", b"\n")
        # a directive stays with the document start it is for
        assert not part.rstrip(b"\n").endswith(b"%YAML 1.1") or number == len(parts) - 1


def jobs(count: int) -> str:
    documents = []
    for number in range(count):
        value = "y" if number % 7 == 3 else f"'{number}'"
        documents.append(
            f"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j{number}\nspec:\n"
            f"  template:\n    metadata:\n      labels: {{shard: {value}}}\n    spec:\n"
            f"      containers:\n      - name: c\n        image: busybox\n"
        )
        if number % 11 == 5:
            documents.append(
                "apiVersion: example.com/v1\nkind: Trainer\nmetadata: {name: t}\n"
                "spec: {replicas: {containers: [{name: c, image: busybox}]}}\n"
            )
    return "---\n".join(documents)


@pytest.mark.parametrize("output", ["yaml", "json"])
def test_apply_of_a_stream_in_many_parts_says_and_prints_what_it_does_whole(
    output: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = tmp_path / "jobs.yaml"
    stream.write_text(jobs(120))
    args = ["apply", "-o", output, "-f", str(A100), str(stream)]
    monkeypatch.setattr(batches, "PART_BYTES", 1 << 30)
    one = warm.run("podfold", args)
    monkeypatch.setattr(batches, "PART_BYTES", 300)
    assert sum(1 for _ in document_parts(io.BytesIO(stream.read_bytes()), 300)) > 40
    many = warm.run("podfold", args)
    assert one.returncode == 0, one.stderr
    # a kind unreached and a boolean, late in the stream, named by their place in it
    assert "jobs.yaml: document 115: Trainer/t" in one.stderr
    assert "jobs.yaml:1553:23: document 126: Job/j115" in one.stderr
    assert (many.returncode, many.stdout) == (one.returncode, one.stdout)
    # the same warnings; each part's said as it is read, so a part's come together
    assert sorted(many.stderr.splitlines()) == sorted(one.stderr.splitlines())
    # and from standard input, as from the file
    piped = warm.run("podfold", [*args[:-1], "-"], input=stream.read_text())
    assert piped.stdout == one.stdout
    assert piped.stderr == many.stderr.replace(str(stream), "<stdin>")


def test_a_check_failing_late_in_a_stream_prints_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = tmp_path / "jobs.yaml"
    stream.write_text(jobs(60))
    overlay = tmp_path / "bad.yaml"
    overlay.write_text(
        "- op: upsert\n  path: spec.containers[name=c].resources.limits.cpu\n  value: lots\n"
    )
    monkeypatch.setattr(batches, "PART_BYTES", 300)
    done = warm.run("podfold", ["apply", "-f", str(overlay), str(stream)])
    assert done.returncode == 1
    assert done.stdout == ""
    assert "document 60" in done.stderr and "cpu" in done.stderr


def invalid_jobs(count: int) -> str:
    """:func:`jobs`, every 13th Job with an image pull policy Kubernetes has not."""
    documents = jobs(count).split("---\n")
    return "---\n".join(
        document + "        imagePullPolicy: Sometimes\n"
        if number % 13 == 4 and "kind: Job" in document
        else document
        for number, document in enumerate(documents)
    )


def test_validate_of_a_stream_in_many_parts_says_what_it_says_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = tmp_path / "jobs.yaml"
    stream.write_text(invalid_jobs(120))
    monkeypatch.setattr(batches, "PART_BYTES", 1 << 30)
    one = warm.run("podfold", ["validate", str(stream)])
    monkeypatch.setattr(batches, "PART_BYTES", 300)
    assert sum(1 for _ in document_parts(io.BytesIO(stream.read_bytes()), 300)) > 40
    many = warm.run("podfold", ["validate", str(stream)])
    # problems late in the stream, and a boolean there, named by their place in it
    assert one.stdout.splitlines()[-2:] == [
        f"{stream}: document 122: Job/j111 template (spec.template): "
        "spec.template.spec.containers[name=c].imagePullPolicy: 'Sometimes' is not one of: "
        "Always, Never, IfNotPresent",
        f"{stream}:1562:23: document 126: Job/j115 template (spec.template): "
        "spec.template.metadata.labels.shard: expected string, found boolean True; y, written "
        "plain, is the boolean true to kubectl (YAML 1.1): quote it ('y') if a string is meant",
    ]
    assert f"{stream}: document 127: Trainer/t" in one.stderr
    assert one.stderr.endswith(
        "podfold: 26 errors in 120 pod templates; 11 documents hold pods podfold does not "
        "reach, not checked (named above)\n"
    )
    assert (many.returncode, many.stdout) == (one.returncode, one.stdout) == (1, one.stdout)
    # the same warnings; each part's said as it is read, so a part's come together
    assert sorted(many.stderr.splitlines()) == sorted(one.stderr.splitlines())
    piped = warm.run("podfold", ["validate", "-"], input=stream.read_text())
    assert (piped.returncode, piped.stdout) == (1, many.stdout.replace(str(stream), "<stdin>"))
    assert piped.stderr == many.stderr.replace(str(stream), "<stdin>")


def test_validate_of_a_stream_refused_late_prints_no_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # as when streams were read whole: the refusal, and none of the problems before it
    stream = tmp_path / "jobs.yaml"
    stream.write_text(invalid_jobs(60) + "---\n[a, b\n")
    monkeypatch.setattr(batches, "PART_BYTES", 300)
    done = warm.run("podfold", ["validate", str(stream)])
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.splitlines()[-1] == (
        f"podfold: error: {stream}:811:1: expected ',' or ']', but got '<stream end>'"
    )


def _peak_of_a_run(args: list[str], out: Path) -> tuple[int, int]:
    """Run podfold with ``args`` in this process, its stdout on ``out``: its exit code and
    the most it allocated at once (tracemalloc), the caches it fills filled before."""
    import contextlib
    import tracemalloc

    from transforms.cli import podfold

    def once() -> int:
        with out.open("w") as stdout, contextlib.redirect_stdout(stdout):
            try:
                podfold.main(args, standalone_mode=False)
            except SystemExit as exit:
                return int(exit.code or 0)
        return 0

    once()
    tracemalloc.start()
    try:
        code = once()
        return code, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("blame", [False, True])
def test_explain_of_a_stream_in_many_parts_says_what_it_says_whole(
    blame: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = tmp_path / "jobs.yaml"
    stream.write_text(jobs(120))
    args = ["explain", *(["--blame"] if blame else []), "-f", str(A100), str(stream)]
    monkeypatch.setattr(batches, "PART_BYTES", 1 << 30)
    one = warm.run("podfold", args)
    monkeypatch.setattr(batches, "PART_BYTES", 300)
    many = warm.run("podfold", args)
    assert one.returncode == 0, one.stderr
    assert one.stdout.endswith("# 120 of 120 pod templates in 131 documents change\n")
    assert "# document 131: Job/j119 template (spec.template): 5 changes\n" in one.stdout
    assert "jobs.yaml: document 115: Trainer/t" in one.stderr
    assert (many.returncode, many.stdout) == (one.returncode, one.stdout)
    assert sorted(many.stderr.splitlines()) == sorted(one.stderr.splitlines())
    piped = warm.run("podfold", [*args[:-1], "-"], input=stream.read_text())
    assert piped.stdout == one.stdout
    assert piped.stderr == many.stderr.replace(str(stream), "<stdin>")


def test_explain_of_a_stream_refused_late_prints_no_diff(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = tmp_path / "jobs.yaml"
    stream.write_text(jobs(60) + "---\n[a, b\n")
    monkeypatch.setattr(batches, "PART_BYTES", 300)
    done = warm.run("podfold", ["explain", "-f", str(A100), str(stream)])
    assert (done.returncode, done.stdout) == (1, "")
    assert "expected ',' or ']'" in done.stderr.splitlines()[-1]


@pytest.mark.parametrize("command", ["validate", "apply", "explain"])
def test_the_memory_a_command_holds_does_not_grow_with_the_stream(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # at its peak, on streams of 150 and 600 Jobs in parts of 4 KiB, with what is held
    # of the output in memory before a temporary file takes it, and what is printed of it
    # at a time (a megabyte each), as small: each command, reading each stream whole (in
    # one part), held 3.7 to 3.9 times as much on the longer one; in parts, 0.96 to 1.0
    from transforms.cli import withheld

    monkeypatch.setattr(batches, "PART_BYTES", 4096)
    monkeypatch.setattr(withheld, "_IN_MEMORY", 4096)
    monkeypatch.setattr(withheld, "_CHUNK", 4096)
    peaks = []
    for count in (150, 600):
        stream = tmp_path / f"jobs-{count}.yaml"
        stream.write_text(jobs(count).replace("{shard: y}", "{shard: 'y'}"))
        overlays = ["-f", str(A100)] if command in ("apply", "explain") else []
        code, peak = _peak_of_a_run([command, *overlays, str(stream)], tmp_path / "out")
        assert code == 0, (tmp_path / "out").read_text()
        peaks.append(peak)
    assert peaks[1] < 1.5 * peaks[0], peaks


def _written_slowly(fifo: Path, text: str, pause: float) -> threading.Thread:
    """A thread that writes ``text`` into the named pipe ``fifo`` in two halves, ``pause``
    seconds apart: a run that reads it takes that long, however fast the machine."""

    def write() -> None:
        with open(fifo, "w", encoding="utf-8") as pipe:  # waits for the reader to open it
            half = text.index("---\n", len(text) // 2)
            pipe.write(text[:half])
            pipe.flush()
            time.sleep(pause)
            pipe.write(text[half:])

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return writer


def test_a_long_run_draws_its_progress_on_a_terminal_only(tmp_path: Path) -> None:
    # the stream comes through a named pipe that pauses past the second after which the
    # line is drawn, so the run is long on a fast machine too; 1,500 Jobs do not take a
    # second everywhere
    text = jobs(1500).replace("shard: y}", "shard: 'y'}")
    stream = tmp_path / "jobs.yaml"
    stream.write_text(text)
    fifo = tmp_path / "jobs-fifo.yaml"
    os.mkfifo(fifo)

    def slowly(args: list[str]) -> tuple[int, bytes, bytes]:
        writer = _written_slowly(fifo, text, 1.2)
        done = on_a_terminal(args, tmp_path)
        writer.join(timeout=10)
        assert not writer.is_alive(), "podfold did not read the pipe"
        return done

    status, out, shown = slowly(["apply", "-f", str(A100), str(fifo)])
    assert status == 0, shown
    assert b"\rpodfold: 1 file, " in shown and b" pod templates changed\x1b[K" in shown
    assert shown.endswith(b"\r\x1b[K")  # cleared: nothing of it stays
    last = shown.rsplit(b"\rpodfold: ", 1)[1]
    assert last.startswith(b"1 file, ") and b"documents" in last
    plain = warm.run("podfold", ["apply", "-f", str(A100), str(stream)])
    assert out.decode() == plain.stdout and "podfold: 1 file" not in plain.stderr
    quiet_status, quiet_out, quiet_shown = slowly(["apply", "-q", "-f", str(A100), str(fifo)])
    assert (quiet_status, quiet_out) == (0, out)
    assert b"\rpodfold: " not in quiet_shown and b"\x1b[K" not in quiet_shown
    assert quiet_shown.count(b"podfold: warning: ") == shown.count(b"podfold: warning: ") > 100
