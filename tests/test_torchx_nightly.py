"""podfold's schedulers on ``torchx-nightly``, which has overlays of its own.

Newer TorchX applies ``role.metadata["kubernetes"]`` itself while it renders
each pod (``torchx.specs.overlays``). podfold's scheduler hands TorchX the
roles without that key and folds every overlay itself, so a role written
for upstream renders as upstream renders it, once, and podfold's own
overlays and launch-time overlays come after. Nightly's scheduler also
asks the API server to dry-run the job unless ``validate_spec=False``.

These tests run only where ``torchx-nightly`` is installed.
"""

from __future__ import annotations

import copy
import importlib.metadata
import json
from pathlib import Path
from typing import Any

import pytest


def _nightly_version() -> str | None:
    try:
        return importlib.metadata.version("torchx-nightly")
    except importlib.metadata.PackageNotFoundError:
        return None


NIGHTLY = _nightly_version()
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

    from combinators import append_at, merge_by
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
    """A role written for upstream TorchX: its own overlay format, JOIN included."""
    role = specs.Role(name="ps", image="ps:1", entrypoint="python", args=["-m", "ps"],
                      num_replicas=2)
    set_overlay(role, "kubernetes", "V1Pod", {
        "metadata": {"labels": {"team": "ml"}},
        "spec": {"nodeSelector": {"pool": "cpu"},
                 "tolerations": [{"key": "cpu", "operator": "Exists"}],
                 JOIN("containers", on="name"): [{"name": "ps-0", "workingDir": "/w"}]},
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
    assert [t["key"] for t in ours["ps-0"]["spec"]["tolerations"]] == ["cpu"]  # not twice
    assert ours["ps-0"]["spec"]["containers"][0]["workingDir"] == "/w"


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
    for role in app.roles:
        role.env.pop("TORCHX_JOB_ID", None)  # written by Runner.dryrun itself
    assert app == before


def test_fold_errors_stop_the_dry_run(runner: Any) -> None:
    role = with_overlays(podfold_role(), {"spec": {"node_selector": {"gpu": "a100"}}})
    with pytest.raises(FoldError, match="did you mean nodeSelector"):
        runner.dryrun(specs.AppDef("job", roles=[role]), "kubernetes_overlay", cfg=OFFLINE)


def test_the_mcad_overlay_scheduler_says_it_needs_mcad() -> None:
    with pytest.raises(RuntimeError, match="kubernetes_mcad"):
        create_kubernetes_mcad_overlay("test")


def test_nightly_keeps_its_builtin_schedulers() -> None:
    names = set(get_scheduler_factories())
    assert names >= {"local_cwd", "local_docker", "slurm", "kubernetes"}
