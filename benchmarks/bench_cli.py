"""``podfold apply`` on 1,000 Jobs, and on one Pod, against ``kubectl patch --local`` and
``kubectl kustomize``.

Run ``python benchmarks/bench_cli.py [--runs N] [--rounds N] [--pod-runs N] [--only PART]
[--against CHECKOUT]``. Three comparisons (``--only yaml``, ``pod`` or ``jobs`` runs one):

**YAML on libyaml against pure Python** (issue 12, part 2), in this process:
reading the stream of 1,000 Jobs (``read_documents``), writing it
(``dump_documents``), loading the GPU pool overlay and an overlay of 300 env
vars (``loads_overlay``), each timed with ``transforms.io.safe_yaml.LIBYAML``
on and off, the two interleaved, 7 rounds. Target: libyaml at least 1.4 times
faster at each (medians). Skipped, saying so, where PyYAML has no libyaml.

**The command line against kubectl** (part 5). Each tool makes the same change
(a GPU pool: a node selector and a toleration on every Job's pod template) to
the same stream of 1,000 Jobs, as a whole process started from the shell and
writing YAML to a file, the way a user runs it:

* ``podfold apply -f gpu-pool.yaml jobs.yaml``;
* ``kubectl patch --local -f jobs.yaml --type strategic -p ... -o yaml``
  (one process for the whole stream);
* ``kubectl kustomize`` of a kustomization whose strategic merge patch
  targets every Job.

The tools run in rounds (5), one run of each per round in an order that turns
from round to round, so a drift in the machine's speed reaches all three,
after one round that is not timed (it fills the file cache, and lets Python
write podfold's bytecode as an installation does: ``PYTHONDONTWRITEBYTECODE``
is left out of the tools' environment). Before any figure is believed, every
Job's pod template in each tool's output is checked to be the same (parsed,
compared as data). It prints each tool's minimum and median wall time, and
podfold's median over each other tool's. Target: podfold's median at most
kubectl patch's (and so at most kustomize's). Where ``kubectl`` is not on PATH
this part says so and is skipped.

**Start-up: one Pod, one recipe** (what a user waits for most often). ``podfold
apply -f overlay.yaml pod.yaml``, the overlay a pipeline of one recipe (``- recipe:
node_selector`` / ``gpu: a100``), against ``kubectl patch --local -f pod.yaml --type
merge -p '{"spec": {"nodeSelector": {"gpu": "a100"}}}' -o yaml``, and ``python -c pass``
(the interpreter's own start-up, which no Python program can go below), in rounds
(21) whose order turns, after one untimed round; both tools' outputs are checked to be
the same pod. It prints each one's minimum and median and podfold's median over the
others'; ``--against CHECKOUT`` adds that checkout's podfold apply to the rounds (the
console script run with the checkout first on ``PYTHONPATH``). There is no target: podfold's start-up is mostly click's, PyYAML's and the
interpreter's own imports, and kubectl's is a Go binary's (the ratio is printed as
information; ``benchmarks/bench_startup.py`` judges podfold's imports). Where
``kubectl`` is not on PATH only podfold and the interpreter are timed.

Every figure says how many runs or rounds it is from. The exit status is 1
if a target is missed or the outputs disagree, 0 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

JOBS = 1000
RUNS = 5
GPU_POOL = {
    "nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"},
    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
}
TARGETS = {"kubectl patch --local": 1.0, "kubectl kustomize": 1.0}
"""The most podfold's median may be, as a fraction of each other tool's median."""
ROUNDS = 7
POD_RUNS = 21
AGAINST = "podfold apply [against]"
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "train"},
    "spec": {"containers": [{"name": "trainer", "image": "ghcr.io/example/trainer:1.4.2"}]},
}
ONE_RECIPE = "- recipe: node_selector\n  gpu: a100\n"
YAML_SPEEDUP = 1.4
"""The least libyaml's speed-up over pure Python at each YAML task (the low end of what
issue 12 found a prototype on libyaml gave ``loads_overlay``)."""


def job(number: int) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": f"train-{number}", "labels": {"team": "ml"}},
        "spec": {
            "backoffLimit": 2,
            "template": {
                "metadata": {"labels": {"app": "train"}},
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {
                            "name": "trainer",
                            "image": "ghcr.io/example/trainer:1.4.2",
                            "command": ["python", "-m", "train", f"--shard={number}"],
                            "env": [{"name": "LOGLEVEL", "value": "INFO"}],
                            "resources": {"limits": {"nvidia.com/gpu": 1, "memory": "32Gi"}},
                        }
                    ],
                },
            },
        },
    }


def commands(work: Path, kubectl: str, count: int = JOBS) -> dict[str, list[str]]:
    """Each tool's command line, its inputs (a stream of ``count`` Jobs) written into
    ``work``."""
    jobs = work / "jobs.yaml"
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    with jobs.open("w") as out:  # a Job at a time: a long stream is never held whole
        yaml.dump_all((job(n) for n in range(count)), out, Dumper=dumper, sort_keys=False)
    (work / "gpu-pool.yaml").write_text(yaml.safe_dump({"spec": GPU_POOL}, sort_keys=False))
    kustomize = work / "kustomize"
    kustomize.mkdir()
    shutil.copy(jobs, kustomize / "jobs.yaml")
    patch = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "any"},
        "spec": {"template": {"spec": GPU_POOL}},
    }
    (kustomize / "kustomization.yaml").write_text(
        yaml.safe_dump(
            {
                "resources": ["jobs.yaml"],
                "patches": [{"target": {"kind": "Job"}, "patch": yaml.safe_dump(patch)}],
            }
        )
    )
    return {
        "podfold apply": [
            str(Path(sys.executable).with_name("podfold")),
            "apply",
            "-f",
            "gpu-pool.yaml",
            "jobs.yaml",
        ],
        "kubectl patch --local": [
            kubectl,
            "patch",
            "--local",
            "-f",
            "jobs.yaml",
            "--type",
            "strategic",
            "-p",
            json.dumps({"spec": {"template": {"spec": GPU_POOL}}}),
            "-o",
            "yaml",
        ],
        "kubectl kustomize": [kubectl, "kustomize", "kustomize"],
    }


def run(command: list[str], work: Path, output: Path, checkout: Path | None = None) -> float:
    """Wall seconds of one run of ``command`` in ``work``, its standard output to ``output``;
    with ``checkout``, that checkout of podfold first on the path."""
    environment = {
        key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"
    }
    if checkout is not None:
        environment["PYTHONPATH"] = os.pathsep.join(
            [str(checkout), *filter(None, [environment.get("PYTHONPATH")])]
        )
    with output.open("wb") as sink:
        start = time.perf_counter()
        done = subprocess.run(
            command, cwd=work, stdout=sink, stderr=subprocess.PIPE, env=environment, check=False
        )
        seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(
            f"{' '.join(command)} failed ({done.returncode}): "
            f"{done.stderr.decode(errors='replace')}"
        )
    return seconds


def templates(name: str, text: str) -> dict[str, Any]:
    """Each Job's pod template in a tool's output, by the Job's name.

    ``kubectl patch --local -o yaml`` writes its objects one after another with
    no ``---`` between them; each begins with ``apiVersion:`` (kubectl writes
    keys in sorted order), so the text is cut there.
    """
    if name.startswith("kubectl patch"):
        text = text.replace("\napiVersion: ", "\n---\napiVersion: ")
    found = {}
    for document in yaml.load_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
        if document is not None:
            found[document["metadata"]["name"]] = document["spec"]["template"]
    return found


def agree(outputs: dict[str, Path]) -> list[str]:
    """What differs between the tools' pod templates (nothing, when they agree)."""
    found = {name: templates(name, path.read_text()) for name, path in outputs.items()}
    wanted = {f"train-{n}" for n in range(JOBS)}
    problems = [
        f"{name}: {len(wanted - set(jobs))} Jobs missing, {len(set(jobs) - wanted)} unexpected"
        for name, jobs in found.items()
        if set(jobs) != wanted
    ]
    reference = found["kubectl patch --local"]
    for name, jobs in found.items():
        differing = sorted(job for job in wanted & set(jobs) if jobs[job] != reference.get(job))
        if differing:
            problems.append(
                f"{name}: {len(differing)} pod templates differ from kubectl "
                f"patch's, e.g. {differing[0]}: {jobs[differing[0]]!r}"
            )
    first = found["podfold apply"].get("train-0", {}).get("spec", {})
    if (
        first.get("nodeSelector") != GPU_POOL["nodeSelector"]
        or first.get("tolerations") != GPU_POOL["tolerations"]
    ):
        problems.append(f"the GPU pool is not in podfold's output: {first!r}")
    return problems


def yaml_paths(rounds: int) -> bool:
    """podfold's YAML in and out on libyaml against pure Python, in this process; True if
    libyaml is at least ``YAML_SPEEDUP`` times faster at each."""
    import timeit

    from transforms.cli.documents import dump_documents, read_documents
    from transforms.io import safe_yaml
    from transforms.io.loading import loads_overlay

    if not hasattr(yaml, "CSafeLoader"):
        print("PyYAML is built without libyaml here: only the pure-Python path; skipped")
        return True
    text = yaml.safe_dump_all([job(n) for n in range(JOBS)], sort_keys=False)
    documents = read_documents(text, "jobs.yaml")
    gpu_pool = yaml.safe_dump({"spec": GPU_POOL}, sort_keys=False)
    env = "spec:\n  containers:\n  - name: trainer\n    env: !merge-by\n" + "".join(
        f"    - {{name: VAR_{n}, value: 'v{n}'}}\n" for n in range(300)
    )
    cases = {
        f"read {JOBS} Jobs": lambda: read_documents(text, "jobs.yaml"),
        f"write {JOBS} Jobs": lambda: dump_documents(documents),
        "load the GPU pool overlay": lambda: loads_overlay(gpu_pool),
        "load 300 env vars (!merge-by)": lambda: loads_overlay(env),
    }
    times: dict[tuple[str, bool], list[float]] = {}
    numbers = {}
    for name, call in cases.items():
        safe_yaml.LIBYAML = False  # the slower path sets how many calls make a sample
        count = timeit.Timer(call).autorange()[0]
        numbers[name] = max(1, count // 2)
    try:
        for round_number in range(rounds):
            for name, call in cases.items():
                for libyaml in (True, False) if round_number % 2 == 0 else (False, True):
                    safe_yaml.LIBYAML = libyaml
                    seconds = timeit.Timer(call).timeit(numbers[name]) / numbers[name]
                    times.setdefault((name, libyaml), []).append(seconds)
    finally:
        safe_yaml.LIBYAML = True
    print(
        f"podfold's YAML, libyaml against pure Python in one process, {rounds} rounds, "
        f"interleaved (milliseconds per call)"
    )
    print(
        f"  {'':<32}{'libyaml min':>12}{'median':>8}{'pure min':>10}{'median':>8}"
        f"   pure / libyaml (medians)"
    )
    ok = True
    for name in cases:
        fast, slow = times[(name, True)], times[(name, False)]
        ratio = statistics.median(slow) / statistics.median(fast)
        ok &= ratio >= YAML_SPEEDUP
        print(
            f"  {name:<32}{min(fast) * 1e3:>12.2f}{statistics.median(fast) * 1e3:>8.2f}"
            f"{min(slow) * 1e3:>10.2f}{statistics.median(slow) * 1e3:>8.2f}   {ratio:6.2f}x  "
            f"{'ok' if ratio >= YAML_SPEEDUP else 'MISS'} (target >= {YAML_SPEEDUP}x)"
        )
    return ok


def one_pod(runs: int, kubectl: str | None, against: Path | None = None) -> bool:
    """One Pod, one recipe: podfold apply against kubectl patch --local and python -c pass
    (and podfold apply of the checkout ``against``); True if the tools' outputs agree (the
    figures are information, not judged)."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "pod.yaml").write_text(yaml.safe_dump(POD, sort_keys=False))
        (work / "overlay.yaml").write_text(ONE_RECIPE)
        tools = {
            "podfold apply": [
                str(Path(sys.executable).with_name("podfold")),
                "apply",
                "-f",
                "overlay.yaml",
                "pod.yaml",
            ],
            "python -c pass": [sys.executable, "-c", "pass"],
        }
        checkouts = {}
        if against is not None:
            tools[AGAINST] = tools["podfold apply"]
            checkouts[AGAINST] = against.resolve()
        if kubectl is not None:
            tools["kubectl patch --local"] = [
                kubectl,
                "patch",
                "--local",
                "-f",
                "pod.yaml",
                "--type",
                "merge",
                "-p",
                json.dumps({"spec": {"nodeSelector": {"gpu": "a100"}}}),
                "-o",
                "yaml",
            ]
        outputs = {name: work / f"out-{number}.yaml" for number, name in enumerate(tools)}
        times: dict[str, list[float]] = {name: [] for name in tools}
        names = list(tools)
        for name in names:  # not timed: caches filled, bytecode written
            run(tools[name], work, outputs[name], checkouts.get(name))
        for round_number in range(runs):
            turn = round_number % len(names)
            for name in names[turn:] + names[:turn]:
                times[name].append(run(tools[name], work, outputs[name], checkouts.get(name)))
        pods = {
            name: yaml.safe_load(outputs[name].read_text())
            for name in tools
            if name != "python -c pass"
        }
    wanted = {**POD, "spec": {**POD["spec"], "nodeSelector": {"gpu": "a100"}}}
    problems = [f"{name} wrote {pod!r}" for name, pod in pods.items() if pod != wanted]
    medians = {name: statistics.median(seconds) for name, seconds in times.items()}
    print(
        f"One Pod, one recipe (node_selector); wall time of the whole process, {runs} runs "
        f"each, interleaved (milliseconds)"
    )
    print(f"  {'':<24}{'min':>8}{'median':>8}   podfold's median / this median")
    for name, seconds in times.items():
        ratio = (
            ""
            if name == "podfold apply"
            else f"   {medians['podfold apply'] / medians[name]:5.2f}  (information, no target)"
        )
        print(f"  {name:<24}{min(seconds) * 1e3:>8.1f}{medians[name] * 1e3:>8.1f}{ratio}")
    if against is not None:
        print(f"  {AGAINST}: podfold apply of {against}")
    if kubectl is None:
        print("  kubectl is not on PATH: podfold apply is compared with nothing but python")
    for problem in problems:
        print(f"MISS the tools' outputs disagree: {problem}")
    if not problems:
        print(f"  the pod agrees across {' and '.join(pods)}")
    return not problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=RUNS, help="runs of each tool on 1,000 Jobs")
    parser.add_argument(
        "--rounds", type=int, default=ROUNDS, help="rounds of the in-process YAML comparison"
    )
    parser.add_argument(
        "--pod-runs", type=int, default=POD_RUNS, help="runs of each tool on one Pod"
    )
    parser.add_argument(
        "--only", choices=("yaml", "pod", "jobs"), help="run one of the three comparisons"
    )
    parser.add_argument(
        "--against",
        type=Path,
        metavar="CHECKOUT",
        help="another checkout of podfold (an earlier commit, say) whose "
        "podfold apply runs on one Pod in the same rounds",
    )
    args = parser.parse_args(argv)
    yaml_ok = yaml_paths(args.rounds) if args.only in (None, "yaml") else True
    kubectl = shutil.which("kubectl")
    pod_ok = one_pod(args.pod_runs, kubectl, args.against) if args.only in (None, "pod") else True
    if args.only in ("yaml", "pod"):
        return 0 if yaml_ok and pod_ok else 1
    if kubectl is None:
        print("kubectl is not on PATH: nothing to compare podfold apply with; skipped")
        return 0 if yaml_ok and pod_ok else 1
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        tools = commands(work, kubectl)
        outputs = {name: work / f"out-{number}.yaml" for number, name in enumerate(tools)}
        times: dict[str, list[float]] = {name: [] for name in tools}
        names = list(tools)
        for name in names:  # not timed: caches filled, bytecode written
            run(tools[name], work, outputs[name])
        for round_number in range(args.runs):
            turn = round_number % len(names)
            for name in names[turn:] + names[:turn]:
                times[name].append(run(tools[name], work, outputs[name]))
        problems = agree(outputs)
    ours = statistics.median(times["podfold apply"])
    print(
        f"{JOBS} Jobs, the same GPU pool on each pod template; wall time of the whole "
        f"process, {args.runs} runs each, interleaved (seconds)"
    )
    print(f"  {'tool':<24}{'min':>8}{'median':>8}   podfold's median / this median")
    failed = bool(problems)
    for name, seconds in times.items():
        median = statistics.median(seconds)
        line = f"  {name:<24}{min(seconds):>8.3f}{median:>8.3f}"
        if name in TARGETS:
            ok = ours <= TARGETS[name] * median
            failed |= not ok
            line += (
                f"   {ours / median:5.2f}  {'ok' if ok else 'MISS'} (target <= {TARGETS[name]:.2f})"
            )
        print(line)
    for problem in problems:
        print(f"MISS the tools' outputs disagree: {problem}")
    if not problems:
        print(f"  the {JOBS} pod templates agree across the three tools")
    return 1 if failed or not yaml_ok or not pod_ok else 0


if __name__ == "__main__":
    sys.exit(main())
