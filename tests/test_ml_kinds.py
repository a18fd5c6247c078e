"""The kinds ML teams run, on their upstream projects' own manifests: Kubeflow Trainer's
runtimes, KServe, the Spark operator, Knative Serving, KEDA, Dask and Kueue's Workload.

``manifests/SOURCES.md`` says where each file comes from. For each document,
the places written here by hand from each project's API types are the pod
templates found, with their roles; a typical overlay (a toleration, a node
selector, an env var in the main container, a label) folds over the whole
stream, lands where the kind keeps each field (a KServe model-format
predictor's main container is its ``model``), leaves the kind's own fields
as they were, and adds no problem to what validation finds in the pods as
their controllers make them.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

import recipes
from combinators import chain, get_at
from tests.kind_fixtures import MANIFESTS, documents, errors, knative_revision
from transforms.kube.components import ComponentFieldError
from transforms.kube.records import KindRecordError, kind_from_record
from transforms.kube.workloads import (
    BareSpecError,
    apply_to_documents,
    pod_templates,
    with_added_volumes,
)

_JOBS = "spec.template.spec.replicatedJobs"

# file -> (document kind, template path, role) of every pod template, in document order
EXPECTED: dict[str, list[tuple[str, str, str | None]]] = {
    "trainer/torch_distributed.yaml": [
        ("ClusterTrainingRuntime", f"{_JOBS}[0].template.spec.template", "node")
    ],
    "trainer/deepspeed_distributed.yaml": [
        ("ClusterTrainingRuntime", f"{_JOBS}[0].template.spec.template", "node"),
        ("ClusterTrainingRuntime", f"{_JOBS}[1].template.spec.template", "launcher"),
    ],
    "trainer/llama3_2_1B.yaml": [
        ("ClusterTrainingRuntime", f"{_JOBS}[0].template.spec.template", "dataset-initializer"),
        ("ClusterTrainingRuntime", f"{_JOBS}[1].template.spec.template", "model-initializer"),
        ("ClusterTrainingRuntime", f"{_JOBS}[2].template.spec.template", "node"),
    ],
    "trainer/05-multi-step.yaml": [
        ("TrainingRuntime", f"{_JOBS}[0].template.spec.template", "dataset-initializer"),
        ("TrainingRuntime", f"{_JOBS}[1].template.spec.template", "node"),
    ],
    "kserve/driver_transformer_new.yaml": [
        ("InferenceService", "spec.predictor", "predictor"),
        ("InferenceService", "spec.transformer", "transformer"),
    ],
    "kserve/art.yaml": [
        ("InferenceService", "spec.predictor", "predictor"),
        ("InferenceService", "spec.explainer", "explainer"),
    ],
    "kserve/collocation.yaml": [("InferenceService", "spec.predictor", "predictor")],
    "kserve/hf_isvc.yaml": [("InferenceService", "spec.predictor", "predictor")],
    "kserve/sklearn.yaml": [("InferenceService", "spec.predictor", "predictor")],
    "kserve/kserve-huggingfaceserver-multinode.yaml": [
        ("ClusterServingRuntime", "spec", "head"),
        ("ClusterServingRuntime", "spec.workerSpec", "worker"),
    ],
    # a namespaced ServingRuntime of KServe's ModelMesh, one model server or several
    "kserve/servingruntime_custom.yaml": [("ServingRuntime", "spec", "head")],
    "kserve/non-mm-runtime.yaml": [("ServingRuntime", "spec", "head")],
    "kserve/inference_pd_disaggregation.yaml": [
        ("LLMInferenceService", "spec.template", "main"),
        ("LLMInferenceService", "spec.prefill.template", "prefill"),
    ],
    "kserve/llm-inference-service-dp-ep-deepseek-r1-pd-gpu-p-deepep-ht-d-pplx.yaml": [
        ("LLMInferenceService", "spec.template", "main"),
        ("LLMInferenceService", "spec.worker", "worker"),
        ("LLMInferenceService", "spec.prefill.template", "prefill"),
        ("LLMInferenceService", "spec.prefill.worker", "prefill-worker"),
    ],
    "spark-operator/spark-pi-pod-template.yaml": [
        ("SparkApplication", "spec.driver.template", "driver"),
        ("SparkApplication", "spec.executor.template", "executor"),
    ],
    # Spark's own fields (cores, memory, securityContext) describe these pods: none to reach
    "spark-operator/spark-pi-scheduled.yaml": [],
    "spark-operator/spark-connect.yaml": [
        ("SparkConnect", "spec.server.template", "server"),
        ("SparkConnect", "spec.executor.template", "executor"),
    ],
    "knative/hellovolume-service.yaml": [("Service", "spec.template", None)],
    "knative/multicontainer-service.yaml": [("Service", "spec.template", None)],
    "knative/configmimic-service.yaml": [("Service", "spec.template", None)],
    "knative/helloworld.yaml": [("Configuration", "spec.template", None)],
    "keda/deploy-consumer-job.yaml": [("ScaledJob", "spec.jobTargetRef.template", None)],
    "dask/simplecluster.yaml": [
        ("DaskCluster", "spec.scheduler.spec", "scheduler"),
        ("DaskCluster", "spec.worker.spec", "worker"),
    ],
    "dask/simplejob.yaml": [
        ("DaskJob", "spec.job.spec", "job"),
        ("DaskJob", "spec.cluster.spec.scheduler.spec", "scheduler"),
        ("DaskJob", "spec.cluster.spec.worker.spec", "worker"),
    ],
    "dask/simpleworkergroup.yaml": [("DaskWorkerGroup", "spec.worker.spec", "worker")],
    # a Workload's pod sets are pod templates, each its role by name (Kueue's PodSet)
    "kueue/workload.yaml": [("Workload", "spec.podSets[0].template", "main")],
    "kueue/kueue-pod.yaml": [("Pod", "", None)],
    "kueue/sample-jobset.yaml": [
        ("JobSet", "spec.replicatedJobs[0].template.spec.template", "workers"),
        ("JobSet", "spec.replicatedJobs[1].template.spec.template", "driver"),
    ],
}

# what a platform adds to every pod: Dask's bare pod specs have no place for a label
SCHEDULING = chain(
    recipes.add_toleration("nvidia.com/gpu", "Exists", None, "NoSchedule"),
    recipes.node_selector(pool="gpu"),
    recipes.add_env(TEAM="ml"),
)
OVERLAY = chain(SCHEDULING, recipes.add_labels(team="ml"))
BARE = ("DaskCluster", "DaskJob", "DaskWorkerGroup", "LLMInferenceService")


def test_every_ml_fixture_is_listed_here_and_in_the_sources() -> None:
    projects = {name.split("/")[0] for name in EXPECTED}
    on_disk = {
        str(path.relative_to(MANIFESTS))
        for project in projects
        for path in (MANIFESTS / project).iterdir()
    }
    assert on_disk == set(EXPECTED)
    sources = (MANIFESTS / "SOURCES.md").read_text()
    assert [name for name in EXPECTED if f"`{name}`" not in sources] == []


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_an_overlay_reaches_every_pod_and_the_result_validates(name: str) -> None:
    given = documents(name)
    before = copy.deepcopy(given)
    found = [(template, doc) for doc in given for template in pod_templates(doc)]
    assert [(doc["kind"], str(t.path), t.role) for t, doc in found] == EXPECTED[name]
    overlay = SCHEDULING if any(doc["kind"] in BARE for doc in given) else OVERLAY
    result = apply_to_documents(overlay, given)
    assert given == before  # the input is left as it was
    for out, doc in zip(result, given, strict=True):
        if not pod_templates(doc):
            assert out is doc
    folded = [(template, out) for out in result for template in pod_templates(out)]
    assert [(t.path, t.role) for t, _ in folded] == [(t.path, t.role) for t, _ in found]
    for (template, out), (_, doc) in zip(folded, found, strict=True):
        value, original = get_at(out, template.path), get_at(doc, template.path)
        pod = with_added_volumes(value, template)
        spec = pod if template.root == "PodSpec" else pod["spec"]
        assert spec["tolerations"][-1]["key"] == "nvidia.com/gpu", template.describe()
        assert spec["nodeSelector"]["pool"] == "gpu"
        assert {"name": "TEAM", "value": "ml"} in spec["containers"][0]["env"]
        # the overlay adds no problem (upstream's Spark example has a container's
        # securityContext fields in its pod's: those are there before and after)
        assert errors(template, value) <= errors(template, original), template.describe()
        if template.root == "PodSpec" and template.component is not None:
            # the kind's own fields are as they were (a predictor's workerSpec is a pod of its own)
            for key in template.component.own_fields:
                if key in original and key != "workerSpec":
                    assert value[key] == original[key]


def test_the_model_container_of_a_kserve_predictor_is_its_main_container() -> None:
    [service] = documents("kserve/hf_isvc.yaml")
    [new] = apply_to_documents(OVERLAY, [service])
    predictor = new["spec"]["predictor"]
    model = predictor["model"]
    # the env var went into the model, KServe's kserve-container, and no name was added
    assert model["env"] == [{"name": "TEAM", "value": "ml"}]
    assert "name" not in model and "containers" not in predictor
    assert model["modelFormat"] == {"name": "huggingface"}
    assert model["storageUri"] == service["spec"]["predictor"]["model"]["storageUri"]
    # the component's labels are the pod's
    assert predictor["labels"] == {"team": "ml"}
    assert predictor["serviceAccountName"] == "hfserviceacc"
    # a recipe names it as KServe does
    [named] = apply_to_documents(
        recipes.add_env(container="kserve-container", MODEL="llama"), [service]
    )
    assert named["spec"]["predictor"]["model"]["env"] == [{"name": "MODEL", "value": "llama"}]


def test_a_kserve_predictor_keeps_its_containers_after_the_model() -> None:
    [service] = documents("kserve/driver_transformer_new.yaml")
    templates = pod_templates(service)
    made = with_added_volumes(service["spec"]["predictor"], templates[0])
    assert [container.get("name") for container in made["containers"]] == ["kserve-container"]
    assert "modelFormat" not in made["containers"][0]
    [collocated] = documents("kserve/collocation.yaml")
    [new] = apply_to_documents(recipes.add_env(container="*", A="1"), [collocated])
    containers = new["spec"]["predictor"]["containers"]
    assert [container["name"] for container in containers] == [
        "kserve-container",
        "transformer-container",
    ]
    assert all({"name": "A", "value": "1"} in container["env"] for container in containers)


def test_what_a_kserve_component_keeps_no_place_for_is_refused_naming_it() -> None:
    import combinators

    [service] = documents("kserve/hf_isvc.yaml")
    with pytest.raises(ComponentFieldError) as caught:
        apply_to_documents(combinators.upsert("spec.minReplicas", 0), [service])
    assert caught.value.keys == ("minReplicas",) and "spec.predictor" in str(caught.value)
    with pytest.raises(ComponentFieldError) as taken:
        apply_to_documents(combinators.replace_at("spec.containers", []), [service])
    assert taken.value.keys == ("model",)
    # a serving runtime has room for a few pod fields only (ServingRuntimePodSpec)
    [runtime] = documents("kserve/kserve-huggingfaceserver-multinode.yaml")
    with pytest.raises(ComponentFieldError) as unplaced:
        apply_to_documents(recipes.priority_class("high"), [runtime])
    assert unplaced.value.keys == ("priorityClassName",)
    [new] = apply_to_documents(OVERLAY, [runtime])
    assert new["spec"]["labels"] == {"team": "ml"}
    assert new["spec"]["workerSpec"]["labels"] == {"team": "ml"}
    assert new["spec"]["supportedModelFormats"] == runtime["spec"]["supportedModelFormats"]


def test_knative_names_unnamed_containers_for_the_overlay_only() -> None:
    [service, *_] = documents("knative/hellovolume-service.yaml")
    [new, *_] = apply_to_documents(
        recipes.add_env(container="user-container", A="1"),
        documents("knative/hellovolume-service.yaml"),
    )
    [container] = new["spec"]["template"]["spec"]["containers"]
    assert "name" not in container and container["env"] == [{"name": "A", "value": "1"}]
    [multi] = documents("knative/multicontainer-service.yaml")
    [template] = pod_templates(multi)
    made = with_added_volumes(multi["spec"]["template"], template)
    assert [c["name"] for c in made["spec"]["containers"]] == [
        "user-container-0",
        "user-container-1",
    ]
    [folded, _] = apply_to_documents(OVERLAY, documents("knative/configmimic-service.yaml"))
    assert folded["spec"]["template"]["spec"]["timeoutSeconds"] == 30
    assert next(iter(folded["spec"]["template"]["spec"])) == "timeoutSeconds"  # order kept
    assert service["kind"] == "Service"


@pytest.mark.parametrize("name", sorted(name for name in EXPECTED if name.startswith("knative/")))
def test_a_knative_revision_is_its_spec_and_the_result_validates(name: str) -> None:
    # a Revision's spec is the pod spec (RevisionSpec inlines it), beside fields of its own
    made = [
        knative_revision(doc)
        for doc in documents(name)
        if doc["kind"] in ("Service", "Configuration")
    ]
    before = copy.deepcopy(made)
    found = [(template, doc) for doc in made for template in pod_templates(doc)]
    assert [(doc["kind"], str(t.path), t.role) for t, doc in found] == [
        ("Revision", "spec", None)
    ] * len(made)
    result = apply_to_documents(SCHEDULING, made)
    assert made == before
    for (template, doc), out in zip(found, result, strict=True):
        spec = out["spec"]
        assert spec["tolerations"][-1]["key"] == "nvidia.com/gpu"
        assert spec["nodeSelector"] == {"pool": "gpu"}
        assert all({"name": "TEAM", "value": "ml"} in c["env"] for c in spec["containers"][:1])
        assert errors(template, spec) <= errors(template, doc["spec"])
        for key in template.component.own_fields if template.component else ():
            assert spec.get(key) == doc["spec"].get(key)
        assert out["metadata"] == doc["metadata"]
    # Knative gives the Revision's labels to its pods: podfold does not reach them from the
    # spec, and refuses them naming where
    with pytest.raises(ComponentFieldError) as caught:
        apply_to_documents(recipes.add_labels(team="ml"), made)
    assert caught.value.keys == ("metadata.labels",) and "Revision/" in str(caught.value)


def test_the_core_service_is_not_knatives() -> None:
    core = {
        "apiVersion": "v1",
        "kind": "Service",
        "spec": {"template": {"spec": {"containers": []}}},
    }
    assert pod_templates(core) == ()


def test_a_bare_pod_spec_with_no_place_for_labels_refuses_them() -> None:
    [cluster] = documents("dask/simplecluster.yaml")
    with pytest.raises(BareSpecError):
        apply_to_documents(recipes.add_labels(team="ml"), [cluster])


@pytest.mark.parametrize(
    ("pod", "field", "message"),
    [
        (
            {"path": "a", "holds": "pod", "ownFields": ["x"]},
            "pods[0].ownFields",
            "fields of its own",
        ),
        ({"path": "a", "ownFields": []}, "pods[0].ownFields", "non-empty list"),
        ({"path": "a", "metadataFields": ["labels"]}, "pods[0].metadataFields", "holds: spec"),
        (
            {"path": "a", "holds": "spec", "container": {"at": "m", "nam": "x"}},
            "pods[0].container",
            "did you mean name?",
        ),
        (
            {"path": "a", "holds": "spec", "container": {"at": []}},
            "pods[0].container.at",
            "non-empty",
        ),
    ],
)
def test_a_component_record_is_checked(pod: dict[str, Any], field: str, message: str) -> None:
    with pytest.raises(KindRecordError) as caught:
        kind_from_record({"kind": "X", "pods": [pod]})
    assert caught.value.field == field and message in str(caught.value)


# ---------------------------------------------------------------- what a controller fills in


@pytest.mark.parametrize(
    ("name", "missing"),
    [
        (
            "knative/helloworld.yaml",
            "spec.containers[name=user-container].readinessProbe.httpGet.port",
        ),
        ("kserve/sklearn.yaml", "containers[name=kserve-container].image"),
        ("kserve/art.yaml", "containers[name=kserve-container].image"),
        ("kserve/inference_pd_disaggregation.yaml", "containers[name=main].image"),
        (
            "spark-operator/spark-pi-pod-template.yaml",
            "spec.containers[name=spark-kubernetes-driver].image",
        ),
        ("argo/init-container.yaml", "initContainers[name=hello].mirrorVolumeMounts"),
    ],
)
def test_what_the_kinds_controller_fills_in_is_no_problem(name: str, missing: str) -> None:
    from dataclasses import replace

    [(doc, template), *_] = [(doc, t) for doc in documents(name) for t in pod_templates(doc)]
    value = get_at(doc, template.path)
    assert template.filled_in and all(filled.why for filled in template.filled_in)
    unfilled = errors(replace(template, filled_in=()), value)
    assert missing in {path for path, _ in unfilled}
    assert missing not in {path for path, _ in errors(template, value)}


def test_a_value_at_a_filled_in_path_is_checked_as_ever() -> None:
    [(service, template)] = [
        (doc, found) for doc in documents("knative/helloworld.yaml") for found in pod_templates(doc)
    ]
    probe = service["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]
    probe["httpGet"]["port"] = [8080]
    found = errors(template, service["spec"]["template"])
    assert any(path.endswith("httpGet.port") for path, _ in found)
    # a KServe component's other containers are given no image
    isvc, *_ = documents("kserve/sklearn.yaml")
    predictor, *_ = pod_templates(isvc)
    isvc["spec"]["predictor"]["containers"] = [{"name": "side"}]
    found = errors(predictor, isvc["spec"]["predictor"])
    assert {path for path, _ in found} == {"containers[name=side].image"}


def test_a_declared_kind_says_what_its_controller_fills_in() -> None:
    from transforms.checks.validation import problems, without_filled_in
    from transforms.kube.table import KindRegistry

    registry = KindRegistry.of(
        [
            {
                "apiVersion": "example.com/*",
                "kind": "Server",
                "pods": [
                    {
                        "path": "spec.pod",
                        "holds": "spec",
                        "filledIn": [{"path": "containers[0].image", "why": "from spec.image"}],
                    }
                ],
            }
        ]
    )
    from transforms.kube.discovery import templates_of

    server = {
        "apiVersion": "example.com/v1",
        "kind": "Server",
        "spec": {"pod": {"containers": [{"name": "a"}]}},
    }
    [template] = templates_of(server, registry)
    spec = server["spec"]["pod"]
    assert problems(spec, kind="PodSpec") != []
    assert (
        without_filled_in(problems(spec, kind="PodSpec"), spec, template.filled_in, kind="PodSpec")
        == []
    )
    for filled, field, message in [
        ([], "pods[0].filledIn", "non-empty list"),
        ([{"path": "x"}], "pods[0].filledIn[0].why", "non-empty string"),
        ([{"path": "x", "why": "y", "wy": 1}], "pods[0].filledIn[0]", "did you mean why?"),
        ([{"path": "x[", "why": "y"}], "pods[0].filledIn[0].path", ""),
    ]:
        with pytest.raises(KindRecordError) as caught:
            kind_from_record({"kind": "X", "pods": [{"path": "a", "filledIn": filled}]})
        assert caught.value.field == field and message in str(caught.value)
