"""``podfold fn``, the KRM function: a ResourceList in, the same out, its items overlaid and
the run's findings in ``results``; in this process on lists as kpt writes them, and through
the real kpt (``kpt fn eval --exec``, and a Kptfile pipeline under ``kpt fn render``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from transforms.cli.krm import function_settings, krm_function
from transforms.errors import OverlayError

KPT = shutil.which("kpt")
PODFOLD = Path(sys.executable).with_name("podfold")

JOB = """\
# the training job
apiVersion: batch/v1
kind: Job
metadata:
  name: train  # its name
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: trainer
        image: pytorch/pytorch  # pinned later
"""
ODD = """\
apiVersion: example.com/v1
kind: Trainer
metadata: {name: odd}
spec:
  workers:
    containers: [{name: w, image: x}]
"""
CONFIG_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: gpu}
data:
  a100.yaml: |
    spec:
      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-tesla-a100}
  shm.yaml: |
    - {recipe: shm_size, size: 16Gi}
  policy: baseline
"""
POD_OVERLAY = """\
apiVersion: podfold.dev/v1alpha1
kind: PodOverlay
metadata:
  name: gpu
  annotations: {config.kubernetes.io/local-config: "true"}
spec:
  overlays:
    - spec:
        nodeSelector: {cloud.google.com/gke-accelerator: nvidia-tesla-a100}
    - - {recipe: shm_size, size: 16Gi}
  policy: baseline
"""


def _listed(config: str, *items: str) -> str:
    """A ResourceList as kpt writes one: each item with its file's annotations."""
    text = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
    for index, item in enumerate(items):
        body = item.replace("metadata:\n  name: train  # its name\n", "metadata:\n  name: train\n")
        document = yaml.safe_load(body)
        document["metadata"]["annotations"] = {
            "config.kubernetes.io/path": f"file{index}.yaml",
            "internal.config.kubernetes.io/path": f"file{index}.yaml",
            "config.kubernetes.io/index": "0",
            "internal.config.kubernetes.io/seqindent": "compact",
        }
        dumped = yaml.safe_dump(document, sort_keys=False)
        text += "- " + dumped.replace("\n", "\n  ").rstrip() + "  # item\n"
    config_text = yaml.safe_dump(yaml.safe_load(config), sort_keys=False)
    return text + "functionConfig:\n  " + config_text.replace("\n", "\n  ").rstrip() + "\n"


def test_both_function_configs_overlay_alike_and_findings_become_results() -> None:
    # a ConfigMap and a PodOverlay give the same items; every annotation and comment of the
    # list is kept; the pod no overlay reaches is a warning naming its item and file
    outputs = []
    for config in (CONFIG_MAP, POD_OVERLAY):
        text = _listed(config, JOB, ODD)
        written, failed = krm_function(text)
        assert not failed
        assert written.count("  # item") == 2  # the list's comments
        outputs.append(yaml.safe_load(written))
    assert outputs[0]["items"] == outputs[1]["items"]
    job, odd = outputs[0]["items"]
    assert odd["spec"] == yaml.safe_load(ODD)["spec"]
    spec = job["spec"]["template"]["spec"]
    assert spec["nodeSelector"] == {"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"}
    assert spec["volumes"][0]["name"] == "dshm"
    assert job["metadata"]["annotations"] == {
        "config.kubernetes.io/path": "file0.yaml",
        "internal.config.kubernetes.io/path": "file0.yaml",
        "config.kubernetes.io/index": "0",
        "internal.config.kubernetes.io/seqindent": "compact",
    }
    [unreached] = outputs[0]["results"]
    assert unreached["severity"] == "warning"
    assert unreached["resourceRef"] == {
        "apiVersion": "example.com/v1",
        "kind": "Trainer",
        "name": "odd",
    }
    assert unreached["file"] == {"path": "file1.yaml", "index": 0}
    assert "spec.workers.containers" in unreached["message"]
    assert "declare the kind with a record in the functionConfig's kinds" in unreached["message"]


def test_a_policy_violation_a_problem_and_a_conflict_are_results_with_their_fields() -> None:
    # error results fail the function, which prints the list all the same, its items
    # overlaid; each names the item, the field from the top of the item, the overlay line
    config = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: bad}
data:
  a.yaml: |
    - {op: upsert, path: "spec.containers[name=trainer].ports", value: [{containerPort: x}]}
    - {op: upsert, path: spec.hostNetwork, value: true}
  b.yaml: |
    spec: {hostNetwork: false}
  policy: baseline
  conflicts: error
"""
    written, failed = krm_function(_listed(config, JOB))
    assert failed
    done = yaml.safe_load(written)
    by_field = {found["field"]["path"]: found for found in done["results"]}
    problem = by_field["spec.template.spec.containers[name=trainer].ports[0].containerPort"]
    assert problem["severity"] == "error"
    assert "functionConfig data[a.yaml]:" in problem["message"]
    assert problem["resourceRef"] == {"apiVersion": "batch/v1", "kind": "Job", "name": "train"}
    assert problem["file"]["path"] == "file0.yaml"
    conflict = by_field["spec.template.spec.hostNetwork"]
    assert conflict["severity"] == "error" and conflict["message"].startswith("conflict:")
    assert done["items"][0]["spec"]["template"]["spec"]["hostNetwork"] is False


def test_a_bad_function_config_is_an_error_result_and_the_items_pass_unchanged() -> None:
    text = _listed(CONFIG_MAP.replace("policy:", "polcy:"), JOB)
    written, failed = krm_function(text)
    assert failed
    done = yaml.safe_load(written)
    [refused] = done["results"]
    assert refused["severity"] == "error"
    assert refused["message"] == (
        "functionConfig: data[polcy] is no overlay (a key ending in .yaml) and no option; did "
        "you mean policy? (options: select, policy, allow, deny, conflicts, validate, "
        "k8s-version, kinds)"
    )
    assert done["items"] == yaml.safe_load(text)["items"]
    with pytest.raises(OverlayError, match=r"data: no pod schema for Kubernetes 9\.9; supported"):
        function_settings({"kind": "ConfigMap", "data": {"k8s-version": "9.9"}})
    with pytest.raises(OverlayError, match="ConfigMap or a PodOverlay"):
        function_settings({"kind": "Secret"})
    with pytest.raises(OverlayError, match="reads a ResourceList"):
        krm_function("kind: Pod\n")


needs_kpt = pytest.mark.skipif(KPT is None, reason="kpt is not on PATH")


@needs_kpt
def test_kpt_fn_eval_runs_the_function_on_a_package(tmp_path: Path) -> None:
    # kpt fn eval --exec: the files written back keep their comments, the results file names
    # the item the function does not reach by its file
    assert KPT is not None
    package = tmp_path / "package"
    package.mkdir()
    (package / "job.yaml").write_text(JOB)
    (package / "odd.yaml").write_text(ODD)
    (tmp_path / "config.yaml").write_text(CONFIG_MAP)
    done = subprocess.run(
        [
            KPT, "fn", "eval", str(package), "--exec", f"{PODFOLD} fn",
            "--fn-config", str(tmp_path / "config.yaml"),
            "--results-dir", str(tmp_path / "results"),
        ],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    job = (package / "job.yaml").read_text()
    assert "# the training job" in job and "# its name" in job and "# pinned later" in job
    spec = yaml.safe_load(job)["spec"]["template"]["spec"]
    assert spec["nodeSelector"] == {"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"}
    assert (package / "odd.yaml").read_text() == ODD
    results = yaml.safe_load((tmp_path / "results" / "results.yaml").read_text())
    [unreached] = results["items"][0]["results"]
    assert unreached["severity"] == "warning" and unreached["file"]["path"] == "odd.yaml"


@needs_kpt
def test_kpt_fn_render_runs_a_kptfile_pipeline_and_fails_on_an_error(tmp_path: Path) -> None:
    # the PodOverlay as the pipeline's configPath: a policy violation fails the render, which
    # writes nothing; once the overlay meets the policy, the render writes the package
    assert KPT is not None
    package = tmp_path / "package"
    package.mkdir()
    (package / "job.yaml").write_text(JOB)
    (package / "Kptfile").write_text(
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: package\npipeline:\n"
        f"  mutators:\n    - exec: {PODFOLD} fn\n      configPath: podfold.yaml\n"
    )
    bad = POD_OVERLAY.replace("    - - {recipe", "    - spec: {hostPID: true}\n    - - {recipe")
    (package / "podfold.yaml").write_text(bad)
    render = [KPT, "fn", "render", str(package), "--allow-exec", "--truncate-output=false"]
    failed = subprocess.run(render, capture_output=True, text=True, check=False)
    said = failed.stdout + failed.stderr
    assert "[FAIL]" in said and "Exit code: 1" in said, said
    assert "[error] batch/v1/Job/train spec.template.spec.hostPID:" in said, said
    assert "functionConfig spec.overlays[1]:" in said, said
    assert (package / "job.yaml").read_text() == JOB
    (package / "podfold.yaml").write_text(POD_OVERLAY)
    done = subprocess.run(render, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    job = (package / "job.yaml").read_text()
    assert "# the training job" in job and "# pinned later" in job
    assert yaml.safe_load(job)["spec"]["template"]["spec"]["volumes"][0]["name"] == "dshm"


def test_kinds_declared_in_the_function_config_reach_their_pods() -> None:
    # the record a --kinds file holds, as a ConfigMap's data[kinds] text and as a
    # PodOverlay's spec.kinds list: the Trainer's workers are reached, and not warned about
    record = "- apiVersion: example.com/*\n  kind: Trainer\n  pods:\n  - {path: spec.workers, holds: spec}\n"
    as_text = (
        CONFIG_MAP.rstrip("\n")
        + "\n  kinds: |\n"
        + "".join(f"    {line}\n" for line in record.splitlines())
    )
    typed = yaml.safe_load(POD_OVERLAY)
    typed["spec"]["kinds"] = yaml.safe_load(record)
    for config in (as_text, yaml.safe_dump(typed, sort_keys=False)):
        written, failed = krm_function(_listed(config, ODD))
        listed = yaml.safe_load(written)
        assert not failed and not listed.get("results"), listed.get("results")
        [odd] = listed["items"]
        assert odd["spec"]["workers"]["nodeSelector"] == {
            "cloud.google.com/gke-accelerator": "nvidia-tesla-a100"
        }
    # a record with a field no record has is an error result naming where it is
    bad = CONFIG_MAP.rstrip("\n") + "\n  kinds: |\n    - {kind: Trainer, podz: []}\n"
    written, failed = krm_function(_listed(bad, ODD))
    [found] = yaml.safe_load(written)["results"]
    assert failed and found["severity"] == "error"
    assert "functionConfig data[kinds]:1" in found["message"] and "podz" in found["message"]


def test_a_plain_yaml_11_boolean_where_a_string_is_wanted_is_a_warning_result() -> None:
    # as podfold apply warns of it: kubectl reads `y` as true, which a label cannot be
    job = JOB.replace("  template:\n", "  template:\n    metadata:\n      labels: {debug: y}\n")
    text = _listed(CONFIG_MAP, JOB, job).replace("debug: true", "debug: y")
    written, failed = krm_function(text)
    assert not failed
    [found] = yaml.safe_load(written)["results"]
    assert found == {
        "message": "expected string, found boolean True; y, written plain, is the boolean "
        "true to kubectl (YAML 1.1): quote it ('y') if a string is meant",
        "severity": "warning",
        "resourceRef": {"apiVersion": "batch/v1", "kind": "Job", "name": "train"},
        "field": {"path": "spec.template.metadata.labels.debug"},
        "file": {"path": "file1.yaml", "index": 0},
    }
