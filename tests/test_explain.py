"""explain: the changes a transform makes to a pod; describe: its plan in words."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from combinators import (
    MISSING,
    Path,
    Transform,
    append_at,
    chain,
    expect,
    for_each,
    identity,
    insert_at,
    merge_by,
    path,
    prepend_at,
    remove_at,
    replace_at,
    select,
    set_default,
    update_at,
    upsert,
    when,
)
from combinators.data import Owned
from transforms import (
    DEL,
    JOIN,
    PUT,
    Change,
    Default,
    Explanation,
    MergeBy,
    Remove,
    Replace,
    describe,
    explain,
    json_patch,
    loads_overlay,
    merge_patch,
    overlay,
    strategic_merge,
)
from transforms.analysis.explanation import _compare


def make_pod() -> dict[str, Any]:
    return {
        "metadata": {"name": "job-0", "labels": {"app": "job"}},
        "spec": {
            "containers": [
                {"name": "trainer", "image": "t:1", "env": [{"name": "A", "value": "1"}]},
                {"name": "sidecar", "image": "envoy"},
            ],
            "tolerations": [{"key": "a"}],
            "volumes": [{"name": "dshm", "emptyDir": {}}],
            "hostIPC": True,
        },
    }


def paths_of(explanation: Explanation) -> list[str]:
    return [str(change.path) for change in explanation.changes]


# ---------------------------------------------------------------- explain


def test_changes_name_list_elements_by_name() -> None:
    transform = chain(
        upsert("spec.containers[name=trainer].env[name=A].value", "2"),
        upsert("spec.containers[name=sidecar].image", "envoy:2"),
        remove_at("spec.volumes[name=dshm]"),
        merge_by("spec.containers[name=trainer].env", [{"name": "B", "value": "3"}]),
    )
    explanation = explain(transform, make_pod())
    assert explanation.changes == [
        Change(path("spec.containers[name=trainer].env[name=A].value"), "1", "2"),
        Change(
            path("spec.containers[name=trainer].env[name=B]"), MISSING, {"name": "B", "value": "3"}
        ),
        Change(path("spec.containers[name=sidecar].image"), "envoy", "envoy:2"),
        Change(path("spec.volumes[name=dshm]"), {"name": "dshm", "emptyDir": {}}, MISSING),
    ]
    assert isinstance(explanation.changes[0].path, Path)


def test_changes_name_list_elements_by_their_kubernetes_merge_key() -> None:
    # volumeMounts merge by mountPath (two mounts may share a volume), ports by
    # containerPort and protocol (protocol may be left out: it defaults to TCP)
    pod = {
        "spec": {
            "containers": [
                {
                    "name": "t",
                    "volumeMounts": [{"name": "data", "mountPath": "/a"}],
                    "ports": [{"containerPort": 80, "protocol": "TCP"}],
                }
            ]
        }
    }
    transform = chain(
        append_at("spec.containers[name=t].volumeMounts", {"name": "data", "mountPath": "/b"}),
        append_at("spec.containers[name=t].ports", {"containerPort": 81}),
        upsert("spec.containers[name=t].volumeMounts[mountPath=/a].readOnly", True),
    )
    assert paths_of(explain(transform, pod)) == [
        "spec.containers[name=t].volumeMounts[mountPath=/a].readOnly",
        "spec.containers[name=t].volumeMounts[mountPath=/b]",
        "spec.containers[name=t].ports[containerPort=81]",
    ]
    for change in explain(transform, pod).changes:  # each path reaches what changed
        assert select(explain(transform, pod).after, change.path) == [change.after]


def test_a_list_some_of_whose_elements_lack_the_key_uses_indexes() -> None:
    pod = {
        "spec": {"containers": [{"name": "t", "volumeMounts": [{"name": "a", "mountPath": "/a"}]}]}
    }
    explanation = explain(append_at("spec.containers[name=t].volumeMounts", {"name": "b"}), pod)
    assert paths_of(explanation) == ["spec.containers[name=t].volumeMounts[1]"]


def test_changes_of_unnamed_lists_use_indexes() -> None:
    explanation = explain(
        chain(
            append_at("spec.tolerations", {"key": "b"}),
            append_at("spec.containers[name=trainer].args", "--fast"),
        ),
        make_pod(),
    )
    assert paths_of(explanation) == ["spec.containers[name=trainer].args", "spec.tolerations[1]"]
    explanation = explain(prepend_at("spec.tolerations", {"key": "z"}), make_pod())
    assert explanation.changes == [
        Change(path("spec.tolerations"), [{"key": "a"}], [{"key": "z"}, {"key": "a"}])
    ]
    explanation = explain(replace_at("spec.tolerations[0].key", "b"), make_pod())
    assert paths_of(explanation) == ["spec.tolerations[0].key"]


def test_reordered_named_elements_are_one_reorder_then_what_changed_inside() -> None:
    # the move is one change of the list, marked reordered; the trainer lost its image
    # and env, said by name (the sidecar only moved: nothing is said of it)
    explanation = explain(
        replace_at("spec.containers", [{"name": "sidecar", "image": "envoy"}, {"name": "trainer"}]),
        make_pod(),
    )
    assert paths_of(explanation) == [
        "spec.containers",
        "spec.containers[name=trainer].image",
        "spec.containers[name=trainer].env",
    ]
    assert [change.reordered for change in explanation.changes] == [True, False, False]


def test_added_removed_and_scalar_changes() -> None:
    explanation = explain(
        {
            "spec": {"hostIPC": Remove(), "nodeSelector": {"gpu": "a100"}},
            "metadata": {"labels": {"app": "other"}},
        },
        make_pod(),
    )
    assert explanation.changes == [
        Change(path("metadata.labels.app"), "job", "other"),
        Change(path("spec.hostIPC"), True, MISSING),
        Change(path("spec.nodeSelector"), MISSING, {"gpu": "a100"}),
    ]
    assert str(explanation.changes[1]) == "spec.hostIPC: True -> (absent)"
    assert str(explanation.changes[2]) == "spec.nodeSelector: (absent) -> {'gpu': 'a100'}"


def test_types_are_kept_apart() -> None:
    pod = {"spec": {"hostIPC": 1}}
    assert paths_of(explain(replace_at("spec.hostIPC", True), pod)) == ["spec.hostIPC"]


def test_unchanged_pod_has_no_changes_and_no_diff() -> None:
    pod = make_pod()
    explanation = explain(upsert("metadata.labels", {"app": "job"}), pod)
    assert explanation.after is pod
    assert explanation.changes == [] and explanation.diff == ""
    assert str(explanation) == "no changes"


def test_shared_subtrees_are_skipped_unread() -> None:
    class Exploding(dict):  # type: ignore[type-arg]
        def items(self) -> Any:
            raise AssertionError("a shared subtree was walked")

    pod = make_pod()
    pod["metadata"] = Exploding(pod["metadata"])
    after = upsert("spec.nodeSelector", {"gpu": "a100"})(pod)
    assert after["metadata"] is pod["metadata"]
    changes: list[Change] = []
    _compare(pod, after, Path(), changes)  # the diff alone renders the whole pod
    assert [str(change.path) for change in changes] == ["spec.nodeSelector"]


def test_diff_is_a_unified_diff_of_the_yaml() -> None:
    explanation = explain(upsert("spec.nodeSelector", {"gpu": "a100"}), make_pod())
    lines = explanation.diff.splitlines()
    assert lines[:2] == ["--- before", "+++ after"]
    assert "+  nodeSelector:" in lines and "+    gpu: a100" in lines
    assert not any(line.startswith("-") and not line.startswith("---") for line in lines)


def test_str_prints_changes_then_diff() -> None:
    text = str(
        explain(
            chain(upsert("spec.nodeSelector", {"gpu": "a100"}), remove_at("spec.hostIPC")),
            make_pod(),
        )
    )
    head, diff = text.split("\n\n", 1)
    assert head.splitlines() == [
        "2 changes:",
        "  spec.hostIPC: True -> (absent)",
        "  spec.nodeSelector: (absent) -> {'gpu': 'a100'}",
    ]
    assert diff.startswith("--- before\n+++ after\n")


def test_explain_takes_any_overlay_form_and_mutates_nothing(tmp_path: Any) -> None:
    pod = make_pod()
    before = copy.deepcopy(pod)
    file = tmp_path / "o.yaml"
    file.write_text("spec:\n  hostIPC: !remove\n", encoding="utf-8")
    for form in (
        file,
        str(file),
        [{"op": "remove", "path": "/spec/hostIPC"}],
        {"spec": {DEL("hostIPC"): None}},
        remove_at("spec.hostIPC"),
        lambda p: {**p, "spec": {k: v for k, v in p["spec"].items() if k != "hostIPC"}},
    ):
        assert paths_of(explain(form, pod)) == ["spec.hostIPC"]
    assert pod == before


@settings(max_examples=settings.default.max_examples * 8 // 5, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["a", "b", "name"]),
        st.none()
        | st.integers(0, 2)
        | st.lists(st.integers(0, 2), max_size=2)
        | st.lists(
            st.fixed_dictionaries(
                {"name": st.sampled_from("xyz")}, optional={"v": st.integers(0, 1)}
            ),
            max_size=2,
        ),
        max_size=3,
    ),
    st.dictionaries(
        st.sampled_from(["a", "b", "c"]),
        st.none()
        | st.integers(0, 2)
        | st.lists(st.integers(0, 2), max_size=2)
        | st.tuples(st.integers(0, 2)),
        max_size=3,
    ),
)
def test_each_change_is_what_its_path_reaches(pod: dict[str, Any], partial: dict[str, Any]) -> None:
    try:
        explanation = explain(overlay({"spec": partial}), {"spec": pod})
    except TypeError:
        return  # a type clash
    before, after = {"spec": pod}, explanation.after
    assert bool(explanation.changes) == (after != before)
    for change in explanation.changes:
        assert select(before, change.path) == ([] if change.before is MISSING else [change.before])
        assert select(after, change.path) == ([] if change.after is MISSING else [change.after])


# ---------------------------------------------------------------- describe


def test_describe_every_combinator() -> None:
    plan = describe(
        chain(
            upsert("spec.nodeSelector", {"gpu": "a100"}),
            upsert("spec.hostIPC", True),
            append_at("spec.tolerations", {"key": "gpu"}, unique=True),
            prepend_at("spec.containers[0].args", "-u", "-v"),
            insert_at("spec.initContainers", {"name": "w"}, after="name=fetch"),
            merge_by(
                "spec.containers[0].ports",
                [{"containerPort": 80, "protocol": "TCP"}],
                key=("containerPort", "protocol"),
            ),
            replace_at("spec.volumes", []),
            set_default("spec.restartPolicy", "Never"),
            remove_at("spec.hostIPC", missing_ok=False),
            update_at("spec.terminationGracePeriodSeconds", abs, default=30),
            for_each(
                "spec.containers[*]", chain(upsert("imagePullPolicy", "Always"), remove_at("tty"))
            ),
            when("spec.tolerations", upsert("a", 1), otherwise=remove_at("b")),
            expect("spec.containers[name=trainer]"),
            expect("spec.containers[*]", "2+"),
        )
    )
    assert plan.splitlines() == [
        "1. merge {gpu: a100} into spec.nodeSelector",
        "2. set spec.hostIPC to true",
        "3. append 1 item to spec.tolerations, skipping items already there",
        "4. put 2 items at the start of spec.containers[0].args",
        "5. insert 1 item into spec.initContainers after name=fetch",
        "6. merge 1 item into spec.containers[0].ports by containerPort, protocol, "
        "appending those not there",
        "7. replace spec.volumes with []",
        "8. set spec.restartPolicy to Never where absent",
        "9. remove spec.hostIPC, which must be there",
        "10. update spec.terminationGracePeriodSeconds with abs (from 30 where absent)",
        "11. for each of spec.containers[*]: set imagePullPolicy to Always; then remove tty",
        "12. if spec.tolerations exists: set a to 1; otherwise: remove b",
        "13. check that spec.containers[name=trainer] matches 1",
        "14. check that spec.containers[*] matches at least 2",
    ]


def test_describe_overlays_patches_and_functions() -> None:
    plan = describe(
        chain(
            overlay(
                {
                    "spec": {
                        "nodeSelector": {"gpu": "a100"},
                        "tolerations": [{"key": "g"}],
                        "volumes": ({"name": "v"},),
                        "hostIPC": Remove(),
                        "restartPolicy": Default("Never"),
                        "affinity": Replace({}),
                        "containers": MergeBy([{"name": "t"}]),
                        PUT("dnsConfig"): {},
                        DEL("hostNetwork"): None,
                        JOIN("initContainers", on="name"): [{"name": "i"}],
                    }
                }
            ),
            json_patch(
                [
                    {"op": "add", "path": "/spec/hostIPC", "value": True},
                    {"op": "remove", "path": "/spec/x"},
                ]
            ),
            merge_patch({"spec": {"hostIPC": None}}),
            strategic_merge({"containers": []}, kind="PodSpec"),
            lambda pod: pod,
        )
    )
    lines = plan.splitlines()
    assert lines[0] == (
        "1. overlay: merge {gpu: a100} into spec.nodeSelector; append 1 item to "
        "spec.tolerations; replace spec.volumes with [{name: v}]; remove spec.hostIPC; "
        "set spec.restartPolicy to Never where absent; replace spec.affinity with {}; "
        "merge 1 item into spec.containers by name; replace spec.dnsConfig with {}; "
        "remove spec.hostNetwork; merge 1 item into spec.initContainers by name "
        "(top-level fields), appending those not there"
    )
    assert lines[1:4] == [
        "2. apply a JSON Patch: add /spec/hostIPC, remove /spec/x",
        "3. apply a JSON merge patch {spec: {hostIPC: null}}",
        "4. apply a strategic merge patch to the PodSpec: {containers: []}",
    ]
    assert lines[4].startswith("5. call ") and "<lambda>" in lines[4]


def test_describe_recipes_from_a_catalog() -> None:
    class Team(Transform):
        __slots__ = ()
        name = "team"

        def __init__(self, name: str) -> None:
            self._init_params(name)

        def _apply(self, doc: Any, owned: Owned) -> Any:
            return doc

    def team(name: str) -> Transform:
        """Label the pod with its team."""
        return Team(name)

    assert (
        describe(team("ml"), {"team": team}) == "1. recipe team('ml'): Label the pod with its team."
    )
    assert describe(team("ml"), {}) == "1. team('ml')"  # the generic fallback: the repr


def test_describe_installed_recipes() -> None:
    try:
        loaded = loads_overlay("- {recipe: add_toleration, key: nvidia.com/gpu}\n")
    except Exception as err:
        pytest.skip(f"the installed recipe catalog is not available: {err}")
    assert describe(loaded).startswith("1. recipe add_toleration('nvidia.com/gpu')")


def test_describe_nothing_and_yaml() -> None:
    assert describe(identity) == "leave the pod as it is"
    assert describe({"spec": {"hostIPC": False}}) == "1. overlay: merge {hostIPC: false} into spec"
    assert describe({"spec": {"hostIPC": Remove()}}) == "1. overlay: remove spec.hostIPC"
    assert (
        describe(loads_overlay("- {op: remove_at, path: spec.hostIPC}")) == "1. remove spec.hostIPC"
    )


def test_explain_and_the_kit_read_a_client_object_as_its_api_form() -> None:
    # the README: any overlay takes a V1Pod; explain used to fail on it in PyYAML, and
    # changed_paths to see the whole pod changed
    from kubernetes.client import V1Container, V1ObjectMeta, V1Pod, V1PodSpec

    import recipes
    from transforms.testing import assert_changes, changed_paths

    pod = V1Pod(
        metadata=V1ObjectMeta(name="p"),
        spec=V1PodSpec(containers=[V1Container(name="main", image="t:1")]),
    )
    overlay = recipes.shm_size("1Gi")
    explained = explain(overlay, pod)
    assert [str(change.path) for change in explained.changes] == [
        "spec.containers[name=main].volumeMounts",
        "spec.volumes",
    ]
    assert "+    - mountPath: /dev/shm" in explained.diff and "api_version" not in explained.diff
    assert changed_paths(overlay, pod) == [
        "spec.containers[name=main].volumeMounts",
        "spec.volumes",
    ]
    assert assert_changes(overlay, pod, only=["spec.volumes", "spec.containers[*].volumeMounts"])
    with pytest.raises(AssertionError, match=r"changes outside spec\.volumes"):
        assert_changes(overlay, pod, only=["spec.volumes"])


def test_the_diff_of_20000_containers_stays_within_budget() -> None:
    from tests.test_growth import run_bounded

    # a pod of 20,000 containers, each given two lines: difflib alone took minutes
    assert run_bounded("""
        from transforms.analysis.explanation import unified_diff
        before, after = [], []
        for i in range(N):
            before += [f"- name: c{i}\\n", "  image: t:1\\n"]
            after += [f"- name: c{i}\\n", "  image: t:1\\n", "  env:\\n", "  - {name: A}\\n"]
        lines = list(unified_diff(before, after))
        print(sum(line.startswith("+") for line in lines[2:]),
              sum(line.startswith("-") for line in lines[2:]))
    """).split() == ["40000", "0"]


def _assert_the_diff_rebuilds_both_sides(before: list[str], after: list[str]) -> None:
    # the lines a hunk keeps and removes are the before side; kept and added, the after side
    from transforms.analysis.explanation import unified_diff

    old, new = [f"{x}\n" for x in before], [f"{x}\n" for x in after]
    lines = list(unified_diff(old, new))
    assert bool(lines) == (old != new)
    rebuilt_old: list[str] = []
    rebuilt_new: list[str] = []
    done = 0
    for line in lines[2:]:
        if line.startswith("@@"):
            start, _, length = line.split()[1][1:].partition(",")
            first = int(start) - 1 if length != "0" else int(start)
            rebuilt_old += old[done:first]
            rebuilt_new += old[done:first]
            done = first
        elif line[0] in " -":
            rebuilt_old.append(line[1:])
            rebuilt_new += [line[1:]] if line[0] == " " else []
            done += 1
        else:
            rebuilt_new.append(line[1:])
    assert rebuilt_old + old[done:] == old and rebuilt_new + old[done:] == new


@settings(max_examples=settings.default.max_examples * 3, deadline=None)
@given(
    st.lists(st.sampled_from("abcdef"), max_size=12),
    st.lists(st.sampled_from("abcxyz"), max_size=12),
)
def test_the_diff_rebuilds_both_sides(before: list[str], after: list[str]) -> None:
    _assert_the_diff_rebuilds_both_sides(before, after)


@settings(max_examples=settings.default.max_examples * 3, deadline=None)
@given(
    st.lists(st.sampled_from("abcdef"), max_size=12),
    st.lists(st.sampled_from("abcxyz"), max_size=12),
)
def test_the_diff_of_long_runs_rebuilds_both_sides(before: list[str], after: list[str]) -> None:
    # every run of more than one line on each side is anchored (on its unique lines, else on
    # each line's n-th occurrence), as runs too long for difflib are on a large pod
    from transforms.analysis import explanation

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(explanation, "_SMALL_GAP", 1)
        _assert_the_diff_rebuilds_both_sides(before, after)


def test_a_long_run_of_repeated_lines_is_diffed_line_by_line() -> None:
    # tolerations in pairs of one key: no line occurs once, so no line anchors the run;
    # each line's n-th occurrence on each side does, and only the added lines are told
    from transforms.analysis.explanation import unified_diff

    pairs = [(f"- key: k{i // 2}\n", "  operator: Exists\n") for i in range(1_000)]
    before = [line for pair in pairs for line in pair]
    after = [line for pair in pairs for line in (*pair, "  effect: NoSchedule\n")]
    lines = list(unified_diff(before, after))[2:]
    assert [line for line in lines if line[0] in "+-"] == ["+  effect: NoSchedule\n"] * 1_000
