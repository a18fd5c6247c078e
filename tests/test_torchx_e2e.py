"""End to end through real TorchX: ``Runner.dryrun`` and the ``torchx`` CLI.

Both podfold schedulers (``kubernetes_overlay``: a Volcano Job;
``kubernetes_mcad_overlay``: an AppWrapper) are run on multi-role,
multi-replica jobs. What they render is compared with what TorchX's own
schedulers render for the same job, with the overlays applied by hand, so
each pod is shown to get exactly its own role's overlays, in order, then the
launch-time ones. Nothing here is mocked; everything runs offline.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes.client import ApiClient
from torchx import specs
from torchx.runner import Runner, get_runner
from torchx.schedulers import get_scheduler_factories

from combinators import append_at, chain, merge_by, upsert
from tests.torchx_versions import OVERLAY_SCHEDULERS, needs_mcad, offline
from transforms.io.loading import load_overlay
from transforms.torchx.folding import FoldError
from transforms.torchx.roles import role_overlays, with_overlays
from transforms.torchx.schedulers import create_kubernetes_overlay

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

REPO = Path(__file__).resolve().parent.parent
TORCHX_CLI = Path(sys.executable).with_name("torchx")
SCHEDULERS = ("kubernetes_overlay", "kubernetes_mcad_overlay")
BUILTIN = {"kubernetes_overlay": "kubernetes", "kubernetes_mcad_overlay": "kubernetes_mcad"}
# cfg each scheduler needs to render offline (MCAD needs nothing; the
# co-scheduler adds PodGroup items, which must come through untouched)
CFG: dict[str, dict[str, Any]] = {
    "kubernetes_overlay": {"queue": "default"},
    "kubernetes_mcad_overlay": {"namespace": "ml", "coscheduler_name": "scheduler-plugins"},
}
JOB_ID = "TORCHX_JOB_ID"


@pytest.fixture(scope="module")
def runner() -> Iterator[Runner]:
    with get_runner() as runner:
        yield runner


def toleration(key: str) -> Any:
    return append_at("spec.tolerations", {"key": key, "operator": "Exists"})


def make_app(
    trainer_overlays: tuple[Any, ...] = (toleration("t1"), toleration("t2")),
    ps_overlays: tuple[Any, ...] = (toleration("p1"),),
    trainer_args: tuple[str, ...] = ("-m", "train"),
) -> specs.AppDef:
    trainer = specs.Role(
        name="trainer",
        image="trainer:1",
        entrypoint="python",
        args=list(trainer_args),
        env={"LOGLEVEL": "INFO"},
        num_replicas=3,
        resource=specs.Resource(cpu=2, gpu=0, memMB=4096),
        port_map={"c10d": 29500},
    )
    ps = specs.Role(
        name="ps",
        image="ps:1",
        entrypoint="python",
        args=["-m", "ps"],
        num_replicas=2,
        resource=specs.Resource(cpu=1, gpu=0, memMB=2048),
    )
    return specs.AppDef(
        name="job",
        roles=[with_overlays(trainer, *trainer_overlays), with_overlays(ps, *ps_overlays)],
    )


def plain(value: Any) -> Any:
    return ApiClient().sanitize_for_serialization(value)


def items(resource: Any, scheduler: str) -> list[Any]:
    """The request's items in order: Volcano task templates, or AppWrapper generic items."""
    if scheduler == "kubernetes_overlay":
        return [task["template"] for task in resource["spec"]["tasks"]]
    return [item["generictemplate"] for item in resource["spec"]["resources"]["GenericItems"]]


def is_pod(item: Any) -> bool:
    return isinstance(item, dict) and "containers" in item.get("spec", {})


def pods(resource: Any, scheduler: str) -> list[dict[str, Any]]:
    return [item for item in plain(items(resource, scheduler)) if is_pod(item)]


def who(pod: dict[str, Any]) -> tuple[str, int]:
    labels = pod["metadata"]["labels"]
    return labels["torchx.pytorch.org/role-name"], int(labels["torchx.pytorch.org/replica-id"])


def without_overlays(app: specs.AppDef) -> specs.AppDef:
    bare = copy.deepcopy(app)
    for role in bare.roles:
        role.metadata.pop("kubernetes", None)
    return bare


def rendered(
    runner: Runner, app: specs.AppDef, scheduler: str, cfg: dict[str, Any]
) -> dict[str, Any]:
    """The request as plain data, its random app id and scheduler name made neutral."""
    info = runner.dryrun(copy.deepcopy(app), scheduler, cfg=cfg)
    resource = info.request.resource
    text = json.dumps(plain(resource))
    text = text.replace(resource["metadata"]["name"], "APP-ID")
    text = text.replace(f"{scheduler}://", f"{BUILTIN.get(scheduler, scheduler)}://")
    result: dict[str, Any] = json.loads(text)
    return result


@pytest.mark.parametrize("scheduler", OVERLAY_SCHEDULERS)
def test_each_pod_gets_its_own_roles_overlays_in_order_then_the_launch_time_ones(
    runner: Runner, scheduler: str, tmp_path: Path
) -> None:
    launch = tmp_path / "launch.yaml"
    launch.write_text("spec:\n  tolerations:\n    - {key: launch, operator: Exists}\n")
    app = make_app()
    cfg = {**CFG[scheduler], "overlays": [str(launch)]}
    ours = rendered(runner, app, scheduler, cfg)
    theirs = rendered(runner, without_overlays(app), BUILTIN[scheduler], offline(CFG[scheduler]))

    chains: dict[str, Callable[[Any], Any]] = {
        role.name: chain(*role_overlays(role), load_overlay(launch)) for role in app.roles
    }
    seen = []
    for mine, base in zip(items(ours, scheduler), items(theirs, scheduler), strict=True):
        if not is_pod(base):  # MCAD's Service and PodGroups: untouched
            assert mine == base
            continue
        role, replica = who(base)
        seen.append((role, replica))
        assert mine == chains[role](base)
        keys = [t["key"] for t in mine["spec"]["tolerations"]]
        assert keys == (["t1", "t2", "launch"] if role == "trainer" else ["p1", "launch"])
    assert sorted(seen) == [("ps", 0), ("ps", 1), ("trainer", 0), ("trainer", 1), ("trainer", 2)]
    # everything around the pods is TorchX's, as it rendered it
    strip = {
        "kubernetes_overlay": ("spec", "tasks"),
        "kubernetes_mcad_overlay": ("spec", "resources"),
    }
    outer, inner = strip[scheduler]
    assert {k: v for k, v in ours[outer].items() if k != inner} == {
        k: v for k, v in theirs[outer].items() if k != inner
    }
    assert {k: v for k, v in ours.items() if k != outer} == {
        k: v for k, v in theirs.items() if k != outer
    }


@needs_mcad
def test_mcad_service_and_podgroups_are_kept(runner: Runner) -> None:
    """Besides the pods, the AppWrapper holds a PodGroup per role (with a
    co-scheduler) and a Service, passed on as TorchX made them."""
    info = runner.dryrun(make_app(), "kubernetes_mcad_overlay", cfg=CFG["kubernetes_mcad_overlay"])
    generic = items(info.request.resource, "kubernetes_mcad_overlay")
    kinds = [plain(item)["kind"] for item in generic]
    assert kinds == ["PodGroup", "PodGroup", "Pod", "Pod", "Pod", "Pod", "Pod", "Service"]
    service = generic[-1]
    assert type(service).__name__ == "V1Service"  # the client object itself, not re-made
    assert all(
        isinstance(item, dict) and "tolerations" not in item.get("spec", {}) for item in generic[:2]
    )


@pytest.mark.parametrize("scheduler", OVERLAY_SCHEDULERS)
def test_macros_are_substituted_per_replica_in_what_overlays_write(
    runner: Runner, scheduler: str
) -> None:
    macros = {
        "REPLICA": specs.macros.replica_id,
        "APP": specs.macros.app_id,
        "IMG_ROOT": specs.macros.img_root,
        "RANK0_ENV": specs.macros.rank0_env,
    }
    env_overlay = merge_by(
        "spec.containers[0].env", [{"name": name, "value": value} for name, value in macros.items()]
    )
    label = upsert('metadata.labels["example.com/replica"]', "r-${replica_id}")
    # TorchX substitutes the macros in the role's args; "$$" leaves a literal "${replica_id}"
    args = (
        "--replica",
        specs.macros.replica_id,
        "--app",
        specs.macros.app_id,
        "--img-root",
        specs.macros.img_root,
        "--rank0-env",
        specs.macros.rank0_env,
        "--literal",
        "$${replica_id}",
    )
    app = make_app(
        trainer_overlays=(env_overlay, label), ps_overlays=(env_overlay,), trainer_args=args
    )
    info = runner.dryrun(app, scheduler, cfg=CFG[scheduler])
    app_id = info.request.resource["metadata"]["name"]
    for pod in pods(info.request.resource, scheduler):
        role, replica = who(pod)
        container = pod["spec"]["containers"][0]
        env = {e["name"]: e.get("value") for e in container["env"]}
        assert env["REPLICA"] == str(replica)
        assert env["APP"] == app_id
        assert env["IMG_ROOT"] == ""
        if role == "trainer":
            # the very values TorchX substituted in the args of the same container
            args = container["command"][1:]  # the entrypoint, then the args
            flags = dict(zip(args[0::2], args[1::2], strict=True))
            assert env["REPLICA"] == flags["--replica"]
            assert env["APP"] == flags["--app"]
            assert env["IMG_ROOT"] == flags["--img-root"]
            assert env["RANK0_ENV"] == flags["--rank0-env"]
            # untouched by the overlay, so left alone
            assert flags["--literal"] == "${replica_id}"
            assert pod["metadata"]["labels"]["example.com/replica"] == f"r-{replica}"
        else:
            assert env["RANK0_ENV"] != "TORCHX_RANK0_HOST"
            assert env["RANK0_ENV"].endswith("TRAINER_0_HOSTS")
    assert all(isinstance(v, str) and "${" not in v for v in (app_id,))


@pytest.mark.parametrize("scheduler", OVERLAY_SCHEDULERS)
def test_the_main_container_is_containers_0_on_every_replica(
    runner: Runner, scheduler: str
) -> None:
    app = make_app(
        trainer_overlays=(
            merge_by("spec.containers[0].env", [{"name": "NCCL_DEBUG", "value": "INFO"}]),
        )
    )
    info = runner.dryrun(app, scheduler, cfg=CFG[scheduler])
    trainers = [pod for pod in pods(info.request.resource, scheduler) if who(pod)[0] == "trainer"]
    names = [c["name"] for pod in trainers for c in pod["spec"]["containers"]]
    assert len(set(names)) == 3  # TorchX names each replica's container apart
    if scheduler == "kubernetes_overlay":
        assert names == ["trainer-0", "trainer-1", "trainer-2"]
    for pod in trainers:
        (container,) = pod["spec"]["containers"]
        assert {"name": "NCCL_DEBUG", "value": "INFO"} in container["env"]
        assert container["image"] == "trainer:1"


def test_a_container_picked_by_a_per_replica_name_fails_on_other_replicas(runner: Runner) -> None:
    """Upstream's ``JOIN("containers", on="name")`` gives replica 1 a phantom
    container with no image; here the path names no container on replica 1,
    and the dry run fails saying so."""
    app = make_app(
        trainer_overlays=(
            merge_by("spec.containers[name=trainer-0].env", [{"name": "A", "value": "1"}]),
        )
    )
    with pytest.raises(FoldError) as caught:
        runner.dryrun(app, "kubernetes_overlay", cfg=CFG["kubernetes_overlay"])
    err = caught.value
    assert (err.role, err.replica) == ("trainer", 1)
    message = str(err)
    assert "role 'trainer', replica 1" in message
    assert "no element [name=trainer-0] in spec.containers" in message
    assert "trainer-1" in message  # what is there instead


UPSTREAM_JOIN = {"spec": {"__join__:containers:name": [{"name": "trainer-0", "workingDir": "/w"}]}}


def test_upstream_join_on_container_names_keeps_upstreams_meaning(runner: Runner) -> None:
    """A role written for upstream keeps upstream's meaning: the JOIN merges on
    replica 0 and appends a partial container on replica 1."""
    app = make_app(trainer_overlays=(UPSTREAM_JOIN,))
    info = runner.dryrun(
        app, "kubernetes_overlay", cfg={**CFG["kubernetes_overlay"], "validate": False}
    )
    first, second = pods(info.request.resource, "kubernetes_overlay")[:2]
    assert [
        (c["name"], c.get("image"), c.get("workingDir")) for c in first["spec"]["containers"]
    ] == [("trainer-0", "trainer:1", "/w")]
    assert [(c["name"], c.get("image")) for c in second["spec"]["containers"]] == [
        ("trainer-1", "trainer:1"),
        ("trainer-0", None),
    ]


def test_upstream_join_phantom_container_fails_validation(runner: Runner) -> None:
    app = make_app(trainer_overlays=(UPSTREAM_JOIN,))
    with pytest.raises(FoldError) as caught:
        runner.dryrun(app, "kubernetes_overlay", cfg=CFG["kubernetes_overlay"])
    assert (caught.value.role, caught.value.replica) == ("trainer", 1)
    assert "image" in str(caught.value)


@pytest.mark.parametrize("scheduler", OVERLAY_SCHEDULERS)
def test_an_overlay_wins_over_torchx_own_labels(runner: Runner, scheduler: str) -> None:
    app = make_app(
        trainer_overlays=(upsert('metadata.labels["app.kubernetes.io/name"]', "my-trainer"),)
    )
    info = runner.dryrun(app, scheduler, cfg=CFG[scheduler])
    names = {
        who(pod): pod["metadata"]["labels"]["app.kubernetes.io/name"]
        for pod in pods(info.request.resource, scheduler)
    }
    assert names == {
        ("trainer", 0): "my-trainer",
        ("trainer", 1): "my-trainer",
        ("trainer", 2): "my-trainer",
        ("ps", 0): "job",
        ("ps", 1): "job",
    }


def drop_torchx_env(app: specs.AppDef) -> specs.AppDef:
    """``Runner.dryrun`` itself writes TORCHX_JOB_ID into each role's env."""
    for role in app.roles:
        role.env.pop(JOB_ID, None)
    return app


@pytest.mark.parametrize("scheduler", OVERLAY_SCHEDULERS)
def test_put_volumes_drops_dshm_and_the_dry_run_fails(runner: Runner, scheduler: str) -> None:
    app = make_app(ps_overlays=({"spec": {"__put__:volumes": []}},))
    before = copy.deepcopy(app)
    with pytest.raises(FoldError) as caught:
        runner.dryrun(app, scheduler, cfg=CFG[scheduler])
    err = caught.value
    assert (err.role, err.replica) == ("ps", 0)
    assert "role 'ps', replica 0" in str(err)
    container = (
        "ps-0"
        if scheduler == "kubernetes_overlay"
        else err.args[0].split("spec.containers[name=", 1)[1].split("]", 1)[0]
    )  # MCAD names it after the app
    assert f"spec.containers[name={container}].volumeMounts[name=dshm]" in str(err)
    assert "no volume named 'dshm'" in str(err)
    assert drop_torchx_env(app) == before


def test_snake_case_keys_fail_and_validate_false_lets_them_through(runner: Runner) -> None:
    bad = {"spec": {"node_selector": {"gpu": "a100"}}}
    app = make_app(trainer_overlays=(bad,))
    before = copy.deepcopy(app)
    with pytest.raises(FoldError) as caught:
        runner.dryrun(app, "kubernetes_overlay", cfg=CFG["kubernetes_overlay"])
    assert (caught.value.role, caught.value.replica) == ("trainer", 0)
    assert "did you mean nodeSelector" in str(caught.value)
    assert drop_torchx_env(app) == before

    info = runner.dryrun(
        app, "kubernetes_overlay", cfg={**CFG["kubernetes_overlay"], "validate": False}
    )
    trainer = pods(info.request.resource, "kubernetes_overlay")[0]
    assert trainer["spec"]["node_selector"] == {"gpu": "a100"}


def test_the_scheduler_never_changes_the_app() -> None:
    """Straight through the scheduler, with no Runner writing env vars: a
    failing fold and a successful one leave the AppDef exactly as it was."""
    scheduler = create_kubernetes_overlay("test")
    cfg = scheduler.run_opts().resolve(CFG["kubernetes_overlay"])
    failing = make_app(ps_overlays=({"spec": {"__put__:volumes": []}},))
    working = make_app()
    for app, fails in ((failing, True), (working, False)):
        before = copy.deepcopy(app)
        stored = [role.metadata["kubernetes"] for role in app.roles]
        if fails:
            with pytest.raises(FoldError):
                scheduler.submit_dryrun(app, cfg)
        else:
            scheduler.submit_dryrun(app, cfg)
        assert app == before
        assert all(
            role.metadata["kubernetes"] is kept
            for role, kept in zip(app.roles, stored, strict=True)
        )


# --- the torchx CLI, in subprocesses -----------------------------------------------------


def torchx(*args: str) -> subprocess.CompletedProcess[str]:
    command = (
        [str(TORCHX_CLI)] if TORCHX_CLI.exists() else [sys.executable, "-m", "torchx.cli.main"]
    )
    return subprocess.run(
        [*command, *args], cwd=REPO, capture_output=True, text=True, timeout=120, check=False
    )


def request_of(stdout: str) -> Any:
    return yaml.safe_load(stdout.split("=== SCHEDULER REQUEST ===", 1)[1])


@pytest.mark.parametrize("scheduler", OVERLAY_SCHEDULERS)
def test_cli_dry_run_of_the_example(scheduler: str) -> None:
    cfg = "overlays=examples/a100.yaml" + (
        ",queue=default" if scheduler == "kubernetes_overlay" else ""
    )
    done = torchx(
        "run",
        "--scheduler",
        scheduler,
        "--dryrun",
        "--workspace",
        "",
        "-cfg",
        cfg,
        "examples/trainer.py:trainer",
    )
    assert done.returncode == 0, done.stderr
    request = request_of(done.stdout)
    found = [pod for pod in items(request, scheduler) if is_pod(pod)]
    assert sorted(who(pod) for pod in found) == [("ps", 0), ("trainer", 0), ("trainer", 1)]
    for pod in found:
        spec = pod["spec"]
        assert spec["nodeSelector"] == {"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"}
        assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in spec[
            "tolerations"
        ]
        (dshm,) = [v for v in spec["volumes"] if v["name"] == "dshm"]
        assert dshm["emptyDir"] == {"medium": "Memory", "sizeLimit": "16Gi"}
        env = {e["name"]: e.get("value") for e in spec["containers"][0]["env"]}
        assert env["NCCL_DEBUG"] == "INFO"
        role, replica = who(pod)
        if role == "trainer":
            assert env["TRAINER_RANK"] == str(replica)
            assert env["JOB_ID"] == request["metadata"]["name"]
        else:
            assert "TRAINER_RANK" not in env


def test_cli_failing_overlay_exits_non_zero_with_a_short_reason(tmp_path: Path) -> None:
    """TorchX's CLI prints the error as one short message (it printed a 50-58
    line traceback before), naming role, replica and path."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("spec:\n  __put__:volumes: []\n")
    done = torchx(
        "run",
        "--scheduler",
        "kubernetes_overlay",
        "--dryrun",
        "--workspace",
        "",
        "-cfg",
        f"queue=default,overlays={bad}",
        "examples/trainer.py:trainer",
    )
    assert done.returncode == 1
    output = done.stdout + done.stderr
    assert "Traceback" not in output
    assert "role 'trainer', replica 0" in output
    assert (
        "spec.containers[name=trainer-0].volumeMounts[name=dshm].name: no volume named "
        "'dshm'" in output
    )
    assert len(done.stderr.splitlines()) <= 8, done.stderr
    assert "=== SCHEDULER REQUEST ===" not in done.stdout


@pytest.mark.parametrize("scheduler", OVERLAY_SCHEDULERS)
def test_both_schedulers_register_the_overlay_options(runner: Runner, scheduler: str) -> None:
    """The CLI keeps only registered options: an unregistered ``overlays`` is dropped."""
    options = runner.scheduler_run_opts(scheduler)
    assert options.cfg_from_str("overlays=a.yaml;b.yaml,validate=false,k8s_version=1.30") == {
        "overlays": ["a.yaml", "b.yaml"],
        "validate": False,
        "k8s_version": "1.30",
    }
    assert options.cfg_from_str(
        "policy=restricted,deny=spec.hostPID;spec.hostIPC,allow=spec.nodeSelector,conflicts=error"
    ) == {
        "policy": "restricted",
        "deny": ["spec.hostPID", "spec.hostIPC"],
        "allow": ["spec.nodeSelector"],
        "conflicts": "error",
    }


def test_cli_runopts_lists_our_options() -> None:
    done = torchx("runopts", "kubernetes_overlay")
    assert done.returncode == 0, done.stderr
    for option in (
        "overlays=OVERLAYS",
        "validate=VALIDATE",
        "k8s_version=K8S_VERSION",
        "queue=QUEUE",
        "policy=POLICY",
        "allow=ALLOW",
        "deny=DENY",
        "conflicts=CONFLICTS",
    ):
        assert option in done.stdout


# --- TorchX's built-in schedulers are still there ----------------------------------------

BUILTINS = (
    "local_cwd",
    "local_docker",
    "kubernetes",
    "kubernetes_mcad",
    "slurm",
    "aws_batch",
    "ray",
    "lsf",
    "gcp_batch",
)


def test_builtin_schedulers_are_still_listed() -> None:
    """Any ``torchx.schedulers`` entry point hides TorchX's built-ins, so
    podfold publishes them again beside its own."""
    names = set(get_scheduler_factories())
    assert names >= {*BUILTINS, *SCHEDULERS}


def test_cli_lists_the_builtins_and_local_cwd_still_runs(tmp_path: Path) -> None:
    listing = torchx("run", "--help")
    assert listing.returncode == 0, listing.stderr
    choices = listing.stdout.split("--scheduler {", 1)[1].split("}", 1)[0].split(",")
    assert set(choices) >= {*BUILTINS, *SCHEDULERS}

    done = torchx(
        "run",
        "--scheduler",
        "local_cwd",
        "--workspace",
        "",
        "-cfg",
        f"log_dir={tmp_path}",
        "utils.echo",
        "--msg",
        "hello-from-local-cwd",
    )
    assert done.returncode == 0, done.stderr
    assert "local_cwd://" in done.stdout
    assert "SUCCEEDED" in done.stdout + done.stderr
    (log,) = tmp_path.glob("torchx/echo-*/echo/0/stdout.log")
    assert log.read_text().strip() == "hello-from-local-cwd"  # the echo really ran
