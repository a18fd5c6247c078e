"""The installed ``podfold`` script, run in a subprocess on real manifests (tests/manifests/).

Every command's ``--help``; ``apply`` from a file and from stdin, YAML and
JSON out, with selectors, equal to the workload API called in Python and,
for a strategic merge step on a Deployment, to ``kubectl patch --local``;
``explain`` with and without colour and ``--blame``; ``validate``;
``recipes``; every exit code, the one-line errors and ``--debug``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests import warm
from tests.terminal import on_a_terminal
from transforms.io.loading import load_overlay
from transforms.kube.workloads import Selector, apply_to_documents, pod_templates

from .kubectl import needs_kubectl, run_kubectl

REPO = Path(__file__).resolve().parent.parent
PODFOLD = Path(sys.executable).with_name("podfold")
MANIFESTS = REPO / "tests" / "manifests"
DEPLOYMENT = MANIFESTS / "kubernetes" / "nginx-deployment.yaml"
PYTORCHJOB = MANIFESTS / "kubeflow" / "pytorchjob-simple.yaml"
STATEFULSET = MANIFESTS / "kubernetes" / "web.yaml"  # a Service, then a StatefulSet
LIST = MANIFESTS / "kubernetes" / "list.yaml"
A100 = REPO / "examples" / "a100.yaml"
COMMANDS = ("apply", "explain", "validate", "render", "recipes")


def podfold(
    *args: str, stdin: str | None = None, cwd: Path = REPO
) -> subprocess.CompletedProcess[str]:
    return warm.run("podfold", args, input=stdin, cwd=cwd)


def python_apply(overlay: Path, manifest: Path, select: str | None = None) -> list[Any]:
    documents = [doc for doc in yaml.safe_load_all(manifest.read_text()) if doc is not None]
    return apply_to_documents(
        load_overlay(overlay), documents, select=Selector.parse(select) if select else None
    )


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("podfold: error: ")
    return line


# ---------------------------------------------------------------- help


@pytest.mark.parametrize("command", [(), *((name,) for name in COMMANDS)])
def test_help(command: tuple[str, ...]) -> None:
    result = podfold(*command, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"Usage: podfold {' '.join(command)}".rstrip())


def test_top_level_help_names_every_command_and_the_exit_codes() -> None:
    text = podfold("--help").stdout
    assert all(name in text for name in COMMANDS)
    assert "0 success, 1 a validation or overlay failure, 2 a usage error" in text
    # what a script sees where the output cannot be written (tests/test_output_faults.py)
    assert (
        "Output that cannot be written whole (a full disk, a closed stdout) fails with 1"
        in " ".join(text.split())
    )
    assert "by SIGPIPE, as it ends any writer (141 in a shell)" in " ".join(text.split())


def test_help_does_not_import_torchx_or_kubernetes() -> None:
    code = (
        "import sys\nfrom transforms.cli import main\ntry:\n    main(['--help'])\n"
        "except SystemExit:\n    pass\nprint(sorted(m for m in ('torchx', 'kubernetes', "
        "'transforms.kube.workloads') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=REPO
    )
    assert result.stdout.strip().splitlines()[-1] == "[]"


# ---------------------------------------------------------------- apply


def test_apply_equals_the_workload_api_in_python() -> None:
    result = podfold("apply", "-f", str(A100), str(STATEFULSET))
    assert result.returncode == 0, result.stderr
    assert list(yaml.safe_load_all(result.stdout)) == python_apply(A100, STATEFULSET)


def test_apply_keeps_document_and_key_order_and_the_documents_with_no_pod() -> None:
    result = podfold("apply", "-f", str(A100), str(STATEFULSET))
    service, statefulset = yaml.safe_load_all(result.stdout)
    original_service, original = yaml.safe_load_all(STATEFULSET.read_text())
    assert service == original_service
    assert list(statefulset) == list(original)
    assert list(statefulset["spec"]) == list(original["spec"])
    assert result.stdout.startswith(yaml.safe_dump(original_service, sort_keys=False))


def test_apply_reads_stdin_with_dash_and_without_a_file() -> None:
    expected = podfold("apply", "-f", str(A100), str(DEPLOYMENT)).stdout
    assert podfold("apply", "-f", str(A100), "-", stdin=DEPLOYMENT.read_text()).stdout == expected
    assert podfold("apply", "-f", str(A100), stdin=DEPLOYMENT.read_text()).stdout == expected


def test_apply_json_output() -> None:
    one = podfold("apply", "-f", str(A100), "-o", "json", str(DEPLOYMENT))
    assert json.loads(one.stdout) == python_apply(A100, DEPLOYMENT)[0]
    several = json.loads(podfold("apply", "-f", str(A100), "-o", "json", str(STATEFULSET)).stdout)
    assert several["kind"] == "List"
    assert several["items"] == python_apply(A100, STATEFULSET)


def test_apply_several_overlays_in_order(tmp_path: Path) -> None:
    first = tmp_path / "first.yaml"
    first.write_text("- {op: upsert, path: spec.priorityClassName, value: low}\n")
    second = tmp_path / "second.yaml"
    second.write_text("- {op: upsert, path: spec.priorityClassName, value: high}\n")
    result = podfold("apply", "-f", str(first), "-f", str(second), str(DEPLOYMENT))
    (deployment,) = yaml.safe_load_all(result.stdout)
    assert deployment["spec"]["template"]["spec"]["priorityClassName"] == "high"


def test_apply_select_by_role() -> None:
    result = podfold(
        "apply", "-f", str(A100), "--select", "kind=PyTorchJob,role=Worker", str(PYTORCHJOB)
    )
    assert result.returncode == 0, result.stderr
    (job,) = yaml.safe_load_all(result.stdout)
    (original,) = yaml.safe_load_all(PYTORCHJOB.read_text())
    specs = job["spec"]["pytorchReplicaSpecs"]
    assert specs["Master"] == original["spec"]["pytorchReplicaSpecs"]["Master"]
    assert "nodeSelector" in specs["Worker"]["template"]["spec"]
    assert [job] == python_apply(A100, PYTORCHJOB, "kind=PyTorchJob,role=Worker")


@pytest.mark.parametrize("command", ["apply", "explain"])
def test_a_select_that_picks_nothing_is_an_error_listing_the_templates(command: str) -> None:
    # a typo in a role must not pass the stream through unchanged with exit 0
    result = podfold(command, "-f", str(A100), "--select", "role=Wroker", str(PYTORCHJOB))
    line = one_error_line(result)
    assert "Selector(roles=('Wroker',))" in line
    assert "PyTorchJob/pytorch-simple role=Master" in line
    assert "PyTorchJob/pytorch-simple role=Worker" in line
    assert result.stdout == ""


def test_apply_to_a_list_reaches_its_items() -> None:
    result = podfold("apply", "-f", str(A100), str(LIST))
    assert result.returncode == 0, result.stderr
    assert list(yaml.safe_load_all(result.stdout)) == python_apply(A100, LIST)
    assert "nvidia-tesla-a100" in result.stdout


@needs_kubectl
def test_a_strategic_step_gives_kubectl_s_result_on_a_deployment(tmp_path: Path) -> None:
    pod_patch = {
        "spec": {
            "containers": [{"name": "nginx", "resources": {"limits": {"memory": "1Gi"}}}],
            "tolerations": [{"key": "gpu", "operator": "Exists"}],
        }
    }
    overlay = tmp_path / "patch.yaml"
    overlay.write_text(yaml.safe_dump([{"strategic": pod_patch}]))
    ours = json.loads(podfold("apply", "-f", str(overlay), "-o", "json", str(DEPLOYMENT)).stdout)
    kubectl = run_kubectl(
        "patch",
        "--local",
        "-f",
        str(DEPLOYMENT),
        "--type",
        "strategic",
        "-p",
        json.dumps({"spec": {"template": pod_patch}}),
        "-o",
        "json",
    )
    assert kubectl.returncode == 0, kubectl.stderr
    assert ours == json.loads(kubectl.stdout)
    assert [c["name"] for c in ours["spec"]["template"]["spec"]["containers"]] == ["nginx"]


# ---------------------------------------------------------------- errors and exit codes


def test_an_overlay_failure_is_one_line_naming_document_template_and_what_was_there(
    tmp_path: Path,
) -> None:
    overlay = tmp_path / "strict.yaml"
    overlay.write_text("- {op: remove, path: 'spec.containers[name=trainer]', missing_ok: false}\n")
    line = one_error_line(podfold("apply", "-f", str(overlay), str(PYTORCHJOB)))
    assert "no element [name=trainer] in spec.containers" in line
    assert "names present: pytorch" in line
    assert "document 1" in line and "PyTorchJob/pytorch-simple" in line
    assert "Master" in line and "spec.pytorchReplicaSpecs.Master.template" in line


def test_a_bad_overlay_file_names_file_and_line(tmp_path: Path) -> None:
    overlay = tmp_path / "typo.yaml"
    overlay.write_text("spec:\n  node_selector: {gpu: a100}\n")
    line = one_error_line(podfold("apply", "-f", str(overlay), str(DEPLOYMENT)))
    assert f"{overlay}:2:" in line and "nodeSelector" in line


def test_a_bad_manifest_names_file_and_line(tmp_path: Path) -> None:
    manifest = tmp_path / "broken.yaml"
    manifest.write_text("kind: Pod\nmetadata: {name: [x\n")
    line = one_error_line(podfold("apply", "-f", str(A100), str(manifest)))
    assert f"{manifest}:3:" in line
    stdin = one_error_line(podfold("apply", "-f", str(A100), "-", stdin="a: [1\n"))
    assert "<stdin>:2:" in stdin


def test_debug_adds_the_traceback(tmp_path: Path) -> None:
    overlay = tmp_path / "strict.yaml"
    overlay.write_text("- {op: remove, path: 'spec.containers[name=x]', missing_ok: false}\n")
    for args in (
        ("--debug", "apply", "-f", str(overlay), str(DEPLOYMENT)),
        ("apply", "--debug", "-f", str(overlay), str(DEPLOYMENT)),
    ):
        result = podfold(*args)
        assert result.returncode == 1
        assert "Traceback (most recent call last)" in result.stderr
        assert result.stderr.splitlines()[-1].startswith("podfold: error: ")


@pytest.mark.parametrize(
    "args",
    [
        ("apply", str(DEPLOYMENT)),  # no -f
        ("apply", "-f", str(A100), "--select", "rol=Worker", str(DEPLOYMENT)),
        ("apply", "-f", str(A100), "--select", "kind=Deploymnt", str(DEPLOYMENT)),
        ("apply", "-f", str(A100), "no-such-file.yaml"),
        ("apply", "-f", str(A100), "-o", "xml", str(DEPLOYMENT)),
        ("validate", "--k8s-version", "0.1", str(DEPLOYMENT)),
        ("recipes", "gpx"),
        ("frobnicate",),
    ],
)
def test_usage_errors_exit_2(args: tuple[str, ...]) -> None:
    result = podfold(*args)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr


def test_near_misses_in_usage_errors() -> None:
    assert (
        "did you mean Deployment"
        in podfold("apply", "-f", str(A100), "--select", "kind=Deploymnt", str(DEPLOYMENT)).stderr
    )
    assert "did you mean gpu?" in podfold("recipes", "gpx").stderr


# ---------------------------------------------------------------- explain


def test_explain_shows_a_diff_per_changed_template_without_colour_in_a_pipe() -> None:
    result = podfold("explain", "-f", str(A100), str(STATEFULSET))
    assert result.returncode == 0, result.stderr
    assert "\x1b[" not in result.stdout
    lines = result.stdout.splitlines()
    assert lines[0].startswith("# document 2: StatefulSet/web template (spec.template):")
    assert "+  nodeSelector:" in lines
    assert "+    cloud.google.com/gke-accelerator: nvidia-tesla-a100" in lines
    assert lines[-1] == "# 1 of 1 pod template in 2 documents change"


def test_explain_colours_when_asked_and_on_a_terminal() -> None:
    forced = podfold("explain", "--color", "always", "-f", str(A100), str(DEPLOYMENT)).stdout
    assert "\x1b[32m+  nodeSelector:" in forced
    # on a terminal, by default
    status, _, shown = on_a_terminal(
        ["explain", "-f", str(A100), str(DEPLOYMENT)], REPO, stream="stdout", timeout=60
    )
    assert status == 0
    assert b"\x1b[32m+  nodeSelector:" in shown


def test_explain_blame_names_file_line_and_recipe_steps() -> None:
    result = podfold("explain", "--blame", "-f", str(A100), str(DEPLOYMENT))
    assert result.returncode == 0, result.stderr
    blamed = {
        line.split("  <- ")[0].strip("# "): line.split("  <- ")[1]
        for line in result.stdout.splitlines()
        if "  <- " in line
    }
    text = A100.read_text().splitlines()
    node_selector_line = next(n for n, line in enumerate(text, 1) if "nodeSelector:" in line)
    assert blamed["spec.nodeSelector"] == f"{A100}:{node_selector_line}: partial pod"
    shm_line = next(n for n, line in enumerate(text, 1) if "shm_size" in line)
    assert blamed["spec.volumes"].startswith(
        f"{A100}:{shm_line}: document 2, step 1: recipe shm_size('16Gi') > its step 3 of 3: "
    )
    assert blamed["spec.containers[name=nginx].env"].startswith(f"{A100}:{shm_line + 1}: ")
    assert "recipe add_env(NCCL_DEBUG='INFO')" in blamed["spec.containers[name=nginx].env"]


def test_explain_with_nothing_to_change(tmp_path: Path) -> None:
    nothing = tmp_path / "nothing.yaml"
    nothing.write_text("spec: {}\n")
    (document,) = yaml.safe_load_all(LIST.read_text())
    templates = len(pod_templates(document))
    assert templates == 1  # the Deployment inside the List
    result = podfold("explain", "-f", str(nothing), str(LIST))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "# 0 of 1 pod template in 1 document change\n"


# ---------------------------------------------------------------- validate


#: Upstream manifests podfold validate refuses, and why: what upstream's file really gets
#: wrong (strict xfails, so that a change of either shows).
VALIDATE_FAULTS = {
    "spark-pi-pod-template.yaml": "upstream puts a container's securityContext fields "
    "(capabilities, allowPrivilegeEscalation) in the pod's, where Kubernetes has no such fields",
    "spark-connect.yaml": "upstream puts a container's securityContext fields (capabilities, "
    "allowPrivilegeEscalation) in the pod's, where Kubernetes has no such fields",
}


def _manifest_param(path: Path) -> Any:
    reason = VALIDATE_FAULTS.get(path.name)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(path, marks=marks, id=path.name)


@pytest.mark.parametrize(
    "manifest", [_manifest_param(p) for p in sorted(MANIFESTS.glob("*/*.yaml"))]
)
def test_validate_passes_the_real_manifests(manifest: Path) -> None:
    result = podfold("validate", str(manifest))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""


def test_validate_names_document_template_and_path(tmp_path: Path) -> None:
    service, statefulset = yaml.safe_load_all(STATEFULSET.read_text())
    container = statefulset["spec"]["template"]["spec"]["containers"][0]
    container["node_selector"] = {"gpu": "a100"}
    container["ports"][0]["containerPort"] = "80"
    broken = tmp_path / "broken.yaml"
    broken.write_text(yaml.safe_dump_all([service, statefulset], sort_keys=False))
    result = podfold("validate", str(broken))
    assert result.returncode == 1
    where = f"{broken}: document 2: StatefulSet/web template (spec.template): "
    assert result.stdout.splitlines() == [
        f"{where}spec.template.spec.containers[name=nginx].ports[name=web].containerPort: "
        "expected integer, found string '80'",
        f"{where}spec.template.spec.containers[name=nginx].node_selector: unknown field "
        "spec.containers[name=nginx].node_selector",
    ]
    assert "2 errors in 1 pod template" in result.stderr


def test_validate_reads_stdin() -> None:
    result = podfold("validate", "-", stdin=PYTORCHJOB.read_text())
    assert result.returncode == 0
    assert "2 pod templates in 1 document: valid" in result.stderr


# ---------------------------------------------------------------- recipes


def test_recipes_lists_the_catalog_one_line_each() -> None:
    from transforms.forms.catalog import recipe_catalog

    result = podfold("recipes")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == sorted(recipe_catalog())
    gpu = next(line for line in lines if line.split()[0] == "gpu")
    assert "GPU" in gpu


def test_recipes_name_shows_arguments_and_docstring() -> None:
    result = podfold("recipes", "shm_size")
    assert result.returncode == 0
    first, blank, *doc = result.stdout.splitlines()
    assert first.startswith("shm_size(") and "size" in first and "'" not in first.split(":")[1][:4]
    assert blank == ""
    assert "/dev/shm" in "\n".join(doc)
