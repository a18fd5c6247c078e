"""podfold's combinators and recipes under its own testing kit.

Laws: every recipe and every combinator is pure and idempotent, writes only
where it says it does, and leaves a valid pod valid: on TorchX's own pods (the
kit's fixtures and renderer) and on pods of every shape hypothesis draws. The
one refusal allowed is a recipe's of a name the pod already uses where
Kubernetes wants it unique, and only where that clash is real (see
:func:`tests.test_recipe_name_clashes.assert_real_clash`).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import recipes
from combinators import Transform, append_at, chain, compose, merge_by, upsert
from combinators.transform import Compose
from recipes._clashes import NameClashError
from tests.test_recipe_name_clashes import assert_real_clash, assert_refused_for_a_real_clash
from transforms.testing import (
    assert_changes,
    assert_idempotent,
    assert_pure,
    assert_valid_pod,
)
from transforms.testing.pods import make_pods, render_pods, sample_app
from transforms.testing.strategies import RECIPE_ARGUMENTS, combinator_steps, pods, transforms

# half the profile's count: 50 examples under the suite's ci profile (tests/conftest.py),
# 1,000 under fuzz
law_settings = settings(
    max_examples=settings.default.max_examples // 2,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

GPU_POD, _, PS_POD = render_pods(sample_app())
CPU_POD = make_pods(gpu=0, mounts={"/data": "datasets"})[0]

MAIN = "spec.containers[0]"
SCHEDULING = ("spec.nodeSelector", "spec.affinity", "spec.tolerations")

FOOTPRINT: dict[str, tuple[str, ...]] = {
    "node_selector": ("spec.nodeSelector",),
    "add_toleration": ("spec.tolerations",),
    "require_node_affinity": ("spec.affinity.nodeAffinity",),
    "prefer_node_affinity": ("spec.affinity.nodeAffinity",),
    "spread": ("spec.topologySpreadConstraints",),
    "anti_affinity": ("spec.affinity.podAntiAffinity",),
    "priority_class": ("spec.priorityClassName",),
    "scheduler_name": ("spec.schedulerName",),
    "runtime_class": ("spec.runtimeClassName",),
    "kueue_queue": ("metadata.labels",),
    "gpu": (*SCHEDULING, f"{MAIN}.resources"),
    "mig": (*SCHEDULING, f"{MAIN}.resources"),
    "tpu": (*SCHEDULING, f"{MAIN}.resources"),
    "efa": (f"{MAIN}.resources",),
    "rdma": (f"{MAIN}.resources",),
    "shm_size": ("spec.volumes[name=dshm]", f"{MAIN}.volumeMounts"),
    "mount_pvc": ("spec.volumes", f"{MAIN}.volumeMounts"),
    "mount_secret": ("spec.volumes", f"{MAIN}.volumeMounts"),
    "mount_config_map": ("spec.volumes", f"{MAIN}.volumeMounts"),
    "mount_empty_dir": ("spec.volumes", f"{MAIN}.volumeMounts"),
    "mount_host_path": ("spec.volumes", f"{MAIN}.volumeMounts"),
    "add_env": (f"{MAIN}.env",),
    "add_env_from_secret": (f"{MAIN}.env",),
    "add_env_from_config_map": (f"{MAIN}.env",),
    "add_env_from_field": (f"{MAIN}.env",),
    "resources": (f"{MAIN}.resources",),
    "image_pull_policy": (f"{MAIN}.imagePullPolicy",),
    "working_dir": (f"{MAIN}.workingDir",),
    "security_context": (f"{MAIN}.securityContext",),
    "add_capabilities": (f"{MAIN}.securityContext.capabilities.add",),
    "sidecar": ("spec.containers", "spec.initContainers"),
    "init_container": ("spec.initContainers",),
    "add_labels": ("metadata.labels",),
    "add_annotations": ("metadata.annotations",),
    "istio_sidecar": (
        'metadata.labels["sidecar.istio.io/inject"]',
        'metadata.annotations["sidecar.istio.io/inject"]',
    ),
    "service_account": ("spec.serviceAccountName",),
    "image_pull_secret": ("spec.imagePullSecrets",),
    "host_network": ("spec.hostNetwork",),
    "host_ipc": ("spec.hostIPC",),
    "dns_policy": ("spec.dnsPolicy",),
    "termination_grace_period": ("spec.terminationGracePeriodSeconds",),
    "active_deadline": ("spec.activeDeadlineSeconds",),
}
"""Where each recipe may write: the fields its docstring names."""


def test_every_recipe_has_a_footprint() -> None:
    assert set(FOOTPRINT) == set(recipes.catalog)


@pytest.mark.parametrize("name", sorted(recipes.catalog))
def test_recipe_on_torchx_pods_is_pure_idempotent_valid_and_writes_only_its_fields(
    name: str,
) -> None:
    # 8 examples a recipe under the ci profile, 166 under fuzz
    @settings(
        max_examples=settings.default.max_examples // 12,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(RECIPE_ARGUMENTS[name], st.sampled_from([GPU_POD, PS_POD, CPU_POD]))
    def law(recipe: Any, pod: dict[str, Any]) -> None:
        before = copy.deepcopy(pod)
        try:
            first = assert_pure(recipe, pod)
        except NameClashError as err:  # CPU_POD mounts a volume at /data, say
            assert pod == before
            assert_real_clash(recipe, pod, err)
            return
        new = assert_idempotent(recipe, first)
        assert_valid_pod(new)
        assert_changes(recipe, pod, only=FOOTPRINT[name], nothing_ok=True)

    law()


def _written_path(step: Transform) -> str | None:
    """The path a combinator step writes under (its first argument), if it has one."""
    args, _ = step.params
    if step.name == "expect":
        return ""
    if step.name == "when" or not args:
        return None
    return str(args[0])


@law_settings
@given(pods(), combinator_steps())
def test_combinators_are_pure_idempotent_and_write_only_under_their_path(
    pod: dict[str, Any], step: Transform
) -> None:
    new = assert_idempotent(step, assert_pure(step, pod))
    assert_valid_pod(new)
    where = _written_path(step)
    if where is not None:
        assert_changes(step, pod, only=[where] if where else [], nothing_ok=True)


def _chain_law(pod: dict[str, Any], overlay: Any) -> None:
    before = copy.deepcopy(pod)
    try:
        first = assert_pure(overlay, pod)
    except NameClashError as err:
        # allowed only for a real clash of names, met by a recipe on the first application;
        # the law still holds of the chain without that recipe
        assert pod == before
        refused = assert_refused_for_a_real_clash(overlay, pod, err)
        steps = overlay.steps if isinstance(overlay, Compose) else (overlay,)
        rest = steps[:refused] + steps[refused + 1 :]
        if rest:
            _chain_law(pod, chain(*rest))
        return
    new = assert_idempotent(overlay, first)
    assert_valid_pod(new)


# found at random on one run in three: a regular and a native sidecar of one name, which the
# API server refuses; the second recipe now refuses it
@example(
    pod={"spec": {"containers": [{"name": "trainer-0", "image": "ghcr.io/example/trainer:1.0"}]}},
    overlay=chain(
        recipes.sidecar("proxy-sidecar", "ghcr.io/example/trainer:1.0"),
        recipes.sidecar("proxy-sidecar", "ghcr.io/example/trainer:1.0", native=True),
    ),
)
@law_settings
@given(pods(), transforms())
def test_chains_of_recipes_and_combinators_are_pure_idempotent_and_keep_pods_valid(
    pod: dict[str, Any], overlay: Any
) -> None:
    _chain_law(pod, overlay)


def test_readme_gpu_pool_on_the_torchx_pod(pod: dict[str, Any]) -> None:
    gpu_pool = compose(
        append_at(
            "spec.tolerations",
            {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
            unique=True,
        ),
        upsert("spec.nodeSelector", {"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"}),
        merge_by("spec.containers[0].env", [{"name": "NCCL_DEBUG", "value": "INFO"}]),
    )
    new = assert_valid_pod(assert_idempotent(gpu_pool, assert_pure(gpu_pool, pod)))
    assert assert_changes(
        gpu_pool, pod, only=["spec.tolerations", "spec.nodeSelector", "spec.containers[0].env"]
    ) == [
        "spec.containers[name=trainer-0].env[name=NCCL_DEBUG]",
        'spec.nodeSelector["cloud.google.com/gke-accelerator"]',
        "spec.tolerations",
    ]
    assert new["spec"]["tolerations"][0]["key"] == "nvidia.com/gpu"


def test_catalog_recipes_on_every_replica_of_a_job(pod_factory: Any) -> None:
    overlay = chain(
        recipes.gpu("h100-80gb", count=8),
        recipes.mount_pvc("datasets", "/data"),
        recipes.add_env(RANK="${replica_id}"),
        recipes.sidecar("proxy", "envoy:1"),
    )
    for pod in pod_factory(replicas=3, gpu=8, memMB=256_000):
        new = assert_idempotent(overlay, assert_pure(overlay, pod))
        assert_valid_pod(new, k8s_version="1.32")


def test_overlays_on_roles_fold_into_valid_pods(torchx_app: Any) -> None:
    pods_before = render_pods(torchx_app)
    folded = render_pods(
        torchx_app, overlays=[recipes.kueue_queue("team-a"), recipes.priority_class("high")]
    )
    for before, after in zip(pods_before, folded, strict=True):
        assert_valid_pod(after)
        assert after["spec"]["priorityClassName"] == "high"
        assert after["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-a"
        assert before["spec"]["containers"] == after["spec"]["containers"]
