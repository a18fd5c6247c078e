"""podfold's schedulers on ``torchx-nightly``, which has overlays of its own.

Newer TorchX applies ``role.metadata["kubernetes"]`` itself while it renders
each pod (``torchx.specs.overlays``). podfold's scheduler hands TorchX the
roles without that key and folds every overlay itself, so a role written
for upstream renders as upstream renders it, once, and podfold's own
overlays and launch-time overlays come after.

Nightly's own scheduler asks the API server to dry-run the job inside every
dry run unless ``validate_spec=False``, before any overlay is applied. podfold's
asks it about the folded job, and by default only when the job is submitted:
``torchx run --dryrun`` stays offline, as on TorchX 0.7.0, and
``validate_spec=true`` asks under ``--dryrun`` too. These tests talk to a
stand-in API server on a local port (:mod:`tests.apiserver`) and run the
README's main command through this environment's ``torchx``, with no cluster.

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
import dataclasses
import importlib.metadata
import importlib.util
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.apiserver import ApiServer, api_server
from tests.test_torchx_builtins import TORCHX_070


def _nightly_version() -> str | None:
    try:
        return importlib.metadata.version("torchx-nightly")
    except importlib.metadata.PackageNotFoundError:
        return None


NIGHTLY = _nightly_version()
if NIGHTLY is None and os.environ.get("PODFOLD_REQUIRE_TORCHX_NIGHTLY"):
    pytest.fail(
        "PODFOLD_REQUIRE_TORCHX_NIGHTLY is set but torchx-nightly is not installed "
        "in this environment (a stable torchx release is, or none)",
        pytrace=False,
    )
pytestmark = [
    pytest.mark.skipif(
        NIGHTLY is None,
        reason="needs torchx-nightly (a stable torchx "
        "release is installed): its scheduler applies overlays itself",
    ),
    pytest.mark.filterwarnings("ignore"),
]

if NIGHTLY is not None:
    from kubernetes.client import ApiClient
    from torchx import plugins, specs
    from torchx.runner import Runner
    from torchx.schedulers import get_default_scheduler_name, get_scheduler_factories
    from torchx.schedulers.kubernetes_scheduler import KubernetesJob, KubernetesScheduler
    from torchx.specs.overlays import DEL, JOIN, PUT, apply_overlay, get_overlay, set_overlay

    from combinators import TransformError, append_at, merge_by
    from transforms.torchx.errors import LaunchError
    from transforms.torchx.folding import FoldError
    from transforms.torchx.roles import role_overlays, with_overlays
    from transforms.torchx.schedulers import (
        KubernetesOverlayScheduler,
        create_kubernetes_mcad_overlay,
        create_kubernetes_overlay,
    )

OFFLINE = {"queue": "default", "validate_spec": False}
"""What upstream's ``kubernetes`` scheduler needs to dry-run offline; podfold's needs the
queue only."""
QUEUE = {"queue": "default"}
REPO = Path(__file__).resolve().parent.parent
A100_POOL = {"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"}


@pytest.fixture
def runner() -> Any:
    factories = {**get_scheduler_factories(), "kubernetes_overlay": create_kubernetes_overlay}
    with Runner("test", scheduler_factories=factories) as runner:
        yield runner


def upstream_role() -> Any:
    """A role written for upstream TorchX: its own overlay format, a JOIN that holds
    for every replica included (the ``dshm`` volume has one name in every pod)."""
    role = specs.Role(
        name="ps", image="ps:1", entrypoint="python", args=["-m", "ps"], num_replicas=2
    )
    set_overlay(
        role,
        "kubernetes",
        "V1Pod",
        {
            "metadata": {"labels": {"team": "ml"}},
            "spec": {
                "nodeSelector": {"pool": "cpu"},
                "tolerations": [{"key": "cpu", "operator": "Exists"}],
                JOIN("volumes", on="name"): [
                    {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}}
                ],
            },
        },
    )
    return role


def join_by_container_name_role() -> Any:
    """Upstream's JOIN on containers by name, on a role of two replicas: the name
    ``ps-0`` is replica 0's container's only."""
    role = specs.Role(
        name="ps", image="ps:1", entrypoint="python", args=["-m", "ps"], num_replicas=2
    )
    set_overlay(
        role,
        "kubernetes",
        "V1Pod",
        {
            "spec": {JOIN("containers", on="name"): [{"name": "ps-0", "workingDir": "/w"}]},
        },
    )
    return role


def podfold_role() -> Any:
    role = specs.Role(
        name="trainer", image="trainer:1", entrypoint="python", args=["-m", "train"], num_replicas=2
    )
    return with_overlays(
        role,
        append_at("spec.tolerations", {"key": "gpu", "operator": "Exists"}),
        merge_by("spec.containers[0].env", [{"name": "RANK", "value": "${replica_id}"}]),
    )


def pods(info: Any) -> dict[str, Any]:
    resource = info.request.resource
    text = json.dumps(ApiClient().sanitize_for_serialization(resource))
    text = text.replace(resource["metadata"]["name"], "APP-ID").replace(
        "kubernetes_overlay://", "kubernetes://"
    )
    return {task["name"]: task["template"] for task in json.loads(text)["spec"]["tasks"]}


def test_nightly_still_has_what_podfold_builds_on() -> None:
    assert issubclass(KubernetesOverlayScheduler, KubernetesScheduler)
    assert callable(KubernetesScheduler._submit_dryrun)
    assert KubernetesJob.__dataclass_fields__.keys() >= {"resource", "images_to_push"}
    for name in ("_api_client", "_custom_objects_api", "schedule"):
        assert callable(getattr(KubernetesScheduler, name)), name
    assert "validate_spec" in KubernetesScheduler._opts_type().__dataclass_fields__
    options = create_kubernetes_overlay("test").run_opts()
    for name in ("overlays", "validate", "k8s_version", "validate_spec", "queue"):
        assert options.get(name) is not None, name


def test_an_upstream_role_renders_as_upstream_renders_it_once(runner: Any) -> None:
    app = specs.AppDef("job", roles=[upstream_role()])
    ours = pods(runner.dryrun(copy.deepcopy(app), "kubernetes_overlay", cfg=QUEUE))
    theirs = pods(runner.dryrun(copy.deepcopy(app), "kubernetes", cfg=OFFLINE))
    assert ours == theirs
    assert sorted(ours) == ["ps-0", "ps-1"]
    for pod in ours.values():
        assert [t["key"] for t in pod["spec"]["tolerations"]] == ["cpu"]  # not twice
        assert pod["spec"]["nodeSelector"] == {"pool": "cpu"}
        dshm = [v for v in pod["spec"]["volumes"] if v["name"] == "dshm"]
        assert dshm == [{"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}}]


def test_podfold_reads_each_form_upstream_keeps_in_a_role(tmp_path: Path) -> None:
    # what upstream's get_overlay reads of metadata["kubernetes"]: a file URI, the marked
    # nested format beside another kind, with its PUT, JOIN and DEL; folded as upstream's
    # apply_overlay applies it
    pod = {
        "metadata": {"labels": {"a": "1", "drop": "x"}},
        "spec": {"containers": [{"name": "c", "image": "i"}], "nodeSelector": {"x": "y"}},
    }
    file = tmp_path / "overlay.yaml"
    file.write_text("spec:\n  nodeSelector: {pool: a100}\n")
    from_file = specs.Role(name="r", image="i", metadata={"kubernetes": file.as_uri()})
    nested = specs.Role(name="r", image="i")
    set_overlay(
        nested,
        "kubernetes",
        "V1Pod",
        {
            "metadata": {"labels": {DEL("drop"): None}},
            "spec": {
                PUT("nodeSelector"): {"pool": "h100"},
                JOIN("containers", on="name"): [{"name": "c", "workingDir": "/w"}],
            },
        },
    )
    set_overlay(nested, "kubernetes", "HpcJobDefinition", {"spec": {"hostIPC": True}})
    for role in (from_file, nested):
        theirs = copy.deepcopy(pod)
        apply_overlay(theirs, copy.deepcopy(get_overlay(role, "kubernetes", "V1Pod")))
        (overlay,) = role_overlays(role)
        assert overlay(pod) == theirs
    assert "hostIPC" not in role_overlays(nested)[0](pod)["spec"]  # another kind's overlay


def test_upstream_join_by_container_name_gives_replica_1_a_container_without_image(
    runner: Any,
) -> None:
    app = specs.AppDef("job", roles=[join_by_container_name_role()])
    theirs = pods(runner.dryrun(copy.deepcopy(app), "kubernetes", cfg=OFFLINE))
    assert theirs["ps-0"]["spec"]["containers"] == [
        {**theirs["ps-0"]["spec"]["containers"][0], "workingDir": "/w"}
    ]
    first, phantom = theirs["ps-1"]["spec"]["containers"]
    assert (first["name"], first["image"], "workingDir" in first) == ("ps-1", "ps:1", False)
    assert phantom == {"name": "ps-0", "workingDir": "/w"}  # appended: no image, no command
    # podfold folds the overlay the same way, and its validation stops the dry run
    with pytest.raises(FoldError) as caught:
        runner.dryrun(copy.deepcopy(app), "kubernetes_overlay", cfg=QUEUE)
    assert (caught.value.role, caught.value.replica) == ("ps", 1)
    assert "spec.containers[name=ps-0].image: a container of a pod needs an image" in str(
        caught.value
    )
    # without the validation, podfold renders what upstream renders
    unchecked = pods(
        runner.dryrun(copy.deepcopy(app), "kubernetes_overlay", cfg={**QUEUE, "validate": False})
    )
    assert unchecked == theirs


def test_both_kinds_of_role_and_launch_overlays_together(runner: Any, tmp_path: Path) -> None:
    launch = tmp_path / "launch.yaml"
    launch.write_text("spec:\n  tolerations:\n    - {key: launch, operator: Exists}\n")
    app = specs.AppDef("job", roles=[podfold_role(), upstream_role()])
    before = copy.deepcopy(app)
    found = pods(runner.dryrun(app, "kubernetes_overlay", cfg={**QUEUE, "overlays": [str(launch)]}))
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
        runner.dryrun(specs.AppDef("job", roles=[role]), "kubernetes_overlay", cfg=QUEUE)


def test_the_mcad_overlay_scheduler_says_it_needs_mcad(runner: Any) -> None:
    # podfold's own error (one short line under podfold render), not an internal one; the
    # factory gives a scheduler (torchx runopts lists it), which refuses to render
    scheduler = create_kubernetes_mcad_overlay("test")
    with pytest.raises(LaunchError, match="needs TorchX's kubernetes_mcad scheduler") as caught:
        scheduler.submit_dryrun(specs.AppDef("job", roles=[podfold_role()]), {})
    assert isinstance(caught.value, TransformError)


def test_nightly_keeps_its_builtin_schedulers() -> None:
    names = set(get_scheduler_factories())
    assert names >= {"local_cwd", "local_docker", "slurm", "kubernetes"}


# --- asking the API server: about the folded job, at submission ----------------------------


@pytest.fixture
def server() -> Iterator[ApiServer]:
    with api_server() as running:
        yield running


def against(server: ApiServer) -> Any:
    """A runner whose ``kubernetes_overlay`` talks to ``server``."""

    def factory(session_name: str, **kwargs: Any) -> Any:
        return create_kubernetes_overlay(session_name, client=server.client())

    return Runner("test", scheduler_factories={"kubernetes_overlay": factory})


def a100_app() -> Any:
    return specs.AppDef("job", roles=[podfold_role()])


A100_CFG = {**QUEUE, "overlays": [str(REPO / "examples" / "a100.yaml")]}


def task_pods(resource: Any) -> list[Any]:
    return [task["template"] for task in resource["spec"]["tasks"]]


@pytest.mark.parametrize(
    ("validate_spec", "asked"),
    [({}, False), ({"validate_spec": False}, False), ({"validate_spec": True}, True)],
)
def test_a_dry_run_asks_the_api_server_only_when_validate_spec_is_true(
    server: ApiServer, validate_spec: dict[str, bool], asked: bool
) -> None:
    with against(server) as runner:
        info = runner.dryrun(a100_app(), "kubernetes_overlay", cfg={**A100_CFG, **validate_spec})
    if not asked:
        assert server.requests == []
        return
    (request,) = server.requests
    assert request.dry_run and request.path.endswith("/namespaces/default/jobs")
    assert request.body == ApiClient().sanitize_for_serialization(info.request.resource)
    assert all(pod["spec"]["nodeSelector"] == A100_POOL for pod in task_pods(request.body))


def test_a_submit_has_the_api_server_dry_run_the_folded_job_first(server: ApiServer) -> None:
    with against(server) as runner:
        runner.run(a100_app(), "kubernetes_overlay", cfg=A100_CFG)
    checked, created = server.posts()
    assert (checked.dry_run, created.dry_run) == (True, False)
    assert checked.body == created.body
    for pod in task_pods(checked.body):  # the overlays' pods, not TorchX's
        assert pod["spec"]["nodeSelector"] == A100_POOL
        assert [t["key"] for t in pod["spec"]["tolerations"]] == ["gpu", "nvidia.com/gpu"]


def test_validate_spec_false_submits_without_asking_first(server: ApiServer) -> None:
    with against(server) as runner:
        runner.run(a100_app(), "kubernetes_overlay", cfg={**A100_CFG, "validate_spec": False})
    (created,) = server.posts()
    assert not created.dry_run


def test_the_api_server_refusing_the_dry_run_stops_the_submit() -> None:
    with (
        api_server(status=422, message="spec.tasks[0].template: Invalid value") as refusing,
        against(refusing) as runner,
        pytest.raises(LaunchError) as caught,
    ):
        runner.run(a100_app(), "kubernetes_overlay", cfg=A100_CFG)
    assert [request.dry_run for request in refusing.posts()] == [True]  # nothing created
    assert str(caught.value) == (
        f"the Kubernetes API server at {refusing.host} refused to dry-run the job: "
        "422 Unprocessable Entity: spec.tasks[0].template: Invalid value"
    )


def test_a_pod_name_over_63_characters_is_refused_before_the_api_server_is_asked(
    server: ApiServer,
) -> None:
    app = specs.AppDef(
        "a-rather-long-application-name-for-a-job",
        roles=[dataclasses.replace(podfold_role(), name="a-long-role-name")],
    )
    with against(server) as runner, pytest.raises(LaunchError) as caught:
        runner.run(app, "kubernetes_overlay", cfg=QUEUE)
    assert server.requests == []
    text = str(caught.value)
    assert text.startswith("the pod name 'a-rather-long-application-name-for-a-job-")
    assert "-a-long-role-name-0-0' is " in text and "characters, more than the 63" in text
    # offline, nothing is asked, and the dry run prints the job
    with against(server) as runner:
        runner.dryrun(app, "kubernetes_overlay", cfg=QUEUE)


# --- the README's main command, through this environment's torchx -------------------------


def readme_main_command() -> list[str]:
    """The README's main command, word for word: the ``torchx run`` that ends its set-up line."""
    for line in (REPO / "README.md").read_text().splitlines():
        if "pip install" in line and "&& torchx run " in line:
            return shlex.split(line.rsplit(" && ", 1)[1])
    raise AssertionError("the README's set-up has no line that runs torchx")


def cli(
    words: list[str],
    home: Path,
    kubeconfig: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """``words`` run with this environment's script ``words[0]`` (``torchx``, ``podfold``),
    from the repository's root, with no cluster (no kubeconfig, not in a pod) unless
    ``kubeconfig`` names one."""
    env = {
        key: value for key, value in os.environ.items() if not key.startswith("KUBERNETES_SERVICE")
    }
    env.update(HOME=str(home), KUBECONFIG=str(kubeconfig or home / "no-kubeconfig"))
    program = Path(sys.executable).with_name(words[0])
    return subprocess.run(
        [str(program), *words[1:]],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        env=env,
    )


def assert_a100_job(job: Any) -> None:
    assert (job["apiVersion"], job["kind"]) == ("batch.volcano.sh/v1alpha1", "Job")
    found = task_pods(job)
    assert sorted(pod["metadata"]["labels"]["torchx.pytorch.org/role-name"] for pod in found) == [
        "ps",
        "trainer",
        "trainer",
    ]
    for pod in found:
        spec = pod["spec"]
        assert spec["nodeSelector"] == A100_POOL
        assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in spec[
            "tolerations"
        ]
        (dshm,) = [volume for volume in spec["volumes"] if volume["name"] == "dshm"]
        assert dshm["emptyDir"] == {"medium": "Memory", "sizeLimit": "16Gi"}
        env = {e["name"]: e.get("value") for e in spec["containers"][0]["env"]}
        assert env["NCCL_DEBUG"] == "INFO"


def test_the_readmes_main_command_prints_the_folded_job_offline(tmp_path: Path) -> None:
    words = readme_main_command()
    assert words[:2] == ["torchx", "run"] and "--dryrun" in words
    done = cli(words, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "kube config" not in done.stderr  # no cluster was even looked for
    assert_a100_job(yaml.safe_load(done.stdout.split("=== SCHEDULER REQUEST ===", 1)[1]))


def test_the_readmes_main_command_submitting_without_a_cluster_fails_in_one_short_line(
    tmp_path: Path,
) -> None:
    words = [word for word in readme_main_command() if word != "--dryrun"]
    done = cli(words, tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    (line,) = [line for line in done.stderr.splitlines() if "Kubernetes" in line]
    assert "no Kubernetes cluster to submit the job to: failed to load kube config: " in line
    assert "KUBECONFIG" in line and "--dryrun" in line  # what to do
    assert len(line) < 300
    assert len(done.stderr.splitlines()) <= 5, done.stderr  # TorchX's own lines and this one


def test_validate_spec_true_under_dryrun_without_a_cluster_fails_in_one_short_line(
    tmp_path: Path,
) -> None:
    words = readme_main_command()
    cfg = words.index("-cfg") + 1
    words[cfg] += ",validate_spec=true"
    done = cli(words, tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    (line,) = [line for line in done.stderr.splitlines() if "Kubernetes" in line]
    assert (
        "no Kubernetes cluster to dry-run the job on (validate_spec=true): failed to "
        "load kube config: " in line
    )
    assert "=== SCHEDULER REQUEST ===" not in done.stdout


def test_the_readmes_main_command_submits_through_a_kubeconfig(
    tmp_path: Path, server: ApiServer
) -> None:
    words = [word for word in readme_main_command() if word != "--dryrun"]
    done = cli(words, tmp_path, kubeconfig=server.kubeconfig(tmp_path))
    assert done.returncode == 0, done.stderr
    checked, created = server.posts()
    assert (checked.dry_run, created.dry_run, checked.body) == (True, False, created.body)
    assert_a100_job(created.body)
    assert f"kubernetes_overlay://torchx/default:{created.body['metadata']['name']}" in done.stdout


def test_podfold_render_prints_the_folded_job_offline(tmp_path: Path) -> None:
    done = cli(
        [
            "podfold",
            "render",
            "--queue",
            "default",
            "-f",
            "examples/a100.yaml",
            "examples/trainer.py:trainer",
        ],
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "kube config" not in done.stderr
    assert_a100_job(yaml.safe_load(done.stdout))


def test_runopts_says_when_validate_spec_asks(tmp_path: Path) -> None:
    done = cli(["torchx", "runopts", "kubernetes_overlay"], tmp_path)
    assert done.returncode == 0, done.stderr
    listed = done.stdout.split("validate_spec=VALIDATE_SPEC ", 1)[1].splitlines()
    assert listed[0] == "(bool, None)"
    assert "unset: when the job is submitted, not under --dryrun" in listed[1]


def test_podfolds_schedulers_are_found_through_torchxs_plugin_registry() -> None:
    # entry points, which nightly still reads (and reads first): a torchx_plugins
    # registration beside them would be a collision it warns of on every command
    registry = plugins.PluginRegistry()
    found = registry.get(plugins.PluginType.SCHEDULER)
    assert isinstance(found["kubernetes_overlay"]("test"), KubernetesOverlayScheduler)
    assert registry.load_errors(plugins.PluginType.SCHEDULER) == []
    assert "kubernetes_overlay" in get_scheduler_factories()


# --- TorchX 0.7.0's built-ins, registered again by podfold, on a TorchX that lacks some -----

LACKING = (
    *[name for name, module in TORCHX_070.items() if importlib.util.find_spec(module) is None],
    *(
        ["kubernetes_mcad_overlay"]
        if importlib.util.find_spec(TORCHX_070["kubernetes_mcad"]) is None
        else []
    ),
)
"""The schedulers podfold registers (for TorchX 0.7.0) that this TorchX does not have."""


def why_not(name: str) -> str:
    """The start of the line that says why this TorchX cannot run ``name``."""
    if name == "kubernetes_mcad_overlay":
        return (
            f"kubernetes_mcad_overlay needs TorchX's kubernetes_mcad scheduler, which "
            f"TorchX removed: this TorchX (version {NIGHTLY}) has none"
        )
    return (
        f"TorchX removed its {name} scheduler: this TorchX (version {NIGHTLY}) has none; "
        f"podfold registers the name for TorchX 0.7.0, which drops its built-ins when a "
        f"package adds a scheduler"
    )


def test_nightly_lacks_some_of_torchx_070s_schedulers() -> None:
    # what the tests below are about: without it they would check nothing
    assert "kubernetes_mcad" in LACKING and "kubernetes_mcad_overlay" in LACKING
    assert set(LACKING) < {*TORCHX_070, "kubernetes_mcad_overlay"}


def test_runopts_says_in_one_line_which_schedulers_this_torchx_lacks(tmp_path: Path) -> None:
    done = cli(["torchx", "runopts"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "No module named" not in done.stdout
    lines = done.stdout.splitlines()
    for name in LACKING:
        at = lines.index(f"{name}:")
        assert lines[at + 1].startswith(f"    {why_not(name)}"), lines[at + 1]
        assert lines[at + 2] == "", name


@pytest.mark.parametrize("name", LACKING)
def test_running_a_scheduler_this_torchx_lacks_fails_in_one_short_line(
    name: str, tmp_path: Path
) -> None:
    # a run option too: this TorchX refuses a key the scheduler lacks before the run starts
    done = cli(
        [
            "torchx",
            "run",
            "--scheduler",
            name,
            "--dryrun",
            "-cfg",
            "queue=default",
            "utils.echo",
            "--msg",
            "hi",
        ],
        tmp_path,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    (line,) = [line for line in done.stderr.splitlines() if why_not(name) in line]
    assert line.strip().startswith(why_not(name)), line
    assert len(done.stderr.splitlines()) <= 6, done.stderr


def test_torchx_run_without_a_scheduler_runs_or_names_the_default_in_one_line(
    tmp_path: Path,
) -> None:
    # the default is the first registered name, a scheduler of TorchX 0.7.0 nightly may lack
    default = get_default_scheduler_name()
    dry_run = cli(["torchx", "run", "--dryrun", "utils.echo", "--msg", "hi"], tmp_path)
    assert "Traceback" not in dry_run.stderr
    if default not in LACKING:
        assert dry_run.returncode == 0, dry_run.stderr
        return
    submitted = cli(["torchx", "run", "utils.echo", "--msg", "hi"], tmp_path)  # nothing to run
    for done in (dry_run, submitted):
        assert done.returncode == 1, done.stdout + done.stderr
        assert "Traceback" not in done.stderr
        (line,) = [line for line in done.stderr.splitlines() if why_not(default) in line]
        assert line.strip().startswith(why_not(default)), line
        assert "--scheduler" in line and ".torchxconfig" in line  # what to do instead


def test_local_cwd_really_runs_on_nightly(tmp_path: Path) -> None:
    done = cli(
        [
            "torchx",
            "run",
            "--scheduler",
            "local_cwd",
            "--workspace",
            "",
            "-cfg",
            f"log_dir={tmp_path}",
            "utils.echo",
            "--msg",
            "hi-from-nightly",
        ],
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    (log,) = tmp_path.glob("torchx/echo-*/echo/0/stdout.log")
    assert log.read_text().strip() == "hi-from-nightly"
