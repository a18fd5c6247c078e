"""``podfold apply`` on streams of 1,000 and 50,000 Jobs against ``kubectl patch --local``
and ``kubectl kustomize``: wall time and peak memory, side by side.

Run ``python benchmarks/bench_streams.py [--rounds N] [--long-rounds N] [--sizes 1000,50000]``.

Each tool makes the same change (a GPU pool: a node selector and a toleration on every
Job's pod template, as in ``benchmarks/bench_cli.py``) to the same stream, as a whole
process started from the shell writing YAML to a file:

* ``podfold apply -f gpu-pool.yaml jobs.yaml``;
* ``kubectl patch --local -f jobs.yaml --type strategic -p ... -o yaml``;
* ``kubectl kustomize`` of a kustomization whose patch targets every Job (on streams of
  at most 5,000 Jobs: its time grows with the square of the stream's length, 177 s on
  5,000 here, so 50,000 would take hours).

Each stream is run in rounds (5 on 1,000 Jobs, 3 on 50,000), one run of each tool per
round in an order that turns from round to round, after one round that is not timed
(the file cache filled, podfold's bytecode written). Each run's memory is read from
/proc every 20 ms, summed over the tool's processes (podfold folds a long stream in a
worker process beside the one that reads it): the resident set size (RSS: a page the
two processes share counts twice) and the proportional set size (PSS: a shared page
counts half in each), and the highest sums are the run's peaks; the targets are judged
on PSS, the memory the tool takes from the machine. Before a figure is believed, the
tools' outputs on 1,000 Jobs are checked to hold the same pod templates, and on
50,000 podfold's is checked to hold every Job, each with the pool.

It prints, for each stream, each tool's minimum and median wall time and median peaks
(RSS and PSS), and podfold's median time over each other tool's. Targets (issue 19, part 3):

* time: podfold's median at most 0.8 of ``kubectl patch``'s on 1,000 Jobs, at most
  0.5 of it on 50,000;
* memory: podfold's peak on 50,000 Jobs at most 1.5 times its peak on 1,000, and at
  most ``kubectl patch``'s on 50,000.

The exit status is 1 if a target is missed or the outputs disagree. Where ``kubectl``
is not on PATH only podfold is run, and only its memory target is judged.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_cli import GPU_POOL, commands, templates

SIZES = (1000, 50000)
ROUNDS = {1000: 5, 50000: 3}
SPEED = {1000: 0.8, 50000: 0.5}
"""The most podfold's median time may be, as a fraction of kubectl patch's, by stream."""
KUSTOMIZE_MOST = 5000
"""The longest stream kustomize is run on: its time grows with the square of the stream's
length (measured here: 3.9 s on 1,000 Jobs, 177 s on 5,000), so 50,000 would take hours."""
GROWTH = 1.5
"""The most podfold's peak memory on the longest stream may be over its peak on the shortest."""


def write_inputs(work: Path, count: int) -> dict[str, list[str]]:
    """The stream of ``count`` Jobs and each tool's command line, in ``work``: those of
    ``benchmarks/bench_cli.py``, kustomize left out of a stream longer than
    :data:`KUSTOMIZE_MOST`, and kubectl's where it is not on PATH."""
    work.mkdir(parents=True)
    kubectl = shutil.which("kubectl")
    tools = commands(work, kubectl or "kubectl", count)
    if kubectl is None:
        return {"podfold apply": tools["podfold apply"]}
    if count > KUSTOMIZE_MOST:
        del tools["kubectl kustomize"]
    return tools


SAMPLE_EVERY = 0.02
"""Seconds between two readings of a run's memory."""


def _tree(root: int) -> list[int]:
    """``root`` and every process below it (podfold's worker), as /proc lists them."""
    found, queue = [], [root]
    while queue:
        pid = queue.pop()
        found.append(pid)
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except OSError:
            continue
        queue += [int(child) for child in children]
    return found


def _memory(pids: list[int]) -> tuple[int, int]:
    """The resident and the proportional set sizes of ``pids``, summed, in kilobytes (a
    page two processes share counts twice in the first, half in each in the second)."""
    rss = pss = 0
    for pid in pids:
        try:
            text = Path(f"/proc/{pid}/smaps_rollup").read_text()
        except OSError:
            continue  # ended between the listing and the reading
        for line in text.splitlines():
            if line.startswith("Rss:"):
                rss += int(line.split()[1])
            elif line.startswith("Pss:"):
                pss += int(line.split()[1])
    return rss, pss


def run(command: list[str], work: Path, output: Path) -> tuple[float, tuple[int, int]]:
    """Wall seconds of one run of ``command`` in ``work``, and its peak memory: the
    highest sums, read every :data:`SAMPLE_EVERY` seconds, of the resident and of the
    proportional set sizes of the tool's processes (podfold folds a long stream in a
    second process; each tool is read the same way), in kilobytes."""
    import threading

    environment = {
        key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"
    }
    peak = [0, 0]
    with output.open("wb") as sink:
        start = time.perf_counter()
        child = subprocess.Popen(
            command, cwd=work, stdout=sink, stderr=subprocess.PIPE, env=environment
        )
        done = threading.Event()

        def sample() -> None:
            while not done.wait(SAMPLE_EVERY):
                rss, pss = _memory(_tree(child.pid))
                peak[0], peak[1] = max(peak[0], rss), max(peak[1], pss)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        assert child.stderr is not None
        said = child.stderr.read()
        # the last readings are taken before the process is reaped (its /proc is there)
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
        done.set()
        sampler.join()
        child.wait()
        seconds = time.perf_counter() - start
    if child.returncode != 0:
        raise SystemExit(
            f"{' '.join(command)} failed ({child.returncode}): {said.decode(errors='replace')}"
        )
    return seconds, (peak[0], peak[1])


def agree(outputs: dict[str, Path], count: int) -> list[str]:
    """What differs between the tools' pod templates of ``count`` Jobs (nothing, when they
    agree); on a long stream, only that podfold's output holds every Job with the pool."""
    wanted = {f"train-{n}" for n in range(count)}
    if count > 5000:
        pool = yaml.safe_dump(GPU_POOL["nodeSelector"]).strip()
        text = outputs["podfold apply"].read_text()
        names = text.count("\n  name: train-")
        with_pool = text.count(pool)
        if names != count or with_pool != count:
            return [f"podfold apply: {names} Jobs, {with_pool} with the pool, of {count}"]
        return []
    found = {name: templates(name, path.read_text()) for name, path in outputs.items()}
    problems = [
        f"{name}: {len(wanted - set(jobs))} Jobs missing, {len(set(jobs) - wanted)} unexpected"
        for name, jobs in found.items()
        if set(jobs) != wanted
    ]
    reference = found.get("kubectl patch --local")
    for name, jobs in found.items():
        if reference is None:
            break
        differing = sorted(job for job in wanted & set(jobs) if jobs[job] != reference.get(job))
        if differing:
            problems.append(f"{name}: {len(differing)} pod templates differ from kubectl patch's")
    first = found["podfold apply"].get("train-0", {}).get("spec", {})
    if first.get("nodeSelector") != GPU_POOL["nodeSelector"]:
        problems.append(f"the GPU pool is not in podfold's output: {first!r}")
    return problems


def stream(
    count: int, rounds: int, root: Path
) -> tuple[dict[str, list[float]], dict[str, list[tuple[int, int]]], list[str]]:
    work = root / f"jobs-{count}"
    tools = write_inputs(work, count)
    outputs = {name: work / f"out-{number}.yaml" for number, name in enumerate(tools)}
    times: dict[str, list[float]] = {name: [] for name in tools}
    peaks: dict[str, list[tuple[int, int]]] = {name: [] for name in tools}
    names = list(tools)
    for name in names:  # not timed
        run(tools[name], work, outputs[name])
    problems = agree(outputs, count)
    for number in range(rounds):
        turn = number % len(names)
        for name in names[turn:] + names[:turn]:
            seconds, peak = run(tools[name], work, outputs[name])
            times[name].append(seconds)
            peaks[name].append(peak)
    shutil.rmtree(work)
    return times, peaks, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS[1000], help="rounds on 1,000 Jobs")
    parser.add_argument(
        "--long-rounds", type=int, default=ROUNDS[50000], help="rounds on 50,000 Jobs"
    )
    parser.add_argument(
        "--sizes",
        default=",".join(map(str, SIZES)),
        help="the streams' lengths, comma-separated (targets judged on 1000 and 50000)",
    )
    args = parser.parse_args(argv)
    sizes = [int(size) for size in args.sizes.split(",")]
    failed = False
    podfold_peak: dict[int, float] = {}
    kubectl_peak: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for count in sizes:
            rounds = args.rounds if count <= 5000 else args.long_rounds
            times, peaks, problems = stream(count, rounds, Path(tmp))
            ours = statistics.median(times["podfold apply"])
            print(
                f"{count} Jobs, the same GPU pool on each pod template; the whole process, "
                f"{rounds} runs each, interleaved"
            )
            print(
                f"  {'tool':<24}{'min s':>9}{'median s':>10}{'RSS MB':>9}{'PSS MB':>9}"
                f"   podfold's median time / this one's"
            )
            for name, seconds in times.items():
                median = statistics.median(seconds)
                rss = statistics.median(peak[0] for peak in peaks[name]) / 1024
                pss = statistics.median(peak[1] for peak in peaks[name]) / 1024
                line = f"  {name:<24}{min(seconds):>9.2f}{median:>10.2f}{rss:>9.1f}{pss:>9.1f}"
                if name != "podfold apply":
                    line += f"   {ours / median:5.2f}"
                    target = SPEED.get(count)
                    if name == "kubectl patch --local" and target is not None:
                        ok = ours <= target * median
                        failed |= not ok
                        line += f"  {'ok' if ok else 'MISS'} (target <= {target:.2f})"
                print(line)
            podfold_peak[count] = statistics.median(p[1] for p in peaks["podfold apply"]) / 1024
            if "kubectl patch --local" in peaks:
                kubectl_peak[count] = (
                    statistics.median(p[1] for p in peaks["kubectl patch --local"]) / 1024
                )
            for problem in problems:
                print(f"MISS the outputs disagree: {problem}")
                failed = True
            if not problems:
                print(
                    f"  the outputs agree ({'every Job, with the pool' if count > 5000 else 'pod templates, across the tools'})"
                )
    shortest, longest = min(podfold_peak), max(podfold_peak)
    if longest != shortest:
        growth = podfold_peak[longest] / podfold_peak[shortest]
        ok = growth <= GROWTH
        failed |= not ok
        print(
            f"podfold's peak memory (PSS): {podfold_peak[longest]:.1f} MB on {longest} Jobs, "
            f"{podfold_peak[shortest]:.1f} MB on {shortest}: {growth:.2f} times  "
            f"{'ok' if ok else 'MISS'} (target <= {GROWTH:.2f})"
        )
    if longest in kubectl_peak:
        ratio = podfold_peak[longest] / kubectl_peak[longest]
        ok = ratio <= 1.0
        failed |= not ok
        print(
            f"podfold's peak memory (PSS) on {longest} Jobs over kubectl patch's "
            f"({kubectl_peak[longest]:.1f} MB): {ratio:.2f}  "
            f"{'ok' if ok else 'MISS'} (target <= 1.00)"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
