"""Patches against the equivalent combinator chains, side by side in one run.

Run with the project's own dependencies (``pip install -e '.[test]'``)::

    python benchmarks/bench_patches.py

Each patch is timed beside the chain of combinators that gives the same pod
(asserted before timing), on the realistic pod of ``bench_combinators``:

- ``json_patch`` of 8 adds (the overlay of ``bench_combinators``) and of 3
  replaces and removes, built once: at most 1.5x its chain;
- ``strategic_merge`` adding env vars, a mount, a volume, a toleration, a
  node selector and an annotation, and one updating a container's image and
  limits, built once: at most 1.5x its chain;
- each of them built anew for every call (as a recipe or a fold that makes
  its patch per pod does) against its chain built anew for every call: at
  most 1.5x.

Rounds of the contenders are interleaved, so drift in machine speed hits
them alike; the medians of the rounds are compared. It prints the median
time per call of each contender, how many rounds and calls each figure is
from, the ratios, and exits non-zero when a target is missed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import timeit
from collections.abc import Callable
from typing import Any

from bench_combinators import ENV, MOUNT, TOLERATION, VOLUME, json_ops, realistic_pod

from combinators import Transform, append_at, chain, prepend_at, remove_at, replace_at, upsert
from transforms.forms.patches import json_patch, strategic_merge

TARGET = 1.5


def json_adds_chain() -> Transform:
    """What ``json_ops`` (8 adds) does, as combinators."""
    return chain(
        upsert("spec.nodeSelector", {"gpu": "a100"}),
        append_at("spec.tolerations", TOLERATION),
        append_at("spec.containers[0].env", ENV[0]),
        append_at("spec.containers[0].env", ENV[1]),
        append_at("spec.containers[0].env", ENV[2]),
        append_at("spec.volumes", VOLUME),
        append_at("spec.containers[0].volumeMounts", MOUNT),
        upsert("metadata.annotations", {"prometheus.io/scrape": "true"}),
    )


json_edits = [
    {"op": "replace", "path": "/spec/containers/0/image", "value": "ghcr.io/example/trainer:1.5"},
    {"op": "replace", "path": "/spec/containers/1/resources/limits/cpu", "value": "4"},
    {"op": "remove", "path": "/metadata/annotations/sidecar.istio.io~1inject"},
]


def json_edits_chain() -> Transform:
    """What ``json_edits`` does, as combinators (a replace needs its target: so does remove)."""
    return chain(
        replace_at("spec.containers[0].image", "ghcr.io/example/trainer:1.5"),
        replace_at("spec.containers[1].resources.limits.cpu", "4"),
        remove_at('metadata.annotations["sidecar.istio.io/inject"]', missing_ok=False),
    )


strategic_adds = {
    "metadata": {"annotations": {"prometheus.io/scrape": "true"}},
    "spec": {
        "nodeSelector": {"gpu": "a100"},
        "tolerations": [TOLERATION],
        "containers": [{"name": "trainer-0", "env": ENV, "volumeMounts": [MOUNT]}],
        "volumes": [VOLUME],
    },
}


def strategic_adds_chain() -> Transform:
    """What ``strategic_adds`` does, as combinators: tolerations are replaced whole, and
    new elements of merged lists come first, as Kubernetes orders them."""
    return chain(
        upsert("metadata.annotations", {"prometheus.io/scrape": "true"}),
        upsert("spec.nodeSelector", {"gpu": "a100"}),
        replace_at("spec.tolerations", [TOLERATION]),
        prepend_at("spec.containers[name=trainer-0].env", *ENV),
        prepend_at("spec.containers[name=trainer-0].volumeMounts", MOUNT),
        prepend_at("spec.volumes", VOLUME),
    )


strategic_updates = {
    "spec": {"containers": [{"name": "trainer-0", "image": "ghcr.io/example/trainer:1.5",
                             "resources": {"limits": {"nvidia.com/gpu": "2"},
                                           "requests": {"nvidia.com/gpu": "2"}}}]},
}


def strategic_updates_chain() -> Transform:
    """What ``strategic_updates`` does, as combinators."""
    return chain(upsert("spec.containers[name=trainer-0]", {
        "image": "ghcr.io/example/trainer:1.5",
        "resources": {"limits": {"nvidia.com/gpu": "2"}, "requests": {"nvidia.com/gpu": "2"}}}))


def measure(contenders: dict[str, Callable[[], Any]], rounds: int,
            seconds: float) -> tuple[dict[str, float], dict[str, int]]:
    """Median seconds per call of each contender, and the calls per round; rounds interleaved."""
    numbers = {}
    for name, fn in contenders.items():
        count, _ = timeit.Timer(fn).autorange()
        numbers[name] = max(1, int(count * seconds / 0.2 / rounds))
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, fn in contenders.items():
            samples[name].append(timeit.Timer(fn).timeit(numbers[name]) / numbers[name])
    return {name: statistics.median(values) for name, values in samples.items()}, numbers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--seconds", type=float, default=0.3,
                        help="rough time budget per contender per round")
    args = parser.parse_args(argv)

    pod = realistic_pod()
    # (label, patch built once, its chain built once, patch per call, chain per call)
    pairs: list[tuple[str, Transform, Transform, Callable[[], Any], Callable[[], Any]]] = [
        ("json_patch, 8 adds", json_patch(json_ops), json_adds_chain(),
         lambda: json_patch(json_ops)(pod), lambda: json_adds_chain()(pod)),
        ("json_patch, 3 edits", json_patch(json_edits), json_edits_chain(),
         lambda: json_patch(json_edits)(pod), lambda: json_edits_chain()(pod)),
        ("strategic, adds", strategic_merge(strategic_adds), strategic_adds_chain(),
         lambda: strategic_merge(strategic_adds)(pod), lambda: strategic_adds_chain()(pod)),
        ("strategic, updates", strategic_merge(strategic_updates), strategic_updates_chain(),
         lambda: strategic_merge(strategic_updates)(pod),
         lambda: strategic_updates_chain()(pod)),
    ]
    contenders: dict[str, Callable[[], Any]] = {}
    for label, patch, equivalent, patch_per_call, chain_per_call in pairs:
        # the same pod, lists in the same order, or the comparison means nothing
        assert patch(pod) == equivalent(pod) == patch_per_call() == chain_per_call(), label
        assert patch(pod) != pod, label
        contenders[f"{label}: patch"] = lambda patch=patch: patch(pod)
        contenders[f"{label}: chain"] = lambda equivalent=equivalent: equivalent(pod)
        contenders[f"{label}: patch per call"] = patch_per_call
        contenders[f"{label}: chain per call"] = chain_per_call

    times, calls = measure(contenders, args.rounds, args.seconds)
    print(f"median time per call of {args.rounds} interleaved rounds; "
          f"calls per round in brackets")
    for name, seconds in times.items():
        print(f"  {name:<40} {seconds * 1e6:9.2f} us  [{calls[name]}]")
    failed = 0
    for label, *_ in pairs:
        for how in ("", " per call"):
            ratio = times[f"{label}: patch{how}"] / times[f"{label}: chain{how}"]
            ok = ratio <= TARGET
            failed += not ok
            print(f"{'ok  ' if ok else 'MISS'} {label + how + ' / its chain':<40} {ratio:6.2f}x"
                  f"  (target <= {TARGET}x; medians of {args.rounds} rounds)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
