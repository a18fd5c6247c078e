"""Client objects <-> API-form data: ``to_data`` gives what the client's own
``sanitize_for_serialization`` gives, ``to_client`` what ``ApiClient.deserialize``
gives, and each undoes the other.

On the pods TorchX renders (both of its Kubernetes schedulers, over many role
parameters) and on hand-built pods using many fields of the API.
"""

from __future__ import annotations

import datetime
import inspect
import json
from types import SimpleNamespace
from typing import Any

import kubernetes
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kubernetes import client

from combinators.errors import ArgumentError, ArgumentTypeError, TransformError
from transforms.kube.convert import ConversionError, pod_to_dict, to_client, to_data

try:  # torchx 0.7.0 and kubernetes 37 cannot be installed together (urllib3)
    from torchx import specs
    from torchx.schedulers import kubernetes_scheduler

    from transforms.testing.pods import make_pods, sample_role
except ImportError:
    specs = kubernetes_scheduler = None
try:  # TorchX releases after 0.7.0 have no MCAD scheduler
    from torchx.schedulers import kubernetes_mcad_scheduler
except ImportError:
    kubernetes_mcad_scheduler = None

CLIENT_MAJOR = int(kubernetes.__version__.split(".")[0])
needs_torchx = pytest.mark.skipif(specs is None, reason="torchx is not installed")
API = client.ApiClient()

names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8)
paths = names.map(lambda name: "/" + name)
texts = st.text(max_size=12)
if specs is not None:
    mounts = st.one_of(
        st.builds(specs.BindMount, src_path=paths, dst_path=paths, read_only=st.booleans()),
        st.builds(specs.VolumeMount, src=names, dst_path=paths, read_only=st.booleans()),
        st.builds(
            specs.DeviceMount,
            src_path=paths,
            dst_path=paths,
            permissions=st.sampled_from(["r", "rw", "rwm"]),
        ),
    )
    resources = st.builds(
        specs.Resource,
        cpu=st.integers(1, 96),
        gpu=st.integers(0, 8),
        memMB=st.integers(1_100, 1_000_000),
        devices=st.dictionaries(
            st.sampled_from(["vpc.amazonaws.com/efa", "example.com/fpga"]),
            st.integers(1, 4),
            max_size=2,
        ),
    )
    roles = st.builds(
        specs.Role,
        name=names,
        image=names.map(lambda name: f"registry/{name}:1"),
        entrypoint=st.sampled_from(["python", "/bin/sh", "torchrun"]),
        args=st.lists(texts, max_size=4),
        env=st.dictionaries(names.map(str.upper), texts, max_size=4),
        num_replicas=st.integers(1, 3),
        resource=resources,
        port_map=st.dictionaries(names, st.integers(1, 65535), max_size=3),
        mounts=st.lists(mounts, max_size=4),
    )
else:
    roles = st.nothing()


def deserialize(data: Any, model: str) -> Any:
    """What the client itself makes of ``data`` (it reads a response's JSON body).

    Up to 36 it takes the response; 37 takes its text and content type.
    """
    body = json.dumps(data)
    if "response_text" in inspect.signature(API.deserialize).parameters:
        return API.deserialize(body, model, "application/json")
    return API.deserialize(SimpleNamespace(data=body), model)


def assert_same(pod: Any) -> None:
    expected = API.sanitize_for_serialization(pod)
    assert pod_to_dict(pod) == expected
    assert to_data(pod) == expected
    # keys in the client's order too (a manifest printed from either reads the same)
    assert json.dumps(to_data(pod)) == json.dumps(expected)
    # and back: the same object as the client's own deserializer makes, and as the input
    back = to_client(expected, type(pod))
    assert back == deserialize(expected, type(pod).__name__)
    assert back == pod
    assert to_data(back) == expected


@needs_torchx
@settings(
    max_examples=settings.default.max_examples * 4 // 5,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(role=roles, service_account=st.one_of(st.none(), names))
def test_volcano_pods(role: specs.Role, service_account: str | None) -> None:
    pod = kubernetes_scheduler.role_to_pod(f"{role.name}-0", role, service_account)
    assert_same(pod)


@pytest.mark.skipif(kubernetes_mcad_scheduler is None, reason="this TorchX has no MCAD scheduler")
@settings(
    max_examples=settings.default.max_examples // 2,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    role=roles,
    service_account=st.one_of(st.none(), names),
    image_secret=st.one_of(st.none(), names),
    coscheduler=st.one_of(st.none(), names),
    priority_class=st.one_of(st.none(), names),
    network=st.one_of(st.none(), names),
)
def test_mcad_pods(
    role: specs.Role,
    service_account: str | None,
    image_secret: str | None,
    coscheduler: str | None,
    priority_class: str | None,
    network: str | None,
) -> None:
    assert_same(
        kubernetes_mcad_scheduler.role_to_pod(
            f"{role.name}-0",
            "app-1",
            "default",
            role,
            service_account,
            image_secret,
            coscheduler,
            priority_class,
            network,
        )
    )


def many_fields_pod() -> client.V1Pod:
    c = client
    probe = c.V1Probe(
        http_get=c.V1HTTPGetAction(path="/healthz", port="http"),
        initial_delay_seconds=5,
        period_seconds=10,
        failure_threshold=3,
    )
    main = c.V1Container(
        name="trainer",
        image="trainer:1",
        image_pull_policy="IfNotPresent",
        command=["python", "-m", "train"],
        args=["--epochs", "3"],
        working_dir="/w",
        env=[
            c.V1EnvVar(name="A", value="1"),
            c.V1EnvVar(
                name="POD",
                value_from=c.V1EnvVarSource(
                    field_ref=c.V1ObjectFieldSelector(field_path="metadata.name")
                ),
            ),
            c.V1EnvVar(
                name="KEY",
                value_from=c.V1EnvVarSource(
                    secret_key_ref=c.V1SecretKeySelector(name="s", key="k", optional=True)
                ),
            ),
        ],
        env_from=[c.V1EnvFromSource(config_map_ref=c.V1ConfigMapEnvSource(name="cm"))],
        ports=[
            c.V1ContainerPort(container_port=29500, name="c10d", protocol="TCP"),
            c.V1ContainerPort(container_port=8080, name="http"),
        ],
        resources=c.V1ResourceRequirements(
            limits={"cpu": "8", "nvidia.com/gpu": "1"}, requests={"cpu": "7900m", "memory": "31Gi"}
        ),
        volume_mounts=[
            c.V1VolumeMount(name="dshm", mount_path="/dev/shm"),
            c.V1VolumeMount(name="data", mount_path="/data", read_only=True, sub_path="x"),
        ],
        liveness_probe=probe,
        readiness_probe=probe,
        security_context=c.V1SecurityContext(
            run_as_user=1000,
            run_as_non_root=True,
            allow_privilege_escalation=False,
            capabilities=c.V1Capabilities(add=["IPC_LOCK"], drop=["ALL"]),
        ),
        lifecycle=c.V1Lifecycle(
            pre_stop=c.V1LifecycleHandler(_exec=c.V1ExecAction(command=["sleep", "5"]))
        ),
    )
    sidecar = c.V1Container(name="proxy", image="proxy:2", tty=False, stdin=False)
    affinity = c.V1Affinity(
        node_affinity=c.V1NodeAffinity(
            required_during_scheduling_ignored_during_execution=c.V1NodeSelector(
                node_selector_terms=[
                    c.V1NodeSelectorTerm(
                        match_expressions=[
                            c.V1NodeSelectorRequirement(
                                key="gpu", operator="In", values=["a100", "h100"]
                            ),
                        ]
                    )
                ]
            )
        ),
        pod_anti_affinity=c.V1PodAntiAffinity(
            preferred_during_scheduling_ignored_during_execution=[
                c.V1WeightedPodAffinityTerm(
                    weight=50,
                    pod_affinity_term=c.V1PodAffinityTerm(
                        topology_key="kubernetes.io/hostname",
                        label_selector=c.V1LabelSelector(match_labels={"app": "trainer"}),
                    ),
                )
            ]
        ),
    )
    return c.V1Pod(
        api_version="v1",
        kind="Pod",
        metadata=c.V1ObjectMeta(
            name="trainer-0",
            namespace="ml",
            labels={"app": "trainer", "empty": ""},
            annotations={"sidecar.istio.io/inject": "false"},
            creation_timestamp=datetime.datetime(2024, 5, 1, 12, 30, tzinfo=datetime.timezone.utc),
            owner_references=[
                c.V1OwnerReference(
                    api_version="batch/v1", kind="Job", name="j", uid="u-1", controller=True
                )
            ],
        ),
        spec=c.V1PodSpec(
            containers=[main, sidecar],
            init_containers=[c.V1Container(name="init", image="busybox", command=["true"])],
            node_selector={"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"},
            tolerations=[
                c.V1Toleration(
                    key="nvidia.com/gpu",
                    operator="Exists",
                    effect="NoSchedule",
                    toleration_seconds=None,
                )
            ],
            affinity=affinity,
            restart_policy="Never",
            host_ipc=False,
            scheduler_name="default-scheduler",
            runtime_class_name="nvidia",
            priority_class_name="high",
            service_account_name="sa",
            termination_grace_period_seconds=30,
            enable_service_links=False,
            security_context=c.V1PodSecurityContext(
                fs_group=2000,
                supplemental_groups=[3, 4],
                sysctls=[c.V1Sysctl(name="a.b", value="1")],
            ),
            dns_config=c.V1PodDNSConfig(options=[c.V1PodDNSConfigOption(name="ndots", value="2")]),
            topology_spread_constraints=[
                c.V1TopologySpreadConstraint(
                    max_skew=1, topology_key="zone", when_unsatisfiable="DoNotSchedule"
                )
            ],
            image_pull_secrets=[c.V1LocalObjectReference(name="regcred")],
            volumes=[
                c.V1Volume(
                    name="dshm",
                    empty_dir=c.V1EmptyDirVolumeSource(medium="Memory", size_limit="16Gi"),
                ),
                c.V1Volume(
                    name="data",
                    persistent_volume_claim=c.V1PersistentVolumeClaimVolumeSource(
                        claim_name="data", read_only=True
                    ),
                ),
                c.V1Volume(
                    name="secret",
                    secret=c.V1SecretVolumeSource(
                        secret_name="s",
                        default_mode=0o400,
                        items=[c.V1KeyToPath(key="k", path="p")],
                    ),
                ),
                c.V1Volume(
                    name="host", host_path=c.V1HostPathVolumeSource(path="/h", type="Directory")
                ),
                c.V1Volume(
                    name="proj",
                    projected=c.V1ProjectedVolumeSource(
                        sources=[
                            c.V1VolumeProjection(config_map=c.V1ConfigMapProjection(name="cm")),
                            c.V1VolumeProjection(
                                service_account_token=c.V1ServiceAccountTokenProjection(
                                    path="token", expiration_seconds=3600
                                )
                            ),
                        ]
                    ),
                ),
            ],
        ),
        status=c.V1PodStatus(phase="Pending", start_time=datetime.datetime(2024, 5, 1, 12, 31)),
    )


def test_a_hand_built_pod_with_many_fields() -> None:
    pod = many_fields_pod()
    assert_same(pod)
    plain = pod_to_dict(pod)
    assert plain["spec"]["containers"][0]["lifecycle"]["preStop"]["exec"]["command"] == [
        "sleep",
        "5",
    ]
    assert plain["metadata"]["creationTimestamp"] == "2024-05-01T12:30:00+00:00"
    assert plain["metadata"]["labels"]["empty"] == ""
    assert "tolerationSeconds" not in plain["spec"]["tolerations"][0]


@pytest.mark.parametrize(
    "value",
    [
        client.V1Service(
            metadata=client.V1ObjectMeta(name="svc"),
            spec=client.V1ServiceSpec(
                cluster_ip="None",
                ports=[client.V1ServicePort(port=29500, target_port=29500)],
                selector={"app": "x"},
            ),
        ),
        client.V1ObjectMeta(labels={}, annotations=None),
        client.V1Pod(),
    ],
)
def test_other_client_objects(value: Any) -> None:
    assert to_data(value) == API.sanitize_for_serialization(value)
    assert to_client(to_data(value), type(value)) == value


def test_plain_data_is_returned_as_it_is() -> None:
    pod = {"spec": {"containers": []}}
    assert pod_to_dict(pod) is pod


def test_a_foreign_object_is_refused() -> None:
    with pytest.raises(ConversionError, match="cannot turn object into plain data") as caught:
        to_data(object())
    assert isinstance(caught.value, TypeError) and isinstance(caught.value, TransformError)


@needs_torchx
# ---------------------------------------------------------------- data -> client objects

def test_real_torchx_pods_round_trip() -> None:
    # to_data(to_client(pod)) == pod, and to_client agrees with ApiClient.deserialize
    pods = make_pods(replicas=2, mounts={"/data": "datasets"}) + make_pods(
        sample_role("a", gpu=0, env={"A": "1"}), sample_role("b", ports={"http": 8080})
    )
    for pod in pods:
        obj = to_client(pod, "V1Pod")
        assert isinstance(obj, client.V1Pod)
        assert obj == deserialize(pod, "V1Pod")
        assert to_data(obj) == pod


@needs_torchx
@settings(
    max_examples=settings.default.max_examples // 2,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(role=roles, service_account=st.one_of(st.none(), names))
def test_rendered_pods_round_trip_through_data(
    role: specs.Role, service_account: str | None
) -> None:
    pod = kubernetes_scheduler.role_to_pod(f"{role.name}-0", role, service_account)
    data = to_data(pod)
    assert to_client(data, client.V1Pod) == pod == deserialize(data, "V1Pod")


def test_nested_models_are_built_as_their_client_types() -> None:
    data = to_data(many_fields_pod())
    pod = to_client(data, "V1Pod")
    main = pod.spec.containers[0]
    assert isinstance(main.liveness_probe, client.V1Probe)
    assert main.liveness_probe.http_get.port == "http"
    assert isinstance(main.lifecycle.pre_stop._exec, client.V1ExecAction)
    assert main.lifecycle.pre_stop._exec.command == ["sleep", "5"]
    term = pod.spec.affinity.node_affinity.required_during_scheduling_ignored_during_execution
    assert term.node_selector_terms[0].match_expressions[0].values == ["a100", "h100"]
    anti = pod.spec.affinity.pod_anti_affinity
    assert anti.preferred_during_scheduling_ignored_during_execution[
        0
    ].pod_affinity_term.label_selector.match_labels == {"app": "trainer"}
    assert [
        type(
            v.empty_dir or v.persistent_volume_claim or v.secret or v.host_path or v.projected
        ).__name__
        for v in pod.spec.volumes
    ] == [
        "V1EmptyDirVolumeSource",
        "V1PersistentVolumeClaimVolumeSource",
        "V1SecretVolumeSource",
        "V1HostPathVolumeSource",
        "V1ProjectedVolumeSource",
    ]
    assert pod.metadata.creation_timestamp == datetime.datetime(
        2024, 5, 1, 12, 30, tzinfo=datetime.timezone.utc
    )
    assert pod.spec.containers[0].resources.limits == {"cpu": "8", "nvidia.com/gpu": "1"}
    assert pod == many_fields_pod() == deserialize(data, "V1Pod")


def test_built_objects_behave_like_the_clients_own() -> None:
    pod = to_client({"spec": {"containers": [{"name": "c"}]}}, "V1Pod")
    pod.spec.containers[0].image = "x:1"  # setters read the object's configuration
    assert pod.to_dict()["spec"]["containers"][0]["image"] == "x:1"
    assert pod.metadata is None and pod.spec.containers[0].env is None
    assert "V1Container" in repr(type(pod.spec.containers[0]))


def test_scalars_are_converted_as_the_client_converts_them() -> None:
    data = {
        "spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": 2}}}]},
        "metadata": {"unknownField": 1},
    }
    pod = to_client(data, "V1Pod")
    assert pod.spec.containers[0].resources.limits == {"cpu": "2"}
    try:
        theirs = deserialize(data, "V1Pod")
    except ValueError:  # 37's pydantic models refuse 2 for a string; podfold converts, as 36 did
        assert CLIENT_MAJOR >= 37
    else:
        assert pod == theirs


def test_wrong_shapes_name_the_path() -> None:
    with pytest.raises(ConversionError) as caught:
        to_client(
            {"spec": {"containers": [{"name": "c", "ports": [{"containerPort": "x"}]}]}}, "V1Pod"
        )
    assert caught.value.where == "spec.containers[0].ports[0].containerPort"
    assert "expected int, found str 'x'" in str(caught.value)
    with pytest.raises(ConversionError, match=r"^metadata: expected a map for V1ObjectMeta"):
        to_client({"metadata": ["x"]}, "V1Pod")
    with pytest.raises(ConversionError, match="creationTimestamp: expected a datetime"):
        to_client({"metadata": {"creationTimestamp": "yesterday-ish"}}, "V1Pod")


def test_model_argument_errors() -> None:
    with pytest.raises(ArgumentError) as caught:
        to_client({}, "V1Podd")
    assert (caught.value.argument, caught.value.factory) == ("model", "to_client")
    with pytest.raises(ArgumentTypeError, match="model"):
        to_client({}, dict)
    with pytest.raises(ArgumentError, match="kind"):
        to_data({}, "Deployment")


def test_snake_case_dicts_and_client_objects_give_the_same_data() -> None:
    pod = many_fields_pod()
    assert to_data(pod.to_dict()) == to_data(pod)
    assert to_data(pod.spec.to_dict(), "PodSpec") == to_data(pod.spec)
