"""transforms.flyte.pod_template, with real flytekit: tasks serialised by flytekit itself.

flytekit needs a task's source module, so the tasks are defined here, at module level.
"""

from __future__ import annotations

import copy
import importlib.util
import pathlib
import sys
from collections import OrderedDict
from types import ModuleType
from typing import Any

import pytest
from flytekit import PodTemplate, task
from flytekit.configuration import ImageConfig, SerializationSettings
from flytekit.tools.translator import get_serializable
from google.protobuf.json_format import MessageToDict
from kubernetes.client import (
    V1Container,
    V1EnvVar,
    V1ObjectMeta,
    V1PodSpec,
    V1PodTemplateSpec,
    V1Toleration,
)

import recipes
from combinators import ArgumentError, ArgumentTypeError, TransformError, remove_at, upsert
from combinators.errors import ExpectationError
from transforms.checks.problems import PodValidationError
from transforms.flyte import FlyteTemplateError, pod_template
from transforms.kube.convert import to_data

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}

# A Flyte user's case: an A100 node pool, the NVIDIA runtime, GPUs with more than
# 40 GB of memory, a Hugging Face token mounted from a Secret.
A100_OVERLAYS = (
    recipes.gpu("a100", count=1, provider="gke"),
    recipes.runtime_class("nvidia"),
    recipes.require_node_affinity("nvidia.com/gpu.memory", ["40000"], operator="Gt"),
    recipes.mount_secret("hf-token", "/etc/secrets/hf"),
    recipes.add_env(NCCL_DEBUG="INFO"),
    recipes.add_labels(team="ml"),
    recipes.add_annotations({"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"}),
)


def a100_base() -> PodTemplate:
    """A platform team's template that holds the GPU toleration and NCCL_DEBUG already."""
    return PodTemplate(
        pod_spec=V1PodSpec(
            containers=[
                V1Container(name="primary", env=[V1EnvVar(name="NCCL_DEBUG", value="INFO")])
            ],
            tolerations=[
                V1Toleration(
                    **{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
                )
            ],
        ),
        labels={"platform": "gpu"},
        annotations={"owner": "platform-team"},
    )


A100 = pod_template(*A100_OVERLAYS)
A100_OVER_BASE = pod_template(*A100_OVERLAYS, base=a100_base())
SIDECAR = pod_template(
    recipes.sidecar("metrics", "prom/statsd-exporter:v0.26.0"),
    recipes.working_dir("/workspace"),
    primary_container_name="main",
)


@task(pod_template=A100)
def fine_tune(epochs: int) -> int:
    return epochs


@task(pod_template=A100_OVER_BASE)
def fine_tune_on_platform(epochs: int) -> int:
    return epochs


@task(pod_template=SIDECAR)
def with_metrics(epochs: int) -> int:
    return epochs


def serialised_pod(entity: Any) -> tuple[dict[str, Any], dict[str, Any], dict[str, str]]:
    """The task template's pod (metadata, pod spec) and config, as flytekit sends them to Flyte."""
    settings = SerializationSettings(image_config=ImageConfig.auto_default_image())
    spec = get_serializable(OrderedDict(), settings, entity)
    idl = spec.template.to_flyte_idl()  # the protobuf Flyte admin receives
    pod = MessageToDict(idl.k8s_pod)
    return pod.get("metadata", {}), pod["podSpec"], dict(idl.config)


def plain(template: PodTemplate) -> dict[str, Any]:
    return {
        "spec": to_data(template.pod_spec),
        "labels": copy.deepcopy(template.labels),
        "annotations": copy.deepcopy(template.annotations),
        "primary": template.primary_container_name,
    }


# --- serialised through flytekit -------------------------------------------------------------


def test_a100_task_serialises_with_what_the_overlays_wrote() -> None:
    metadata, spec, config = serialised_pod(fine_tune)
    assert config == {"primary_container_name": "primary"}
    assert metadata == {
        "labels": {"team": "ml"},
        "annotations": {"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"},
    }
    primary = spec["containers"][0]
    assert primary["name"] == "primary" and len(spec["containers"]) == 1
    assert primary["image"] == ImageConfig.auto_default_image().default_image.full  # Flyte's
    assert "pyflyte-execute" in primary["args"]
    assert primary["resources"]["limits"] == {"nvidia.com/gpu": "1"}
    assert primary["volumeMounts"] == [
        {"name": "hf-token", "mountPath": "/etc/secrets/hf", "readOnly": True}
    ]
    assert primary["env"] == [{"name": "NCCL_DEBUG", "value": "INFO"}]
    assert spec["nodeSelector"] == {"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"}
    assert spec["runtimeClassName"] == "nvidia"
    assert spec["tolerations"] == [GPU_TOLERATION]
    assert spec["volumes"] == [{"name": "hf-token", "secret": {"secretName": "hf-token"}}]
    terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert terms["nodeSelectorTerms"] == [
        {
            "matchExpressions": [
                {"key": "nvidia.com/gpu.memory", "operator": "Gt", "values": ["40000"]}
            ]
        }
    ]


def test_over_a_base_holding_them_nothing_is_written_twice() -> None:
    metadata, spec, _ = serialised_pod(fine_tune_on_platform)
    assert spec["tolerations"] == [GPU_TOLERATION]
    assert spec["containers"][0]["env"] == [{"name": "NCCL_DEBUG", "value": "INFO"}]
    assert metadata["labels"] == {"platform": "gpu", "team": "ml"}
    assert metadata["annotations"] == {
        "owner": "platform-team",
        "cluster-autoscaler.kubernetes.io/safe-to-evict": "false",
    }
    # the same pod spec as without the base (the task's name in the arguments aside)
    _, alone, _ = serialised_pod(fine_tune)
    for containers in (spec["containers"], alone["containers"]):
        containers[0]["args"] = [
            word for word in containers[0]["args"] if not word.startswith("fine_tune")
        ]
    assert spec == alone


def test_sidecar_is_kept_and_primary_name_is_flytes_convention() -> None:
    _, spec, config = serialised_pod(with_metrics)
    assert config == {"primary_container_name": "main"}
    assert [container["name"] for container in spec["containers"]] == ["main", "metrics"]
    assert spec["containers"][0]["workingDir"] == "/workspace"
    assert spec["containers"][1]["image"] == "prom/statsd-exporter:v0.26.0"


def test_flytekit_replaces_template_resources_with_the_tasks() -> None:
    # flytekit's own rule, pinned here because the README and examples warn about it:
    # task resources replace the primary container's whole resources map
    from flytekit import Resources

    @task(pod_template=A100, requests=Resources(cpu="4"))
    def cpu_only(epochs: int) -> int:
        return epochs

    _, spec, _ = serialised_pod(cpu_only)
    assert spec["containers"][0]["resources"] == {"requests": {"cpu": "4"}, "limits": {}}


def test_example_module_serialises() -> None:
    name = "podfold_example_flyte_task"
    loaded = importlib.util.spec_from_file_location(name, EXAMPLES / "flyte_task.py")
    assert loaded is not None and loaded.loader is not None
    module: ModuleType = importlib.util.module_from_spec(loaded)
    sys.modules[name] = module  # flytekit finds a task's module by name
    try:
        loaded.loader.exec_module(module)
        metadata, spec, config = serialised_pod(module.fine_tune)
    finally:
        del sys.modules[name]
    assert config == {"primary_container_name": "primary"}
    assert metadata == {"labels": {"team": "ml"}}
    assert spec["runtimeClassName"] == "nvidia"
    assert spec["tolerations"] == [GPU_TOLERATION]
    assert spec["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "1"}
    assert {volume["name"] for volume in spec["volumes"]} == {"hf-token", "dshm"}


# --- no duplicates: the same overlay twice, or over a base holding it ------------------------


def test_same_overlays_twice_equal_once() -> None:
    # pod_template(o, o) == pod_template(o) == pod_template(o, base=pod_template(o))
    once = plain(A100)
    assert plain(pod_template(*A100_OVERLAYS, *A100_OVERLAYS)) == once
    assert plain(pod_template(*A100_OVERLAYS, base=A100)) == once


def test_base_with_toleration_and_env_gets_neither_twice() -> None:
    base = a100_base()
    template = pod_template(
        recipes.gpu("a100", provider="gke"), recipes.add_env(NCCL_DEBUG="INFO"), base=base
    )
    assert [t.key for t in template.pod_spec.tolerations] == ["nvidia.com/gpu"]
    assert [(e.name, e.value) for e in template.pod_spec.containers[0].env] == [
        ("NCCL_DEBUG", "INFO")
    ]


def test_a_partial_pod_appends_as_documented() -> None:
    # partial pods keep TorchX's rule (a list is appended): only recipes are idempotent
    partial = {"spec": {"tolerations": [GPU_TOLERATION]}}
    template = pod_template(partial, base=a100_base())
    assert len(template.pod_spec.tolerations) == 2


# --- the base: kept, never changed ------------------------------------------------------------


def test_base_is_not_mutated_and_nothing_is_shared() -> None:
    base = a100_base()
    before = plain(base)
    template = pod_template(*A100_OVERLAYS, recipes.add_labels(platform="ml"), base=base)
    assert plain(base) == before
    assert template.labels == {"platform": "ml", "team": "ml"}
    template.pod_spec.tolerations.append(V1Toleration(key="x", operator="Exists"))
    template.pod_spec.containers[0].env.append(V1EnvVar(name="X", value="1"))
    template.labels["more"] = "x"
    assert plain(base) == before


def test_no_base_adds_a_bare_primary_container() -> None:
    template = pod_template()
    assert isinstance(template, PodTemplate)
    assert to_data(template.pod_spec) == {"containers": [{"name": "primary"}]}
    assert template.labels is None and template.annotations is None


def test_primary_is_moved_first_others_kept() -> None:
    base = PodTemplate(
        pod_spec=V1PodSpec(
            containers=[V1Container(name="proxy", image="envoy:1.30"), V1Container(name="primary")]
        )
    )
    template = pod_template(recipes.working_dir("/app"), base=base)
    names = [c.name for c in template.pod_spec.containers]
    assert names == ["primary", "proxy"]
    assert template.pod_spec.containers[0].working_dir == "/app"
    assert [c.name for c in base.pod_spec.containers] == ["proxy", "primary"]


def test_base_without_primary_gets_one_first() -> None:
    base = PodTemplate(
        pod_spec=V1PodSpec(containers=[V1Container(name="proxy", image="envoy:1.30")])
    )
    template = pod_template(recipes.add_env(A="1"), base=base)
    assert [(c.name, c.image) for c in template.pod_spec.containers] == [
        ("primary", None),
        ("proxy", "envoy:1.30"),
    ]
    assert template.pod_spec.containers[1].env is None


def test_base_primary_name_is_inherited() -> None:
    base = PodTemplate(primary_container_name="main")
    template = pod_template(recipes.working_dir("/app"), base=base)
    assert template.primary_container_name == "main"
    assert [c.name for c in template.pod_spec.containers] == ["main"]


def pytorch_train(epochs: int) -> int:
    """A task's body, decorated where its template is built (a PyTorchJob's master is
    named ``pytorch``, as the Kubeflow operator requires: flyteorg/flyte#3590)."""
    return epochs


def test_a_base_with_flytekits_default_name_and_no_containers_takes_the_given_name() -> None:
    # PodTemplate() names its primary "primary" by default; with no container to go by that
    # name, nothing conflicts with the name a PyTorchJob needs
    for base in (
        PodTemplate(),
        PodTemplate(pod_spec=V1PodSpec(containers=[])),
        PodTemplate(
            labels={"team": "ml"}, pod_spec=V1PodSpec(containers=[], node_selector={"pool": "a"})
        ),
    ):
        template = pod_template(
            recipes.working_dir("/workspace"), base=base, primary_container_name="pytorch"
        )
        assert template.primary_container_name == "pytorch"
        assert to_data(template.pod_spec)["containers"] == [
            {"name": "pytorch", "workingDir": "/workspace"}
        ]
        assert base.primary_container_name == "primary"  # the base is left as it was
        assert template.labels == base.labels
    entity = task(pod_template=pod_template(base=PodTemplate(), primary_container_name="pytorch"))(
        pytorch_train
    )
    _, spec, config = serialised_pod(entity)
    assert config == {"primary_container_name": "pytorch"}
    assert [container["name"] for container in spec["containers"]] == ["pytorch"]


def test_a_base_with_the_default_name_and_only_other_containers_takes_the_given_name() -> None:
    base = PodTemplate(
        pod_spec=V1PodSpec(containers=[V1Container(name="proxy", image="envoy:1.30")])
    )
    template = pod_template(base=base, primary_container_name="pytorch")
    assert [(c.name, c.image) for c in template.pod_spec.containers] == [
        ("pytorch", None),
        ("proxy", "envoy:1.30"),
    ]
    base = PodTemplate(
        pod_spec=V1PodSpec(containers=[V1Container(name="pytorch", image="torch:2")])
    )
    template = pod_template(base=base, primary_container_name="pytorch")
    assert [(c.name, c.image) for c in template.pod_spec.containers] == [("pytorch", "torch:2")]


def test_a_real_conflict_of_primary_names_is_still_refused() -> None:
    # an explicit other name, with or without its container
    for base in (
        PodTemplate(primary_container_name="main"),
        PodTemplate(
            primary_container_name="main", pod_spec=V1PodSpec(containers=[V1Container(name="main")])
        ),
    ):
        with pytest.raises(ArgumentError) as caught:
            pod_template(base=base, primary_container_name="pytorch")
        assert (caught.value.factory, caught.value.argument) == (
            "pod_template",
            "primary_container_name",
        )
        assert "'main'" in str(caught.value) and "'pytorch'" in str(caught.value)
    # the default name, held by a container of the base: that container is its primary
    base = PodTemplate(
        pod_spec=V1PodSpec(containers=[V1Container(name="primary", image="trainer:1")])
    )
    with pytest.raises(ArgumentError) as caught:
        pod_template(base=base, primary_container_name="pytorch")
    message = str(caught.value)
    assert "primary container is 'primary'" in message and "'pytorch'" in message, message
    assert "flytekit's default name" in message


def test_pod_template_spec_base_keeps_its_labels() -> None:
    base = V1PodTemplateSpec(
        metadata=V1ObjectMeta(labels={"app": "train"}, annotations={"a": "1"}),
        spec=V1PodSpec(containers=[V1Container(name="primary")], node_selector={"zone": "a"}),
    )
    before = base.to_dict()
    template = pod_template(
        {"metadata": {"labels": {"team": "ml"}}}, recipes.node_selector(pool="gpu"), base=base
    )
    assert template.labels == {"app": "train", "team": "ml"}
    assert template.annotations == {"a": "1"}
    assert template.pod_spec.node_selector == {"zone": "a", "pool": "gpu"}
    assert base.to_dict() == before


def test_cluster_pod_template_object_as_base() -> None:
    cluster = {
        "apiVersion": "v1",
        "kind": "PodTemplate",
        "metadata": {"name": "gpu"},
        "template": {
            "metadata": {"labels": {"pool": "a100"}},
            "spec": {"containers": [{"name": "default", "image": "x"}]},
        },
    }
    snapshot = copy.deepcopy(cluster)
    template = pod_template(recipes.runtime_class("nvidia"), base=cluster)
    assert template.labels == {"pool": "a100"}
    assert [c.name for c in template.pod_spec.containers] == ["primary", "default"]
    assert cluster == snapshot


def test_yaml_overlay_file(tmp_path: pathlib.Path) -> None:
    overlay = tmp_path / "a100.yaml"
    overlay.write_text(
        "- {recipe: gpu, type: a100, provider: gke}\n- {recipe: runtime_class, name: nvidia}\n",
        encoding="utf-8",
    )
    template = pod_template(overlay, str(overlay))
    assert template.pod_spec.runtime_class_name == "nvidia"
    assert len(template.pod_spec.tolerations) == 1


# --- errors name the overlay and the path -----------------------------------------------------


def test_error_names_overlay_and_containers() -> None:
    with pytest.raises(ExpectationError) as caught:
        pod_template(recipes.runtime_class("nvidia"), recipes.add_env(A="1", container="trainer"))
    text = str(caught.value)
    assert "spec.containers[name=trainer]" in text and "names present: primary" in text
    assert "pod_template() overlay 2 of 2: add_env(" in text


def test_error_names_yaml_file(tmp_path: pathlib.Path) -> None:
    overlay = tmp_path / "bad.yaml"
    overlay.write_text(
        "- {op: append_at, path: spec.nodeSelector, value: {a: b}}\n", encoding="utf-8"
    )
    with pytest.raises(TransformError) as caught:
        pod_template(recipes.node_selector(a="b"), overlay)
    assert f"overlay 2 of 2: {overlay}" in str(caught.value)
    assert "spec.nodeSelector" in str(caught.value)


def test_metadata_a_template_cannot_hold_is_refused() -> None:
    with pytest.raises(FlyteTemplateError) as caught:
        pod_template(recipes.node_selector(a="b"), upsert("metadata.name", "x"))
    assert caught.value.where == "metadata.name" and caught.value.overlay == 2
    assert isinstance(caught.value, ValueError)
    base = V1PodTemplateSpec(metadata=V1ObjectMeta(name="x"), spec=V1PodSpec(containers=[]))
    with pytest.raises(FlyteTemplateError, match=r"metadata.name: .* \(after the base\)"):
        pod_template(base=base)


def test_losing_the_primary_container_is_refused() -> None:
    with pytest.raises(FlyteTemplateError) as caught:
        pod_template(remove_at("spec.containers[name=primary]"))
    assert caught.value.where == "spec.containers[name=primary]"
    assert "containers are: (none)" in str(caught.value)


def test_invalid_result_is_refused_but_primary_needs_no_image() -> None:
    with pytest.raises(PodValidationError, match=r"spec\.node_selector"):
        pod_template({"spec": {"node_selector": {"a": "b"}}})
    with pytest.raises(PodValidationError, match=r"containers\[name=proxy\].image"):
        pod_template(upsert("spec.containers[name=proxy]", {"name": "proxy"}))
    assert pod_template({"spec": {"node_selector": {"a": "b"}}}, validate=False) is not None


def test_an_invalid_result_names_the_overlay_that_wrote_it() -> None:
    with pytest.raises(PodValidationError) as caught:
        pod_template(
            upsert("spec.hostIPC", True),
            {"spec": {"restartPolicy": "sometimes"}},
            upsert("metadata.labels.team", "ml"),
        )
    assert list(caught.value.steps) == [
        "pod_template() overlay 2 of 3: overlay({'spec': {'restartPolicy': 'sometimes'}})"
    ]
    with pytest.raises(PodValidationError) as caught:
        pod_template({"spec": {"restartPolicy": "sometimes"}}, upsert("spec.priority", "high"))
    assert list(caught.value.steps) == ["pod_template() overlays 1, 2 of 2"]


def test_bad_arguments() -> None:
    with pytest.raises(ArgumentTypeError, match=r"pod_template\(\): base"):
        pod_template(base=V1Container(name="x"))
    with pytest.raises(ArgumentError, match=r"pod_template\(\): primary_container_name"):
        pod_template(primary_container_name="Primary")
    with pytest.raises(ArgumentError, match="the base's primary container is 'main'"):
        pod_template(
            base=PodTemplate(primary_container_name="main"), primary_container_name="primary"
        )
    with pytest.raises(ArgumentTypeError) as caught:
        pod_template(recipes.runtime_class("nvidia"), 42)
    assert "pod_template() overlay 2 of 2" in str(caught.value)


def test_a_torchx_macro_an_overlay_writes_is_warned_about() -> None:
    # Flyte substitutes none of TorchX's macros: left as text, so said
    with pytest.warns(
        UserWarning,
        match=r"pod_template\(\): the overlays write the TorchX "
        r"macro \$\{replica_id\}, which only TorchX substitutes",
    ):
        template = pod_template(
            upsert(
                "spec.containers[name=primary].env", [{"name": "RANK", "value": "${replica_id}"}]
            )
        )
    assert template.pod_spec.containers[0].env[0].value == "${replica_id}"
