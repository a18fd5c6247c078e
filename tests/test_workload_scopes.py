"""Workload-level steps: a recipe lands where the system that reads it reads it.

Kueue reads ``kueue.x-k8s.io/queue-name`` (and ``kueue.x-k8s.io/priority-class``)
from the workload object's own ``metadata.labels``: a Job's, a JobSet's, a
RayJob's, a PyTorchJob's, a LeaderWorkerSet's, a Deployment's, an
AppWrapper's (not what it wraps); from ``spec.jobTemplate.metadata.labels`` for
a CronJob (the labels its Jobs get); from the pod itself for a plain Pod.
Kueue's own samples (``manifests/kueue``, ``manifests/appwrapper``) carry the
label where it reads it: with the label taken out and ``kueue_queue`` applied,
each comes back as published.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kubernetes.client import V1Job, V1JobSpec, V1ObjectMeta, V1PodSpec, V1PodTemplateSpec

import recipes
from combinators import PathError, TransformError, chain, get_at, remove_at, replace_at, upsert
from recipes import recipe
from recipes._requires import Requiring
from tests import warm
from transforms.io.loading import loads_overlay
from transforms.kube import Selector, apply_to_documents, apply_to_workload, pod_templates
from transforms.kube.scopes import (
    NoWorkloadMetadataError,
    UnsupportedWorkloadError,
    WorkloadMetadataError,
    is_workload_level,
    pod_level,
    split_levels,
    workload_checks,
    workload_level,
)
from transforms.testing import strategies

from .kubectl import needs_kubectl, run_kubectl

REPO = Path(__file__).resolve().parent.parent
MANIFESTS = REPO / "tests" / "manifests"
PODFOLD = Path(sys.executable).with_name("podfold")
QUEUE = "kueue.x-k8s.io/queue-name"
PRIORITY = "kueue.x-k8s.io/priority-class"

# each manifest, and where in its first document Kueue reads the workload's labels
WHERE_KUEUE_READS = [
    ("kubernetes/job.yaml", "metadata.labels"),
    ("jobset/paralleljobs.yaml", "metadata.labels"),
    ("kuberay/ray-job.sample.yaml", "metadata.labels"),
    ("kubeflow/pytorchjob-simple.yaml", "metadata.labels"),
    ("lws/vllm-gpu-lws.yaml", "metadata.labels"),
    ("kubernetes/nginx-deployment.yaml", "metadata.labels"),
    ("kubernetes/cronjob.yaml", "spec.jobTemplate.metadata.labels"),
    ("kueue/kueue-pod.yaml", "metadata.labels"),
    ("appwrapper/wrapped-pytorch-job.yaml", "metadata.labels"),
]


def documents_of(name: str) -> list[Any]:
    return [doc for doc in yaml.safe_load_all((MANIFESTS / name).read_text()) if doc is not None]


def label_path(where: str, key: str) -> str:
    return f'{where}["{key}"]'


def without_label(document: dict[str, Any], where: str, key: str) -> dict[str, Any]:
    """``document`` without label ``key`` at ``where``, and without the maps that held only it."""
    document = copy.deepcopy(document)
    parts = where.split(".")
    chain_of = [document]
    for part in parts:
        chain_of.append(chain_of[-1][part])
    del chain_of[-1][key]
    for index in range(len(parts), 0, -1):
        if chain_of[index]:
            break
        del chain_of[index - 1][parts[index - 1]]
    return document


def unqueued(name: str) -> list[Any]:
    """The documents of manifest ``name``, the queue label taken out where a sample has it."""
    documents = documents_of(name)
    first = documents[0]
    if QUEUE in first.get("metadata", {}).get("labels", {}):
        documents[0] = without_label(first, "metadata.labels", QUEUE)
    return documents


def podfold(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return warm.run("podfold", [*args], input=stdin, cwd=REPO, timeout=120)


# ---------------------------------------------------------------- where the label lands


@pytest.mark.parametrize(("name", "where"), WHERE_KUEUE_READS)
def test_the_queue_lands_where_kueue_reads_it(name: str, where: str) -> None:
    documents = unqueued(name)
    before = copy.deepcopy(documents)
    overlay = recipes.kueue_queue("team-a", priority_class="high")
    [first, *rest] = apply_to_documents(overlay, documents)
    assert get_at(first, label_path(where, QUEUE)) == "team-a"
    assert get_at(first, label_path(where, PRIORITY)) == "high"
    # nothing else changed: taken out again, the labels leave the document as it was
    assert without_label(without_label(first, where, QUEUE), where, PRIORITY) == documents[0]
    # and a workload's pod templates are not touched (a Pod is its own workload)
    for template in pod_templates(documents[0]):
        if template.workload_metadata is not None:
            assert get_at(first, template.path) is get_at(documents[0], template.path)
    assert all(new is old for new, old in zip(rest, documents[1:], strict=True))
    assert documents == before


@pytest.mark.parametrize(
    "name",
    [
        "kueue/sample-jobset.yaml",
        "kueue/kueue-pod.yaml",
        "appwrapper/wrapped-pytorch-job.yaml",
        "appwrapper/wrapped-deployment.yaml",
    ],
)
def test_kueue_s_own_samples_come_back_as_published(name: str) -> None:
    # the samples of Kueue and AppWrapper carry the queue label where Kueue reads it
    [sample] = documents_of(name)
    queue = get_at(sample, label_path("metadata.labels", QUEUE))
    bare = without_label(sample, "metadata.labels", QUEUE)
    assert apply_to_workload(recipes.kueue_queue(queue), bare) == sample


def test_an_appwrapper_s_wrapped_workload_gets_no_label() -> None:
    [wrapper] = documents_of("appwrapper/wrapped-pytorch-job.yaml")
    done = apply_to_workload(recipes.kueue_queue("q"), wrapper)
    wrapped = done["spec"]["components"][0]["template"]
    assert wrapped is wrapper["spec"]["components"][0]["template"]
    assert QUEUE not in str(wrapped)


def test_each_item_of_a_list_is_a_workload_of_its_own() -> None:
    [listed] = documents_of("kubernetes/list.yaml")
    done = apply_to_workload(recipes.kueue_queue("q"), listed)
    workloads = [index for index, item in enumerate(listed["items"]) if pod_templates(item)]
    assert workloads  # the file has some
    for index, item in enumerate(done["items"]):
        if index in workloads and item["kind"] != "Pod":
            assert item["metadata"]["labels"][QUEUE] == "q"
            for template in pod_templates(item):
                assert QUEUE not in str(get_at(item, template.path))
        else:
            assert item is listed["items"][index] or item["kind"] == "Pod"


def test_a_client_job_gets_the_label_on_its_own_metadata() -> None:
    job = V1Job(
        api_version="batch/v1",
        kind="Job",
        metadata=V1ObjectMeta(name="pi"),
        spec=V1JobSpec(
            template=V1PodTemplateSpec(
                metadata=V1ObjectMeta(labels={"app": "pi"}), spec=V1PodSpec(containers=[])
            )
        ),
    )
    done = apply_to_workload(recipes.kueue_queue("q"), job)
    assert isinstance(done, V1Job)
    assert done.metadata.labels == {QUEUE: "q"}
    assert done.spec.template.metadata.labels == {"app": "pi"}


def test_straight_on_a_pod_it_acts_on_the_pod() -> None:
    # TorchX's pods, Flyte's pod template: the pod is the workload
    pod: dict[str, Any] = {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": []}}
    assert recipes.kueue_queue("q")(pod)["metadata"]["labels"] == {"app": "x", QUEUE: "q"}


# ---------------------------------------------------------------- with pod-level steps


def test_composed_with_pod_level_recipes_in_python() -> None:
    [job] = documents_of("kubeflow/pytorchjob-simple.yaml")
    overlay = chain(
        recipes.gpu("a100"), recipes.kueue_queue("team-a"), recipes.add_labels(team="ml")
    )
    done = apply_to_workload(overlay, job)
    assert done["metadata"]["labels"] == {QUEUE: "team-a"}
    pod_part = chain(recipes.gpu("a100"), recipes.add_labels(team="ml"))
    for template in pod_templates(job):
        after = get_at(done, template.path)
        assert after == pod_part(get_at(job, template.path))
        assert QUEUE not in after["metadata"]["labels"]


def test_composed_with_pod_level_steps_in_a_yaml_overlay() -> None:
    overlay = loads_overlay(
        "- {recipe: add_toleration, key: nvidia.com/gpu}\n"
        "- {recipe: kueue_queue, name: team-a, priority_class: high}\n"
        "- {op: upsert, path: metadata.labels, value: {team: ml}}\n"
    )
    [cron] = documents_of("kubernetes/cronjob.yaml")
    done = apply_to_workload(overlay, cron)
    assert done["spec"]["jobTemplate"]["metadata"] == {
        "labels": {QUEUE: "team-a", PRIORITY: "high"}
    }
    assert "labels" not in done["metadata"]
    pod = done["spec"]["jobTemplate"]["spec"]["template"]
    assert pod["metadata"] == {"labels": {"team": "ml"}}
    assert pod["spec"]["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists"}]


def test_on_a_pod_the_steps_apply_in_the_order_written() -> None:
    # a Pod is its own workload: no step moves ahead of another
    [pod] = documents_of("kueue/kueue-pod.yaml")
    overlay = chain(recipes.kueue_queue("first"), recipes.add_labels({QUEUE: "second"}))
    assert apply_to_workload(overlay, pod)["metadata"]["labels"][QUEUE] == "second"
    assert apply_to_workload(overlay, pod) == overlay(pod)


# ---------------------------------------------------------------- purity and no-ops


@pytest.mark.parametrize(("name", "where"), WHERE_KUEUE_READS)
def test_a_second_apply_returns_the_very_same_documents(name: str, where: str) -> None:
    overlay = chain(recipes.kueue_queue("team-a"), recipes.add_env(NCCL_DEBUG="INFO"))
    once = apply_to_documents(overlay, documents_of(name))
    twice = apply_to_documents(overlay, once)
    assert all(again is first for again, first in zip(twice, once, strict=True))


def test_an_unselected_workload_is_the_very_same_object() -> None:
    [job] = documents_of("kubeflow/pytorchjob-simple.yaml")
    picked = Selector.parse("name=someone-else")
    assert apply_to_workload(recipes.kueue_queue("q"), job, select=picked) is job


def test_a_workload_is_queued_where_any_of_its_templates_is_selected() -> None:
    [job] = documents_of("kubeflow/pytorchjob-simple.yaml")
    overlay = chain(recipes.kueue_queue("q"), upsert("spec.nodeSelector", {"gpu": "a100"}))
    done = apply_to_workload(overlay, job, select=Selector.parse("role=Worker"))
    assert done["metadata"]["labels"] == {QUEUE: "q"}
    specs = done["spec"]["pytorchReplicaSpecs"]
    assert specs["Worker"]["template"]["spec"]["nodeSelector"] == {"gpu": "a100"}
    assert specs["Master"] is job["spec"]["pytorchReplicaSpecs"]["Master"]


# ---------------------------------------------------------------- refusals


def test_a_raycronjob_keeps_no_metadata_for_its_rayjobs() -> None:
    cron = documents_of("kuberay/ray-cronjob.sample.yaml")[0]
    with pytest.raises(NoWorkloadMetadataError) as caught:
        apply_to_workload(recipes.kueue_queue("q"), cron)
    assert isinstance(caught.value, LookupError)
    assert (caught.value.kind, caught.value.name) == ("RayCronJob", "raycronjob-sample")
    assert "kueue_queue('q')" in str(caught.value)
    # pod-level steps still reach its pods
    assert apply_to_workload(recipes.add_env(A="1"), cron) != cron


def test_a_workload_level_step_changes_only_metadata() -> None:
    [job] = documents_of("kubernetes/job.yaml")
    with pytest.raises(WorkloadMetadataError) as caught:
        apply_to_workload(workload_level(replace_at("spec.suspend", True)), job)
    assert caught.value.keys == ("spec",)
    assert "Job/pi metadata (metadata)" in str(caught.value)


def test_an_error_in_a_workload_level_step_names_the_workload_metadata() -> None:
    [cron] = documents_of("kubernetes/cronjob.yaml")
    step = workload_level(remove_at("metadata.labels.team", missing_ok=False))
    with pytest.raises(PathError) as caught:
        apply_to_workload(step, cron)
    assert "CronJob/hello metadata (spec.jobTemplate.metadata)" in str(caught.value)


@dataclass(frozen=True)
class NotOn:
    """A workload-level recipe's requirement: a workload of any kind but ``kind``."""

    kind: str

    def __call__(self, pod: Any) -> None:
        """A pod is its own workload: nothing to check."""

    def check_workload(self, kind: str, api_version: str | None) -> None:
        if kind == self.kind:
            raise UnsupportedWorkloadError(
                f"not on a {kind} ({api_version})", kind=kind, api_version=api_version, supported=()
            )


@recipe
def team_of_workload(team: str) -> Requiring:
    """Label the workload object with its team, except a Deployment."""
    return Requiring(
        workload_level(replace_at("metadata.labels.team", team)), (NotOn("Deployment"),)
    )


def test_a_workload_level_recipe_s_check_is_asked_about_each_workload() -> None:
    # the check refuses, naming where; what it does not refuse is labelled, and a pod is not asked
    [job] = documents_of("kubernetes/job.yaml")
    overlay = chain(recipes.add_env(A="1"), team_of_workload("ml"))
    assert workload_checks(overlay) == (NotOn("Deployment"),)
    assert apply_to_workload(overlay, job)["metadata"]["labels"] == {"team": "ml"}
    [listed] = documents_of("kubernetes/list.yaml")
    with pytest.raises(UnsupportedWorkloadError) as caught:
        apply_to_workload(overlay, listed)
    assert (caught.value.kind, caught.value.api_version) == ("Deployment", "apps/v1")
    assert str(caught.value) == (
        "not on a Deployment (apps/v1) [in Deployment/"
        "list-deployment-test metadata (items[1].metadata)]"
    )
    [pod] = documents_of("kueue/kueue-pod.yaml")
    assert apply_to_workload(overlay, pod)["metadata"]["labels"]["team"] == "ml"
    # a step that is no such recipe requires nothing
    assert (
        workload_checks(
            chain(workload_level(replace_at("metadata.labels.a", "b")), recipes.add_env(A="1"))
        )
        == ()
    )


# ---------------------------------------------------------------- finding the steps


def test_split_levels_walks_compositions_and_recipe_bodies() -> None:
    queue = recipes.kueue_queue("q")
    toleration = recipes.add_toleration("gpu")
    assert split_levels(queue) == ((queue,), pod_level(queue))
    assert is_workload_level(queue) and not is_workload_level(toleration)
    found, rest = split_levels(chain(toleration, chain(queue, recipes.shm_size("1Gi"))))
    assert found == (queue,)
    assert rest == chain(toleration, recipes.shm_size("1Gi"))
    # nothing workload-level: the very same overlay
    plain = chain(toleration, recipes.shm_size("1Gi"))
    assert split_levels(plain)[1] is plain


def test_workload_level_refuses_what_is_no_transform() -> None:
    with pytest.raises(TransformError, match="workload_level"):
        workload_level("metadata.labels")  # type: ignore[arg-type]


# ---------------------------------------------------------------- the command line


@pytest.mark.parametrize(("name", "where"), WHERE_KUEUE_READS)
def test_podfold_apply_puts_the_queue_where_kueue_reads_it(
    tmp_path: Path, name: str, where: str
) -> None:
    overlay = tmp_path / "queue.yaml"
    overlay.write_text(
        "- {recipe: kueue_queue, name: team-a}\n- {recipe: add_env, NCCL_DEBUG: INFO}\n"
    )
    result = podfold("apply", "-f", str(overlay), str(MANIFESTS / name))
    assert result.returncode == 0, result.stderr
    [first, *_] = [doc for doc in yaml.safe_load_all(result.stdout) if doc is not None]
    assert get_at(first, label_path(where, QUEUE)) == "team-a"
    assert first == apply_to_documents(loads_overlay(overlay.read_text()), documents_of(name))[0]


def test_podfold_explain_blame_says_the_queue_is_set_on_the_workload_object(tmp_path: Path) -> None:
    overlay = tmp_path / "queue.yaml"
    overlay.write_text("- {recipe: kueue_queue, name: team-a}\n")
    result = podfold(
        "explain",
        "--blame",
        "--color",
        "never",
        "-f",
        str(overlay),
        str(MANIFESTS / "kubernetes" / "job.yaml"),
    )
    assert (result.returncode, result.stderr) == (0, "")
    lines = result.stdout.splitlines()
    blame = lines[lines.index("# blame:") + 1 : -1]
    assert blame == [
        f"#   metadata.labels  <- {overlay}:1: step 1: recipe kueue_queue('team-a') "
        f"> its step 1 of 1: on the workload object: replace "
        f'metadata.labels["{QUEUE}"] with team-a'
    ]
    assert "workload_level(" not in result.stdout


# ---------------------------------------------------------------- against kubectl


@needs_kubectl
@pytest.mark.parametrize(
    ("name", "where"),
    [(name, where) for name, where in WHERE_KUEUE_READS if where == "metadata.labels"],
)
def test_the_label_is_where_kubectl_label_puts_it_on_the_workload(
    tmp_path: Path, name: str, where: str
) -> None:
    # kubectl label sets a label on the object itself: where Kueue reads it
    workload = unqueued(name)[0]
    manifest = tmp_path / "workload.json"
    manifest.write_text(json.dumps(workload))
    done = run_kubectl(
        "label", "--local", "-f", str(manifest), f"{QUEUE}=team-a", "-o", "json", check=True
    )
    assert apply_to_workload(recipes.kueue_queue("team-a"), workload) == json.loads(done.stdout)


# ---------------------------------------------------------------- laws


def _outcome(function: Any, value: Any) -> Any:
    try:
        return function(value)
    except TransformError as err:
        return type(err)


@settings(
    max_examples=settings.default.max_examples * 6 // 5,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    overlay=strategies.transforms(max_steps=3),
    pod=strategies.pods(),
    queue=st.sampled_from(["team-a", "batch"]),
)
def test_law_workload_steps_write_the_workload_pod_steps_each_template(
    overlay: Any, pod: Any, queue: str
) -> None:
    # apply_to_workload(chain(t, kueue_queue(q)), job) writes t's pod-level steps into each
    # template as t writes a pod, and its workload-level ones into the job's own metadata
    template = {key: value for key, value in pod.items() if key in ("metadata", "spec")}
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j"},
        "spec": {"template": template},
    }
    combined = chain(overlay, recipes.kueue_queue(queue))
    done = _outcome(lambda document: apply_to_workload(combined, document), job)
    expected = _outcome(pod_level(combined), template)
    if isinstance(done, type) or isinstance(expected, type):
        assert done == expected
        return
    assert done["spec"]["template"] == expected
    workload_part = chain(*split_levels(combined)[0])
    assert {"metadata": done["metadata"]} == workload_part({"metadata": job["metadata"]})
    assert done["metadata"]["labels"][QUEUE] == queue


@settings(
    max_examples=settings.default.max_examples * 6 // 5,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    overlay=strategies.transforms(max_steps=3),
    pod=strategies.pods(),
    queue=st.sampled_from(["team-a", "batch"]),
)
def test_law_on_a_pod_the_overlay_is_applied_as_written(overlay: Any, pod: Any, queue: str) -> None:
    # apply_to_workload(o, pod) == o(pod): a Pod is its own workload, its steps keep their order
    document = {"apiVersion": "v1", "kind": "Pod", **pod}
    combined = chain(recipes.kueue_queue(queue), overlay)
    assert _outcome(lambda doc: apply_to_workload(combined, doc), document) == _outcome(
        combined, document
    )
