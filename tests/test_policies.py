"""The Pod Security Standards: each rule on pods that pass and pods that fail.

The upstream cases are the pod-security-admission test fixtures (see
tests/policy_cases/SOURCES.md); the table below adds, for every rule, a pod
that passes and one that fails, with the exemptions the Kubernetes page
"Pod Security Standards" states.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes import client

from combinators import ArgumentError
from transforms.checks import PolicyError, check_policy, policy_problems
from transforms.checks.policies import PROFILES, RULES, rule, rules_for

CASES = Path(__file__).parent / "policy_cases"

# the rule each upstream failing fixture breaks
UPSTREAM_FAILURES = {
    "baseline/fail/hostports0.yaml": {"host-ports"},
    "baseline/fail/privileged1.yaml": {"privileged"},
    "baseline/fail/hostpath0.yaml": {"host-path-volumes"},
    "baseline/fail/procmount0.yaml": {"proc-mount"},
    "baseline/fail/hostprocess0.yaml": {"host-process", "host-namespaces"},
    "restricted/fail/runasuser2.yaml": {"run-as-user"},
    "restricted/fail/hostprobesandhostlifecycle1.yaml": {"host-probes"},
    "restricted/fail/seccompprofile_restricted4.yaml": {"seccomp-restricted"},
}


def _upstream() -> list[str]:
    return sorted(str(found.relative_to(CASES)) for found in CASES.glob("*/*/*.yaml"))


def test_the_upstream_cases_are_all_here() -> None:
    assert len(_upstream()) == 11
    assert set(UPSTREAM_FAILURES) <= set(_upstream())


@pytest.mark.parametrize("name", _upstream())
def test_upstream_fixture(name: str) -> None:
    profile, verdict, _ = name.split("/")
    pod = yaml.safe_load((CASES / name).read_text())
    found = policy_problems(pod, profile)
    if verdict == "pass":
        assert found == []
    else:
        assert {problem.rule for problem in found} == UPSTREAM_FAILURES[name]
        assert all(
            f"({profile} profile, rule {problem.rule})" in problem.message for problem in found
        )


def _restricted_ok(**spec: Any) -> dict[str, Any]:
    """A pod that meets the restricted profile, with ``spec`` merged over its spec."""
    container = {
        "name": "c",
        "image": "x",
        "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}},
    }
    pod_spec: dict[str, Any] = {
        "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
        "containers": [container],
    }
    pod_spec.update(spec)
    return {"metadata": {"name": "p"}, "spec": pod_spec}


def _with_container(
    security: dict[str, Any] | None = None, list_name: str = "containers", **fields: Any
) -> dict[str, Any]:
    pod = _restricted_ok()
    container = dict(pod["spec"]["containers"][0], **fields)
    container["securityContext"] = dict(container["securityContext"], **(security or {}))
    if list_name == "containers":
        pod["spec"]["containers"] = [container]
    else:
        pod["spec"][list_name] = [dict(container, name="other")]
    return pod


def _with_pod_security(**security: Any) -> dict[str, Any]:
    pod = _restricted_ok()
    pod["spec"]["securityContext"] = dict(pod["spec"]["securityContext"], **security)
    return pod


# (rule, pod, the path of the violation or None where the pod passes)
TABLE: list[tuple[str, dict[str, Any], str | None]] = [
    ("host-process", _with_pod_security(windowsOptions={"hostProcess": False}), None),
    (
        "host-process",
        _with_container({"windowsOptions": {"hostProcess": True}}),
        "spec.containers[name=c].securityContext.windowsOptions.hostProcess",
    ),
    ("host-namespaces", _restricted_ok(hostPID=False), None),
    ("host-namespaces", _restricted_ok(hostIPC=True), "spec.hostIPC"),
    ("privileged", _with_container({"privileged": False}), None),
    (
        "privileged",
        _with_container({"privileged": True}, "ephemeralContainers"),
        "spec.ephemeralContainers[name=other].securityContext.privileged",
    ),
    ("capabilities-baseline", _with_container({"capabilities": {"add": ["CHOWN", "KILL"]}}), None),
    (
        "capabilities-baseline",
        _with_container({"capabilities": {"add": ["NET_ADMIN"]}}),
        "spec.containers[name=c].securityContext.capabilities.add[0]",
    ),
    ("host-path-volumes", _restricted_ok(volumes=[{"name": "v", "emptyDir": {}}]), None),
    (
        "host-path-volumes",
        _restricted_ok(volumes=[{"name": "v", "hostPath": {"path": "/"}}]),
        "spec.volumes[name=v].hostPath",
    ),
    ("host-ports", _with_container(ports=[{"containerPort": 80, "hostPort": 0}]), None),
    (
        "host-ports",
        _with_container(ports=[{"containerPort": 80, "hostPort": 8080}]),
        "spec.containers[name=c].ports[0].hostPort",
    ),
    ("host-probes", _with_container(readinessProbe={"httpGet": {"host": "", "port": 80}}), None),
    (
        "host-probes",
        _with_container(lifecycle={"preStop": {"httpGet": {"host": "10.0.0.1", "port": 80}}}),
        "spec.containers[name=c].lifecycle.preStop.httpGet.host",
    ),
    (
        "apparmor",
        _with_container({"appArmorProfile": {"type": "Localhost", "localhostProfile": "p"}}),
        None,
    ),
    (
        "apparmor",
        _with_pod_security(appArmorProfile={"type": "Unconfined"}),
        "spec.securityContext.appArmorProfile.type",
    ),
    (
        "apparmor",
        dict(
            _restricted_ok(),
            metadata={
                "annotations": {
                    "container.apparmor.security.beta.kubernetes.io/c": "localhost/custom"
                }
            },
        ),
        None,
    ),
    (
        "apparmor",
        dict(
            _restricted_ok(),
            metadata={
                "annotations": {"container.apparmor.security.beta.kubernetes.io/c": "unconfined"}
            },
        ),
        'metadata.annotations["container.apparmor.security.beta.kubernetes.io/c"]',
    ),
    (
        "selinux",
        _with_pod_security(seLinuxOptions={"type": "container_engine_t", "level": "s0:c123,c456"}),
        None,
    ),
    (
        "selinux",
        _with_container({"seLinuxOptions": {"role": "sysadm_r"}}),
        "spec.containers[name=c].securityContext.seLinuxOptions.role",
    ),
    (
        "selinux",
        _with_container({"seLinuxOptions": {"type": "spc_t"}}),
        "spec.containers[name=c].securityContext.seLinuxOptions.type",
    ),
    ("proc-mount", _with_container({"procMount": "Default"}), None),
    (
        "proc-mount",
        _with_container({"procMount": "Unmasked"}, "initContainers"),
        "spec.initContainers[name=other].securityContext.procMount",
    ),
    (
        "seccomp-baseline",
        _with_pod_security(seccompProfile={"type": "Localhost", "localhostProfile": "p"}),
        None,
    ),
    (
        "seccomp-baseline",
        _with_pod_security(seccompProfile={"type": "Unconfined"}),
        "spec.securityContext.seccompProfile.type",
    ),
    (
        "sysctls",
        _with_pod_security(
            sysctls=[{"name": "net.ipv4.ip_local_port_range", "value": "1024 65535"}]
        ),
        None,
    ),
    (
        "sysctls",
        _with_pod_security(sysctls=[{"name": "kernel.sem", "value": "1"}]),
        "spec.securityContext.sysctls[name=kernel.sem].name",
    ),
    (
        "volume-types",
        _restricted_ok(
            volumes=[
                {"name": "a", "secret": {"secretName": "s"}},
                {"name": "b", "image": {"reference": "r"}},
            ]
        ),
        None,
    ),
    (
        "volume-types",
        _restricted_ok(volumes=[{"name": "v", "hostPath": {"path": "/"}}]),
        "spec.volumes[name=v].hostPath",
    ),
    ("privilege-escalation", _restricted_ok(), None),
    (
        "privilege-escalation",
        _with_container({"allowPrivilegeEscalation": True}),
        "spec.containers[name=c].securityContext.allowPrivilegeEscalation",
    ),
    ("run-as-non-root", _with_container({"runAsNonRoot": True}), None),
    (
        "run-as-non-root",
        _with_container({"runAsNonRoot": False}),
        "spec.containers[name=c].securityContext.runAsNonRoot",
    ),
    ("run-as-user", _with_pod_security(runAsUser=1000), None),
    ("run-as-user", _with_pod_security(runAsUser=0), "spec.securityContext.runAsUser"),
    ("seccomp-restricted", _restricted_ok(), None),
    (
        "seccomp-restricted",
        _with_container({"seccompProfile": {"type": "Unconfined"}}),
        "spec.containers[name=c].securityContext.seccompProfile.type",
    ),
    (
        "capabilities-restricted",
        _with_container({"capabilities": {"drop": ["ALL"], "add": ["NET_BIND_SERVICE"]}}),
        None,
    ),
    (
        "capabilities-restricted",
        _with_container({"capabilities": {"drop": ["NET_RAW"]}}),
        "spec.containers[name=c].securityContext.capabilities.drop",
    ),
    ("proc-mount-restricted", _with_container({"procMount": "Default"}), None),
    (
        "proc-mount-restricted",
        _with_container({"procMount": "Unmasked"}),
        "spec.containers[name=c].securityContext.procMount",
    ),
]


def test_the_table_covers_every_rule_both_ways() -> None:
    for module in RULES:
        verdicts = {where is None for rule_id, _, where in TABLE if rule_id == module.ID}
        assert verdicts == {True, False}, module.ID


@pytest.mark.parametrize(
    ("rule_id", "pod", "where"),
    TABLE,
    ids=[f"{r}-{'pass' if w is None else 'fail'}-{i}" for i, (r, _, w) in enumerate(TABLE)],
)
def test_rule(rule_id: str, pod: dict[str, Any], where: str | None) -> None:
    module = rule(rule_id)
    found = policy_problems(pod, module.PROFILE)
    if where is None:
        # the pod meets the rule's profile: this rule and every other of it
        assert found == []
        return
    mine = [p for p in found if p.rule == rule_id]
    assert [p.path for p in mine] == [where]
    assert mine[0].check == "policy" and mine[0].severity == "error"
    assert f"({module.PROFILE} profile, rule {rule_id})" in mine[0].message
    if module.PROFILE == "baseline" and module in rules_for("restricted"):
        # a baseline rule holds under restricted too, and says which profile was checked
        again = [p for p in policy_problems(pod, "restricted") if p.rule == rule_id]
        assert [p.path for p in again] == [where]
        assert "(restricted profile" in again[0].message


# exemptions as the page states them
def test_pod_level_run_as_non_root_covers_containers() -> None:
    pod = _restricted_ok()
    assert pod["spec"]["securityContext"]["runAsNonRoot"] is True
    assert [p for p in policy_problems(pod, "restricted") if p.rule == "run-as-non-root"] == []
    del pod["spec"]["securityContext"]["runAsNonRoot"]
    found = [p.path for p in policy_problems(pod, "restricted") if p.rule == "run-as-non-root"]
    assert found == ["spec.containers[name=c].securityContext.runAsNonRoot"]


def test_pod_level_false_fails_even_when_every_container_sets_true() -> None:
    pod = _with_container({"runAsNonRoot": True})
    pod["spec"]["securityContext"]["runAsNonRoot"] = False
    assert [p.path for p in policy_problems(pod, "restricted") if p.rule == "run-as-non-root"] == [
        "spec.securityContext.runAsNonRoot"
    ]


def test_seccomp_may_be_set_on_every_container_instead_of_the_pod() -> None:
    pod = _with_container({"seccompProfile": {"type": "RuntimeDefault"}})
    del pod["spec"]["securityContext"]["seccompProfile"]
    assert policy_problems(pod, "restricted") == []
    pod["spec"]["initContainers"] = [
        {
            "name": "i",
            "image": "x",
            "securityContext": {
                "allowPrivilegeEscalation": False,
                "capabilities": {"drop": ["ALL"]},
            },
        }
    ]
    assert [p.path for p in policy_problems(pod, "restricted")] == [
        "spec.initContainers[name=i].securityContext.seccompProfile.type"
    ]


def test_windows_pods_are_exempt_from_the_linux_only_controls() -> None:
    pod: dict[str, Any] = {
        "spec": {
            "os": {"name": "windows"},
            "securityContext": {"runAsNonRoot": True},
            "containers": [{"name": "c", "image": "x"}],
        }
    }
    assert policy_problems(pod, "restricted") == []
    linux = {"spec": dict(pod["spec"], os={"name": "linux"})}
    assert {p.rule for p in policy_problems(linux, "restricted")} == {
        "privilege-escalation",
        "seccomp-restricted",
        "capabilities-restricted",
    }
    # the baseline controls still hold for them
    pod["spec"]["containers"][0]["securityContext"] = {
        "capabilities": {"add": ["SYS_ADMIN"]},
        "seccompProfile": {"type": "Unconfined"},
    }
    assert {p.rule for p in policy_problems(pod, "restricted")} == {
        "capabilities-baseline",
        "seccomp-baseline",
    }


def test_user_namespaces_relax_proc_mount_in_baseline_only() -> None:
    pod = _with_container({"procMount": "Unmasked"})
    pod["spec"]["hostUsers"] = False
    assert policy_problems(pod, "baseline") == []
    assert [p.rule for p in policy_problems(pod, "restricted")] == ["proc-mount-restricted"]


def test_restricted_replaces_the_baseline_rules_it_tightens() -> None:
    pod = _restricted_ok(volumes=[{"name": "v", "hostPath": {"path": "/"}}])
    assert [p.rule for p in policy_problems(pod, "baseline")] == ["host-path-volumes"]
    assert [p.rule for p in policy_problems(pod, "restricted")] == ["volume-types"]
    ids = {module.ID for module in rules_for("restricted")}
    assert {
        "host-path-volumes",
        "seccomp-baseline",
        "capabilities-baseline",
        "proc-mount",
    }.isdisjoint(ids)
    assert {m.ID for m in rules_for("baseline")} <= ids | {
        "host-path-volumes",
        "seccomp-baseline",
        "capabilities-baseline",
        "proc-mount",
    }


def test_every_violation_is_found_at_once() -> None:
    pod = {
        "spec": {
            "hostNetwork": True,
            "hostPID": True,
            "containers": [
                {"name": "a", "securityContext": {"privileged": True}},
                {"name": "b", "ports": [{"containerPort": 1, "hostPort": 1}]},
            ],
        }
    }
    assert [(p.rule, p.path) for p in policy_problems(pod, "baseline")] == [
        ("host-namespaces", "spec.hostNetwork"),
        ("host-namespaces", "spec.hostPID"),
        ("privileged", "spec.containers[name=a].securityContext.privileged"),
        ("host-ports", "spec.containers[name=b].ports[0].hostPort"),
    ]


@pytest.mark.parametrize("kind", ["PodSpec", "PodTemplateSpec"])
def test_other_pod_shapes(kind: str) -> None:
    spec = {"hostIPC": True, "containers": [{"name": "c", "image": "x"}]}
    pod = spec if kind == "PodSpec" else {"metadata": {"labels": {"a": "b"}}, "spec": spec}
    found = policy_problems(pod, "baseline", kind=kind)
    assert [p.path for p in found] == ["hostIPC" if kind == "PodSpec" else "spec.hostIPC"]


def test_client_objects() -> None:
    pod = client.V1Pod(
        spec=client.V1PodSpec(host_pid=True, containers=[client.V1Container(name="c", image="x")])
    )
    assert [p.path for p in policy_problems(pod, "baseline")] == ["spec.hostPID"]


def test_check_policy_raises_listing_every_problem() -> None:
    check_policy(_restricted_ok(), "restricted")
    with pytest.raises(PolicyError) as caught:
        check_policy({"spec": {"hostPID": True, "hostIPC": True}}, "baseline")
    assert isinstance(caught.value, ValueError)
    assert [p.path for p in caught.value.problems] == ["spec.hostPID", "spec.hostIPC"]
    assert "baseline" in str(caught.value)


@pytest.mark.parametrize("profile", ["Restricted", "privileged", "", None])
def test_unknown_profile_names_the_argument(profile: Any) -> None:
    with pytest.raises(ArgumentError) as caught:
        policy_problems({}, profile)
    assert caught.value.argument == "profile"
    assert "baseline, restricted" in str(caught.value)


def test_rules_are_described() -> None:
    assert PROFILES == ("baseline", "restricted")
    assert len({module.ID for module in RULES}) == len(RULES)
    for module in RULES:
        assert module.PROFILE in PROFILES and module.DESCRIPTION and module.check.__doc__
        assert all(rule(overridden).PROFILE == "baseline" for overridden in module.OVERRIDES)


def test_input_is_not_modified() -> None:
    pod = _with_container({"privileged": True})
    text = repr(pod)
    policy_problems(pod, "restricted")
    assert repr(pod) == text
