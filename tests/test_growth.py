"""Growth: list operations on 20,000 items finish within a time and memory budget; explain,
blame and the command line's ``(written by FILE:LINE)`` grow with the pod, not its square.

Each list operation runs in a child process (forked from the test's, ``tests/budget.py``)
whose address space and CPU time are capped, and which is killed when its time is up, so a regression
to quadratic work (20,000 items took tens of seconds, some minutes) fails
the test instead of hanging CI. ``benchmarks/bench_growth.py`` measures the
growth itself, from 1,000 to 100,000 items.

Explain and blame are held to a count, not a clock: the Python functions (and
builtins) a run calls on a pod of ``n`` containers and on one of ``4 n``, in
this process. Linear work calls about 4x as many, n log n about 5x, quadratic
work 16x; the count does not depend on the machine's speed or load.
``benchmarks/bench_explain_growth.py`` times the same paths from 1,000 to
8,000 containers.
"""

from __future__ import annotations

import contextlib
import cProfile
import io
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.budget import within

ROOT = Path(__file__).resolve().parent.parent
MEMORY = 1_500 * 2**20  # bytes of address space the child may take (a fresh one: in all)
SECONDS = 30.0  # linear work takes well under 2 s here; quadratic work takes minutes

_LIMIT = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({memory}, {memory}))
"""
_PRELUDE = """
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


def _printed(source: str) -> str:
    """What ``source`` prints, run as a module of its own (in the forked child)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<bounded>", "exec"), {"__name__": "__bounded__"})
    return out.getvalue()


def run_bounded(
    code: str,
    *,
    seconds: float = SECONDS,
    memory: int = MEMORY,
    n: int = 20_000,
    fresh: bool = False,
) -> str:
    """Run ``code`` (after a prelude that builds a pod of ``n``-item lists) in a child
    process with ``seconds`` of CPU and ``memory`` bytes of address space; return what it
    printed, or fail naming the budget. The child is forked from this process, its imports
    warm (``tests/budget.py``); with ``fresh``, a new interpreter whose whole address space
    is ``memory``, for what depends on the process itself (the depth of its stack)."""
    source = _PRELUDE.format(n=n) + textwrap.dedent(code)
    if fresh:
        return _run_fresh(_LIMIT.format(memory=memory) + source, seconds)
    outcome = within(_printed, source, seconds=seconds, megabytes=memory / 2**20)
    if outcome.status == "timeout":
        pytest.fail(f"over the time budget of {seconds:.0f} s:\n{textwrap.dedent(code)}")
    if outcome.status == "memory" or outcome.raised("MemoryError"):
        raise AssertionError(f"the child failed: MemoryError, over {memory / 2**20:,.0f} MB")
    assert outcome.status == "returned", (
        f"the child failed: {outcome.status}: {outcome.error_text}\n{outcome.traceback[-3000:]}"
    )
    return str(outcome.value)


def _run_fresh(source: str, seconds: float) -> str:
    try:
        done = subprocess.run(
            [sys.executable, "-c", source],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=seconds,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"over the time budget of {seconds:.0f} s:\n{source}")
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
    # the harness itself: work that grows with the square of the items is stopped (of
    # 20,000 items, it took 2.9 s here once: 60,000 make it about nine times that)
    with pytest.raises(pytest.fail.Exception, match="over the time budget"):
        run_bounded(
            """
            items = list(range(3 * N))
            print(sum(1 for a in items for b in items if a == b))
        """,
            seconds=3,
        )


def test_the_budget_catches_a_memory_blowup() -> None:
    with pytest.raises(AssertionError, match="MemoryError"):
        run_bounded("blob = [0] * (4 * 2**30 // 8)")


# ---------------------------------------------------------------- growth by count

GROWTH = 6.0
"""4x the containers may call at most this many times as many functions (n log n: about 5x)."""

SMALL = 300  # containers; the larger pod has four times as many


def python_calls(run: Callable[[], object]) -> int:
    """How many Python functions and builtins ``run()`` calls: its work, counted (by the
    profiler written in C, which slows the run less than a Python hook would)."""
    profiler = cProfile.Profile(builtins=True)
    profiler.enable()
    try:
        run()
    finally:
        profiler.disable()
    return sum(entry.callcount for entry in profiler.getstats())


def assert_grows_linearly(case: Callable[[int], Callable[[], object]]) -> None:
    """``case(n)`` makes the run on ``n`` containers (what it builds is not counted);
    the run on ``4 SMALL`` may call at most ``GROWTH`` times as many functions as on ``SMALL``."""
    case(5)()  # imports, the schema, caches: paid once, by neither count
    small, large = (python_calls(case(n)) for n in (SMALL, 4 * SMALL))
    assert large <= GROWTH * small, (
        f"{4 * SMALL} containers called {large:,} functions, {large / small:.1f}x the "
        f"{small:,} of {SMALL}: more than {GROWTH:.0f}x, work that grows faster than the pod"
    )


def containers_pod(n: int) -> dict[str, Any]:
    """A Pod of ``n`` containers, each with env entries and a volume mount; every other
    one runs the image ``old:1``."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web"},
        "spec": {
            "containers": [
                {
                    "name": f"c{i}",
                    "image": "old:1" if i % 2 else "new:1",
                    "env": [{"name": "RANK", "value": str(i)}, {"name": "WORLD", "value": str(n)}],
                    "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                }
                for i in range(n)
            ],
            "volumes": [{"name": "data", "emptyDir": {}}],
        },
    }


DEFAULTS = """\
- op: for_each
  path: spec.containers[*]
  transform: {op: set_default, path: imagePullPolicy, value: IfNotPresent}
- {recipe: add_env, NCCL_DEBUG: INFO}
"""
SHM = "- {recipe: shm_size, size: 16Gi}\n"
SECURED = """\
- op: for_each
  path: spec.containers[*]
  transform: {op: upsert, path: securityContext, value: {runAsNonRoot: true}}
"""
PRUNED = "- {op: remove_at, path: 'spec.containers[image=old:1]'}\n"


def test_the_count_catches_quadratic_work() -> None:
    # the harness itself: a scan of the whole list for each element is caught, one pass is not
    def same(a: int, b: int) -> bool:
        return a == b

    def scans(n: int) -> Callable[[], object]:
        return lambda: [next(j for j in range(n) if same(i, j)) for i in range(n)]

    def passes(n: int) -> Callable[[], object]:
        return lambda: [same(i, i) for i in range(n) for _ in range(3)]

    with pytest.raises(AssertionError, match="grows faster than the pod"):
        assert_grows_linearly(scans)
    assert_grows_linearly(passes)


def test_explain_of_every_container_grows_with_the_pod() -> None:
    from combinators import for_each, set_default
    from transforms import explain

    def case(n: int) -> Callable[[], object]:
        pod = containers_pod(n)
        overlay = for_each("spec.containers[*]", set_default("imagePullPolicy", "IfNotPresent"))

        def run() -> None:
            found = explain(overlay, pod)
            added = sum(
                line.startswith("+") and line.endswith(" imagePullPolicy: IfNotPresent")
                for line in found.diff.splitlines()
            )
            assert len(found.changes) == n and added == n

        return run

    assert_grows_linearly(case)


def test_the_diff_of_lines_that_repeat_grows_with_the_pod() -> None:
    # tolerations in pairs of one key: no line occurs once, so none anchors the diff;
    # difflib alone compared every line of the run with every other
    from combinators import for_each, upsert
    from transforms import explain

    def case(n: int) -> Callable[[], object]:
        pod = {
            "spec": {
                "containers": [{"name": "c", "image": "t:1"}],
                "tolerations": [{"key": f"k{i // 2}", "operator": "Exists"} for i in range(n)],
            }
        }
        overlay = for_each("spec.tolerations[*]", upsert("effect", "NoSchedule"))

        def run() -> None:
            lines = explain(overlay, pod).diff.splitlines()[2:]
            assert [line for line in lines if line[0] in "+-"] == ["+    effect: NoSchedule"] * n

        return run

    assert_grows_linearly(case)


@pytest.mark.parametrize(
    "files",
    [(DEFAULTS, SHM), (PRUNED,), (DEFAULTS, PRUNED, SECURED)],
    ids=["defaults and shm", "a removal", "three files"],
)
def test_blame_of_overlay_files_grows_with_the_pod(files: tuple[str, ...]) -> None:
    from transforms.analysis.blame import blame, yaml_steps

    steps = [
        step for number, text in enumerate(files, 1) for step in yaml_steps(text, f"o{number}.yaml")
    ]

    def case(n: int) -> Callable[[], object]:
        pod = containers_pod(n)
        return lambda: len(blame(steps, pod)) >= n // 2 or pytest.fail("too few changes")

    assert_grows_linearly(case)


@pytest.mark.parametrize(
    "files",
    [(DEFAULTS, SECURED), (PRUNED,)],
    ids=["every container written", "half the containers removed"],
)
def test_written_by_lookups_grow_with_the_pod(files: tuple[str, ...]) -> None:
    # what (written by FILE:LINE) asks, once per finding: who wrote each container
    from transforms.analysis.blame import writers, yaml_steps

    steps = [
        step for number, text in enumerate(files, 1) for step in yaml_steps(text, f"o{number}.yaml")
    ]

    def case(n: int) -> Callable[[], object]:
        pod = containers_pod(n)
        where = [f"spec.containers[name=c{i}]" for i in range(n)]

        def run() -> None:
            walk = writers(steps, pod)
            found = [walk.at(place) for place in where]
            assert sum(bool(item) for item in found) >= n // 2

        return run

    assert_grows_linearly(case)


def _podfold(folder: Path, *args: str) -> Any:
    from click.testing import CliRunner

    from transforms.cli import podfold

    return CliRunner().invoke(podfold, [arg.format(folder=folder) for arg in args])


def _files(folder: Path, n: int, **texts: str) -> Path:
    import yaml

    place = folder / str(n)
    place.mkdir()
    (place / "pod.yaml").write_text(yaml.dump(containers_pod(n), Dumper=yaml.CSafeDumper))
    for name, text in texts.items():
        (place / f"{name}.yaml").write_text(text)
    return place


def test_explain_blame_command_grows_with_the_pod(tmp_path: Path) -> None:
    def case(n: int) -> Callable[[], object]:
        folder = _files(tmp_path, n, defaults=DEFAULTS, shm=SHM)

        def run() -> None:
            done = _podfold(
                folder,
                "explain",
                "--blame",
                "-f",
                "{folder}/defaults.yaml",
                "-f",
                "{folder}/shm.yaml",
                "{folder}/pod.yaml",
            )
            assert done.exit_code == 0, done.output
            assert done.output.count("<- ") >= n

        return run

    assert_grows_linearly(case)


def test_apply_naming_the_line_of_a_validation_problem_grows_with_the_pod(tmp_path: Path) -> None:
    bad = "- {op: upsert, path: 'spec.containers[name=c0].imagePullPolicy', value: Sometimes}\n"

    def case(n: int) -> Callable[[], object]:
        folder = _files(tmp_path, n, defaults=DEFAULTS, bad=bad)

        def run() -> None:
            done = _podfold(
                folder,
                "apply",
                "-f",
                "{folder}/defaults.yaml",
                "-f",
                "{folder}/bad.yaml",
                "{folder}/pod.yaml",
            )
            assert done.exit_code == 1 and "(written by" in done.output, done.output

        return run

    assert_grows_linearly(case)


def test_apply_naming_the_line_of_each_denied_change_grows_with_the_pod(tmp_path: Path) -> None:
    def case(n: int) -> Callable[[], object]:
        folder = _files(tmp_path, n, defaults=DEFAULTS, secured=SECURED)

        def run() -> None:
            done = _podfold(
                folder,
                "apply",
                "--deny",
                "spec.containers[*].securityContext",
                "-f",
                "{folder}/defaults.yaml",
                "-f",
                "{folder}/secured.yaml",
                "{folder}/pod.yaml",
            )
            assert done.exit_code == 1, done.output
            assert done.output.count("(written by ") == n, done.output[-2000:]

        return run

    assert_grows_linearly(case)


def test_apply_naming_the_line_of_each_validation_problem_grows_with_the_pod(
    tmp_path: Path,
) -> None:
    def case(n: int) -> Callable[[], object]:
        folder = _files(tmp_path, n, invalid=_pull("Sometimes"))

        def run() -> None:
            done = _podfold(folder, "apply", "-f", "{folder}/invalid.yaml", "{folder}/pod.yaml")
            assert done.exit_code == 1, done.output
            assert done.output.count("(written by ") == n, done.output[-2000:]

        return run

    assert_grows_linearly(case)


def _pull(policy: str) -> str:
    """An overlay that sets every container's pull policy."""
    return (
        "- op: for_each\n  path: spec.containers[*]\n"
        f"  transform: {{op: upsert, path: imagePullPolicy, value: {policy}}}\n"
    )


def test_the_lines_of_conflicts_are_found_in_time_that_grows_with_the_pod(tmp_path: Path) -> None:
    # each conflict is named by the line of each file: the files before each were
    # applied again, and a walk made, for every conflict
    from combinators import path
    from transforms.cli.checks import TemplateChecks
    from transforms.io.loading import load_overlay

    def case(n: int) -> Callable[[], object]:
        folder = _files(tmp_path, n, always=_pull("Always"), never=_pull("Never"))
        uris = [str(folder / "always.yaml"), str(folder / "never.yaml")]
        pod = containers_pod(n)
        where = [path(f"spec.containers[name=c{i}].imagePullPolicy") for i in range(n)]

        def run() -> None:
            checks = TemplateChecks.build(
                None, (), (), "warn", uris, [load_overlay(uri) for uri in uris]
            )
            for place in where:
                assert checks._located(pod, uris, uris[0], place).endswith("always.yaml:1")
                assert checks._located(pod, uris, uris[1], place).endswith("never.yaml:1")

        return run

    assert_grows_linearly(case)


def test_apply_naming_the_lines_of_conflicts_grows_with_the_pod(tmp_path: Path) -> None:
    def case(n: int) -> Callable[[], object]:
        folder = _files(tmp_path, n, always=_pull("Always"), never=_pull("Never"))

        def run() -> None:
            done = _podfold(
                folder,
                "apply",
                "--conflicts",
                "warn",
                "-f",
                "{folder}/always.yaml",
                "-f",
                "{folder}/never.yaml",
                "{folder}/pod.yaml",
            )
            assert done.exit_code == 0, done.output
            assert done.output.count("always.yaml:1") == n, done.output[-2000:]

        return run

    assert_grows_linearly(case)
