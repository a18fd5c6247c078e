"""Recipes: every one in the catalog, applied to real torchx pods.

Each recipe must give a pod valid against the official Kubernetes schema,
be idempotent, leave its input alone, print as the call that builds it, and
refuse bad arguments at construction with a clear message.
"""

from __future__ import annotations

import copy
import inspect
import pathlib
import typing
from typing import Any

import kubernetes
import kubernetes_validate
import pytest
from torchx import specs
from torchx.schedulers.kubernetes_scheduler import KubernetesScheduler, role_to_pod

import recipes
from combinators import (
    ArgumentError,
    ArgumentTypeError,
    ExpectationError,
    PathError,
    chain,
    get_at,
)
from recipes import catalog, markdown_table
from recipes._requires import HasLabel
from recipes._table import cell

ROOT = pathlib.Path(__file__).resolve().parent.parent
K8S_VERSION = "1.32"


# --- pods rendered by torchx 0.7.0 -------------------------------------------------------------


def _trainer_role(gpus: int = 2) -> specs.Role:
    return specs.Role(
        name="trainer",
        image="pytorch/pytorch:2.3",
        entrypoint="python",
        args=["-m", "train"],
        num_replicas=2,
        resource=specs.Resource(cpu=8, gpu=gpus, memMB=32000),
    )


def _api_form(pod: Any) -> dict[str, Any]:
    plain: dict[str, Any] = kubernetes.client.ApiClient().sanitize_for_serialization(pod)
    return {"apiVersion": "v1", "kind": "Pod", **plain}


def torchx_pods() -> list[dict[str, Any]]:
    """Every pod of a 2-replica GPU role, as torchx's dry run renders them."""
    app = specs.AppDef(name="llm", roles=[_trainer_role()])
    info = KubernetesScheduler("test")._submit_dryrun(app, {"queue": "default"})
    return [_api_form(task["template"]) for task in info.request.resource["spec"]["tasks"]]


def torchx_pod() -> dict[str, Any]:
    """The pod of replica 1 (its container is ``trainer-1``, not ``trainer-0``)."""
    return torchx_pods()[1]


def plain_torchx_pod() -> dict[str, Any]:
    """A CPU-only pod straight from ``role_to_pod`` (no labels)."""
    return _api_form(role_to_pod("trainer-0", _trainer_role(gpus=0), service_account=None))


POD = torchx_pod()
PLAIN_POD = plain_torchx_pod()


def check_valid(pod: dict[str, Any]) -> None:
    """Schema-valid (strict: unknown fields rejected) and every reference resolves."""
    kubernetes_validate.validate(pod, K8S_VERSION, strict=True)
    volumes = [volume["name"] for volume in pod["spec"].get("volumes", [])]
    assert len(volumes) == len(set(volumes)), f"duplicate volumes: {volumes}"
    for kind in ("containers", "initContainers"):
        names = [c["name"] for c in pod["spec"].get(kind, [])]
        assert len(names) == len(set(names)), f"duplicate {kind}: {names}"
        for container in pod["spec"].get(kind, []):
            paths = [mount["mountPath"] for mount in container.get("volumeMounts", [])]
            assert len(paths) == len(set(paths)), f"duplicate mount paths: {paths}"
            for mount in container.get("volumeMounts", []):
                assert mount["name"] in volumes, f"mount of missing volume {mount['name']}"
            env = [var["name"] for var in container.get("env", [])]
            assert len(env) == len(set(env)), f"duplicate env vars: {env}"
    tolerations = pod["spec"].get("tolerations", [])
    assert all(tolerations.count(t) == 1 for t in tolerations), "duplicate tolerations"


def test_torchx_pod_is_valid_before_any_recipe() -> None:
    check_valid(POD)
    check_valid(PLAIN_POD)


# --- samples: every recipe in the catalog, with typical arguments ----------------------------

SAMPLES: dict[str, list[tuple[tuple[Any, ...], dict[str, Any]]]] = {
    "node_selector": [((), {"gpu": "a100"}), (({"cloud.google.com/gke-nodepool": "gpu"},), {})],
    "add_toleration": [
        (("nvidia.com/gpu",), {}),
        (("dedicated",), {"value": "ml", "effect": "NoSchedule"}),
        (("node.kubernetes.io/unreachable",), {"effect": "NoExecute", "seconds": 300}),
    ],
    "require_node_affinity": [
        (("gpu",), {"values": ["a100", "h100"]}),
        (("spot",), {"operator": "DoesNotExist"}),
    ],
    "prefer_node_affinity": [
        (("topology.kubernetes.io/zone",), {"values": "us-central1-a", "weight": 50})
    ],
    "spread": [
        (("topology.kubernetes.io/zone",), {}),
        (
            ("kubernetes.io/hostname",),
            {"max_skew": 2, "when_unsatisfiable": "DoNotSchedule", "match_labels": {"team": "ml"}},
        ),
        (("topology.kubernetes.io/zone",), {"group_label": "app.kubernetes.io/name"}),
    ],
    "anti_affinity": [
        ((), {}),
        ((), {"required": True}),
        ((), {"match_labels": {"app": "trainer"}, "weight": 10}),
        ((), {"group_label": "app.kubernetes.io/name"}),
    ],
    "priority_class": [(("high",), {})],
    "scheduler_name": [(("default-scheduler",), {})],
    "runtime_class": [(("nvidia",), {})],
    "kueue_queue": [(("team-a",), {})],
    "gpu": [
        (("a100-80gb",), {"count": 8}),
        (("h100",), {"count": 8, "provider": "eks"}),
        (("l4",), {"provider": "gfd"}),
        (("t4",), {"count": 1, "provider": "gke"}),
        (("rtx-4090",), {"provider": "custom", "label": "example.com/gpu", "count": 1}),
    ],
    "mig": [
        (("1g.5gb",), {}),
        (("3g.40gb",), {"count": 2, "provider": "eks"}),
        (("2g.20gb",), {"provider": "gke"}),
    ],
    "tpu": [(("v5e", "2x4", 4), {}), (("tpu-v5p-slice", "2x2x2", 4), {})],
    "efa": [((4,), {})],
    "rdma": [((), {}), (("rdma/rdma_shared_device_a",), {"count": 2})],
    "shm_size": [(("64Gi",), {}), ((1073741824,), {})],
    "mount_pvc": [
        (("datasets", "/data"), {"read_only": True}),
        (("team.checkpoints", "/ckpt"), {"sub_path": "run-1"}),
    ],
    "mount_secret": [(("gcs-key", "/secrets/gcs"), {"default_mode": 0o400})],
    "mount_config_map": [(("train-config", "/etc/train"), {"volume": "config", "optional": True})],
    "mount_empty_dir": [
        (("scratch", "/scratch"), {"size": "100Gi"}),
        (("fast", "/fast"), {"memory": True}),
    ],
    "mount_host_path": [(("/mnt/nvme", "/nvme"), {"type": "Directory"})],
    "add_env": [
        ((), {"NCCL_DEBUG": "INFO", "OMP_NUM_THREADS": 4}),
        (
            (
                {
                    "HF_TOKEN": recipes.SecretKey("hf", "token"),
                    "POD_IP": recipes.FieldRef("status.podIP"),
                    "MEM": recipes.ResourceFieldRef("limits.memory", divisor="1Mi"),
                },
            ),
            {},
        ),
        (
            (),
            {"LEVEL": {"configMapKeyRef": {"name": "settings", "key": "level"}}, "container": "*"},
        ),
    ],
    "add_env_from_secret": [(("WANDB_API_KEY", "wandb", "key"), {"optional": True})],
    "add_env_from_config_map": [(("LEVEL", "settings", "level"), {})],
    "add_env_from_field": [(("NODE", "spec.nodeName"), {})],
    "resources": [
        ((), {"requests": {"cpu": "4", "memory": "16Gi"}, "limits": {"memory": "32Gi"}}),
        ((), {"limits": {"ephemeral-storage": "100Gi"}}),
    ],
    "image_pull_policy": [(("Always",), {}), (("IfNotPresent",), {"container": "*"})],
    "working_dir": [(("/workspace",), {})],
    "security_context": [
        ((), {"run_as_user": 1000, "run_as_non_root": True, "allow_privilege_escalation": False})
    ],
    "add_capabilities": [(("IPC_LOCK",), {}), ((["SYS_PTRACE", "SYS_NICE"],), {})],
    "sidecar": [
        (
            ("proxy", "envoyproxy/envoy:v1.30"),
            {"args": ["--log-level", "warn"], "env": {"A": 1}, "limits": {"memory": "256Mi"}},
        ),
        (("logs", "fluent/fluent-bit:3"), {"native": True}),
    ],
    "init_container": [(("fetch", "busybox:1.36"), {"command": ["sh", "-c", "true"]})],
    "add_labels": [
        ((), {"team": "ml", "version": 2}),
        (({"app.kubernetes.io/part-of": "llm"},), {}),
    ],
    "add_annotations": [(({"cluster-autoscaler.kubernetes.io/safe-to-evict": False},), {})],
    "istio_sidecar": [((True,), {}), ((False,), {})],
    "service_account": [(("trainer",), {})],
    "image_pull_secret": [(("registry-creds",), {})],
    "host_network": [((), {}), ((False,), {})],
    "host_ipc": [((), {})],
    "dns_policy": [(("ClusterFirstWithHostNet",), {})],
    "termination_grace_period": [((120,), {})],
    "active_deadline": [((86400,), {})],
}

CASES = [
    pytest.param(name, args, kwargs, id=f"{name}-{number}")
    for name, samples in SAMPLES.items()
    for number, (args, kwargs) in enumerate(samples)
]


def build(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> recipes.Recipe:
    return catalog[name](*args, **kwargs)


def on_plain_pod(recipe: recipes.Recipe) -> dict[str, Any] | None:
    """``recipe`` applied to torchx's label-less pod; ``None`` where it keys on a label
    that pod lacks and so refuses it (as it must), naming the label."""
    if not any(isinstance(need, HasLabel) for need in getattr(recipe, "requires", ())):
        return recipe(PLAIN_POD)
    with pytest.raises(PathError, match="has no label") as caught:
        recipe(PLAIN_POD)
    assert "group_label=" in str(caught.value)
    return None


def test_every_catalog_recipe_has_samples() -> None:
    assert set(SAMPLES) == set(catalog)


def test_catalog_covers_the_public_recipes_and_is_read_only() -> None:
    public = {name for name in recipes.__all__ if name in catalog}
    assert public == set(catalog)
    with pytest.raises(TypeError):
        catalog["gpu"] = None  # type: ignore[index]
    assert all(name == factory.__name__ for name, factory in catalog.items())


def test_the_recipes_themselves_are_the_one_list_of_the_catalog() -> None:
    # every function decorated with recipe in podfold's recipe modules is in the catalog,
    # and the package exports each under its name, in the catalog's order
    import pkgutil

    from recipes._recipe import is_recipe

    decorated = set()
    for info in pkgutil.iter_modules(recipes.__path__, "recipes."):
        module = __import__(info.name, fromlist=["_"])
        decorated |= {
            name
            for name, value in vars(module).items()
            if is_recipe(value) and value.__module__ == module.__name__
        }
    assert decorated == set(catalog)
    assert [name for name in recipes.__all__ if is_recipe(getattr(recipes, name))] == list(catalog)
    assert all(getattr(recipes, name) is factory for name, factory in catalog.items())


def test_the_recipe_decorator_is_public() -> None:
    from recipes._recipe import recipe

    assert recipes.recipe is recipe
    assert "recipe" in recipes.__all__
    assert recipes.recipe.__doc__ is not None and ">>> @recipe" in recipes.recipe.__doc__


@pytest.mark.parametrize(("name", "args", "kwargs"), CASES)
def test_output_on_torchx_pod_is_valid(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    before = copy.deepcopy(POD)
    new = build(name, args, kwargs)(POD)
    assert before == POD, "the input pod was changed"
    assert new != POD, "the recipe changed nothing"
    check_valid(new)
    plain = on_plain_pod(build(name, args, kwargs))
    if plain is not None:
        check_valid(plain)


@pytest.mark.parametrize(("name", "args", "kwargs"), CASES)
def test_idempotent(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    recipe = build(name, args, kwargs)
    once = recipe(POD)
    assert recipe(once) == once
    plain = on_plain_pod(recipe)
    assert plain is None or recipe(plain) == plain


@pytest.mark.parametrize(("name", "args", "kwargs"), CASES)
def test_repr_reads_as_the_call_and_equal_calls_are_equal(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    recipe = build(name, args, kwargs)
    assert repr(recipe).startswith(f"{name}(")
    again = eval(repr(recipe), vars(recipes))
    assert again == recipe
    assert hash(again) == hash(recipe)
    assert build(name, args, kwargs) == recipe
    assert again(POD) == recipe(POD)


@pytest.mark.parametrize(("name", "args", "kwargs"), CASES)
def test_arguments_bind_to_the_real_signature(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    inspect.signature(catalog[name]).bind(*args, **kwargs)


VARIADIC = {"node_selector", "add_env", "add_labels", "add_annotations"}


@pytest.mark.parametrize("name", sorted(catalog))
def test_signature_has_no_catch_alls_unless_naturally_variadic(name: str) -> None:
    kinds = {p.kind for p in inspect.signature(catalog[name]).parameters.values()}
    assert inspect.Parameter.VAR_POSITIONAL not in kinds
    assert (inspect.Parameter.VAR_KEYWORD in kinds) == (name in VARIADIC)


@pytest.mark.parametrize("name", sorted(catalog))
def test_docstring_has_a_summary_a_doctest_and_names_the_field(name: str) -> None:
    doc = inspect.getdoc(catalog[name]) or ""
    assert doc.splitlines()[0].endswith(".") or doc.splitlines()[0].endswith(")")
    assert ">>> " in doc
    assert "``" in doc, "the docstring should name the Kubernetes field it sets"


def test_different_recipes_with_the_same_arguments_differ() -> None:
    assert recipes.host_network(True) != recipes.host_ipc(True)
    assert recipes.priority_class("x") != recipes.scheduler_name("x")


def test_repr_leaves_defaults_out() -> None:
    assert repr(recipes.add_toleration("nvidia.com/gpu")) == "add_toleration('nvidia.com/gpu')"
    assert recipes.add_toleration("nvidia.com/gpu") == recipes.add_toleration(
        key="nvidia.com/gpu", seconds=None
    )
    assert repr(recipes.node_selector(gpu="a100")) == "node_selector(gpu='a100')"
    assert repr(recipes.gpu("a100-80gb", count=8, provider="gke")) == "gpu('a100-80gb', count=8)"


# --- what the recipes do ------------------------------------------------------------------------


def test_main_container_is_the_first_and_sidecars_go_after_it() -> None:
    pod = chain(recipes.sidecar("proxy", "envoy:1"), recipes.add_env(A="1"))(POD)
    main, proxy = pod["spec"]["containers"]
    assert main["name"] == "trainer-1" and {"name": "A", "value": "1"} in main["env"]
    assert "env" not in proxy


def test_container_by_name_and_all_containers() -> None:
    pod = recipes.sidecar("proxy", "envoy:1")(POD)
    named = recipes.working_dir("/w", container="proxy")(pod)
    assert [c.get("workingDir") for c in named["spec"]["containers"]] == [None, "/w"]
    every = recipes.working_dir("/w", container="*")(pod)
    assert [c.get("workingDir") for c in every["spec"]["containers"]] == ["/w", "/w"]


def test_every_replica_gets_the_same_change_on_its_own_main_container() -> None:
    # container names differ per replica (trainer-0, trainer-1): the main container is
    # found by position, so no replica gets a phantom container
    overlay = chain(
        recipes.gpu("h100", count=8), recipes.add_env(NCCL_DEBUG="INFO"), recipes.shm_size("32Gi")
    )
    for number, pod in enumerate(torchx_pods()):
        new = overlay(pod)
        check_valid(new)
        assert [c["name"] for c in new["spec"]["containers"]] == [f"trainer-{number}"]
        assert {"name": "NCCL_DEBUG", "value": "INFO"} in new["spec"]["containers"][0]["env"]


def test_factories_have_resolvable_type_hints() -> None:
    for factory in catalog.values():
        typing.get_type_hints(factory)


def test_a_missing_container_is_an_error_never_a_phantom() -> None:
    with pytest.raises(ExpectationError, match="trainer-1"):
        recipes.add_env(A="1", container="trainer-0")(POD)
    with pytest.raises(ExpectationError):
        recipes.shm_size("1Gi")({"spec": {"containers": []}})


def test_require_node_affinity_ands_into_every_term() -> None:
    terms: list[dict[str, Any]] = [
        {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a"]}]},
        {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["b"]}]},
    ]
    pod = copy.deepcopy(POD)
    pod["spec"]["affinity"] = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}
        }
    }
    new = recipes.require_node_affinity("gpu", "a100")(pod)
    got = new["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ]
    assert len(got) == 2
    for old, term in zip(terms, got, strict=True):
        assert term["matchExpressions"] == [
            *old["matchExpressions"],
            {"key": "gpu", "operator": "In", "values": ["a100"]},
        ]
    check_valid(new)


def test_gpu_on_a_torchx_pod() -> None:
    new = recipes.gpu("a100-80gb", count=8)(POD)
    main = new["spec"]["containers"][0]
    assert main["resources"]["limits"]["nvidia.com/gpu"] == "8"
    assert main["resources"]["requests"]["nvidia.com/gpu"] == "8"
    assert main["resources"]["limits"]["cpu"] == "8000m"  # torchx's own settings are kept
    assert new["spec"]["nodeSelector"] == {"cloud.google.com/gke-accelerator": "nvidia-a100-80gb"}
    assert new["spec"]["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    ]


def test_gpu_with_gfd_matches_every_product_name() -> None:
    new = recipes.gpu("a100-80gb", provider="gfd")(POD)
    term = new["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"][0]
    assert term["matchExpressions"][0]["key"] == "nvidia.com/gpu.product"
    assert "NVIDIA-A100-SXM4-80GB" in term["matchExpressions"][0]["values"]


def test_shm_size_resizes_torchx_dshm_and_keeps_one_mount() -> None:
    new = recipes.shm_size("64Gi")(POD)
    assert new["spec"]["volumes"] == [
        {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "64Gi"}}
    ]
    assert new["spec"]["containers"][0]["volumeMounts"] == [
        {"mountPath": "/dev/shm", "name": "dshm"}
    ]


def test_shm_size_creates_volume_and_mount_where_absent() -> None:
    pod: dict[str, Any] = {"spec": {"containers": [{"name": "t", "image": "x"}]}}
    new = recipes.shm_size("8Gi")(pod)
    assert new["spec"]["volumes"][0]["name"] == "dshm"
    assert new["spec"]["containers"][0]["volumeMounts"] == [
        {"mountPath": "/dev/shm", "name": "dshm"}
    ]


def test_env_var_replaced_not_duplicated_and_value_never_mixes_with_value_from() -> None:
    pod = recipes.add_env(TOKEN="plain")(POD)
    new = recipes.add_env_from_secret("TOKEN", "hf", "token")(pod)
    env = new["spec"]["containers"][0]["env"]
    assert env == [{"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf", "key": "token"}}}]


def test_kueue_label_survives_next_to_torchx_labels() -> None:
    new = recipes.kueue_queue("team-a")(POD)
    assert new["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-a"
    assert new["metadata"]["labels"]["app.kubernetes.io/name"] == "llm"


def test_the_whole_catalog_composed_gives_a_valid_pod() -> None:
    # one sample of each, except those that contradict others (GPU vs TPU vs MIG)
    skip = {"tpu", "mig", "host_network"}
    steps = [build(name, *SAMPLES[name][0]) for name in catalog if name not in skip]
    overlay = chain(*steps)
    new = overlay(POD)
    check_valid(new)
    assert overlay(new) == new


# --- bad arguments fail at construction ---------------------------------------------------------

BAD: list[Any] = [
    (
        lambda: recipes.add_toleration("nvidia.com/gpu", operator="Exist"),
        ArgumentError,
        ["operator", "'Exist'", "'Exists', 'Equal'"],
    ),
    (
        lambda: recipes.add_toleration("k", operator="Exists", value="v"),
        ArgumentError,
        ["value", "Exists"],
    ),
    (
        lambda: recipes.add_toleration("k", effect="NoSchedul"),
        ArgumentError,
        ["effect", "NoSchedule"],
    ),
    (lambda: recipes.add_toleration("k", seconds=30), ArgumentError, ["seconds", "NoExecute"]),
    (lambda: recipes.shm_size("64GB"), ArgumentError, ["size", "'64GB'", "quantity"]),
    (lambda: recipes.shm_size("0"), ArgumentError, ["size", "positive"]),
    (lambda: recipes.shm_size(None), ArgumentTypeError, ["size"]),  # type: ignore[arg-type]
    (lambda: recipes.resources(limits={"memory": "lots"}), ArgumentError, ["limits['memory']"]),
    (
        lambda: recipes.resources(requests={"cpu": "8"}, limits={"cpu": "4"}),
        ArgumentError,
        ["requests['cpu']", "above"],
    ),
    (
        lambda: recipes.gpu("a10g", provider="gke"),
        ArgumentError,
        ["'a10g'", "gke", "a100-80gb", "h100-80gb", "l4", "t4"],
    ),
    (
        lambda: recipes.gpu("a100", provider="azure"),
        ArgumentError,
        ["provider", "'azure'", "'gke'"],
    ),
    (lambda: recipes.gpu("x", provider="custom"), ArgumentError, ["label="]),
    (lambda: recipes.gpu("a100", label="gpu"), ArgumentError, ["label=", "custom"]),
    (lambda: recipes.gpu("a100", count=0), ArgumentError, ["count", ">= 1", "0"]),
    (lambda: recipes.gpu("a100", count="8"), ArgumentTypeError, ["count"]),  # type: ignore[arg-type]
    (lambda: recipes.mig("1g5gb"), ArgumentError, ["profile", "'1g5gb'"]),
    (lambda: recipes.tpu("v9", "2x2", 4), ArgumentError, ["type", "v5e", "'v9'"]),
    (lambda: recipes.tpu("v5e", "2by2", 4), ArgumentError, ["topology", "'2by2'"]),
    (lambda: recipes.rdma("hca"), ArgumentError, ["resource", "'hca'"]),
    (lambda: recipes.node_selector(), ArgumentError, ["at least one"]),
    (lambda: recipes.node_selector({"a": "1"}, a="2"), ArgumentError, ["a", "both"]),
    (lambda: recipes.node_selector(gpu="a 100"), ArgumentError, ["'a 100'"]),
    (lambda: recipes.require_node_affinity("gpu", operator="In"), ArgumentError, ["value"]),
    (
        lambda: recipes.require_node_affinity("gpu", "a", operator="Exists"),
        ArgumentError,
        ["values", "Exists"],
    ),
    (
        lambda: recipes.prefer_node_affinity("gpu", "a", weight=101),
        ArgumentError,
        ["weight", "101"],
    ),
    (
        lambda: recipes.spread("zone", when_unsatisfiable="Never"),
        ArgumentError,
        ["when_unsatisfiable", "ScheduleAnyway"],
    ),
    (lambda: recipes.mount_pvc("data", "data"), ArgumentError, ["mount_path", "absolute"]),
    (
        lambda: recipes.mount_pvc("data", "/data", volume="Data"),
        ArgumentError,
        ["volume", "'Data'"],
    ),
    (lambda: recipes.mount_pvc("data", "/d", sub_path="../x"), ArgumentError, ["sub_path"]),
    (lambda: recipes.mount_secret("s", "/s", default_mode=0o1000), ArgumentError, ["default_mode"]),
    (lambda: recipes.mount_host_path("mnt", "/m"), ArgumentError, ["path", "absolute"]),
    (
        lambda: recipes.mount_host_path("/mnt", "/m", type="Dir"),
        ArgumentError,
        ["type", "Directory"],
    ),
    (lambda: recipes.add_env(), ArgumentError, ["at least one"]),
    (lambda: recipes.add_env(A=[1]), ArgumentTypeError, ["'A'", "list"]),  # type: ignore[arg-type]
    (lambda: recipes.add_env(A={"secretRef": {}}), ArgumentError, ["valueFrom", "secretKeyRef"]),
    (lambda: recipes.add_env(A="1", container="Main"), ArgumentError, ["container", "'Main'"]),
    (lambda: recipes.image_pull_policy("always"), ArgumentError, ["policy", "'Always'"]),
    (lambda: recipes.security_context(), ArgumentError, ["at least one"]),
    (lambda: recipes.security_context(run_as_user=-1), ArgumentError, ["run_as_user", "-1"]),
    (lambda: recipes.add_capabilities("CAP_SYS_ADMIN"), ArgumentError, ["'SYS_ADMIN'", "CAP_"]),
    (lambda: recipes.sidecar("Proxy", "envoy"), ArgumentError, ["name", "'Proxy'"]),
    (lambda: recipes.sidecar("proxy", ""), ArgumentError, ["image"]),
    (lambda: recipes.sidecar("proxy", "envoy", args="--x"), ArgumentTypeError, ["args"]),
    (lambda: recipes.add_labels(team="a b"), ArgumentError, ["'team'", "'a b'"]),
    (lambda: recipes.add_labels({"bad key!": "x"}), ArgumentError, ["label key", "'bad key!'"]),
    (lambda: recipes.istio_sidecar("yes"), ArgumentTypeError, ["enabled", "'yes'"]),  # type: ignore[arg-type]
    (lambda: recipes.dns_policy("clusterfirst"), ArgumentError, ["policy", "ClusterFirst"]),
    (lambda: recipes.termination_grace_period(-1), ArgumentError, ["seconds", "-1"]),
    (lambda: recipes.active_deadline(0), ArgumentError, ["seconds", ">= 1"]),
    (lambda: recipes.service_account("Trainer"), ArgumentError, ["name", "'Trainer'"]),
]


@pytest.mark.parametrize(
    ("make", "error", "fragments"), BAD, ids=[f"bad-{number}" for number in range(len(BAD))]
)
def test_bad_arguments_fail_at_construction_with_a_clear_message(
    make: Any, error: type[Exception], fragments: list[str]
) -> None:
    with pytest.raises(error) as caught:
        make()
    for fragment in fragments:
        assert fragment in str(caught.value), f"{fragment!r} not in {caught.value}"


# --- the README's table --------------------------------------------------------------------------


def test_markdown_table_lists_every_recipe_with_its_summary() -> None:
    table = markdown_table()
    for name, factory in catalog.items():
        summary = (inspect.getdoc(factory) or "").splitlines()[0]
        assert f"| `{name}` | {cell(summary)} |" in table


def test_the_docs_catalog_page_lists_every_recipe_with_its_summary() -> None:
    # the README's table became a page the docs site writes from the catalog when it builds
    import importlib.util

    hook = ROOT / "examples" / "docs" / "hooks" / "recipe_catalog_page.py"
    spec = importlib.util.spec_from_file_location("recipe_catalog_page", hook)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    page = module.catalog_markdown(catalog)
    for name, factory in catalog.items():
        assert f"### `{name}`" in page and module.summary_of(factory) in page, name
    assert page.startswith(f"{len(catalog)} recipes, in ")


def test_get_at_sees_the_recipe_result() -> None:
    new = recipes.kueue_queue("q")(POD)
    assert get_at(new, 'metadata.labels["kueue.x-k8s.io/queue-name"]') == "q"


def test_a_map_and_keywords_that_say_the_same_give_equal_recipes() -> None:
    assert recipes.node_selector(gpu="a100") == recipes.node_selector({"gpu": "a100"})
    assert hash(recipes.add_labels(team="ml")) == hash(recipes.add_labels({"team": "ml"}))
    dotted = recipes.node_selector({"cloud.google.com/gke-nodepool": "gpu", "zone": "a"})
    assert dotted == recipes.node_selector({"cloud.google.com/gke-nodepool": "gpu"}, zone="a")
    assert repr(dotted) == "node_selector({'cloud.google.com/gke-nodepool': 'gpu'}, zone='a')"
