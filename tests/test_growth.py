"""Growth: list operations on 20,000 items finish within a time and memory budget.

Each case runs in a child process whose address space is capped
(``RLIMIT_AS``) and which is killed when its time is up, so a regression
to quadratic work (20,000 items took tens of seconds, some minutes) fails
the test instead of hanging CI. ``benchmarks/bench_growth.py`` measures the
growth itself, from 1,000 to 100,000 items.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MEMORY = 1_500 * 2**20  # bytes of address space for the child
SECONDS = 30.0  # linear work takes well under 2 s here; quadratic work takes minutes

_PRELUDE = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({memory}, {memory}))
N = {n}
pod = {{
    "metadata": {{"name": "p", "finalizers": [f"f{{i}}" for i in range(N)]}},
    "spec": {{"containers": [{{"name": "trainer", "image": "t:1"}}],
             "tolerations": [{{"key": f"k{{i}}", "operator": "Exists"}} for i in range(N)],
             "volumes": [{{"name": f"v{{i}}", "emptyDir": {{}}}} for i in range(N)]}},
}}
new = [{{"key": f"k{{i}}", "operator": "Exists"}} for i in range(N // 2, N + N // 2)]
volumes = [{{"name": f"v{{i}}", "configMap": {{"name": "c"}}}} for i in range(N // 2, N + N // 2)]
"""


def run_bounded(code: str, *, seconds: float = SECONDS, memory: int = MEMORY,
                n: int = 20_000) -> str:
    """Run ``code`` (after a prelude that caps memory and builds a pod of ``n``-item
    lists) in a child process; return what it printed, or fail naming the budget."""
    source = _PRELUDE.format(memory=memory, n=n) + textwrap.dedent(code)
    try:
        done = subprocess.run([sys.executable, "-c", source], cwd=ROOT, capture_output=True,
                              text=True, timeout=seconds, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"over the time budget of {seconds:.0f} s:\n{textwrap.dedent(code)}")
    assert done.returncode == 0, f"the child failed:\n{done.stderr[-3000:]}"
    return done.stdout


CASES = {
    "append_at unique": """
        from combinators import append_at
        new_pod = append_at("spec.tolerations", *new, unique=True)(pod)
        assert len(new_pod["spec"]["tolerations"]) == N + N // 2
        assert append_at("spec.tolerations", *new, unique=True)(new_pod) is new_pod
        print("ok")
    """,
    "append-unique partial pod": """
        from transforms import overlay
        from transforms.forms.markers import AppendUnique
        new_pod = overlay({"spec": {"tolerations": AppendUnique(new + new)}})(pod)
        assert len(new_pod["spec"]["tolerations"]) == N + N // 2
        print("ok")
    """,
    "merge_by": """
        from combinators import merge_by
        new_pod = merge_by("spec.volumes", volumes)(pod)
        assert len(new_pod["spec"]["volumes"]) == N + N // 2
        assert new_pod["spec"]["volumes"][N - 1] == {"name": f"v{N - 1}", "emptyDir": {},
                                                      "configMap": {"name": "c"}}
        print("ok")
    """,
    "strategic merge of maps": """
        from transforms.forms.patches import strategic_merge
        new_pod = strategic_merge({"spec": {"volumes": volumes}})(pod)
        assert len(new_pod["spec"]["volumes"]) == N + N // 2
        print("ok")
    """,
    "strategic merge of scalars": """
        from transforms.forms.patches import strategic_merge
        names = [f"f{i}" for i in range(N // 2, N + N // 2)]
        new_pod = strategic_merge({"metadata": {"finalizers": names}})(pod)
        assert len(new_pod["metadata"]["finalizers"]) == N + N // 2
        print("ok")
    """,
    "strategic deletes": """
        from transforms.forms.patches import strategic_merge
        doomed = [{"name": f"v{i}", "$patch": "delete"} for i in range(0, N, 2)]
        new_pod = strategic_merge({"spec": {"volumes": doomed}})(pod)
        assert len(new_pod["spec"]["volumes"]) == N // 2
        print("ok")
    """,
    "JSON Patch adds": """
        from transforms.forms.patches import json_patch
        ops = [{"op": "add", "path": "/spec/tolerations/-", "value": item} for item in new]
        assert len(json_patch(ops)(pod)["spec"]["tolerations"]) == 2 * N
        print("ok")
    """,
    "YAML pipeline with !append-unique": """
        from transforms import loads_overlay
        # 15,000 items of 5 nodes each: under the loader's limit of 100,000 nodes
        items = "".join(f"\\n    - {{key: k{i}, operator: Exists}}"
                        for i in range(N // 2, N // 2 + 15_000))
        step = loads_overlay("spec:\\n  tolerations: !append-unique" + items)
        assert len(step(pod)["spec"]["tolerations"]) == N + 5_000
        print("ok")
    """,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_list_operations_on_20000_items_stay_within_budget(case: str) -> None:
    assert run_bounded(CASES[case]).strip() == "ok"


def test_the_budget_catches_quadratic_work() -> None:
    # the harness itself: work that grows with the square of 20,000 items is stopped
    with pytest.raises(pytest.fail.Exception, match="over the time budget"):
        run_bounded("""
            items = list(range(N))
            print(sum(1 for a in items for b in items if a == b))
        """, seconds=3)


def test_the_budget_catches_a_memory_blowup() -> None:
    with pytest.raises(AssertionError, match="MemoryError"):
        run_bounded("blob = [0] * (4 * 2**30 // 8)")
