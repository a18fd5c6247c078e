"""The cost of folding overlays, against TorchX's own rendering, side by side.

Run with the project's own dependencies (``pip install -e '.[torchx]'``)::

    python benchmarks/bench_torchx.py                      # 1,000 and 10,000 replicas
    python benchmarks/bench_torchx.py --replicas 1000 --rounds 9

For each size it renders one role of that many replicas through
``_submit_dryrun``, the scheduler's real code path: TorchX's ``kubernetes``
scheduler, and podfold's ``kubernetes_overlay`` scheduler with a 10-step
overlay (macros included), validation on and off. TorchX is handed the very
app podfold hands it (the role without its overlays). The time spent in the
fold itself (:func:`~transforms.torchx.folding.fold_volcano_job`, pods
converted, folded, macros substituted, checked) is clocked inside the same
podfold runs. It prints the time per pod and the ratios, and exits non-zero
when a target is missed:

- end to end, podfold with validation adds at most 15% to TorchX's dry run;
- the fold alone, validation on, costs at most 10% of TorchX's time a pod.

How the figures are made robust on a small, shared machine: the contenders
run in interleaved rounds, in the opposite order every other round; each run
starts from a collected heap, and includes dropping what it made; the
clock is the process's CPU time, so time spent waiting for another process
does not count (the collector's work does); the ratios are taken within a
round, then their median over the rounds is checked. Every line says how
many runs it is from.

The fold pauses Python's garbage collector while it runs (see
:mod:`transforms.torchx.folding`); so that nothing is hidden, the last lines
time one full collection right after each scheduler's dry run, its request
still alive: what each leaves for the collector to do.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import torchx.specs as specs
from torchx.schedulers.kubernetes_scheduler import KubernetesScheduler

import transforms.torchx.schedulers as overlay_schedulers
from combinators import append_at, merge_by, upsert
from transforms.torchx.roles import with_overlays
from transforms.torchx.schedulers import KubernetesOverlayScheduler, without_overlays

TEN_STEPS = (
    upsert("spec.nodeSelector", {"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"}),
    append_at(
        "spec.tolerations",
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        unique=True,
    ),
    merge_by("spec.containers[0].env", [{"name": "NCCL_DEBUG", "value": "INFO"}]),
    merge_by("spec.containers[0].env", [{"name": "RANK", "value": "${replica_id}"}]),
    merge_by("spec.containers[0].env", [{"name": "JOB", "value": "${app_id}"}]),
    merge_by(
        "spec.volumes", [{"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}}]
    ),
    append_at("spec.volumes", {"name": "ckpt", "persistentVolumeClaim": {"claimName": "ckpt"}}),
    append_at("spec.containers[0].volumeMounts", {"name": "ckpt", "mountPath": "/ckpt"}),
    upsert("metadata.annotations", {"prometheus.io/scrape": "true"}),
    upsert("metadata.labels", {"kueue.x-k8s.io/queue-name": "research"}),
)

END_TO_END_TARGET = 0.15  # podfold, validation on, adds at most this to TorchX's dry run
FOLD_TARGET = 0.10  # the fold alone, validation on, costs at most this of TorchX's time

clock = time.process_time


def app(replicas: int, overlays: tuple[Any, ...] = ()) -> specs.AppDef:
    role = specs.Role(
        name="trainer",
        image="ghcr.io/example/trainer:1.4.2",
        entrypoint="python",
        args=["-m", "train", "--rank", "${replica_id}"],
        env={f"VAR_{i}": f"value-{i}" for i in range(10)},
        num_replicas=replicas,
        resource=specs.Resource(cpu=8, gpu=1, memMB=32_000),
        port_map={"c10d": 29500},
    )
    if overlays:
        role = with_overlays(role, *overlays)
    return specs.AppDef(name="trainer", roles=[role])


@contextmanager
def fold_clocked(spent: list[float]) -> Iterator[None]:
    """Inside, the overlay scheduler's fold is clocked: each call's CPU time goes to ``spent``."""
    fold = overlay_schedulers.fold_volcano_job

    def clocked(*args: Any) -> Any:
        start = clock()
        try:
            return fold(*args)
        finally:
            spent.append(clock() - start)

    overlay_schedulers.fold_volcano_job = clocked  # type: ignore[assignment]
    try:
        yield
    finally:
        overlay_schedulers.fold_volcano_job = fold


def one_run(run: Callable[[], Any]) -> float:
    """The CPU time of ``run()`` and of dropping what it returns, from a collected heap."""
    gc.collect()
    start = clock()
    run()
    return clock() - start


def measure(replicas: int, rounds: int) -> bool:
    """Time the contenders at one size, print the figures; whether both targets are met."""
    overlay_app = app(replicas, TEN_STEPS)
    torchx_app = without_overlays(overlay_app)  # what podfold hands TorchX
    torchx_scheduler = KubernetesScheduler("bench")
    overlay_scheduler = KubernetesOverlayScheduler("bench")
    cfg: dict[str, Any] = {"queue": "default"}
    on, off = {**cfg, "validate": True}, {**cfg, "validate": False}

    job = overlay_scheduler._submit_dryrun(overlay_app, on).request.resource
    pod = job["spec"]["tasks"][min(7, replicas - 1)]["template"]
    assert pod["spec"]["nodeSelector"] and pod["spec"]["containers"][0]["env"][-2] == {
        "name": "RANK",
        "value": str(min(7, replicas - 1)),
    }, "the overlay did not apply"
    del job, pod

    contenders: dict[str, Callable[[], Any]] = {
        "torchx": lambda: torchx_scheduler._submit_dryrun(torchx_app, cfg),
        "podfold, validation on": lambda: overlay_scheduler._submit_dryrun(overlay_app, on),
        "podfold, validation off": lambda: overlay_scheduler._submit_dryrun(overlay_app, off),
    }
    times: dict[str, list[float]] = {name: [] for name in contenders}
    folds: dict[str, list[float]] = {"on": [], "off": []}
    order = list(contenders)
    for number in range(rounds):
        for name in order if number % 2 == 0 else reversed(order):
            spent: list[float] = []
            with fold_clocked(spent):
                times[name].append(one_run(contenders[name]))
            if name != "torchx":
                folds[name.rsplit(" ", 1)[1]].append(sum(spent))

    def per_pod(values: list[float]) -> float:
        return statistics.median(values) / replicas * 1e6

    base = times["torchx"]
    added = {
        mode: [
            podfold / torchx - 1
            for podfold, torchx in zip(times[f"podfold, validation {mode}"], base, strict=True)
        ]
        for mode in ("on", "off")
    }
    share = {
        mode: [fold / torchx for fold, torchx in zip(folds[mode], base, strict=True)]
        for mode in ("on", "off")
    }
    print(
        f"{replicas:,} replicas, a 10-step overlay with macros; CPU time a pod, "
        f"median of {rounds} rounds (one run of each contender a round)"
    )
    for name, values in times.items():
        print(f"  {name:<34} {per_pod(values):9.1f} us")
    for mode in ("on", "off"):
        print(f"  {'the fold alone, validation ' + mode:<34} {per_pod(folds[mode]):9.1f} us")
    print(f"  ratios within each round, median of {rounds}:")
    for mode in ("on", "off"):
        print(
            f"    podfold, validation {mode:<3} adds {statistics.median(added[mode]) * 100:6.1f}% "
            f"to TorchX's dry run (rounds: "
            f"{', '.join(f'{value * 100:.0f}%' for value in added[mode])})"
        )
    for mode in ("on", "off"):
        print(
            f"    the fold alone, validation {mode:<3} {statistics.median(share[mode]) * 100:5.1f}% "
            f"of TorchX's time (rounds: "
            f"{', '.join(f'{value * 100:.1f}%' for value in share[mode])})"
        )

    # what each leaves for the collector: one full collection, its request still alive
    for name in ("torchx", "podfold, validation on"):
        gc.collect()
        result = contenders[name]()
        start = clock()
        gc.collect()
        print(
            f"  a full collection right after {name}'s dry run (1 run): "
            f"{(clock() - start) / replicas * 1e6:.1f} us a pod"
        )
        del result

    checks = [
        (
            f"{replicas:,}: podfold end to end, validation on",
            statistics.median(added["on"]),
            END_TO_END_TARGET,
            "adds",
        ),
        (
            f"{replicas:,}: the fold alone, validation on",
            statistics.median(share["on"]),
            FOLD_TARGET,
            "costs",
        ),
    ]
    met = True
    for label, value, target, verb in checks:
        ok = value <= target
        met &= ok
        print(
            f"{'ok  ' if ok else 'MISS'} {label:<44} {verb} {value * 100:5.1f}% "
            f"(target <= {target * 100:.0f}%)"
        )
    return met


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, nargs="+", default=[1000, 10_000])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    met = [measure(replicas, args.rounds) for replicas in args.replicas]
    return 0 if all(met) else 1


if __name__ == "__main__":
    sys.exit(main())
