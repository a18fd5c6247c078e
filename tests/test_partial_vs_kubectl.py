"""A partial pod drops nothing it was not asked to change: ``kubectl patch`` is the oracle.

The pods are the pod templates of the real manifests in tests/manifests/ (each
as a Pod, so that kubectl merges it by the Pod schema); the partial pods name an
existing container with ``!merge-by`` and carry random env entries, volume
mounts, ports, resources, nested maps and untagged lists, with untagged maps
beside them at the spec and metadata level. The same change written as a
strategic merge patch goes through ``kubectl patch --local --type strategic``,
Kubernetes' own merge code.

Compared field by field (a list with a Kubernetes merge key by that key, any
other list as a bag of its items), podfold's result holds every field kubectl's
does, and holds more only where a list with no merge key kept its old items:
there podfold appends (the partial-pod rule) where kubectl replaces.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from combinators import get_at
from transforms import MergeBy, dump_overlay, loads_overlay, overlay
from transforms.kube.records import SPEC
from transforms.kube.workloads import pod_templates, with_added_volumes

from .kubectl import kubectl_patch, needs_kubectl

MANIFESTS = Path(__file__).parent / "manifests"

# Kubernetes' merge keys of the pod lists these partial pods reach (and a port's
# protocol defaulting to TCP, as podfold's strategic merge reads the schema),
# written out here rather than read from podfold's tables: the oracle's own copy
KEYED = {
    "containers": ("name",),
    "initContainers": ("name",),
    "env": ("name",),
    "volumeMounts": ("mountPath",),
    "ports": ("containerPort", "protocol"),
    "volumes": ("name",),
    "volumeDevices": ("devicePath",),
    "imagePullSecrets": ("name",),
    "hostAliases": ("ip",),
}
DEFAULTS = {"protocol": "TCP"}


def manifest_pods() -> list[tuple[str, dict[str, Any]]]:
    """Every pod template of the real manifests, as a Pod kubectl can patch by its schema."""
    pods: list[tuple[str, dict[str, Any]]] = []
    seen: set[str] = set()
    for file in sorted(MANIFESTS.rglob("*.y*ml")):
        text = file.read_text(encoding="utf-8")
        for document in yaml.load_all(text, getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            for template in pod_templates(document) if document is not None else ():
                # the pod as the kind's controller makes it: a bare spec, or one kept
                # among the kind's own fields (KServe, Knative, Argo), as a template
                value = with_added_volumes(get_at(document, template.path), template)
                if template.root == SPEC:
                    value = {"spec": value}
                text = json.dumps(value, sort_keys=True)
                if text in seen:  # Volcano's JobTemplate file repeats one template
                    continue
                seen.add(text)
                metadata = {"name": "pod", **copy.deepcopy(value.get("metadata") or {})}
                pods.append(
                    (
                        f"{file.relative_to(MANIFESTS)}:{template.path}",
                        {
                            "apiVersion": "v1",
                            "kind": "Pod",
                            "metadata": metadata,
                            "spec": copy.deepcopy(value["spec"]),
                        },
                    )
                )
    return pods


def _rich(container: dict[str, Any]) -> bool:
    return any(container.get(name) for name in ("env", "volumeMounts", "ports"))


PODS = manifest_pods()
RICH = [
    (label, pod) for label, pod in PODS if any(_rich(c) for c in pod["spec"].get("containers", []))
]


# ---------------------------------------------------------------- field-by-field view


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _is_keyed(field: Any, items: list[Any]) -> bool:
    return field in KEYED and all(
        isinstance(item, dict) and all(key in item or key in DEFAULTS for key in KEYED[field])
        for item in items
    )


def leaves(value: Any, path: tuple[str, ...] = ()) -> Counter[tuple[tuple[str, ...], str]]:
    """Each field of ``value`` with its value: an element of a list with a merge key
    is placed by its key, an element of any other list is one item of a bag."""
    out: Counter[tuple[tuple[str, ...], str]] = Counter()
    if isinstance(value, dict):
        for key, item in value.items():
            out += leaves(item, (*path, key))
    elif isinstance(value, list) and value and _is_keyed(path[-1] if path else None, value):
        fields = KEYED[path[-1]]
        for item in value:
            identity = ",".join(f"{key}={item.get(key, DEFAULTS.get(key))}" for key in fields)
            out += leaves(item, (*path, f"[{identity}]"))
    elif isinstance(value, list) and value:
        for item in value:
            out[(*path, "[*]"), _canonical(item)] += 1
    else:
        out[path, _canonical(value)] += 1
    return out


def show(found: Counter[tuple[tuple[str, ...], str]]) -> str:
    return "\n".join(
        f"  {'.'.join(path)} = {value} (x{count})" for (path, value), count in sorted(found.items())
    )


# ---------------------------------------------------------------- random partial pods

NAMES = ("NCCL_DEBUG", "OMP_NUM_THREADS", "HF_HOME", "TOKEN", "RANK")
SECRET = st.fixed_dictionaries(
    {
        "secretKeyRef": st.fixed_dictionaries(
            {"name": st.sampled_from(["db", "hf"]), "key": st.sampled_from(["password", "token"])},
            optional={"optional": st.booleans()},
        )
    }
)
FIELD = st.just({"fieldRef": {"fieldPath": "metadata.name"}})
ENV_VALUE = st.one_of(
    st.fixed_dictionaries({"value": st.sampled_from(["1", "INFO", "x"])}),
    st.fixed_dictionaries({"valueFrom": st.one_of(SECRET, FIELD)}),
)
QUANTITY = {
    "cpu": st.sampled_from(["500m", "2", "16"]),
    "memory": st.sampled_from(["1Gi", "64Gi"]),
    "nvidia.com/gpu": st.sampled_from(["1", "8"]),
}
RESOURCES = st.fixed_dictionaries(
    {},
    optional={
        "limits": st.fixed_dictionaries({}, optional=QUANTITY),
        "requests": st.fixed_dictionaries({}, optional=QUANTITY),
    },
)
CONTAINER_SECURITY = st.fixed_dictionaries(
    {},
    optional={
        "runAsUser": st.integers(0, 2000),
        "allowPrivilegeEscalation": st.booleans(),
        "capabilities": st.fixed_dictionaries(
            {
                "add": st.lists(
                    st.sampled_from(["NET_ADMIN", "SYS_PTRACE", "IPC_LOCK"]), min_size=1, max_size=2
                )
            }
        ),
    },
)
POD_SECURITY = st.fixed_dictionaries(
    {},
    optional={
        "fsGroup": st.integers(0, 2000),
        "runAsNonRoot": st.booleans(),
        "sysctls": st.lists(
            st.fixed_dictionaries(
                {"name": st.just("net.core.somaxconn"), "value": st.sampled_from(["1024", "4096"])}
            ),
            max_size=1,
        ),
    },
)
LABELS = st.dictionaries(
    st.sampled_from(["team", "app", "tier", "queue"]),
    st.sampled_from(["ml", "web", "a100"]),
    max_size=2,
)


def old_and_new(draw: st.DrawFn, old: list[Any], new: tuple[Any, ...]) -> list[Any]:
    """Some keys the container has (most often at least one, where it has any), some not."""
    kept = (
        draw(
            st.lists(
                st.sampled_from(old), min_size=1 if draw(st.integers(0, 3)) else 0, unique=True
            )
        )
        if old
        else []
    )
    fresh = [key for key in new if key not in old]
    return kept + draw(
        st.lists(st.sampled_from(fresh), min_size=0 if kept else 1, max_size=2, unique=True)
    )


@st.composite
def env_entries(draw: st.DrawFn, container: dict[str, Any]) -> list[dict[str, Any]]:
    names = old_and_new(draw, [entry["name"] for entry in container.get("env", [])], NAMES)
    return [{"name": name, **draw(ENV_VALUE)} for name in names]


@st.composite
def volume_mounts(draw: st.DrawFn, container: dict[str, Any]) -> list[dict[str, Any]]:
    chosen = old_and_new(
        draw,
        [mount["mountPath"] for mount in container.get("volumeMounts", [])],
        ("/data", "/dev/shm", "/cache"),
    )
    return [
        {
            "mountPath": path,
            **draw(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "name": st.sampled_from(["data", "dshm"]),
                        "readOnly": st.booleans(),
                        "subPath": st.just("sub"),
                    },
                )
            ),
        }
        for path in chosen
    ]


@st.composite
def ports(draw: st.DrawFn, container: dict[str, Any]) -> list[dict[str, Any]]:
    existing = container.get("ports", [])
    numbers = [port["containerPort"] for port in existing]
    # kubectl merges ports on containerPort alone, podfold (by the schema) on port and
    # protocol; a number with one port only is the same port to both
    single = [port for port in existing if numbers.count(port["containerPort"]) == 1]
    out = []
    for port in draw(st.lists(st.sampled_from(single), max_size=2, unique_by=id)) if single else ():
        out.append(
            {key: port[key] for key in ("containerPort", "protocol") if key in port}
            | {"name": draw(st.sampled_from(["http", "metrics"]))}
        )
    fresh = [n for n in (29500, 8265, 6379) if n not in numbers]
    for number in draw(st.lists(st.sampled_from(fresh), max_size=2, unique=True)):
        out.append(
            {
                "containerPort": number,
                **draw(
                    st.fixed_dictionaries(
                        {}, optional={"protocol": st.sampled_from(["TCP", "UDP"])}
                    )
                ),
            }
        )
    return out or [{"containerPort": 29500}]


def tagged(value: list[Any], key: str | tuple[str, ...], tag: bool) -> Any:
    return MergeBy(value, key=key) if tag else value


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A pod, a partial pod for it, and the same change as a strategic merge patch."""
    # most often a pod whose container has lists to lose (few of the manifests' do)
    label, pod = draw(st.sampled_from(draw(st.sampled_from((RICH, RICH, RICH, PODS)))))
    lists = [field for field in ("containers", "initContainers") if pod["spec"].get(field)]
    field = draw(st.sampled_from(lists))
    containers = pod["spec"][field]
    container = draw(st.sampled_from([c for c in containers if _rich(c)] or containers))
    item: dict[str, Any] = {"name": container["name"]}
    patch_item: dict[str, Any] = {"name": container["name"]}
    for name, key, strategy in (
        ("env", "name", env_entries),
        ("volumeMounts", "mountPath", volume_mounts),
        ("ports", ("containerPort", "protocol"), ports),
    ):
        if draw(st.booleans()):
            entries = draw(strategy(container))
            item[name] = tagged(entries, key, draw(st.booleans()))  # !merge-by or untagged
            patch_item[name] = entries
    plain = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "resources": RESOURCES,
                "securityContext": CONTAINER_SECURITY,
                "image": st.just("registry.example/trainer:2"),
                "args": st.lists(st.sampled_from(["--fast", "--v=2"]), min_size=1, max_size=2),
            },
        )
    )
    item |= plain
    patch_item |= plain
    spec = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "nodeSelector": LABELS,
                "securityContext": POD_SECURITY,
                "tolerations": st.just([{"key": "nvidia.com/gpu", "operator": "Exists"}]),
            },
        )
    )
    metadata = draw(st.fixed_dictionaries({}, optional={"labels": LABELS, "annotations": LABELS}))
    partial = {
        "spec": {field: MergeBy([item]), **spec},
        **({"metadata": metadata} if metadata else {}),
    }
    patch = {"spec": {field: [patch_item], **spec}, **({"metadata": metadata} if metadata else {})}
    return label, pod, partial, patch


def known_case(
    label: str, item: dict[str, Any], spec: dict[str, Any], *, tag: bool
) -> tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A case written out, on the manifest template ``label`` names; ``tag`` tags its env
    and mounts ``!merge-by``."""
    (pod,) = [pod for found, pod in PODS if found == label]
    tags = {"env": "name", "volumeMounts": "mountPath"}
    tagged_item = {
        key: tagged(value, tags[key], tag) if key in tags else value for key, value in item.items()
    }
    return (
        label,
        pod,
        {"spec": {"containers": MergeBy([tagged_item]), **spec}},
        {"spec": {"containers": [item], **spec}},
    )


VLLM = known_case(
    "lws/vllm-gpu-lws.yaml:spec.leaderWorkerTemplate.leaderTemplate",
    {
        "name": "vllm-leader",
        "env": [
            {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf", "key": "token"}}},
            {"name": "NCCL_DEBUG", "value": "INFO"},
        ],
        "volumeMounts": [
            {"mountPath": "/dev/shm", "readOnly": False},
            {"name": "cache", "mountPath": "/cache"},
        ],
        "ports": [{"containerPort": 8080, "name": "http"}, {"containerPort": 29500}],
        "resources": {"limits": {"nvidia.com/gpu": "4"}},
    },
    {"nodeSelector": {"gpu": "h100"}},
    tag=False,
)
FLUENTD = known_case(
    "kubernetes/daemonset.yaml:spec.template",
    {
        "name": "fluentd-elasticsearch",
        "volumeMounts": [{"mountPath": "/var/log", "readOnly": True}],
        "resources": {"requests": {"cpu": "500m"}},
        "securityContext": {"capabilities": {"add": ["SYS_PTRACE"]}},
    },
    {"tolerations": [{"key": "gpu", "operator": "Exists"}]},
    tag=True,
)


@needs_kubectl
@example(VLLM)
@example(FLUENTD)
@settings(
    max_examples=settings.default.max_examples * 4 // 5,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(cases())
def test_a_partial_pod_keeps_every_field_kubectl_keeps(
    case: tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]],
) -> None:
    label, pod, partial, patch = case
    field = next(key for key in patch["spec"] if key in ("containers", "initContainers"))
    (item,) = patch["spec"][field]
    (target,) = [c for c in pod["spec"][field] if c["name"] == item["name"]]
    for name, key in (("env", "name"), ("volumeMounts", "mountPath"), ("ports", "containerPort")):
        if {entry[key] for entry in item.get(name, [])} & {e[key] for e in target.get(name, [])}:
            event(f"{name} merges into an entry the container has")
    before = copy.deepcopy(pod)
    ours = overlay(partial)(pod)
    assert pod == before
    # the same overlay as YAML, as a user writes it, does the same
    assert loads_overlay(dump_overlay(overlay(partial)))(pod) == ours
    code, theirs = kubectl_patch(pod, patch, "strategic")
    assert code == 0, theirs
    original, kept, found = leaves(pod), leaves(theirs), leaves(ours)
    dropped = kept - found
    assert not dropped, f"{label}: podfold lost fields kubectl keeps:\n{show(dropped)}"
    extra = found - kept
    # more only where a list with no merge key kept its old items (appended to, not replaced)
    assert all(path[-1] == "[*]" for path, _ in extra), f"{label}:\n{show(extra)}"
    assert not extra - original, (
        f"{label}: podfold added fields kubectl does not:\n{show(extra - original)}"
    )


def test_the_pods_are_the_manifests_templates() -> None:
    # the property above ranges over every workload kind of the manifests
    assert len(PODS) >= 40
    kinds = {label.split("/")[0] for label, _ in PODS}
    assert {"kubernetes", "kubeflow", "kuberay", "jobset", "volcano", "lws"} <= kinds
    assert all(pod["spec"]["containers"] for _, pod in PODS)
