"""The pod schema tables: contents, lookups, suggestions, and client-style dicts to API form."""

from __future__ import annotations

import datetime
import doctest
import importlib.util
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from kubernetes import client as k8s
from kubernetes.client import ApiClient
from torchx import specs
from torchx.schedulers.kubernetes_scheduler import app_to_resource, role_to_pod

from combinators.errors import ArgumentError
from transforms.kube.convert import to_data
from transforms.kube.schema import (
    DEFAULT_VERSION,
    ROOT_KINDS,
    SUPPORTED_VERSIONS,
    Schema,
    UnsupportedVersionError,
    schema_for,
    suggest_field,
)

# the builder of the tables is a maintainer's script, outside the runtime package
_BUILDER = Path(__file__).resolve().parents[1] / ".ci" / "schema_build.py"
_spec = importlib.util.spec_from_file_location("schema_build", _BUILDER)
assert _spec is not None and _spec.loader is not None
schema_build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(schema_build)

# ---------------------------------------------------------------- versions


def test_supported_versions_are_recent_and_default_is_newest() -> None:
    assert len(SUPPORTED_VERSIONS) >= 3
    assert SUPPORTED_VERSIONS[-1] == DEFAULT_VERSION
    # every version the major clouds still run (1.29 and up, as of this writing)
    assert all(tuple(map(int, v.split("."))) >= (1, 29) for v in SUPPORTED_VERSIONS)
    assert {"1.29", "1.30", "1.31"} <= set(SUPPORTED_VERSIONS)


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_every_version_loads_with_its_roots(version: str) -> None:
    schema = schema_for(version)
    assert schema.version == version
    for kind in ROOT_KINDS:
        assert schema.root(kind).name == f"io.k8s.api.core.v1.{kind}"


def test_version_spellings_share_one_cached_schema() -> None:
    assert schema_for("v1.33.2") is schema_for("1.33") is schema_for("1.33.0")
    assert schema_for(None) is schema_for(DEFAULT_VERSION)


def test_unsupported_version_is_a_value_error_naming_the_supported_ones() -> None:
    with pytest.raises(UnsupportedVersionError) as caught:
        schema_for("1.99")
    assert isinstance(caught.value, ValueError)
    assert "1.37" in str(caught.value) and "1.99" in str(caught.value)


def test_nothing_is_loaded_at_import_time() -> None:
    code = (
        "import transforms.kube.schema as s, transforms.checks.validation, transforms.checks.schema_check as v; "
        "print(s._load.cache_info().currsize, v.checker_for.cache_info().currsize)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert out.stdout.split() == ["0", "0"]


def test_unknown_root_kind_is_rejected() -> None:
    with pytest.raises(ArgumentError, match="Deployment") as caught:
        schema_for().root("Deployment")
    assert isinstance(caught.value, ValueError) and caught.value.argument == "kind"


def test_unknown_type_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="NoSuchType"):
        schema_for().type("io.k8s.api.core.v1.NoSuchType")


# ---------------------------------------------------------------- the tables


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_every_reference_resolves(version: str) -> None:
    schema = schema_for(version)
    for type_ in schema.types.values():
        for field in type_.fields.values():
            shape = field
            while shape.item is not None:
                shape = shape.item
            if shape.kind == "object":
                assert shape.ref in schema.types, (type_.name, field.name)
        assert set(type_.required) <= set(type_.fields)


def test_object_meta_and_pod_status_are_covered() -> None:
    schema = schema_for()
    meta = schema.type("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
    assert meta.field("labels") is not None and meta.field("labels").kind == "map"
    assert schema.type_at("Pod", ("status",)) is not None


def test_list_semantics_follow_the_official_schema() -> None:
    spec = schema_for().root("PodSpec")
    containers = spec.field("containers")
    assert containers is not None
    assert (
        containers.list_type,
        containers.list_map_keys,
        containers.merge_key,
        containers.patch_strategy,
    ) == ("map", ("name",), "name", "merge")
    volumes = spec.field("volumes")
    assert volumes is not None and volumes.patch_strategy == "merge,retainKeys"
    tolerations = spec.field("tolerations")
    assert tolerations is not None and tolerations.list_type == "atomic"
    ports = schema_for().type_at("PodSpec", ("containers", None, "ports"))
    port_list = schema_for().field_at("PodSpec", ("containers", 0, "ports"))
    assert ports is not None and port_list is not None
    # composite list-map keys, while the patch merge key is containerPort alone
    assert port_list.list_map_keys == ("containerPort", "protocol")
    assert port_list.merge_key == "containerPort"
    assert ports.required == ("containerPort",)


def test_scalar_kinds() -> None:
    schema = schema_for()
    container = schema.type("io.k8s.api.core.v1.Container")
    limits = schema.field_at("PodSpec", ("containers", None, "resources", "limits"))
    assert limits is not None and limits.kind == "map"
    assert limits.item is not None and limits.item.kind == "quantity"
    http_get = schema.type("io.k8s.api.core.v1.HTTPGetAction")
    assert http_get.field("port") is not None and http_get.field("port").kind == "int-or-string"
    assert container.field("name") is not None and not container.field("name").nullable
    meta_time = schema.field_at("Pod", ("metadata", "creationTimestamp"))
    assert meta_time is not None and (meta_time.kind, meta_time.json_type) == ("scalar", "string")
    kind = schema.root("Pod").field("kind")
    assert kind is not None and kind.enum == ("Pod",)
    grace = schema.root("PodSpec").field("terminationGracePeriodSeconds")
    assert grace is not None and grace.format == "int64"


def test_type_at_walks_lists_and_maps() -> None:
    schema = schema_for()
    assert schema.type_at("Pod", ()) is schema.root("Pod")
    assert schema.type_at(
        "PodTemplateSpec", ("spec", "initContainers", None, "env", None, "valueFrom")
    ) is schema.type("io.k8s.api.core.v1.EnvVarSource")
    assert schema.type_at("Pod", ("spec", "containers", "name")) is None
    assert schema.type_at("Pod", ("spec", "nodeSelector", "gpu")) is None
    assert schema.type_at("Pod", ("spec", "nodeSelectr")) is None


def test_tables_are_small_and_rebuild_byte_for_byte(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = resources.files("transforms.kube").joinpath("data")
    committed = {entry.name: entry.read_bytes() for entry in data.iterdir()}
    assert sorted(committed) == [f"pod-schema-{v}.json.gz" for v in SUPPORTED_VERSIONS]
    assert schema_build.VERSIONS == SUPPORTED_VERSIONS
    assert schema_build.main([str(tmp_path)]) == 0
    rebuilt = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    assert sorted(rebuilt) == sorted(committed)
    for name, blob in committed.items():
        assert rebuilt[name] == blob, f"{name} differs from what .ci/schema_build.py writes"
    assert sum(map(len, committed.values())) < 300_000
    assert "pod-schema-1.37.json.gz:" in capsys.readouterr().out


def test_the_table_builder_is_not_in_the_runtime_package() -> None:
    assert importlib.util.find_spec("transforms.kube.schema_build") is None


def test_the_table_builder_doctests_pass() -> None:
    failed, tried = doctest.testmod(schema_build)
    assert tried > 0 and failed == 0


# ---------------------------------------------------------------- suggestions


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("node_selector", "nodeSelector"),
        ("NodeSelector", "nodeSelector"),
        ("service_account_name", "serviceAccountName"),
        ("tolerration", "tolerations"),
        ("containrs", "containers"),
        ("host_ipc", "hostIPC"),
    ],
)
def test_suggest_field(typed: str, meant: str) -> None:
    assert suggest_field(schema_for().root("PodSpec"), typed) == meant


def test_suggest_field_gives_up_on_nonsense() -> None:
    assert suggest_field(schema_for().root("PodSpec"), "banana") is None


# ---------------------------------------------------------------- API form


def _rich_pod() -> k8s.V1Pod:
    when = datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
    probe = k8s.V1Probe(_exec=k8s.V1ExecAction(command=["true"]), initial_delay_seconds=3)
    http = k8s.V1Probe(
        http_get=k8s.V1HTTPGetAction(
            port="http", path="/", http_headers=[k8s.V1HTTPHeader(name="X_Y", value="y")]
        )
    )
    container = k8s.V1Container(
        name="trainer",
        image="img",
        command=["python"],
        args=["-m", "train"],
        env=[
            k8s.V1EnvVar(name="SNAKE_CASE", value="1"),
            k8s.V1EnvVar(
                name="POD",
                value_from=k8s.V1EnvVarSource(
                    field_ref=k8s.V1ObjectFieldSelector(field_path="metadata.name")
                ),
            ),
        ],
        env_from=[k8s.V1EnvFromSource(config_map_ref=k8s.V1ConfigMapEnvSource(name="cm"))],
        resources=k8s.V1ResourceRequirements(
            limits={"nvidia.com/gpu": "1", "memory": "2Gi", "ephemeral_storage": "1Gi"},
            requests={"cpu": "500m"},
        ),
        liveness_probe=probe,
        readiness_probe=http,
        ports=[k8s.V1ContainerPort(container_port=80, host_ip="1.2.3.4", protocol="TCP")],
        volume_mounts=[k8s.V1VolumeMount(name="dshm", mount_path="/dev/shm")],
        security_context=k8s.V1SecurityContext(
            capabilities=k8s.V1Capabilities(add=["SYS_PTRACE"]), run_as_user=1000
        ),
        lifecycle=k8s.V1Lifecycle(
            pre_stop=k8s.V1LifecycleHandler(_exec=k8s.V1ExecAction(command=["sleep", "5"]))
        ),
    )
    affinity = k8s.V1Affinity(
        node_affinity=k8s.V1NodeAffinity(
            required_during_scheduling_ignored_during_execution=k8s.V1NodeSelector(
                node_selector_terms=[
                    k8s.V1NodeSelectorTerm(
                        match_expressions=[
                            k8s.V1NodeSelectorRequirement(key="a_b", operator="In", values=["c_d"])
                        ]
                    )
                ]
            )
        )
    )
    return k8s.V1Pod(
        api_version="v1",
        kind="Pod",
        metadata=k8s.V1ObjectMeta(
            name="p",
            creation_timestamp=when,
            labels={"app_name": "x", "a.b/c_d": "y"},
            annotations={"some_key": "v"},
            owner_references=[
                k8s.V1OwnerReference(
                    api_version="v1", kind="Job", name="j", uid="u", block_owner_deletion=True
                )
            ],
        ),
        spec=k8s.V1PodSpec(
            node_selector={"node_type": "gpu"},
            host_ipc=True,
            containers=[container],
            init_containers=[k8s.V1Container(name="init", image="busybox")],
            volumes=[
                k8s.V1Volume(
                    name="dshm",
                    empty_dir=k8s.V1EmptyDirVolumeSource(medium="Memory", size_limit="1Gi"),
                ),
                k8s.V1Volume(
                    name="cfg",
                    config_map=k8s.V1ConfigMapVolumeSource(
                        name="cm", items=[k8s.V1KeyToPath(key="a_b", path="a.yaml")]
                    ),
                ),
            ],
            tolerations=[k8s.V1Toleration(key="k", operator="Exists", effect="NoSchedule")],
            affinity=affinity,
            topology_spread_constraints=[
                k8s.V1TopologySpreadConstraint(
                    max_skew=1,
                    topology_key="zone",
                    when_unsatisfiable="DoNotSchedule",
                    label_selector=k8s.V1LabelSelector(match_labels={"app_name": "x"}),
                )
            ],
            dns_config=k8s.V1PodDNSConfig(
                options=[k8s.V1PodDNSConfigOption(name="ndots", value="2")]
            ),
            security_context=k8s.V1PodSecurityContext(
                fs_group=100, sysctls=[k8s.V1Sysctl(name="net.core.somaxconn", value="1024")]
            ),
        ),
        status=k8s.V1PodStatus(
            pod_ips=[k8s.V1PodIP(ip="1.1.1.1")], host_ip="2.2.2.2", start_time=when
        ),
    )


def _torchx_pods() -> list[k8s.V1Pod]:
    role = specs.Role(
        name="trainer",
        image="pytorch/pytorch:2.3",
        entrypoint="python",
        args=["-m", "train"],
        env={"NCCL_DEBUG": "INFO"},
        num_replicas=2,
        resource=specs.Resource(cpu=4, gpu=1, memMB=8192, devices={"vpc.amazonaws.com/efa": 1}),
        port_map={"c10d": 29500},
        mounts=[
            specs.VolumeMount(src="pvc", dst_path="/data"),
            specs.BindMount(src_path="/host", dst_path="/h", read_only=True),
            specs.DeviceMount(src_path="/dev/fuse", dst_path="/dev/fuse"),
        ],
    )
    app = specs.AppDef(
        name="app",
        roles=[role, specs.Role(name="ps", image="busybox", entrypoint="sleep", args=["1"])],
    )
    job = app_to_resource(app, "default", "sa", "high")
    pods = [task["template"] for task in job["spec"]["tasks"]]  # type: ignore[index]
    return [role_to_pod("trainer-0", role, None), *pods]


def test_to_data_matches_the_client_on_a_rich_pod() -> None:
    pod = _rich_pod()
    assert to_data(pod.to_dict()) == ApiClient().sanitize_for_serialization(pod)


def test_to_data_matches_the_client_on_torchx_pods() -> None:
    for pod in _torchx_pods():
        assert to_data(pod.to_dict()) == ApiClient().sanitize_for_serialization(pod)


def test_to_data_keeps_free_form_keys_and_accepts_client_objects() -> None:
    pod = _rich_pod()
    converted = to_data(pod)
    assert converted["metadata"]["labels"] == {"app_name": "x", "a.b/c_d": "y"}
    assert converted["spec"]["nodeSelector"] == {"node_type": "gpu"}
    assert "ephemeral_storage" in converted["spec"]["containers"][0]["resources"]["limits"]
    assert converted["spec"]["containers"][0]["livenessProbe"]["exec"] == {"command": ["true"]}


def test_to_data_of_a_pod_spec_and_unknown_keys() -> None:
    spec = {"service_account_name": "sa", "not_a_field": {"x_y": 1}, "containers": None}
    assert to_data(spec, "PodSpec") == {"serviceAccountName": "sa", "not_a_field": {"x_y": 1}}


def test_to_data_is_idempotent_and_leaves_input_alone() -> None:
    raw = _rich_pod().to_dict()
    before = repr(raw)
    once = to_data(raw)
    assert repr(raw) == before
    assert to_data(once) == once


def test_schema_is_a_value_per_version() -> None:
    assert isinstance(schema_for(), Schema)
    assert schema_for("1.32") is not schema_for("1.37")


def test_every_enumeration_stated_only_in_prose_reaches_the_tables() -> None:
    from transforms.kube.schema import schema_for

    PROSE_ENUMS = schema_build.PROSE_ENUMS

    schema = schema_for()
    for (owner, name), values in PROSE_ENUMS.items():
        field = schema.type(owner).field(name)
        assert field is not None, f"{owner}.{name} is no field"
        assert field.enum == values, f"{owner}.{name}"
