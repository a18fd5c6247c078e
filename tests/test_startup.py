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
HEAVY = ("pyrsistent", "toolz", "importlib.metadata", "yaml", "json", "difflib", "inspect",
         "dataclasses", "email")


def run(code: str) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter of this checkout; it prints one JSON value last."""
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    answer: dict[str, object] = json.loads(result.stdout.splitlines()[-1])
    return answer


LOADED = """
    import json, sys
    before = set(sys.modules)
    {statement}
    new = set(sys.modules) - before
    print(json.dumps({{"heavy": sorted(name for name in {heavy!r} if name in new),
                       "new": sorted(new)}}))
"""


def test_import_combinators_loads_none_of_the_heavy_modules() -> None:
    loaded = run(LOADED.format(statement="import combinators", heavy=HEAVY))
    assert loaded["heavy"] == []


def test_import_transforms_loads_nothing_but_itself() -> None:
    loaded = run(LOADED.format(statement="import transforms", heavy=HEAVY))
    assert loaded["new"] == ["transforms"]


def test_explain_does_not_load_the_entry_points() -> None:
    # explain's module used to import importlib.metadata, for the recipe catalogs, as it loaded
    loaded = run(LOADED.format(statement="from transforms import explain",
                               heavy=("importlib.metadata",)))
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
        new = fold(pod, [overlay])
        same = upsert("metadata.name", "a") == upsert("metadata.name", "a")
        hashed = hash(upsert("metadata.name", "a")) == hash(upsert("metadata.name", "a"))
        print(json.dumps({"new": new, "same": same and hashed,
                          "pyrsistent": "pyrsistent" in sys.modules}))
    """)
    assert answer == {"new": {"metadata": {"labels": {}},
                              "spec": {"containers": [{"name": "main", "image": "x:2"}],
                                       "nodeSelector": {"pool": "gpu"},
                                       "tolerations": [{"key": "gpu"}]}},
                      "same": True, "pyrsistent": False}


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
    assert answer == {"map": True, "list": True, "inserted": True, "equal": True,
                      "value": {"spec": {"tolerations": [{"key": "a"}, {"key": "gpu"}],
                                         "nodeSelector": {"pool": "gpu"}}}}


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
    assert answer == {"loaded before": False, "type": "V1Pod", "selector": {"pool": "gpu"},
                      "kept": None}


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
