"""The workload API: the kind table, selection, application, client objects, and the guard."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from kubernetes.client import (
    V1Container,
    V1Deployment,
    V1DeploymentSpec,
    V1LabelSelector,
    V1ObjectMeta,
    V1Pod,
    V1PodSpec,
    V1PodTemplateSpec,
)

import recipes
from combinators import ArgumentError, PathError, TransformError, compose, upsert
from transforms.kube import (
    ClientDictError,
    PodTemplate,
    Selector,
    WorkloadKindError,
    apply_to_documents,
    apply_to_workload,
    check_pod_document,
    on_workloads,
    pod_templates,
)

GPU = recipes.gpu("a100")


def deployment(name: str = "web") -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name, "team": "ml"}},
                "spec": {"containers": [{"name": "nginx", "image": "n"}]},
            },
        },
    }


def ray_cluster() -> dict[str, Any]:
    def group(name: str) -> dict[str, Any]:
        return {
            "groupName": name,
            "template": {"spec": {"containers": [{"name": "ray-worker", "image": "ray"}]}},
        }

    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "rc"},
        "spec": {
            "headGroupSpec": {
                "template": {"spec": {"containers": [{"name": "ray-head", "image": "ray"}]}}
            },
            "workerGroupSpecs": [group("cpu"), group("gpu")],
        },
    }


# --- the guard ---------------------------------------------------------------


def test_a_recipe_refuses_a_deployment_naming_the_kind_and_the_workload_api() -> None:
    document = deployment()
    with pytest.raises(WorkloadKindError) as caught:
        GPU(document)
    message = str(caught.value)
    assert "Deployment" in message and "'web'" in message
    assert "transforms.kube.apply_to_workload" in message and "podfold apply" in message
    assert caught.value.kind == "Deployment" and caught.value.name == "web"
    assert isinstance(caught.value, TypeError) and isinstance(caught.value, TransformError)
    assert document == deployment()


def test_a_recipe_in_a_composition_refuses_too() -> None:
    # compose applies right to left: add_labels first, and it refuses
    with pytest.raises(
        WorkloadKindError,
        match=r"^add_labels: .* Deployment .*"
        r"\[in step 1 of 2: add_labels",
    ):
        compose(GPU, recipes.add_labels(team="ml"))(deployment())


def test_a_client_to_dict_is_refused_naming_to_data() -> None:
    pod = V1Pod(spec=V1PodSpec(containers=[V1Container(name="c", image="i")]))
    for value in (pod.to_dict(), pod.spec.to_dict(), V1PodTemplateSpec(spec=pod.spec).to_dict()):
        with pytest.raises(ClientDictError, match=r"transforms\.kube\.to_data"):
            GPU(value)


def test_pods_and_templates_pass_the_guard() -> None:
    value: Any
    for value in (
        {"kind": "Pod", "spec": {}},
        {"spec": {"containers": []}},
        {},
        {"metadata": {}, "spec": {"nodeSelector": {}}},
    ):
        check_pod_document(value, overlay="test")
    check_pod_document(V1Pod(), overlay="test")
    with pytest.raises(WorkloadKindError, match="V1Deployment"):
        check_pod_document(V1Deployment(), overlay="test")


def test_the_same_recipe_through_the_workload_api_reaches_the_pods() -> None:
    document = deployment()
    new = apply_to_workload(GPU, document)
    assert new["spec"]["template"]["spec"]["tolerations"][0]["key"] == "nvidia.com/gpu"
    assert "tolerations" not in new["spec"]
    assert new["spec"]["selector"] is document["spec"]["selector"]
    assert document == deployment()


# --- the table ---------------------------------------------------------------


def test_roles_of_a_ray_cluster() -> None:
    assert [(str(t.path), t.role) for t in pod_templates(ray_cluster())] == [
        ("spec.headGroupSpec.template", "head"),
        ("spec.workerGroupSpecs[0].template", "cpu"),
        ("spec.workerGroupSpecs[1].template", "gpu"),
    ]


def test_volcano_job_and_batch_job_share_a_kind_name() -> None:
    volcano = {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "v"},
        "spec": {
            "tasks": [
                {"name": "ps", "template": {"spec": {}}},
                {"name": "worker", "template": {"spec": {}}},
            ]
        },
    }
    batch = {"apiVersion": "batch/v1", "kind": "Job", "spec": {"template": {"spec": {}}}}
    assert [(str(t.path), t.role) for t in pod_templates(volcano)] == [
        ("spec.tasks[0].template", "ps"),
        ("spec.tasks[1].template", "worker"),
    ]
    assert [str(t.path) for t in pod_templates(batch)] == ["spec.template"]


def test_documents_without_pods_pass_through_untouched() -> None:
    document: Any
    for document in (
        {"apiVersion": "v1", "kind": "Service", "spec": {"template": {}}},
        {"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "b"}},
        {"apiVersion": "example.com/v1", "kind": "Unknown", "spec": {}},
        {"spec": {"containers": []}},
    ):
        assert apply_to_workload(GPU, document) is document
        assert pod_templates(document) == ()


def test_an_unchanged_workload_is_the_same_object() -> None:
    document = deployment()
    assert apply_to_workload(upsert("metadata.labels", {"team": "ml"}), document) is document


def test_key_order_is_kept() -> None:
    document = ray_cluster()
    new = apply_to_workload(upsert("spec.hostIPC", False), document)
    assert list(new) == list(document)
    assert list(new["spec"]) == list(document["spec"])
    assert list(new["spec"]["workerGroupSpecs"][1]) == ["groupName", "template"]


def test_a_list_is_one_document_with_its_items_overlaid() -> None:
    documents = [
        {
            "apiVersion": "v1",
            "kind": "List",
            "items": [
                {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}},
                deployment(),
            ],
        }
    ]
    [out] = apply_to_documents(GPU, documents)
    assert out["kind"] == "List" and out["items"][0] is documents[0]["items"][0]
    assert "nodeSelector" in out["items"][1]["spec"]["template"]["spec"]
    [template] = pod_templates(documents[0])
    assert (str(template.path), template.kind, template.name) == (
        "items[1].spec.template",
        "Deployment",
        "web",
    )


# --- selection ---------------------------------------------------------------


def test_selecting_a_worker_group_by_role() -> None:
    document = ray_cluster()
    new = apply_to_workload(GPU, document, select=Selector.parse("role=gpu"))
    groups = new["spec"]["workerGroupSpecs"]
    assert "nodeSelector" in groups[1]["template"]["spec"]
    assert groups[0] is document["spec"]["workerGroupSpecs"][0]
    assert new["spec"]["headGroupSpec"] is document["spec"]["headGroupSpec"]


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("", 3),
        ("kind=RayCluster", 3),
        ("kind=raycluster", 3),
        ("name=rc", 3),
        ("name=other", 0),
        ("role=head,role=cpu", 2),
        ("kind=Deployment", 0),
        ("label:team=ml", 0),
    ],
)
def test_selector_matches(text: str, count: int) -> None:
    select = Selector.parse(text)
    assert sum(select.matches(t) for t in pod_templates(ray_cluster())) == count


def test_selector_by_label() -> None:
    [template] = pod_templates(deployment())
    assert Selector.parse("label:team=ml,label:app=web").matches(template)
    assert not Selector.parse("label:team=ops").matches(template)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("rol=Worker", "is not kind=..., name=..., role=... or label:KEY=VALUE"),
        ("role=", "is not kind="),
        ("kind=PytorchJobs", "did you mean PyTorchJob"),
    ],
)
def test_bad_selectors_are_argument_errors(text: str, message: str) -> None:
    with pytest.raises(ArgumentError, match=message) as caught:
        Selector.parse(text)
    assert caught.value.factory == "Selector.parse"


def test_selector_values_are_normalised() -> None:
    # a single string and a map of labels are taken too, at run time
    lenient: Any = {"kinds": "deployment", "labels": {"team": "ml"}}
    assert Selector(**lenient) == Selector(kinds=("Deployment",), labels=(("team", "ml"),))
    assert not Selector() and Selector(roles=("Worker",))


# --- transforms as values, errors, client objects ----------------------------


def test_on_workloads_is_a_value() -> None:
    select = Selector.parse("role=Worker")
    assert on_workloads(GPU, select) == on_workloads(GPU, Selector(roles=("Worker",)))
    assert hash(on_workloads(GPU)) == hash(on_workloads(GPU))
    assert repr(on_workloads(GPU, select)) == (
        "on_workloads(gpu('a100'), select=Selector(roles=('Worker',)))"
    )
    both = compose(on_workloads(recipes.add_labels(team="ml")), on_workloads(GPU))
    new = both(deployment())
    assert new["spec"]["template"]["metadata"]["labels"]["team"] == "ml"


def test_an_error_names_the_workload_role_and_path() -> None:
    broken = upsert("spec.containers[name=trainer].image", "x")
    with pytest.raises(PathError) as caught:
        apply_to_workload(compose(broken), ray_cluster())
    assert "RayCluster/rc template head (spec.headGroupSpec.template)" in str(caught.value)
    with pytest.raises(PathError, match=r"document 2 > RayCluster/rc template head"):
        apply_to_documents(broken, [{"apiVersion": "v1", "kind": "Service"}, ray_cluster()])


def test_a_client_deployment_comes_back_as_a_client_deployment() -> None:
    spec = V1PodSpec(containers=[V1Container(name="nginx", image="nginx")])
    obj = V1Deployment(
        api_version="apps/v1",
        kind="Deployment",
        metadata=V1ObjectMeta(name="web"),
        spec=V1DeploymentSpec(
            selector=V1LabelSelector(match_labels={"a": "b"}), template=V1PodTemplateSpec(spec=spec)
        ),
    )
    before = copy.deepcopy(obj)
    new = apply_to_workload(GPU, obj)
    assert isinstance(new, V1Deployment) and obj == before
    assert new.spec.template.spec.node_selector == {
        "cloud.google.com/gke-accelerator": "nvidia-tesla-a100"
    }
    assert (
        apply_to_workload(upsert("spec.containers", []), obj, select=Selector.parse("role=Worker"))
        is obj
    )


def test_a_client_pod_without_kind_is_its_own_template() -> None:
    pod = V1Pod(
        metadata=V1ObjectMeta(name="p"),
        spec=V1PodSpec(containers=[V1Container(name="c", image="i")]),
    )
    new = apply_to_workload(GPU, pod)
    assert isinstance(new, V1Pod) and new.kind is None
    assert new.spec.tolerations[0].key == "nvidia.com/gpu"


def test_pod_template_fields() -> None:
    [template] = pod_templates(deployment())
    assert isinstance(template, PodTemplate)
    assert (template.kind, template.name, template.role, template.root) == (
        "Deployment",
        "web",
        None,
        "PodTemplateSpec",
    )
    assert dict(template.labels) == {"app": "web", "team": "ml"}
    assert template.workloads == (("Deployment", "web"),)
    assert hash(template) == hash(pod_templates(deployment())[0])


@pytest.mark.parametrize(
    "step", [upsert("", 1), upsert("", None)], ids=["upsert-empty-path", "upsert-null"]
)
@pytest.mark.parametrize("kind", ["Pod", "Deployment"])
def test_an_overlay_that_leaves_no_pod_is_refused(step: Any, kind: str) -> None:
    from combinators import TypeClashError
    from transforms.forms.patches import json_patch, merge_patch

    pod = {"metadata": {"name": "web"}, "spec": {"containers": [{"name": "web", "image": "x"}]}}
    document = (
        {"apiVersion": "v1", "kind": "Pod", **pod}
        if kind == "Pod"
        else {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web"},
            "spec": {"template": pod},
        }
    )
    before = copy.deepcopy(document)
    where = (
        "the top level, where a pod (a map)"
        if kind == "Pod"
        else "spec.template, where a pod template (a map)"
    )
    for overlay in (
        step,
        merge_patch(None),
        json_patch([{"op": "replace", "path": "", "value": 7}]),
    ):
        with pytest.raises(TransformError) as caught:
            apply_to_workload(overlay, document)
        assert f"at {where} was" in str(caught.value)
        assert document == before
    with pytest.raises(TypeClashError, match=re.escape(f"the overlay left null at {where} was")):
        apply_to_workload(merge_patch(None), document)
    # a plain function is held to it where podfold calls it
    with pytest.raises(
        TransformError,
        match=r"returned a list where (the document was|it was "
        r"given) a map|the overlay left a list at",
    ):
        apply_to_workload(lambda pod: [pod], document)
    assert document == before


# ---------------------------------------------------------------- pods out of reach


def test_unreached_pods_inside_an_appwrapper_and_a_list() -> None:
    from transforms.kube.workloads import unreached_pods

    workflow = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Workflow",
        "metadata": {"name": "w"},
        "spec": {
            "templates": [{"name": "a", "containerSet": {"containers": [{"image": "busybox"}]}}]
        },
    }
    wrapper = {
        "apiVersion": "workload.codeflare.dev/v1beta2",
        "kind": "AppWrapper",
        "metadata": {"name": "aw"},
        "spec": {"components": [{"template": workflow}]},
    }
    # Argo's Workflow is known; a containerSet template is not one of its places
    [found] = unreached_pods(wrapper)
    assert (found.kind, found.reason, found.places) == (
        "Workflow",
        "elsewhere",
        ("spec.components[0].template.spec.templates[0].containerSet.containers",),
    )
    [in_list] = unreached_pods({"apiVersion": "v1", "kind": "List", "items": [workflow]})
    assert in_list.places == ("items[0].spec.templates[0].containerSet.containers",)


def test_unreached_pods_is_quiet_where_nothing_is_out_of_reach() -> None:
    from transforms.kube.workloads import unreached_pods

    # a RayJob on an existing cluster has no template, and nothing pod-like
    ray_job = {
        "apiVersion": "ray.io/v1",
        "kind": "RayJob",
        "metadata": {"name": "j"},
        "spec": {"entrypoint": "python x.py", "clusterSelector": {"ray.io/cluster": "c"}},
    }
    config = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"containers": "image: x"}}
    # a list of container names is no list of containers (containers with no image are:
    # tests/test_unreached_pods.py), nor is an empty one
    names = {"kind": "Report", "spec": {"containers": ["a", "b"], "initContainers": []}}
    assert [unreached_pods(document) for document in (ray_job, config, names, [], "x")] == [()] * 5


def test_unreached_pods_walks_a_bounded_part_of_a_document() -> None:
    from transforms.kube.workloads import unreached_pods

    deep: Any = {"containers": [{"image": "busybox"}]}
    for _ in range(40):
        deep = {"inner": deep}
    assert unreached_pods({"kind": "Deep", "spec": deep}) == ()
    wide = {
        "kind": "Wide",
        "spec": {
            "items": [{"x": [1]} for _ in range(30_000)] + [{"containers": [{"image": "busybox"}]}]
        },
    }
    assert unreached_pods(wide) == ()  # the walk stops after 20,000 maps and lists
    near = {"kind": "Near", "spec": {"template": {"spec": {"containers": [{"image": "b"}]}}}}
    assert unreached_pods(near)[0].places == ("spec.template.spec.containers",)


def test_apply_to_documents_with_the_templates_found_already() -> None:
    # the command line finds each document's templates once, for the overlays and the checks
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "a"},
        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}},
    }
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}}
    documents = [job, service]
    overlay = upsert("spec.hostIPC", False)
    found = [pod_templates(document) for document in documents]
    assert apply_to_documents(overlay, documents, templates=found) == apply_to_documents(
        overlay, documents
    )
    with pytest.raises(ArgumentError, match="1 given for 2 documents"):
        apply_to_documents(overlay, documents, templates=found[:1])
