"""Growth: every list operation stays linear (or n log n) in the items involved.

Run with the project's own dependencies (``pip install -e '.[test]'``)::

    python benchmarks/bench_growth.py            # 1,000 -> 100,000 items
    python benchmarks/bench_growth.py --sizes 1000 10000

For each operation it builds the overlay and applies it to a pod whose list
already holds as many items (half of them the same as the new ones), at each
size, and prints the time and the ratio of the largest size to the smallest.
100x the items may cost at most about 100x the time (the target allows 1.5x
for hashing and sorting, and for the noise of a shared machine); it exits
non-zero when an operation misses it. Where even a linear operation on the
same data (a deep copy of the pod) grows more than 100x on the machine
(caches, memory, the garbage collector, other processes), an operation's
growth is judged relative to that copy's, scaled to 100x. Before podfold hashed the items once,
the unique append, ``!append-unique`` and ``merge_by`` grew quadratically:
20,000 items took tens of seconds.

The operations: ``append_at(..., unique=True)``; a partial pod with an
``AppendUnique`` list (``!append-unique`` in YAML); ``merge_by``; a strategic
merge patch of a merged list of maps (volumes), of a list of scalars merged
as a set (finalizers), and of ``$patch: delete`` elements; JSON Patch adds
at the end of a list.
"""

from __future__ import annotations

import argparse
import copy
import gc
import sys
import time
from collections.abc import Callable
from typing import Any

from combinators import append_at, merge_by
from transforms import overlay
from transforms.forms.markers import AppendUnique
from transforms.forms.patches import json_patch, strategic_merge

TARGET = 100.0
SLACK = 1.5

Case = Callable[[int], Callable[[], Any]]


def _pod(key: str, n: int) -> dict[str, Any]:
    """A pod whose ``spec.tolerations``, ``spec.volumes`` and finalizers hold ``n`` items."""
    return {
        "metadata": {"name": "p", "finalizers": [f"f{i}" for i in range(n)]},
        "spec": {
            "containers": [{"name": "trainer", "image": "t:1"}],
            "tolerations": [{key: f"k{i}", "operator": "Exists"} for i in range(n)],
            "volumes": [{"name": f"v{i}", "emptyDir": {}} for i in range(n)],
        },
    }


def _new(n: int) -> list[dict[str, Any]]:
    """``n`` items, the first half already in the pod (``_pod``), the rest new."""
    return [{"key": f"k{i}", "operator": "Exists"} for i in range(n // 2, n + n // 2)]


def unique_append(n: int) -> Callable[[], Any]:
    pod, items = _pod("key", n), _new(n)
    return lambda: append_at("spec.tolerations", *items, unique=True)(pod)


def append_unique_partial(n: int) -> Callable[[], Any]:
    pod, items = _pod("key", n), _new(n)
    return lambda: overlay({"spec": {"tolerations": AppendUnique(items)}})(pod)


def merge_by_name(n: int) -> Callable[[], Any]:
    pod = _pod("key", n)
    items = [{"name": f"v{i}", "configMap": {"name": "c"}} for i in range(n // 2, n + n // 2)]
    return lambda: merge_by("spec.volumes", items)(pod)


def strategic_maps(n: int) -> Callable[[], Any]:
    pod = _pod("key", n)
    items = [{"name": f"v{i}", "configMap": {"name": "c"}} for i in range(n // 2, n + n // 2)]
    return lambda: strategic_merge({"spec": {"volumes": items}})(pod)


def strategic_scalars(n: int) -> Callable[[], Any]:
    pod = _pod("key", n)
    names = [f"f{i}" for i in range(n // 2, n + n // 2)]
    return lambda: strategic_merge({"metadata": {"finalizers": names}})(pod)


def strategic_deletes(n: int) -> Callable[[], Any]:
    pod = _pod("key", n)
    doomed = [{"name": f"v{i}", "$patch": "delete"} for i in range(0, n, 2)]
    return lambda: strategic_merge({"spec": {"volumes": doomed}})(pod)


def json_patch_adds(n: int) -> Callable[[], Any]:
    pod, items = _pod("key", n), _new(n)
    ops = [{"op": "add", "path": "/spec/tolerations/-", "value": item} for item in items]
    return lambda: json_patch(ops)(pod)


CASES: dict[str, Case] = {
    "append_at unique=True": unique_append,
    "!append-unique partial pod": append_unique_partial,
    "merge_by": merge_by_name,
    "strategic merge, maps": strategic_maps,
    "strategic merge, scalars": strategic_scalars,
    "strategic $patch: delete": strategic_deletes,
    "JSON Patch adds": json_patch_adds,
}


def timed(run: Callable[[], Any], rounds: int) -> float:
    """The best of ``rounds`` runs of ``run``, in seconds, the garbage collector paused.

    As ``timeit`` does: Python's cyclic collector scans every tracked object
    of a pod of 100,000 items again and again, a cost of the interpreter
    that grows faster than the items whatever the operation does.
    """
    best = float("inf")
    for _ in range(rounds):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - start)
        finally:
            gc.enable()
    return best


def linear_baseline(n: int) -> Callable[[], Any]:
    """A linear operation on the same data: a deep copy of the pod with its ``3 n`` items."""
    pod = _pod("key", n)
    return lambda: copy.deepcopy(pod)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument(
        "--case",
        choices=sorted(CASES),
        action="append",
        help="run only these operations (repeatable)",
    )
    args = parser.parse_args(argv)
    sizes = sorted(args.sizes)
    small, large = sizes[0], sizes[-1]
    allowed = TARGET * (large / small) / 100 * SLACK
    missed = []

    def rounds(size: int) -> int:
        return 7 if size <= 10_000 else 3

    baseline = [timed(linear_baseline(size), rounds(size)) for size in sizes]
    linear = baseline[-1] / baseline[0]
    print(
        "operation".ljust(28) + "".join(f"{size:>12,}" for size in sizes) + "    growth  vs linear"
    )
    print(
        "deepcopy (linear baseline)".ljust(28)
        + "".join(f"{t * 1000:>10.1f}ms" for t in baseline)
        + f"   {linear:6.1f}x"
    )
    for name in args.case or CASES:
        times = [timed(CASES[name](size), rounds(size)) for size in sizes]
        growth = times[-1] / times[0]
        # on a busy machine even the linear copy grows faster than the items (caches,
        # memory, the garbage collector): then the growth is judged against it
        judged = growth if linear <= large / small else growth / linear * (large / small)
        verdict = "ok  " if judged <= allowed else "MISS"
        if judged > allowed:
            missed.append(name)
        print(
            name.ljust(28)
            + "".join(f"{t * 1000:>10.1f}ms" for t in times)
            + f"   {growth:6.1f}x {growth / linear:6.2f}x  {verdict}",
            flush=True,
        )
    print(
        f"target: {large // small}x the items cost at most {allowed:.0f}x the time "
        f"(judged against the linear baseline where it grows more than {large // small}x)"
    )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
