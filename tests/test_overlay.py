"""Partial-pod overlays, markers, and as_transform on every form an overlay comes in."""

from __future__ import annotations

import copy
import os
import pathlib
from typing import Any

import pytest
from pyrsistent import freeze, thaw

from combinators import Transform, TypeClashError, append_at, chain, identity, upsert
from transforms import (
    DEL,
    JOIN,
    PUT,
    Append,
    Default,
    MergeBy,
    OverlayError,
    Prepend,
    Remove,
    Replace,
    as_transform,
    json_patch,
    overlay,
)
from transforms.forms.markers import AppendUnique, Marker
from transforms.kube.kinds import ClientDictError, WorkloadKindError


def make_pod() -> dict[str, Any]:
    return {
        "metadata": {"name": "job-0", "labels": {"app": "job"}},
        "spec": {
            "containers": [
                {"name": "trainer", "image": "trainer:1", "env": [{"name": "A", "value": "1"}]},
                {"name": "sidecar", "image": "envoy"},
            ],
            "tolerations": [{"key": "a", "operator": "Exists"}],
            "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory"}}],
            "nodeSelector": {"zone": "a"},
            "hostIPC": False,
        },
    }


# ---------------------------------------------------------------- TorchX semantics


def test_maps_merge_lists_append_scalars_replace() -> None:
    pod = make_pod()
    new = overlay(
        {"spec": {"nodeSelector": {"gpu": "a100"}, "tolerations": [{"key": "b"}], "hostIPC": True}}
    )(pod)
    assert new["spec"]["nodeSelector"] == {"zone": "a", "gpu": "a100"}
    assert new["spec"]["tolerations"] == [{"key": "a", "operator": "Exists"}, {"key": "b"}]
    assert new["spec"]["hostIPC"] is True


def test_tuple_replaces_a_list_and_becomes_a_list() -> None:
    new = overlay({"spec": {"tolerations": ({"key": "b"},)}})(make_pod())
    assert new["spec"]["tolerations"] == [{"key": "b"}]
    assert type(new["spec"]["tolerations"]) is list


def test_operator_keys() -> None:
    pod = make_pod()
    new = overlay(
        {
            "spec": {
                PUT("volumes"): [],
                DEL("nodeSelector"): None,
                JOIN("containers", on="name"): [
                    {"name": "trainer", "image": "t:2"},
                    {"name": "new"},
                ],
            }
        }
    )(pod)
    assert new["spec"]["volumes"] == []
    assert "nodeSelector" not in new["spec"]
    assert [c["name"] for c in new["spec"]["containers"]] == ["trainer", "sidecar", "new"]
    assert new["spec"]["containers"][0] == {
        "name": "trainer",
        "image": "t:2",
        "env": [{"name": "A", "value": "1"}],
    }


def test_join_overwrites_top_level_fields_only() -> None:
    new = overlay(
        {
            "spec": {
                JOIN("containers", on="name"): [
                    {"name": "trainer", "env": [{"name": "B", "value": "2"}]}
                ]
            }
        }
    )(make_pod())
    assert new["spec"]["containers"][0]["env"] == [{"name": "B", "value": "2"}]


def test_operator_key_helpers_match_upstream_format() -> None:
    assert (PUT("x"), JOIN("x", on="y"), DEL("x")) == ("__put__:x", "__join__:x:y", "__del__:x")


@pytest.mark.parametrize(
    ("partial", "path"),
    [
        ({"spec": {"tolerations": {"key": "b"}}}, "spec.tolerations"),
        ({"spec": {"nodeSelector": ["gpu"]}}, "spec.nodeSelector"),
        ({"metadata": {"name": {"a": 1}}}, "metadata.name"),
        ({"spec": {"hostIPC": [True]}}, "spec.hostIPC"),
        ({"spec": {"containers": "x"}}, "spec.containers"),
    ],
)
def test_type_clash_names_the_path(partial: dict[str, Any], path: str) -> None:
    with pytest.raises(TypeClashError) as caught:
        overlay(partial)(make_pod())
    assert str(caught.value.path) == path
    assert path in str(caught.value)
    assert isinstance(caught.value, TypeError)


def test_bad_operator_keys_fail_when_built() -> None:
    with pytest.raises(ValueError, match="malformed join key"):
        overlay({"spec": {"__join__:containers": []}})
    with pytest.raises(TypeError, match="needs a list of maps"):
        overlay({"spec": {JOIN("containers", on="name"): {"name": "x"}}})
    with pytest.raises(TypeError, match="has a key that is not a string"):
        overlay({"spec": {1: "x"}})


# ---------------------------------------------------------------- markers


def test_each_marker() -> None:
    pod = make_pod()
    new = overlay(
        {
            "spec": {
                "tolerations": Replace([]),
                "hostIPC": Remove(),
                "nodeSelector": Default({"other": "x"}),
                "restartPolicy": Default("Never"),
                "volumes": Prepend([{"name": "first"}]),
                "initContainers": Append([{"name": "init"}]),
                "containers": MergeBy([{"name": "sidecar", "image": "envoy:2"}, {"name": "extra"}]),
            }
        }
    )(pod)
    spec = new["spec"]
    assert spec["tolerations"] == []
    assert "hostIPC" not in spec
    assert spec["nodeSelector"] == {"zone": "a"}
    assert spec["restartPolicy"] == "Never"
    assert [v["name"] for v in spec["volumes"]] == ["first", "dshm"]
    assert spec["initContainers"] == [{"name": "init"}]
    assert [c.get("image") for c in spec["containers"]] == ["trainer:1", "envoy:2", None]


def test_append_unique_appends_only_items_not_there() -> None:
    pod = make_pod()
    toleration = {"key": "gpu", "operator": "Exists"}
    transform = overlay(
        {
            "spec": {
                "tolerations": AppendUnique(
                    [{"key": "a", "operator": "Exists"}, toleration, toleration]
                )
            }
        }
    )
    once = transform(pod)
    assert once["spec"]["tolerations"] == [{"key": "a", "operator": "Exists"}, toleration]
    assert transform(once) is once
    assert once["spec"]["containers"] is pod["spec"]["containers"]  # the rest is shared
    assert (
        overlay({"spec": {"tolerations": AppendUnique([{"key": "a", "operator": "Exists"}])}})(pod)
        is pod
    )
    # a new value holding the marker gets its items once, nothing of the marker
    new = overlay({"spec": {PUT("affinity"): {"x": AppendUnique([1, 1, 2])}}})(pod)
    assert new["spec"]["affinity"] == {"x": [1, 2]}


def test_append_unique_on_a_list_in_a_persistent_pod() -> None:
    pod = freeze(make_pod())
    new = overlay({"spec": {"tolerations": AppendUnique([{"key": "b"}])}})(pod)
    assert thaw(new)["spec"]["tolerations"][-1] == {"key": "b"}
    assert type(new) is type(pod)


def test_merge_by_composite_key() -> None:
    pod = {
        "spec": {"containers": [{"name": "t", "ports": [{"containerPort": 80, "protocol": "TCP"}]}]}
    }
    partial = {
        "spec": {
            JOIN("containers", on="name"): [
                {
                    "name": "t",
                    "ports": MergeBy(
                        [
                            {"containerPort": 80, "protocol": "TCP", "name": "http"},
                            {"containerPort": 80, "protocol": "UDP"},
                        ],
                        key=("containerPort", "protocol"),
                    ),
                }
            ]
        }
    }
    new = overlay(partial)(pod)
    # a join's items replace top-level fields; the marker in them is resolved
    assert new["spec"]["containers"][0]["ports"] == [
        {"containerPort": 80, "protocol": "TCP", "name": "http"},
        {"containerPort": 80, "protocol": "UDP"},
    ]


def test_no_marker_or_operator_key_ever_lands_in_the_pod() -> None:
    def leaks(value: Any) -> bool:
        if isinstance(value, (Marker, tuple)):
            return True
        if isinstance(value, dict):
            return any(str(k).startswith("__") or leaks(v) for k, v in value.items())
        if isinstance(value, list):
            return any(leaks(item) for item in value)
        return False

    partial = {
        "spec": {
            "containers": [
                {
                    "name": "new",
                    "ports": MergeBy([{"name": "p"}]),
                    "env": [{"name": "A", "value": Remove()}],
                    PUT("args"): ["x"],
                }
            ],
            "affinity": {"nodeAffinity": {DEL("x"): None, "y": Default(1), "z": (1, 2)}},
            PUT("volumes"): [{"name": "v", "emptyDir": Replace({"medium": "Memory"})}],
            "nodeSelector": Replace({"a": Remove(), "b": Default("c")}),
        }
    }
    new = overlay(partial)(make_pod())
    assert not leaks(new)
    assert new["spec"]["containers"][-1] == {
        "name": "new",
        "ports": [{"name": "p"}],
        "env": [{"name": "A"}],
        "args": ["x"],
    }
    assert new["spec"]["affinity"] == {"nodeAffinity": {"y": 1, "z": [1, 2]}}
    assert new["spec"]["nodeSelector"] == {"b": "c"}


def test_markers_are_values() -> None:
    assert Replace([1]) == Replace([1]) and hash(Replace([1])) == hash(Replace([1]))
    assert Replace([1]) != Append([1])
    assert AppendUnique([1]) != Append([1]) and AppendUnique([1]) == AppendUnique([1])
    assert repr(AppendUnique([{"key": "a"}])) == "AppendUnique([{'key': 'a'}])"
    assert MergeBy([], key="id") != MergeBy([])
    assert repr(MergeBy([{"id": 1}], key=("id", "x"))) == "MergeBy([{'id': 1}], key=('id', 'x'))"
    assert repr(Remove()) == "Remove()"


# ---------------------------------------------------------------- purity and sharing


def test_inputs_are_never_mutated() -> None:
    pod = make_pod()
    partial = {
        "spec": {
            "tolerations": [{"key": "b"}],
            "nodeSelector": {"gpu": "x"},
            JOIN("containers", on="name"): [{"name": "trainer", "image": "2"}],
        }
    }
    pod_before, partial_before = copy.deepcopy(pod), copy.deepcopy(partial)
    transform = overlay(partial)
    new = transform(pod)
    assert pod == pod_before and partial == partial_before
    new["spec"]["tolerations"][-1]["key"] = "changed"
    partial["spec"]["nodeSelector"]["gpu"] = "changed"
    assert transform(pod)["spec"]["tolerations"][-1] == {"key": "b"}
    assert transform(pod)["spec"]["nodeSelector"]["gpu"] == "x"


def test_structural_sharing_and_no_op_identity() -> None:
    pod = make_pod()
    new = overlay({"spec": {"nodeSelector": {"gpu": "a100"}}})(pod)
    assert new["metadata"] is pod["metadata"]
    assert new["spec"]["containers"] is pod["spec"]["containers"]
    assert overlay({"spec": {"nodeSelector": {"zone": "a"}, "hostIPC": False}})(pod) is pod
    assert overlay({"spec": {"tolerations": []}})(pod) is pod
    assert overlay({})(pod) is pod


def test_persistent_pods_stay_persistent() -> None:
    pod = freeze(make_pod())
    new = overlay({"spec": {"tolerations": [{"key": "b"}], "nodeSelector": {"gpu": "x"}}})(pod)
    assert type(new) is type(pod)
    assert thaw(new)["spec"]["tolerations"][-1] == {"key": "b"}


def test_overlays_are_values() -> None:
    assert overlay({"a": [1]}) == overlay({"a": [1]})
    assert hash(overlay({"a": [1]})) == hash(overlay({"a": [1]}))
    assert overlay({"a": [1]}) != overlay({"a": (1,)})
    assert repr(overlay({"a": Replace(1)})) == "overlay({'a': Replace(1)})"


def test_a_workload_document_is_refused_naming_its_kind() -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 2,
            "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}},
        },
    }
    before = copy.deepcopy(deployment)
    gpu_pool = overlay(
        {"spec": {"nodeSelector": {"gpu": "a100"}, "tolerations": [{"key": "nvidia.com/gpu"}]}}
    )
    with pytest.raises(WorkloadKindError) as caught:
        gpu_pool(deployment)
    assert isinstance(caught.value, TypeError)
    assert (caught.value.kind, caught.value.name) == ("Deployment", "web")
    assert "a Deployment document ('web'), not a pod" in str(caught.value)
    assert "transforms.kube.apply_to_workload" in str(caught.value)
    assert deployment == before
    # inside a composition, the error names the step too
    with pytest.raises(WorkloadKindError, match="Deployment"):
        chain(upsert("metadata.labels.team", "ml"), gpu_pool)(deployment)
    # the pod the Deployment holds is what the overlay is for
    template = deployment["spec"]["template"]
    assert gpu_pool(template)["spec"]["nodeSelector"] == {"gpu": "a100"}
    assert gpu_pool({"kind": "Pod", "spec": {}})["spec"]["tolerations"] == [
        {"key": "nvidia.com/gpu"}
    ]


def test_a_client_to_dict_is_refused_naming_the_conversion() -> None:
    from kubernetes.client import V1Container, V1Pod, V1PodSpec

    snake = V1Pod(spec=V1PodSpec(containers=[V1Container(name="t", image="t:1")])).to_dict()
    with pytest.raises(ClientDictError) as caught:
        overlay({"spec": {"nodeSelector": {"gpu": "a100"}}})(snake)
    assert "transforms.kube.to_data" in str(caught.value)
    assert "nodeSelector" not in snake["spec"]


def test_applies_only_to_maps() -> None:
    with pytest.raises(TypeClashError):
        overlay({"a": 1})([1])
    with pytest.raises(TypeError, match="an overlay is a map"):
        overlay([1])


# ---------------------------------------------------------------- as_transform


def test_as_transform_keeps_a_transform() -> None:
    transform = upsert("spec.nodeSelector", {"gpu": "a100"})
    assert as_transform(transform) is transform
    assert as_transform(identity) is identity


def test_as_transform_keeps_a_function() -> None:
    def label(pod: Any) -> Any:
        return {**pod, "metadata": {"labels": {"a": "b"}}}

    # a plain function becomes a Transform of that one step, called guarded
    wrapped = as_transform(label)
    assert isinstance(wrapped, Transform) and wrapped == chain(label)
    assert wrapped({"spec": {}}) == label({"spec": {}})
    func = as_transform(lambda pod: {**pod, "kind": "Pod"})
    assert func({"spec": {}}) == {"spec": {}, "kind": "Pod"}
    assert chain(func, upsert("a", 1))({}) == {"kind": "Pod", "a": 1}


def test_as_transform_dict_is_a_partial_pod() -> None:
    assert as_transform({"spec": {"hostIPC": True}}) == overlay({"spec": {"hostIPC": True}})


def test_as_transform_torchx_container() -> None:
    container = {"__torchx_overlays__": True, "V1Pod": {"spec": {"nodeSelector": {"g": "x"}}}}
    transform = as_transform(container)
    assert transform == overlay({"spec": {"nodeSelector": {"g": "x"}}})
    assert transform(make_pod())["spec"]["nodeSelector"] == {"zone": "a", "g": "x"}
    assert as_transform({"__torchx_overlays__": True})(make_pod()) == make_pod()


def test_as_transform_json_patch_list() -> None:
    ops = [
        {"op": "add", "path": "/spec/hostIPC", "value": True},
        {"op": "remove", "path": "/spec/nodeSelector"},
    ]
    transform = as_transform(ops)
    assert transform == json_patch(ops)
    new = transform(make_pod())
    assert new["spec"]["hostIPC"] is True and "nodeSelector" not in new["spec"]


def test_as_transform_other_lists_chain_their_items() -> None:
    transform = as_transform(
        [
            {"spec": {"tolerations": [{"key": "b"}]}},
            append_at("spec.tolerations", {"key": "c"}),
            (lambda pod: pod),
        ]
    )
    new = transform(make_pod())
    assert [t["key"] for t in new["spec"]["tolerations"]] == ["a", "b", "c"]
    assert as_transform([]) is identity
    assert as_transform(()) is identity


def test_as_transform_yaml_path_str_and_pathlike(tmp_path: pathlib.Path) -> None:
    file = tmp_path / "gpu.yaml"
    file.write_text("spec:\n  nodeSelector: {gpu: a100}\n", encoding="utf-8")
    wanted = overlay({"spec": {"nodeSelector": {"gpu": "a100"}}})
    assert as_transform(file) == wanted
    assert as_transform(str(file)) == wanted
    assert as_transform(os.fspath(file)) == wanted


def test_as_transform_missing_file_is_an_overlay_error(tmp_path: pathlib.Path) -> None:
    with pytest.raises(OverlayError) as caught:
        as_transform(tmp_path / "absent.yaml")
    assert caught.value.source.endswith("absent.yaml")


@pytest.mark.parametrize("value", [42, 1.5, None, True, b"spec: {}", object(), {1, 2}])
def test_as_transform_refuses_other_types(value: Any) -> None:
    with pytest.raises(TypeError, match="cannot make an overlay"):
        as_transform(value)
