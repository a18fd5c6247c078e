"""A third-party recipe catalog at fault is named, never an internal error.

Each case installs a small catalog the way a package does (a ``.dist-info``
with a ``podfold.recipes`` entry point, on the path) and runs the real
``podfold`` command in a child process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PODFOLD = [sys.executable, "-c", "from transforms.cli import main; main()"]
POD = (
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: a:1}]\n"
)


def _install(site: Path, module: str, value: str = "catalog") -> None:
    """A distribution ``acme-recipes`` publishing ``acme_recipes:{value}`` as a catalog."""
    info = site / "acme_recipes-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-recipes\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[podfold.recipes]\nacme = acme_recipes:{value}\n")
    (site / "acme_recipes.py").write_text(textwrap.dedent(module))


def _apply(site: Path, tmp_path: Path, overlay: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "o.yaml").write_text(overlay)
    (tmp_path / "pod.yaml").write_text(POD)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *sys.path])}
    return subprocess.run(
        [*PODFOLD, "apply", "-f", "o.yaml", "pod.yaml"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("module", "value", "words"),
    [
        (
            "raise RuntimeError('no licence server')\n",
            "catalog",
            "the recipe catalog 'acme' (acme_recipes:catalog) cannot load: importing it raised "
            "RuntimeError: no licence server",
        ),
        (
            "catalog = ['gpu']\n",
            "catalog",
            "the recipe catalog 'acme' (acme_recipes:catalog) is list, not a mapping",
        ),
        (
            "catalog = {'team': 'not a function'}\n",
            "catalog",
            "maps 'team' to 'not a function': a catalog maps recipe names (text) to factories",
        ),
        (
            "catalog = {}\n",
            "missing",
            "the recipe catalog 'acme' (acme_recipes:missing) cannot load: AttributeError",
        ),
    ],
)
def test_a_catalog_that_cannot_serve_is_named(
    tmp_path: Path, module: str, value: str, words: str
) -> None:
    _install(tmp_path / "site", module, value)
    line = _one_line(_apply(tmp_path / "site", tmp_path, "- {recipe: team, name: ml}\n"))
    assert words in line


def test_a_factory_raising_names_the_recipe_and_its_catalog(tmp_path: Path) -> None:
    _install(
        tmp_path / "site",
        """
        def team(name):
            return {"ml": None}[name]   # a bug of the catalog's own
        catalog = {"team": team}
    """,
    )
    line = _one_line(_apply(tmp_path / "site", tmp_path, "- {recipe: team, name: research}\n"))
    assert (
        "recipe 'team' (published by acme_recipes:catalog) failed while building: "
        "KeyError: 'research'" in line
    )
    assert "o.yaml:1" in line  # and where the overlay asked for it


def test_a_catalog_that_works_still_works(tmp_path: Path) -> None:
    _install(
        tmp_path / "site",
        """
        from combinators import upsert
        def team(name):
            return upsert("metadata.labels", {"team": name})
        catalog = {"team": team}
    """,
    )
    done = _apply(tmp_path / "site", tmp_path, "- {recipe: team, name: ml}\n")
    assert done.returncode == 0, done.stderr
    assert "team: ml" in done.stdout
