"""podfold's import names are common words: a user's project with its own ``transforms.py``,
``recipes/`` and ``combinators.py`` keeps them, with podfold installed, under ``pytest`` and
``python -m pytest`` alike; podfold's fixtures, asked for there, fail saying why."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import sysconfig
import textwrap

import pytest

# a small ML project, as a new user of podfold might have it: nothing of it is installed
PROJECT = {
    "transforms.py": """
        def normalize(values):
            total = sum(values)
            return [value / total for value in values]
    """,
    "recipes/__init__.py": """
        from recipes.cooking import bake
    """,
    "recipes/cooking.py": """
        def bake(dough):
            return f"baked {dough}"
    """,
    "combinators.py": """
        def twice(function):
            return lambda value: function(function(value))
    """,
    "test_project.py": """
        import pathlib
        import sys

        import combinators
        import recipes
        import transforms
        from combinators import twice
        from recipes import bake
        from transforms import normalize

        HERE = pathlib.Path(__file__).resolve().parent

        def test_the_projects_own_modules_are_imported():
            for module in (transforms, recipes, combinators):
                assert pathlib.Path(module.__file__).resolve().is_relative_to(HERE), module

        def test_they_work():
            assert normalize([1, 3]) == [0.25, 0.75]
            assert bake("bread") == "baked bread"
            assert twice(lambda value: value + 1)(0) == 2

        def test_podfolds_plugin_imported_nothing_of_podfold():
            assert "transforms.testing" not in sys.modules
            assert "combinators.transform" not in sys.modules
    """,
}

# a test of the project's that asks for one of podfold's fixtures
USES_A_FIXTURE = """
    def test_asks_for_podfolds_pod(pod):
        pass
"""


def _user_environment() -> dict[str, str]:
    """This environment, as a user's shell would have it: no pytest switches, nothing added to
    the import path."""
    return {
        key: value
        for key, value in os.environ.items()
        if key
        not in ("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTHONPATH")
    }


def _run(project: pathlib.Path, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*command, "-q", "-p", "no:cacheprovider"],
        cwd=project,
        env=_user_environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def project(tmp_path: pathlib.Path, installed_podfold: object) -> pathlib.Path:
    """The project, beside podfold as installed (checked to be this checkout's)."""
    for name, text in PROJECT.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return tmp_path


def _pytest_script() -> str:
    script = pathlib.Path(sysconfig.get_path("scripts")) / (
        "pytest.exe" if os.name == "nt" else "pytest"
    )
    assert script.is_file(), f"no pytest script beside this interpreter at {script}"
    return str(script)


@pytest.mark.parametrize("command", ["pytest", "python -m pytest"])
def test_a_project_with_its_own_transforms_recipes_and_combinators_keeps_them(
    project: pathlib.Path, command: str
) -> None:
    argv = [_pytest_script()] if command == "pytest" else [sys.executable, "-m", "pytest"]
    result = _run(project, *argv)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 passed" in result.stdout, result.stdout
    assert "already imported" not in result.stdout, result.stdout  # pytest's rewrite warning


def test_podfolds_fixture_in_such_a_project_fails_saying_why(project: pathlib.Path) -> None:
    (project / "test_fixture.py").write_text(textwrap.dedent(USES_A_FIXTURE), encoding="utf-8")
    result = _run(project, sys.executable, "-m", "pytest", "test_fixture.py")
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "1 error" in result.stdout, output
    assert (
        "podfold's fixtures (torchx_app, pod, pod_factory) need podfold's 'transforms' package"
        in output
    )
    assert str(project / "transforms.py") in output  # where the user's module is
    assert "move your module into your project's package" in output  # how to fix it
    assert "Traceback" not in output and "_pods_module" not in output  # plainly, no traceback


def test_a_project_module_named_recipes_is_named_when_a_recipe_is_asked_for(
    tmp_path: pathlib.Path, installed_podfold: object
) -> None:
    # the recipe catalog's entry point (recipes:catalog) then finds the project's module
    (tmp_path / "recipes.py").write_text("RECIPES = []\n", encoding="utf-8")
    code = textwrap.dedent("""
        import recipes  # the project's, first on the path
        from transforms import loads_overlay
        try:
            loads_overlay("- {recipe: gpu, type: a100}")
        except Exception as err:
            print(type(err).__name__, err)
    """)
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=_user_environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(
        "OverlayError <string>:1:3: step 1: the recipe catalog "
        "'podfold' (recipes:catalog) cannot load: AttributeError"
    ), result.stdout
    assert (
        f"the module 'recipes' found is {tmp_path / 'recipes.py'}, which hides the "
        "catalog's: move it into your project's package or rename it" in result.stdout
    )
