"""Facts of the workload kinds that an overlay depends on, checked on upstream manifests.

Kueue reads ``kueue.x-k8s.io/queue-name`` only on the workloads its job
integrations manage (kubernetes-sigs/kueue, ``pkg/controller/jobs``: batch
Job, JobSet, the Kubeflow jobs, MPIJob, TrainJob, Pod, Deployment,
StatefulSet, LeaderWorkerSet, AppWrapper, RayJob, RayCluster, RayService,
SparkApplication), and on a CronJob's ``jobTemplate``, whose Jobs it manages
(``site/content/en/docs/tasks/run/run_cronjobs.md``). On a DaemonSet, a
ReplicaSet, a ReplicationController or a Volcano job the label is never read
and the workload never queued, so ``kueue_queue`` refuses them, naming the
kind and what Kueue queues; a pod (TorchX's, Flyte's, ``kind: Pod``) is
queued as itself.

A LeaderWorkerSet's ``leaderWorkerTemplate.volumeClaimTemplates`` become
volumes of its leader's and its workers' pods, as a StatefulSet's
``volumeClaimTemplates`` do (kubernetes-sigs/lws,
``api/leaderworkerset/v1/leaderworkerset_types.go``), so a mount may name
one; a Volcano Job's ``volumes`` do not: Volcano mounts each in every
container itself, under a volume name it makes up (``<job>-<random>``, its
job controller's ``createJobPod``).
"""

from __future__ import annotations

import copy
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes.client import (
    V1DaemonSet,
    V1DaemonSetSpec,
    V1LabelSelector,
    V1ObjectMeta,
    V1PodSpec,
    V1PodTemplateSpec,
)

import recipes
from combinators import Key, TransformError, get_at
from combinators.paths import Path as PodPath
from tests import warm
from tests.kind_fixtures import knative_revision
from transforms.checks.validation import problems
from transforms.kube import (
    WORKLOAD_KINDS,
    Selector,
    apply_to_documents,
    apply_to_workload,
    pod_templates,
    workload_kind,
)
from transforms.kube.scopes import NoWorkloadMetadataError, UnsupportedWorkloadError
from transforms.kube.workloads import with_added_volumes

REPO = Path(__file__).resolve().parent.parent
MANIFESTS = REPO / "tests" / "manifests"
QUEUE = "kueue.x-k8s.io/queue-name"
LWS_CLAIMS = MANIFESTS / "lws" / "lws-volume-claim-templates.yaml"


def documents_of(path: Path) -> list[Any]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]


def podfold(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return warm.run("podfold", args, input=stdin)


def overlay_file(tmp_path: Path, text: str) -> Path:
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text(text)
    return overlay


# ---------------------------------------------------------------- what Kueue queues

# every kind of the table, decided from Kueue's integrations (see the module's documentation)
KUEUE_DECIDES = {
    ("Pod", None): "queued",
    ("PodTemplate", None): "queued",
    ("Deployment", None): "queued",
    ("StatefulSet", None): "queued",
    ("DaemonSet", None): "refused",
    ("ReplicaSet", None): "refused",
    ("ReplicationController", None): "refused",
    ("Job", None): "queued",
    ("CronJob", None): "queued",
    ("Job", "batch.volcano.sh"): "refused",
    ("CronJob", "batch.volcano.sh"): "refused",
    ("JobTemplate", "flow.volcano.sh"): "refused",
    ("AppWrapper", None): "queued",
    ("JobSet", None): "queued",
    ("PyTorchJob", None): "queued",
    ("TFJob", None): "queued",
    ("MPIJob", None): "queued",
    ("XGBoostJob", None): "queued",
    ("PaddleJob", None): "queued",
    ("JAXJob", None): "queued",
    ("RayCluster", None): "queued",
    ("RayJob", None): "queued",
    ("RayService", None): "queued",
    ("RayCronJob", None): "no metadata",  # its RayJobs get none of its labels
    ("LeaderWorkerSet", None): "queued",
    # Kueue queues a TrainJob, whose labels its runtimes' pods never get
    ("TrainingRuntime", "trainer.kubeflow.org"): "no metadata",
    ("ClusterTrainingRuntime", "trainer.kubeflow.org"): "no metadata",
    ("InferenceService", "serving.kserve.io"): "refused",
    ("ClusterServingRuntime", "serving.kserve.io"): "refused",
    ("ServingRuntime", "serving.kserve.io"): "refused",
    ("LLMInferenceService", "serving.kserve.io"): "refused",
    ("SparkApplication", "sparkoperator.k8s.io"): "queued",
    # upstream's example describes its pods by Spark's own fields only: no template to reach
    ("ScheduledSparkApplication", "sparkoperator.k8s.io"): "no pods",
    ("SparkConnect", "sparkoperator.k8s.io"): "refused",
    ("Service", "serving.knative.dev"): "refused",
    ("Configuration", "serving.knative.dev"): "refused",
    ("Revision", "serving.knative.dev"): "refused",
    # a Workload is Kueue's own record of a workload, queued by its spec.queueName
    ("Workload", "kueue.x-k8s.io"): "refused",
    ("ScaledJob", "keda.sh"): "refused",
    ("DaskCluster", "kubernetes.dask.org"): "refused",
    ("DaskWorkerGroup", "kubernetes.dask.org"): "refused",
    ("DaskJob", "kubernetes.dask.org"): "refused",
    ("Workflow", "argoproj.io"): "refused",
    ("WorkflowTemplate", "argoproj.io"): "refused",
    ("ClusterWorkflowTemplate", "argoproj.io"): "refused",
    ("CronWorkflow", "argoproj.io"): "refused",
    ("TaskRun", "tekton.dev"): "refused",
    # a Task and a Pipeline are what runs are made from: the runs are the workloads
    ("Task", "tekton.dev"): "no metadata",
    ("Pipeline", "tekton.dev"): "no metadata",
    # the first PipelineRun of upstream's examples names its Pipeline: no pod of its own
    ("PipelineRun", "tekton.dev"): "no pods",
}

# real manifests of the kinds Kueue does not manage, and the kind each is refused as
UNMANAGED = [
    ("kubernetes/daemonset.yaml", "DaemonSet", "apps/v1"),
    ("gke/daemon-set.yml", "DaemonSet", "apps/v1"),
    ("kubernetes/frontend.yaml", "ReplicaSet", "apps/v1"),
    ("kubernetes/replication.yaml", "ReplicationController", "v1"),
    ("volcano/job-tf-dist-mnist.yaml", "Job", "batch.volcano.sh/v1alpha1"),
    ("volcano/cronjob.yaml", "CronJob", "batch.volcano.sh/v1alpha1"),
    ("volcano/jobflow-jobtemplate.yaml", "JobTemplate", "flow.volcano.sh/v1alpha1"),
]


def first_of_each_kind() -> dict[tuple[str, str | None], tuple[Path, Any]]:
    """A real manifest's document for each kind of the table (the first, by file name)."""
    found: dict[tuple[str, str | None], tuple[Path, Any]] = {}
    for path in sorted(MANIFESTS.rglob("*.y*ml")):
        for document in documents_of(path):
            entry = workload_kind(document.get("kind"), document.get("apiVersion"))
            if entry is not None and entry.kind != "List":
                found.setdefault((entry.kind, entry.group), (path, document))
    # upstream publishes no Revision: the one Knative makes of its Configuration's template
    configuration = MANIFESTS / "knative" / "helloworld.yaml"
    found[("Revision", "serving.knative.dev")] = (
        configuration,
        knative_revision(documents_of(configuration)[0]),
    )
    return found


def queued_at(document: Any) -> PodPath:
    """Where the workload's labels are that Kueue reads: its metadata, or the pod's own."""
    template = pod_templates(document)[0]
    if template.workload_metadata is not None:
        assert template.workload_metadata.path is not None
        return template.workload_metadata.path
    return PodPath((*template.path.parts, Key("metadata")))


def outcome(document: Any) -> str:
    if not pod_templates(document):
        return "no pods"
    try:
        done = apply_to_workload(recipes.kueue_queue("team-a"), document)
    except UnsupportedWorkloadError:
        return "refused"
    except NoWorkloadMetadataError:
        return "no metadata"
    assert get_at(done, queued_at(document))["labels"][QUEUE] == "team-a"
    return "queued"


def test_every_kind_of_the_table_is_queued_or_refused_as_kueue_does() -> None:
    # a kind added to the table is decided here too
    kinds = {(entry.kind, entry.group) for entry in WORKLOAD_KINDS if entry.kind != "List"}
    assert kinds == set(KUEUE_DECIDES)
    manifests = first_of_each_kind()
    assert set(manifests) == kinds
    decided = {kind: outcome(document) for kind, (_, document) in manifests.items()}
    assert decided == KUEUE_DECIDES


@pytest.mark.parametrize(("name", "kind", "api_version"), UNMANAGED)
def test_kueue_queue_refuses_a_kind_kueue_does_not_manage(
    name: str, kind: str, api_version: str
) -> None:
    documents = documents_of(MANIFESTS / name)
    before = copy.deepcopy(documents)
    with pytest.raises(UnsupportedWorkloadError) as caught:
        apply_to_documents(recipes.kueue_queue("team-a"), documents)
    error = caught.value
    assert isinstance(error, TransformError) and isinstance(error, TypeError)
    assert (error.kind, error.api_version) == (kind, api_version)
    assert {
        "Job",
        "JobSet",
        "Deployment",
        "StatefulSet",
        "LeaderWorkerSet",
        "PyTorchJob",
        "RayJob",
        "AppWrapper",
        "Pod",
    } <= set(error.supported)
    assert kind not in error.supported or "volcano" in api_version
    message = str(error)
    assert message.startswith("kueue_queue: Kueue does not manage ")
    assert QUEUE in message and "would not be read" in message
    # where: the workload by kind and name, and its place in the stream
    name_of = documents[0]["metadata"]["name"]
    assert f"{kind}/{name_of} metadata (" in message
    assert "document 1" in message
    assert documents == before


@pytest.mark.parametrize(
    ("name", "kind"),
    [("volcano/job-tf-dist-mnist.yaml", "Job"), ("volcano/cronjob.yaml", "CronJob")],
)
def test_a_volcano_job_is_told_from_the_kinds_of_the_same_name(name: str, kind: str) -> None:
    # Kueue manages batch/v1 Job and CronJob; Volcano's are queued by Volcano
    with pytest.raises(UnsupportedWorkloadError) as caught:
        apply_to_documents(recipes.kueue_queue("team-a"), documents_of(MANIFESTS / name))
    message = str(caught.value)
    assert f"Kueue does not manage a {kind} of batch.volcano.sh" in message
    assert "spec.queue" in message


@pytest.mark.parametrize(("name", "kind", "api_version"), UNMANAGED)
def test_podfold_apply_refuses_it_in_one_line(
    tmp_path: Path, name: str, kind: str, api_version: str
) -> None:
    overlay = overlay_file(
        tmp_path, "- {recipe: add_env, NCCL_DEBUG: INFO}\n- {recipe: kueue_queue, name: team-a}\n"
    )
    result = podfold("apply", "-f", str(overlay), str(MANIFESTS / name))
    assert (result.returncode, result.stdout) == (1, "")
    [line] = result.stderr.splitlines()
    assert line.startswith(f"podfold: error: {overlay}:2: kueue_queue: Kueue does not manage ")
    assert kind in line and QUEUE in line


def test_a_selector_that_leaves_the_daemonset_out_queues_the_job() -> None:
    # the NVIDIA device plugin's DaemonSet in the stream of a training job
    [daemonset] = documents_of(MANIFESTS / "kubernetes" / "daemonset.yaml")
    [job] = documents_of(MANIFESTS / "kubernetes" / "job.yaml")
    with pytest.raises(UnsupportedWorkloadError):
        apply_to_documents(recipes.kueue_queue("team-a"), [daemonset, job])
    out = apply_to_documents(
        recipes.kueue_queue("team-a"), [daemonset, job], select=Selector(kinds=("Job",))
    )
    assert out[0] is daemonset
    assert out[1]["metadata"]["labels"] == {QUEUE: "team-a"}


def test_a_daemonset_in_a_list_is_refused_naming_the_item() -> None:
    [daemonset] = documents_of(MANIFESTS / "kubernetes" / "daemonset.yaml")
    [job] = documents_of(MANIFESTS / "kubernetes" / "job.yaml")
    listed = {"apiVersion": "v1", "kind": "List", "items": [job, daemonset]}
    with pytest.raises(UnsupportedWorkloadError) as caught:
        apply_to_workload(recipes.kueue_queue("team-a"), listed)
    assert "DaemonSet/fluentd-elasticsearch metadata (items[1].metadata)" in str(caught.value)


def test_a_client_daemonset_is_refused_too() -> None:
    # built without kind or apiVersion, as client objects often are: known by its class
    daemonset = V1DaemonSet(
        metadata=V1ObjectMeta(name="nvidia-device-plugin"),
        spec=V1DaemonSetSpec(
            selector=V1LabelSelector(match_labels={"name": "plugin"}),
            template=V1PodTemplateSpec(spec=V1PodSpec(containers=[])),
        ),
    )
    with pytest.raises(UnsupportedWorkloadError) as caught:
        apply_to_workload(recipes.kueue_queue("team-a"), daemonset)
    assert (caught.value.kind, caught.value.api_version) == ("DaemonSet", None)


def test_the_other_steps_of_an_overlay_still_reach_a_daemonset() -> None:
    # only kueue_queue is refused there: a pod-level overlay applies as before
    [daemonset] = documents_of(MANIFESTS / "gke" / "daemon-set.yml")
    done = apply_to_workload(recipes.add_env(NCCL_DEBUG="INFO"), daemonset)
    assert done["spec"]["template"]["spec"]["containers"][0]["env"] == [
        {"name": "NCCL_DEBUG", "value": "INFO"}
    ]


def test_a_plain_pod_is_queued_as_itself() -> None:
    # TorchX's pods and Flyte's pod templates are given as pods: the pod is the workload
    pod: dict[str, Any] = {
        "metadata": {"name": "trainer-0"},
        "spec": {"containers": [{"name": "trainer"}]},
    }
    assert recipes.kueue_queue("team-a")(pod)["metadata"]["labels"] == {QUEUE: "team-a"}
    [kueue_pod] = documents_of(MANIFESTS / "kueue" / "kueue-pod.yaml")
    bare = copy.deepcopy(kueue_pod)
    del bare["metadata"]["labels"][QUEUE]
    assert apply_to_documents(
        recipes.kueue_queue(kueue_pod["metadata"]["labels"][QUEUE]), [bare]
    ) == [kueue_pod]


def test_a_flyte_pod_template_is_queued() -> None:
    pytest.importorskip("flytekit")
    from transforms.flyte import pod_template

    template = pod_template(recipes.kueue_queue("team-a"))
    assert template.labels == {QUEUE: "team-a"}


def test_podfold_apply_queues_a_pod(tmp_path: Path) -> None:
    overlay = overlay_file(tmp_path, "- {recipe: kueue_queue, name: team-a}\n")
    pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n"
    result = podfold("apply", "-f", str(overlay), "-", stdin=pod)
    assert result.returncode == 0, result.stderr
    assert yaml.safe_load(result.stdout)["metadata"]["labels"] == {QUEUE: "team-a"}


# ---------------------------------------------------------------- volumes a controller adds


def volume_errors(pod: Any, template: Any) -> set[tuple[str, str | None]]:
    return {
        (problem.path, problem.rule)
        for problem in problems(with_added_volumes(pod, template), kind=template.root)
        if problem.severity == "error"
    }


def test_an_lws_claim_template_is_a_volume_of_the_leader_and_the_workers() -> None:
    [lws, _service] = documents_of(LWS_CLAIMS)
    templates = pod_templates(lws)
    assert [(template.role, template.added_volumes) for template in templates] == [
        ("leader", ("persistent-storage",)),
        ("worker", ("persistent-storage",)),
    ]
    for template in templates:
        pod = get_at(lws, template.path)
        assert volume_errors(pod, template) == set()
        added = with_added_volumes(pod, template)["spec"]["volumes"]
        assert added == [
            {
                "name": "persistent-storage",
                "persistentVolumeClaim": {"claimName": "persistent-storage"},
            }
        ]


def test_podfold_validate_takes_lws_s_claim_template_sample() -> None:
    result = podfold("validate", str(LWS_CLAIMS))
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    "overlay_text",
    [
        "- {recipe: shm_size, size: 16Gi}\n",
        "- {recipe: mount_secret, secret: hf-token, mount_path: /secrets/hf}\n",
    ],
    ids=["shm_size", "mount_secret"],
)
def test_podfold_apply_on_lws_s_claim_template_sample(tmp_path: Path, overlay_text: str) -> None:
    overlay = overlay_file(tmp_path, overlay_text)
    result = podfold("apply", "-f", str(overlay), str(LWS_CLAIMS))
    assert result.returncode == 0, result.stderr
    [lws, service] = documents_of(LWS_CLAIMS)
    [out_lws, out_service] = list(yaml.safe_load_all(result.stdout))
    assert out_service == service
    claims = lws["spec"]["leaderWorkerTemplate"]["volumeClaimTemplates"]
    assert out_lws["spec"]["leaderWorkerTemplate"]["volumeClaimTemplates"] == claims
    for template in pod_templates(out_lws):
        pod = get_at(out_lws, template.path)
        # the overlay's volume is there, and the claim's is left for the controller to add
        names = [volume["name"] for volume in pod["spec"]["volumes"]]
        assert len(names) == 1 and names != ["persistent-storage"]
        mounts = pod["spec"]["containers"][0]["volumeMounts"]
        assert mounts[0] == {"mountPath": "/mnt/volume", "name": "persistent-storage"}
        assert volume_errors(pod, template) == set()


def test_a_volcano_job_s_volumes_are_not_volumes_a_template_may_mount() -> None:
    # Volcano adds each of spec.volumes to every container under a name it makes up
    # (<job>-<random>), so a template's mount naming the claim names no volume
    job = {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "j"},
        "spec": {
            "volumes": [{"mountPath": "/data", "volumeClaimName": "data"}],
            "tasks": [
                {
                    "name": "worker",
                    "replicas": 1,
                    "template": {
                        "spec": {
                            "containers": [
                                {
                                    "name": "w",
                                    "image": "busybox",
                                    "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                                }
                            ]
                        }
                    },
                }
            ],
        },
    }
    [template] = pod_templates(job)
    assert template.added_volumes == ()
    assert volume_errors(get_at(job, template.path), template) == {
        ("spec.containers[name=w].volumeMounts[name=data].name", "volume-mounts")
    }
