"""Hypothesis profiles for the whole suite, and fixtures shared by the tests that run podfold
as a user's project would: in a fresh interpreter, outside this checkout, from where it is
installed.

Two hypothesis profiles. ``ci``, loaded by default: every run draws the same examples
(derandomized, no example database), so a run fails only where the code changed, and a
failure names its example (``print_blob``) for ``@reproduce_failure``. ``fuzz``, chosen by
hand, draws forty times as many examples at random and keeps what fails in the local
example database (``.hypothesis/``), so the next run tries it first::

    python -m pytest tests/test_kit_on_podfold.py --hypothesis-profile=fuzz
    HYPOTHESIS_PROFILE=fuzz python -m pytest tests/test_kit_on_podfold.py

Tests that set their own ``max_examples`` take it as a share of the profile's
(``settings.default.max_examples``), so ``fuzz`` multiplies theirs too. Nothing else may
load a profile: a test that needs other settings says so with ``@settings``.

The markers ``spawn`` and ``slow`` are given from the lists of ``tests/marked.py``, so that
``python -m pytest -m "not slow and not spawn"`` is the fast set a contributor runs often;
a test that starts a process and is not marked ``spawn`` fails, naming the command.

Where ``PYTHONDONTWRITEBYTECODE`` is set, every process of a run (each pytest-xdist worker,
each ``podfold`` a test starts) compiled podfold and rewrote the tests again, a third of
the run: the run writes their bytecode instead under one directory of its own in the
system's temporary directory (``sys.pycache_prefix``), never into the checkout.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
from collections.abc import Generator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from tests import collector
from tests.marked import SLOW, SPAWN


def _bytecode_outside_the_checkout() -> None:
    if not sys.dont_write_bytecode or sys.pycache_prefix is not None:
        return  # bytecode goes where Python puts it, or where the environment says
    prefix = pathlib.Path(tempfile.gettempdir()) / f"podfold-tests-bytecode-{os.getuid()}"
    prefix.mkdir(mode=0o700, exist_ok=True)
    if prefix.stat().st_uid != os.getuid():
        return  # another user's: none of its bytecode is read
    sys.pycache_prefix = str(prefix)
    sys.dont_write_bytecode = False
    # the processes the tests start read it (and add what they compile)
    os.environ["PYTHONPYCACHEPREFIX"] = str(prefix)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


_bytecode_outside_the_checkout()

collector.for_the_run()  # full collections a tenth as often: see tests/collector.py

CI_EXAMPLES = 50
"""Examples a test draws under the ``ci`` profile: the same ones on every run (derandomized),
so more of them would find nothing new there; the ``fuzz`` profile draws forty times as many
at random."""

settings.register_profile(
    "ci",
    max_examples=CI_EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "fuzz",
    max_examples=40 * CI_EXAMPLES,
    derandomize=False,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
# the command line's --hypothesis-profile, read after this file, wins over the variable
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = pathlib.Path(__file__).resolve().parent.parent
PLUGIN_SOURCE = ROOT / "transforms" / "testing" / "_podfold_pytest_plugin"
TESTS = ROOT / "tests"

# what needs a package an extra installs only on some Pythons: skipped there, saying why
_FLYTEKIT = ("flytekit", "flytekit 1.16 (the flyte extra) installs on Python < 3.13 only")
NEEDS = {
    "tests/test_flyte.py": _FLYTEKIT,
    "transforms/flyte/template.py": _FLYTEKIT,  # its doctests
    "examples/docs/pages/tutorials/flyte.md": _FLYTEKIT,
}


_NEEDED_NAMES = frozenset(pathlib.PurePosixPath(path).name for path in NEEDS)


def _missing(path: pathlib.Path) -> str | None:
    """Why the tests of ``path`` cannot run here (a package they need is not installed)."""
    try:
        needed = NEEDS.get(path.resolve().relative_to(ROOT).as_posix())
    except ValueError:
        return None
    if needed is None or importlib.util.find_spec(needed[0]) is not None:
        return None
    return f"{needed[0]} is not installed: {needed[1]}"


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(
    file_path: pathlib.Path, parent: pytest.Collector
) -> Generator[None, list[pytest.Collector], list[pytest.Collector]]:
    collected = yield
    if collected and _missing(file_path) is not None:  # not imported, for tests or doctests
        return [_Unavailable.from_parent(parent, path=file_path)]
    return collected


class _Unavailable(pytest.File):
    """A test module that cannot be imported here: skipped, with the reason."""

    def collect(self) -> Any:
        pytest.skip(_missing(self.path) or "", allow_module_level=True)


def _marked(listed: dict[str, tuple[str, ...]], item: pytest.Item) -> bool:
    names = listed.get(item.path.name) if _in_tests(item.path.parent) else None
    if not names:
        return False
    test = item.nodeid.split("::", 1)[1]  # "test_x[case]", "TestX::runTest", "tests.budget"
    function = test.split("[", 1)[0].split("::", 1)[0]
    return any(
        name in ("*", function) or ("[" in name and re.fullmatch(_case(name), test) is not None)
        for name in names
    )


def _case(pattern: str) -> str:
    return ".*".join(re.escape(part) for part in pattern.split("*"))


@functools.cache
def _in_tests(folder: pathlib.Path) -> bool:
    return folder.resolve() == TESTS


#: The modules that fork most (a child per case, tests/budget.py and tests/warm.py): a fork
#: costs in proportion to what the forking process holds, and a worker holds more the more
#: tests it has run (schemas, caches), so these run first.
FORKING_FIRST = (
    "test_hostile.py",
    "test_fuzz.py",
    "test_short_errors.py",
    "test_yaml_paths.py",
    "test_cli.py",
    "test_yaml_safety.py",
)


def _forking_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """``items`` with the tests of :data:`FORKING_FIRST` at the start of each worker's share
    (pytest-xdist hands each worker a contiguous share of the list), the order else kept."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    forking = [
        item for item in items if _in_tests(item.path.parent) and item.path.name in FORKING_FIRST
    ]
    if not forking:
        return items
    chosen = {id(item) for item in forking}
    rest = [item for item in items if id(item) not in chosen]
    ordered: list[pytest.Item] = []
    for share in range(workers):
        ordered += (
            forking[share::workers]
            + rest[share * len(rest) // workers : (share + 1) * len(rest) // workers]
        )
    return ordered


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """What ``-n auto`` starts: a worker per usable core, and one more where the tests that
    start programs run. Those wait on the programs, on pipes and on timers (a stalled server
    is given up on after a second), and the extra worker keeps the cores busy meanwhile: on
    two cores, the whole run took 209-210 s with three workers against 231-232 s with two.
    A run without them (``-m "not spawn"``, the fast set) waits on nothing, and a worker
    more only collects the tests once more: 34 s against 31 s."""
    cores = len(os.sched_getaffinity(0))
    return cores if "not spawn" in (config.getoption("markexpr") or "") else cores + 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items[:] = _forking_first(items)
    for item in items:
        missing = _missing(item.path) if item.path.name in _NEEDED_NAMES else None
        if missing is not None:
            item.add_marker(pytest.mark.skip(reason=missing))
        if _marked(SPAWN, item):
            item.add_marker(pytest.mark.spawn)
        if _marked(SLOW, item):
            item.add_marker(pytest.mark.slow)


# the audit events of a new program: subprocess (asyncio's too), os.system, posix_spawn, exec
# (a fork alone, as tests/budget.py forks, starts no new interpreter: it costs little)
_SPAWNS = frozenset({"subprocess.Popen", "os.system", "os.posix_spawn", "os.exec"})
_STARTED: list[list[str]] = []  # what the running test started, while one runs


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _STARTED and event in _SPAWNS:
        command = args[1] if event == "subprocess.Popen" else args[:2]
        if event == "subprocess.Popen" and _probes_the_interpreter(command):
            return
        _STARTED[-1].append(f"{command!r}"[:200])


def _probes_the_interpreter(command: Any) -> bool:
    """``platform.architecture()`` runs ``file -b`` on the interpreter, once, as the
    first import of flytekit calls it: whichever test imports flytekit first in a
    worker would be said to start a program, so the check would depend on the order."""
    return isinstance(command, list) and command[:2] == ["file", "-b"]


sys.addaudithook(_audit)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    return (yield from _watched(item, "setup"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    return (yield from _watched(item, "call"))


def _watched(item: pytest.Item, phase: str) -> Generator[None, None, None]:
    """A phase of a test, failed if it started a program and the test is not marked spawn."""
    if item.get_closest_marker("spawn") is not None:
        return (yield)
    _STARTED.append([])
    try:
        result = yield
    finally:
        started = _STARTED.pop()
    if started:
        pytest.fail(
            f"{item.nodeid} started a program in its {phase} ({started[0]}) and is not marked "
            "spawn: list it under SPAWN in tests/marked.py, so the fast set leaves it out",
            pytrace=False,
        )
    return result


def _sources(package: pathlib.Path) -> dict[str, bytes]:
    return {
        path.relative_to(package).as_posix(): path.read_bytes()
        for path in sorted(package.rglob("*.py"))
        if "__pycache__" not in path.parts and path.is_file()
    }


@pytest.fixture(scope="session")
def installed_podfold(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pathlib.Path]:
    """Where a fresh interpreter outside this checkout finds podfold's packages, checked to be
    this checkout's code: an editable install links each file, so a module added since needs
    the install run again, and a test of it would otherwise fail far from the cause."""
    code = (
        "import json, combinators, transforms, recipes, _podfold_pytest_plugin\n"
        "print(json.dumps({module.__name__: list(module.__path__)[0] for module in"
        " (combinators, transforms, recipes, _podfold_pytest_plugin)}))"
    )
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path_factory.mktemp("away"),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if result.returncode != 0:
        pytest.fail(
            "podfold is not installed as this checkout declares it (run "
            "pip install -e '.[test]' again):\n" + result.stderr,
            pytrace=False,
        )
    found = {name: pathlib.Path(path) for name, path in json.loads(result.stdout).items()}
    sources = {
        "combinators": ROOT / "combinators",
        "transforms": ROOT / "transforms",
        "recipes": ROOT / "recipes",
        "_podfold_pytest_plugin": PLUGIN_SOURCE,
    }
    stale = []
    for name, package in sources.items():
        installed = _sources(found[name])
        stale += [
            f"{name}/{module}"
            for module, text in _sources(package).items()
            if installed.get(module) != text
            and not (name == "transforms" and module.startswith("testing/_podfold_"))
        ]
    if stale:
        pytest.fail(
            f"podfold as installed is older than this checkout ({len(stale)} modules "
            f"missing or different: {', '.join(stale[:5])}{', ...' if stale[5:] else ''})"
            ": run pip install -e '.[test]' again",
            pytrace=False,
        )
    return found
