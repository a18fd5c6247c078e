"""The worked examples: a GPU training job on GKE and on EKS, applied to a torchx pod."""

from __future__ import annotations

import importlib.util
import inspect
import pathlib
from types import ModuleType
from typing import Any

import pytest
import yaml

from combinators import chain
from recipes import catalog
from tests.test_recipes import POD, check_valid
from transforms import load_overlay
from transforms.testing import assert_idempotent
from transforms.testing.pods import make_pods

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def load_example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def from_yaml(name: str) -> Any:
    """A stand-in for the YAML loader: steps by name from the catalog, arguments bound
    to the factory's signature, applied in the order listed."""
    steps = []
    for step in yaml.safe_load((EXAMPLES / f"{name}.yaml").read_text(encoding="utf-8")):
        arguments = dict(step)
        factory = catalog[arguments.pop("recipe")]
        bound = inspect.signature(factory).bind(**arguments)
        steps.append(factory(*bound.args, **bound.kwargs))
    return chain(*steps)


def _main(pod: dict[str, Any]) -> dict[str, Any]:
    main: dict[str, Any] = pod["spec"]["containers"][0]
    return main


def test_gke_example_gives_the_expected_pod() -> None:
    pod = load_example("gke_gpu").overlay(POD)
    check_valid(pod)
    spec, main = pod["spec"], _main(pod)
    assert spec["nodeSelector"] == {"cloud.google.com/gke-accelerator": "nvidia-a100-80gb"}
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in spec[
        "tolerations"
    ]
    assert main["resources"]["limits"]["nvidia.com/gpu"] == "8"
    assert main["resources"]["requests"]["nvidia.com/gpu"] == "8"
    assert {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "128Gi"}} in spec[
        "volumes"
    ]
    assert {"mountPath": "/data", "name": "training-data", "readOnly": True} in main["volumeMounts"]
    assert {"name": "NCCL_DEBUG", "value": "INFO"} in main["env"]
    assert pod["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "ml-team"
    assert spec["priorityClassName"] == "ml-training"
    assert spec["terminationGracePeriodSeconds"] == 120
    assert "podAntiAffinity" in spec["affinity"]


def test_eks_example_gives_the_expected_pod() -> None:
    pod = load_example("eks_gpu").overlay(POD)
    check_valid(pod)
    spec, main = pod["spec"], _main(pod)
    assert spec["nodeSelector"] == {"k8s.amazonaws.com/accelerator": "nvidia-a100-80gb"}
    assert main["resources"]["limits"]["nvidia.com/gpu"] == "8"
    assert main["resources"]["limits"]["vpc.amazonaws.com/efa"] == "4"
    assert main["securityContext"]["capabilities"]["add"] == ["IPC_LOCK"]
    assert {"name": "FI_PROVIDER", "value": "efa"} in main["env"]
    assert spec["serviceAccountName"] == "s3-reader"


@pytest.mark.parametrize("name", ["gke_gpu", "eks_gpu"])
def test_yaml_form_matches_the_python_form(name: str) -> None:
    python_form = load_example(name).overlay
    yaml_form = from_yaml(name)
    assert yaml_form(POD) == python_form(POD)


@pytest.mark.parametrize("name", ["gke_gpu", "eks_gpu"])
def test_examples_are_idempotent(name: str) -> None:
    overlay = load_example(name).overlay
    once = overlay(POD)
    assert overlay(once) == once


YAML_EXAMPLES = sorted(path.name for path in EXAMPLES.glob("*.yaml"))
PYTHON_EXAMPLES = sorted(
    path.stem
    for path in EXAMPLES.glob("*.py")
    if "\noverlay = " in path.read_text(encoding="utf-8")
)


def test_every_example_is_in_the_idempotence_tests() -> None:
    assert YAML_EXAMPLES == ["a100.yaml", "eks_gpu.yaml", "gke_gpu.yaml"]
    assert PYTHON_EXAMPLES == ["eks_gpu", "gke_gpu"]


@pytest.fixture(scope="module")
def torchx_pods() -> list[dict[str, Any]]:
    """Real TorchX pods: two replicas of a GPU trainer, one CPU-only pod with a mount."""
    return [*make_pods(replicas=2), *make_pods(gpu=0, mounts={"/datasets": "datasets"})]


# applying an example twice gives what applying it once gives
@pytest.mark.parametrize("name", YAML_EXAMPLES)
def test_yaml_examples_applied_twice_equal_applied_once(
    name: str, torchx_pods: list[dict[str, Any]]
) -> None:
    overlay = load_overlay(EXAMPLES / name)
    for pod in torchx_pods:
        once = assert_idempotent(overlay, pod)
        assert once != pod


# applying an example twice gives what applying it once gives
@pytest.mark.parametrize("name", PYTHON_EXAMPLES)
def test_python_examples_applied_twice_equal_applied_once(
    name: str, torchx_pods: list[dict[str, Any]]
) -> None:
    overlay = load_example(name).overlay
    for pod in torchx_pods:
        assert assert_idempotent(overlay, pod) != pod


def test_a100_example_adds_the_gpu_toleration_once() -> None:
    overlay = load_overlay(EXAMPLES / "a100.yaml")
    toleration = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    (pod,) = make_pods()
    with_it = {**pod, "spec": {**pod["spec"], "tolerations": [toleration]}}
    assert overlay(pod)["spec"]["tolerations"] == [toleration]
    assert overlay(with_it)["spec"]["tolerations"] == [toleration]
