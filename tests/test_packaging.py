"""What a user installs: the wheel holds the three packages whole (data files, ``py.typed``),
the pytest plugin under its own name and the licence, and nothing else; the version can be read
at run time; importing is cheap; and a user's type checker sees podfold's types."""

from __future__ import annotations

import ast
import email
import os
import pathlib
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile
from importlib.metadata import version

import pytest

import combinators

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("combinators", "transforms", "recipes")
PLUGIN_SOURCE = pathlib.Path("transforms", "testing", "_podfold_pytest_plugin")
BUILD_LEFTOVERS = shutil.ignore_patterns(
    ".git", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", ".venv"
)


# --- the version --------------------------------------------------------------------------------


def test_the_version_is_readable_at_run_time_and_is_the_installed_one() -> None:
    assert re.fullmatch(
        r"\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?", combinators.__version__
    )
    assert combinators.__version__ == version("podfold")


# --- the wheel ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    """A wheel built from a copy of this checkout (so no build output lands in it)."""
    source = tmp_path_factory.mktemp("source") / "podfold"
    shutil.copytree(ROOT, source, ignore=BUILD_LEFTOVERS)
    out = tmp_path_factory.mktemp("wheel")
    # with this environment's setuptools (the test extra asks for one that can build it)
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--quiet",
            "--wheel-dir",
            str(out),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    [path] = out.glob("podfold-*.whl")
    return zipfile.ZipFile(path)


def _dist_info(wheel: zipfile.ZipFile, name: str) -> str:
    [path] = [
        path for path in wheel.namelist() if re.fullmatch(rf"podfold-[^/]+\.dist-info/{name}", path)
    ]
    return wheel.read(path).decode("utf-8")


def test_the_wheel_holds_every_file_of_the_three_packages_and_nothing_more(
    wheel: zipfile.ZipFile,
) -> None:
    # every module, subpackage, schema table and py.typed of the source tree, byte for byte
    expected = {
        path.relative_to(ROOT).as_posix(): path.read_bytes()
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*"))
        if path.is_file()
        and "__pycache__" not in path.parts
        and not path.is_relative_to(ROOT / PLUGIN_SOURCE)
    }
    packaged = {
        name: wheel.read(name) for name in wheel.namelist() if name.split("/")[0] in PACKAGES
    }
    assert sorted(packaged) == sorted(expected)
    assert packaged == expected
    for must in (
        "transforms/kube/data/pod-schema-1.32.json.gz",
        "combinators/py.typed",
        "transforms/py.typed",
        "recipes/py.typed",
        "transforms/testing/pods.py",
    ):
        assert must in packaged


def test_the_wheel_holds_the_plugin_under_its_own_top_level_name(wheel: zipfile.ZipFile) -> None:
    assert (
        wheel.read("_podfold_pytest_plugin/__init__.py")
        == (ROOT / PLUGIN_SOURCE / "__init__.py").read_bytes()
    )
    assert not [name for name in wheel.namelist() if "testing/_podfold_pytest_plugin" in name]
    entry_points = _dist_info(wheel, "entry_points.txt")
    assert "[pytest11]\npodfold = _podfold_pytest_plugin\n" in entry_points


def test_the_wheel_holds_no_tests_benchmarks_or_examples(wheel: zipfile.ZipFile) -> None:
    top_level = {name.split("/")[0] for name in wheel.namelist()}
    assert {name for name in top_level if not name.endswith(".dist-info")} == {
        *PACKAGES,
        "_podfold_pytest_plugin",
    }


def test_the_metadata_carries_licence_version_classifiers_and_extras(
    wheel: zipfile.ZipFile,
) -> None:
    metadata = email.message_from_string(_dist_info(wheel, "METADATA"))
    assert metadata["Version"] == combinators.__version__
    assert metadata["License-Expression"] == "Apache-2.0"
    assert metadata.get_all("License-File") == ["LICENSE"]
    licence = _dist_info(wheel, "licenses/LICENSE")
    assert licence == (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in licence and "Version 2.0, January 2004" in licence
    assert "END OF TERMS AND CONDITIONS" in licence
    classifiers = set(metadata.get_all("Classifier") or ())
    assert {"Framework :: Pytest", "Typing :: Typed"} <= classifiers
    assert {f"Programming Language :: Python :: 3.{minor}" for minor in range(10, 14)} <= (
        classifiers
    )
    assert metadata["Requires-Python"] == ">=3.10"
    requires = metadata.get_all("Requires-Dist") or []
    assert any(requirement.startswith("toolz") for requirement in requires)
    testing = [requirement for requirement in requires if 'extra == "testing"' in requirement]
    assert {re.split(r"[\[<>=;]", requirement)[0] for requirement in testing} == {
        "podfold",
        "hypothesis",
    }
    assert 'podfold[torchx]; extra == "testing"' in requires  # TorchX and kubernetes, for fixtures
    assert 'podfold[testing]; extra == "test"' in requires
    # Flyte's tests skip only where flytekit 1.16 cannot install (Python 3.13)
    assert 'podfold[flyte]; python_version < "3.13" and extra == "test"' in requires
    assert any(requirement.startswith("click") for requirement in requires)  # the command line


# --- import cost --------------------------------------------------------------------------------


def _modules_after(code: str) -> list[str]:
    """podfold's modules loaded by ``code`` in a fresh interpreter."""
    script = (
        f"import sys\n{code}\n"
        "print(sorted(name for name in sys.modules"
        " if name.split('.')[0] in {'combinators', 'transforms', 'recipes'}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        cwd=ROOT,
    )
    return list(ast.literal_eval(result.stdout))


def test_import_transforms_loads_none_of_its_subpackages() -> None:
    # transforms._lazy is the one lazy-export mechanism, a module, not a subpackage
    assert _modules_after("import transforms") == ["transforms", "transforms._lazy"]


@pytest.mark.usefixtures("installed_podfold")
def test_loading_the_pytest_plugin_imports_nothing_of_podfold(tmp_path: pathlib.Path) -> None:
    (tmp_path / "test_modules.py").write_text(
        textwrap.dedent("""
        import sys

        def test_nothing_of_podfold_is_loaded():
            assert "_podfold_pytest_plugin" in sys.modules
            assert [name for name in sys.modules
                    if name.split(".")[0] in {"combinators", "transforms", "recipes"}] == []
    """),
        encoding="utf-8",
    )
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_ADDOPTS", "PYTEST_PLUGINS")
    }
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


# --- types for users ----------------------------------------------------------------------------

USER_SCRIPT = """
    from typing import Any

    import recipes
    from combinators import Transform, chain, upsert
    from transforms import as_transform, explain

    overlay: Transform = chain(
        upsert("spec.nodeSelector", {"gpu": "a100"}),
        recipes.shm_size("16Gi"),
        as_transform({"spec": {"hostIPC": True}}),
    )
    pod: dict[str, Any] = {"spec": {"containers": [{"name": "trainer"}]}}
    print(overlay(pod), explain(overlay, pod))
"""


def _mypy(tmp_path: pathlib.Path, source: str) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mypy")
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent(source), encoding="utf-8")
    # from the user's folder: podfold is found as installed, not in this checkout
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--cache-dir",
            str(tmp_path / "cache"),
            script.name,
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.usefixtures("installed_podfold")
def test_mypy_strict_passes_on_a_users_script_over_the_public_api(tmp_path: pathlib.Path) -> None:
    result = _mypy(tmp_path, USER_SCRIPT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "import-not-found" not in result.stdout


@pytest.mark.usefixtures("installed_podfold")
def test_mypy_sees_podfolds_signatures_not_any(tmp_path: pathlib.Path) -> None:
    result = _mypy(tmp_path, "from combinators import upsert\n\nupsert()\n")
    assert result.returncode == 1, result.stdout + result.stderr
    assert 'Missing positional arguments "target", "value" in call to "upsert"' in result.stdout
