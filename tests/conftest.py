"""Hypothesis profiles for the whole suite, and fixtures shared by the tests that run podfold
as a user's project would: in a fresh interpreter, outside this checkout, from where it is
installed.

Two hypothesis profiles. ``ci``, loaded by default: every run draws the same examples
(derandomized, no example database), so a run fails only where the code changed, and a
failure names its example (``print_blob``) for ``@reproduce_failure``. ``fuzz``, chosen by
hand, draws twenty times as many examples at random and keeps what fails in the local
example database (``.hypothesis/``), so the next run tries it first::

    python -m pytest tests/test_kit_on_podfold.py --hypothesis-profile=fuzz
    HYPOTHESIS_PROFILE=fuzz python -m pytest tests/test_kit_on_podfold.py

Tests that set their own ``max_examples`` take it as a share of the profile's
(``settings.default.max_examples``), so ``fuzz`` multiplies theirs too. Nothing else may
load a profile: a test that needs other settings says so with ``@settings``.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, settings

CI_EXAMPLES = 100
"""Examples a test draws under the ``ci`` profile (hypothesis' own default)."""

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
    max_examples=20 * CI_EXAMPLES,
    derandomize=False,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
# the command line's --hypothesis-profile, read after this file, wins over the variable
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = pathlib.Path(__file__).resolve().parent.parent
PLUGIN_SOURCE = ROOT / "transforms" / "testing" / "_podfold_pytest_plugin"


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
