"""The lists of tests/marked.py name tests that exist, and the fast set leaves out what they
list: a renamed test cannot keep a marker it no longer has a name for."""

from __future__ import annotations

import ast
import functools
import pathlib
from types import SimpleNamespace

import pytest

from tests.marked import EVERY_TEST, SLOW, SPAWN

TESTS = pathlib.Path(__file__).resolve().parent


@functools.cache
def _defined(module: str) -> frozenset[str]:
    """The test functions and classes of ``module``, and its doctests' name."""
    tree = ast.parse((TESTS / module).read_text(encoding="utf-8"))
    names = {node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.ClassDef)}
    names |= {  # TestEngine = EngineMachine.TestCase
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    return frozenset({name for name in names if name.startswith(("test_", "Test"))}) | {
        f"tests.{module.removesuffix('.py')}"
    }


@pytest.mark.parametrize("listed", [SPAWN, SLOW], ids=["spawn", "slow"])
def test_every_name_listed_is_a_test_of_its_module(listed: dict[str, tuple[str, ...]]) -> None:
    missing = [
        f"{module}::{name}"
        for module, names in sorted(listed.items())
        if names != EVERY_TEST
        for name in names
        if name.split("[", 1)[0] not in _defined(module)
    ]
    assert missing == [], "listed in tests/marked.py, but no such test: rename or remove them"


@pytest.mark.parametrize(
    ("nodeid", "marked"),
    [
        ("tests/test_probe.py::test_listed", True),
        ("tests/test_probe.py::test_listed[any-case]", True),
        ("tests/test_probe.py::test_listed_too", False),  # a name's prefix is not its name
        ("tests/test_probe.py::test_case[b1]", True),
        ("tests/test_probe.py::test_case[a]", False),
        ("tests/test_probe.py::TestMachine::runTest", True),
        ("tests/test_probe.py::tests.test_probe", False),
        ("tests/test_whole.py::test_anything[1]", True),
    ],
)
def test_a_test_is_marked_by_its_function_its_case_or_its_module(nodeid: str, marked: bool) -> None:
    from tests.conftest import _marked

    listed = {
        "test_probe.py": ("test_listed", "test_case[b*]", "TestMachine"),
        "test_whole.py": EVERY_TEST,
    }
    item = SimpleNamespace(path=TESTS / nodeid.split("::")[0].removeprefix("tests/"), nodeid=nodeid)
    assert _marked(listed, item) is marked
