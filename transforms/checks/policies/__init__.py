"""The Pod Security Standards, ``baseline`` and ``restricted``: one rule per module, as yamllint
keeps its rules, checked on a folded pod.

Each rule module has an ``ID`` (kebab-case), a ``PROFILE`` (the lowest
profile it belongs to), a one-line ``DESCRIPTION``, ``OVERRIDES`` (the
baseline rules it replaces under ``restricted``, as the admission controller's
checks do) and ``check(pod)``, which yields a
:class:`~transforms.checks.problems.Problem` per violation for a
:class:`~transforms.checks.policies._pod.PodView`. :data:`RULES` lists them
in the order they run; :func:`rule` finds one by id; :func:`rules_for` gives
a profile's rules. The rules and their exemptions follow the Kubernetes page
"Pod Security Standards", checked against the pod-security-admission code.

>>> pod = {"spec": {"hostNetwork": True, "containers": [{"name": "trainer", "image": "t:1"}]}}
>>> for problem in policy_problems(pod, "baseline"):
...     print(problem)
spec.hostNetwork: sharing the host's namespaces is not allowed, found hostNetwork: true (baseline profile, rule host-namespaces)
>>> [p.rule for p in policy_problems(pod, "restricted")][:3]
['host-namespaces', 'privilege-escalation', 'run-as-non-root']
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

from combinators.errors import ArgumentError, ArgumentTypeError
from combinators.limits import short_repr
from combinators.near import did_you_mean, near_misses
from transforms.checks.policies import (
    apparmor,
    capabilities_baseline,
    capabilities_restricted,
    host_namespaces,
    host_path_volumes,
    host_ports,
    host_probes,
    host_process,
    privilege_escalation,
    privileged,
    proc_mount,
    proc_mount_restricted,
    run_as_non_root,
    run_as_user,
    seccomp_baseline,
    seccomp_restricted,
    selinux,
    sysctls,
    volume_types,
)
from transforms.checks.policies._pod import PodView
from transforms.checks.policies.errors import PolicyError
from transforms.checks.problems import Problem
from transforms.kube.convert import to_data
from transforms.kube.kinds import check_kind

__all__ = (
    "PROFILES",
    "RULES",
    "PolicyError",
    "PodView",
    "rule",
    "rules_for",
    "policy_problems",
    "check_policy",
)

#: The profiles, least strict first; each includes the one before it.
PROFILES = ("baseline", "restricted")

#: Every rule, baseline ones first, in the order they run.
RULES: tuple[ModuleType, ...] = (
    host_process,
    host_namespaces,
    privileged,
    capabilities_baseline,
    host_path_volumes,
    host_ports,
    host_probes,
    apparmor,
    selinux,
    proc_mount,
    seccomp_baseline,
    sysctls,
    volume_types,
    privilege_escalation,
    run_as_non_root,
    run_as_user,
    seccomp_restricted,
    capabilities_restricted,
    proc_mount_restricted,
)


def rule(rule_id: str) -> ModuleType:
    """The rule module with id ``rule_id``; an :class:`ArgumentError` names near misses.

    >>> rule("host-ports").DESCRIPTION
    'ports[*].hostPort is unset or 0 in every container'
    >>> rule("hostports")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: rule(): rule_id: no policy rule 'hostports'; did you mean host-ports, host-probes or host-process?
    """
    for module in RULES:
        if rule_id == module.ID:
            return module
    ids = [module.ID for module in RULES]
    hint = did_you_mean(near_misses(str(rule_id), ids)) or f"; rules are: {', '.join(ids)}"
    raise ArgumentError(
        f"no policy rule {short_repr(rule_id)}{hint}",
        argument="rule_id",
        factory="rule",
        value=rule_id,
    )


def _profile(profile: object, factory: str) -> str:
    if type(profile) is str and profile in PROFILES:
        return profile
    if not isinstance(profile, str):
        raise ArgumentTypeError(
            f"profile must be one of {', '.join(PROFILES)}, got "
            f"{type(profile).__name__}: {short_repr(profile)}",
            argument="profile",
            factory=factory,
            value=profile,
        )
    hint = did_you_mean(near_misses(profile, PROFILES, n=2))
    raise ArgumentError(
        f"unknown profile {short_repr(profile)}; profiles are: {', '.join(PROFILES)}{hint}",
        argument="profile",
        factory=factory,
        value=profile,
    )


def rules_for(profile: str) -> tuple[ModuleType, ...]:
    """The rules a ``profile`` runs: its own and the lower profiles', less those replaced.

    >>> [module.ID for module in rules_for("baseline")][:3]
    ['host-process', 'host-namespaces', 'privileged']
    >>> "host-path-volumes" in [module.ID for module in rules_for("restricted")]
    False
    """
    level = PROFILES.index(_profile(profile, "rules_for"))
    chosen = [module for module in RULES if PROFILES.index(module.PROFILE) <= level]
    replaced = {overridden for module in chosen for overridden in module.OVERRIDES}
    return tuple(module for module in chosen if module.ID not in replaced)


def _plain(pod: Any, kind: str) -> Any:
    if type(pod) is dict:
        return pod
    if hasattr(type(pod), "attribute_map"):  # a kubernetes client object
        return to_data(pod)
    if isinstance(pod, Mapping):
        return to_data(pod, kind)
    if hasattr(pod, "to_dict"):
        return to_data(pod.to_dict(), kind)
    return pod


def policy_problems(pod: Any, profile: str, *, kind: str = "Pod") -> list[Problem]:
    """Every violation of the Pod Security Standard ``profile`` in ``pod``, rule by rule.

    ``pod`` is API-form data of ``kind`` (``Pod``, ``PodTemplateSpec`` or
    ``PodSpec``), a mapping or a kubernetes client object. Each problem's
    ``rule`` is the rule's id, its ``check`` is ``"policy"``, its message
    names the profile; list elements are named ``[name=...]`` where their
    name is unique. Parts that are not maps where a rule looks are the schema
    check's to report; rules skip them.

    >>> policy_problems({"containers": [{"name": "c", "securityContext": {"privileged": True}}]},
    ...                 "baseline", kind="PodSpec")[0].path
    'containers[name=c].securityContext.privileged'
    >>> policy_problems({}, "strict")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: policy_problems(): profile: unknown profile 'strict'; profiles are: baseline, restricted; did you mean restricted?
    """
    chosen = rules_for(_profile(profile, "policy_problems"))
    kind = check_kind(kind, factory="policy_problems")
    pod = _plain(pod, kind)
    if type(pod) is not dict:
        return []
    view = PodView.of(pod, profile, kind)
    found: list[Problem] = []
    for module in chosen:
        found.extend(module.check(view))
    return found


def check_policy(pod: Any, profile: str, *, kind: str = "Pod") -> None:
    """Raise :class:`PolicyError` listing every violation of ``profile`` in ``pod``, if any.

    >>> check_policy({"spec": {"containers": [{"name": "c"}]}}, "baseline")
    >>> check_policy({"spec": {"hostPID": True}}, "baseline")
    Traceback (most recent call last):
      ...
    transforms.checks.policies.errors.PolicyError: pod violates the Pod Security Standard 'baseline' (1 problem):
      spec.hostPID: sharing the host's namespaces is not allowed, found hostPID: true (baseline profile, rule host-namespaces)
    """
    found = policy_problems(pod, profile, kind=kind)
    if found:
        raise PolicyError(
            found,
            f"{kind[0].lower() + kind[1:] if kind != 'Pod' else 'pod'} "
            f"violates the Pod Security Standard {short_repr(profile)}",
        )
