"""A user declares where a kind keeps its pods: a --kinds file, Python, a package's entry point.

Every case runs in this process (the command line through its own ``main``), but one: a
package built and installed with pip, the way an operator's package ships its kinds.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from transforms.cli.main import main
from transforms.kube import registry
from transforms.kube.workloads import (
    KindRegistry,
    KindSourceError,
    Selector,
    apply_to_workload,
    current_kinds,
    kind_origin,
    pod_templates,
    register_kinds,
    unreached_pods,
    using_kinds,
    workload_kind,
)

WIDGET_RECORD = {
    "apiVersion": "example.com/*",
    "kind": "Widget",
    "pods": [{"path": "spec.parts[*].template", "roleField": "part"}],
}
WIDGET = {
    "apiVersion": "example.com/v1",
    "kind": "Widget",
    "metadata": {"name": "w"},
    "spec": {
        "parts": [
            {"part": "engine", "template": {"spec": {"containers": [{"name": "a", "image": "a"}]}}},
            {"part": "wheel", "template": {"spec": {"containers": [{"name": "b", "image": "b"}]}}},
        ]
    },
}
KINDS_FILE = """\
# where a Widget keeps its pods
- apiVersion: example.com/*
  kind: Widget
  pods:
    - path: spec.parts[*].template
      roleField: part
"""
GPU = "spec: {nodeSelector: {gpu: a100}}\n"


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts from the built-in kinds and the installed packages' alone, and
    leaves the process's registry as it was."""
    monkeypatch.setattr(registry, "_state", None)
    yield


def podfold(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as done:
        main(list(args))
    out = capsys.readouterr()
    code = done.value.code
    return (code if isinstance(code, int) else 0), out.out, out.err


def written(folder: Path, name: str, text: str) -> str:
    (folder / name).write_text(text)
    return str(folder / name)


def nodes(document: Any) -> list[Any]:
    return [part["template"]["spec"].get("nodeSelector") for part in document["spec"]["parts"]]


# ---------------------------------------------------------------- --kinds FILE


def test_a_kinds_file_reaches_its_kind_s_pods_and_its_roles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kinds = written(tmp_path, "kinds.yaml", KINDS_FILE)
    gpu = written(tmp_path, "gpu.yaml", GPU)
    manifest = written(tmp_path, "w.yaml", yaml.safe_dump(WIDGET))
    code, out, err = podfold(capsys, "apply", "--kinds", kinds, "-f", gpu, manifest)
    assert (code, err) == (0, "")
    assert nodes(yaml.safe_load(out)) == [{"gpu": "a100"}, {"gpu": "a100"}]
    # --select knows the declared kind, case aside, and its roles
    code, out, err = podfold(
        capsys, "apply", "--kinds", kinds, "-f", gpu, "--select", "kind=widget,role=wheel", manifest
    )
    assert (code, err) == (0, "")
    assert nodes(yaml.safe_load(out)) == [None, {"gpu": "a100"}]
    # without the file, the kind is unknown: passed through, warned about
    code, out, err = podfold(capsys, "apply", "-f", gpu, manifest)
    assert code == 0 and yaml.safe_load(out) == WIDGET
    assert "podfold knows no kind Widget of example.com" in err


def test_a_strategic_patch_of_a_declared_kind_is_built_in_the_run_s_kinds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kinds = written(tmp_path, "kinds.yaml", KINDS_FILE)
    patch = written(
        tmp_path,
        "patch.yaml",
        "- strategic:\n    apiVersion: example.com/v1\n    kind: Widget\n"
        "    metadata: {name: w, labels: {team: ml}}\n",
    )
    manifest = written(tmp_path, "w.yaml", yaml.safe_dump(WIDGET))
    code, out, err = podfold(
        capsys, "apply", "--no-validate", "--kinds", kinds, "-f", patch, manifest
    )
    assert (code, err) == (0, ""), err
    assert yaml.safe_load(out)["metadata"]["labels"] == {"team": "ml"}


def test_a_record_of_a_built_in_kind_replaces_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a Job whose pods a controller of one's own reads elsewhere
    kinds = written(tmp_path, "kinds.yaml", "kind: Job\npods:\n  - path: spec.podTemplate\n")
    gpu = written(tmp_path, "gpu.yaml", GPU)
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j"},
        "spec": {"podTemplate": {"spec": {"containers": [{"name": "c", "image": "c"}]}}},
    }
    manifest = written(tmp_path, "job.yaml", yaml.safe_dump(job))
    code, out, err = podfold(
        capsys, "apply", "--no-validate", "--kinds", kinds, "-f", gpu, manifest
    )
    assert (code, err) == (0, "")
    assert yaml.safe_load(out)["spec"]["podTemplate"]["spec"]["nodeSelector"] == {"gpu": "a100"}
    code, out, err = podfold(capsys, "kinds", "--kinds", kinds, "-o", "json")
    [row] = [row for row in json.loads(out) if row["kind"] == "Job" and row["apiVersion"] == "any"]
    assert row["origin"] == f"{kinds}:1 (replaces built-in)"
    assert row["pods"] == [{"path": "spec.podTemplate", "holds": "template"}]


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        (
            KINDS_FILE.replace("roleField", "rolefield"),
            "6:7",
            "kind record Widget, pods[0]: unknown field 'rolefield'; did you mean roleField?",
        ),
        (KINDS_FILE.replace("pods:", "pod:"), "4:3", "unknown field 'pod'; did you mean pods?"),
        (
            KINDS_FILE + "      holds: templat\n",
            "7:14",
            "kind record Widget, pods[0].holds: 'templat'; expected one of: template, pod, spec",
        ),
        (
            KINDS_FILE.replace("spec.parts[*].template", "spec.a[*].b[*]"),
            "5:13",
            "pods[0].path: at most one [*] in a path",
        ),
        (
            KINDS_FILE + "  kind: Gadget\n",
            "7:3",
            "duplicate key 'kind' (first at line 3, column 3)",
        ),
        (
            "- kind: Widget\n  pods: !!python/object []\n",
            "2:9",
            "could not determine a constructor",
        ),
        ("just text\n", "1:1", "a kinds file holds a list of kind records"),
    ],
    ids=["near miss", "record field", "holds", "two [*]", "key twice", "tag", "not records"],
)
def test_a_bad_kinds_file_is_refused_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, where: str, words: str
) -> None:
    kinds = written(tmp_path, "kinds.yaml", text)
    manifest = written(tmp_path, "w.yaml", yaml.safe_dump(WIDGET))
    for command in (("apply", "-f", written(tmp_path, "gpu.yaml", GPU)), ("validate",), ("kinds",)):
        args = (*command, "--kinds", kinds) + ((manifest,) if command[0] != "kinds" else ())
        code, out, err = podfold(capsys, *args)
        assert (code, out) == (1, "")
        [line] = err.splitlines()
        assert line.startswith(f"podfold: error: {kinds}:{where}: "), line
        assert words in line


def test_a_record_s_place_no_document_has_is_warned_about(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kinds = written(tmp_path, "kinds.yaml", KINDS_FILE + "    - path: spec.extra.template\n")
    manifest = written(tmp_path, "w.yaml", yaml.safe_dump(WIDGET))
    code, _, err = podfold(capsys, "validate", "--kinds", kinds, manifest)
    assert code == 0
    assert err.splitlines()[0] == (
        f"podfold: warning: {kinds}:2: kind record Widget, pods[1]: no document of {manifest} "
        f"has spec.extra.template (of its 1 Widget document), so no pod is found there"
    )
    assert err.splitlines()[-1] == "podfold: 2 pod templates in 1 document: valid"


# ---------------------------------------------------------------- podfold kinds


def test_podfold_kinds_lists_every_kind_with_its_places_and_origin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kinds = written(tmp_path, "kinds.yaml", KINDS_FILE)
    code, out, err = podfold(capsys, "kinds", "--kinds", kinds)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].split() == ["KIND", "APIVERSION", "FROM", "PODS", "AT", "HOLDS"]
    rows = {line.split()[0]: line.split() for line in lines[1:] if line[:1] != " "}
    assert rows["Deployment"] == ["Deployment", "any", "built-in", "spec.template", "template"]
    assert rows["Widget"] == [
        "Widget",
        "example.com/*",
        f"{kinds}:2",
        "spec.parts[*].template",
        "template,",
        "role:",
        "its",
        "part",
    ]
    # a kind of several places: one line each
    ray = lines.index(next(line for line in lines if line.startswith("RayCluster ")))
    assert lines[ray + 1].split()[0] == "spec.workerGroupSpecs[*].template"
    code, out, _ = podfold(capsys, "kinds", "-o", "json")
    listed = json.loads(out)
    assert len(listed) == len(current_kinds()) and "Widget" not in {row["kind"] for row in listed}


# ---------------------------------------------------------------- unknown kinds


def test_an_unknown_kind_is_named_with_its_api_version_and_a_record_that_reaches_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gpu = written(tmp_path, "gpu.yaml", GPU)
    manifest = written(tmp_path, "w.yaml", yaml.safe_dump_all([WIDGET, WIDGET]))
    code, out, err = podfold(capsys, "apply", "-f", gpu, manifest)
    assert code == 0
    warnings = [line for line in err.splitlines() if line.startswith("podfold: warning: ")]
    first, second = warnings[:2]
    assert first.startswith(
        f"podfold: warning: {manifest}: document 1: Widget/w (example.com/v1) holds containers "
        f"at spec.parts[0].template.spec.containers, spec.parts[1].template.spec.containers, "
        f"but podfold knows no kind Widget of example.com"
    )
    assert first.endswith(
        "a record that reaches its containers, to check and put in a --kinds file:"
    )
    assert "a record that reaches" not in second  # once a kind
    record = textwrap.dedent(err.split("--kinds file:\n")[1].split("podfold: ")[0])
    assert yaml.safe_load(record) == [
        {
            "apiVersion": "example.com/*",
            "kind": "Widget",
            "pods": [{"path": "spec.parts[*].template"}],
        }
    ]
    # pasted as it is, it reaches them
    kinds = written(tmp_path, "kinds.yaml", record)
    code, out, err = podfold(capsys, "apply", "--kinds", kinds, "-f", gpu, manifest)
    assert (code, err) == (0, "")
    assert nodes(next(yaml.safe_load_all(out))) == [{"gpu": "a100"}, {"gpu": "a100"}]
    # and nothing reached says so, after naming each document
    code, out, err = podfold(capsys, "apply", "-f", gpu, manifest)
    assert err.splitlines()[-1] == (
        f"podfold: warning: {manifest}: the overlays reach no pod template: podfold reaches "
        f"the pods of none of the 2 documents that hold some (named above), so nothing changed"
    )


def test_a_trainjob_says_where_its_pods_can_be_overlaid() -> None:
    trainjob = {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": "mnist"},
        "spec": {"runtimeRef": {"name": "torch-distributed"}, "trainer": {"numNodes": 2}},
    }
    [found] = unreached_pods(trainjob)
    assert found.reason == "trainjob"
    assert str(found) == (
        "TrainJob/mnist (trainer.kubeflow.org/v1alpha1): a TrainJob's pods are made from several "
        "places (its trainer fields, its runtime's template, its runtimePatches), which podfold "
        "does not reach yet: no overlay or check reaches them; overlay its runtime's pods "
        "instead, in the TrainingRuntime or ClusterTrainingRuntime ('torch-distributed', its "
        "spec.runtimeRef)"
    )


# ---------------------------------------------------------------- Python


def test_kinds_argument_is_a_one_off() -> None:
    gpu = __import__("combinators").upsert("spec.nodeSelector", {"gpu": "a100"})
    assert apply_to_workload(gpu, WIDGET) is WIDGET
    new = apply_to_workload(
        gpu,
        WIDGET,
        kinds=[WIDGET_RECORD],
        select=Selector.parse("kind=Widget,role=engine", registry=[WIDGET_RECORD]),
    )
    assert nodes(new) == [{"gpu": "a100"}, None]
    assert [t.role for t in pod_templates(WIDGET, kinds=[WIDGET_RECORD])] == ["engine", "wheel"]
    assert unreached_pods(WIDGET, kinds=[WIDGET_RECORD]) == ()
    assert pod_templates(WIDGET) == () and workload_kind("Widget", "example.com/v1") is None
    with pytest.raises(ValueError, match="unknown workload kind 'Widget'"):
        Selector.parse("kind=Widget")
    with using_kinds([WIDGET_RECORD]):
        assert len(pod_templates(WIDGET)) == 2 and Selector.parse("kind=widget").kinds == (
            "Widget",
        )
    assert pod_templates(WIDGET) == ()
    only = KindRegistry.of([WIDGET_RECORD])
    assert pod_templates({"kind": "Deployment", "spec": {"template": {}}}, kinds=only) == ()


def test_register_kinds_swaps_the_registry_whole_and_says_who() -> None:
    before = current_kinds()
    after = register_kinds([WIDGET_RECORD])
    assert after is current_kinds() and len(after) == len(before) + 1
    assert len(pod_templates(WIDGET)) == 2
    entry = workload_kind("Widget", "example.com/v1")
    assert entry is not None and kind_origin(entry) == f"registered by {__name__}"
    assert before.lookup("Widget", "example.com/v1") is None  # the old one is as it was
    # from several threads at once: every registration lands
    names = [f"Widget{number}" for number in range(16)]
    threads = [
        threading.Thread(
            target=register_kinds, args=([{"kind": name, "pods": [{"path": "spec"}]}],)
        )
        for name in names
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(current_kinds().lookup(name) is not None for name in names)


# ---------------------------------------------------------------- entry points


def _install(site: Path, module: str, value: str) -> None:
    """A distribution ``acme-kinds`` publishing ``acme_kinds:{value}`` as its kinds."""
    info = site / "acme_kinds-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-kinds\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[podfold.kinds]\nacme = acme_kinds:{value}\n")
    (site / "acme_kinds.py").write_text(textwrap.dedent(module))


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    yield folder
    sys.modules.pop("acme_kinds", None)


@pytest.mark.parametrize(
    "module",
    [
        f"KINDS = [{WIDGET_RECORD!r}]\n",
        f"def KINDS():\n    return [{WIDGET_RECORD!r}]\n",
    ],
    ids=["a list", "a callable"],
)
def test_a_package_s_entry_point_declares_kinds(
    site: Path, module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _install(site, module, "KINDS")
    assert len(pod_templates(WIDGET)) == 2
    code, out, _ = podfold(capsys, "kinds", "-o", "json")
    assert code == 0
    [row] = [row for row in json.loads(out) if row["kind"] == "Widget"]
    assert row["origin"] == "entry point acme of acme-kinds"


@pytest.mark.parametrize(
    ("module", "words"),
    [
        (
            "raise RuntimeError('no licence server')\n",
            "cannot load: RuntimeError: no licence server",
        ),
        (
            "KINDS = [{'kind': 'Widget', 'pod': []}]\n",
            "declares a bad record: kind record Widget: unknown field 'pod'; did you mean pods?",
        ),
        ("KINDS = 'Widget'\n", "gives 'Widget': an entry point names a list of kind records"),
    ],
    ids=["raises", "bad record", "not records"],
)
def test_a_broken_entry_point_names_its_distribution(
    site: Path, module: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _install(site, module, "KINDS")
    with pytest.raises(KindSourceError) as caught:
        current_kinds()
    assert (caught.value.entry_point, caught.value.distribution) == ("acme", "acme-kinds")
    assert str(caught.value).startswith(
        "the kinds entry point 'acme' of acme-kinds (acme_kinds:KINDS) "
    )
    assert words in str(caught.value)
    # the command line says it on one line, exit 1
    code, out, err = podfold(capsys, "kinds")
    assert (code, out) == (1, "")
    [line] = err.splitlines()
    assert line.startswith("podfold: error: the kinds entry point 'acme' of acme-kinds")


PYPROJECT = """\
[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "acme-operator-kinds"
version = "1.0"

[project.entry-points."podfold.kinds"]
acme-operator = "acme_operator_kinds:KINDS"
"""


def test_an_installed_package_ships_its_kinds(tmp_path: Path) -> None:
    source = tmp_path / "source"
    (source / "acme_operator_kinds").mkdir(parents=True)
    (source / "pyproject.toml").write_text(PYPROJECT)
    (source / "acme_operator_kinds" / "__init__.py").write_text(f"KINDS = [{WIDGET_RECORD!r}]\n")
    target = tmp_path / "target"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(target),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    sys.path.insert(0, str(target))
    try:
        assert len(pod_templates(WIDGET)) == 2
        entry = workload_kind("Widget", "example.com/v1")
        assert entry is not None
        assert kind_origin(entry) == "entry point acme-operator of acme-operator-kinds"
    finally:
        sys.path.remove(str(target))
        sys.modules.pop("acme_operator_kinds", None)
