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
  its patch per pod does), the same patch each time, against its chain
  built anew for every call: at most 1.5x (a strategic patch is built once,
  then found again by its value; a JSON Patch is built again, and applied
  the general way, which costs less than compiling it);
- a new patch each time (another GPU in the node selector), built and
  applied once: it runs the general way, compiling would cost it more than
  it saves; for a strategic patch, looking it up in the cache of built
  patches first costs at most 1.5x building its class directly (which
  bypasses the cache). Its ratio to its chain is printed, with no target.

Rounds of the contenders are interleaved, so drift in machine speed hits
them alike; the medians of the rounds are compared. It prints the median
time per call of each contender, how many rounds and calls each figure is
from, the ratios, and exits non-zero when a target is missed.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import timeit
from collections.abc import Callable
from typing import Any

from bench_combinators import ENV, MOUNT, TOLERATION, VOLUME, json_ops, realistic_pod

from combinators import Transform, append_at, chain, prepend_at, remove_at, replace_at, upsert
from transforms.forms.patches import json_patch, strategic_merge

TARGET = 1.5
CACHE_PRICE = 1.5
"""What looking a strategic patch up in the cache may add to building and applying a new one."""


def json_adds(gpu: str) -> list[dict[str, Any]]:
    """``json_ops`` (8 adds), with another GPU in the node selector."""
    return [{**json_ops[0], "value": gpu}, *json_ops[1:]]


def json_adds_chain(gpu: str = "a100") -> Transform:
    """What ``json_adds(gpu)`` does, as combinators."""
    return chain(
        upsert("spec.nodeSelector", {"gpu": gpu}),
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


def strategic_adds(gpu: str) -> dict[str, Any]:
    """A strategic merge patch adding env vars, a mount, a volume, a toleration, a node
    selector and an annotation."""
    return {
        "metadata": {"annotations": {"prometheus.io/scrape": "true"}},
        "spec": {
            "nodeSelector": {"gpu": gpu},
            "tolerations": [TOLERATION],
            "containers": [{"name": "trainer-0", "env": ENV, "volumeMounts": [MOUNT]}],
            "volumes": [VOLUME],
        },
    }


def strategic_adds_chain(gpu: str = "a100") -> Transform:
    """What ``strategic_adds(gpu)`` does, as combinators: tolerations are replaced whole,
    and new elements of merged lists come first, as Kubernetes orders them."""
    return chain(
        upsert("metadata.annotations", {"prometheus.io/scrape": "true"}),
        upsert("spec.nodeSelector", {"gpu": gpu}),
        replace_at("spec.tolerations", [TOLERATION]),
        prepend_at("spec.containers[name=trainer-0].env", *ENV),
        prepend_at("spec.containers[name=trainer-0].volumeMounts", MOUNT),
        prepend_at("spec.volumes", VOLUME),
    )


strategic_updates = {
    "spec": {
        "containers": [
            {
                "name": "trainer-0",
                "image": "ghcr.io/example/trainer:1.5",
                "resources": {
                    "limits": {"nvidia.com/gpu": "2"},
                    "requests": {"nvidia.com/gpu": "2"},
                },
            }
        ]
    },
}


def strategic_updates_chain() -> Transform:
    """What ``strategic_updates`` does, as combinators."""
    return chain(
        upsert(
            "spec.containers[name=trainer-0]",
            {
                "image": "ghcr.io/example/trainer:1.5",
                "resources": {
                    "limits": {"nvidia.com/gpu": "2"},
                    "requests": {"nvidia.com/gpu": "2"},
                },
            },
        )
    )


def measure(
    contenders: dict[str, Callable[[], Any]], rounds: int, seconds: float
) -> tuple[dict[str, float], dict[str, int]]:
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
    parser.add_argument(
        "--seconds", type=float, default=0.3, help="rough time budget per contender per round"
    )
    args = parser.parse_args(argv)

    pod = realistic_pod()
    gpus = (f"a100-{number}" for number in itertools.count())
    # (label, patch built once, its chain built once, patch per call, chain per call); per
    # call, the same patch each time (a recipe's, a fold's) and a new one each time
    pairs: list[tuple[str, Transform, Transform, Callable[[], Any], Callable[[], Any]]] = [
        (
            "json_patch, 8 adds",
            json_patch(json_ops),
            json_adds_chain(),
            lambda: json_patch(json_ops)(pod),
            lambda: json_adds_chain()(pod),
        ),
        (
            "json_patch, 3 edits",
            json_patch(json_edits),
            json_edits_chain(),
            lambda: json_patch(json_edits)(pod),
            lambda: json_edits_chain()(pod),
        ),
        (
            "strategic, adds",
            strategic_merge(strategic_adds("a100")),
            strategic_adds_chain(),
            lambda: strategic_merge(strategic_adds("a100"))(pod),
            lambda: strategic_adds_chain()(pod),
        ),
        (
            "strategic, updates",
            strategic_merge(strategic_updates),
            strategic_updates_chain(),
            lambda: strategic_merge(strategic_updates)(pod),
            lambda: strategic_updates_chain()(pod),
        ),
    ]
    # a new patch each call is built and applied once: it runs the general way (a plan
    # would cost it more than it saves), as every patch did before plans; what the cache
    # of strategic patches costs it is bounded, against the class built directly
    uncached_strategic = type(strategic_merge(strategic_updates))
    new_each_call: list[
        tuple[str, Callable[[str], Any], Callable[[str], Any], Callable[[str], Any]]
    ] = [
        (
            "strategic, adds",
            lambda gpu: strategic_merge(strategic_adds(gpu))(pod),
            lambda gpu: uncached_strategic(strategic_adds(gpu), "Pod")(pod),
            lambda gpu: strategic_adds_chain(gpu)(pod),
        ),
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
    for label, *built in new_each_call:
        assert built[0]("x") == built[1]("x") == built[2]("x") != pod, label
        for how, build in zip(("new patch", "new uncached patch", "new chain"), built, strict=True):
            contenders[f"{label}: {how} per call"] = lambda build=build: build(next(gpus))
    # json_patch has no cache: building one costs little beside applying it the first time
    contenders["json_patch, 8 adds: new patch per call"] = lambda: json_patch(
        json_adds(next(gpus))
    )(pod)
    contenders["json_patch, 8 adds: new chain per call"] = lambda: json_adds_chain(next(gpus))(pod)

    times, calls = measure(contenders, args.rounds, args.seconds)
    print(f"median time per call of {args.rounds} interleaved rounds; calls per round in brackets")
    for name, seconds in times.items():
        print(f"  {name:<46} {seconds * 1e6:9.2f} us  [{calls[name]}]")
    checks = [
        (f"{label}{how} / its chain", f"{label}: patch{how}", f"{label}: chain{how}", TARGET)
        for label, *_ in pairs
        for how in ("", " per call")
    ]
    checks += [
        (
            f"{label}, new per call / uncached",
            f"{label}: new patch per call",
            f"{label}: new uncached patch per call",
            CACHE_PRICE,
        )
        for label, *_ in new_each_call
    ]
    failed = 0
    for text, patch_name, chain_name, target in checks:
        ratio = times[patch_name] / times[chain_name]
        ok = ratio <= target
        failed += not ok
        print(
            f"{'ok  ' if ok else 'MISS'} {text:<46} {ratio:6.2f}x"
            f"  (target <= {target}x; medians of {args.rounds} rounds)"
        )
    for label, *_ in [*new_each_call, ("json_patch, 8 adds",)]:
        ratio = times[f"{label}: new patch per call"] / times[f"{label}: new chain per call"]
        print(
            f"     {label + ', new per call / its chain':<46} {ratio:6.2f}x"
            f"  (no target: applied once, the general way; medians of {args.rounds} rounds)"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
