"""Field-level provenance (transforms.analysis.blame): the last step that wrote each change."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from combinators import MISSING, append_at, chain, remove_at, select, upsert
from tests import warm
from transforms.analysis import changes_between
from transforms.analysis.blame import blame, load_steps, steps_of, writers, yaml_steps
from transforms.io.loading import load_overlay, loads_overlay

POD = {"spec": {"containers": [{"name": "trainer", "image": "t:1"}]}}
A100 = Path(__file__).resolve().parent.parent / "examples" / "a100.yaml"


def test_every_change_is_blamed_once_and_the_steps_give_the_overlay_s_result() -> None:
    # blame's changes are exactly the changes of the whole overlay
    steps = load_steps(A100)
    found = blame(steps, POD)
    after = load_overlay(A100)(POD)
    assert [item.change for item in found] == changes_between(POD, after)
    assert all(item.origin is not None for item in found)


def test_the_last_step_that_changed_a_field_wins() -> None:
    text = (
        "- {op: upsert, path: spec.priorityClassName, value: low}\n"
        "- {op: upsert, path: spec.hostIPC, value: false}\n"
        "- {op: upsert, path: spec.priorityClassName, value: high}\n"
    )
    found = {str(item.change.path): item.origin for item in blame(yaml_steps(text, "o.yaml"), POD)}
    assert (found["spec.priorityClassName"].source, found["spec.priorityClassName"].line) == (
        "o.yaml",
        3,
    )
    assert found["spec.hostIPC"].line == 2


def test_a_partial_pod_names_the_line_of_the_key_that_wrote_the_field() -> None:
    text = "metadata:\n  labels:\n    team: ml\nspec:\n  hostIPC: true\n"
    found = {str(item.change.path): item.origin for item in blame(yaml_steps(text, "p.yaml"), POD)}
    assert found["metadata"].line == 1
    assert found["spec.hostIPC"].line == 5
    assert found["spec.hostIPC"].step == "partial pod"


def test_a_recipe_is_cut_into_its_body_s_steps() -> None:
    text = "- {recipe: shm_size, size: 2Gi}\n"
    found = blame(yaml_steps(text, "r.yaml"), POD)
    volumes = next(item for item in found if str(item.change.path) == "spec.volumes")
    assert volumes.origin is not None
    assert volumes.origin.step == "step 1: recipe shm_size('2Gi')"
    assert volumes.origin.inner.startswith("its step 3 of 3: ")
    assert str(volumes.origin).startswith("r.yaml:1: step 1: recipe shm_size('2Gi') > its step")


def test_python_overlays_are_blamed_by_step() -> None:
    overlay = chain(
        upsert("spec.hostIPC", True),
        append_at("spec.tolerations", {"key": "g"}),
        remove_at("spec.hostIPC"),
    )
    found = blame(steps_of(overlay), POD)
    assert [str(item.change.path) for item in found] == ["spec.tolerations"]
    assert str(found[0].origin).startswith("step 2: ")


def test_no_change_no_blame() -> None:
    assert blame(yaml_steps("- {op: remove, path: spec.hostIPC}\n"), POD) == []


def test_a_bad_overlay_raises_what_loads_overlay_raises() -> None:
    from transforms.errors import OverlayError

    with pytest.raises(OverlayError) as err:
        yaml_steps("spec:\n  node_selector: {}\n", "bad.yaml")
    with pytest.raises(OverlayError) as same:
        loads_overlay("spec:\n  node_selector: {}\n", source="bad.yaml")
    assert str(err.value) == str(same.value)


# ---------------------------------------------------------------- per list element

SHM = "- {recipe: shm_size, size: 2Gi}\n"
SECRET = (
    "spec:\n"
    "  volumes:\n"
    "  - name: creds\n"
    "    secret: {secretName: creds}\n"
    "  containers: !merge-by\n"
    "  - name: trainer\n"
    "    volumeMounts:\n"
    "    - {name: creds, mountPath: /etc/creds}\n"
)
SHM_PARTIAL = (
    "spec:\n"
    "  volumes:\n"
    "  - name: dshm\n"
    "    emptyDir: {medium: Memory}\n"
    "  containers: !merge-by\n"
    "  - name: trainer\n"
    "    volumeMounts:\n"
    "    - {name: dshm, mountPath: /dev/shm}\n"
)
MANIFEST = (
    "apiVersion: v1\nkind: Pod\nmetadata: {name: train}\n"
    "spec:\n  containers:\n  - {name: trainer, image: 't:1'}\n"
)
MOUNTS = "spec.containers[name=trainer].volumeMounts"


def two_files(shm: str = SHM) -> list[Any]:
    return yaml_steps(shm, "shm.yaml") + yaml_steps(SECRET, "secret.yaml")


def where_of(found: list[Any]) -> dict[str, str]:
    return {str(item.change.path): f"{item.origin.source}:{item.origin.line}" for item in found}


@pytest.mark.parametrize("shm", [SHM, SHM_PARTIAL], ids=["recipe", "partial pod"])
def test_each_element_of_a_new_list_names_the_file_that_wrote_it(shm: str) -> None:
    # two files build spec.volumes (and the trainer's mounts) that the pod lacked: each
    # element is the change of the file that added it, not all of them the last file's
    found = where_of(blame(two_files(shm), POD))
    dshm_line = 1 if shm is SHM else 3
    mount_line = 1 if shm is SHM else 8
    assert found == {
        f"{MOUNTS}[mountPath=/dev/shm]": f"shm.yaml:{mount_line}",
        f"{MOUNTS}[mountPath=/etc/creds]": "secret.yaml:8",
        "spec.volumes[name=dshm]": f"shm.yaml:{dshm_line}",
        "spec.volumes[name=creds]": "secret.yaml:3",
    }


def test_the_split_changes_together_are_the_change_of_the_whole() -> None:
    found = blame(two_files(), POD)
    after = chain(*(step.transform for step in two_files()))(POD)
    (mounts,) = select(after, MOUNTS)
    by_path = {str(item.change.path): item.change for item in found}
    assert [by_path[f"{MOUNTS}[mountPath={m['mountPath']}]"].after for m in mounts] == mounts
    assert [
        by_path[f"spec.volumes[name={v['name']}]"].after for v in after["spec"]["volumes"]
    ] == after["spec"]["volumes"]
    assert all(item.change.before is MISSING for item in found)


def test_a_new_subtree_two_steps_build_names_both_where_they_differ() -> None:
    # one step makes the map, a second adds a key inside it: both are named, each at its key
    overlay = chain(
        upsert("spec.nodeSelector", {"pool": "a"}),
        upsert("spec.nodeSelector.zone", "z1"),
        upsert("metadata.labels.team", "ml"),
    )
    found = {str(item.change.path): str(item.origin) for item in blame(steps_of(overlay), POD)}
    assert found == {
        "spec.nodeSelector.pool": "step 1: merge {pool: a} into spec.nodeSelector",
        "spec.nodeSelector.zone": "step 2: set spec.nodeSelector.zone to z1",
        "metadata": "step 3: set metadata.labels.team to ml",
    }


def test_one_step_that_rewrote_all_a_former_step_built_is_the_only_writer() -> None:
    overlay = chain(
        upsert("spec.nodeSelector", {"pool": "a"}), upsert("spec.nodeSelector.pool", "b")
    )
    (found,) = blame(steps_of(overlay), POD)
    assert str(found.change.path) == "spec.nodeSelector" and found.origin is not None
    assert found.origin.step.startswith("step 2: ")


def test_writers_at_a_path_name_every_step_per_element() -> None:
    walk = writers(two_files(), POD)
    assert where_of(walk.at("spec.volumes")) == {
        "spec.volumes[name=dshm]": "shm.yaml:1",
        "spec.volumes[name=creds]": "secret.yaml:3",
    }
    # a path as validation names it (a mount by its volume's name) finds the element too
    (mount,) = walk.at(f"{MOUNTS}[name=dshm].name")
    assert (mount.origin.source, mount.step) == ("shm.yaml", 2)
    assert walk.last("spec.volumes").origin.source == "secret.yaml"
    assert walk.at("spec.containers[name=trainer].image") == []


def test_writers_at_a_selector_name_every_element_it_selects() -> None:
    # [containerPort=80] selects a port of either protocol, as select finds them; the walk
    # named only the one whose merge key it is
    pod = {
        "spec": {
            "containers": [
                {
                    "name": "a",
                    "ports": [
                        {"containerPort": 80},
                        {"containerPort": 80, "protocol": "UDP"},
                        {"containerPort": 81},
                    ],
                }
            ]
        }
    }
    where = "spec.containers[name=a].ports[containerPort=80]"
    walk = writers(steps_of(upsert("spec.containers[name=a].ports[*].name", "web")), pod)
    assert [found.change.after for found in walk.at(where)] == select(walk.after, where)
    assert [found.step for found in walk.at(where)] == [1, 1]


# ---------------------------------------------------------------- through the command line

PODFOLD = Path(sys.executable).with_name("podfold")


def podfold(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    for name, text in (("shm.yaml", SHM), ("secret.yaml", SECRET), ("pod.yaml", MANIFEST)):
        (tmp_path / name).write_text(text)
    return warm.run("podfold", [*args], cwd=tmp_path, timeout=120)


def test_explain_blame_names_each_file_per_element(tmp_path: Path) -> None:
    result = podfold(
        tmp_path, "explain", "--blame", "-f", "shm.yaml", "-f", "secret.yaml", "pod.yaml"
    )
    assert result.returncode == 0, result.stderr
    blamed = dict(
        line.removeprefix("#   ").split("  <- ")
        for line in result.stdout.splitlines()
        if "  <- " in line
    )
    assert {where: origin.split(": ")[0] for where, origin in blamed.items()} == {
        f"{MOUNTS}[mountPath=/dev/shm]": "shm.yaml:1",
        f"{MOUNTS}[mountPath=/etc/creds]": "secret.yaml:8",
        "spec.volumes[name=dshm]": "shm.yaml:1",
        "spec.volumes[name=creds]": "secret.yaml:3",
    }
    assert blamed["spec.volumes[name=dshm]"].startswith(
        "shm.yaml:1: step 1: recipe shm_size('2Gi') > its step 3 of 3: "
    )


def test_deny_names_each_file_for_the_elements_it_wrote(tmp_path: Path) -> None:
    result = podfold(
        tmp_path,
        "apply",
        "--deny",
        "spec.volumes",
        "--deny",
        MOUNTS,
        "-f",
        "shm.yaml",
        "-f",
        "secret.yaml",
        "pod.yaml",
    )
    assert result.returncode == 1 and result.stdout == ""
    label = "pod.yaml: document 1: Pod/train template (the document itself)"
    assert result.stderr.splitlines()[:-1] == [
        f"{label}: {MOUNTS}: a denied path was changed (denied: {MOUNTS}) (written by "
        f"shm.yaml:1 at {MOUNTS}[mountPath=/dev/shm], "
        f"secret.yaml:8 at {MOUNTS}[mountPath=/etc/creds])",
        f"{label}: spec.volumes: a denied path was changed (denied: spec.volumes) (written by "
        f"shm.yaml:1 at spec.volumes[name=dshm], secret.yaml:3 at spec.volumes[name=creds])",
    ]


def test_deny_names_the_one_file_that_wrote_a_path(tmp_path: Path) -> None:
    result = podfold(tmp_path, "apply", "--deny", "spec.volumes", "-f", "secret.yaml", "pod.yaml")
    assert result.returncode == 1
    assert result.stderr.splitlines()[0].endswith(
        "spec.volumes: a denied path was changed (denied: spec.volumes) (written by secret.yaml:2)"
    )


# ---------------------------------------------------------------- the walk's laws


def test_a_removed_element_names_the_step_that_removed_it_and_unchanged_ones_none() -> None:
    pod = {"spec": {"volumes": [{"name": "a", "emptyDir": {}}, {"name": "b", "emptyDir": {}}]}}
    overlay = chain(
        remove_at("spec.volumes[name=a]"),
        upsert("spec.volumes[name=c]", {"secret": {"secretName": "c"}}),
    )
    found = writers(steps_of(overlay), pod).at("spec.volumes")
    assert [(str(item.change.path), item.step, item.change.after) for item in found] == [
        ("spec.volumes[name=c]", 2, {"name": "c", "secret": {"secretName": "c"}}),
        ("spec.volumes[name=a]", 1, MISSING),
    ]
    assert found[1].change.before == {"name": "a", "emptyDir": {}}


def test_what_a_step_added_and_a_later_one_removed_has_no_writer() -> None:
    overlay = chain(
        upsert("spec.nodeSelector", {"pool": "a", "zone": "z"}), remove_at("spec.nodeSelector.zone")
    )
    walk = writers(steps_of(overlay), POD)
    assert walk.at("spec.nodeSelector.zone") == []
    assert [(str(item.change.path), item.step) for item in walk.at("spec.nodeSelector")] == [
        ("spec.nodeSelector", 1)
    ]


def test_a_walk_over_states_names_steps_by_number() -> None:
    from transforms.analysis import Writers

    first = upsert("spec.volumes[name=a]", {"emptyDir": {}})(POD)
    second = upsert("spec.volumes[name=b]", {"emptyDir": {}})(first)
    walk = Writers([POD, first, second])
    assert [str(item) for item in walk.at("spec.volumes")] == [
        "spec.volumes[name=a]: (absent) -> {'name': 'a', 'emptyDir': {}}  <- step 1",
        "spec.volumes[name=b]: (absent) -> {'name': 'b', 'emptyDir': {}}  <- step 2",
    ]
    with pytest.raises(ValueError, match="a walk needs the document"):
        Writers([])


VOLUMES = st.sampled_from(["a", "b", "c"])
STEPS = st.one_of(
    st.builds(
        lambda name, size: upsert(f"spec.volumes[name={name}]", {"emptyDir": {"sizeLimit": size}}),
        VOLUMES,
        st.sampled_from(["1Gi", "2Gi"]),
    ),
    st.builds(lambda name: remove_at(f"spec.volumes[name={name}]"), VOLUMES),
    st.builds(lambda name: upsert(f"spec.volumes[name={name}]", {"secret": {}}), VOLUMES),
    st.builds(lambda key: upsert(f"spec.nodeSelector.{key}", "x"), st.sampled_from("pq")),
    st.just(upsert("spec.nodeSelector", {"p": "y"})),
    st.just(remove_at("spec.nodeSelector")),
    st.builds(lambda key: append_at("spec.tolerations", {"key": key}), st.sampled_from("kl")),
)


@settings(max_examples=settings.default.max_examples * 6 // 5, deadline=None)
@given(st.lists(STEPS, max_size=6))
def test_each_part_is_the_last_step_that_wrote_at_or_above_it(overlay: list[Any]) -> None:
    # every part named is what the last state has there, written by a step whose own
    # changes reach it, and no later step changed it, nor anything it lies in
    pod = {"spec": {"volumes": [{"name": "a", "emptyDir": {}}]}}
    states = [pod]
    for step in overlay:
        states.append(step(states[-1]))
    written = [
        [change.path for change in changes_between(before, after)]
        for before, after in itertools.pairwise(states)
    ]
    found = blame(steps_of(chain(*overlay)) if overlay else [], pod)
    for change in changes_between(pod, states[-1]):  # each change is named, or its parts are
        assert any(
            item.change.path.parts[: len(change.path)] == change.path.parts for item in found
        )
    for item in found:
        assert item.step is not None
        where = item.change.path
        now = select(states[-1], where)
        assert now == ([] if item.change.after is MISSING else [item.change.after])
        assert any(_overlap(path, where) for path in written[item.step - 1])
        assert not any(
            path.parts == where.parts[: len(path)]
            for later in written[item.step :]
            for path in later
        )


def _overlap(a: Any, b: Any) -> bool:
    shorter = min(len(a), len(b))
    return bool(a.parts[:shorter] == b.parts[:shorter])


def test_blame_on_8000_volumes_stays_within_budget() -> None:
    from tests.test_growth import run_bounded

    # two steps over 8,000 volumes: a scan of every write for each change took minutes
    assert run_bounded(
        """
        from combinators import chain, merge_by, upsert
        from transforms.analysis.blame import blame, steps_of
        overlay = chain(merge_by("spec.volumes", volumes),
                        upsert("spec.volumes[*].emptyDir.medium", "Memory"))
        found = blame(steps_of(overlay), pod)
        print(len(found), len({item.step for item in found}))
    """,
        n=8_000,
    ).split() == ["24000", "2"]
