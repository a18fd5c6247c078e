"""Strategic merge patch: the case table, kubectl's agreement with it, and laws.

Each case in ``kubectl_cases/strategic.yaml`` is checked twice: podfold gives
``expected``, and ``kubectl patch --local --type strategic`` gives the very
same document, list order included (kubectl adds nothing to a local patch's
output, so nothing is normalised). Cases marked ``kubectl: differs`` or
``kubectl: error`` pin down podfold's documented differences instead.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from combinators import compose
from tests.kubectl import kubectl_patch, needs_kubectl
from transforms.forms.patches import InvalidPatchError, strategic_merge

TABLE = yaml.load(  # libyaml where PyYAML has it: the table is read as each worker collects
    (Path(__file__).parent / "kubectl_cases" / "strategic.yaml").read_text(),
    getattr(yaml, "CSafeLoader", yaml.SafeLoader),
)
CASES = TABLE["cases"]


def base_of(case: dict[str, Any]) -> Any:
    base = case["base"]
    return copy.deepcopy(TABLE["bases"][base] if isinstance(base, str) else base)


def wrap(kind: str, base: Any, patch: Any) -> tuple[Any, Any, str]:
    """A whole object kubectl can patch locally, the patch for it, and where the part is."""
    if kind == "PodSpec":
        return (
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": base},
            {"spec": patch},
            "spec",
        )
    if kind == "PodTemplateSpec":
        return (
            {
                "apiVersion": "v1",
                "kind": "PodTemplate",
                "metadata": {"name": "t"},
                "template": base,
            },
            {"template": patch},
            "template",
        )
    return base, patch, ""


def kubectl_result(case: dict[str, Any]) -> tuple[int, Any]:
    kind = case.get("kind", "Pod")
    obj, patch, part = wrap(kind, base_of(case), case["patch"])
    code, out = kubectl_patch(obj, patch, "strategic")
    return code, (out[part] if code == 0 and part else out)


def test_the_table_is_large_enough() -> None:
    assert len(CASES) >= 30
    assert len({case["name"] for case in CASES}) == len(CASES)
    assert all(case["rule"] for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_case(case: dict[str, Any]) -> None:
    base = base_of(case)
    before = copy.deepcopy(base)
    result = strategic_merge(case["patch"], kind=case.get("kind", "Pod"))(base)
    assert result == case["expected"]
    assert base == before


@needs_kubectl
@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_kubectl_gives_the_expected_result(case: dict[str, Any]) -> None:
    code, out = kubectl_result(case)
    mark = case.get("kubectl", "agrees")
    if mark == "agrees":
        assert code == 0, out
        assert out == case["expected"]
    elif mark == "differs":
        assert code == 0, out
        assert out == case["kubectl_expected"]
        assert out != case["expected"]
    else:
        assert mark == "error"
        assert code != 0


def ports(doc: Any) -> list[Any]:
    return next(c for c in doc["spec"]["containers"] if c["name"] == "trainer")["ports"]


def test_ports_merge_on_port_and_protocol_unlike_kubectl() -> None:
    """The documented difference: a UDP port does not overwrite the TCP port with its number."""
    case = next(case for case in CASES if case["name"] == "ports_composite_key")
    ours = strategic_merge(case["patch"])(base_of(case))
    assert ports(ours) == [
        {"containerPort": 29500, "protocol": "UDP", "name": "dns"},
        {"containerPort": 29500, "protocol": "TCP", "name": "c10d"},
    ]
    assert ports(case["kubectl_expected"]) == [
        {"containerPort": 29500, "protocol": "UDP", "name": "dns"}
    ]


def test_no_op_returns_the_same_pod() -> None:
    case = next(case for case in CASES if case["name"] == "no_op_patch")
    pod = base_of(case)
    assert strategic_merge(case["patch"])(pod) is pod
    assert strategic_merge({})(pod) is pod


def test_only_changed_paths_are_copied() -> None:
    pod = base_of(CASES[0])
    new = strategic_merge({"spec": {"containers": [{"name": "sidecar", "image": "envoy:2"}]}})(pod)
    assert new["metadata"] is pod["metadata"]
    assert new["spec"]["volumes"] is pod["spec"]["volumes"]
    assert new["spec"]["containers"][0] is pod["spec"]["containers"][0]


def test_value_semantics() -> None:
    patch = {"spec": {"containers": [{"name": "c"}]}}
    assert strategic_merge(patch) == strategic_merge(copy.deepcopy(patch))
    assert hash(strategic_merge(patch)) == hash(strategic_merge(copy.deepcopy(patch)))
    assert strategic_merge(patch) != strategic_merge(patch, kind="PodSpec")
    assert repr(strategic_merge({"a": 1})) == "strategic_merge({'a': 1})"
    assert (
        repr(strategic_merge({"a": 1}, kind="PodSpec"))
        == "strategic_merge({'a': 1}, kind='PodSpec')"
    )


def test_composes_with_combinators() -> None:
    overlay = compose(
        strategic_merge({"metadata": {"labels": {"b": "2"}}}),
        strategic_merge({"metadata": {"labels": {"a": "1"}}}),
    )
    assert overlay({"metadata": {}}) == {"metadata": {"labels": {"a": "1", "b": "2"}}}


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"spec": {"$patch": "merg"}}, "directives are"),
        ({"spec": {"$retainKeys": "name"}}, "must be a list"),
        ({"spec": {"$frobnicate": 1}}, "unknown directive"),
    ],
)
def test_malformed_patches_are_rejected_when_built(patch: Any, message: str) -> None:
    with pytest.raises(InvalidPatchError, match=message):
        strategic_merge(patch)


def test_unknown_kind_is_rejected() -> None:
    with pytest.raises(InvalidPatchError, match="kinds are: Pod, PodSpec, PodTemplateSpec"):
        strategic_merge({}, kind="Deployment")


def test_missing_merge_key_is_rejected_when_built() -> None:
    with pytest.raises(
        InvalidPatchError,
        match=r"an element of Pod.spec.containers\[name=c\]"
        r".env has no merge key 'name'",
    ):
        strategic_merge({"spec": {"containers": [{"name": "c", "env": [{"value": "x"}]}]}})
    with pytest.raises(InvalidPatchError, match=r"PodSpec\.volumes has no merge key 'name'"):
        strategic_merge({"volumes": [{"$patch": "delete"}]}, kind="PodSpec")
    strategic_merge({"spec": {"containers": [{"$patch": "replace"}, {"$patch": "merge"}]}})


def test_retain_keys_must_cover_the_patch() -> None:
    with pytest.raises(InvalidPatchError, match="not listed in \\$retainKeys"):
        strategic_merge(
            {"spec": {"volumes": [{"name": "v", "$retainKeys": ["name"], "emptyDir": {}}]}}
        )({"spec": {"volumes": [{"name": "v", "hostPath": {"path": "/"}}]}})


def test_persistent_pods_are_accepted() -> None:
    from pyrsistent import freeze, thaw

    pod = freeze({"spec": {"containers": [{"name": "a", "image": "a"}]}})
    new = strategic_merge({"spec": {"containers": [{"name": "b", "image": "b"}]}})(pod)
    assert thaw(new) == {
        "spec": {"containers": [{"name": "b", "image": "b"}, {"name": "a", "image": "a"}]}
    }
    assert strategic_merge({"spec": {"containers": [{"name": "a"}]}})(pod) is pod


# --- laws ---------------------------------------------------------------------------------

NAMES = st.sampled_from(["a", "b", "c", "d"])
env_lists = st.lists(
    st.fixed_dictionaries({"name": NAMES, "value": NAMES}),
    max_size=4,
    unique_by=lambda item: item["name"],
)
containers = st.lists(
    st.fixed_dictionaries({"name": NAMES, "image": NAMES, "env": env_lists}),
    min_size=1,
    max_size=3,
    unique_by=lambda item: item["name"],
)
finalizers = st.lists(NAMES, max_size=4, unique=True)
pods = st.builds(
    lambda cs, fs: {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "finalizers": fs},
        "spec": {"containers": cs},
    },
    containers,
    finalizers,
)
deletions = st.lists(
    st.fixed_dictionaries({"name": NAMES, "$patch": st.just("delete")}), max_size=1
)
patch_envs = st.builds(lambda keep, gone: keep + gone, env_lists, deletions)
patch_containers = st.lists(
    st.fixed_dictionaries({"name": NAMES}, optional={"image": NAMES, "env": patch_envs}),
    max_size=3,
    unique_by=lambda item: item["name"],
)


def element_order(draw: st.DrawFn, named: list[Any], extra: list[Any]) -> list[Any]:
    """A random order of ``named`` and ``extra`` that keeps ``named``'s relative order."""
    slots = draw(st.permutations([*named, *[x for x in extra if x not in named]]))
    queue = iter(named)
    return [next(queue) if item in named else item for item in slots]


@st.composite
def patches(draw: st.DrawFn) -> Any:
    containers = draw(patch_containers)
    names = draw(finalizers)
    metadata: dict[str, Any] = {"finalizers": names}
    spec: dict[str, Any] = {"containers": containers}
    if draw(st.booleans()):
        metadata["$deleteFromPrimitiveList/finalizers"] = draw(
            st.lists(NAMES, max_size=2, unique=True).filter(lambda gone: not set(gone) & set(names))
        )
    if draw(st.booleans()):
        metadata["$setElementOrder/finalizers"] = element_order(draw, names, ["a", "b", "c", "d"])
    if draw(st.booleans()):
        named = [{"name": c["name"]} for c in containers]
        spec["$setElementOrder/containers"] = element_order(
            draw, named, [{"name": name} for name in draw(st.lists(NAMES, unique=True))]
        )
    return {"metadata": metadata, "spec": spec}


@given(pods, patches())
def test_law_inputs_are_unmodified(pod: Any, patch: Any) -> None:
    pod_before, patch_before = copy.deepcopy(pod), copy.deepcopy(patch)
    overlay = strategic_merge(patch)
    overlay(pod)
    assert pod == pod_before
    assert patch == patch_before


@given(pods)
def test_law_restating_the_pod_is_a_no_op(pod: Any) -> None:
    restated = {
        "metadata": {"finalizers": list(pod["metadata"]["finalizers"])},
        "spec": {
            "containers": [
                {"name": c["name"], "image": c["image"]} for c in pod["spec"]["containers"]
            ]
        },
    }
    assert strategic_merge(copy.deepcopy(restated))(pod) is pod


@needs_kubectl
@settings(
    max_examples=settings.default.max_examples * 4 // 5,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(pods, patches())
def test_law_agrees_with_kubectl_on_generated_patches(pod: Any, patch: Any) -> None:
    """Merge order, set merges, delete and order directives, on random pods and patches.

    A directive inside a container the pod does not have is a documented difference
    (kubectl keeps it verbatim), so such patches are left out.
    """
    present = {container["name"] for container in pod["spec"]["containers"]}
    assume(
        all(
            c["name"] in present or all("$patch" not in e for e in c.get("env", []))
            for c in patch["spec"]["containers"]
        )
    )
    code, out = kubectl_patch(pod, patch, "strategic")
    # kubectl fails on $setElementOrder for a list that is empty in both pod and patch;
    # podfold leaves the list as it is
    assume(code == 0 or "no elements in any of the given slices" not in out)
    assert code == 0, out
    assert strategic_merge(patch)(pod) == out


@given(pods, patches(), patches())
def test_law_chained_patches_equal_patches_applied_one_by_one(
    pod: Any, first: Any, second: Any
) -> None:
    """In one chain later steps may edit in place what earlier steps created, never the input."""
    from combinators import chain
    from transforms.forms.patches import json_patch, merge_patch

    before = copy.deepcopy(pod)
    steps = [
        strategic_merge(first),
        merge_patch({"metadata": {"labels": {"x": "1"}}}),
        json_patch([{"op": "add", "path": "/metadata/labels/y", "value": "2"}]),
        strategic_merge(second),
    ]
    expected = pod
    for step in steps:
        expected = step(expected)
    assert chain(*steps)(pod) == expected
    assert pod == before


@pytest.mark.parametrize("retain", [[[]], [{}], [1], ["a", None]])
def test_retain_keys_lists_field_names_only(retain: list[Any]) -> None:
    # found by the fuzz test: a list in $retainKeys used to escape as a bare TypeError
    with pytest.raises(InvalidPatchError, match=r"\$retainKeys at .* lists field names, got"):
        strategic_merge({"spec": {"$retainKeys": retain}})({"spec": {}})
