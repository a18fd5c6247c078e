"""``podfold apply --in-place`` against a plain ``podfold apply`` of the same files.

Run ``python benchmarks/bench_in_place.py [--rounds N] [--extra DIR]... [--notes FILE]``.

The files are the upstream manifests of ``tests/manifests`` (fetched from the
projects' own repositories, with their comments), each copied into a
directory of its own that ``-R`` reads, and any ``--extra`` directory of
more manifests (the same copies are made of them); only the files whose pod
templates the overlay can be applied to are kept (a file the fold refuses
would end both commands at once). The overlay is a GPU pool: a node selector,
a toleration and a larger ``/dev/shm`` (``examples/a100.yaml``).

Three comparisons, each side by side in one run, in rounds whose order turns,
after one round that is not timed (it fills the file cache and lets Python write
podfold's bytecode, as an installation does: ``PYTHONDONTWRITEBYTECODE`` is left
out of the commands' environment):

* **The command line**, as a user runs it, each a whole process:
  ``podfold apply -f a100.yaml -R DIR > out.yaml`` against ``podfold apply -f
  a100.yaml -R -i DIR`` (the directory copied afresh before each in-place run,
  the copy not timed). Target: the in-place run's median at most 1.5 times
  the plain run's.
* **One long stream**, the same two commands on one file of 1,000 Jobs
  (``--jobs``), each with a comment, where start-up is a small part of the
  run: every document changes, and the whole text is composed, edited and
  read back. Target: the same.
* **The work alone**, in this process, with the overlays loaded and the files
  read: folding every file's documents and writing them as ``apply`` does
  (``dump_documents``) against folding them and splicing each changed file's
  text (:func:`transforms.io.splicing.splice`, which composes the text with
  libyaml and reads the edited text back to check it). Printed as
  information: it is the cost splicing adds once start-up is paid.

Before any figure is believed, each file written in place is read back and
compared, as data, with what ``podfold apply`` prints for it, and a file the
overlay leaves as it was must be byte-identical. Per file, the lines a
``diff`` of the file shows are counted (removed and added) with the number of
comment lines kept, beside the lines a diff of what ``podfold apply`` writes
for the file before and after the change shows (what the change needs);
``--notes FILE`` writes that table as Markdown. The exit
status is 1 if the target is missed or a file disagrees, 0 otherwise.
"""

from __future__ import annotations

import argparse
import difflib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
MANIFESTS = REPO / "tests" / "manifests"
OVERLAY = REPO / "examples" / "a100.yaml"
PODFOLD = Path(sys.executable).with_name("podfold")
ROUNDS = 7
JOBS = 1000
TARGET = 1.5
"""The most the in-place run's median may be, as a multiple of the plain run's."""


def candidates(roots: list[Path]) -> list[tuple[str, Path]]:
    """Every manifest under ``roots``, named by its root and path."""
    found = []
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.suffix in (".yaml", ".yml", ".json") and path.is_file():
                found.append((f"{root.name}/{path.relative_to(root).as_posix()}", path))
    return found


def foldable(files: list[tuple[str, Path]], transform: Any) -> list[tuple[str, Path]]:
    """The files whose documents the overlay folds without an error."""
    from combinators import TransformError
    from transforms.cli.documents import read_manifest
    from transforms.kube.workloads import apply_to_documents

    kept = []
    for name, path in files:
        try:
            documents, _ = read_manifest(path.read_text(), name)
            apply_to_documents(transform, documents)
        except (TransformError, UnicodeDecodeError):
            continue
        kept.append((name, path))
    return kept


def lay_out(files: list[tuple[str, Path]], into: Path) -> None:
    if into.exists():
        shutil.rmtree(into)
    for name, path in files:
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)


def timed(command: list[str], cwd: Path, stdout: Any) -> float:
    # as an installation runs: the untimed round writes podfold's bytecode, the others read it
    environment = {
        key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"
    }
    start = time.perf_counter()
    done = subprocess.run(
        command, cwd=cwd, stdout=stdout, stderr=subprocess.PIPE, env=environment, check=False
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr.decode(errors='replace')}")
    return seconds


def command_lines(files: list[tuple[str, Path]], rounds: int, work: Path) -> dict[str, list[float]]:
    plain_dir, edited_dir = work / "plain", work / "edited"
    lay_out(files, plain_dir)
    base = [str(PODFOLD), "apply", "-f", str(OVERLAY), "-R"]
    times: dict[str, list[float]] = {"podfold apply": [], "podfold apply -i": []}
    out = work / "out.yaml"
    for number in range(rounds + 1):
        order = list(times) if number % 2 == 0 else list(reversed(times))
        for name in order:
            if name == "podfold apply":
                with out.open("wb") as sink:
                    seconds = timed([*base, "."], plain_dir, sink)
            else:
                lay_out(files, edited_dir)
                seconds = timed([*base, "-i", "."], edited_dir, subprocess.DEVNULL)
            if number:  # the first round fills the caches and writes the bytecode
                times[name].append(seconds)
    return times


def job_stream(count: int) -> str:
    """``count`` Jobs, each after a comment line, as a team might keep them."""
    import yaml

    parts = []
    for number in range(count):
        job = {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": f"train-{number}", "labels": {"team": "ml"}},
            "spec": {
                "template": {
                    "spec": {
                        "restartPolicy": "Never",
                        "containers": [
                            {
                                "name": "trainer",
                                "image": "ghcr.io/example/trainer:1.4.2",
                                "command": ["python", "-m", "train", f"--shard={number}"],
                                "env": [{"name": "LOGLEVEL", "value": "INFO"}],
                            }
                        ],
                    }
                }
            },
        }
        parts.append(
            f"# shard {number}: owned by the ml team\n" + yaml.safe_dump(job, sort_keys=False)
        )
    return "---\n".join(parts)


def long_stream(count: int, rounds: int, work: Path) -> dict[str, list[float]]:
    text = job_stream(count)
    plain, edited = work / "jobs.yaml", work / "edited.yaml"
    plain.write_text(text)
    base = [str(PODFOLD), "apply", "-f", str(OVERLAY)]
    times: dict[str, list[float]] = {f"apply ({count} Jobs)": [], f"apply -i ({count} Jobs)": []}
    out = work / "out.yaml"
    for number in range(rounds + 1):
        for name in list(times) if number % 2 == 0 else list(reversed(times)):
            if "-i" not in name:
                with out.open("wb") as sink:
                    seconds = timed([*base, str(plain)], work, sink)
            else:
                edited.write_text(text)
                seconds = timed([*base, "-i", str(edited)], work, subprocess.DEVNULL)
            if number:
                times[name].append(seconds)
    from transforms.cli.documents import read_manifest

    if read_manifest(edited.read_text(), "edited")[0] != read_manifest(out.read_text(), "out")[0]:
        raise SystemExit("the long stream written in place does not read as apply prints it")
    return times


def the_work(files: list[tuple[str, Path]], transform: Any, rounds: int) -> dict[str, list[float]]:
    from transforms.cli.documents import dump_documents, read_manifest
    from transforms.io.splicing import splice
    from transforms.kube.workloads import apply_to_documents

    read = [(name, path.read_text()) for name, path in files]
    parsed = [(name, text, read_manifest(text, name)[0]) for name, text in read]

    def plain() -> None:
        for _, _, documents in parsed:
            dump_documents(apply_to_documents(transform, documents))

    def in_place() -> None:
        for name, text, documents in parsed:
            result = apply_to_documents(transform, documents)
            splice(text, list(zip(documents, result, strict=True)), name)

    times: dict[str, list[float]] = {"fold + dump": [], "fold + splice": []}
    work = {"fold + dump": plain, "fold + splice": in_place}
    for number in range(rounds + 1):
        for name in list(work) if number % 2 == 0 else list(reversed(work)):
            start = time.perf_counter()
            work[name]()
            if number:
                times[name].append(time.perf_counter() - start)
    return times


def _counted(before: str, after: str) -> tuple[int, int]:
    """The lines a diff of the two texts removes and adds."""
    lines = list(difflib.unified_diff(before.splitlines(), after.splitlines(), n=0))
    removed = sum(line.startswith("-") and not line.startswith("---") for line in lines)
    added = sum(line.startswith("+") and not line.startswith("+++") for line in lines)
    return removed, added


def check_files(files: list[tuple[str, Path]], work: Path) -> tuple[list[str], list[str]]:
    """Each file written in place against what apply prints for it; the table's rows."""
    from transforms.cli.documents import dump_documents, read_manifest

    edited_dir = work / "edited"
    lay_out(files, edited_dir)
    done = subprocess.run(
        [str(PODFOLD), "apply", "-f", str(OVERLAY), "-R", "-i", "."],
        cwd=edited_dir,
        capture_output=True,
        check=False,
    )
    problems = [] if done.returncode == 0 else [done.stderr.decode(errors="replace")]
    rows = []
    for name, path in files:
        original = path.read_text()
        edited = (edited_dir / name).read_text()
        printed = subprocess.run(
            [str(PODFOLD), "apply", "-f", str(OVERLAY), str(path)],
            capture_output=True,
            text=True,
            check=False,
        ).stdout
        if read_manifest(edited, name)[0] != read_manifest(printed, name)[0]:
            problems.append(f"{name}: written in place, it does not read as apply prints it")
        removed, added = _counted(original, edited)
        # what the change needs: the diff of the documents as apply writes them, before and after
        needed = _counted(dump_documents(read_manifest(original, name)[0]), printed)
        if (
            edited == original
            and printed
            and read_manifest(original, name)[0] != read_manifest(printed, name)[0]
        ):
            problems.append(f"{name}: apply changes it, but it was not written")
        comments = sum(line.lstrip().startswith("#") for line in original.splitlines())
        kept = sum(line.lstrip().startswith("#") for line in edited.splitlines())
        status = "byte-identical" if edited == original else f"-{removed} +{added}"
        rows.append(f"| {name} | {status} | -{needed[0]} +{needed[1]} | {kept} of {comments} |")
        if kept < comments:
            problems.append(f"{name}: {comments - kept} comment lines lost")
    return problems, rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--extra", type=Path, action="append", default=[])
    parser.add_argument("--notes", type=Path)
    parser.add_argument("--jobs", type=int, default=JOBS)
    args = parser.parse_args(argv)
    from transforms.io.loading import load_overlay

    transform = load_overlay(OVERLAY)
    files = foldable(candidates([MANIFESTS, *args.extra]), transform)
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        problems, rows = check_files(files, work)
        cli = command_lines(files, args.rounds, work)
        stream = long_stream(args.jobs, args.rounds, work)
    inside = the_work(files, transform, args.rounds)
    ok = not problems
    print(f"{len(files)} files, {args.rounds} rounds after one untimed round (medians, ms):")
    for times in (cli, stream, inside):
        (plain_name, plain), (edited_name, edited) = times.items()
        ratio = statistics.median(edited) / statistics.median(plain)
        print(
            f"  {plain_name:<18}{statistics.median(plain) * 1e3:>9.1f}   "
            f"{edited_name:<18}{statistics.median(edited) * 1e3:>9.1f}   {ratio:5.2f}x"
        )
    for label, times in (("the files", cli), ("the long stream", stream)):
        plain_median, edited_median = (statistics.median(seconds) for seconds in times.values())
        ratio = edited_median / plain_median
        verdict = "MISS" if ratio > TARGET else " "
        ok = ok and ratio <= TARGET
        print(
            f"{verdict} {label}: in place costs {ratio:.2f}x a plain apply (target: at most {TARGET}x)"
        )
    for problem in problems:
        print(f"MISS {problem}")
    if not problems:
        print(f"  every file written in place reads as apply prints it; {len(rows)} checked")
    if args.notes is not None:
        table = [
            "| file | diff of the file written in place | diff of apply's output | comment lines kept |",
            "| --- | --- | --- | --- |",
            *rows,
        ]
        args.notes.write_text("\n".join(table) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
