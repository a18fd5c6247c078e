"""Submitting for real (``torchx run`` without ``--dryrun``), on every TorchX podfold runs on.

The job goes to a stand-in API server on a local port (:mod:`tests.apiserver`), which the
kubernetes client talks to over HTTP as to a cluster: what it receives is the folded job,
the launch-time overlay on every pod. Where there is no cluster (no kubeconfig), where the
API server cannot be reached, or where it refuses the job, ``torchx run`` ends in one short
line naming the cause, never a traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from torchx.runner import Runner

from tests.apiserver import ApiServer, api_server, closed_port
from tests.torchx_versions import OVERLAY_SCHEDULERS
from transforms.torchx.errors import LaunchError
from transforms.torchx.schedulers import (
    create_kubernetes_mcad_overlay,
    create_kubernetes_overlay,
)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

REPO = Path(__file__).resolve().parent.parent
TORCHX_CLI = Path(sys.executable).with_name("torchx")
COMPONENT = f"{REPO / 'examples' / 'trainer.py'}:trainer"
A100 = str(REPO / "examples" / "a100.yaml")
A100_POOL = {"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"}
HAS_VALIDATE_SPEC = "validate_spec" in dict(create_kubernetes_overlay("test").run_opts())
NO_DRY_RUN = {"validate_spec": False} if HAS_VALIDATE_SPEC else {}
"""Straight to TorchX's create, where TorchX would have the API server dry-run it first."""
FACTORIES = {
    "kubernetes_overlay": create_kubernetes_overlay,
    "kubernetes_mcad_overlay": create_kubernetes_mcad_overlay,
}
SCHEDULERS = OVERLAY_SCHEDULERS
CFG: dict[str, dict[str, Any]] = {
    "kubernetes_overlay": {"queue": "default"},
    "kubernetes_mcad_overlay": {},
}
PLURAL = {
    "kubernetes_overlay": "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs",
    "kubernetes_mcad_overlay": "/apis/workload.codeflare.dev/v1beta1/namespaces/default/appwrappers",
}


def pods(resource: Any) -> list[Any]:
    """The pods of a Volcano Job or of an AppWrapper, as the API server received them."""
    if resource["kind"] == "Job":
        return [task["template"] for task in resource["spec"]["tasks"]]
    return [
        item["generictemplate"]
        for item in resource["spec"]["resources"]["GenericItems"]
        if item["generictemplate"].get("kind") == "Pod"
    ]


@pytest.fixture
def server() -> Iterator[ApiServer]:
    with api_server() as running:
        yield running


def runner_for(scheduler: str, client: Any) -> Runner:
    def factory(session_name: str, **kwargs: Any) -> Any:
        return FACTORIES[scheduler](session_name, client=client)

    return Runner("test", scheduler_factories={scheduler: factory})


def submit(scheduler: str, client: Any, **cfg: Any) -> str:
    with runner_for(scheduler, client) as runner:
        handle: str = runner.run_component(
            COMPONENT, [], scheduler, cfg={**CFG[scheduler], "overlays": [A100], **cfg}
        )
    return handle


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_a_submit_creates_the_folded_job(server: ApiServer, scheduler: str) -> None:
    handle = submit(scheduler, server.client())
    (created,) = [request for request in server.posts() if not request.dry_run]
    assert created.path == PLURAL[scheduler]
    name = created.body["metadata"]["name"]
    assert handle == f"{scheduler}://test/default:{name}"
    found = pods(created.body)
    assert len(found) == 3  # trainer-0, trainer-1, ps-0
    for pod in found:
        assert pod["spec"]["nodeSelector"] == A100_POOL
        (dshm,) = [volume for volume in pod["spec"]["volumes"] if volume["name"] == "dshm"]
        assert dshm["emptyDir"] == {"medium": "Memory", "sizeLimit": "16Gi"}
    for request in server.posts():  # a dry run before it, where TorchX has one, saw the same
        assert request.body == created.body


@pytest.mark.parametrize(
    ("status", "message", "expected"),
    [
        (
            422,
            'Job.batch.volcano.sh "x" is invalid: spec.tasks: Required value',
            '422 Unprocessable Entity: Job.batch.volcano.sh "x" is invalid: spec.tasks: '
            "Required value",
        ),
        (
            403,
            'jobs.batch.volcano.sh is forbidden: User "u" cannot create resource "jobs"',
            "403 Forbidden: jobs.batch.volcano.sh is forbidden",
        ),
        (
            404,
            "the server could not find the requested resource",
            "404 Not Found: the server could not find the requested resource (is Volcano installed? "
            "the cluster has no batch.volcano.sh/v1alpha1 Job)",
        ),
    ],
)
def test_the_api_server_refusing_the_job_is_one_line_with_its_reason(
    status: int, message: str, expected: str
) -> None:
    with (
        api_server(status=status, message=message) as refusing,
        pytest.raises(LaunchError) as caught,
    ):
        submit("kubernetes_overlay", refusing.client())
    text = str(caught.value)
    assert text.startswith(f"the Kubernetes API server at {refusing.host} refused ")
    assert expected in text
    assert "\n" not in text and len(text) < 300


def test_a_job_that_exists_already_is_one_line_naming_it() -> None:
    # TorchX's own scheduler says so in a ValueError of its own (409 Conflict)
    name = "trainer-abc"
    with (
        api_server(
            status=409,
            message=f'jobs.batch.volcano.sh "{name}" already exists',
            details={"name": name, "group": "batch.volcano.sh", "kind": "jobs"},
        ) as refusing,
        pytest.raises(LaunchError) as caught,
    ):
        submit("kubernetes_overlay", refusing.client(), **NO_DRY_RUN)
    assert [request.dry_run for request in refusing.posts()] == [False]
    text = str(caught.value)
    assert text.startswith(
        f"the Kubernetes API server at {refusing.host} refused to create "
        f"the job: Job `{name}` already exists"
    )
    assert "\n" not in text


def test_an_api_server_that_cannot_be_reached_is_named() -> None:
    from tests.apiserver import ApiServer

    host = closed_port()
    with pytest.raises(
        LaunchError,
        match=f"cannot reach the Kubernetes API server at {host} "
        r"to [\w-]+ the job: ",
    ) as caught:
        submit("kubernetes_overlay", ApiServer(host=host).client())
    assert "\n" not in str(caught.value)


# --- the torchx CLI, in subprocesses -------------------------------------------------------


def torchx(*args: str, kubeconfig: Path) -> subprocess.CompletedProcess[str]:
    """The ``torchx`` CLI with ``kubeconfig`` as the user's (and no cluster it runs in)."""
    command = (
        [str(TORCHX_CLI)] if TORCHX_CLI.exists() else [sys.executable, "-m", "torchx.cli.main"]
    )
    env = {
        key: value for key, value in os.environ.items() if not key.startswith("KUBERNETES_SERVICE")
    }
    env.update(KUBECONFIG=str(kubeconfig), HOME=str(kubeconfig.parent))
    return subprocess.run(
        [*command, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        env=env,
    )


MAIN = (
    "run",
    "--scheduler",
    "kubernetes_overlay",
    "--workspace",
    "",
    "-cfg",
    "queue=default,overlays=examples/a100.yaml",
    "examples/trainer.py:trainer",
)


def test_cli_submit_without_a_cluster_fails_in_one_short_line(tmp_path: Path) -> None:
    done = torchx(*MAIN, kubeconfig=tmp_path / "no-such-kubeconfig")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    (line,) = [line for line in done.stderr.splitlines() if "Kubernetes" in line]
    assert "no Kubernetes cluster to submit the job to: failed to load kube config: " in line
    assert "KUBECONFIG" in line and "--dryrun" in line  # what to do
    assert len(line) < 300
    assert len(done.stderr.splitlines()) <= 5, done.stderr  # TorchX's own lines and this one
    assert "kubernetes_overlay://" not in done.stdout


def test_cli_submit_through_a_kubeconfig_creates_the_folded_job(
    tmp_path: Path, server: ApiServer
) -> None:
    done = torchx(*MAIN, kubeconfig=server.kubeconfig(tmp_path))
    assert done.returncode == 0, done.stderr
    (created,) = [request for request in server.posts() if not request.dry_run]
    assert f"kubernetes_overlay://torchx/default:{created.body['metadata']['name']}" in done.stdout
    assert all(pod["spec"]["nodeSelector"] == A100_POOL for pod in pods(created.body))
