"""Pod validation: agreement with the official schema, reference checks, paths, errors.

Our schema verdict is compared with a JSON Schema validator on the same
official schema that ``kubernetes-validate`` ships, in its ``-strict`` form
(``additionalProperties: false``), because we deliberately report unknown
fields: the plain schema lets them through (see
``test_unknown_fields_are_a_deliberate_difference_from_the_plain_schema``).
Two more deliberate differences are pinned down below: quantity strings must
parse, and integers must fit their int32/int64 format.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from importlib import resources
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kubernetes.client import ApiClient
from referencing import Registry, Resource
from torchx import specs
from torchx.schedulers.kubernetes_scheduler import app_to_resource, role_to_pod

from combinators.errors import ArgumentError, NestingError, TransformError
from combinators.limits import MAX_DEPTH
from tests.budget import within
from transforms.checks import rules
from transforms.checks.validation import (
    PodValidationError,
    Problem,
    parse_quantity,
    problems,
    validate_pod,
)
from transforms.kube.schema import DEFAULT_VERSION, SUPPORTED_VERSIONS, schema_for

Pod = dict[str, Any]


# ---------------------------------------------------------------- reference validators


def _official(kind: str, *, strict: bool, version: str = DEFAULT_VERSION) -> Any:
    directory = f"v{version}.0-local" + ("-strict" if strict else "")
    base = resources.files("kubernetes_validate") / "kubernetes-json-schema" / directory
    definitions = json.loads((base / "_definitions.json").read_text())
    if kind == "Pod":
        root = json.loads((base / "pod-v1.json").read_text())
    else:
        root = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"https://kubernetes.io/api/{kind.lower()}-test",
            "$ref": f"/api/_definitions.json#/$defs/io.k8s.api.core.v1.{kind}",
        }
    registry: Registry[Any] = Resource.from_contents(root) @ Registry()
    registry = Resource.from_contents(definitions) @ registry
    return jsonschema.Draft202012Validator(root, registry=registry)


@pytest.fixture(scope="module")
def strict() -> dict[str, Any]:
    return {kind: _official(kind, strict=True) for kind in ("Pod", "PodSpec", "PodTemplateSpec")}


def _schema_invalid(pod: Any, kind: str = "Pod") -> bool:
    return any(p.check == "schema" and p.severity == "error" for p in problems(pod, kind=kind))


# ---------------------------------------------------------------- pods


def base_pod() -> Pod:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "trainer-0",
            "labels": {"app": "trainer"},
            "annotations": {"sidecar.istio.io/inject": "false"},
        },
        "spec": {
            "containers": [
                {
                    "name": "trainer",
                    "image": "pytorch/pytorch:2.3",
                    "command": ["torchrun"],
                    "args": ["--nnodes", "2", "-m", "train"],
                    "env": [
                        {"name": "NCCL_DEBUG", "value": "INFO"},
                        {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                    ],
                    "ports": [{"containerPort": 29500, "name": "c10d", "protocol": "TCP"}],
                    "resources": {
                        "limits": {"cpu": "4", "memory": "8Gi", "nvidia.com/gpu": 1},
                        "requests": {"cpu": "3900m", "memory": "7Gi"},
                    },
                    "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}],
                    "readinessProbe": {
                        "httpGet": {"port": "http", "path": "/healthz"},
                        "periodSeconds": 10,
                    },
                    "securityContext": {"runAsUser": 1000},
                }
            ],
            "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "1Gi"}}],
            "tolerations": [
                {
                    "key": "nvidia.com/gpu",
                    "operator": "Exists",
                    "effect": "NoExecute",
                    "tolerationSeconds": 300,
                }
            ],
            "nodeSelector": {"node.kubernetes.io/instance-type": "p4d.24xlarge"},
            "restartPolicy": "Never",
        },
    }


def _torchx_pods() -> list[Pod]:
    role = specs.Role(
        name="trainer",
        image="pytorch/pytorch:2.3",
        entrypoint="python",
        args=["-m", "train"],
        env={"NCCL_DEBUG": "INFO", "LOGLEVEL": "WARN"},
        num_replicas=3,
        resource=specs.Resource(cpu=8, gpu=2, memMB=16384, devices={"vpc.amazonaws.com/efa": 2}),
        port_map={"c10d": 29500, "tb": 6006},
        mounts=[
            specs.VolumeMount(src="datasets", dst_path="/data", read_only=True),
            specs.BindMount(src_path="/mnt/ckpt", dst_path="/ckpt"),
            specs.DeviceMount(src_path="/dev/fuse", dst_path="/dev/fuse"),
        ],
    )
    worker = specs.Role(
        name="ps",
        image="busybox",
        entrypoint="sleep",
        args=["60"],
        resource=specs.Resource(cpu=1, gpu=0, memMB=512),
    )
    job = app_to_resource(specs.AppDef(name="app", roles=[role, worker]), "default", "sa", "high")
    pods = [task["template"] for task in job["spec"]["tasks"]]  # type: ignore[index]
    pods.append(role_to_pod("trainer-0", role, None))
    serialise = ApiClient().sanitize_for_serialization
    return [{"apiVersion": "v1", "kind": "Pod", **serialise(pod)} for pod in pods]


def _with(change: Any) -> Pod:
    pod = base_pod()
    change(pod)
    return pod


def _container(pod: Pod) -> dict[str, Any]:
    result: dict[str, Any] = pod["spec"]["containers"][0]
    return result


VALID: dict[str, Pod] = {
    "base": base_pod(),
    "nulls are allowed where the schema says so": _with(
        lambda p: p["spec"].update(nodeName=None, affinity=None, hostNetwork=None)
    ),
    "quantities as numbers": _with(
        lambda p: _container(p)["resources"].update(limits={"cpu": 4, "memory": 8.5e9})
    ),
    "integral float for an integer": _with(
        lambda p: _container(p)["ports"][0].update(containerPort=8080.0)
    ),
    "int-or-string as integer": _with(
        lambda p: _container(p)["readinessProbe"]["httpGet"].update(port=8080)
    ),
    # the smallest pod the API server takes (an empty containers list it refuses)
    "minimal spec": {
        "apiVersion": "v1",
        "kind": "Pod",
        "spec": {"containers": [{"name": "c", "image": "x"}]},
    },
    "metadata timestamps as null": _with(lambda p: p["metadata"].update(creationTimestamp=None)),
    "null element in a list of objects": _with(lambda p: p["spec"]["tolerations"].append(None)),
    "pod level resources": _with(lambda p: p["spec"].update(resources={"limits": {"cpu": "8"}})),
}

INVALID: dict[str, tuple[Pod, str]] = {
    "snake_case field": (
        _with(lambda p: p["spec"].update(node_selector={"a": "b"})),
        "spec.node_selector",
    ),
    "typo in a container field": (
        _with(lambda p: _container(p).update(imagePullPolicyy="x")),
        "spec.containers[name=trainer].imagePullPolicyy",
    ),
    "unknown metadata field": (_with(lambda p: p["metadata"].update(lables={})), "metadata.lables"),
    "port as string": (
        _with(lambda p: _container(p)["ports"][0].update(containerPort="80")),
        "spec.containers[name=trainer].ports[name=c10d].containerPort",
    ),
    "container without a name": (
        _with(lambda p: _container(p).pop("name")),
        "spec.containers[0].name",
    ),
    "port without containerPort": (
        _with(lambda p: _container(p)["ports"][0].pop("containerPort")),
        "spec.containers[name=trainer].ports[name=c10d].containerPort",
    ),
    "volume without a name": (
        _with(lambda p: p["spec"]["volumes"][0].pop("name")),
        "spec.volumes[0].name",
    ),
    "wrong kind": (_with(lambda p: p.update(kind="Deployment")), "kind"),
    "wrong apiVersion": (_with(lambda p: p.update(apiVersion="apps/v1")), "apiVersion"),
    "null kind": (_with(lambda p: p.update(kind=None)), "kind"),
    "boolean as string": (_with(lambda p: p["spec"].update(hostNetwork="yes")), "spec.hostNetwork"),
    "containers as a map": (
        _with(lambda p: p["spec"].update(containers={"name": "x"})),
        "spec.containers",
    ),
    "env value as integer": (
        _with(lambda p: _container(p)["env"][0].update(value=1)),
        "spec.containers[name=trainer].env[name=NCCL_DEBUG].value",
    ),
    "label value as integer": (
        _with(lambda p: p["metadata"]["labels"].update(replica=0)),
        "metadata.labels.replica",
    ),
    "quantity as boolean": (
        _with(lambda p: _container(p)["resources"]["limits"].update(cpu=True)),
        "spec.containers[name=trainer].resources.limits.cpu",
    ),
    "tolerationSeconds as string": (
        _with(lambda p: p["spec"]["tolerations"][0].update(tolerationSeconds="300")),
        "spec.tolerations[0].tolerationSeconds",
    ),
    "int-or-string as float": (
        _with(lambda p: _container(p)["readinessProbe"]["httpGet"].update(port=80.5)),
        "spec.containers[name=trainer].readinessProbe.httpGet.port",
    ),
    "int-or-string as null": (
        _with(lambda p: _container(p)["readinessProbe"]["httpGet"].update(port=None)),
        "spec.containers[name=trainer].readinessProbe.httpGet.port",
    ),
    "spec as a string": (_with(lambda p: p.update(spec="pod")), "spec"),
    "args with an integer": (
        _with(lambda p: _container(p)["args"].append(2)),
        "spec.containers[name=trainer].args[4]",
    ),
    "null container name": (
        _with(lambda p: _container(p).update(name=None)),
        "spec.containers[0].name",
    ),
    "number in a list of objects": (
        _with(lambda p: p["spec"]["tolerations"].append(7)),
        "spec.tolerations[1]",
    ),
}


def test_enough_cases() -> None:
    assert len(VALID) + len(INVALID) + len(_torchx_pods()) >= 25


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_pods_agree(name: str, strict: dict[str, Any]) -> None:
    pod = VALID[name]
    assert problems(pod) == []
    assert strict["Pod"].is_valid(pod)


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_pods_agree_and_name_the_path(name: str, strict: dict[str, Any]) -> None:
    pod, where = INVALID[name]
    found = [p for p in problems(pod) if p.check == "schema"]
    assert found, name
    assert where in [p.path for p in found], [str(p) for p in found]
    assert not strict["Pod"].is_valid(pod)


def test_torchx_pods_are_valid_for_both(strict: dict[str, Any]) -> None:
    for pod in _torchx_pods():
        assert problems(pod) == []
        assert strict["Pod"].is_valid(pod)
        kubernetes_validate.validate(pod, DEFAULT_VERSION, strict=True)


def test_verdicts_agree_with_kubernetes_validate() -> None:
    for pod in [*VALID.values(), *(pod for pod, _ in INVALID.values())]:
        if not isinstance(pod.get("kind"), str) or not isinstance(pod.get("apiVersion"), str):
            continue  # kubernetes_validate needs both to pick a schema
        try:
            kubernetes_validate.validate(pod, DEFAULT_VERSION, strict=True)
            theirs = False
        except (kubernetes_validate.ValidationError, kubernetes_validate.SchemaNotFoundError):
            theirs = True
        assert _schema_invalid(pod) == theirs, pod


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_other_versions_agree_on_the_base_pod(version: str) -> None:
    assert problems(base_pod(), k8s_version=version) == []
    assert problems(INVALID["port as string"][0], k8s_version=version)


def test_pod_spec_and_template_kinds(strict: dict[str, Any]) -> None:
    spec = base_pod()["spec"]
    template = {"metadata": {"labels": {"a": "b"}}, "spec": spec}
    assert problems(spec, kind="PodSpec") == []
    assert problems(template, kind="PodTemplateSpec") == []
    assert strict["PodSpec"].is_valid(spec) and strict["PodTemplateSpec"].is_valid(template)
    bad = dict(spec, node_selector={})
    [found] = problems(bad, kind="PodSpec")
    assert found.path == "node_selector"
    assert found.message == "unknown field node_selector; did you mean nodeSelector?"
    assert not strict["PodSpec"].is_valid(bad)
    broken = {"spec": dict(spec, volumes=[])}
    [mount] = problems(broken, kind="PodTemplateSpec")
    assert mount.path == "spec.containers[name=trainer].volumeMounts[name=dshm].name"


# ---------------------------------------------------------------- deliberate differences


def test_unknown_fields_are_a_deliberate_difference_from_the_plain_schema() -> None:
    pod = INVALID["snake_case field"][0]
    assert _official("Pod", strict=False).is_valid(pod)  # the plain schema lets it through
    [found] = problems(pod)
    assert found.message == "unknown field spec.node_selector; did you mean nodeSelector?"
    assert found.found == {"a": "b"}


@pytest.mark.parametrize("quantity", ["2 GB", "1.5.Gi", "Gi", "2gb", "", "1e", "--1"])
def test_malformed_quantities_are_caught_though_the_schema_allows_any_string(
    quantity: str, strict: dict[str, Any]
) -> None:
    pod = _with(lambda p: _container(p)["resources"]["limits"].update(memory=quantity))
    assert strict["Pod"].is_valid(pod)
    [found] = problems(pod)
    assert found.path == "spec.containers[name=trainer].resources.limits.memory"
    assert "is not a quantity" in found.message


@pytest.mark.parametrize(
    "quantity",
    [
        "2Gi",
        "500m",
        "1",
        "0.5",
        ".5",
        "1e3",
        "1E-3",
        "+1k",
        "100Mi",
        "1.5G",
        "3n",
        "10u",
        "7Ei",
        "9223372036854775807",
        "1" + "0" * 5000 + "e-4990",
    ],
)
def test_well_formed_quantities(quantity: str) -> None:
    pod = _with(lambda p: _container(p).update(resources={"limits": {"memory": quantity}}))
    assert problems(pod) == []


@pytest.mark.parametrize(
    "quantity",
    [
        "8Ei",
        "1e999999999",
        "9223372036854775808",
        "-1e20",
        "1" + "0" * 5000,
        "1e" + "9" * 5000,
        10**30,
        1e300,
    ],
)
def test_quantities_out_of_range_are_problems_at_their_path(quantity: Any) -> None:
    # Kubernetes keeps at most 2^63-1 in magnitude (it caps binary ones, overflows others)
    pod = _with(
        lambda p: _container(p).update(
            resources={"limits": {"memory": quantity}, "requests": {"memory": "1"}}
        )
    )
    [found] = problems(pod)
    assert found.path == "spec.containers[name=trainer].resources.limits.memory"
    assert "out of range" in found.message and "2^63-1" in found.message
    assert found.found == quantity and found.check == "schema"
    with pytest.raises(PodValidationError, match=r"limits\.memory: quantity"):
        validate_pod(pod)


def test_requests_and_limits_compare_as_kubernetes_keeps_them() -> None:
    # below a nano unit a quantity rounds up: 1e-20 and 1e-30 are both 1n, so equal
    for request, limit, exceeds in [
        ("1e-20", "1e-30", False),
        ("2n", "1e-30", True),
        ("1" + "0" * 4000 + "e-4000", "999m", True),
        ("1.0000000001", "1", True),
        ("7Ei", "8Ei", False),
    ]:
        pod = _with(
            lambda p, limit=limit, request=request: _container(p).update(
                resources={"limits": {"cpu": limit}, "requests": {"cpu": request}}
            )
        )
        found = [problem.rule for problem in problems(pod)]
        assert ("requests-within-limits" in found) is exceeds, (request, limit)


def test_int32_overflow_is_caught_though_the_schema_has_no_range(strict: dict[str, Any]) -> None:
    pod = _with(lambda p: _container(p)["ports"][0].update(containerPort=2**31))
    assert strict["Pod"].is_valid(pod)
    [found] = problems(pod)
    assert "out of range for int32" in found.message


# ---------------------------------------------------------------- reference checks


def test_mount_of_a_missing_volume() -> None:
    pod = _with(lambda p: p["spec"].update(volumes=[]))
    [found] = problems(pod)
    assert (found.path, found.check, found.found) == (
        "spec.containers[name=trainer].volumeMounts[name=dshm].name",
        "reference",
        "dshm",
    )
    assert found.message == "no volume named 'dshm'; volumes are: (none)"


def test_mounts_in_init_and_ephemeral_containers_are_checked() -> None:
    def change(pod: Pod) -> None:
        mount = [{"name": "cache", "mountPath": "/c"}]
        pod["spec"]["initContainers"] = [{"name": "init", "image": "x", "volumeMounts": mount}]
        pod["spec"]["ephemeralContainers"] = [
            {"name": "debug", "image": "x", "volumeMounts": mount}
        ]

    paths = [p.path for p in problems(_with(change))]
    assert paths == [
        "spec.initContainers[name=init].volumeMounts[name=cache].name",
        "spec.ephemeralContainers[name=debug].volumeMounts[name=cache].name",
    ]


def test_container_names_are_unique_across_containers_and_init_containers() -> None:
    pod = _with(lambda p: p["spec"].update(initContainers=[{"name": "trainer", "image": "x"}]))
    [found] = problems(pod)
    assert found.path == "spec.containers[name=trainer].name"
    assert found.message == "duplicate container name 'trainer' (also in initContainers)"


def test_duplicate_names_in_one_list_are_shown_by_index() -> None:
    pod = _with(lambda p: p["spec"]["containers"].append(dict(_container(p))))
    assert [(p.path, p.severity) for p in problems(pod)] == [
        ("spec.containers[1].name", "error"),
        # the copy declares the same port again: the API server warns of it
        ("spec.containers[1].ports[name=c10d].containerPort", "warning"),
    ]


def test_volume_names_are_unique() -> None:
    pod = _with(lambda p: p["spec"]["volumes"].append({"name": "dshm", "emptyDir": {}}))
    [found] = problems(pod)
    assert found.path == "spec.volumes[1].name"
    assert found.message == "duplicate volume name 'dshm'"


@pytest.mark.parametrize(
    ("request_", "limit", "ok"),
    [
        ("1Gi", "1024Mi", True),
        ("1025Mi", "1Gi", False),
        ("500m", "1", True),
        ("1500m", "1", False),
        ("1", 1, True),
        (2, "1500m", False),
        ("1e3", "1k", True),
        ("1G", "1Gi", True),
        ("1Gi", "1G", False),
        ("2 GB", "1Gi", False),
    ],
)
def test_requests_do_not_exceed_limits(request_: Any, limit: Any, ok: bool) -> None:
    pod = _with(
        lambda p: _container(p).update(
            resources={"requests": {"memory": request_}, "limits": {"memory": limit}}
        )
    )
    found = problems(pod)
    assert (found == []) == ok, found
    if not ok and request_ != "2 GB":
        [problem] = found
        assert problem.path == "spec.containers[name=trainer].resources.requests.memory"
        assert problem.check == "reference"


@pytest.mark.parametrize(
    ("resources", "path", "message"),
    [
        (
            {"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "2"}},
            'requests["nvidia.com/gpu"]',
            "request 1 for nvidia.com/gpu must equal its limit 2 "
            "(an extended resource cannot be overcommitted)",
        ),
        (
            {"requests": {"example.com/foo": 1}},
            'requests["example.com/foo"]',
            "request 1 for example.com/foo needs a limit, equal to it",
        ),
        (
            {"limits": {"amd.com/gpu": "500m"}},
            'limits["amd.com/gpu"]',
            "500m of amd.com/gpu is not a whole number",
        ),
        (
            {
                "requests": {"hugepages-2Mi": "100Mi", "memory": "1Gi"},
                "limits": {"hugepages-2Mi": "200Mi", "memory": "1Gi"},
            },
            "requests.hugepages-2Mi",
            "must equal its limit 200Mi (huge pages cannot be overcommitted)",
        ),
    ],
)
def test_extended_resources_and_huge_pages_are_not_overcommitted(
    resources: dict[str, Any], path: str, message: str
) -> None:
    # as the API server's validation refuses them (requests must equal limits, in whole units)
    pod = _with(lambda p: _container(p).update(resources=resources))
    [found] = problems(pod)
    assert found.path == f"spec.containers[name=trainer].resources.{path}"
    assert message in found.message and found.rule == "requests-within-limits"


@pytest.mark.parametrize(
    "resources",
    [
        {"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": 1}},
        {"limits": {"nvidia.com/gpu": "2"}},  # the request defaults to the limit
        {"requests": {"cpu": "1", "kubernetes.io/foo": "1"}},  # native, may be overcommitted
        # huge pages go with cpu or memory
        {"requests": {"hugepages-1Gi": "2Gi"}, "limits": {"hugepages-1Gi": "2048Mi", "cpu": "1"}},
    ],
)
def test_extended_resources_that_match_their_limits_pass(resources: dict[str, Any]) -> None:
    assert problems(_with(lambda p: _container(p).update(resources=resources))) == []


def test_reference_rules_are_modules_with_an_id_each() -> None:
    ids = [module.ID for module in rules.RULES]
    assert len(set(ids)) == len(ids) == 18
    for module in rules.RULES:
        assert module.DESCRIPTION and callable(module.check)
        assert rules.rule(module.ID) is module
    with pytest.raises(ArgumentError, match="rules are: containers-required, volume-names"):
        rules.rule("nope")


def test_reference_problems_name_their_rule_and_come_rule_by_rule() -> None:
    def change(pod: Pod) -> None:
        pod["spec"]["volumes"] = []
        _container(pod)["resources"] = {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}
        pod["spec"]["initContainers"] = [{"name": "init"}]

    found = problems(_with(change))
    assert [(p.check, p.rule) for p in found] == [
        ("reference", "container-images"),
        ("reference", "volume-mounts"),
        ("reference", "requests-within-limits"),
    ]
    assert all(p.rule is None for p in problems(INVALID["port as string"][0]))


def test_unknown_kind_is_an_argument_error() -> None:
    with pytest.raises(ArgumentError) as caught:
        problems({}, kind="Deployment")
    assert (caught.value.argument, caught.value.factory) == ("kind", "problems")


def test_duplicate_env_is_a_warning_that_does_not_raise() -> None:
    pod = _with(lambda p: _container(p)["env"].append({"name": "NCCL_DEBUG", "value": "WARN"}))
    [found] = problems(pod)
    assert found.severity == "warning"
    assert found.path == "spec.containers[name=trainer].env[2].name"
    assert validate_pod(pod) is pod


# ---------------------------------------------------------------- errors and paths


def test_validate_pod_returns_the_same_pod_or_raises_with_every_problem() -> None:
    pod = base_pod()
    assert validate_pod(pod) is pod
    bad = _with(
        lambda p: (
            p["spec"].update(node_selector={}, volumes=[]),
            _container(p)["ports"][0].update(containerPort="x"),
        )
    )
    with pytest.raises(PodValidationError) as caught:
        validate_pod(bad)
    err = caught.value
    assert isinstance(err, TransformError) and isinstance(err, ValueError)
    assert len(err.problems) == 3
    lines = str(err).splitlines()
    assert lines[0] == "pod is invalid (3 problems):"
    assert [line.strip().split(":")[0] for line in lines[1:]] == [p.path for p in err.problems]


def test_keys_needing_quotes_are_quoted_in_paths() -> None:
    pod = _with(lambda p: p["metadata"]["annotations"].update({"a.b/c": 1}))
    [found] = problems(pod)
    assert found.path == 'metadata.annotations["a.b/c"]'
    assert found.message == "expected string, found integer 1"


def test_not_a_dict_at_the_root() -> None:
    [found] = problems([])
    assert found.message.startswith("expected object")


def test_input_is_not_modified() -> None:
    pod = INVALID["port as string"][0]
    before = copy.deepcopy(pod)
    problems(pod)
    assert pod == before


def test_problem_is_a_value() -> None:
    assert Problem("a", "b") == Problem("a", "b")
    assert parse_quantity("1Ki") == 1024


# ---------------------------------------------------------------- mutations (hypothesis)


def _object_nodes(value: Any, kind: str = "Pod") -> Iterator[tuple[tuple[Any, ...], Any]]:
    """(keys, node) of every node of the pod, walking the schema alongside."""
    schema = schema_for()

    def walk(node: Any, keys: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], Any]]:
        yield keys, node
        if isinstance(node, dict):
            for key, item in node.items():
                yield from walk(item, (*keys, key))
        elif isinstance(node, list):
            for index, item in enumerate(node):
                yield from walk(item, (*keys, index))

    for keys, node in walk(value, ()):
        field = schema.field_at(kind, keys) if keys else None
        yield keys, (node, field)


def _locate(pod: Pod, keys: tuple[Any, ...]) -> Any:
    node: Any = pod
    for key in keys:
        node = node[key]
    return node


MUTABLE = [base_pod(), *_torchx_pods()]


@st.composite
def mutated(draw: st.DrawFn) -> tuple[Pod, str]:
    pod = copy.deepcopy(draw(st.sampled_from(MUTABLE)))
    schema = schema_for()
    nodes = list(_object_nodes(pod))
    objects = [
        keys
        for keys, (node, _) in nodes
        if isinstance(node, dict)
        and schema.type_at("Pod", keys) is not None
        and (not keys or (f := schema.field_at("Pod", keys)) is None or f.kind != "map")
    ]
    required = [
        (keys, name)
        for keys in objects
        for name in schema.type_at("Pod", keys).required  # type: ignore[union-attr]
        if name in _locate(pod, keys)
    ]
    integers = [
        keys
        for keys, (node, field) in nodes
        if field is not None
        and field.kind == "scalar"
        and field.json_type == "integer"
        and isinstance(node, int)
    ]
    choices = ["unknown"] + (["drop"] if required else []) + (["string"] if integers else [])
    how = draw(st.sampled_from(choices))
    if how == "unknown":
        keys = draw(st.sampled_from(objects))
        name = draw(st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12))
        type_ = schema.type_at("Pod", keys)
        assert type_ is not None
        if name in type_.fields:
            name += "_x_"
        _locate(pod, keys)[name] = draw(st.sampled_from([1, "x", None, {}, []]))
    elif how == "drop":
        keys, name = draw(st.sampled_from(required))
        del _locate(pod, keys)[name]
    else:
        keys = draw(st.sampled_from(integers))
        _locate(pod, keys[:-1])[keys[-1]] = str(_locate(pod, keys))
    return pod, how


@settings(max_examples=settings.default.max_examples * 3, deadline=None)
@given(mutated())
def test_mutations_of_valid_pods_are_caught(case: tuple[Pod, str]) -> None:
    pod, _ = case
    assert _schema_invalid(pod)
    with pytest.raises(PodValidationError):
        validate_pod(pod)


@settings(max_examples=settings.default.max_examples * 4 // 5, deadline=None)
@given(mutated())
def test_mutations_agree_with_the_strict_official_schema(case: tuple[Pod, str]) -> None:
    pod, _ = case
    assert not _official_strict_pod().is_valid(pod)


_STRICT: list[Any] = []


def _official_strict_pod() -> Any:
    if not _STRICT:
        _STRICT.append(_official("Pod", strict=True))
    return _STRICT[0]


def test_free_form_objects_must_still_be_objects(strict: dict[str, Any]) -> None:
    entry = {"manager": "kubectl", "operation": "Update", "fieldsType": "FieldsV1"}
    good = _with(lambda p: p["metadata"].update(managedFields=[dict(entry, fieldsV1={"f:a": {}})]))
    bad = _with(lambda p: p["metadata"].update(managedFields=[dict(entry, fieldsV1="f:a")]))
    assert problems(good) == [] and strict["Pod"].is_valid(good)
    [found] = problems(bad)
    assert found.path == "metadata.managedFields[0].fieldsV1"
    assert not strict["Pod"].is_valid(bad)


def test_client_objects_and_persistent_maps_are_checked_in_api_form() -> None:
    from kubernetes import client as k8s
    from pyrsistent import freeze

    pod = k8s.V1Pod(
        api_version="v1",
        kind="Pod",
        spec=k8s.V1PodSpec(
            containers=[
                k8s.V1Container(
                    name="c",
                    image="x",
                    volume_mounts=[k8s.V1VolumeMount(name="gone", mount_path="/g")],
                )
            ]
        ),
    )
    [found] = problems(pod)
    assert found.path == "spec.containers[name=c].volumeMounts[name=gone].name"
    frozen = freeze(base_pod())
    assert problems(frozen) == []
    assert validate_pod(frozen) is frozen
    assert [p.path for p in problems(freeze(INVALID["port as string"][0]))] == [
        "spec.containers[name=trainer].ports[name=c10d].containerPort"
    ]


def test_values_the_schema_enumerates_only_in_prose_are_checked() -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {
            "restartPolicy": "never",
            "containers": [{"name": "c", "image": "i", "imagePullPolicy": "always"}],
            "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedul"}],
        },
    }
    found = {(p.path, p.found) for p in problems(pod)}
    assert found == {
        ("spec.restartPolicy", "never"),
        ("spec.containers[name=c].imagePullPolicy", "always"),
        ("spec.tolerations[0].effect", "NoSchedul"),
    }


# ---------------------------------------------------------------- deep input, within budget


def _deep_selector_problems() -> list[tuple[str, str]]:
    deep: Any = "x"
    for _ in range(10_000):
        deep = {"a": deep}
    pod = {"spec": {"containers": [{"name": "c", "image": "x"}], "nodeSelector": deep}}
    return [(problem.path, problem.message) for problem in problems(pod)]


def test_a_node_selector_nested_10000_deep_is_a_problem_at_its_path() -> None:
    outcome = within(_deep_selector_problems, seconds=5, megabytes=256)
    assert outcome.status == "returned", (outcome.status, outcome.error_text)
    [(path, message)] = outcome.value
    assert path == "spec.nodeSelector.a"
    assert message.startswith("expected string, found object {'a': {'a': ") and len(message) < 120


def _deep_pyrsistent_pod() -> str:
    from pyrsistent import freeze, pmap

    deep: Any = "x"
    for _ in range(10_000):
        deep = pmap({"a": deep})
    pod = pmap(
        {"spec": pmap({"containers": freeze([{"name": "c", "image": "x"}]), "nodeSelector": deep})}
    )
    try:
        problems(pod)
    except NestingError as err:
        return str(err.path)
    return "accepted"


def test_deep_persistent_data_is_refused_naming_where() -> None:
    outcome = within(_deep_pyrsistent_pod, seconds=5, megabytes=256)
    assert outcome.status == "returned", (outcome.status, outcome.error_text)
    # the map past MAX_DEPTH levels sits at a path of MAX_DEPTH keys: spec, nodeSelector, a, ...
    assert outcome.value == "spec.nodeSelector" + ".a" * (MAX_DEPTH - 2)
