"""The cost of folding overlays, against TorchX's own rendering, side by side.

Run with the project's own dependencies (``pip install -e '.[torchx]'``)::

    python benchmarks/bench_torchx.py

It renders one role of 1,000 replicas through TorchX's ``_submit_dryrun``:
TorchX's ``kubernetes`` scheduler with no overlay, and podfold's
``kubernetes_overlay`` scheduler with a 10-step overlay (macros included),
once with validation off and once on. It prints the time per pod and the
ratios, and exits non-zero when a target is missed:

- the fold (macros included, validation off) adds at most 10% to TorchX's time;
- with validation on, at most 50%.

Rounds of the contenders are interleaved and the medians compared.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import torchx.specs as specs
from torchx.schedulers.kubernetes_scheduler import KubernetesScheduler

from combinators import append_at, merge_by, upsert
from transforms.torchx.folding import FoldSettings, fold_volcano_job
from transforms.torchx.roles import with_overlays
from transforms.torchx.schedulers import KubernetesOverlayScheduler

TEN_STEPS = (
    upsert("spec.nodeSelector", {"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"}),
    append_at("spec.tolerations", {"key": "nvidia.com/gpu", "operator": "Exists",
                                   "effect": "NoSchedule"}, unique=True),
    merge_by("spec.containers[0].env", [{"name": "NCCL_DEBUG", "value": "INFO"}]),
    merge_by("spec.containers[0].env", [{"name": "RANK", "value": "${replica_id}"}]),
    merge_by("spec.containers[0].env", [{"name": "JOB", "value": "${app_id}"}]),
    merge_by("spec.volumes", [{"name": "dshm", "emptyDir": {"medium": "Memory",
                                                             "sizeLimit": "16Gi"}}]),
    append_at("spec.volumes", {"name": "ckpt", "persistentVolumeClaim": {"claimName": "ckpt"}}),
    append_at("spec.containers[0].volumeMounts", {"name": "ckpt", "mountPath": "/ckpt"}),
    upsert("metadata.annotations", {"prometheus.io/scrape": "true"}),
    upsert("metadata.labels", {"kueue.x-k8s.io/queue-name": "research"}),
)


def app(replicas: int, overlays: tuple[Any, ...] = ()) -> specs.AppDef:
    role = specs.Role(
        name="trainer", image="ghcr.io/example/trainer:1.4.2", entrypoint="python",
        args=["-m", "train", "--rank", "${replica_id}"],
        env={f"VAR_{i}": f"value-{i}" for i in range(10)},
        num_replicas=replicas, resource=specs.Resource(cpu=8, gpu=1, memMB=32_000),
        port_map={"c10d": 29500})
    if overlays:
        role = with_overlays(role, *overlays)
    return specs.AppDef(name="trainer", roles=[role])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)

    plain_app = app(args.replicas)
    overlay_app = app(args.replicas, TEN_STEPS)
    torchx_scheduler = KubernetesScheduler("bench")
    overlay_scheduler = KubernetesOverlayScheduler("bench")
    cfg: dict[str, Any] = {"queue": "default"}

    contenders: dict[str, Callable[[], Any]] = {
        "torchx, no overlay": lambda: torchx_scheduler._submit_dryrun(plain_app, cfg),
        "podfold, validation off": lambda: overlay_scheduler._submit_dryrun(
            overlay_app, {**cfg, "validate": False}),
        "podfold, validation on": lambda: overlay_scheduler._submit_dryrun(
            overlay_app, {**cfg, "validate": True}),
    }
    job = contenders["podfold, validation on"]().request.resource
    pod = job["spec"]["tasks"][7]["template"]
    assert pod["spec"]["nodeSelector"] and pod["spec"]["containers"][0]["env"][-2] == {
        "name": "RANK", "value": "7"}, "the overlay did not apply as expected"

    # the fold alone, on what TorchX rendered: the part of the difference that
    # is podfold's, less exposed to the noise of TorchX's own time
    rendered = torchx_scheduler._submit_dryrun(overlay_app, cfg).request.resource
    contenders["the fold alone, validation off"] = lambda: fold_volcano_job(
        overlay_app, rendered, FoldSettings(validate=False))
    contenders["the fold alone, validation on"] = lambda: fold_volcano_job(
        overlay_app, rendered, FoldSettings(validate=True))
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(args.rounds):
        for name, fn in contenders.items():
            start = time.perf_counter()
            fn()
            samples[name].append((time.perf_counter() - start) / args.replicas)
    per_pod = {name: statistics.median(values) for name, values in samples.items()}

    print(f"{args.replicas} replicas, a 10-step overlay; median of {args.rounds} rounds")
    for name, seconds in per_pod.items():
        print(f"  {name:<26} {seconds * 1e6:9.1f} us per pod")
    base = per_pod["torchx, no overlay"]
    checks = [("fold, validation off", per_pod["podfold, validation off"] / base - 1, 0.10),
              ("fold, validation on", per_pod["podfold, validation on"] / base - 1, 0.50)]
    for mode in ("off", "on"):
        alone = per_pod[f"the fold alone, validation {mode}"] / base
        print(f"     the fold alone, validation {mode}: {alone * 100:5.1f}% of TorchX's time")
    failed = 0
    for label, added, target in checks:
        ok = added <= target
        failed += not ok
        print(f"{'ok  ' if ok else 'MISS'} {label:<22} adds {added * 100:5.1f}% "
              f"(target <= {target * 100:.0f}%)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
