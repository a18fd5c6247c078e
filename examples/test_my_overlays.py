"""A platform team's overlays, unit-tested with podfold's testing kit; no cluster needed.

The fixtures ``pod``, ``pod_factory`` and ``torchx_app`` come from podfold's
pytest plugin, loaded when podfold is installed. Run::

    python -m pytest examples/test_my_overlays.py -q
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings

import recipes
from combinators import chain, upsert
from transforms.testing import (
    assert_changes,
    assert_idempotent,
    assert_pure,
    assert_valid_pod,
    changed_paths,
)
from transforms.testing.pods import render_pods
from transforms.testing.strategies import pods, transforms
from transforms.torchx.roles import with_overlays

# --- the team's overlays ------------------------------------------------------------------------

a100_pool = chain(
    recipes.gpu("a100-80gb"),
    recipes.add_toleration("dedicated", value="ml", effect="NoSchedule"),
    recipes.shm_size("16Gi"),
)
"""A100 nodes of the team's dedicated pool, with a larger /dev/shm."""

team_labels = recipes.add_labels(team="vision", cost_center="cv-42")


def nccl_debug(pod: dict[str, Any]) -> dict[str, Any]:
    """Turn on NCCL's debug logs in the main container: a plain function overlay."""
    main, *others = pod["spec"]["containers"]
    env = [var for var in main.get("env", []) if var["name"] != "NCCL_DEBUG"]
    main = {**main, "env": [*env, {"name": "NCCL_DEBUG", "value": "INFO"}]}
    return {**pod, "spec": {**pod["spec"], "containers": [main, *others]}}


team_overlay = chain(a100_pool, team_labels, nccl_debug)


# --- the tests ----------------------------------------------------------------------------------


def test_team_overlay_is_pure_and_idempotent(pod: dict[str, Any]) -> None:
    assert_pure(team_overlay, pod)
    assert_idempotent(team_overlay, pod)


def test_team_overlay_gives_valid_pods_for_every_replica(pod_factory: Any) -> None:
    for replica in pod_factory(replicas=4, gpu=8, mounts={"/data": "datasets"}):
        assert_valid_pod(team_overlay(replica), k8s_version="1.32")


def test_a100_pool_only_schedules_and_sizes_shm(pod: dict[str, Any]) -> None:
    assert_changes(
        a100_pool, pod, only=["spec.nodeSelector", "spec.tolerations", "spec.volumes[name=dshm]"]
    )


def test_team_labels_write_exactly_two_labels(pod: dict[str, Any]) -> None:
    assert changed_paths(team_labels, pod) == [
        "metadata.labels.team",
        "metadata.labels.cost_center",
    ]


def test_nccl_debug_touches_only_the_main_container(pod: dict[str, Any]) -> None:
    with_proxy = recipes.sidecar("proxy", "envoyproxy/envoy:v1.30")(pod)
    assert assert_changes(nccl_debug, with_proxy, only=["spec.containers[0].env"]) == [
        "spec.containers[name=trainer-0].env[name=NCCL_DEBUG]"
    ]


def test_every_pod_of_the_job_gets_the_overlay(torchx_app: Any) -> None:
    torchx_app.roles[0] = with_overlays(torchx_app.roles[0], team_overlay)
    trainers: list[str | None] = []
    servers: list[str | None] = []
    for pod in render_pods(torchx_app):
        assert_valid_pod(pod)
        labels = pod["metadata"]["labels"]
        (trainers if labels["torchx.pytorch.org/role-name"] == "trainer" else servers).append(
            labels.get("team")
        )
    assert trainers == ["vision", "vision"] and servers == [None]


@settings(max_examples=30, deadline=None)
@given(pods())
def test_nccl_debug_on_any_valid_pod(pod: dict[str, Any]) -> None:
    new = assert_idempotent(nccl_debug, assert_pure(nccl_debug, pod))
    assert_valid_pod(new)


@settings(max_examples=30, deadline=None)
@given(pods(), transforms(max_steps=3))
def test_team_overlay_composes_with_any_other_overlay(pod: dict[str, Any], other: Any) -> None:
    both = chain(other, team_overlay)
    assert_pure(both, pod)
    assert upsert("metadata.labels", {"team": "vision"})(both(pod)) == both(pod)
