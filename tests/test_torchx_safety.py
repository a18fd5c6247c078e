"""The TorchX surface of issue 11, through real TorchX: short errors, strict ``-cfg``,
guarded user code, Pod Security policies, path lists and conflicts between overlays.

The ``torchx`` CLI runs in a subprocess on ``examples/trainer.py:trainer`` (a
trainer with two replicas and a parameter server); ``Runner.dryrun`` runs in
process where a test needs the structured error. Nothing is mocked.
"""

from __future__ import annotations

import copy
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes.client import ApiClient
from torchx import specs
from torchx.runner import Runner, get_runner
from torchx.specs import InvalidRunConfigException
from torchx.specs.finder import ComponentValidationException

from combinators import ArgumentError, StepError, TransformError, upsert
from combinators.conflicts import Conflict, ConflictWarning
from tests import warm
from tests.torchx_versions import OVERLAY_SCHEDULERS
from transforms.checks.policies import PolicyError
from transforms.kube.schema import UnsupportedVersionError
from transforms.torchx.errors import LaunchError, RunOptionError, UnknownRunOptionError
from transforms.torchx.folding import (
    FoldError,
    FoldViolationsError,
    RoleConflictWarning,
)
from transforms.torchx.options import fold_settings
from transforms.torchx.roles import with_overlays

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

REPO = Path(__file__).resolve().parent.parent
TORCHX_CLI = Path(sys.executable).with_name("torchx")
COMPONENT = "examples/trainer.py:trainer"
BASE_CFG = {"kubernetes_overlay": "queue=default", "kubernetes_mcad_overlay": "namespace=ml"}
PODS = [("trainer", 0), ("trainer", 1), ("ps", 0)]  # what the example renders

RESTRICTED = """\
# what the restricted Pod Security Standard asks of every pod
- op: upsert
  path: spec.securityContext
  value: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}
- op: upsert
  path: spec.containers[*].securityContext
  value: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
"""


def torchx(*args: str) -> subprocess.CompletedProcess[str]:
    return warm.run("torchx", args, cwd=REPO)


def dry_run(scheduler: str, cfg: str = "") -> subprocess.CompletedProcess[str]:
    full = ",".join(part for part in (BASE_CFG[scheduler], cfg) if part)
    return torchx(
        "run", "--scheduler", scheduler, "--dryrun", "--workspace", "", "-cfg", full, COMPONENT
    )


def pods_of(stdout: str) -> list[dict[str, Any]]:
    request = yaml.safe_load(stdout.split("=== SCHEDULER REQUEST ===", 1)[1])
    if request["kind"] == "Job":
        return [task["template"] for task in request["spec"]["tasks"]]
    return [
        item["generictemplate"]
        for item in request["spec"]["resources"]["GenericItems"]
        if item["generictemplate"].get("kind") == "Pod"
    ]


def who(pod: dict[str, Any]) -> tuple[str, int]:
    labels = pod["metadata"]["labels"]
    return labels["torchx.pytorch.org/role-name"], int(labels["torchx.pytorch.org/replica-id"])


def failed_briefly(done: subprocess.CompletedProcess[str]) -> str:
    """The error TorchX's CLI printed: exit code 1, no traceback, no request."""
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "=== SCHEDULER REQUEST ===" not in done.stdout
    return done.stderr.split("got errors:", 1)[1]


@pytest.fixture(scope="module")
def runner() -> Iterator[Runner]:
    with get_runner() as runner:
        yield runner


def make_app(*trainer_overlays: Any, replicas: int = 2) -> specs.AppDef:
    trainer = specs.Role(
        name="trainer",
        image="trainer:1",
        entrypoint="python",
        args=["-m", "train"],
        num_replicas=replicas,
        resource=specs.Resource(cpu=1, gpu=0, memMB=1024),
    )
    return specs.AppDef(name="job", roles=[with_overlays(trainer, *trainer_overlays)])


def written(tmp_path: Path, name: str, text: str) -> Path:
    target = tmp_path / name
    target.write_text(text)
    return target


# --- errors print as one short message ---------------------------------------------------


@pytest.mark.parametrize("scheduler", OVERLAY_SCHEDULERS)
def test_an_overlay_failure_is_a_short_message_naming_role_replica_and_path(
    scheduler: str, tmp_path: Path
) -> None:
    bad = written(tmp_path, "bad.yaml", "- {op: remove, path: 'spec.containers[0].image'}\n")
    message = failed_briefly(dry_run(scheduler, f"overlays={bad}"))
    assert message.strip().startswith("role 'trainer', replica 0: the pod is not valid")
    assert ".image: a container of a pod needs an image" in message
    assert len(message.strip().splitlines()) <= 4


def test_the_error_keeps_podfold_s_own_as_its_cause(runner: Runner, tmp_path: Path) -> None:
    # read with the configuration: an overlay file's error names file and line
    typo = written(tmp_path, "typo.yaml", "- {op: remove, path: spec.nodeSelectr}\n")
    with pytest.raises(LaunchError) as read:
        runner.dryrun(make_app(), "kubernetes_overlay", cfg={"queue": "q", "overlays": [str(typo)]})
    assert isinstance(read.value, ComponentValidationException)
    assert not isinstance(read.value, FoldError)
    assert isinstance(read.value.__cause__, TransformError)
    assert f"{typo}:1:" in str(read.value) and "did you mean nodeSelector?" in str(read.value)
    # applied to a pod: role and replica
    missing = written(
        tmp_path,
        "missing.yaml",
        "- {op: remove, path: 'spec.containers[name=nobody]', missing_ok: false}\n",
    )
    with pytest.raises(FoldError) as folded:
        runner.dryrun(
            make_app(), "kubernetes_overlay", cfg={"queue": "q", "overlays": [str(missing)]}
        )
    err = folded.value
    assert isinstance(err, LaunchError) and isinstance(err, ComponentValidationException)
    assert (err.role, err.replica) == ("trainer", 0)
    assert isinstance(err.__cause__, TransformError)
    assert "no element [name=nobody] in spec.containers" in str(err)


# --- -cfg keys -----------------------------------------------------------------------------


@pytest.mark.parametrize("scheduler", OVERLAY_SCHEDULERS)
def test_an_unknown_cfg_key_is_refused_with_a_near_miss(scheduler: str) -> None:
    """``overlay=`` (its ``s`` missing) used to exit 0 having applied nothing."""
    message = failed_briefly(dry_run(scheduler, "overlay=examples/a100.yaml"))
    assert (
        f"{scheduler} has no run option 'overlay'; did you mean overlays or role_overlays?"
        in message
    )


def test_an_unknown_cfg_key_from_python(runner: Runner) -> None:
    with pytest.raises(UnknownRunOptionError) as caught:
        runner.dryrun(make_app(), "kubernetes_overlay", cfg={"queue": "q", "k8s-version": "1.30"})
    err = caught.value
    assert isinstance(err, InvalidRunConfigException) and isinstance(err, TransformError)
    assert (err.cfg_key, err.near_misses) == ("k8s-version", ("k8s_version",))


def test_a_bad_option_value_is_refused_before_anything_renders() -> None:
    message = failed_briefly(dry_run("kubernetes_overlay", "policy=restrictd"))
    assert (
        "policy is one of baseline, restricted, got 'restrictd'; did you mean restricted?"
        in message
    )


@pytest.mark.parametrize(
    ("cfg", "words"),
    [
        (
            {"conflicts": "errors"},
            "conflicts is one of last-wins, warn, error, got 'errors'; did you mean error?",
        ),
        ({"deny": ["spec.containers["]}, "deny: 'spec.containers[' is not a path"),
        (
            {"allow": ["spec.nodeSelector", "spec.tolerations[key=]"]},
            "allow: 'spec.tolerations[key=]'",
        ),
    ],
)
def test_bad_option_values_from_python(runner: Runner, cfg: dict[str, Any], words: str) -> None:
    with pytest.raises(LaunchError, match=words.replace("[", r"\[")) as caught:
        runner.dryrun(make_app(), "kubernetes_overlay", cfg={"queue": "q", **cfg})
    assert isinstance(caught.value.__cause__, ArgumentError)


def test_k8s_version_1_29_renders_and_an_unknown_one_fails_once(runner: Runner) -> None:
    for version in ("1.29", "v1.31.2-gke.1000"):
        runner.dryrun(make_app(), "kubernetes_overlay", cfg={"queue": "q", "k8s_version": version})
    message = failed_briefly(dry_run("kubernetes_overlay", "k8s_version=1.12"))
    assert message.count("no pod schema for Kubernetes 1.12") == 1
    assert "replica" not in message  # found reading the configuration, not on a pod


def test_k8s_version_is_checked_when_the_configuration_is_read(runner: Runner) -> None:
    assert fold_settings({"k8s_version": "v1.30.4-eks-a737599"}).k8s_version == "1.30"
    # the version is wrong and the role's overlay would fail on its pods: the
    # version is what is reported, before any pod is folded
    app = make_app(upsert("spec.containers[name=nobody].image", "x"))
    with pytest.raises(LaunchError) as caught:
        runner.dryrun(app, "kubernetes_overlay", cfg={"queue": "q", "k8s_version": "1.12"})
    assert not isinstance(caught.value, FoldError)
    assert isinstance(caught.value.__cause__, UnsupportedVersionError)


# --- user code in the fold -----------------------------------------------------------------


def fails(pod: Any) -> Any:
    raise KeyError("no such thing")


@pytest.mark.parametrize("scheduler", OVERLAY_SCHEDULERS)
@pytest.mark.parametrize(
    "overlays", [(fails,), (upsert("spec.hostIPC", False), fails)], ids=["alone", "after-another"]
)
def test_a_function_that_raises_names_role_replica_and_itself(
    runner: Runner, scheduler: str, overlays: tuple[Any, ...]
) -> None:
    cfg = {"kubernetes_overlay": {"queue": "q"}, "kubernetes_mcad_overlay": {}}[scheduler]
    with pytest.raises(FoldError) as caught:
        runner.dryrun(make_app(*overlays), scheduler, cfg=cfg)
    err = caught.value
    assert (err.role, err.replica) == ("trainer", 0)
    assert "fails raised KeyError: 'no such thing'" in str(err)
    assert isinstance(err.__cause__, StepError)


@pytest.mark.parametrize("result", [None, "a pod", ["spec"], 3], ids=repr)
def test_a_function_returning_no_pod_fails_with_validation_off(runner: Runner, result: Any) -> None:
    """Validation off used to let the job through with a template of ``None`` or ``'a pod'``."""

    def not_a_pod(pod: Any) -> Any:
        return result

    with pytest.raises(FoldError) as caught:
        runner.dryrun(
            make_app(not_a_pod), "kubernetes_overlay", cfg={"queue": "q", "validate": False}
        )
    assert (caught.value.role, caught.value.replica) == ("trainer", 0)
    assert "not_a_pod" in str(caught.value)


def test_with_validation_off_every_template_is_still_a_pod(runner: Runner) -> None:
    info = runner.dryrun(
        make_app(lambda pod: {**pod, "spec": {**pod["spec"], "hostIPC": True}}),
        "kubernetes_overlay",
        cfg={"queue": "q", "validate": False},
    )
    templates = [task["template"] for task in info.request.resource["spec"]["tasks"]]
    assert all(
        isinstance(template, dict) and template["spec"]["hostIPC"] is True for template in templates
    )


# --- Pod Security Standards ----------------------------------------------------------------

RULES = ("privilege-escalation", "run-as-non-root", "seccomp-restricted", "capabilities-restricted")


def test_policy_restricted_lists_every_violation_per_role_and_replica() -> None:
    message = failed_briefly(dry_run("kubernetes_overlay", "policy=restricted"))
    lines = message.strip().splitlines()
    assert lines[0] == f"{len(PODS) * len(RULES)} violations:"
    for role, replica in PODS:
        mine = [
            line for line in lines if line.strip().startswith(f"role {role!r}, replica {replica}: ")
        ]
        assert [rule for line in mine for rule in RULES if line.endswith(f"rule {rule})")] == list(
            RULES
        )
        assert all(
            "restricted profile" in line and "spec.containers[name=" in line for line in mine
        )


@pytest.mark.parametrize("scheduler", OVERLAY_SCHEDULERS)
def test_an_overlay_that_meets_the_policy_passes(scheduler: str, tmp_path: Path) -> None:
    secure = written(tmp_path, "secure.yaml", RESTRICTED)
    done = dry_run(scheduler, f"policy=restricted,overlays={secure}")
    assert done.returncode == 0, done.stderr
    pods = pods_of(done.stdout)
    assert sorted(who(pod) for pod in pods) == sorted(PODS)
    for pod in pods:
        assert pod["spec"]["securityContext"]["runAsNonRoot"] is True
        for container in pod["spec"]["containers"]:
            assert container["securityContext"]["capabilities"] == {"drop": ["ALL"]}


def test_policy_baseline_passes_torchx_s_pods_and_fails_host_network(
    runner: Runner, tmp_path: Path
) -> None:
    runner.dryrun(
        make_app(),
        "kubernetes_overlay",
        cfg={"queue": "q", "policy": "baseline", "overlays": ["examples/a100.yaml"]},
    )
    host = written(tmp_path, "host.yaml", "spec:\n  hostNetwork: true\n")
    message = failed_briefly(dry_run("kubernetes_overlay", f"policy=baseline,overlays={host}"))
    assert (
        "role 'ps', replica 0: spec.hostNetwork: sharing the host's namespaces is not "
        "allowed, found hostNetwork: true (baseline profile, rule host-namespaces)" in message
    )


def test_the_violations_are_a_policy_error_with_every_problem(runner: Runner) -> None:
    app = make_app(upsert("spec.hostPID", True), replicas=3)
    with pytest.raises(FoldViolationsError) as caught:
        runner.dryrun(app, "kubernetes_overlay", cfg={"queue": "q", "policy": "baseline"})
    err = caught.value
    assert isinstance(err, PolicyError) and isinstance(err, ComponentValidationException)
    assert [(v.role, v.replica, v.check) for v in err.violations] == [
        ("trainer", replica, "policy") for replica in range(3)
    ]
    assert [problem.rule for problem in err.problems] == ["host-namespaces"] * 3


# --- allow and deny lists ------------------------------------------------------------------


def test_deny_lists_every_changed_path_per_role_and_replica() -> None:
    message = failed_briefly(
        dry_run(
            "kubernetes_overlay", "overlays=examples/a100.yaml,deny=spec.nodeSelector;spec.hostPID"
        )
    )
    for role, replica in PODS:
        assert (
            f'role {role!r}, replica {replica}: spec.nodeSelector["cloud.google.com/'
            f'gke-accelerator"]: a denied path was changed (denied: spec.nodeSelector)' in message
        )
    assert message.strip().splitlines()[0] == "3 violations:"


def test_allow_lets_through_only_what_it_lists(runner: Runner) -> None:
    a100 = {"queue": "q", "overlays": ["examples/a100.yaml"]}
    wide = [
        "spec.nodeSelector",
        "spec.tolerations",
        "spec.volumes",
        "spec.containers[*].env",
        "spec.containers[*].volumeMounts",
    ]
    runner.dryrun(make_app(), "kubernetes_overlay", cfg={**a100, "allow": wide})
    with pytest.raises(FoldViolationsError) as caught:
        runner.dryrun(make_app(), "kubernetes_overlay", cfg={**a100, "allow": wide[:1]})
    paths = {problem.path for problem in caught.value.problems}
    assert any(p.startswith("spec.tolerations") for p in paths)
    assert not any(p.startswith("spec.nodeSelector") for p in paths)
    assert {(v.role, v.replica) for v in caught.value.violations} == {
        ("trainer", 0),
        ("trainer", 1),
    }


def test_the_role_s_own_overlays_are_checked_too(runner: Runner) -> None:
    app = make_app(upsert("spec.containers[0].securityContext", {"privileged": True}))
    with pytest.raises(FoldViolationsError) as caught:
        runner.dryrun(
            app,
            "kubernetes_overlay",
            cfg={"queue": "q", "deny": ["spec.containers[*].securityContext"]},
        )
    assert [str(v) for v in caught.value.violations] == [
        f"role 'trainer', replica {replica}: spec.containers[name=trainer-{replica}]."
        f"securityContext.privileged: a denied path was changed (denied: "
        f"spec.containers[*].securityContext)"
        for replica in (0, 1)
    ]


# --- conflicts -----------------------------------------------------------------------------

POOL_A = "# the pool\nspec:\n  nodeSelector:\n    pool: a\n"
POOL_B = (
    "- {op: upsert, path: spec.hostIPC, value: false}\n"
    "- {op: upsert, path: spec.nodeSelector.pool, value: b}\n"
)
SECOND_LINE = POOL_B.splitlines()[1]


def test_conflicts_error_names_both_files_and_lines(tmp_path: Path) -> None:
    first, second = written(tmp_path, "a.yaml", POOL_A), written(tmp_path, "b.yaml", POOL_B)
    message = failed_briefly(
        dry_run("kubernetes_overlay", f"conflicts=error,overlays={first};{second}")
    )
    for role, replica in PODS:
        assert (
            f"role {role!r}, replica {replica}: conflict at spec.nodeSelector.pool: "
            f"{first}:4 wrote 'a', then {second}:2 wrote 'b'" in message
        )


def test_conflicts_warn_warns_once_per_role_and_the_last_wins(tmp_path: Path) -> None:
    first, second = written(tmp_path, "a.yaml", POOL_A), written(tmp_path, "b.yaml", POOL_B)
    done = dry_run("kubernetes_overlay", f"conflicts=warn,overlays={first};{second}")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("RoleConflictWarning") == 2
    assert (
        f"role 'trainer', replicas 0, 1: spec.nodeSelector.pool: {first}:4 wrote 'a', "
        f"then {second}:2 wrote 'b'" in done.stderr
    )
    # shown where the later overlay wrote, with its line beneath, not at podfold's own code
    lines = done.stderr.splitlines()
    shown = [
        n for n, line in enumerate(lines) if line.startswith(f"{second}:2: RoleConflictWarning")
    ]
    assert len(shown) == 2 and all(lines[n + 1].strip() == SECOND_LINE for n in shown), done.stderr
    assert "folding.py" not in done.stderr and "schedulers.py" not in done.stderr
    assert all(pod["spec"]["nodeSelector"] == {"pool": "b"} for pod in pods_of(done.stdout))


def test_a_role_overlay_is_named_by_its_place_in_the_metadata(
    runner: Runner, tmp_path: Path
) -> None:
    launch = written(tmp_path, "launch.yaml", "spec:\n  priorityClassName: high\n")
    app = make_app(upsert("spec.hostIPC", False), upsert("spec.priorityClassName", "low"))
    before = copy.deepcopy(app)
    with pytest.raises(FoldViolationsError) as caught:
        runner.dryrun(
            app,
            "kubernetes_overlay",
            cfg={"queue": "q", "conflicts": "error", "overlays": [str(launch)]},
        )
    violation = caught.value.violations[0]
    assert isinstance(violation.found, Conflict)
    assert str(violation) == (
        f"role 'trainer', replica 0: conflict at spec.priorityClassName: "
        f"metadata[\"kubernetes\"][1] of role 'trainer' wrote 'low', then {launch}:2 wrote "
        f"'high'"
    )
    app.roles[0].env.pop("TORCHX_JOB_ID", None)  # the Runner's own
    assert app == before


def test_conflicts_warn_from_python_and_last_wins_is_quiet(runner: Runner) -> None:
    app = make_app(upsert("spec.hostIPC", True), upsert("spec.hostIPC", False), replicas=3)
    with warnings.catch_warnings(record=True) as quiet:
        warnings.simplefilter("always")
        runner.dryrun(app, "kubernetes_overlay", cfg={"queue": "q"})
    assert not [w for w in quiet if isinstance(w.message, ConflictWarning)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        info = runner.dryrun(app, "kubernetes_overlay", cfg={"queue": "q", "conflicts": "warn"})
    found = [w.message for w in caught if isinstance(w.message, ConflictWarning)]
    assert len(found) == 1
    (warning,) = found
    assert isinstance(warning, RoleConflictWarning)
    assert (warning.role, warning.replicas) == ("trainer", (0, 1, 2))
    assert str(warning.conflict.path) == "spec.hostIPC"
    templates = [
        ApiClient().sanitize_for_serialization(task["template"])
        for task in info.request.resource["spec"]["tasks"]
    ]
    assert all(template["spec"]["hostIPC"] is False for template in templates)


def test_the_settings_refuse_an_unknown_conflicts_mode() -> None:
    from transforms.torchx.folding import FoldSettings

    with pytest.raises(ArgumentError, match="did you mean warn"):
        FoldSettings(conflicts="wran")


# --- malformed run option values: one short message, never a traceback --------------------


@pytest.mark.parametrize("scheduler", OVERLAY_SCHEDULERS)
def test_role_overlays_written_role_equals_file_is_refused_with_a_guess(scheduler: str) -> None:
    """``podfold render --overlay`` takes ROLE=FILE and ``role_overlays`` ROLE:URI; TorchX
    cannot split ``role_overlays=trainer=...`` into pairs, and its CLI printed a traceback."""
    done = dry_run(scheduler, "role_overlays=trainer=examples/a100.yaml")
    message = failed_briefly(done)
    assert message.strip() == (
        "run option role_overlays: an item is ROLE:URI (trainer:gpu.yaml), "
        "got 'trainer=examples/a100.yaml'; did you mean "
        "trainer:examples/a100.yaml?"
    )
    assert "cannot be split into `val<delim>key`" not in done.stderr  # TorchX's own words


@pytest.mark.parametrize(
    ("cfg", "words"),
    [
        ("overlays=a.yaml=b.yaml", "run option overlays: 'a.yaml=b.yaml' holds '='"),
        ("overlays=absent.yaml", "absent.yaml: cannot read the overlay: FileNotFoundError: "),
        (
            "role_overlays=trainer",
            "run option role_overlays: an item is ROLE:URI (trainer:gpu.yaml), got 'trainer'",
        ),
        (
            "role_overlays=trainer:examples/a100.yaml;ps=examples/a100.yaml",
            "has no run option 'ps'; if ps is a role, a role_overlays item is ROLE:URI: "
            "ps:examples/a100.yaml",
        ),
        ("validate=maybe", "run option validate: expected true or false, got 'maybe'"),
        ("k8s_version=banana", "no pod schema for Kubernetes 'banana'"),
        ("allow=spec.[", "allow: 'spec.[' is not a path"),
        ("deny=spec..hostNetwork", "deny: 'spec..hostNetwork' is not a path"),
        ("conflicts=nope", "conflicts is one of last-wins, warn, error, got 'nope'"),
        ("=spec", "-cfg: a pair has no key: '=spec'"),
    ],
    ids=lambda value: value if "=" in value and len(value) < 40 else None,
)
def test_every_malformed_option_value_prints_short(cfg: str, words: str) -> None:
    message = failed_briefly(dry_run("kubernetes_overlay", cfg))
    assert words in message
    assert len(message.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("cfg", "option"),
    [
        ("overlays=absent.yaml", "overlays"),
        ("role_overlays=ps:absent.yaml", "role_overlays"),
        ("k8s_version=banana", "k8s_version"),
    ],
)
def test_the_message_names_the_run_option_it_came_from(cfg: str, option: str) -> None:
    assert f"[in run option {option}]" in failed_briefly(dry_run("kubernetes_overlay", cfg))


def test_a_cfg_text_torchx_cannot_split_is_refused_where_the_dry_run_starts(runner: Runner) -> None:
    # torchx run reads -cfg where an error prints a traceback: the text is kept back
    opts = runner.scheduler_run_opts("kubernetes_overlay")
    cfg = opts.cfg_from_str("queue=q,role_overlays=trainer=examples/a100.yaml")
    with pytest.raises(RunOptionError) as caught:
        runner.dryrun(make_app(), "kubernetes_overlay", cfg=cfg)
    err = caught.value
    assert isinstance(err, ComponentValidationException)  # torchx run prints it short
    assert isinstance(err, InvalidRunConfigException) and isinstance(err, TransformError)
    assert (err.cfg_key, err.value) == ("role_overlays", "trainer=examples/a100.yaml")


@pytest.mark.parametrize(
    "text",
    [
        "queue=q,overlays=a.yaml;b.yaml,validate=True",
        "overlays=a.yaml,b.yaml,queue=q",
        "validate=FALSE,quiet=true",
        "namespace=ml;priority_class=high",
        "queue=''",
        "role_overlays=trainer:a.yaml;ps:b.yaml",
    ],
)
def test_a_cfg_text_torchx_reads_means_what_it_means_to_torchx(runner: Runner, text: str) -> None:
    opts = runner.scheduler_run_opts("kubernetes_overlay")
    assert opts.parse(text) == specs.runopts.cfg_from_str(opts, text)


def test_a_role_item_with_equals_from_python_gets_the_same_guess(runner: Runner) -> None:
    with pytest.raises(ArgumentError, match=r"did you mean trainer:s3://bucket/gpu\.yaml"):
        fold_settings({"role_overlays": ["trainer=s3://bucket/gpu.yaml"]})
    with pytest.raises(RunOptionError) as caught:
        runner.dryrun(
            make_app(),
            "kubernetes_overlay",
            cfg={"queue": "q", "role_overlays": ["trainer=gpu.yaml"]},
        )
    assert caught.value.cfg_key == "role_overlays"
    assert isinstance(caught.value.__cause__, ArgumentError)


def test_an_app_torchx_s_renderer_refuses_is_a_launch_error(runner: Runner) -> None:
    role = specs.Role(
        name="trainer", image="trainer:1", entrypoint="python", resource=None
    )  # what a careless component gives
    with pytest.raises(
        LaunchError, match="TorchX cannot render the app 'job': AttributeError: "
    ) as caught:
        runner.dryrun(
            specs.AppDef(name="job", roles=[role]), "kubernetes_overlay", cfg={"queue": "q"}
        )
    assert isinstance(caught.value, ComponentValidationException)  # torchx run prints it short
    assert isinstance(caught.value.__cause__, AttributeError)


def test_a_conflict_on_a_mount_names_the_lines_of_both_files(tmp_path: Path) -> None:
    # conflicts name a mount by its volume's name, the diff by its mountPath: one walk
    # answers both, so neither file loses its line
    first = written(
        tmp_path,
        "a.yaml",
        "- op: upsert\n  path: spec.containers[0]."
        "volumeMounts[name=dshm].readOnly\n  value: true\n",
    )
    second = written(
        tmp_path,
        "b.yaml",
        "# writable after all\n- op: upsert\n  path: "
        "spec.containers[0].volumeMounts[name=dshm].readOnly\n  value: false\n",
    )
    message = failed_briefly(
        dry_run("kubernetes_overlay", f"conflicts=error,overlays={first};{second}")
    )
    assert f"{first}:1 wrote True, then {second}:2 wrote False" in message, message
