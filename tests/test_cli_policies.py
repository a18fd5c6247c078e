"""``--policy``, ``--allow``, ``--deny`` and ``--conflicts`` on ``podfold apply`` and
``podfold explain`` (and ``--policy`` on ``podfold validate``): the installed script in a
subprocess, on real manifests (tests/manifests/).

Every violation is listed on stderr, naming the document, the template and
the path; a violation fails the command (exit code 1) and prints no documents.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests import warm

REPO = Path(__file__).resolve().parent.parent
PODFOLD = Path(sys.executable).with_name("podfold")
MANIFESTS = REPO / "tests" / "manifests"
DEPLOYMENT = MANIFESTS / "kubernetes" / "nginx-deployment.yaml"
DAEMONSET = MANIFESTS / "kubernetes" / "daemonset.yaml"  # hostPath volumes: not baseline
PYTORCHJOB = MANIFESTS / "kubeflow" / "pytorchjob-simple.yaml"  # Master and Worker
A100 = REPO / "examples" / "a100.yaml"
NGINX = "document 1: Deployment/nginx-deployment template (spec.template)"

RESTRICTED = """\
- op: upsert
  path: spec.securityContext
  value: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}
- op: upsert
  path: spec.containers[*].securityContext
  value: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
"""
POOL_A = "# the pool\nspec:\n  nodeSelector:\n    pool: a\n"
POOL_B = (
    "- {op: upsert, path: spec.hostIPC, value: false}\n"
    "- {op: upsert, path: spec.nodeSelector.pool, value: b}\n"
)


def podfold(*args: str) -> subprocess.CompletedProcess[str]:
    return warm.run("podfold", args, cwd=REPO)


def written(tmp_path: Path, name: str, text: str) -> Path:
    target = tmp_path / name
    target.write_text(text)
    return target


def violations(result: subprocess.CompletedProcess[str]) -> list[str]:
    """The violation lines of a failed command; its last line sums them up."""
    assert result.returncode == 1, result.stderr
    assert result.stdout == "" or result.stdout.startswith("# ")  # explain's diff only
    assert "Traceback" not in result.stderr
    *lines, summary = result.stderr.splitlines()
    assert summary.startswith("podfold: error: ")
    assert summary.split(": ", 2)[2].startswith(f"{len(lines)} violation")
    return lines


# ---------------------------------------------------------------- --policy


def test_apply_policy_restricted_lists_every_violation_of_every_template() -> None:
    lines = violations(podfold("apply", "-f", str(A100), "--policy", "restricted", str(PYTORCHJOB)))
    for role in ("Master", "Worker"):
        mine = [line for line in lines if f"template {role} " in line]
        assert len(mine) == 4
        assert all(
            line.startswith(
                f"{PYTORCHJOB}: document 1: PyTorchJob/pytorch-simple "
                f"template {role} (spec.pytorchReplicaSpecs.{role}.template)"
                f": spec.pytorchReplicaSpecs.{role}.template.spec."
                f"containers[name=pytorch].securityContext."
            )
            for line in mine
        )
        assert all("(restricted profile, rule " in line for line in mine)


def test_apply_policy_met_by_an_overlay_prints_what_apply_prints(tmp_path: Path) -> None:
    secure = written(tmp_path, "secure.yaml", RESTRICTED)
    checked = podfold("apply", "-f", str(secure), "--policy", "restricted", str(DEPLOYMENT))
    assert checked.returncode == 0, checked.stderr
    assert checked.stderr == ""
    assert checked.stdout == podfold("apply", "-f", str(secure), str(DEPLOYMENT)).stdout


def test_apply_policy_baseline_on_a_real_daemonset_names_its_host_path_volumes() -> None:
    lines = violations(podfold("apply", "-f", str(A100), "--policy", "baseline", str(DAEMONSET)))
    assert [line.split(": ", 3)[3] for line in lines] == [
        f"spec.template.spec.volumes[name={name}].hostPath: hostPath volumes are not allowed "
        f"(baseline profile, rule host-path-volumes)"
        for name in ("varlog", "varlibdockercontainers")
    ]


def test_validate_policy() -> None:
    assert podfold("validate", "--policy", "baseline", str(DEPLOYMENT)).returncode == 0
    result = podfold("validate", "--policy", "baseline", str(DAEMONSET))
    assert result.returncode == 1
    assert "rule host-path-volumes" in result.stdout
    assert "podfold: 2 errors in 1 pod template" in result.stderr


# ---------------------------------------------------------------- --allow, --deny


def test_deny_names_what_was_changed_under_a_denied_path() -> None:
    lines = violations(
        podfold(
            "apply", "-f", str(A100), "--deny", "spec.hostPID;spec.nodeSelector", str(DEPLOYMENT)
        )
    )
    # the template had no nodeSelector: the map was added whole
    assert lines == [
        f"{DEPLOYMENT}: {NGINX}: spec.template.spec.nodeSelector: a denied path "
        f"was changed (denied: spec.nodeSelector) (written by {A100}:7)"
    ]


def test_allow_repeated_and_separated(tmp_path: Path) -> None:
    allowed = (
        "--allow",
        "spec.nodeSelector;spec.tolerations",
        "--allow",
        "spec.volumes",
        "--allow",
        "spec.containers[*].env;spec.containers[*].volumeMounts",
    )
    result = podfold("apply", "-f", str(A100), *allowed, str(DEPLOYMENT))
    assert result.returncode == 0, result.stderr
    lines = violations(podfold("apply", "-f", str(A100), *allowed[:2], str(DEPLOYMENT)))
    assert any(
        ".spec.volumes" in line and "a path outside the allowed ones" in line for line in lines
    )


def test_explain_prints_the_diff_then_fails_on_a_violation() -> None:
    result = podfold("explain", "-f", str(A100), "--deny", "spec.volumes", str(DEPLOYMENT))
    lines = violations(result)
    assert "+  nodeSelector:" in result.stdout
    assert lines and all("(denied: spec.volumes)" in line for line in lines)


# ---------------------------------------------------------------- --conflicts


def test_conflicts_error_names_both_files_and_lines(tmp_path: Path) -> None:
    first, second = written(tmp_path, "a.yaml", POOL_A), written(tmp_path, "b.yaml", POOL_B)
    lines = violations(
        podfold(
            "apply", "-f", str(first), "-f", str(second), "--conflicts", "error", str(DEPLOYMENT)
        )
    )
    assert lines == [
        f"{DEPLOYMENT}: {NGINX}: conflict at spec.template.spec.nodeSelector.pool: "
        f"{first}:4 wrote 'a', then {second}:2 wrote 'b'"
    ]


def test_conflicts_warn_prints_the_documents_and_warns(tmp_path: Path) -> None:
    first, second = written(tmp_path, "a.yaml", POOL_A), written(tmp_path, "b.yaml", POOL_B)
    plain = podfold("apply", "-f", str(first), "-f", str(second), str(DEPLOYMENT))
    assert plain.returncode == 0 and plain.stderr == ""  # last-wins: nothing checked
    warned = podfold(
        "apply", "-f", str(first), "-f", str(second), "--conflicts", "warn", str(DEPLOYMENT)
    )
    assert warned.returncode == 0, warned.stderr
    assert warned.stdout == plain.stdout
    (deployment,) = yaml.safe_load_all(warned.stdout)
    assert deployment["spec"]["template"]["spec"]["nodeSelector"] == {"pool": "b"}
    assert warned.stderr.splitlines() == [
        f"podfold: warning: {DEPLOYMENT}: {NGINX}: conflict at spec.template.spec.nodeSelector."
        f"pool: {first}:4 wrote 'a', then {second}:2 wrote 'b'"
    ]


def test_the_same_values_written_twice_are_no_conflict(tmp_path: Path) -> None:
    result = podfold(
        "apply", "-f", str(A100), "-f", str(A100), "--conflicts", "error", str(DEPLOYMENT)
    )
    assert result.returncode == 0, result.stderr


# ---------------------------------------------------------------- usage


@pytest.mark.parametrize(
    "args",
    [
        ("--policy", "strict"),
        ("--conflicts", "errors"),
        ("--deny", "spec.containers["),
        ("--allow", "spec.tolerations[key=]"),
    ],
)
def test_bad_flags_are_usage_errors(args: tuple[str, ...]) -> None:
    result = podfold("apply", "-f", str(A100), *args, str(DEPLOYMENT))
    assert result.returncode == 2, result.stderr
    assert args[0] in result.stderr


def test_the_flags_offer_what_the_library_has() -> None:
    from combinators.conflicts import MODES
    from transforms.checks.policies import PROFILES
    from transforms.cli.checks import CONFLICT_MODES
    from transforms.cli.checks import PROFILES as CLI_PROFILES
    from transforms.run import CONFLICT_MODES as RUN_MODES
    from transforms.torchx.folding import CONFLICT_MODES as TORCHX_MODES

    assert CLI_PROFILES == PROFILES
    # defined once: the command line, the TorchX fold and the run take fold()'s
    assert CONFLICT_MODES is TORCHX_MODES is RUN_MODES
    assert set(CONFLICT_MODES) == {"last-wins", *MODES}


@pytest.mark.parametrize(
    ("flag", "given", "said"),
    [
        (
            "--deny",
            "spec.security_context",
            "unknown field spec.security_context; did you mean securityContext?",
        ),
        (
            "--allow",
            "spec.pytorchReplicaSpecs.Worker.template.spec.securityContext",
            "unknown field spec.pytorchReplicaSpecs (a workload's field",
        ),
    ],
)
def test_a_path_no_pod_has_is_refused_as_a_flag_value(flag: str, given: str, said: str) -> None:
    # a typo, or a path written from the workload, would never match: it used to pass quietly
    result = podfold("apply", "-f", str(A100), flag, given, str(DEPLOYMENT))
    assert result.returncode == 2 and result.stdout == ""
    assert f"Invalid value for '{flag}': {said}" in result.stderr


def test_a_policy_violation_names_the_overlay_line_that_wrote_it(tmp_path: Path) -> None:
    overlay = tmp_path / "ipc.yaml"
    overlay.write_text("# shares the host's IPC\n- {op: upsert, path: spec.hostIPC, value: true}\n")
    lines = violations(
        podfold("apply", "-f", str(overlay), "--policy", "baseline", str(DEPLOYMENT))
    )
    assert lines == [
        f"{DEPLOYMENT}: {NGINX}: spec.template.spec.hostIPC: sharing the host's "
        "namespaces is not allowed, found hostIPC: true (baseline profile, rule "
        f"host-namespaces) (written by {overlay}:2)"
    ]


def test_a_manifest_that_is_not_utf8_is_a_bad_input_as_an_overlay_is(tmp_path: Path) -> None:
    # one rule for every input: a file podfold cannot read is exit 1, not a usage error
    manifest = tmp_path / "u16.yaml"
    manifest.write_bytes("apiVersion: v1\nkind: Pod\n".encode("utf-16"))
    result = podfold("apply", "-f", str(A100), str(manifest))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert (
        f"{manifest}:1:1: the file is not UTF-8: byte 0xff (byte 0 of the file) cannot be "
        "read (invalid start byte); it begins as UTF-16 does" in result.stderr
    )
    overlay = tmp_path / "o16.yaml"
    overlay.write_bytes("spec: {hostIPC: true}\n".encode("utf-16"))
    assert podfold("apply", "-f", str(overlay), str(DEPLOYMENT)).returncode == 1


def test_an_overlay_that_deletes_the_pod_is_refused(tmp_path: Path) -> None:
    # a pod without a spec: the schema lets it out, the API server does not
    overlay = tmp_path / "gone.yaml"
    overlay.write_text("- strategic: {$patch: delete}\n")
    result = podfold("apply", "-f", str(overlay), str(DEPLOYMENT))
    assert result.returncode == 1 and result.stdout == ""
    assert (
        "spec.template.spec: a pod needs a spec, with its containers; found none "
        f"(written by {overlay}:1)" in result.stderr
    )


def test_a_stream_with_no_document_is_an_error_where_output_would_replace_it(
    tmp_path: Path,
) -> None:
    # as kubectl apply's "no objects passed to apply": `apply -f o.yaml job.yaml > job.yaml`
    # has the shell empty job.yaml first, and must not report success
    manifest = tmp_path / "empty.yaml"
    manifest.write_text("---\n# nothing here\n---\n")
    for command, what in (
        (("apply", "-f", str(A100)), "apply the overlays to"),
        (("validate",), "validate"),
    ):
        result = podfold(*command, str(manifest))
        assert result.returncode == 1
        assert result.stdout == ""
        assert (
            f"podfold: error: {manifest}: no documents (the input is empty, or only "
            f"comments and '---'): nothing to {what}" in result.stderr
        )
    # explain writes no stream back: it says so and succeeds, as kubectl diff does
    result = podfold("explain", "-f", str(A100), str(manifest))
    assert result.returncode == 0
    assert f"podfold: warning: {manifest}: no documents" in result.stderr
