"""Conflicts between the steps of a fold: what counts, what does not, and the two modes."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from kubernetes import client

from combinators import (
    MISSING,
    ArgumentError,
    ArgumentTypeError,
    PathError,
    append_at,
    chain,
    fold,
    merge_by,
    prepend_at,
    remove_at,
    replace_at,
    upsert,
)
from combinators.conflicts import ConflictError, ConflictWarning, checked_fold

POD: dict[str, Any] = {
    "spec": {
        "containers": [{"name": "trainer", "image": "t:1"}],
        "tolerations": [{"key": "base"}],
        "hostIPC": False,
    }
}


def _found(steps: list[Any], doc: Any = None) -> list[tuple[str, str, str, Any, Any]]:
    doc = POD if doc is None else doc
    labels = [f"s{number}" for number in range(1, len(steps) + 1)]
    try:
        result = checked_fold(steps, doc, mode="error", labels=labels)
    except ConflictError as err:
        return [
            (str(c.path), c.first, c.second, c.first_value, c.second_value) for c in err.conflicts
        ]
    assert result == fold(steps, doc)
    return []


# conflicts
def test_two_steps_set_different_scalars() -> None:
    assert _found(
        [upsert("spec.nodeSelector", {"gpu": "a100"}), upsert("spec.nodeSelector", {"gpu": "h100"})]
    ) == [("spec.nodeSelector.gpu", "s1", "s2", "a100", "h100")]


def test_a_step_replaces_a_map_another_wrote() -> None:
    assert _found(
        [
            upsert("spec.nodeSelector", {"gpu": "a100", "zone": "a"}),
            replace_at("spec.nodeSelector", {"zone": "a"}),
        ]
    ) == [("spec.nodeSelector.gpu", "s1", "s2", "a100", MISSING)]


def test_a_step_replaces_a_list_another_wrote() -> None:
    assert _found(
        [
            replace_at("spec.containers[name=trainer].args", ["--a"]),
            replace_at("spec.containers[name=trainer].args", ["--b"]),
        ]
    ) == [("spec.containers[name=trainer].args[0]", "s1", "s2", "--a", "--b")]


def test_a_step_removes_what_another_wrote() -> None:
    assert _found(
        [upsert("spec.runtimeClassName", "nvidia"), remove_at("spec.runtimeClassName")]
    ) == [("spec.runtimeClassName", "s1", "s2", "nvidia", MISSING)]


def test_a_step_sets_again_what_another_removed() -> None:
    assert _found([remove_at("spec.hostIPC"), upsert("spec.hostIPC", True)]) == [
        ("spec.hostIPC", "s1", "s2", MISSING, True)
    ]


def test_a_step_changes_an_element_another_appended() -> None:
    assert _found(
        [
            append_at("spec.tolerations", {"key": "gpu", "effect": "NoSchedule"}),
            upsert("spec.tolerations[1].effect", "NoExecute"),
        ]
    ) == [("spec.tolerations[1].effect", "s1", "s2", "NoSchedule", "NoExecute")]


def test_a_conflict_after_elements_moved() -> None:
    # step 2 prepends, so what step 1 appended moves from index 1 to 2
    assert _found(
        [
            append_at("spec.tolerations", {"key": "gpu", "value": "a"}),
            prepend_at("spec.tolerations", {"key": "first"}),
            upsert("spec.tolerations[2].value", "b"),
        ]
    ) == [("spec.tolerations[2].value", "s1", "s3", "a", "b")]


def test_the_latest_writer_is_named() -> None:
    assert _found(
        [upsert("spec.priority", 1), upsert("spec.priority", 2), upsert("spec.priority", 3)]
    ) == [("spec.priority", "s1", "s2", 1, 2), ("spec.priority", "s2", "s3", 2, 3)]


# no conflicts
def test_the_same_value_again_is_no_conflict() -> None:
    assert (
        _found(
            [
                upsert("spec.nodeSelector", {"gpu": "a100"}),
                upsert("spec.nodeSelector", {"gpu": "a100"}),
            ]
        )
        == []
    )


def test_appending_to_a_list_another_step_created_is_no_conflict() -> None:
    assert (
        _found(
            [
                append_at("spec.containers[name=trainer].args", "--a"),
                append_at("spec.containers[name=trainer].args", "--b"),
                prepend_at("spec.containers[name=trainer].args", "--c"),
            ]
        )
        == []
    )


def test_adding_keys_to_a_map_another_step_created_is_no_conflict() -> None:
    assert (
        _found(
            [
                upsert("metadata.labels", {"team": "ml"}),
                upsert("metadata.labels", {"queue": "gpu"}),
                merge_by("spec.containers[name=trainer].env", [{"name": "A", "value": "1"}]),
                merge_by("spec.containers[name=trainer].env", [{"name": "B", "value": "2"}]),
            ]
        )
        == []
    )


def test_overriding_the_documents_own_values_is_no_conflict() -> None:
    assert (
        _found(
            [
                upsert("spec.hostIPC", True),
                upsert("spec.containers[name=trainer].image", "t:2"),
                remove_at("spec.tolerations[key=base]"),
            ]
        )
        == []
    )


def test_steps_writing_apart_are_no_conflict() -> None:
    assert (
        _found(
            [
                upsert("spec.containers[name=trainer].image", "t:2"),
                append_at("spec.containers", {"name": "sidecar", "image": "s:1"}),
                upsert("spec.containers[name=sidecar].env", [{"name": "X", "value": "1"}]),
            ]
        )
        == []
    )


# modes, labels and errors
def test_error_lists_every_conflict_with_labels() -> None:
    with pytest.raises(ConflictError) as caught:
        checked_fold(
            [
                upsert("spec.hostIPC", True),
                upsert("spec.priority", 1),
                upsert("spec.hostIPC", False),
                upsert("spec.priority", 2),
            ],
            POD,
            mode="error",
            labels=["a100.yaml:3", "a100.yaml:4", "recipe gpu step 2", "debug.yaml:1"],
        )
    text = str(caught.value)
    assert text.splitlines() == [
        "2 conflicts between steps:",
        "  spec.hostIPC: a100.yaml:3 wrote True, then recipe gpu step 2 wrote False",
        "  spec.priority: a100.yaml:4 wrote 1, then debug.yaml:1 wrote 2",
    ]
    assert isinstance(caught.value, ValueError)


def test_warn_emits_one_warning_per_conflict_and_returns_the_fold() -> None:
    steps = [
        upsert("spec.hostIPC", True),
        upsert("spec.priority", 1),
        upsert("spec.hostIPC", False),
        upsert("spec.priority", 2),
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = checked_fold(steps, POD, mode="warn")
    assert result == fold(steps, POD)
    assert [w.category for w in caught] == [ConflictWarning, ConflictWarning]
    assert caught[0].message.conflict.path.parts[-1].name == "hostIPC"  # type: ignore[union-attr]
    assert "step 1 (upsert('spec.hostIPC', True))" in str(caught[0].message)


def test_fold_warns_at_the_line_that_called_it() -> None:
    # not inside podfold: the user's line is what Python prints with the warning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fold([upsert("spec.hostIPC", True), upsert("spec.hostIPC", False)], POD, conflicts="warn")
    [warning] = caught
    assert warning.filename == __file__


def test_fold_names_itself_for_labels_that_do_not_fit() -> None:
    with pytest.raises(ArgumentError, match=r"^fold\(\): labels: 1 labels for 2 steps"):
        fold([upsert("a", 1), upsert("a", 2)], POD, conflicts="error", labels=["one"])


def test_the_input_is_left_as_it_was() -> None:
    text = repr(POD)
    checked_fold([upsert("spec.hostIPC", True), remove_at("spec.tolerations")], POD, mode="error")
    assert repr(POD) == text


def test_client_objects_come_back_as_client_objects() -> None:
    pod = client.V1Pod(spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="x")]))
    with pytest.raises(ConflictError):
        checked_fold(
            [upsert("spec.hostPID", True), upsert("spec.hostPID", False)], pod, mode="error"
        )
    result = checked_fold([upsert("spec.hostPID", True)], pod, mode="error")
    assert isinstance(result, client.V1Pod) and result.spec.host_pid is True


def test_a_failing_step_is_named_by_its_label() -> None:
    with pytest.raises(PathError) as caught:
        checked_fold(
            [
                upsert("spec.hostIPC", True),
                remove_at("spec.containers[name=nope]", missing_ok=False),
            ],
            POD,
            mode="error",
            labels=["one.yaml:1", "two.yaml:7"],
        )
    assert "step 2 of 2: two.yaml:7" in str(caught.value)


def test_a_composed_step_is_one_step() -> None:
    # what one labelled overlay does to itself is no conflict
    assert _found([chain(upsert("spec.priority", 1), upsert("spec.priority", 2))]) == []


@pytest.mark.parametrize("mode", ["errors", "last-wins", "Warn"])
def test_unknown_mode(mode: str) -> None:
    with pytest.raises(ArgumentError) as caught:
        checked_fold([], POD, mode=mode)
    assert caught.value.argument == "mode"


def test_labels_one_per_step() -> None:
    with pytest.raises(ArgumentError) as caught:
        checked_fold([upsert("a", 1)], POD, mode="error", labels=["x", "y"])
    assert caught.value.argument == "labels"
    with pytest.raises(ArgumentTypeError):
        checked_fold([upsert("a", 1)], POD, mode="error", labels="x")


def test_fold_takes_the_option() -> None:
    steps = [upsert("spec.hostIPC", True), upsert("spec.hostIPC", False)]
    assert fold(steps, POD) == fold(steps, POD, conflicts="last-wins")
    with pytest.raises(ConflictError):
        fold(steps, POD, conflicts="error")


def _calls(run: Any) -> int:
    """How many Python functions and builtins ``run()`` calls: its work, counted."""
    import sys

    count = 0

    def tally(frame: Any, event: str, arg: object) -> None:
        nonlocal count
        count += event in ("call", "c_call")

    sys.setprofile(tally)
    try:
        run()
    finally:
        sys.setprofile(None)
    return count


def test_finding_the_conflicts_of_every_container_grows_with_the_pod() -> None:
    # each write of the second step looked through every write the first recorded: n²
    from combinators import for_each

    steps = [
        for_each("spec.containers[*]", upsert("imagePullPolicy", "Always")),
        for_each("spec.containers[*]", upsert("imagePullPolicy", "Never")),
    ]

    def case(n: int) -> Any:
        pod = {"spec": {"containers": [{"name": f"c{i}", "image": "t:1"} for i in range(n)]}}

        def run() -> None:
            with pytest.raises(ConflictError) as caught:
                checked_fold(steps, pod, mode="error")
            assert len(caught.value.conflicts) == n

        return run

    case(5)()
    small, large = _calls(case(300)), _calls(case(1200))
    assert large <= 6 * small, f"{large / small:.1f}x the calls for 4x the containers"
