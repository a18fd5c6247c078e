"""podfold's schedulers on ``torchx-nightly``, which has overlays of its own.

Newer TorchX applies ``role.metadata["kubernetes"]`` itself while it renders
each pod (``torchx.specs.overlays``). podfold's scheduler hands TorchX the
roles without that key and folds every overlay itself, so a role written
for upstream renders as upstream renders it, once, and podfold's own
overlays and launch-time overlays come after. Nightly's scheduler also
asks the API server to dry-run the job unless ``validate_spec=False``.

What upstream does with ``JOIN("containers", on="name")`` on a role of two
replicas (checked against torchx-nightly 2026.10.26): TorchX names each
replica's container after the replica (``ps-0``, ``ps-1``), and the same
overlay is merged into every replica's pod. Replica 0's container matches
and gets the overlay's fields; replica 1 has no container ``ps-0``, so JOIN
appends the overlay's item as a second container, ``{"name": "ps-0",
"workingDir": "/w"}``, with no image. Upstream submits that pod (the API
server would refuse it); podfold folds the same overlay the same way, and its
validation stops the dry run naming the role, the replica and the
container's missing image. With ``validate: false`` podfold renders exactly
what upstream renders.

These tests run where ``torchx-nightly`` is installed and are skipped
elsewhere; CI runs them in a virtual environment with the nightly and sets
``PODFOLD_REQUIRE_TORCHX_NIGHTLY=1``, which turns a missing nightly into a
failure instead of a skip.
"""

from __future__ import annotations

import copy
import importlib.metadata
import json
import os
from pathlib import Path
from typing import Any

import pytest


def _nightly_version() -> str | None:
    try:
        return importlib.metadata.version("torchx-nightly")
    except importlib.metadata.PackageNotFoundError:
        return None


NIGHTLY = _nightly_version()
if NIGHTLY is None and os.environ.get("PODFOLD_REQUIRE_TORCHX_NIGHTLY"):
    pytest.fail("PODFOLD_REQUIRE_TORCHX_NIGHTLY is set but torchx-nightly is not installed "
                "in this environment (a stable torchx release is, or none)", pytrace=False)
pytestmark = [
    pytest.mark.skipif(NIGHTLY is None, reason="needs torchx-nightly (a stable torchx "
                       "release is installed): its scheduler applies overlays itself"),
    pytest.mark.filterwarnings("ignore"),
]

if NIGHTLY is not None:
    from kubernetes.client import ApiClient
    from torchx import specs
    from torchx.runner import Runner
    from torchx.schedulers import get_scheduler_factories
    from torchx.schedulers.kubernetes_scheduler import KubernetesJob, KubernetesScheduler
    from torchx.specs.overlays import JOIN, set_overlay

    from combinators import TransformError, append_at, merge_by
    from transforms.torchx.errors import LaunchError
    from transforms.torchx.folding import FoldError
    from transforms.torchx.roles import with_overlays
    from transforms.torchx.schedulers import (
        KubernetesOverlayScheduler,
        create_kubernetes_mcad_overlay,
        create_kubernetes_overlay,
    )

OFFLINE = {"queue": "default", "validate_spec": False}


@pytest.fixture
def runner() -> Any:
    factories = {**get_scheduler_factories(), "kubernetes_overlay": create_kubernetes_overlay}
    with Runner("test", scheduler_factories=factories) as runner:
        yield runner


def upstream_role() -> Any:
    """A role written for upstream TorchX: its own overlay format, a JOIN that holds
    for every replica included (the ``dshm`` volume has one name in every pod)."""
    role = specs.Role(name="ps", image="ps:1", entrypoint="python", args=["-m", "ps"],
                      num_replicas=2)
    set_overlay(role, "kubernetes", "V1Pod", {
        "metadata": {"labels": {"team": "ml"}},
        "spec": {"nodeSelector": {"pool": "cpu"},
                 "tolerations": [{"key": "cpu", "operator": "Exists"}],
                 JOIN("volumes", on="name"): [{"name": "dshm", "emptyDir": {
                     "medium": "Memory", "sizeLimit": "8Gi"}}]},
    })
    return role


def join_by_container_name_role() -> Any:
    """Upstream's JOIN on containers by name, on a role of two replicas: the name
    ``ps-0`` is replica 0's container's only."""
    role = specs.Role(name="ps", image="ps:1", entrypoint="python", args=["-m", "ps"],
                      num_replicas=2)
    set_overlay(role, "kubernetes", "V1Pod", {
        "spec": {JOIN("containers", on="name"): [{"name": "ps-0", "workingDir": "/w"}]},
    })
    return role


def podfold_role() -> Any:
    role = specs.Role(name="trainer", image="trainer:1", entrypoint="python",
                      args=["-m", "train"], num_replicas=2)
    return with_overlays(role, append_at("spec.tolerations", {"key": "gpu",
                                                               "operator": "Exists"}),
                         merge_by("spec.containers[0].env",
                                  [{"name": "RANK", "value": "${replica_id}"}]))


def pods(info: Any) -> dict[str, Any]:
    resource = info.request.resource
    text = json.dumps(ApiClient().sanitize_for_serialization(resource))
    text = text.replace(resource["metadata"]["name"], "APP-ID").replace(
        "kubernetes_overlay://", "kubernetes://")
    return {task["name"]: task["template"] for task in json.loads(text)["spec"]["tasks"]}


def test_nightly_still_has_what_podfold_builds_on() -> None:
    assert issubclass(KubernetesOverlayScheduler, KubernetesScheduler)
    assert callable(KubernetesScheduler._submit_dryrun)
    assert KubernetesJob.__dataclass_fields__.keys() >= {"resource", "images_to_push"}
    options = create_kubernetes_overlay("test").run_opts()
    for name in ("overlays", "validate", "k8s_version", "validate_spec", "queue"):
        assert options.get(name) is not None, name


def test_offline_dry_runs_need_validate_spec_false(runner: Any) -> None:
    app = specs.AppDef("job", roles=[podfold_role()])
    with pytest.raises(Exception):  # noqa: B017 - whatever the client fails with, offline
        runner.dryrun(app, "kubernetes_overlay", cfg={"queue": "default"})


def test_an_upstream_role_renders_as_upstream_renders_it_once(runner: Any) -> None:
    app = specs.AppDef("job", roles=[upstream_role()])
    ours = pods(runner.dryrun(copy.deepcopy(app), "kubernetes_overlay", cfg=OFFLINE))
    theirs = pods(runner.dryrun(copy.deepcopy(app), "kubernetes", cfg=OFFLINE))
    assert ours == theirs
    assert sorted(ours) == ["ps-0", "ps-1"]
    for pod in ours.values():
        assert [t["key"] for t in pod["spec"]["tolerations"]] == ["cpu"]  # not twice
        assert pod["spec"]["nodeSelector"] == {"pool": "cpu"}
        dshm = [v for v in pod["spec"]["volumes"] if v["name"] == "dshm"]
        assert dshm == [{"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}}]


def test_upstream_join_by_container_name_gives_replica_1_a_container_without_image(
        runner: Any) -> None:
    app = specs.AppDef("job", roles=[join_by_container_name_role()])
    theirs = pods(runner.dryrun(copy.deepcopy(app), "kubernetes", cfg=OFFLINE))
    assert theirs["ps-0"]["spec"]["containers"] == [
        {**theirs["ps-0"]["spec"]["containers"][0], "workingDir": "/w"}]
    first, phantom = theirs["ps-1"]["spec"]["containers"]
    assert (first["name"], first["image"], "workingDir" in first) == ("ps-1", "ps:1", False)
    assert phantom == {"name": "ps-0", "workingDir": "/w"}  # appended: no image, no command
    # podfold folds the overlay the same way, and its validation stops the dry run
    with pytest.raises(FoldError) as caught:
        runner.dryrun(copy.deepcopy(app), "kubernetes_overlay", cfg=OFFLINE)
    assert (caught.value.role, caught.value.replica) == ("ps", 1)
    assert "spec.containers[name=ps-0].image: a container of a pod needs an image" in \
        str(caught.value)
    # without the validation, podfold renders what upstream renders
    unchecked = pods(runner.dryrun(copy.deepcopy(app), "kubernetes_overlay",
                                   cfg={**OFFLINE, "validate": False}))
    assert unchecked == theirs


def test_both_kinds_of_role_and_launch_overlays_together(runner: Any, tmp_path: Path) -> None:
    launch = tmp_path / "launch.yaml"
    launch.write_text("spec:\n  tolerations:\n    - {key: launch, operator: Exists}\n")
    app = specs.AppDef("job", roles=[podfold_role(), upstream_role()])
    before = copy.deepcopy(app)
    found = pods(runner.dryrun(app, "kubernetes_overlay",
                               cfg={**OFFLINE, "overlays": [str(launch)]}))
    assert sorted(found) == ["ps-0", "ps-1", "trainer-0", "trainer-1"]
    for name, pod in found.items():
        keys = [t["key"] for t in pod["spec"]["tolerations"]]
        env = {e["name"]: e.get("value") for e in pod["spec"]["containers"][0]["env"]}
        if name.startswith("trainer"):
            assert keys == ["gpu", "launch"]
            assert env["RANK"] == name[-1]  # podfold substitutes the macros
        else:
            assert keys == ["cpu", "launch"]
            assert pod["metadata"]["labels"]["team"] == "ml"
            assert "RANK" not in env and pod["spec"]["nodeSelector"] == {"pool": "cpu"}
    for role in app.roles:
        role.env.pop("TORCHX_JOB_ID", None)  # written by Runner.dryrun itself
    assert app == before


def test_fold_errors_stop_the_dry_run(runner: Any) -> None:
    role = with_overlays(podfold_role(), {"spec": {"node_selector": {"gpu": "a100"}}})
    with pytest.raises(FoldError, match="did you mean nodeSelector"):
        runner.dryrun(specs.AppDef("job", roles=[role]), "kubernetes_overlay", cfg=OFFLINE)


def test_the_mcad_overlay_scheduler_says_it_needs_mcad() -> None:
    # podfold's own error (one short line under podfold render), not an internal one
    with pytest.raises(LaunchError, match="kubernetes_mcad") as caught:
        create_kubernetes_mcad_overlay("test")
    assert isinstance(caught.value, TransformError)


def test_nightly_keeps_its_builtin_schedulers() -> None:
    names = set(get_scheduler_factories())
    assert names >= {"local_cwd", "local_docker", "slurm", "kubernetes"}
