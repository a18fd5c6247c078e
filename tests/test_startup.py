"""Start-up: what importing podfold loads, and that what it defers still works when first used.

Each test runs a fresh interpreter (a module once imported stays imported). How long the
imports take is measured by ``benchmarks/bench_startup.py``, never here.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent.parent
# what ``import combinators`` must not load: each costs more than the whole package
HEAVY = (
    "pyrsistent",
    "toolz",
    "importlib.metadata",
    "yaml",
    "json",
    "difflib",
    "inspect",
    "dataclasses",
    "email",
    "typing",
    "re",
    "enum",
)
# all of the standard library ``import combinators`` may load: typing, re, enum, functools,
# collections, operator wait until something needs them (annotations never do)
SMALL_STDLIB = ("__future__", "itertools", "reprlib")


def run(code: str) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter of this checkout; it prints one JSON value last."""
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    answer: dict[str, object] = json.loads(result.stdout.splitlines()[-1])
    return answer


# json is imported after the count: it imports re, enum, functools and collections itself
LOADED = """
    import sys
    before = set(sys.modules)
    {statement}
    new = set(sys.modules) - before
    import json
    print(json.dumps({{"heavy": sorted(name for name in {heavy!r} if name in new),
                       "new": sorted(new)}}))
"""


def test_import_combinators_loads_none_of_the_heavy_modules() -> None:
    loaded = run(LOADED.format(statement="import combinators", heavy=HEAVY))
    assert loaded["heavy"] == []


def test_import_combinators_loads_only_a_few_small_stdlib_modules() -> None:
    loaded = run(LOADED.format(statement="import combinators", heavy=()))
    new = loaded["new"]
    assert isinstance(new, list)
    stdlib = {name.partition(".")[0] for name in new} & sys.stdlib_module_names
    assert stdlib <= set(SMALL_STDLIB), sorted(stdlib - set(SMALL_STDLIB))
    assert {name.partition(".")[0] for name in new} - stdlib == {"combinators"}


def test_what_combinators_defers_works_when_first_used() -> None:
    # the path grammar's regexes, expect's count text, fusion's flags and its scans of long
    # lists: each imports what it needs when first used
    answer = run("""
        from combinators import append_at, chain, expect, path, upsert, when
        parsed = path('metadata.annotations["a.b/c"].x[name="8080",port=1][-]')
        overlay = chain(expect("spec.containers[*]", "2+"),
                        when("spec.containers[name=c9]", upsert("metadata.labels.c9", "yes")),
                        append_at("spec.containers[name=c9].env", {"name": "A"}),
                        upsert("spec.containers[name=c9].image", "x:2"))
        pod = {"spec": {"containers": [{"name": f"c{number}"} for number in range(12)]},
               "metadata": {}}
        runs = [overlay(pod) for _ in range(3)]  # from the second run on, fused
        import json
        print(json.dumps({"text": str(parsed),
                          "same": runs[0] == runs[1] == runs[2],
                          "container": runs[2]["spec"]["containers"][9],
                          "labels": runs[2]["metadata"], "kept": pod["spec"]["containers"][9],
                          "fused": [fused is not None for fused, _, _ in overlay._fused]}))
    """)
    assert answer == {
        "text": 'metadata.annotations["a.b/c"].x[name="8080",port=1][-]',
        "same": True,
        "fused": [False, False, True],
        "kept": {"name": "c9"},
        "container": {"name": "c9", "env": [{"name": "A"}], "image": "x:2"},
        "labels": {"labels": {"c9": "yes"}},
    }


def test_type_aliases_read_at_run_time_are_the_typing_forms() -> None:
    # annotations never need them; code that reads them at run time gets them built then
    answer = run("""
        import sys
        import combinators
        loaded = "typing" in sys.modules
        from collections.abc import Callable
        from typing import Any, Union
        from combinators import Path, Transform
        from combinators.compiled import Compiled, Leaf
        from combinators.fusion import FusedFunction
        from combinators.owned import Owned
        from combinators.paths import PathLike
        from combinators.transform import TransformLike
        import combinators.transform
        try:
            combinators.transform.Transformlike
        except AttributeError as err:
            missing = str(err)
        leaf = Callable[[Any, bool, Owned], Any]
        import json
        print(json.dumps({
            "loaded": loaded, "missing": missing,
            "TransformLike": TransformLike == Union[Transform, Callable[[Any], Any]],
            "PathLike": PathLike == Path | str and isinstance("a.b", PathLike),
            "FusedFunction": FusedFunction == Callable[[dict[str, Any], Owned], Any],
            "Leaf": Leaf == leaf,
            "Compiled": Compiled == Callable[[dict[str, Any], Owned, leaf], Any]}))
    """)
    assert answer == {
        "loaded": False,
        "TransformLike": True,
        "PathLike": True,
        "FusedFunction": True,
        "Leaf": True,
        "Compiled": True,
        "missing": "module 'combinators.transform' has no attribute 'Transformlike'",
    }


def test_import_transforms_loads_nothing_but_itself() -> None:
    # and its lazy-export helper, which imports nothing
    loaded = run(LOADED.format(statement="import transforms", heavy=HEAVY))
    assert loaded["new"] == ["transforms", "transforms._lazy"]


def test_every_lazy_package_defers_through_the_one_mechanism() -> None:
    # a package that exports names it imports on first use builds its __getattr__ and
    # __dir__ with transforms._lazy.lazy_exports, none by hand
    by_hand = [
        str(init.relative_to(ROOT))
        for package in ("combinators", "transforms", "recipes")
        for init in (ROOT / package).rglob("__init__.py")
        if "__getattr__" in init.read_text() and "lazy_exports(" not in init.read_text()
    ]
    assert by_hand == []
    answer = run("""
        import json, transforms, transforms.checks, transforms.io, transforms.kube
        print(json.dumps({"getattr": sorted({package.__getattr__.__qualname__ for package in (
            transforms, transforms.checks, transforms.io, transforms.kube)})}))
    """)
    assert answer == {"getattr": ["lazy_exports.<locals>.__getattr__"]}


def test_one_type_checking_flag_per_package_that_must_import_light() -> None:
    # combinators and transforms defer typing; each has one flag, imported where it is used
    from combinators._typing import TYPE_CHECKING as in_combinators
    from transforms._lazy import TYPE_CHECKING as in_transforms

    assert in_combinators is False and in_transforms is False
    homes = {"combinators/_typing.py", "transforms/_lazy.py"}
    flags = {
        str(module.relative_to(ROOT))
        for package in ("combinators", "transforms", "recipes")
        for module in (ROOT / package).rglob("*.py")
        if "\nTYPE_CHECKING = False" in module.read_text()
    }
    assert flags == homes, sorted(flags ^ homes)


def test_explain_does_not_load_the_entry_points() -> None:
    # explain's module used to import importlib.metadata, for the recipe catalogs, as it loaded
    loaded = run(
        LOADED.format(statement="from transforms import explain", heavy=("importlib.metadata",))
    )
    assert loaded["heavy"] == []


def test_the_function_blame_hides_the_module_of_that_name() -> None:
    # transforms.analysis imports its modules as it loads, so the package's name "blame" is
    # the function whichever is imported first; a lazy package would give the module here
    answer = run("""
        import json
        import transforms.analysis.blame
        from transforms.analysis import blame
        print(json.dumps({"callable": callable(blame), "name": blame.__name__}))
    """)
    assert answer == {"callable": True, "name": "blame"}


def test_plain_documents_are_edited_and_compared_without_pyrsistent() -> None:
    answer = run("""
        import json, sys
        from combinators import append_at, chain, fold, merge_by, remove_at, upsert
        overlay = chain(upsert("spec.nodeSelector.pool", "gpu"),
                        append_at("spec.tolerations", {"key": "gpu"}),
                        merge_by("spec.containers", [{"name": "main", "image": "x:2"}]),
                        remove_at("metadata.labels.old"))
        pod = {"metadata": {"labels": {"old": "1"}}, "spec": {"containers": [{"name": "main"}]}}
        new = fold([overlay], pod)
        same = upsert("metadata.name", "a") == upsert("metadata.name", "a")
        hashed = hash(upsert("metadata.name", "a")) == hash(upsert("metadata.name", "a"))
        print(json.dumps({"new": new, "same": same and hashed,
                          "pyrsistent": "pyrsistent" in sys.modules}))
    """)
    assert answer == {
        "new": {
            "metadata": {"labels": {}},
            "spec": {
                "containers": [{"name": "main", "image": "x:2"}],
                "nodeSelector": {"pool": "gpu"},
                "tolerations": [{"key": "gpu"}],
            },
        },
        "same": True,
        "pyrsistent": False,
    }


def test_persistent_documents_work_when_pyrsistent_is_imported_after_combinators() -> None:
    # the types are looked up when a document comes, not when combinators is imported
    answer = run("""
        import json
        from combinators import append_at, chain, upsert
        overlay = chain(upsert("spec.nodeSelector", {"pool": "gpu"}),
                        append_at("spec.tolerations", {"key": "gpu"}))
        from pyrsistent import PMap, PVector, freeze, thaw
        new = overlay(freeze({"spec": {"tolerations": [{"key": "a"}]}}))
        print(json.dumps({"map": isinstance(new, PMap),
                          "list": isinstance(new["spec"]["tolerations"], PVector),
                          "inserted": isinstance(new["spec"]["nodeSelector"], PMap),
                          "value": thaw(new),
                          "equal": overlay == chain(upsert("spec.nodeSelector", {"pool": "gpu"}),
                                                    append_at("spec.tolerations", {"key": "gpu"}))}))
    """)
    assert answer == {
        "map": True,
        "list": True,
        "inserted": True,
        "equal": True,
        "value": {
            "spec": {"tolerations": [{"key": "a"}, {"key": "gpu"}], "nodeSelector": {"pool": "gpu"}}
        },
    }


def test_client_objects_find_their_adapter_on_first_use() -> None:
    # the podfold.documents entry points are read when the first client object comes
    answer = run("""
        import json, sys
        from combinators import upsert
        loaded = "importlib.metadata" in sys.modules
        from kubernetes import client
        pod = client.V1Pod(spec=client.V1PodSpec(containers=[client.V1Container(name="main")]))
        new = upsert("spec.nodeSelector", {"pool": "gpu"})(pod)
        print(json.dumps({"loaded before": loaded, "type": type(new).__name__,
                          "selector": new.spec.node_selector, "kept": pod.spec.node_selector}))
    """)
    assert answer == {
        "loaded before": False,
        "type": "V1Pod",
        "selector": {"pool": "gpu"},
        "kept": None,
    }


def test_near_misses_are_named_once_difflib_is_imported_on_demand() -> None:
    answer = run("""
        import json, sys
        from combinators import PathError, replace_at, update_at
        before = "difflib" in sys.modules
        misses = []
        for edit in (update_at("spec.nodeSelectr", len),
                     replace_at("spec.containers[name=trainr].image", "x:2")):
            try:
                edit({"spec": {"nodeSelector": {}, "containers": [{"name": "trainer"}]}})
            except PathError as err:
                misses.append(list(err.near_misses))
        print(json.dumps({"before": before, "misses": misses}))
    """)
    assert answer == {"before": False, "misses": [["nodeSelector"], ["trainer"]]}


# what a ``podfold apply`` of a pipeline of one built-in recipe on one Pod must not load: the
# schema's table (no step of such an overlay reads it: "tables read" below), the traceback
# (only --debug prints one), the checks and conversions the command was not asked for, and
# fsspec (the overlay is a local file). The recipe catalogs' entry points are read with
# importlib.metadata, which loads email, socket, zipfile, tempfile and importlib.resources.
NOT_FOR_APPLY = (
    "traceback",
    "json",
    "gzip",
    "fsspec",
    "transforms.checks.validation",
    "transforms.checks.policies",
    "transforms.checks.paths",
    "transforms.kube.convert",
    "transforms.io.dumping",
    "transforms.analysis",
)
POD_YAML = (
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: train\nspec:\n  containers:\n"
    "  - name: trainer\n    image: pytorch:2\n"
)
CLI_RUN = """
    import contextlib, io, sys
    {prelude}
    before = set(sys.modules)
    from transforms.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            main({args!r})
        except SystemExit as done:
            code = done.code
    new = set(sys.modules) - before
    from transforms.kube import schema
    import json
    print(json.dumps({{"code": code, "out": out.getvalue(), "loaded": sorted(new),
                       "tables read": schema._load.cache_info().currsize, "watched": watched}}))
"""
# what a run may count calls of: a callable it replaces, by its module and name
WATCH = """
    import {module}
    watched = []
    def watching(*args, _seen=watched, _real={module}.{name}, **kwargs):
        _seen.append("{module}.{name}")
        return _real(*args, **kwargs)
    {module}.{name} = watching
"""


def _cli(tmp_path: pathlib.Path, *args: str, watch: str | None = None) -> dict[str, object]:
    """``podfold ARGS`` in a fresh interpreter; ``watch`` (``module.name``) counts its calls."""
    (tmp_path / "pod.yaml").write_text(POD_YAML)
    (tmp_path / "recipe.yaml").write_text("- recipe: node_selector\n  gpu: a100\n")
    module, _, name = (watch or "").rpartition(".")
    prelude = WATCH.format(module=module, name=name) if watch else "watched = []"
    return run(
        CLI_RUN.format(
            prelude=textwrap.indent(textwrap.dedent(prelude), "    ").strip(),
            args=[str(tmp_path / arg) if (tmp_path / arg).exists() else arg for arg in args],
        )
    )


def test_podfold_apply_of_one_recipe_loads_only_what_it_uses(tmp_path: pathlib.Path) -> None:
    answer = _cli(
        tmp_path,
        *("apply", "--no-validate", "-f", "recipe.yaml", "pod.yaml"),
        watch="transforms._entry_points._read_folders",
    )
    assert answer["code"] == 0
    assert answer["out"] == POD_YAML + "  nodeSelector:\n    gpu: a100\n"
    loaded = answer["loaded"]
    assert isinstance(loaded, list)
    assert "recipes.scheduling" in loaded  # the recipe was found through its entry point
    # the recipe catalogs and the kinds (the Pod's record) are read from one scan of the
    # installed entry points, which reads every distribution's whatever the group
    assert answer["watched"] == ["transforms._entry_points._read_folders"]
    assert [name for name in NOT_FOR_APPLY if name in loaded] == []
    assert answer["tables read"] == 0
    # validating the template the overlay changed (the default) reads the schema's table
    # and loads the checks: those, and nothing else
    validated = _cli(tmp_path, "apply", "-f", "recipe.yaml", "pod.yaml")
    assert (validated["code"], validated["out"]) == (0, answer["out"])
    assert isinstance(validated["loaded"], list)
    assert [name for name in NOT_FOR_APPLY if name in validated["loaded"]] == [
        "json",
        "gzip",
        "transforms.checks.validation",
        "transforms.kube.convert",
    ]
    assert validated["tables read"] == 1


def test_podfold_validate_reads_the_schema_without_importlib_resources(
    tmp_path: pathlib.Path,
) -> None:
    # the package's loader reads the schema's table (pkgutil.get_data): importlib.resources
    # is never asked, though importlib.metadata imports it (below), so its calls are counted
    answer = _cli(tmp_path, "validate", "pod.yaml", watch="importlib.resources.files")
    assert answer["code"] == 0
    loaded = answer["loaded"]
    assert isinstance(loaded, list)
    assert answer["tables read"] == 1
    assert answer["watched"] == []
    # an installed package's podfold.kinds entry point may declare any kind, and replace a
    # built-in record (a Pod's too), so validate reads the installed entry points: in the
    # folders of the path, as importlib.metadata reads them, without importing it (with
    # email, socket and importlib.resources: tests/test_entry_points.py)
    assert [name for name in ("importlib.metadata", "email", "zipfile") if name in loaded] == []
    assert [
        name for name in ("traceback", "recipes", "transforms.checks.policies") if name in loaded
    ] == []


def test_recipe_steps_skip_the_kind_registry_only_because_patch_steps_carry_their_kinds_name() -> (
    None
):
    # the loader asks kind_of only of steps named as a patch kind: sound while each patch
    # kind's steps carry its name, and no other kind's do
    from transforms.forms.kinds.patches import PATCH_KINDS
    from transforms.forms.kinds.registry import STEP_KINDS
    from transforms.io.loading import _PATCHES

    assert {kind.name for kind in PATCH_KINDS} == set(_PATCHES)
    for kind in STEP_KINDS:
        for example in kind.examples:
            step = example()
            assert (
                (getattr(step, "name", None) == kind.name)
                if kind in PATCH_KINDS
                else getattr(step, "name", None) not in _PATCHES
            ), (kind.name, step)


def test_the_lazy_packages_give_every_name_they_list() -> None:
    # transforms.kube and transforms.checks import each name on first use; "problems" stays
    # the function even once the module of that name is imported
    answer = run("""
        import json
        import transforms.checks.problems
        import transforms.checks as checks
        import transforms.kube as kube
        from transforms.checks import problems
        from transforms.checks.validation import problems as validation_problems
        missing = [f"{package.__name__}.{name}" for package in (kube, checks)
                   for name in package.__all__ if getattr(package, name, None) is None]
        print(json.dumps({"missing": missing, "problems": problems is validation_problems,
                          "dir": sorted(set(kube.__all__) - set(dir(kube)))}))
    """)
    assert answer == {"missing": [], "problems": True, "dir": []}
