"""Pod-wide settings: metadata, identity, networking and lifetime."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from combinators import Key, Path, Transform, append_at, chain, replace_at, upsert
from combinators.limits import short_repr
from recipes._check import (
    bad_value,
    check_bool,
    check_choice,
    check_dns_subdomain,
    check_int,
    check_label_value,
    check_qualified_name,
    merge_kwargs,
    scalar_text,
)
from recipes._recipe import recipe

__all__ = (
    "add_labels",
    "add_annotations",
    "istio_sidecar",
    "service_account",
    "image_pull_secret",
    "host_network",
    "host_ipc",
    "dns_policy",
    "termination_grace_period",
    "active_deadline",
    "ISTIO_INJECT",
)

DNS_POLICIES = ("ClusterFirst", "ClusterFirstWithHostNet", "Default", "None")
ISTIO_INJECT = "sidecar.istio.io/inject"


@recipe
def add_labels(labels: Mapping[str, Any] | None = None, /, **more: Any) -> Transform:
    """Merge labels into ``metadata.labels``; numbers and booleans are written as text.

    Keys with dots or slashes go in the positional map.

    >>> add_labels({"app.kubernetes.io/part-of": "llm"}, team="ml")({"metadata": {"labels": {}}})
    {'metadata': {'labels': {'app.kubernetes.io/part-of': 'llm', 'team': 'ml'}}}
    >>> add_labels(team="machine learning")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: add_labels(): label 'team' must be a label value (letters, digits, '-', '_', '.', starting and ending with a letter or digit, at most 63), got 'machine learning'
    """
    merged = merge_kwargs("labels", labels, more)
    if not merged:
        bad_value("labels", merged, "labels: needs at least one label")
    checked = {}
    for key, value in merged.items():
        check_qualified_name("label key", key)
        checked[key] = check_label_value(
            f"label {short_repr(key)}", scalar_text(f"label {short_repr(key)}", value)
        )
    return upsert("metadata.labels", checked)


@recipe
def add_annotations(annotations: Mapping[str, Any] | None = None, /, **more: Any) -> Transform:
    """Merge annotations into ``metadata.annotations``; values are written as text.

    >>> add_annotations({"cluster-autoscaler.kubernetes.io/safe-to-evict": False})({})
    {'metadata': {'annotations': {'cluster-autoscaler.kubernetes.io/safe-to-evict': 'false'}}}
    """
    merged = merge_kwargs("annotations", annotations, more)
    if not merged:
        bad_value("annotations", merged, "annotations: needs at least one annotation")
    checked = {}
    for key, value in merged.items():
        check_qualified_name("annotation key", key)
        checked[key] = scalar_text(f"annotation {short_repr(key)}", value)
    return upsert("metadata.annotations", checked)


@recipe
def istio_sidecar(enabled: bool) -> Transform:
    """Have Istio inject its proxy, or not (``sidecar.istio.io/inject``, label and annotation).

    torchx sets the annotation to ``"false"``; this sets both the label
    (what current Istio reads) and the annotation (what older Istio reads),
    so they never disagree.

    >>> istio_sidecar(True)({"metadata": {"annotations": {"sidecar.istio.io/inject": "false"}}})
    {'metadata': {'annotations': {'sidecar.istio.io/inject': 'true'}, 'labels': {'sidecar.istio.io/inject': 'true'}}}
    """
    text = "true" if check_bool("enabled", enabled) else "false"
    result = chain(
        replace_at(Path([Key("metadata"), Key("annotations"), Key(ISTIO_INJECT)]), text),
        replace_at(Path([Key("metadata"), Key("labels"), Key(ISTIO_INJECT)]), text),
    )
    assert isinstance(result, Transform)
    return result


@recipe
def service_account(name: str) -> Transform:
    """Run the pod as a service account (``spec.serviceAccountName``).

    >>> service_account("trainer")({"spec": {}})
    {'spec': {'serviceAccountName': 'trainer'}}
    """
    return replace_at("spec.serviceAccountName", check_dns_subdomain("name", name))


@recipe
def image_pull_secret(name: str) -> Transform:
    """Pull images with the credentials of a Secret (``spec.imagePullSecrets``), once.

    >>> pull = image_pull_secret("registry-creds")
    >>> pod = pull({"spec": {}})
    >>> pod, pull(pod) is pod
    ({'spec': {'imagePullSecrets': [{'name': 'registry-creds'}]}}, True)
    """
    return append_at(
        "spec.imagePullSecrets", {"name": check_dns_subdomain("name", name)}, unique=True
    )


@recipe
def host_network(enabled: bool = True) -> Transform:
    """Use the node's network namespace (``spec.hostNetwork``).

    Pods on the host network usually also want
    ``dns_policy('ClusterFirstWithHostNet')`` to keep resolving cluster names.

    >>> host_network()({"spec": {}})
    {'spec': {'hostNetwork': True}}
    """
    return replace_at("spec.hostNetwork", check_bool("enabled", enabled))


@recipe
def host_ipc(enabled: bool = True) -> Transform:
    """Use the node's IPC namespace (``spec.hostIPC``).

    >>> host_ipc(False)({"spec": {"hostIPC": True}})
    {'spec': {'hostIPC': False}}
    """
    return replace_at("spec.hostIPC", check_bool("enabled", enabled))


@recipe
def dns_policy(policy: str) -> Transform:
    """How the pod resolves names (``spec.dnsPolicy``).

    One of ``ClusterFirst``, ``ClusterFirstWithHostNet``, ``Default``, ``None``.

    >>> dns_policy("ClusterFirstWithHostNet")({"spec": {}})
    {'spec': {'dnsPolicy': 'ClusterFirstWithHostNet'}}
    """
    return replace_at("spec.dnsPolicy", check_choice("policy", policy, DNS_POLICIES))


@recipe
def termination_grace_period(seconds: int) -> Transform:
    """Seconds between SIGTERM and SIGKILL (``spec.terminationGracePeriodSeconds``).

    >>> termination_grace_period(120)({"spec": {}})
    {'spec': {'terminationGracePeriodSeconds': 120}}
    """
    return replace_at("spec.terminationGracePeriodSeconds", check_int("seconds", seconds))


@recipe
def active_deadline(seconds: int) -> Transform:
    """Stop the pod after this many seconds of running (``spec.activeDeadlineSeconds``).

    >>> active_deadline(86400)({"spec": {}})
    {'spec': {'activeDeadlineSeconds': 86400}}
    >>> active_deadline(0)
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: active_deadline(): seconds must be an integer >= 1, got 0
    """
    return replace_at("spec.activeDeadlineSeconds", check_int("seconds", seconds, minimum=1))
