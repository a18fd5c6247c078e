"""The testing kit can fail: every assertion catches the wrong overlay it is there for, naming
the path; every strategy finds a deliberately broken function within its example budget; every
fixture gives a pod on which a wrong overlay shows.

A helper that passes whatever it is given is worse than none: the user trusts it. Each test
below gives the helper something wrong and checks that it says so, and where.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

import recipes
from combinators import PathError, StepError, Transform, append_at, chain, remove_at, upsert, when
from combinators.data import strict_equal
from transforms.testing import (
    assert_changes,
    assert_idempotent,
    assert_pure,
    assert_valid_pod,
    changed_paths,
    changes,
    describe_difference,
)
from transforms.testing.pods import render_pods
from transforms.testing.strategies import (
    RECIPE_ARGUMENTS,
    combinator_steps,
    containers,
    dns_labels,
    env_names,
    label_keys,
    label_maps,
    pods,
    recipe_calls,
    tolerations,
    transforms,
    volumes,
)
from transforms.torchx.roles import with_overlays

# deterministic: a failure to find the bug is the same failure on every run; finding it is
# the point, so the first example found will do (shrinking large pods costs minutes)
must_find = settings(
    max_examples=settings.default.max_examples * 2,
    deadline=None,
    derandomize=True,
    database=None,
    report_multiple_bugs=False,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
)

POD: dict[str, Any] = {
    "metadata": {"labels": {"team": "ml"}},
    "spec": {
        "containers": [
            {
                "name": "trainer-0",
                "image": "ghcr.io/example/trainer:1.0",
                "env": [{"name": "LOGLEVEL", "value": "INFO"}],
            }
        ],
        "nodeSelector": {"pool": "a100"},
        "restartPolicy": "Never",
    },
}


def _fails(fn: Callable[..., Any], *args: Any) -> bool:
    """Whether ``fn(*args)`` raises what a function that assumes too much raises (in an
    overlay, as a :class:`StepError` naming it; a missing path as a ``LookupError``)."""
    try:
        fn(*args)
    except (LookupError, TypeError, ValueError, StepError):
        return True
    return False


def _message(caught: pytest.ExceptionInfo[BaseException]) -> str:
    return str(caught.value)


# --- assert_pure: a plain function is checked as written -----------------------------------------


def add_debug_env(pod: Any) -> Any:
    pod["spec"]["containers"][0].setdefault("env", []).append(
        {"name": "NCCL_DEBUG", "value": "INFO"}
    )
    return pod


def test_assert_pure_fails_on_a_function_that_appends_to_its_input(pod: dict[str, Any]) -> None:
    given_pod = copy.deepcopy(pod)
    with pytest.raises(AssertionError) as caught:
        assert_pure(add_debug_env, pod)
    message = _message(caught)
    assert message.startswith(
        "not pure: add_debug_env mutated its input at "
        "spec.containers[name=trainer-0].env[name=NCCL_DEBUG]: appended "
        "{'name': 'NCCL_DEBUG', 'value': 'INFO'}\n"
    ), message
    assert "+    - name: NCCL_DEBUG" in message  # the YAML diff of the input, before and after
    assert strict_equal(pod, given_pod)  # the check ran on a copy: the caller's pod is as it was


def _drop_selector(pod: Any) -> Any:
    del pod["spec"]["nodeSelector"]
    return pod


def _always_restart(pod: Any) -> Any:
    pod["spec"]["restartPolicy"] = "Always"
    return pod


def _edit_then_copy(pod: Any) -> Any:
    # edits the input, then hands back a copy: the output looks right, the input is wrong
    pod["metadata"]["labels"]["team"] = "vision"
    return copy.deepcopy(pod)


def _fresh_containers(pod: Any) -> Any:
    # an equal list, but a new one, put into the caller's pod
    pod["spec"]["containers"] = [dict(container) for container in pod["spec"]["containers"]]
    return pod


def _reorder_spec(pod: Any) -> Any:
    spec = pod["spec"]
    items = list(spec.items())
    spec.clear()
    spec.update(reversed(items))
    return {**pod}


@pytest.mark.parametrize(
    ("function", "said"),
    [
        (_drop_selector, "at spec.nodeSelector: removed {'pool': 'a100'}"),
        (_always_restart, "at spec.restartPolicy: changed 'Never' to 'Always'"),
        (_edit_then_copy, "at metadata.labels.team: changed 'ml' to 'vision'"),
        (_fresh_containers, "at spec.containers: replaced the list with an equal new one"),
        (
            _reorder_spec,
            "at spec: reordered the keys (containers, nodeSelector, restartPolicy -> "
            "restartPolicy, nodeSelector, containers)",
        ),
    ],
)
def test_assert_pure_says_where_and_how_the_input_was_edited(
    function: Callable[[Any], Any], said: str
) -> None:
    with pytest.raises(AssertionError) as caught:
        assert_pure(function, POD)
    first_line = _message(caught).splitlines()[0]
    assert first_line == f"not pure: {function.__name__} mutated its input {said}"


def test_a_function_editing_its_input_is_caught_inside_a_chain_and_a_list() -> None:
    for overlay in (
        chain(recipes.add_labels(team="ml"), add_debug_env),
        [{"spec": {"hostIPC": False}}, add_debug_env],
    ):
        with pytest.raises(
            AssertionError,
            match=r"^not pure: add_debug_env mutated its input "
            r"at spec\.containers\[name=trainer-0\]\.env",
        ):
            assert_pure(overlay, POD)


def test_the_fold_still_guards_the_caller_from_a_function_editing_its_input() -> None:
    # the fold's guard stays: applied as an overlay, the function gets a copy
    pod = copy.deepcopy(POD)
    out = chain(add_debug_env)(pod)
    assert [var["name"] for var in out["spec"]["containers"][0]["env"]] == [
        "LOGLEVEL",
        "NCCL_DEBUG",
    ]
    assert strict_equal(pod, POD)


def test_a_function_that_mutates_what_it_was_given_before_fails() -> None:
    given: list[Any] = []

    def remember(pod: Any) -> Any:
        for earlier in given:  # returns its argument, then edits it on the next call
            earlier["spec"]["hostIPC"] = True
        given.append(pod)
        return pod

    with pytest.raises(AssertionError) as caught:
        assert_pure(remember, POD)
    first_line = _message(caught).splitlines()[0]
    assert first_line.startswith("not pure: test_a_function_that_mutates_what_it_was_given")
    assert first_line.endswith(
        ".remember mutated, on its next call, the input of its "
        "previous call at spec.hostIPC: added True"
    )


_HANDED_OUT: list[Any] = []  # out of reach of the check of what a function holds


def _label_keeping_its_output(pod: Any) -> Any:
    for labels in _HANDED_OUT:
        labels["team"] = "changed"
    labels = {**pod["metadata"]["labels"], "owner": "me"}
    _HANDED_OUT.append(labels)
    return {**pod, "metadata": {**pod["metadata"], "labels": labels}}


def test_a_function_that_mutates_what_it_returned_before_fails() -> None:
    try:
        with pytest.raises(AssertionError) as caught:
            assert_pure(_label_keeping_its_output, POD)
    finally:
        _HANDED_OUT.clear()
    assert _message(caught).splitlines()[0] == (
        "not pure: _label_keeping_its_output mutated, on its next call, the output of its "
        "previous call at metadata.labels.team: changed 'ml' to 'changed'"
    )


def test_a_function_handing_out_what_it_holds_fails() -> None:
    labels = {"team": "ml"}

    def label(pod: Any) -> Any:
        return {**pod, "metadata": {**pod["metadata"], "labels": labels}}

    # the fold may copy what a function returns; the function, called elsewhere, does not
    with pytest.raises(
        AssertionError,
        match=r"^not pure: the output's metadata\.labels is the "
        r"very object held by .*label; changing the "
        r"output would change what it holds\n",
    ):
        assert_pure(label, POD)


class _Remember(Transform):
    """A hand-written transform that edits, on each application, the pod it was given before."""

    name = "remember"
    _given: list[Any]

    def __init__(self) -> None:
        self._init_params()
        object.__setattr__(self, "_given", [])

    def _apply(self, pod: Any, owned: Any) -> Any:
        for earlier in self._given:
            earlier["spec"]["hostIPC"] = True
        self._given.append(pod)
        return pod


def test_a_transform_that_mutates_what_it_was_given_before_fails() -> None:
    with pytest.raises(AssertionError) as caught:
        assert_pure(_Remember(), copy.deepcopy(POD))
    message = _message(caught)
    assert message.startswith(
        "not pure: the transform changed, on its next application, the input of the previous one"
    ), message
    assert "spec.hostIPC: (absent) -> True" in message


def share_what_is_unchanged(pod: Any) -> Any:
    return {**pod, "spec": {**pod["spec"], "hostIPC": True}}


def test_a_result_sharing_unchanged_parts_with_the_input_is_pure() -> None:
    # structural sharing is what podfold's own transforms do: no failure for it
    out = assert_pure(share_what_is_unchanged, POD)
    assert out["spec"]["hostIPC"] is True and strict_equal(
        POD["spec"]["containers"], out["spec"]["containers"]
    )
    overlay = chain(
        upsert("spec.nodeSelector.zone", "b"), append_at("spec.tolerations", {"key": "gpu"})
    )
    shared = assert_pure(overlay, POD)
    assert shared["spec"]["containers"] is POD["spec"]["containers"]


# --- assert_idempotent --------------------------------------------------------------------------


class _AppendInPlace(Transform):
    name = "append_in_place"

    def __init__(self) -> None:
        self._init_params()

    def _apply(self, pod: Any, owned: Any) -> Any:
        pod["spec"].setdefault("tolerations", []).append({"key": "gpu"})
        return pod


def test_assert_idempotent_fails_on_a_transform_appending_in_place() -> None:
    # once and twice are the very same object: comparing them proved nothing
    with pytest.raises(AssertionError) as caught:
        assert_idempotent(_AppendInPlace(), copy.deepcopy(POD))
    message = _message(caught)
    assert message.startswith("not idempotent"), message
    assert "spec.tolerations[1]: (absent) -> {'key': 'gpu'}" in message


def _append_toleration(pod: Any) -> Any:
    spec = pod["spec"]
    return {
        **pod,
        "spec": {
            **spec,
            "tolerations": [*spec.get("tolerations", []), {"key": "gpu", "operator": "Exists"}],
        },
    }


def test_assert_idempotent_fails_on_a_function_appending_each_time() -> None:
    with pytest.raises(AssertionError) as caught:
        assert_idempotent(_append_toleration, POD)
    assert "spec.tolerations[1]: (absent) -> {'key': 'gpu', 'operator': 'Exists'}" in _message(
        caught
    )


# --- assert_valid_pod ---------------------------------------------------------------------------


def _mount_without_volume(pod: Any) -> Any:
    return append_at("spec.containers[0].volumeMounts", {"name": "data", "mountPath": "/data"})(pod)


def _strip_gpu_limit(pod: Any) -> Any:
    return remove_at('spec.containers[0].resources.limits["nvidia.com/gpu"]')(pod)


@pytest.mark.parametrize(
    ("overlay", "said"),
    [
        (upsert("spec.hostIPC", "yes"), "spec.hostIPC: expected boolean, found string 'yes'"),
        (
            _mount_without_volume,
            "spec.containers[name=trainer-0].volumeMounts[name=data].name: no volume named 'data'",
        ),
        (
            append_at("spec.containers", {"name": "trainer-0", "image": "busybox:1.36"}),
            "spec.containers[1].name: duplicate container name 'trainer-0'",
        ),
        (
            _strip_gpu_limit,
            'spec.containers[name=trainer-0].resources.requests["nvidia.com/gpu"]: '
            "request 1 for nvidia.com/gpu needs a limit",
        ),
        (
            upsert("spec.containers[0].resources.requests.cpu", "lots"),
            "spec.containers[name=trainer-0].resources.requests.cpu: 'lots' is not a quantity",
        ),
        (
            upsert("metadata.labels.team", 7),
            "metadata.labels.team: expected string, found integer 7",
        ),
        (lambda pod: {"metadata": pod["metadata"]}, "spec: a pod needs a spec"),
    ],
)
def test_assert_valid_pod_fails_on_what_a_wrong_overlay_wrote(
    pod: dict[str, Any], overlay: Callable[[Any], Any], said: str
) -> None:
    assert_valid_pod(pod)
    with pytest.raises(AssertionError) as caught:
        assert_valid_pod(overlay(pod))
    assert said in _message(caught)


# --- assert_changes, changed_paths, changes ------------------------------------------------------


class _HostIPCInPlace(Transform):
    name = "host_ipc_in_place"

    def __init__(self) -> None:
        self._init_params()

    def _apply(self, pod: Any, owned: Any) -> Any:
        pod["spec"]["hostIPC"] = True
        return pod


def test_assert_changes_sees_a_transform_writing_in_place() -> None:
    # output and input are one object: a diff between them showed nothing at all
    with pytest.raises(AssertionError) as caught:
        assert_changes(_HostIPCInPlace(), copy.deepcopy(POD), only=["metadata"], nothing_ok=True)
    assert _message(caught).startswith(
        "changes outside metadata:\n  spec.hostIPC: (absent) -> True\n"
    )
    assert assert_changes(_HostIPCInPlace(), copy.deepcopy(POD), only="spec.hostIPC") == [
        "spec.hostIPC"
    ]


def _keep_only_the_main_container(pod: Any) -> Any:
    main = pod["spec"]["containers"][0]
    env = [*main.get("env", []), {"name": "X", "value": "1"}]
    return {**pod, "spec": {**pod["spec"], "containers": [{**main, "env": env}]}}


def test_assert_changes_fails_on_a_container_dropped_by_a_whole_list_write() -> None:
    with_proxy = recipes.sidecar("proxy", "envoyproxy/envoy:v1.30")(POD)
    with pytest.raises(AssertionError) as caught:
        assert_changes(_keep_only_the_main_container, with_proxy, only="spec.containers[0].env")
    assert _message(caught).startswith(
        "changes outside spec.containers[0].env:\n  spec.containers[name=proxy]: {'name': 'proxy'"
    )


def test_assert_changes_fails_on_a_change_of_kind_only() -> None:
    # 30 -> 30.0 compares equal in Python; the YAML written and the schema say otherwise
    pod = upsert("spec.terminationGracePeriodSeconds", 30)(POD)
    overlay = upsert("spec.terminationGracePeriodSeconds", 30.0)
    with pytest.raises(AssertionError) as caught:
        assert_changes(overlay, pod, only=["metadata"])
    assert "spec.terminationGracePeriodSeconds: 30 -> 30.0" in _message(caught)
    assert changed_paths(overlay, pod) == ["spec.terminationGracePeriodSeconds"]


def test_assert_changes_fails_on_an_overlay_whose_selector_matches_nothing(
    pod: dict[str, Any],
) -> None:
    # the GPU key written as a dotted path: limits.nvidia.com.gpu, so the test never holds
    wrong = when(
        "spec.containers[0].resources.limits.nvidia.com/gpu",
        append_at("spec.tolerations", {"key": "nvidia.com/gpu", "operator": "Exists"}),
    )
    right = when(
        'spec.containers[0].resources.limits["nvidia.com/gpu"]',
        append_at("spec.tolerations", {"key": "nvidia.com/gpu", "operator": "Exists"}),
    )
    assert assert_changes(right, pod, only="spec.tolerations") == ["spec.tolerations"]
    with pytest.raises(AssertionError, match="changed nothing"):
        assert_changes(wrong, pod, only="spec.tolerations")


@pytest.mark.xfail(
    strict=True,
    reason="transforms.analysis.footprint.changes diffs the "
    "output against the input, which a transform writing in place has changed",
)
def test_changed_paths_and_changes_see_a_transform_writing_in_place() -> None:
    assert changed_paths(_HostIPCInPlace(), copy.deepcopy(POD)) == ["spec.hostIPC"]
    assert [str(change.path) for change in changes(_HostIPCInPlace(), copy.deepcopy(POD))] == [
        "spec.hostIPC"
    ]


def test_describe_difference_shows_changes_of_kind_and_of_null() -> None:
    kind = describe_difference({"spec": {"hostIPC": 1}}, {"spec": {"hostIPC": True}})
    assert kind.startswith("1 change:\n  spec.hostIPC: 1 -> True\n")
    null = describe_difference({"spec": {"hostIPC": None}}, {"spec": {}})
    assert null.startswith("1 change:\n  spec.hostIPC: None -> (absent)\n")


# --- the strategies: each finds a broken function within its budget ------------------------------

_SHELL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def test_dns_labels_find_the_name_a_naive_env_name_breaks_on() -> None:
    # broken: a container's name upper-cased as its address variable keeps the hyphen
    def address_variable(name: str) -> str:
        return f"{name.upper()}_SERVICE_HOST"

    found = find(
        dns_labels,
        lambda name: not _SHELL_NAME.fullmatch(address_variable(name)),
        settings=must_find,
    )
    assert "-" in found


def test_env_names_find_the_name_a_naive_check_refuses() -> None:
    # broken: takes a leading underscore for an invalid name
    def is_env_name(name: str) -> bool:
        return name[:1].isalpha() and _SHELL_NAME.fullmatch(name) is not None

    assert find(env_names, lambda name: not is_env_name(name), settings=must_find).startswith("_")


def test_label_keys_find_the_prefixed_key_a_naive_check_refuses() -> None:
    # broken: a label key checked as a name alone, refusing a prefix (example.com/pool)
    def is_label_key(key: str) -> bool:
        return re.fullmatch(r"[a-z0-9]([a-z0-9._-]*[a-z0-9])?", key) is not None

    assert "/" in find(label_keys, lambda key: not is_label_key(key), settings=must_find)


def test_label_maps_find_the_empty_value_a_truthiness_test_misses() -> None:
    # broken: "has the label" as "the label's value is truthy"; "" is a valid label value
    def has_label(labels: dict[str, str], key: str) -> bool:
        return bool(labels.get(key))

    found = find(
        label_maps(min_size=1),
        lambda labels: not all(has_label(labels, key) for key in labels),
        settings=must_find,
    )
    assert "" in found.values()


def _tolerates(toleration: dict[str, Any], taint: dict[str, Any]) -> bool:
    """Kubernetes' Toleration.ToleratesTaint (k8s.io/api core/v1 toleration.go)."""
    if toleration.get("effect") and toleration["effect"] != taint["effect"]:
        return False
    if toleration.get("key") and toleration["key"] != taint["key"]:
        return False
    operator = toleration.get("operator", "Equal") or "Equal"
    if operator == "Equal":
        return bool(toleration.get("value", "") == taint.get("value", ""))
    return operator == "Exists"


def _ignores_exists(toleration: dict[str, Any], taint: dict[str, Any]) -> bool:
    return bool(
        toleration["key"] == taint["key"]
        and toleration.get("value", "") == taint.get("value", "")
        and toleration.get("effect", taint["effect"]) == taint["effect"]
    )


def _needs_an_effect(toleration: dict[str, Any], taint: dict[str, Any]) -> bool:
    return bool(toleration["effect"] == taint["effect"] and _tolerates(toleration, taint))


def _needs_a_key(toleration: dict[str, Any], taint: dict[str, Any]) -> bool:
    return bool(toleration["key"] == taint["key"] and _tolerates({**toleration, "key": ""}, taint))


def _needs_an_operator(toleration: dict[str, Any], taint: dict[str, Any]) -> bool:
    # the operator is optional: it defaults to Equal
    return toleration["operator"] in ("Equal", "Exists") and _tolerates(toleration, taint)


@pytest.mark.parametrize(
    "broken", [_ignores_exists, _needs_an_effect, _needs_a_key, _needs_an_operator]
)
def test_tolerations_find_a_naive_toleration_match_wrong(
    broken: Callable[[dict[str, Any], dict[str, Any]], bool],
) -> None:
    # the taint is on the toleration's own key, so matching by key alone gets nowhere
    cases = st.tuples(
        tolerations(),
        st.sampled_from(["NoSchedule", "NoExecute"]),
        st.sampled_from(["", "a", "gpu"]),
    )

    def wrong(case: tuple[dict[str, Any], str, str]) -> bool:
        toleration, effect, value = case
        taint = {"key": toleration.get("key", "example.com/any"), "value": value, "effect": effect}
        try:
            return broken(toleration, taint) != _tolerates(toleration, taint)
        except KeyError:
            return True

    find(cases, wrong, settings=must_find)


def test_volumes_find_the_volume_a_claims_only_function_breaks_on() -> None:
    # broken: every volume taken for a PersistentVolumeClaim
    def claim_names(pod_volumes: list[dict[str, Any]]) -> list[str]:
        return [volume["persistentVolumeClaim"]["claimName"] for volume in pod_volumes]

    found = find(
        volumes(), lambda pod_volumes: _fails(claim_names, pod_volumes), settings=must_find
    )
    assert any("persistentVolumeClaim" not in volume for volume in found)


def _env_as_dict(container: dict[str, Any]) -> dict[str, str]:
    return {var["name"]: var["value"] for var in container.get("env", [])}


def _port_names(container: dict[str, Any]) -> list[str]:
    return [port["name"] for port in container.get("ports", [])]


def _memory_limit(container: dict[str, Any]) -> str:
    return str(container["resources"]["limits"]["memory"])


@pytest.mark.parametrize(
    ("broken", "shape"),
    [
        # env vars from a secret, a config map or a field, or without a value, have no "value"
        (_env_as_dict, lambda container: any("value" not in var for var in container["env"])),
        # a port's name is optional
        (_port_names, lambda container: any("name" not in port for port in container["ports"])),
        (
            _memory_limit,
            lambda container: "memory" not in container.get("resources", {}).get("limits", {}),
        ),
    ],
)
def test_containers_find_the_container_a_function_assuming_too_much_breaks_on(
    broken: Callable[[dict[str, Any]], Any], shape: Callable[[dict[str, Any]], bool]
) -> None:
    found = find(containers(), lambda container: _fails(broken, container), settings=must_find)
    assert shape(found)


def _main_is_trainer(pod: Any) -> Any:
    return upsert("spec.containers[name=trainer-0].workingDir", "/workspace")(pod)


def _one_container(pod: Any) -> Any:
    (main,) = pod["spec"]["containers"]
    return main


def _labels(pod: Any) -> Any:
    return pod["metadata"]["labels"]


def _every_toleration_keyed(pod: Any) -> Any:
    return sorted(pod["spec"].get("tolerations", []), key=lambda toleration: toleration["key"])


def _every_env_value(pod: Any) -> Any:
    return [_env_as_dict(container) for container in pod["spec"]["containers"]]


@pytest.mark.parametrize(
    "broken", [_main_is_trainer, _one_container, _labels, _every_toleration_keyed, _every_env_value]
)
def test_pods_find_the_pod_a_function_assuming_too_much_breaks_on(
    broken: Callable[[Any], Any],
) -> None:
    find(pods(), lambda pod: _fails(broken, pod), settings=must_find)


def _tolerate_in_place(pod: Any) -> Any:
    # edits the input only where it already has tolerations: most pods never show it
    for toleration in pod["spec"].get("tolerations", []):
        toleration.setdefault("effect", "NoSchedule")
    return pod


def test_pods_with_assert_pure_find_a_function_editing_some_inputs() -> None:
    @must_find
    @given(pods())
    def law(pod: dict[str, Any]) -> None:
        assert_pure(_tolerate_in_place, pod)

    with pytest.raises(AssertionError) as caught:
        law()
    assert re.match(
        r"not pure: _tolerate_in_place mutated its input at "
        r"spec\.tolerations\[\d\]\.effect: added 'NoSchedule'\n",
        _message(caught),
    )


def _only_a_cache_volume(pod: Any) -> Any:
    # broken: writes the volumes list instead of adding to it
    return upsert("spec.volumes", [{"name": "cache", "emptyDir": {}}])(pod)


def test_recipe_calls_find_the_recipe_whose_volume_an_overlay_drops() -> None:
    @must_find
    @given(recipe_calls())
    def law(recipe: Transform) -> None:
        assert_valid_pod(_only_a_cache_volume(recipe(POD)))

    with pytest.raises(
        AssertionError,
        match=r"volumeMounts\[name=[a-z-]+\]\.name: no volume "
        r"named",
    ):
        law()


@pytest.mark.parametrize("name", sorted(RECIPE_ARGUMENTS))
def test_each_recipes_arguments_vary_so_a_cache_by_name_is_found(name: str) -> None:
    # broken: a cache of outputs keyed by the recipe's name, blind to its arguments
    def cache_is_wrong(pair: tuple[Transform, Transform]) -> bool:
        cache: dict[str, Any] = {}
        for recipe in pair:
            cache.setdefault(recipe.name, recipe(POD))
        return not strict_equal(cache[name], pair[1](POD))

    first, second = find(
        st.tuples(RECIPE_ARGUMENTS[name], RECIPE_ARGUMENTS[name]),
        cache_is_wrong,
        settings=must_find,
    )
    assert first.name == second.name == name


def _selector_as_labels(pod: Any) -> Any:
    # broken: takes the node selector to be there
    labels = {**pod["metadata"].get("labels", {}), **pod["spec"]["nodeSelector"]}
    return {**pod, "metadata": {**pod["metadata"], "labels": labels}}


def test_combinator_steps_find_the_step_after_which_an_overlay_breaks() -> None:
    found = find(
        combinator_steps(),
        lambda step: _fails(chain(step, _selector_as_labels), POD),
        settings=must_find,
    )
    assert found == remove_at("spec.nodeSelector")


_DEDICATED = upsert(
    "spec.tolerations",
    [{"key": "dedicated", "operator": "Equal", "value": "ml", "effect": "NoSchedule"}],
)


def test_transforms_find_the_overlay_whose_tolerations_a_later_one_drops() -> None:
    @must_find
    @given(transforms())
    def law(other: Transform) -> None:
        before = other(POD)["spec"].get("tolerations", [])
        after = chain(other, _DEDICATED)(POD)["spec"]["tolerations"]
        assert all(toleration in after for toleration in before), (before, after)

    with pytest.raises(AssertionError):
        law()


# --- the fixtures: realistic enough that a wrong overlay shows ------------------------------------


def test_the_pod_fixture_has_the_gpu_a_mistyped_path_misses(pod: dict[str, Any]) -> None:
    wrong = when(
        "spec.containers[0].resources.limits.gpu",
        append_at("spec.tolerations", {"key": "nvidia.com/gpu", "operator": "Exists"}),
    )
    with pytest.raises(AssertionError, match="changed nothing"):
        assert_changes(wrong, pod, only="spec.tolerations")


def test_pod_factory_replicas_catch_an_overlay_naming_replica_zero(pod_factory: Any) -> None:
    hard_coded = upsert("spec.containers[name=trainer-0].workingDir", "/workspace")
    first, second = pod_factory(replicas=2)
    assert_changes(hard_coded, first, only="spec.containers[0].workingDir")
    with pytest.raises(
        PathError,
        match=r"no element \[name=trainer-0\].*did you mean "
        r"trainer-1",
    ):
        hard_coded(second)


def _gpu_toleration(pod: Any) -> Any:
    # broken: takes every role to have a GPU
    count = pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"]
    return upsert('metadata.annotations["example.com/gpus"]', count)(pod)


def test_torchx_app_roles_catch_an_overlay_assuming_a_gpu(torchx_app: Any) -> None:
    torchx_app.roles = [with_overlays(role, _gpu_toleration) for role in torchx_app.roles]
    with pytest.raises(
        ValueError,
        match=r"role 'ps', replica 0: _gpu_toleration raised "
        r"KeyError: 'nvidia.com/gpu'",
    ):
        render_pods(torchx_app)
