"""The hypothesis profile of the run (tests/conftest.py) holds in every process that runs tests,
pytest-xdist's workers too, nothing but the conftest loads one, and the counts tests set are
shares of the profile's."""

from __future__ import annotations

import ast
import os
import pathlib
import re

import pytest
from hypothesis import settings

TESTS = pathlib.Path(__file__).resolve().parent
COMPARED = ("max_examples", "derandomize", "database", "deadline", "print_blob")


def test_every_test_draws_under_the_profile_asked_for(request: pytest.FixtureRequest) -> None:
    # the command line's --hypothesis-profile, else HYPOTHESIS_PROFILE, else "ci"
    asked = request.config.getoption("hypothesis_profile", None) or os.environ.get(
        "HYPOTHESIS_PROFILE", "ci"
    )
    profile = settings.get_profile(asked)
    assert {name: getattr(settings.default, name) for name in COMPARED} == {
        name: getattr(profile, name) for name in COMPARED
    }


def test_the_ci_profile_draws_the_same_examples_on_every_run() -> None:
    # derandomized and with no example database: a run fails only where the code changed
    ci = settings.get_profile("ci")
    assert ci.derandomize is True
    assert ci.database is None
    fuzz = settings.get_profile("fuzz")
    assert fuzz.derandomize is False
    assert fuzz.max_examples > ci.max_examples


def test_no_test_module_loads_a_profile() -> None:
    # a module that loads one changes the defaults of every test collected after it
    loading = [
        f"{path.name}:{node.lineno}"
        for path, text in sorted(
            (path, path.read_text(encoding="utf-8")) for path in TESTS.glob("*.py")
        )
        if path.name != "conftest.py" and "load_profile" in text
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "load_profile"
    ]
    assert loading == []


def test_every_count_a_test_sets_is_a_share_of_the_profiles() -> None:
    # max_examples=150 would run 150 examples under fuzz too: written as a share of
    # settings.default.max_examples, the fuzz profile multiplies it as it does the rest
    fixed = [
        f"{path.name}:{text.count(chr(10), 0, found.start()) + 1}"
        for path in sorted(TESTS.glob("*.py"))
        if path.name not in ("conftest.py", pathlib.Path(__file__).name)  # the profiles, this
        for text in [path.read_text(encoding="utf-8")]
        for found in re.finditer(r"\bmax_examples\s*=\s*[0-9]", text)
    ]
    assert fixed == [], "give these counts as shares of settings.default.max_examples"
