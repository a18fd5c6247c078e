"""Start-up: what ``import combinators``, ``import transforms`` and the pytest plugin cost.

Run with the project's own dependencies (``pip install -e '.[test]'``)::

    python benchmarks/bench_startup.py [--runs N] [--sessions N] [--against CHECKOUT]

Every figure comes from fresh child processes of this interpreter, run with
this checkout first on their path, after one warm-up child per statement
has written the bytecode cache (``PYTHONDONTWRITEBYTECODE`` is dropped for
the children, so the cache exists even where the caller's environment
forbids writing it). Import times are read from ``-X importtime``: the
cumulative times of what the measured statement imports, beyond what the
interpreter imported at start-up. The contenders' runs are interleaved,
round by round, and medians of the rounds are compared. It prints every
figure with its number of runs, and the ratios to the interpreter's own
start-up imports and to the standard-library modules the package needs;
it exits non-zero when a target is missed:

- ``import combinators`` takes at most 10 ms;
- ``import transforms`` takes at most 20 ms;
- the pytest plugin (``_podfold_pytest_plugin``, registered under the
  ``pytest11`` entry point ``podfold``) takes at most 5 ms to import in a
  process that imported pytest, and loads no module but itself.

For the plugin it also runs a whole pytest session in a throwaway project
with one trivial test, with and without ``-p no:podfold``, and prints the
medians of both and of their differences, round by round: a session takes
about a second, so that difference is within the machine's noise and is
shown, not judged. ``--against`` measures another checkout's imports (an
earlier commit, say) in the same rounds, and prints the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLUGIN_SOURCE = ROOT / "transforms" / "testing"  # the plugin's top-level module lives here
START_UP = "python -c pass (start-up's own imports)"
MARK = "-- measured statement starts here --"
PLUGIN = "_podfold_pytest_plugin"
TARGETS_MS = {
    "import combinators": 10.0,
    "import transforms": 20.0,
    f"import {PLUGIN} (pytest imported)": 5.0,
}
# what a package's import would cost if it imported these: shown for reference
REFERENCES = ("import pyrsistent", "import toolz", "import importlib.metadata", "import yaml")
# whole runs of the command line, on one Pod: all they import, the console script's own
# "from transforms.cli import main" to the exit; shown, and with --against compared
POD = (
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: train\nspec:\n  containers:\n"
    "  - name: trainer\n    image: ghcr.io/example/trainer:1.4.2\n"
)
ONE_RECIPE = "- recipe: node_selector\n  gpu: a100\n"
COMMANDS = {
    "podfold apply (one recipe, one Pod)": ("apply", "-f", "overlay.yaml", "pod.yaml"),
    "podfold validate (one Pod)": ("validate", "pod.yaml"),
    "podfold --help": ("--help",),
}


def cli_run(files: Path, *args: str) -> str:
    """A statement that runs ``podfold ARGS`` as the console script does (its exit code
    is the child's, which must be 0), the file names in ``args`` taken in ``files``."""
    given = [str(files / arg) if (files / arg).is_file() else arg for arg in args]
    return f"from transforms.cli import main\nmain({given!r})"


def child_env(root: Path = ROOT) -> dict[str, str]:
    """The children's environment: the checkout ``root`` first on the path, bytecode writable."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join(
        [
            str(root),
            str(root / PLUGIN_SOURCE.relative_to(ROOT)),
            *filter(None, [env.get("PYTHONPATH")]),
        ]
    )
    return env


def run_child(
    code: str, env: dict[str, str], importtime: bool = True
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` with ``python -c`` in an empty directory: ``-c`` puts the current
    directory first on the path, and a checkout there would shadow the one measured."""
    command = [sys.executable, *(["-X", "importtime"] if importtime else []), "-c", code]
    with tempfile.TemporaryDirectory() as away:
        done = subprocess.run(
            command, env=env, cwd=away, capture_output=True, text=True, check=False
        )
    if done.returncode != 0:
        raise SystemExit(f"child failed ({done.returncode}): {code}\n{done.stderr[-2000:]}")
    return done


def import_times(
    statement: str, env: dict[str, str], prelude: str = ""
) -> tuple[float, float, int]:
    """One fresh child: (ms of the interpreter's start-up imports, ms of ``statement``'s
    imports, how many modules ``statement`` imports).

    ``prelude`` runs before the mark: what it imports is not counted.
    """
    code = f"{prelude}\nimport sys; sys.stderr.write({MARK!r} + '\\n')\n{statement}"
    stderr = run_child(code, env).stderr.splitlines()
    mark = stderr.index(MARK)
    at_start, _ = _top_level(stderr[:mark])
    measured, modules = _top_level(stderr[mark + 1 :])
    return at_start, measured, modules


def _top_level(lines: list[str]) -> tuple[float, int]:
    """The sum of the cumulative ms of the top-level imports in ``-X importtime`` lines,
    and how many modules the lines name."""
    total = modules = 0
    for line in lines:
        if not line.startswith("import time:"):
            continue
        _, cumulative, name = line[len("import time:") :].split("|")
        if cumulative.strip().isdigit():
            modules += 1
            if not name[1:].startswith(" "):
                total += int(cumulative)
    return total / 1000, modules


def stdlib_needed(package: str, env: dict[str, str]) -> list[str]:
    """The top-level standard-library modules that ``import package`` loads."""
    code = (
        f"import sys; before = set(sys.modules)\nimport {package}\n"
        f"print(' '.join(sorted({{name.partition('.')[0] for name in set(sys.modules) - before}}"
        f" & sys.stdlib_module_names)))"
    )
    return run_child(code, env, importtime=False).stdout.split()


SESSION = """
import json, sys, time
start = time.perf_counter()
import pytest
code = pytest.main(sys.argv[1:])
seconds = time.perf_counter() - start
print({mark!r} + json.dumps({{"code": int(code), "seconds": seconds, "modules": len(sys.modules),
                              "plugin": {plugin!r} in sys.modules}}))
"""


def pytest_session(project: Path, env: dict[str, str], plugin: bool) -> tuple[float, int]:
    """(seconds, modules loaded) of one pytest session in ``project``, with or without the plugin."""
    args = ["-q", "-p", "no:cacheprovider", *([] if plugin else ["-p", "no:podfold"])]
    code = SESSION.format(mark=MARK, plugin=PLUGIN)
    command = [sys.executable, "-c", code, *args]
    done = subprocess.run(
        command, env=env, cwd=project, capture_output=True, text=True, check=False
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith(MARK)]
    if not lines:
        raise SystemExit(f"pytest session failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    result = json.loads(lines[-1][len(MARK) :])
    if result["code"] != 0 or result["plugin"] is not plugin:
        raise SystemExit(
            f"pytest session {args}: exit {result['code']}, plugin loaded: "
            f"{result['plugin']} (expected {plugin})\n{done.stdout[-2000:]}"
        )
    return float(result["seconds"]), int(result["modules"])


def interleaved(contenders: dict[str, Callable[[], float]], runs: int) -> dict[str, list[float]]:
    """Each contender once per round, ``runs`` rounds: drift in machine speed hits them alike."""
    results: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(runs):
        for name, measure in contenders.items():
            results[name].append(measure())
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="children per statement")
    parser.add_argument(
        "--sessions", type=int, default=7, help="pytest sessions with and without the plugin"
    )
    parser.add_argument(
        "--against",
        type=Path,
        metavar="CHECKOUT",
        help="another checkout of podfold (an earlier commit, say) whose "
        "imports are measured in the same rounds, for comparison",
    )
    options = parser.parse_args(argv)
    env = child_env()
    floor_modules = stdlib_needed("combinators", env)
    floor = f"import {', '.join(floor_modules)}"
    inputs = tempfile.TemporaryDirectory()  # the command line's files; removed at exit
    files = Path(inputs.name)
    (files / "pod.yaml").write_text(POD)
    (files / "overlay.yaml").write_text(ONE_RECIPE)
    ours = {  # label -> (prelude, statement)
        "import combinators": ("", "import combinators"),
        "import transforms": ("", "import transforms"),
        "import recipes": ("", "import recipes"),
        "from transforms import explain": ("", "from transforms import explain"),
        f"import {PLUGIN} (pytest imported)": ("import pytest", f"import {PLUGIN}"),
        **{label: ("", cli_run(files, *args)) for label, args in COMMANDS.items()},
    }
    statements: dict[str, tuple[dict[str, str], str, str]] = {  # label -> (env, prelude, statement)
        START_UP: (env, "", "pass"),
        **{label: (env, *pair) for label, pair in ours.items()},
        "stdlib modules combinators loads": (env, "", floor),
        **{reference: (env, "", reference) for reference in REFERENCES},
    }
    if options.against is not None:
        other = child_env(options.against.resolve())
        statements.update({f"{label} [against]": (other, *pair) for label, pair in ours.items()})
    modules = {}  # label -> modules imported: the same in every run
    for label, (child, prelude, statement) in statements.items():  # warm-up: bytecode written
        modules[label] = import_times(statement, child, prelude)[2]
    startup: list[float] = []

    def measure(child: dict[str, str], prelude: str, statement: str) -> Callable[[], float]:
        def once() -> float:
            at_start, measured, _ = import_times(statement, child, prelude)
            startup.append(at_start)
            return measured

        return once

    measured = interleaved(
        {label: measure(*given) for label, given in statements.items()}, options.runs
    )
    measured[START_UP] = startup
    medians = {label: statistics.median(times) for label, times in measured.items()}
    print(
        f"-X importtime, cumulative ms beyond start-up; median of {options.runs} runs each "
        f"(start-up: of all {len(startup)} children)"
    )
    print(f"  stdlib modules combinators loads: {' '.join(floor_modules)}")
    for label, median in medians.items():
        times = measured[label]
        count = (
            ""
            if label == START_UP
            else f"{modules[label]:4d} module{'s' if modules[label] != 1 else ''}"
        )
        print(
            f"  {label:<48}{median:8.2f} ms   (min {min(times):6.2f}, max {max(times):6.2f})"
            f"  {count}"
        )
    combinators = medians["import combinators"]
    print(f"  {'import combinators / start-up imports':<48}{combinators / medians[START_UP]:8.2f}x")
    print(
        f"  {'import combinators / stdlib modules it loads':<48}"
        f"{combinators / medians['stdlib modules combinators loads']:8.2f}x"
    )
    if options.against is not None:
        print(f"  against: {options.against}")
        for label in ours:
            print(
                f"  {label + ' / against':<48}"
                f"{medians[label] / medians[f'{label} [against]']:8.2f}x"
            )
    failed = False
    for label, target in TARGETS_MS.items():
        ok = medians[label] <= target
        failed |= not ok
        print(
            f"{'ok  ' if ok else 'MISS'} {label:<48}{medians[label]:8.2f} ms  "
            f"(target <= {target:.0f} ms, {medians[label] / target:.2f}x of it)"
        )
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        (project / "test_trivial.py").write_text("def test_sum():\n    assert 1 + 1 == 2\n")
        pytest_session(project, env, True)  # warm-up
        pytest_session(project, env, False)
        sessions: dict[str, list[tuple[float, int]]] = {"with": [], "without": []}
        for _ in range(options.sessions):
            sessions["with"].append(pytest_session(project, env, True))
            sessions["without"].append(pytest_session(project, env, False))
    seconds = {name: [run[0] * 1000 for run in runs] for name, runs in sessions.items()}
    # the most modules with it, less the fewest without: nothing it loads goes unseen
    extra_modules = max(run[1] for run in sessions["with"]) - min(
        run[1] for run in sessions["without"]
    )
    differences = [a - b for a, b in zip(seconds["with"], seconds["without"], strict=True)]
    print(f"pytest session, one trivial test, median of {options.sessions} runs each, interleaved")
    for name, times in seconds.items():
        print(
            f"  {name + ' the plugin':<48}{statistics.median(times):8.1f} ms   "
            f"(min {min(times):6.1f}, max {max(times):6.1f})"
        )
    print(
        f"  {'with - without, round by round':<48}{statistics.median(differences):+8.1f} ms   "
        f"(min {min(differences):+6.1f}, max {max(differences):+6.1f}; shown, not judged)"
    )
    ok = extra_modules <= 1
    failed |= not ok
    print(
        f"{'ok  ' if ok else 'MISS'} {'modules the plugin adds to a session':<48}"
        f"{extra_modules:8d}     (target <= 1: itself)"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
