"""Allow and deny lists of paths, checked against what an overlay actually changed."""

from __future__ import annotations

from typing import Any

import pytest

from combinators import ArgumentError, append_at, chain, remove_at, replace_at, upsert
from transforms.checks import PathPolicy, PolicyError

POD: dict[str, Any] = {
    "metadata": {"name": "p"},
    "spec": {
        "containers": [
            {"name": "trainer", "image": "t:1", "securityContext": {"runAsUser": 1000}},
            {"name": "sidecar", "image": "s:1"},
        ],
        "tolerations": [{"key": "a"}],
    },
}


def _paths(policy: PathPolicy, overlay: Any) -> list[tuple[str, str | None]]:
    return [(p.path, p.rule) for p in policy.problems(POD, overlay(POD))]


def test_deny_with_every_element_selector() -> None:
    policy = PathPolicy(deny=["spec.containers[*].securityContext"])
    assert _paths(
        policy, upsert("spec.containers[name=sidecar].securityContext", {"privileged": True})
    ) == [("spec.containers[name=sidecar].securityContext", "deny")]
    assert _paths(policy, upsert("spec.containers[name=trainer].securityContext.runAsUser", 0)) == [
        ("spec.containers[name=trainer].securityContext.runAsUser", "deny")
    ]
    assert (
        _paths(policy, upsert("spec.containers[name=trainer].env", [{"name": "A", "value": "1"}]))
        == []
    )


def test_deny_with_a_match_selector_only_that_element() -> None:
    policy = PathPolicy(deny=["spec.containers[name=trainer].image"])
    assert _paths(policy, upsert("spec.containers[name=sidecar].image", "s:2")) == []
    assert _paths(policy, upsert("spec.containers[name=trainer].image", "t:2")) == [
        ("spec.containers[name=trainer].image", "deny")
    ]


def test_a_container_added_whole_is_looked_at_inside() -> None:
    policy = PathPolicy(deny=["spec.containers[*].securityContext"])
    plain = append_at("spec.containers", {"name": "new", "image": "n:1"})
    privileged = append_at(
        "spec.containers", {"name": "new", "image": "n:1", "securityContext": {"privileged": True}}
    )
    assert _paths(policy, plain) == []
    assert _paths(policy, privileged) == [("spec.containers[name=new].securityContext", "deny")]


def test_removing_a_denied_value_is_a_change_too() -> None:
    policy = PathPolicy(deny=["spec.containers[*].securityContext"])
    assert _paths(policy, remove_at("spec.containers[name=trainer]")) == [
        ("spec.containers[name=trainer].securityContext", "deny")
    ]
    assert _paths(policy, remove_at("spec.containers[name=sidecar]")) == []


def test_allow_lists_what_may_change() -> None:
    policy = PathPolicy(allow=["spec.nodeSelector", "spec.tolerations", "metadata.labels"])
    overlay = chain(
        upsert("spec.nodeSelector", {"gpu": "a100"}),
        append_at("spec.tolerations", {"key": "gpu"}),
        upsert("metadata.labels.team", "ml"),
        upsert("spec.hostPID", True),
    )
    assert _paths(policy, overlay) == [("spec.hostPID", "allow")]


def test_a_map_created_above_an_allowed_path_is_allowed_if_all_inside_is() -> None:
    policy = PathPolicy(allow=["metadata.annotations.team"])
    empty: dict[str, Any] = {"spec": {}}
    assert policy.problems(empty, upsert("metadata.annotations", {"team": "ml"})(empty)) == []
    found = policy.problems(empty, upsert("metadata.annotations", {"team": "ml", "x": "1"})(empty))
    assert [p.path for p in found] == ["metadata.annotations.x"]


def test_allow_and_deny_together() -> None:
    policy = PathPolicy(allow=["spec.containers[*]"], deny=["spec.containers[*].securityContext"])
    assert _paths(policy, upsert("spec.containers[name=trainer].securityContext.runAsUser", 0)) == [
        ("spec.containers[name=trainer].securityContext.runAsUser", "deny")
    ]
    assert _paths(policy, upsert("spec.containers[name=trainer].image", "t:2")) == []


def test_no_change_no_problem() -> None:
    policy = PathPolicy(allow=["spec.nodeSelector"], deny=["spec"])
    assert policy.problems(POD, POD) == []
    assert _paths(policy, replace_at("spec.tolerations", [{"key": "a"}])) == []


def test_check_raises_with_every_problem() -> None:
    policy = PathPolicy(deny=["spec.hostPID", "spec.hostIPC"])
    policy.check(POD, upsert("spec.nodeSelector", {"a": "b"})(POD))
    with pytest.raises(PolicyError) as caught:
        policy.check(POD, upsert("spec", {"hostPID": True, "hostIPC": True})(POD))
    assert [p.path for p in caught.value.problems] == ["spec.hostPID", "spec.hostIPC"]
    assert isinstance(caught.value, ValueError)


def test_a_bad_path_names_the_argument() -> None:
    with pytest.raises(ArgumentError) as caught:
        PathPolicy(deny=["spec.containers[name="])
    assert caught.value.argument == "deny" and caught.value.factory == "PathPolicy"


def test_policies_are_values() -> None:
    assert PathPolicy(deny=["spec.hostPID"]) == PathPolicy(deny=("spec.hostPID",))
    assert hash(PathPolicy(allow=["a"])) == hash(PathPolicy(allow=("a",)))
    assert PathPolicy(deny=["a"]) != PathPolicy(allow=["a"])
