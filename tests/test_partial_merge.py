"""Inside a ``!merge-by`` item, a partial pod keeps what it does not mention.

A matched item merges into the element by the partial-pod rules (maps merge, a
list the schema gives a Kubernetes merge key merges by it, as ``kubectl patch
--type strategic`` merges it, any other list appends); its env list once
replaced the container's, dropping every entry the overlay did not name (a
Secret reference among them), and its volumeMounts the container's mounts.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from pyrsistent import freeze, thaw

from combinators import TypeClashError
from tests import warm
from transforms import JOIN, Append, MergeBy, OverlayError, Replace, loads_overlay, overlay
from transforms.kube.workloads import apply_to_documents

from .kubectl import kubectl_patch, needs_kubectl

PODFOLD = Path(sys.executable).with_name("podfold")

ENV: list[dict[str, Any]] = [
    {"name": "MODEL", "value": "llama"},
    {"name": "EPOCHS", "value": "3"},
    {"name": "LR", "value": "1e-4"},
    {"name": "BATCH", "value": "32"},
    {"name": "WANDB_PROJECT", "value": "x"},
    {"name": "NCCL_SOCKET_IFNAME", "value": "eth0"},
    {"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}},
]
MOUNTS: list[dict[str, Any]] = [
    {"name": "local", "mountPath": "/local"},
    {"name": "shm", "mountPath": "/dev/shm"},
]
DEPLOYMENT: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "trainer"},
    "spec": {
        "selector": {"matchLabels": {"app": "trainer"}},
        "template": {
            "metadata": {"labels": {"app": "trainer"}},
            "spec": {
                "containers": [
                    {"name": "app", "image": "trainer:1", "env": ENV, "volumeMounts": MOUNTS},
                    {"name": "sidecar", "image": "envoy:1"},
                ],
                "volumes": [
                    {"name": "local", "hostPath": {"path": "/mnt/local"}},
                    {"name": "shm", "emptyDir": {"medium": "Memory"}},
                    {"name": "data", "emptyDir": {}},
                ],
            },
        },
    },
}
OVERLAY = """\
spec:
  containers: !merge-by
  - name: app
    env: [{name: NCCL_DEBUG, value: INFO}]
    volumeMounts: [{name: data, mountPath: /data}]
"""
ADDED_ENV = {"name": "NCCL_DEBUG", "value": "INFO"}
ADDED_MOUNT = {"name": "data", "mountPath": "/data"}


def template() -> Any:
    return copy.deepcopy(DEPLOYMENT["spec"]["template"])


def container(pod: Any, name: str = "app") -> Any:
    (found,) = [c for c in pod["spec"]["containers"] if c["name"] == name]
    return found


def by(key: str, items: list[Any]) -> dict[Any, Any]:
    """A list of maps keyed by a field, to compare as Kubernetes does (order aside)."""
    keyed = {item[key]: item for item in items}
    assert len(keyed) == len(items), f"two items with one {key}: {items}"
    return keyed


# ---------------------------------------------------------------- the two cases of the issue


def test_env_in_a_matched_container_keeps_the_entries_it_does_not_name() -> None:
    pod = template()
    before = copy.deepcopy(pod)
    new = loads_overlay(OVERLAY)(pod)
    assert pod == before
    app = container(new)
    assert app["env"] == [*ENV, ADDED_ENV]
    assert app["env"][6]["valueFrom"] == {"secretKeyRef": {"name": "db", "key": "password"}}
    assert app["image"] == "trainer:1"
    assert container(new, "sidecar") is pod["spec"]["containers"][1]


def test_volume_mounts_in_a_matched_container_keep_the_mounts_it_does_not_name() -> None:
    app = container(loads_overlay(OVERLAY)(template()))
    assert app["volumeMounts"] == [*MOUNTS, ADDED_MOUNT]


def test_the_same_through_apply_to_documents() -> None:
    documents = [copy.deepcopy(DEPLOYMENT)]
    (new,) = apply_to_documents(loads_overlay(OVERLAY), documents)
    app = container(new["spec"]["template"])
    assert app["env"] == [*ENV, ADDED_ENV]
    assert app["volumeMounts"] == [*MOUNTS, ADDED_MOUNT]
    assert documents == [DEPLOYMENT]


def test_the_same_through_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "overlay.yaml").write_text(OVERLAY, encoding="utf-8")
    # as JSON (YAML too): PyYAML would write the env var's '1e-4' plain, which kubectl,
    # and podfold with it, reads as the number 0.0001
    (tmp_path / "deployment.yaml").write_text(json.dumps(DEPLOYMENT), encoding="utf-8")
    done = warm.run(
        "podfold", ["apply", "-f", "overlay.yaml", "deployment.yaml"], cwd=tmp_path, timeout=120
    )
    assert done.returncode == 0, done.stderr
    (new,) = [doc for doc in yaml.safe_load_all(done.stdout) if doc is not None]
    app = container(new["spec"]["template"])
    assert app["env"] == [*ENV, ADDED_ENV]
    assert app["volumeMounts"] == [*MOUNTS, ADDED_MOUNT]


@needs_kubectl
def test_the_fields_kubectl_keeps_are_kept() -> None:
    # the equivalent strategic patch: kubectl merges env by name, volumeMounts by mountPath
    patch = {
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {"name": "app", "env": [ADDED_ENV], "volumeMounts": [ADDED_MOUNT]}
                    ]
                }
            }
        }
    }
    code, kubectl = kubectl_patch(DEPLOYMENT, patch, "strategic")
    assert code == 0, kubectl
    (ours,) = apply_to_documents(loads_overlay(OVERLAY), [copy.deepcopy(DEPLOYMENT)])
    theirs_app, our_app = (
        container(kubectl["spec"]["template"]),
        container(ours["spec"]["template"]),
    )
    assert by("name", our_app["env"]) == by("name", theirs_app["env"])
    assert by("mountPath", our_app["volumeMounts"]) == by("mountPath", theirs_app["volumeMounts"])
    assert our_app == {**theirs_app, "env": our_app["env"], "volumeMounts": our_app["volumeMounts"]}


# ---------------------------------------------------------------- keyed lists merge by their key


def test_an_env_name_already_there_is_merged_not_duplicated() -> None:
    pod = template()
    new = loads_overlay(
        "spec:\n  containers: !merge-by\n  - name: app\n    env: [{name: LR, value: '3e-4'}]\n"
    )(pod)
    env = container(new)["env"]
    assert [e["name"] for e in env] == [e["name"] for e in ENV]
    assert env[2] == {"name": "LR", "value": "3e-4"}
    # what the overlay does not touch is shared, not copied
    assert env[6] is container(pod)["env"][6]


def test_a_secret_reference_is_merged_field_by_field() -> None:
    new = overlay(
        {
            "spec": {
                "containers": MergeBy(
                    [
                        {
                            "name": "app",
                            "env": [
                                {
                                    "name": "DB_PASSWORD",
                                    "valueFrom": {"secretKeyRef": {"key": "token"}},
                                }
                            ],
                        }
                    ]
                )
            }
        }
    )(template())
    assert container(new)["env"][6] == {
        "name": "DB_PASSWORD",
        "valueFrom": {"secretKeyRef": {"name": "db", "key": "token"}},
    }


def test_a_mount_path_already_there_is_merged_not_duplicated() -> None:
    new = loads_overlay(
        "spec:\n  containers: !merge-by\n  - name: app\n"
        "    volumeMounts: [{mountPath: /local, readOnly: true}]\n"
    )(template())
    assert container(new)["volumeMounts"] == [{**MOUNTS[0], "readOnly": True}, MOUNTS[1]]


def test_ports_merge_on_port_and_protocol_which_defaults_to_tcp() -> None:
    pod = {
        "spec": {
            "containers": [
                {
                    "name": "app",
                    "ports": [{"containerPort": 80}, {"containerPort": 53, "protocol": "UDP"}],
                }
            ]
        }
    }
    new = overlay(
        {
            "spec": {
                "containers": MergeBy(
                    [
                        {
                            "name": "app",
                            "ports": [
                                {"containerPort": 80, "name": "http"},
                                {"containerPort": 53, "protocol": "TCP"},
                                {"containerPort": 53, "protocol": "UDP", "name": "dns"},
                            ],
                        }
                    ]
                )
            }
        }
    )(pod)
    assert container(new)["ports"] == [
        {"containerPort": 80, "name": "http"},
        {"containerPort": 53, "protocol": "UDP", "name": "dns"},
        {"containerPort": 53, "protocol": "TCP"},
    ]


def test_a_list_with_no_merge_key_appends_at_any_depth() -> None:
    pod = {
        "spec": {
            "containers": [
                {
                    "name": "app",
                    "args": ["--v"],
                    "securityContext": {"capabilities": {"drop": ["ALL"], "add": ["NET_RAW"]}},
                }
            ]
        }
    }
    new = loads_overlay(
        "spec:\n  containers: !merge-by\n  - name: app\n    args: [--fast]\n"
        "    securityContext: {capabilities: {add: [NET_ADMIN]}}\n"
    )(pod)
    app = container(new)
    assert app["args"] == ["--v", "--fast"]
    assert app["securityContext"] == {
        "capabilities": {"drop": ["ALL"], "add": ["NET_RAW", "NET_ADMIN"]}
    }


def test_nested_matched_items_follow_the_same_rules() -> None:
    # env: !merge-by inside the item, and its items' maps: nothing unnamed is lost
    pod = template()
    new = loads_overlay("""\
spec:
  containers: !merge-by
  - name: app
    env: !merge-by
    - {name: DB_PASSWORD, valueFrom: {secretKeyRef: {optional: true}}}
    - {name: NCCL_DEBUG, value: INFO}
    resources: {limits: {nvidia.com/gpu: 1}}
""")(pod)
    env = container(new)["env"]
    assert env[:6] == ENV[:6] and env[7:] == [ADDED_ENV]
    assert env[6] == {
        "name": "DB_PASSWORD",
        "valueFrom": {"secretKeyRef": {"name": "db", "key": "password", "optional": True}},
    }
    assert container(new)["resources"] == {"limits": {"nvidia.com/gpu": 1}}


def test_a_new_container_gets_its_lists_as_written() -> None:
    new = loads_overlay(
        "spec:\n  containers: !merge-by\n  - name: extra\n    image: x\n"
        "    env: [{name: A, value: '1'}]\n"
    )(template())
    assert container(new, "extra") == {
        "name": "extra",
        "image": "x",
        "env": [{"name": "A", "value": "1"}],
    }


def test_tags_still_say_otherwise() -> None:
    new = overlay(
        {
            "spec": {
                "containers": MergeBy(
                    [{"name": "app", "env": Replace([ADDED_ENV]), "volumeMounts": Replace([])}]
                )
            }
        }
    )(template())
    assert container(new)["env"] == [ADDED_ENV]
    assert container(new)["volumeMounts"] == []


def test_no_op_gives_the_same_pod() -> None:
    pod = template()
    same = overlay(
        {
            "spec": {
                "containers": MergeBy(
                    [{"name": "app", "env": [ENV[2]], "volumeMounts": [MOUNTS[0]]}]
                )
            }
        }
    )
    assert same(pod) is pod


def test_a_persistent_pod_stays_persistent() -> None:
    pod = freeze(template())
    new = loads_overlay(OVERLAY)(pod)
    assert type(new) is type(pod)
    app = container(thaw(new))
    assert app["env"] == [*ENV, ADDED_ENV]
    assert app["volumeMounts"] == [*MOUNTS, ADDED_MOUNT]
    assert (
        overlay({"spec": {"containers": MergeBy([{"name": "app", "env": [ENV[0]]}])}})(pod) is pod
    )


def test_items_with_one_key_merge_into_one_element() -> None:
    new = overlay(
        {
            "spec": {
                "containers": MergeBy(
                    [
                        {"name": "extra", "env": [{"name": "A", "value": "1"}]},
                        {
                            "name": "extra",
                            "image": "x",
                            "env": [{"name": "A", "value": "2"}, {"name": "B", "value": "3"}],
                        },
                    ]
                )
            }
        }
    )(template())
    assert container(new, "extra") == {
        "name": "extra",
        "image": "x",
        "env": [{"name": "A", "value": "2"}, {"name": "B", "value": "3"}],
    }


# ---------------------------------------------------------------- what did not change


def test_top_level_lists_still_append() -> None:
    # outside a !merge-by item the TorchX rule holds: a list appends, containers too
    new = overlay({"spec": {"containers": [{"name": "app", "env": [ADDED_ENV]}]}})(template())
    assert [c["name"] for c in new["spec"]["containers"]] == ["app", "sidecar", "app"]
    assert container(new, "sidecar")["image"] == "envoy:1"


def test_join_keeps_upstreams_top_level_overwrite() -> None:
    new = overlay({"spec": {JOIN("containers", on="name"): [{"name": "app", "env": [ADDED_ENV]}]}})(
        template()
    )
    assert new["spec"]["containers"][0]["env"] == [ADDED_ENV]


# ---------------------------------------------------------------- refused where written


def test_an_env_entry_without_a_name_is_refused_where_it_is_written() -> None:
    text = "spec:\n  containers: !merge-by\n  - name: app\n    env:\n    - {value: x}\n"
    with pytest.raises(OverlayError) as caught:
        loads_overlay(text, source="env.yaml")
    message = str(caught.value)
    assert message.startswith("env.yaml:5:")
    assert "spec.containers[0].env[0]" in message and "name" in message and "!append" in message


def test_an_item_that_is_no_map_is_refused_naming_the_place() -> None:
    with pytest.raises(OverlayError) as caught:
        loads_overlay("spec:\n  containers: !merge-by [trainer]\n", source="c.yaml")
    assert str(caught.value).startswith("c.yaml:2:")
    assert "spec.containers" in str(caught.value) and "a string" in str(caught.value)


@pytest.mark.parametrize(
    "env",
    [[ADDED_ENV], MergeBy([ADDED_ENV]), Append([ADDED_ENV])],
    ids=["untagged", "merge-by", "append"],
)
def test_a_type_clash_inside_a_matched_item_names_the_element(env: Any) -> None:
    pod = {"spec": {"containers": [{"name": "app", "env": {"A": "1"}}]}}
    with pytest.raises(TypeClashError) as caught:
        overlay({"spec": {"containers": MergeBy([{"name": "app", "env": env}])}})(pod)
    assert str(caught.value.path) == "spec.containers[name=app].env"
    assert "the pod has a map, the overlay a list" in str(caught.value)
