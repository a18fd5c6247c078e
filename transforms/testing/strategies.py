"""Hypothesis strategies: schema-valid pods of varied shapes, and random overlays.

:func:`pods` draws pods that pass :func:`transforms.checks.validation.problems`
with no error: containers with names, images, env, ports, resources
(requests within limits) and volumeMounts of volumes the pod has, init
containers, tolerations, node selectors, labels and annotations.
:func:`transforms` draws chains of combinators and catalog recipes with
valid arguments. State your own laws with them:

>>> from hypothesis import given, settings
>>> from transforms.testing import assert_idempotent, assert_pure
>>> @settings(max_examples=10, deadline=None)
... @given(pods(), transforms())
... def test_overlays_are_pure(pod, overlay):
...     assert_pure(overlay, pod)
>>> test_overlays_are_pure()

Names the transforms give to what they add (sidecars, volumes, mount paths)
come from pools :func:`pods` never draws from (:data:`RESERVED_NAMES`,
:data:`MOUNT_PATHS`), so an overlay meets no name clash it did not ask for.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, TypeVar

from hypothesis import strategies as st

from combinators import (
    Transform,
    append_at,
    chain,
    expect,
    for_each,
    merge_by,
    remove_at,
    replace_at,
    set_default,
    upsert,
    when,
)
from combinators.errors import ArgumentError
from transforms.forms.catalog import recipe_catalog

__all__ = (
    "dns_labels",
    "env_names",
    "label_maps",
    "tolerations",
    "volumes",
    "containers",
    "pods",
    "recipe_calls",
    "combinator_steps",
    "transforms",
    "RECIPE_ARGUMENTS",
    "RESERVED_NAMES",
    "MOUNT_PATHS",
)

T = TypeVar("T")

RESERVED_NAMES = frozenset(
    {
        "proxy-sidecar",
        "log-shipper",
        "fetch-init",
        "warm-cache",
        "extra-data",
        "extra-secret",
        "extra-config",
        "extra-scratch",
        "extra-host",
        "dshm",
    }
)
"""Names of containers and volumes that overlays add; :func:`pods` never uses them."""

MOUNT_PATHS = ("/data", "/ckpt", "/secrets/extra", "/etc/extra", "/scratch")
"""Where the storage recipes :func:`transforms` draws mount their volumes; :func:`pods`
mounts nothing there."""

_LOWER = "abcdefghijklmnopqrstuvwxyz"
_DIGITS = "0123456789"


def _names(
    first: str, inner: str, last: str, inner_size: int, separators: str = ""
) -> st.SearchStrategy[str]:
    """Texts of one character of ``first``, then maybe up to ``inner_size`` of ``inner``
    ended by one of ``last`` (the regex ``[first]([inner]{0,n}[last])?``); where the
    inner part may be long, one of ``separators`` (all in ``inner``) often begins it, as
    names (``log-shipper``) have them where a naive reader breaks.

    Each part is one drawn text, where ``st.from_regex`` draws a character at a time: a
    pod of :func:`pods` took 2.6 times as long to draw."""
    return st.builds(
        functools.partial(_name, inner_size),
        st.text(first, min_size=1, max_size=1),
        st.text(separators, max_size=1) if separators else st.just(""),
        st.text(inner, max_size=inner_size),
        st.text(last, max_size=1),
    )


def _name(inner_size: int, first: str, separator: str, inner: str, last: str) -> str:
    if not last:
        return first
    return first + (separator + inner)[:inner_size] + last


dns_labels: st.SearchStrategy[str] = _names(
    _LOWER, _LOWER + _DIGITS + "-", _LOWER + _DIGITS, 10, "-"
).filter(lambda name: name not in RESERVED_NAMES)
"""DNS-1123 labels: names of containers, volumes, claims and secrets."""

env_names: st.SearchStrategy[str] = st.builds(
    str.__add__,
    # one name in ten begins with "_", valid and what a naive check refuses (a letter
    # drawn among 27 made it one in 40: a run of 100 examples missed it one time in 11)
    st.sampled_from((*_LOWER.upper(), "_", "_", "_")),
    st.text(_LOWER.upper() + _DIGITS + "_", max_size=12),
)
"""Environment variable names."""

_label_names = _names(_LOWER + _DIGITS, _LOWER + _DIGITS + "._-", _LOWER + _DIGITS, 10, "._-")
label_keys: st.SearchStrategy[str] = st.one_of(
    _label_names,
    st.builds(
        "{}/{}".format,
        st.sampled_from(["example.com", "team.example.org", "kubernetes.io"]),
        _label_names,
    ),
)
label_values: st.SearchStrategy[str] = st.one_of(st.just(""), _label_names)
# every character UTF-8 can carry: all but the surrogates (Cs), so no codec is named, whose
# alphabet hypothesis would work out anew (seconds) in each project without its cache
_texts = st.text(st.characters(exclude_categories=("Cs", "Cc")), max_size=20)
_paths = st.builds(
    lambda first, rest: "/" + "/".join([first, *rest]),
    st.text(_LOWER, min_size=1, max_size=8),
    st.lists(st.text(_LOWER + _DIGITS, min_size=1, max_size=8), max_size=2),
).filter(lambda text: not text.startswith("/dev/"))
_images = st.sampled_from(
    [
        "ghcr.io/example/trainer:1.0",
        "pytorch/pytorch:2.3",
        "nvcr.io/nvidia/pytorch:24.05-py3",
        "busybox:1.36",
        "envoyproxy/envoy:v1.30",
    ]
)


@functools.cache
def label_maps(min_size: int = 0, max_size: int = 3) -> st.SearchStrategy[dict[str, str]]:
    """Maps of label keys (``team``, ``example.com/pool``) to label values.

    >>> from hypothesis import given, settings
    >>> @settings(max_examples=20)
    ... @given(label_maps(min_size=1))
    ... def check(labels):
    ...     assert labels and all(isinstance(value, str) for value in labels.values())
    >>> check()
    """
    return st.dictionaries(label_keys, label_values, min_size=min_size, max_size=max_size)


_effects = st.sampled_from([None, "NoSchedule", "PreferNoSchedule", "NoExecute"])


@st.composite
def tolerations(draw: st.DrawFn) -> dict[str, Any]:
    """A toleration: ``Exists`` without a value, half of these without a key too (it
    tolerates every taint: the case code that reads ``toleration["key"]`` breaks on), or ``Equal`` with a value, the operator sometimes left out
    (it defaults to ``Equal``); maybe an effect.

    >>> from hypothesis import find, settings
    >>> find(tolerations(), lambda toleration: "key" not in toleration,
    ...      settings=settings(derandomize=True, database=None))
    {'operator': 'Exists'}
    """
    toleration: dict[str, Any] = {}
    if draw(st.booleans()):
        if draw(st.booleans()):
            toleration["key"] = draw(label_keys)
        toleration["operator"] = "Exists"
    else:
        toleration["key"] = draw(label_keys)
        if draw(st.booleans()):
            toleration["operator"] = "Equal"
        toleration["value"] = draw(label_values)
    effect = draw(_effects)
    if effect is not None:
        toleration["effect"] = effect
        if effect == "NoExecute" and draw(st.booleans()):
            toleration["tolerationSeconds"] = draw(st.integers(0, 3600))
    return toleration


# Strategies are built once, here, not inside the draws: hypothesis checks each new one
# the first time it draws from it, which took longer than the draw itself.
_booleans = st.booleans()
_modes = st.integers(0, 0o777)
_empty_dirs = st.sampled_from([{}, {"medium": "Memory"}, {"sizeLimit": "1Gi"}])
_VOLUME_KINDS = st.sampled_from(
    sorted(["emptyDir", "persistentVolumeClaim", "configMap", "secret", "hostPath"])
)


def _volume_source(draw: st.DrawFn, kind: str, name: str) -> dict[str, Any]:
    if kind == "emptyDir":
        return dict(draw(_empty_dirs))
    if kind == "persistentVolumeClaim":
        claim: dict[str, Any] = {"claimName": name}
        _optional(draw, claim, "readOnly", _booleans)
        return claim
    if kind == "configMap":
        return {"name": name}
    if kind == "secret":
        secret: dict[str, Any] = {"secretName": name}
        _optional(draw, secret, "defaultMode", _modes)
        return secret
    return {"path": draw(_paths)}  # hostPath


@functools.cache
def _unique_lists(
    elements: st.SearchStrategy[Any], min_size: int = 0, max_size: int | None = None
) -> st.SearchStrategy[list[Any]]:
    return st.lists(elements, min_size=min_size, max_size=max_size, unique=True)


@st.composite
def volumes(draw: st.DrawFn, max_size: int = 3) -> list[dict[str, Any]]:
    """Volumes with distinct names, each of one kind (emptyDir, PVC, ConfigMap, Secret, hostPath)."""
    return _volumes(draw, max_size)


def _volumes(draw: st.DrawFn, max_size: int) -> list[dict[str, Any]]:
    found = []
    for name in draw(_unique_lists(dns_labels, 0, max_size)):
        kind = draw(_VOLUME_KINDS)
        found.append({"name": name, kind: _volume_source(draw, kind, name)})
    return found


_UNITS = {
    "cpu": ("m", 100, 64_000),
    "memory": ("Mi", 64, 512_000),
    "nvidia.com/gpu": ("", 1, 8),
    "ephemeral-storage": ("Gi", 1, 500),
}
_resource_names = st.lists(st.sampled_from(sorted(_UNITS)), max_size=3, unique=True)
_limits = {resource: st.integers(low, high) for resource, (_, low, high) in _UNITS.items()}
_which = st.sampled_from(["requests", "limits", "both"])


def _resources(draw: st.DrawFn) -> dict[str, Any]:
    resources: dict[str, dict[str, str]] = {}
    for resource in draw(_resource_names):
        suffix, low, _ = _UNITS[resource]
        limit = draw(_limits[resource])
        # extended resources (GPUs) need requests equal to limits
        request = limit if "/" in resource else draw(st.integers(low, limit))
        which = draw(_which)
        if which in ("limits", "both"):
            resources.setdefault("limits", {})[resource] = f"{limit}{suffix}"
        if which in ("requests", "both") and ("/" not in resource or which == "both"):
            resources.setdefault("requests", {})[resource] = f"{request}{suffix}"
    return resources


_FIELD_PATHS = st.sampled_from(
    ["metadata.name", "metadata.namespace", "spec.nodeName", "status.podIP"]
)
_env_kinds = st.integers(0, 9)


def _env_var(draw: st.DrawFn, name: str) -> dict[str, Any]:
    """An env var named ``name``: mostly a value; else none (it is empty), or one taken
    from a secret, a config map or a field of the pod, which have no ``value``."""
    kind = draw(_env_kinds)
    if kind < 6:
        return {"name": name, "value": draw(_texts)}
    if kind == 6:
        return {"name": name}
    if kind == 9:
        return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": draw(_FIELD_PATHS)}}}
    reference = "secretKeyRef" if kind == 7 else "configMapKeyRef"
    return {
        "name": name,
        "valueFrom": {reference: {"name": draw(dns_labels), "key": draw(_label_names)}},
    }


_commands = st.sampled_from(["train", "serve"])
_arg_lists = st.lists(_texts, max_size=3)
_env_lists = st.lists(env_names, max_size=4, unique=True)
_port_lists = st.lists(st.integers(1, 65535), max_size=2, unique=True)
_port_names = st.text(_LOWER, min_size=1, max_size=8)
_protocols = st.sampled_from(["TCP", "UDP"])
_pull_policies = st.sampled_from(["Always", "IfNotPresent", "Never"])
_mount_paths_drawn = _paths.filter(lambda text: text not in MOUNT_PATHS)


@st.composite
def containers(
    draw: st.DrawFn, name: str | None = None, volume_names: tuple[str, ...] = ()
) -> dict[str, Any]:
    """A container: name, image, maybe command and args, env (values, or from secrets,
    config maps and fields), ports (with or without names), resources and volumeMounts of
    some of ``volume_names`` (at distinct paths)."""
    return _container(draw, name, volume_names)


def _container(draw: st.DrawFn, name: str | None, volume_names: tuple[str, ...]) -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": name if name is not None else draw(dns_labels),
        "image": draw(_images),
    }
    if draw(_booleans):
        container["command"] = ["python", "-m", draw(_commands)]
    if draw(_booleans):
        container["args"] = draw(_arg_lists)
    env = draw(_env_lists)
    if env:
        container["env"] = [_env_var(draw, key) for key in env]
    ports = draw(_port_lists)
    if ports:
        port_names = draw(_unique_lists(_port_names, len(ports), len(ports)))
        container["ports"] = []
        for port, port_name in zip(ports, port_names, strict=True):
            entry: dict[str, Any] = {"containerPort": port}
            # both optional: a port needs no name, and its protocol defaults to TCP
            _optional(draw, entry, "name", st.just(port_name))
            _optional(draw, entry, "protocol", _protocols)
            container["ports"].append(entry)
    resources = _resources(draw)
    if resources:
        container["resources"] = resources
    mounted = draw(_unique_lists(st.sampled_from(volume_names))) if volume_names else []
    if mounted:
        mount_paths = draw(_unique_lists(_mount_paths_drawn, len(mounted), len(mounted)))
        container["volumeMounts"] = [
            {"name": volume, "mountPath": mount_path, "readOnly": draw(_booleans)}
            for volume, mount_path in zip(mounted, mount_paths, strict=True)
        ]
    if draw(_booleans):
        container["imagePullPolicy"] = draw(_pull_policies)
    return container


def _optional(
    draw: st.DrawFn, into: dict[str, Any], key: str, strategy: st.SearchStrategy[Any]
) -> None:
    if draw(_booleans):
        into[key] = draw(strategy)


_container_names = st.one_of(st.just("trainer-0"), dns_labels)
_toleration_lists = st.lists(tolerations(), max_size=3)
_restart_policies = st.sampled_from(["Never", "OnFailure", "Always"])
_grace_periods = st.integers(0, 3600)
_annotations = st.dictionaries(label_keys, _texts, max_size=2)


@st.composite
def pods(draw: st.DrawFn, max_containers: int = 3, max_volumes: int = 3) -> dict[str, Any]:
    """A schema-valid pod in API form, of a varied shape.

    At least one container (sometimes named as TorchX names them,
    ``trainer-0``), maybe init containers; distinct container names; every
    volumeMount names one of the pod's volumes; no request above its limit.

    >>> from hypothesis import given, settings
    >>> from transforms.checks.validation import problems
    >>> @settings(max_examples=20)
    ... @given(pods())
    ... def check(pod):
    ...     assert not [p for p in problems(pod) if p.severity == "error"]
    >>> check()
    """
    pod_volumes = _volumes(draw, max_volumes)
    volume_names = tuple(volume["name"] for volume in pod_volumes)
    names = draw(_unique_lists(_container_names, 1, max_containers + 2))
    count = draw(st.integers(1, min(len(names), max_containers)))
    spec: dict[str, Any] = {
        "containers": [_container(draw, name, volume_names) for name in names[:count]]
    }
    if names[count:]:
        spec["initContainers"] = [_container(draw, name, volume_names) for name in names[count:]]
    if pod_volumes:
        spec["volumes"] = pod_volumes
    _optional(draw, spec, "tolerations", _toleration_lists)
    _optional(draw, spec, "nodeSelector", label_maps())
    _optional(draw, spec, "restartPolicy", _restart_policies)
    _optional(draw, spec, "serviceAccountName", dns_labels)
    _optional(draw, spec, "hostIPC", _booleans)
    _optional(draw, spec, "terminationGracePeriodSeconds", _grace_periods)
    pod: dict[str, Any] = {}
    if draw(_booleans):
        pod.update(apiVersion="v1", kind="Pod")
    metadata: dict[str, Any] = {}
    _optional(draw, metadata, "name", dns_labels)
    _optional(draw, metadata, "labels", label_maps())
    _optional(draw, metadata, "annotations", _annotations)
    if metadata:
        pod["metadata"] = metadata
    pod["spec"] = spec
    return pod


# --- random overlays ----------------------------------------------------------------------


def _call(
    name: str, *args: st.SearchStrategy[Any], **kwargs: st.SearchStrategy[Any]
) -> st.SearchStrategy[Transform]:
    # recipes are found by name in the installed catalogs, as YAML pipelines find
    # them: transforms never imports the recipes package
    return st.deferred(lambda: st.builds(recipe_catalog()[name], *args, **kwargs))


def _none_or(strategy: st.SearchStrategy[T]) -> st.SearchStrategy[T | None]:
    return st.one_of(st.none(), strategy)


# GPU types every provider's label vocabulary knows
_gpu_calls = st.sampled_from(
    [
        (gpu_type, provider)
        for gpu_type in ("a100-80gb", "h100-80gb", "l4", "t4")
        for provider in ("gke", "eks", "gfd")
    ]
)
_qualified = st.sampled_from(
    ["nvidia.com/gpu", "dedicated", "example.com/pool", "node.kubernetes.io/unreachable"]
)
_zones = st.sampled_from(["topology.kubernetes.io/zone", "kubernetes.io/hostname"])
_mount_paths = st.sampled_from(MOUNT_PATHS)
_env_values = st.one_of(
    _texts,
    st.integers(-10, 10**6),
    st.booleans(),
    st.builds(
        lambda name, key: {"secretKeyRef": {"name": name, "key": key}}, dns_labels, dns_labels
    ),
)
_cpu_memory = st.builds(
    lambda cpu, memory: (
        {"cpu": f"{cpu}m", "memory": f"{memory}Mi"},
        {"cpu": f"{cpu * 2}m", "memory": f"{memory * 2}Mi"},
    ),
    st.integers(100, 8000),
    st.integers(64, 64_000),
)

RECIPE_ARGUMENTS: Mapping[str, st.SearchStrategy[Transform]] = {
    "node_selector": _call("node_selector", label_maps(min_size=1)),
    "add_toleration": st.one_of(
        _call("add_toleration", _qualified),
        _call(
            "add_toleration",
            _qualified,
            value=_label_names,
            effect=st.sampled_from(["NoSchedule", "PreferNoSchedule"]),
        ),
        _call(
            "add_toleration", _qualified, effect=st.just("NoExecute"), seconds=st.integers(0, 3600)
        ),
    ),
    "require_node_affinity": _call(
        "require_node_affinity", _label_names, values=st.lists(_label_names, min_size=1, max_size=3)
    ),
    "prefer_node_affinity": _call(
        "prefer_node_affinity",
        _zones,
        values=st.lists(_label_names, min_size=1, max_size=2),
        weight=st.integers(1, 100),
    ),
    # by labels: by default these key on torchx's job label, which a drawn pod may lack
    "spread": _call(
        "spread",
        _zones,
        max_skew=st.integers(1, 3),
        when_unsatisfiable=st.sampled_from(["ScheduleAnyway", "DoNotSchedule"]),
        match_labels=label_maps(min_size=1),
    ),
    "anti_affinity": _call(
        "anti_affinity",
        _zones,
        required=st.booleans(),
        weight=st.integers(1, 100),
        match_labels=label_maps(min_size=1),
    ),
    "priority_class": _call("priority_class", dns_labels),
    "scheduler_name": _call("scheduler_name", dns_labels),
    "runtime_class": _call("runtime_class", dns_labels),
    "kueue_queue": _call("kueue_queue", dns_labels),
    "gpu": _gpu_calls.flatmap(
        lambda call: _call(
            "gpu", st.just(call[0]), count=_none_or(st.integers(1, 8)), provider=st.just(call[1])
        )
    ),
    "mig": st.sampled_from([("1g.5gb", None), ("3g.40gb", "eks"), ("2g.20gb", "gke")]).flatmap(
        lambda call: _call(
            "mig", st.just(call[0]), count=st.integers(1, 4), provider=st.just(call[1])
        )
    ),
    "tpu": st.sampled_from([("v5e", "2x4", 4), ("tpu-v5p-slice", "2x2x2", 4)]).flatmap(
        lambda call: _call("tpu", *map(st.just, call))
    ),
    "efa": _call("efa", st.integers(1, 32)),
    "rdma": _call(
        "rdma", st.sampled_from(["rdma/hca", "rdma/rdma_shared_device_a"]), count=st.integers(1, 4)
    ),
    "shm_size": _call("shm_size", st.integers(1, 256).map("{}Gi".format)),
    "mount_pvc": _call(
        "mount_pvc", dns_labels, _mount_paths, volume=st.just("extra-data"), read_only=st.booleans()
    ),
    "mount_secret": _call("mount_secret", dns_labels, _mount_paths, volume=st.just("extra-secret")),
    "mount_config_map": _call(
        "mount_config_map",
        dns_labels,
        _mount_paths,
        volume=st.just("extra-config"),
        optional=st.booleans(),
    ),
    "mount_empty_dir": _call(
        "mount_empty_dir", st.just("extra-scratch"), _mount_paths, memory=st.booleans()
    ),
    "mount_host_path": _call(
        "mount_host_path",
        st.just("/mnt/nvme"),
        _mount_paths,
        volume=st.just("extra-host"),
        type=st.just("Directory"),
    ),
    "add_env": _call("add_env", st.dictionaries(env_names, _env_values, min_size=1, max_size=3)),
    "add_env_from_secret": _call("add_env_from_secret", env_names, dns_labels, _label_names),
    "add_env_from_config_map": _call(
        "add_env_from_config_map", env_names, dns_labels, _label_names
    ),
    "add_env_from_field": _call(
        "add_env_from_field",
        env_names,
        st.sampled_from(["spec.nodeName", "status.podIP", "metadata.name"]),
    ),
    "resources": _cpu_memory.flatmap(
        lambda pair: _call("resources", requests=st.just(pair[0]), limits=st.just(pair[1]))
    ),
    "image_pull_policy": _call(
        "image_pull_policy", st.sampled_from(["Always", "IfNotPresent", "Never"])
    ),
    "working_dir": _call("working_dir", _paths),
    "security_context": _call(
        "security_context",
        run_as_user=st.integers(0, 65535),
        run_as_non_root=_none_or(st.booleans()),
        allow_privilege_escalation=_none_or(st.booleans()),
    ),
    "add_capabilities": _call(
        "add_capabilities",
        st.lists(
            st.sampled_from(["IPC_LOCK", "SYS_PTRACE", "SYS_NICE", "NET_ADMIN"]),
            min_size=1,
            max_size=2,
            unique=True,
        ),
    ),
    "sidecar": _call(
        "sidecar", st.sampled_from(["proxy-sidecar", "log-shipper"]), _images, native=st.booleans()
    ),
    "init_container": _call(
        "init_container",
        st.sampled_from(["fetch-init", "warm-cache"]),
        _images,
        command=st.just(["sh", "-c", "true"]),
    ),
    "add_labels": _call("add_labels", label_maps(min_size=1)),
    "add_annotations": _call(
        "add_annotations", st.dictionaries(label_keys, _texts, min_size=1, max_size=2)
    ),
    "istio_sidecar": _call("istio_sidecar", st.booleans()),
    "service_account": _call("service_account", dns_labels),
    "image_pull_secret": _call("image_pull_secret", dns_labels),
    "host_network": _call("host_network", st.booleans()),
    "host_ipc": _call("host_ipc", st.booleans()),
    # not "None": the pod then needs a dnsConfig, which the recipe does not write
    "dns_policy": _call(
        "dns_policy", st.sampled_from(["ClusterFirst", "Default", "ClusterFirstWithHostNet"])
    ),
    "termination_grace_period": _call("termination_grace_period", st.integers(0, 3600)),
    "active_deadline": _call("active_deadline", st.integers(1, 86_400)),
}
"""A strategy per catalog recipe, drawing the recipe called with valid arguments."""


def recipe_calls(*names: str) -> st.SearchStrategy[Transform]:
    """Recipes from the catalog (those named, else any) called with valid arguments.

    >>> from hypothesis import given, settings
    >>> @settings(max_examples=20)
    ... @given(recipe_calls("gpu", "shm_size"))
    ... def check(recipe):
    ...     assert recipe.name in ("gpu", "shm_size")
    >>> check()
    """
    chosen = names or tuple(sorted(RECIPE_ARGUMENTS))
    unknown = [name for name in chosen if name not in RECIPE_ARGUMENTS]
    if unknown:
        raise ArgumentError(
            f"no argument strategy for recipe(s) {', '.join(unknown)}; "
            f"known: {', '.join(sorted(RECIPE_ARGUMENTS))}",
            argument="names",
            factory="recipe_calls",
            value=unknown,
        )
    return st.one_of(*(RECIPE_ARGUMENTS[name] for name in chosen))


def combinator_steps() -> st.SearchStrategy[Transform]:
    """Single combinator steps that make sense on any pod of :func:`pods`.

    >>> from hypothesis import find
    >>> find(combinator_steps(), lambda step: step.name == "for_each")
    for_each('spec.containers[*]', set_default('imagePullPolicy', 'IfNotPresent'))
    """
    return st.one_of(
        st.builds(lambda labels: upsert("metadata.labels", labels), label_maps(min_size=1)),
        st.builds(lambda labels: upsert("spec.nodeSelector", labels), label_maps(min_size=1)),
        st.builds(
            lambda policy: set_default("spec.restartPolicy", policy),
            st.sampled_from(["Never", "OnFailure"]),
        ),
        st.builds(
            lambda toleration: append_at("spec.tolerations", toleration, unique=True), tolerations()
        ),
        st.builds(
            lambda names: merge_by(
                "spec.containers[0].env", [{"name": name, "value": "1"} for name in names]
            ),
            st.lists(env_names, min_size=1, max_size=3, unique=True),
        ),
        st.sampled_from(
            [
                remove_at("metadata.annotations"),
                remove_at("spec.nodeSelector"),
                expect("spec.containers[0]"),
                for_each("spec.containers[*]", set_default("imagePullPolicy", "IfNotPresent")),
            ]
        ),
        st.builds(
            lambda seconds: replace_at("spec.terminationGracePeriodSeconds", seconds),
            st.integers(0, 3600),
        ),
        st.builds(
            lambda labels: when("spec.volumes", upsert("metadata.labels", labels)),
            label_maps(min_size=1),
        ),
    )


_ADDS_CONTAINER = frozenset({"sidecar", "init_container"})
_ADDS_VOLUME = frozenset(
    {"mount_pvc", "mount_secret", "mount_config_map", "mount_empty_dir", "mount_host_path"}
)


def _claims(step: Transform) -> list[tuple[str, Any]]:
    """The names ``step`` adds that Kubernetes wants unique: a container's, a volume's, a
    mount path (read from the call, as :data:`RECIPE_ARGUMENTS` makes it)."""
    args, kwargs = step.params
    if step.name in _ADDS_CONTAINER:
        return [("container", args[0])]
    if step.name in _ADDS_VOLUME:
        volume = args[0] if step.name == "mount_empty_dir" else kwargs["volume"]
        return [("volume", volume), ("mount path", args[1])]
    return []


def _no_name_twice(steps: list[Transform]) -> bool:
    claims = [claim for step in steps for claim in _claims(step)]
    return len(claims) == len(set(claims))


def transforms(max_steps: int = 4) -> st.SearchStrategy[Any]:
    """Chains of 1 to ``max_steps`` steps, each a catalog recipe or a combinator step.

    Every step is idempotent on its own and never fails on a pod of
    :func:`pods`; no two steps of a chain add a container, a volume or a mount
    path of one name (a recipe refuses a name used for something else), so a
    chain applies to every pod of :func:`pods` too. A chain need not be
    idempotent (a ``when`` that reads what a later step writes acts on the
    second application), so a law over chains asks of each step, not of the
    chain.

    >>> from hypothesis import given, settings
    >>> @settings(max_examples=20)
    ... @given(transforms())
    ... def check(overlay):
    ...     assert callable(overlay) and repr(overlay)
    >>> check()
    """
    step = st.one_of(recipe_calls(), combinator_steps())
    return (
        st.lists(step, min_size=1, max_size=max_steps)
        .filter(_no_name_twice)
        .map(lambda steps: chain(*steps))
    )
