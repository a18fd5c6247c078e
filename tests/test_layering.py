"""The layering contract, declared in pyproject.toml and checked by import-linter:
``recipes -> transforms -> combinators``, layers inside ``transforms``, no cycles."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys
import sysconfig
from typing import Any

import pytest

tomllib = pytest.importorskip("tomllib", reason="Python 3.11+ reads pyproject.toml")

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("combinators", "transforms", "recipes")


def lint_imports(where: pathlib.Path) -> subprocess.CompletedProcess[str]:
    """import-linter on the packages in ``where``, with the contracts of its pyproject.toml."""
    script = pathlib.Path(sysconfig.get_path("scripts")) / "lint-imports"
    command = [str(script)] if script.is_file() else [sys.executable, "-m", "importlinter.cli"]
    return subprocess.run(
        [*command, "--no-cache", "--no-logo"],
        cwd=where,
        capture_output=True,
        text=True,
        timeout=120,
    )


def contracts() -> dict[str, dict[str, Any]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {contract["id"]: contract for contract in config["tool"]["importlinter"]["contracts"]}


def test_the_declared_layers_are_the_architecture() -> None:
    declared = contracts()
    assert declared["packages"]["layers"] == ["recipes", "transforms", "combinators"]
    inside = declared["transforms-layers"]
    assert inside["containers"] == ["transforms"] and inside["exhaustive"] is True
    assert inside["layers"] == [
        "cli",
        "testing",
        "torchx | flyte",
        "run",
        "analysis",
        "io",
        "checks",
        "forms",
        "kube",
        "_entry_points",
        "errors | _lazy",
    ]
    assert sorted(declared["acyclic"]["ancestors"]) == sorted(PACKAGES)


def test_the_code_keeps_every_contract() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout and "3 kept" in result.stdout, result.stdout


@pytest.mark.parametrize(
    ("files", "contract"),
    [
        ({"combinators/_probe.py": "import transforms\n"}, "recipes -> transforms -> combinators"),
        ({"transforms/_probe.py": "import recipes\n"}, "recipes -> transforms -> combinators"),
        ({"transforms/kube/_probe.py": "import transforms.forms\n"}, "inside transforms"),
        ({"transforms/probe.py": ""}, "inside transforms"),  # a module given no layer
        (
            {
                "recipes/_probe_a.py": "from recipes import _probe_b\n",
                "recipes/_probe_b.py": "from recipes import _probe_a\n",
            },
            "no cycles",
        ),
    ],
    ids=["combinators up", "transforms up", "kube up", "no layer", "cycle"],
)
def test_the_contracts_catch_a_wrong_import(
    tmp_path: pathlib.Path, files: dict[str, str], contract: str
) -> None:
    # the checker reads the code it is given, not the installed podfold: a copy with one bad
    # import breaks the contract that forbids it
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    for name, source in files.items():
        (tmp_path / name).write_text(source, encoding="utf-8")
    result = lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert contract in result.stdout.split("Broken contracts", 1)[1], result.stdout
