"""Strategic merge patches of workload documents, compared with ``kubectl patch --local``.

A kustomize-style patch (``kind: Deployment`` and the object's name) merges
into a Deployment, StatefulSet, Job, CronJob or DaemonSet as kubectl merges
it: the pod rules at the kind's templates (containers merge by name, env
by name, tolerations replace), maps merging elsewhere, directives working.
Each case runs podfold and kubectl on the same document and patch, and the
results must be the same document, list order included.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.kubectl import kubectl_patch, needs_kubectl
from transforms.forms.patches import strategic_merge
from transforms.kube import WorkloadKindError, apply_to_documents

MANIFESTS = Path(__file__).parent / "manifests" / "kubernetes"


def _load(name: str, kind: str) -> Any:
    return next(
        doc
        for doc in yaml.safe_load_all((MANIFESTS / name).read_text())
        if doc and doc["kind"] == kind
    )


def _template_patch(path: tuple[str, ...], pod_patch: Any) -> Any:
    for key in reversed(path):
        pod_patch = {key: pod_patch}
    return pod_patch


# (kind, manifest, where its template is)
WORKLOADS = [
    ("Deployment", "nginx-deployment.yaml", ("spec", "template")),
    ("StatefulSet", "web.yaml", ("spec", "template")),
    ("Job", "job.yaml", ("spec", "template")),
    ("CronJob", "cronjob.yaml", ("spec", "jobTemplate", "spec", "template")),
    ("DaemonSet", "daemonset.yaml", ("spec", "template")),
]

# pod-level patches, put at each kind's template path; each exercises a rule
POD_PATCHES = {
    "sidecar-added-before": {
        "spec": {
            "containers": [{"name": "log-shipper", "image": "fluent-bit:3", "args": ["--quiet"]}]
        }
    },
    "main-container-merged": {
        "metadata": {"labels": {"team": "ml"}},
        "spec": {
            "containers": [
                {
                    "name": "{main}",
                    "env": [{"name": "NCCL_DEBUG", "value": "INFO"}],
                    "resources": {"limits": {"nvidia.com/gpu": 1}},
                }
            ],
            "tolerations": [
                {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
            ],
            "nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"},
        },
    },
    "volume-and-mount": {
        "spec": {
            "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}}],
            "containers": [
                {"name": "{main}", "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}]}
            ],
        }
    },
    "delete-directive": {"spec": {"containers": [{"name": "{main}", "$patch": "delete"}]}},
    "null-deletes": {"spec": {"restartPolicy": None, "tolerations": None}},
    "replace-directive": {
        "spec": {"$patch": "replace", "containers": [{"name": "only", "image": "busybox"}]}
    },
}


def _case(kind: str, manifest: str, where: tuple[str, ...], name: str) -> tuple[Any, Any]:
    document = _load(manifest, kind)
    template: Any = document
    for key in where:
        template = template[key]
    main = template["spec"]["containers"][0]["name"]
    pod_patch = yaml.safe_load(yaml.safe_dump(POD_PATCHES[name]).replace("'{main}'", main))
    patch = {
        "apiVersion": document["apiVersion"],
        "kind": kind,
        "metadata": {"name": document["metadata"]["name"], "annotations": {"by": "podfold"}},
        **_template_patch(where, pod_patch),
    }
    return document, patch


CASES = [
    (kind, manifest, where, name) for kind, manifest, where in WORKLOADS for name in POD_PATCHES
]


@needs_kubectl
@pytest.mark.parametrize(
    ("kind", "manifest", "where", "name"),
    CASES,
    ids=[f"{kind}-{name}" for kind, _, _, name in CASES],
)
def test_workload_patch_agrees_with_kubectl(
    kind: str, manifest: str, where: tuple[str, ...], name: str
) -> None:
    document, patch = _case(kind, manifest, where, name)
    before = copy.deepcopy(document)
    code, expected = kubectl_patch(document, patch, "strategic")
    assert code == 0, expected
    result = strategic_merge(patch)(document)
    assert result == expected
    assert document == before


@needs_kubectl
def test_spec_fields_outside_the_template_merge_like_kubectl() -> None:
    # replicas replaced, selector merged, a new strategy map added; the template untouched
    document = _load("nginx-deployment.yaml", "Deployment")
    patch = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "nginx-deployment", "labels": {"tier": "web"}},
        "spec": {
            "replicas": 5,
            "strategy": {"type": "Recreate"},
            "selector": {"matchLabels": {"tier": "web"}},
        },
    }
    code, expected = kubectl_patch(document, patch, "strategic")
    assert code == 0, expected
    result = strategic_merge(patch)(document)
    assert result == expected
    assert result["spec"]["template"] is document["spec"]["template"]


def test_the_deployment_keeps_its_nginx_container() -> None:
    # the report: a kustomize-style patch dropped the Deployment's container
    document = _load("nginx-deployment.yaml", "Deployment")
    patch = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "nginx-deployment"},
        "spec": {"template": {"spec": {"containers": [{"name": "sidecar", "image": "s"}]}}},
    }
    containers = strategic_merge(patch)(document)["spec"]["template"]["spec"]["containers"]
    assert [container["name"] for container in containers] == ["sidecar", "nginx"]


def test_an_unchanging_workload_patch_returns_the_same_document() -> None:
    document = _load("job.yaml", "Job")
    patch = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "pi"},
        "spec": {"template": {"spec": {"restartPolicy": "Never"}}},
    }
    assert strategic_merge(patch)(document) is document


def test_a_pod_level_patch_is_refused_on_a_workload() -> None:
    document = _load("daemonset.yaml", "DaemonSet")
    with pytest.raises(WorkloadKindError, match=r"DaemonSet document \('fluentd-elasticsearch'\)"):
        strategic_merge({"spec": {"hostNetwork": True}})(document)


def test_a_workload_patch_is_refused_on_another_kind_or_name() -> None:
    patch = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"replicas": 2},
    }
    with pytest.raises(
        WorkloadKindError,
        match="the patch is for Deployment 'web', the document is StatefulSet 'web'",
    ):
        strategic_merge(patch)(_load("web.yaml", "StatefulSet"))
    with pytest.raises(WorkloadKindError, match="the document is Deployment 'nginx-deployment'"):
        strategic_merge(patch)(_load("nginx-deployment.yaml", "Deployment"))


def test_in_a_stream_a_workload_patch_targets_its_document_only() -> None:
    # as kustomize matches patches: by kind and name; the other documents pass through
    documents = list(yaml.safe_load_all((MANIFESTS / "web.yaml").read_text()))
    documents.append(_load("nginx-deployment.yaml", "Deployment"))
    patch = strategic_merge(
        {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": {"name": "web"},
            "spec": {"replicas": 4},
        }
    )
    out = apply_to_documents(patch, documents)
    assert out[0] is documents[0] and out[2] is documents[2]
    assert out[1]["spec"]["replicas"] == 4
    assert out[1]["spec"]["template"] is documents[1]["spec"]["template"]
