"""podfold's own reading of the installed entry points (:mod:`transforms._entry_points`)
finds what :mod:`importlib.metadata` finds: the same entry points of the same
distributions, the first of each name on the path, and leaves to it what it does not read
(a zip or an egg on the path, a finder of another package's)."""

from __future__ import annotations

import importlib.machinery
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from transforms import _entry_points
from transforms._entry_points import EntryPoint, _from_importlib, _plain, _read_folders


def _keys(points: Any) -> list[tuple[str, str, str, str | None]]:
    return sorted(point._key() for point in points)


def _dist(site: Path, folder: str, name: str, entry_points: str | None) -> None:
    info = site / folder
    info.mkdir(parents=True)
    metadata = "PKG-INFO" if folder.endswith(".egg-info") else "METADATA"
    (info / metadata).write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n\nbody\n")
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points)


@pytest.fixture
def clean_scan() -> Iterator[None]:
    _entry_points._scan.cache_clear()
    yield
    _entry_points._scan.cache_clear()


def test_the_installed_entry_points_are_those_importlib_metadata_finds() -> None:
    read = _read_folders(sys.path)
    assert read is not None
    assert _keys(read) == _keys(_from_importlib(sys.path))
    assert ("podfold", "recipes:catalog", "podfold.recipes", "podfold") in _keys(read)


def test_the_first_distribution_of_a_name_on_the_path_is_the_one_read(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    _dist(first, "Acme.Kinds-2.0.dist-info", "Acme.Kinds", "[podfold.kinds]\nacme = new:kinds\n")
    _dist(second, "acme_kinds-1.0.dist-info", "acme-kinds", "[podfold.kinds]\nacme = old:kinds\n")
    _dist(first, "plain-1.0.dist-info", "plain", None)  # no entry points: claims its name
    _dist(second, "plain-0.9.dist-info", "plain", "[podfold.kinds]\nshadowed = p:k\n")
    _dist(
        second,
        "eggy-1.0.egg-info",
        "eggy",
        "# a comment\n[console_scripts]\neggy = eggy.cli:main [extra]\n\n"
        "[podfold.recipes]\n  spaced   =   eggy.recipes : catalog  \n",
    )
    (second / "lonely-1.0.egg-info").write_text("Metadata-Version: 1.0\nName: lonely\n")
    _dist(second, "broken-1.0.dist-info", "broken", None)
    (second / "broken-1.0.dist-info" / "entry_points.txt").write_bytes(b"[g]\nx = \xff\n")
    path = [str(first), str(second), str(tmp_path / "missing")]
    read = _read_folders(path)
    assert read is not None
    # importlib.metadata fails on a file that is not UTF-8; podfold leaves its points out
    with pytest.raises(UnicodeDecodeError):
        _from_importlib(path)
    (second / "broken-1.0.dist-info" / "entry_points.txt").unlink()
    assert _keys(read) == _keys(_from_importlib(path))
    assert _keys(read) == [
        ("acme", "new:kinds", "podfold.kinds", "Acme.Kinds"),
        ("eggy", "eggy.cli:main [extra]", "console_scripts", "eggy"),
        ("spaced", "eggy.recipes : catalog", "podfold.recipes", "eggy"),
    ]


def test_an_entry_point_loads_what_it_names_as_importlib_metadata_s_does() -> None:
    point = EntryPoint("x", "transforms.io.streams:dump_stream", "g", None)
    from transforms.io.streams import dump_stream

    assert (point.module, point.attr, point.load()) == (
        "transforms.io.streams",
        "dump_stream",
        dump_stream,
    )
    nested = EntryPoint("y", "combinators : Transform.__call__ [extra]", "g", None)
    assert (nested.module, nested.attr) == ("combinators", "Transform.__call__")
    from combinators import Transform

    assert nested.load() is Transform.__call__
    assert EntryPoint("z", "tests", "g", None).load() is sys.modules["tests"]


def test_a_zip_or_an_egg_on_the_path_or_another_finder_is_left_to_importlib(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_scan: None
) -> None:
    archive = tmp_path / "packages.zip"
    with zipfile.ZipFile(archive, "w") as written:
        written.writestr("zipped-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: zipped\n")
        written.writestr("zipped-1.0.dist-info/entry_points.txt", "[podfold.kinds]\nz = z:k\n")
    assert not _plain([str(archive), *sys.path])
    monkeypatch.syspath_prepend(str(archive))
    assert ("z", "z:k", "podfold.kinds", "zipped") in _keys(
        _entry_points.entry_points("podfold.kinds")
    )

    eggs = tmp_path / "eggs"
    (eggs / "old-1.0-py3.11.egg").mkdir(parents=True)
    assert _read_folders([str(eggs)]) is None

    class Finder:
        def find_distributions(self, context: Any) -> Any:
            return iter(())

    folders = [str(tmp_path), str(eggs)]
    monkeypatch.setattr(sys, "meta_path", [importlib.machinery.PathFinder])
    assert _plain(folders)
    monkeypatch.setattr(sys, "meta_path", [Finder(), importlib.machinery.PathFinder])
    assert not _plain(folders)


def test_a_run_reads_no_importlib_metadata(tmp_path: Path) -> None:
    # the start of every command: the recipe catalogs and kinds without email or zipfile
    import subprocess

    (tmp_path / "o.yaml").write_text("- {recipe: node_selector, pool: a100}\n")
    (tmp_path / "pod.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a}]\n"
    )
    from transforms.cli.main import COMMANDS

    others = sorted(module for name, (module, _) in COMMANDS.items() if name != "apply")
    script = (
        "import sys\nfrom transforms.cli.main import main\n"
        "try:\n    main(['apply', '-f', 'o.yaml', 'pod.yaml'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('importlib.metadata', 'email', 'zipfile') if m in sys.modules),"
        " file=sys.stderr)\n"
        f"print(sorted(m for m in {others!r} if m in sys.modules), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "pool: a100" in done.stdout, done.stderr
    assert done.stderr.splitlines()[-2] == "[]", done.stderr
    # and of the commands' modules, only the one it runs (transforms.cli.main.COMMANDS)
    assert done.stderr.splitlines()[-1] == "[]", done.stderr
