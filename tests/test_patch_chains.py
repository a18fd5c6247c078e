"""Whole-document patches chained with pod-level overlays: each applies where it belongs.

A strategic merge patch naming its kind and name (as kustomize writes one)
applies to the documents it names, as ``kubectl patch`` applies it; the
pod-level steps around it apply at each selected pod template; a
workload-level step (``kueue_queue``) on the workload's metadata. The steps
apply in the order written: a step after a patch sees what the patch wrote
(a template it added, a container), a step before it does not. The
expected documents are built from ``kubectl patch --local`` (Kubernetes'
own merge code) and the pod-level overlay applied to a plain pod.
"""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import recipes
from combinators import PathError, TransformError, chain, get_at, remove_at, replace_at
from combinators.paths import Key
from tests import warm
from transforms.forms.patches import strategic_merge
from transforms.kube import Selector, apply_to_documents, apply_to_workload, pod_templates
from transforms.kube.scopes import is_document_level, split_at_documents
from transforms.testing import strategies

from .kubectl import kubectl_patch, needs_kubectl

REPO = Path(__file__).resolve().parent.parent
MANIFESTS = REPO / "tests" / "manifests"
PODFOLD = Path(sys.executable).with_name("podfold")
QUEUE = "kueue.x-k8s.io/queue-name"

SIDECAR_PATCH = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "nginx-deployment"},
    "spec": {
        "replicas": 5,
        "template": {"spec": {"containers": [{"name": "log-shipper", "image": "fluent-bit:3"}]}},
    },
}


def documents_of(name: str) -> list[Any]:
    return [doc for doc in yaml.safe_load_all((MANIFESTS / name).read_text()) if doc is not None]


def at_each_template(overlay: Any, document: Any) -> Any:
    """``document`` with ``overlay`` applied to each of its pod templates as to a plain pod."""
    done = copy.deepcopy(document)
    for template in pod_templates(document):
        keys = [
            part.name if isinstance(part, Key) else part.index  # type: ignore[attr-defined]
            for part in template.path.parts
        ]
        holder = done
        for key in keys[:-1]:
            holder = holder[key]
        holder[keys[-1]] = overlay(get_at(document, template.path))
    return done


def kubectl(document: Any, patch: Any) -> Any:
    code, patched = kubectl_patch(document, patch, "strategic")
    assert code == 0, patched
    return patched


def podfold(*args: str) -> subprocess.CompletedProcess[str]:
    return warm.run("podfold", [*args], cwd=REPO, timeout=120)


# ---------------------------------------------------------------- the report


@needs_kubectl
def test_a_deployment_patch_then_a_pod_overlay_in_python() -> None:
    documents = [
        *documents_of("kubernetes/nginx-deployment.yaml"),
        *documents_of("kubernetes/web.yaml"),
    ]
    before = copy.deepcopy(documents)
    gpu = recipes.gpu("a100")
    out = apply_to_documents(chain(strategic_merge(SIDECAR_PATCH), gpu), documents)
    assert documents == before
    # the patch as kubectl applies it, then the gpu overlay at the template
    assert out[0] == at_each_template(gpu, kubectl(documents[0], SIDECAR_PATCH))
    assert [c["name"] for c in out[0]["spec"]["template"]["spec"]["containers"]] == [
        "log-shipper",
        "nginx",
    ]
    # a document the patch does not name: the pod-level overlay only
    assert out[1] is documents[1]  # the Service
    assert out[2] == at_each_template(gpu, documents[2])


@needs_kubectl
def test_podfold_apply_with_a_deployment_patch_and_a_gpu_overlay(tmp_path: Path) -> None:
    patch_file = tmp_path / "deployment-patch.yaml"
    patch_file.write_text(yaml.safe_dump([{"strategic": SIDECAR_PATCH}]))
    gpu_file = tmp_path / "gpu.yaml"
    gpu_file.write_text("- {recipe: gpu, type: a100}\n")
    manifest = MANIFESTS / "kubernetes" / "nginx-deployment.yaml"
    result = podfold("apply", "-f", str(patch_file), "-f", str(gpu_file), str(manifest))
    assert (result.returncode, result.stderr) == (0, "")
    [document] = documents_of("kubernetes/nginx-deployment.yaml")
    assert yaml.safe_load(result.stdout) == at_each_template(
        recipes.gpu("a100"), kubectl(document, SIDECAR_PATCH)
    )


# ---------------------------------------------------------------- the order written


def test_the_step_written_last_wins_on_the_same_field() -> None:
    [document] = documents_of("kubernetes/nginx-deployment.yaml")
    l4 = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "nginx-deployment"},
        "spec": {
            "template": {
                "spec": {"nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-l4"}}
            }
        },
    }
    patch, gpu = strategic_merge(l4), recipes.gpu("a100")
    selector = "spec.template.spec.nodeSelector"

    def accelerator(overlay: Any) -> str:
        done = apply_to_workload(overlay, document)
        value: str = get_at(done, selector)["cloud.google.com/gke-accelerator"]
        return value

    assert accelerator(chain(patch, gpu)) == "nvidia-tesla-a100"
    assert accelerator(chain(gpu, patch)) == "nvidia-l4"
    # the toleration gpu adds is kept either way: the patch leaves it alone
    pod: dict[str, Any] = {"spec": {}}
    assert (
        get_at(apply_to_workload(chain(gpu, patch), document), "spec.template.spec.tolerations")
        == gpu(pod)["spec"]["tolerations"]
    )


def test_a_template_a_patch_adds_is_reached_by_the_steps_after_it_only() -> None:
    [tfjob] = documents_of("kubeflow/tfjob-simple.yaml")
    chief = strategic_merge(
        {
            "apiVersion": "kubeflow.org/v1",
            "kind": "TFJob",
            "metadata": {"name": "tfjob-simple"},
            "spec": {
                "tfReplicaSpecs": {
                    "Chief": {
                        "replicas": 1,
                        "template": {
                            "spec": {
                                "containers": [
                                    {"name": "tensorflow", "image": "kubeflow/tf-mnist:latest"}
                                ]
                            }
                        },
                    }
                }
            },
        }
    )
    env = recipes.add_env(NCCL_DEBUG="INFO")
    after = apply_to_workload(chain(chief, env), tfjob)["spec"]["tfReplicaSpecs"]
    before = apply_to_workload(chain(env, chief), tfjob)["spec"]["tfReplicaSpecs"]
    for specs in (after, before):
        assert sorted(specs) == ["Chief", "Worker"]
        assert specs["Worker"]["template"] == env(
            tfjob["spec"]["tfReplicaSpecs"]["Worker"]["template"]
        )
    assert "env" in after["Chief"]["template"]["spec"]["containers"][0]
    assert "env" not in before["Chief"]["template"]["spec"]["containers"][0]


def test_a_queue_and_a_patch_setting_the_same_label() -> None:
    [job] = documents_of("kubernetes/job.yaml")
    patch = strategic_merge(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "pi", "labels": {QUEUE: "from-the-patch"}},
        }
    )
    queue = recipes.kueue_queue("team-a")
    assert apply_to_workload(chain(patch, queue), job)["metadata"]["labels"][QUEUE] == "team-a"
    assert (
        apply_to_workload(chain(queue, patch), job)["metadata"]["labels"][QUEUE] == "from-the-patch"
    )
    # and neither is written into the pod template
    done = apply_to_workload(chain(queue, patch, recipes.add_env(A="1")), job)
    assert "metadata" not in done["spec"]["template"]


def test_several_patches_and_overlays_apply_in_turn() -> None:
    [document] = documents_of("kubernetes/nginx-deployment.yaml")
    replicas = strategic_merge(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "nginx-deployment"},
            "spec": {"replicas": 1},
        }
    )
    image = replace_at("spec.containers[name=nginx].image", "nginx:1.27")
    overlay = chain(strategic_merge(SIDECAR_PATCH), image, replicas, recipes.gpu("a100"))
    done = apply_to_workload(overlay, document)
    one_by_one = document
    for step in overlay.steps:  # type: ignore[attr-defined]
        one_by_one = apply_to_workload(step, one_by_one)
    assert done == one_by_one
    assert done["spec"]["replicas"] == 1
    assert [c["image"] for c in done["spec"]["template"]["spec"]["containers"]] == [
        "fluent-bit:3",
        "nginx:1.27",
    ]


# ---------------------------------------------------------------- where the patch belongs


def test_a_pod_in_the_stream_gets_the_overlay_and_not_the_patch() -> None:
    documents = [
        *documents_of("kueue/kueue-pod.yaml"),
        *documents_of("kubernetes/nginx-deployment.yaml"),
    ]
    env = recipes.add_env(NCCL_DEBUG="INFO")
    out = apply_to_documents(chain(strategic_merge(SIDECAR_PATCH), env), documents)
    assert out[0] == env(documents[0])
    assert out[1]["spec"]["replicas"] == 5


@needs_kubectl
def test_a_patch_reaches_its_deployment_inside_a_list() -> None:
    # kubectl reads a List as its items: the patch is for the Deployment there
    [items] = documents_of("kubernetes/list.yaml")
    patch = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "list-deployment-test"},
        "spec": {"template": {"spec": {"containers": [{"name": "log", "image": "l:1"}]}}},
    }
    env = recipes.add_env(NCCL_DEBUG="INFO")
    [done] = apply_to_documents(chain(strategic_merge(patch), env), [items])
    assert done["items"][0] is items["items"][0]  # the Service
    assert done["items"][1] == at_each_template(env, kubectl(items["items"][1], patch))
    # alone, too
    [alone] = apply_to_documents(strategic_merge(patch), [items])
    assert alone["items"][1] == kubectl(items["items"][1], patch)


def test_the_selection_is_made_on_the_documents_as_given() -> None:
    # a patch that relabels the template does not change which templates the later steps reach
    documents = [
        *documents_of("kubernetes/nginx-deployment.yaml"),
        *documents_of("kubernetes/web.yaml"),
    ]
    relabel = strategic_merge(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "nginx-deployment"},
            "spec": {"template": {"metadata": {"labels": {"app.kubernetes.io/name": "web"}}}},
        }
    )
    env = recipes.add_env(NCCL_DEBUG="INFO")
    picked = Selector.parse("label:app.kubernetes.io/name=nginx")
    out = apply_to_documents(chain(relabel, env), documents, select=picked)
    template = out[0]["spec"]["template"]
    assert template["metadata"]["labels"] == {"app.kubernetes.io/name": "web"}
    assert template["spec"]["containers"][0]["env"] == [{"name": "NCCL_DEBUG", "value": "INFO"}]
    assert out[2] is documents[2]  # the StatefulSet's template is labelled app: nginx
    # a workload none of whose templates is selected gets neither
    [document] = documents_of("kubernetes/nginx-deployment.yaml")
    assert (
        apply_to_workload(chain(relabel, env), document, select=Selector.parse("name=web"))
        is document
    )


# ---------------------------------------------------------------- values and errors


def test_applied_again_the_very_same_documents() -> None:
    documents = [
        *documents_of("kubernetes/nginx-deployment.yaml"),
        *documents_of("kubernetes/list.yaml"),
    ]
    overlay = chain(
        strategic_merge(SIDECAR_PATCH), recipes.gpu("a100"), recipes.kueue_queue("team-a")
    )
    once = apply_to_documents(overlay, documents)
    twice = apply_to_documents(overlay, once)
    assert all(again is first for again, first in zip(twice, once, strict=True))


def test_an_error_after_the_patch_names_the_template() -> None:
    [document] = documents_of("kubernetes/nginx-deployment.yaml")
    overlay = chain(
        strategic_merge(SIDECAR_PATCH), remove_at("spec.containers[name=nginxx]", missing_ok=False)
    )
    with pytest.raises(PathError) as caught:
        apply_to_workload(overlay, document)
    assert "Deployment/nginx-deployment template (spec.template)" in str(caught.value)
    assert caught.value.near_misses == ("nginx",)


def test_split_at_documents_cuts_compositions_in_order() -> None:
    patch, gpu, env = strategic_merge(SIDECAR_PATCH), recipes.gpu("a100"), recipes.add_env(A="1")
    assert is_document_level(patch) and not is_document_level(gpu)
    assert not is_document_level(strategic_merge({"spec": {"hostIPC": True}}))
    assert split_at_documents(chain(gpu, chain(env, patch), gpu)) == (chain(gpu, env), patch, gpu)
    plain = chain(gpu, env)
    assert split_at_documents(plain)[0] is plain and len(split_at_documents(plain)) == 1


def test_in_a_list_the_selector_picks_the_items_a_patch_reaches() -> None:
    [items] = documents_of("kubernetes/list.yaml")
    patch = strategic_merge(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "list-deployment-test"},
            "spec": {"replicas": 3},
        }
    )
    [picked] = apply_to_documents(
        patch, [items], select=Selector.parse("name=list-deployment-test")
    )
    assert picked["items"][1]["spec"]["replicas"] == 3
    assert picked["items"][0] is items["items"][0]
    [other] = apply_to_documents(patch, [items], select=Selector.parse("name=someone-else"))
    assert other is items


def test_a_client_pod_template_gets_the_pod_level_steps_only() -> None:
    from kubernetes.client import V1Container, V1PodSpec, V1PodTemplateSpec

    template = V1PodTemplateSpec(spec=V1PodSpec(containers=[V1Container(name="nginx")]))
    overlay = chain(strategic_merge(SIDECAR_PATCH), recipes.gpu("a100"))
    done = apply_to_workload(overlay, template)
    assert isinstance(done, V1PodTemplateSpec)
    assert done.spec.node_selector == {"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"}
    assert [container.name for container in done.spec.containers] == ["nginx"]


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
    first=strategies.transforms(max_steps=2),
    then=strategies.transforms(max_steps=2),
    pod=strategies.pods(),
    replicas=st.integers(1, 4),
    sidecar=st.sampled_from(["log-shipper", "trainer", "main"]),
)
def test_law_a_chain_applies_as_its_steps_one_after_another(
    first: Any, then: Any, pod: Any, replicas: int, sidecar: str
) -> None:
    # apply_to_workload(chain(f, patch, g), d) == apply_to_workload(g, apply_to_workload(patch,
    # apply_to_workload(f, d))): each step where it acts, in the order written
    template = {key: value for key, value in pod.items() if key in ("metadata", "spec")}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"template": template},
    }
    patch = strategic_merge(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web"},
            "spec": {
                "replicas": replicas,
                "template": {"spec": {"containers": [{"name": sidecar, "image": "busybox"}]}},
            },
        }
    )
    before = copy.deepcopy(deployment)
    at_once = _outcome(lambda doc: apply_to_workload(chain(first, patch, then), doc), deployment)
    in_turn = _outcome(
        lambda doc: apply_to_workload(
            then, apply_to_workload(patch, apply_to_workload(first, doc))
        ),
        deployment,
    )
    assert at_once == in_turn
    assert deployment == before
