"""The registry of step kinds: each kind said once, and build -> dump -> build for every kind."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
import yaml

import recipes
from combinators import (
    ArgumentTypeError,
    Transform,
    append_at,
    chain,
    expect,
    for_each,
    identity,
    remove_at,
    replace_at,
    update_at,
    upsert,
    when,
)
from combinators.data import Owned
from combinators.transform import apply_step
from transforms import (
    Default,
    Replace,
    build_step,
    describe,
    dump_overlay,
    json_patch,
    load_overlay,
    loads_overlay,
    merge_patch,
    overlay,
    strategic_merge,
)
from transforms.errors import OverlayError
from transforms.forms import kinds
from transforms.forms.catalog import recipe_catalog
from transforms.forms.kinds import STEP_KEYS, STEP_KINDS, kind_of, may_write_macros, writes
from transforms.forms.markers import AppendUnique
from transforms.forms.pipeline import OPS
from transforms.forms.pipeline import STEP_KEYS as PIPELINE_STEP_KEYS
from transforms.kube import apply_to_workload
from transforms.kube.scopes import workload_level

EXAMPLES = [(kind, example()) for kind in STEP_KINDS for example in kind.examples]
BUILDABLE = [(kind, step) for kind, step in EXAMPLES if kind.build is not None]
NOT_BUILDABLE = [(kind, step) for kind, step in EXAMPLES if kind.build is None]


def ids(case: tuple[Any, Any]) -> str:
    """The kind and its example, the same in every process: a plain function's repr holds its
    address, which differs between pytest-xdist's workers and fails their collection."""
    kind, step = case
    shown = step.__qualname__ if inspect.isfunction(step) else repr(step)
    return f"{kind.name}:{shown}"[:60]


class Team(Transform):
    """A stand-in for a recipe: a named transform with a body, as recipes keep one."""

    __slots__ = ("body",)
    name = "team"

    def __init__(self, name: str, rank: str = "0") -> None:
        self.body = upsert("metadata.labels", {"team": name, "rank": rank})
        if rank == "0":
            self._init_params(name)
        else:
            self._init_params(name, rank=rank)

    def _apply(self, doc: Any, owned: Owned) -> Any:
        return apply_step(self.body, doc, owned)


CATALOG = {"team": Team}


# ---------------------------------------------------------------- each kind once


def test_each_kind_is_registered_once() -> None:
    names = [kind.name for kind in STEP_KINDS]
    assert len(names) == len(set(names))
    assert len({id(kind) for kind in STEP_KINDS}) == len(STEP_KINDS)
    factories = [kind.factory for kind in STEP_KINDS if kind.factory is not None]
    assert len(factories) == len(set(map(id, factories)))


def test_each_op_name_and_alias_leads_to_one_kind() -> None:
    seen: dict[str, str] = {}
    for kind in STEP_KINDS:
        if kind.key != "op":
            assert not kind.aliases
            continue
        for name in (kind.name, *kind.aliases):
            assert name not in seen, f"{name} is claimed by {seen[name]} and {kind.name}"
            seen[name] = kind.name
    assert set(OPS) == {kind.name for kind in STEP_KINDS if kind.key == "op"}


def test_the_step_keys_come_from_the_kinds() -> None:
    assert (
        PIPELINE_STEP_KEYS
        == STEP_KEYS
        == ("op", "recipe", "overlay", "json_patch", "merge_patch", "strategic", "workload_level")
    )
    for key in STEP_KEYS[1:]:
        assert [kind.name for kind in STEP_KINDS if kind.key == key] != []
        assert len([kind for kind in STEP_KINDS if kind.key == key]) == 1


def test_every_combinator_that_builds_a_step_is_a_kind() -> None:
    # the factories in combinators that take a path first and return a transform
    ops = {
        "upsert",
        "replace_at",
        "set_default",
        "update_at",
        "remove_at",
        "append_at",
        "prepend_at",
        "insert_at",
        "merge_by",
        "for_each",
        "when",
        "expect",
    }
    assert set(OPS) == ops
    for name in ops:
        assert OPS[name] is getattr(__import__("combinators"), name)


@pytest.mark.parametrize("case", EXAMPLES, ids=ids)
def test_each_example_is_recognised_as_its_own_kind(case: tuple[Any, Any]) -> None:
    kind, step = case
    assert kind_of(step, {}) is kind
    assert [other for other in STEP_KINDS if step in [make() for make in other.examples]] == [kind]


def test_every_kind_but_the_recipe_and_the_unknown_has_examples() -> None:
    assert {kind.name for kind in STEP_KINDS if not kind.examples} == {"recipe", "transform"}


def test_a_named_transform_is_a_recipe_only_where_the_catalog_names_it() -> None:
    assert kind_of(Team("ml"), CATALOG).name == "recipe"
    assert kind_of(Team("ml"), {}).name == "transform"
    assert kind_of(len, {}).name == "function"


# ---------------------------------------------------------------- build -> dump -> build


@pytest.mark.parametrize("case", BUILDABLE, ids=ids)
def test_law_build_dump_build_for_every_kind(case: tuple[Any, Any]) -> None:
    # build(dump(step)) == step, and dump(build(dump(step))) == dump(step)
    kind, step = case
    written = kinds.dump(step, {})
    assert kinds.yaml_kind(written) is kind
    built = kinds.build(written, {})
    assert built == step
    assert kinds.dump(built, {}) == written


@pytest.mark.parametrize("case", BUILDABLE, ids=ids)
def test_law_load_dump_load_through_yaml_text_for_every_kind(case: tuple[Any, Any]) -> None:
    # loads_overlay(dump_overlay(step)) == step
    _, step = case
    assert loads_overlay(dump_overlay(step, {}), kind=None, catalog={}) == step


def test_law_build_dump_build_for_a_recipe() -> None:
    # build(dump(recipe)) == recipe, with the catalog that names it
    for step in (Team("ml"), Team("ml", rank="${replica_id}")):
        written = kinds.dump(step, CATALOG)
        assert written["recipe"] == "team"
        assert kinds.build(written, CATALOG) == step
        assert loads_overlay(dump_overlay(step, CATALOG), catalog=CATALOG) == step


def test_law_round_trip_for_installed_recipes() -> None:
    try:
        catalog = recipe_catalog()
    except Exception as err:  # the recipes package may be mid-edit
        pytest.skip(f"the installed recipe catalog cannot be loaded: {err}")
    if "add_toleration" not in catalog:
        pytest.skip("podfold's recipe catalog is not installed")
    step = catalog["add_toleration"]("nvidia.com/gpu", effect="NoSchedule")
    assert kind_of(step).name == "recipe"
    assert kinds.build(kinds.dump(step)) == step


@pytest.mark.parametrize("case", NOT_BUILDABLE, ids=ids)
def test_kinds_yaml_cannot_hold_say_so_when_written(case: tuple[Any, Any]) -> None:
    _, step = case
    with pytest.raises(ArgumentTypeError, match="cannot be written as YAML"):
        kinds.dump(step, {})


def test_a_transform_no_kind_knows_cannot_be_written() -> None:
    with pytest.raises(ArgumentTypeError, match="neither a combinator"):
        kinds.dump(Team("ml"), {})


# ---------------------------------------------------------------- in words


@pytest.mark.parametrize("case", EXAMPLES, ids=ids)
def test_every_kind_has_words_of_its_own(case: tuple[Any, Any]) -> None:
    _, step = case
    text = kinds.phrase(step, {})
    assert text and text != repr(step)


def test_the_append_unique_marker_is_known_to_the_overlay_kind() -> None:
    step = overlay({"spec": {"tolerations": AppendUnique([{"key": "gpu"}, {"key": "b"}])}})
    assert kind_of(step).name == "overlay"
    assert (
        kinds.phrase(step, {})
        == "overlay: append 2 items to spec.tolerations, skipping items already there"
    )
    assert describe(step) == "1. " + kinds.phrase(step, {})
    assert kinds.dump(step, {}) == {
        "overlay": {"spec": {"tolerations": AppendUnique([{"key": "gpu"}, {"key": "b"}])}}
    }
    assert kinds.build(kinds.dump(step, {}), {}) == step


def test_a_recipe_is_described_by_its_summary() -> None:
    assert (
        describe(Team("ml"), CATALOG)
        == "1. recipe team('ml'): A stand-in for a recipe: a named transform with a body, "
        "as recipes keep one."
    )


# ---------------------------------------------------------------- what a step may write


@pytest.mark.parametrize(
    ("step", "macros"),
    [
        (upsert("metadata.labels.rank", "${replica_id}"), True),
        (upsert("metadata.labels.rank", "0"), False),
        (
            upsert("spec.containers[name=${app_id}]", {"image": "x"}),
            True,
        ),  # the selector is written
        (append_at("spec.containers[0].args", "--rank=${replica_id}"), True),
        (remove_at("metadata.labels['${x}']"), False),
        (expect("spec.containers[name=${x}]"), False),
        (update_at("spec.hostIPC", bool), True),  # runs the caller's code
        (len, True),
        (chain(len), True),
        (for_each("spec.containers[*]", upsert("env[name=RANK].value", "${replica_id}")), True),
        (for_each("spec.containers[*]", upsert("imagePullPolicy", "Always")), False),
        (when(lambda pod: True, upsert("a", "b")), False),  # a predicate only reads
        (when("a", identity, otherwise=upsert("a", "${app_id}")), True),
        (json_patch([{"op": "add", "path": "/a", "value": {"b": ["${app_id}"]}}]), True),
        (
            json_patch(
                [{"op": "test", "path": "/a", "value": "${app_id}"}, {"op": "remove", "path": "/b"}]
            ),
            False,
        ),
        (merge_patch({"a": "${app_id}"}), True),
        (strategic_merge({"spec": {"hostname": "${app_id}"}}), True),
        (overlay({"spec": {"restartPolicy": Default("${x}")}}), True),
        (overlay({"spec": {"tolerations": Replace([])}}), False),
        (overlay({"spec": {"tolerations": AppendUnique([{"key": "${app_id}"}])}}), True),
        (overlay({"spec": {"tolerations": AppendUnique([{"key": "gpu"}])}}), False),
        (Team("ml", rank="${replica_id}"), True),  # a recipe writes what its body writes
        (Team("ml"), False),
        (chain(Team("ml"), upsert("a", "b")), False),
    ],
)
def test_what_a_step_may_write(step: Any, macros: bool) -> None:
    assert may_write_macros(step) is macros


def test_writes_lists_the_strings() -> None:
    assert writes(upsert("spec.nodeSelector", {"gpu": "a100", "n": 1})) == frozenset({"a100"})
    assert writes(remove_at("a")) == frozenset()
    assert writes(update_at("a", str)) is None


# ---------------------------------------------------------------- one catalog argument


@pytest.mark.parametrize(
    "function",
    [
        describe,
        dump_overlay,
        loads_overlay,
        load_overlay,
        build_step,
        kinds.build,
        kinds.dump,
        kinds.phrase,
    ],
)
def test_every_entry_point_takes_the_catalog(function: Any) -> None:
    parameter = inspect.signature(function).parameters["catalog"]
    assert parameter.default is None


def test_the_catalog_given_is_the_one_used(tmp_path: Path) -> None:
    text = "- {recipe: team, name: ml}\n"
    assert loads_overlay(text, catalog=CATALOG) == Team("ml")
    file = tmp_path / "team.yaml"
    file.write_text(text)
    assert load_overlay(file, catalog=CATALOG) == Team("ml")
    assert build_step({"recipe": "team", "name": "ml"}, CATALOG) == Team("ml")
    with pytest.raises(LookupError, match="no recipe catalog is installed"):
        build_step({"recipe": "team", "name": "ml"}, {})


# ---------------------------------------------------------------- a step on the workload object

QUEUE_LABEL = 'metadata.labels["kueue.x-k8s.io/queue-name"]'
PRIORITY_LABEL = 'metadata.labels["kueue.x-k8s.io/priority-class"]'


def test_a_workload_level_step_is_its_own_kind() -> None:
    step = workload_level(upsert("metadata.labels", {"team": "ml"}))
    assert kind_of(step, {}).name == "workload_level"
    assert kind_of(recipes.kueue_queue("team-a").body, {}).name == "workload_level"


def test_a_workload_level_step_is_described_as_on_the_workload_object() -> None:
    step = workload_level(
        chain(replace_at(QUEUE_LABEL, "team-a"), replace_at(PRIORITY_LABEL, "high"))
    )
    assert describe(chain(upsert("spec.hostIPC", False), step), {}) == (
        "1. set spec.hostIPC to false\n"
        f"2. on the workload object: replace {QUEUE_LABEL} with team-a; "
        f"then replace {PRIORITY_LABEL} with high"
    )
    # kueue_queue's body, which explain --blame names as the recipe's step
    assert (
        kinds.phrase(recipes.kueue_queue("team-a").body, {})
        == f"on the workload object: replace {QUEUE_LABEL} with team-a"
    )


@pytest.mark.parametrize(
    "step",
    [
        workload_level(upsert("metadata.labels", {"team": "ml"})),
        workload_level(
            chain(replace_at(QUEUE_LABEL, "team-a"), replace_at(PRIORITY_LABEL, "high"))
        ),
        workload_level(identity),
        chain(
            recipes.add_env(NCCL_DEBUG="INFO"),
            recipes.kueue_queue("team-a").body,
            upsert("spec.hostIPC", False),
        ),
        when("metadata.labels.old", workload_level(remove_at("metadata.labels.old"))),
        recipes.kueue_queue("team-a", priority_class="high").body,
    ],
    ids=repr,
)
def test_law_load_dump_load_for_workload_level_steps(step: Any) -> None:
    # loads_overlay(dump_overlay(t)) == t
    text = dump_overlay(step)
    assert "workload_level:" in text
    assert loads_overlay(text) == step


def test_a_workload_level_step_from_yaml_acts_on_the_workload_object() -> None:
    overlay_text = (
        "- {recipe: add_env, NCCL_DEBUG: INFO}\n"
        "- workload_level:\n"
        "  - {op: upsert, path: metadata.annotations, value: {owner: team-a}}\n"
        "  - {op: remove_at, path: metadata.labels.old}\n"
    )
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "pi", "labels": {"old": "x"}},
        "spec": {"template": {"spec": {"containers": [{"name": "pi", "image": "perl"}]}}},
    }
    done = apply_to_workload(loads_overlay(overlay_text), job)
    assert done["metadata"] == {"name": "pi", "labels": {}, "annotations": {"owner": "team-a"}}
    assert done["spec"]["template"]["spec"]["containers"][0]["env"] == [
        {"name": "NCCL_DEBUG", "value": "INFO"}
    ]
    assert "metadata" not in done["spec"]["template"]


@pytest.mark.parametrize(
    ("text", "argument", "message"),
    [
        ("- workload_level: 5\n", "workload_level", "holds a step map"),
        (
            "- workload_level: {op: upsert, path: metadata.labels, value: {a: b}}\n  select: x\n",
            "select",
            "takes no select",
        ),
    ],
)
def test_a_bad_workload_level_step_is_refused_naming_it(
    text: str, argument: str, message: str
) -> None:
    with pytest.raises(ArgumentTypeError, match=message) as caught:
        kinds.build(yaml.safe_load(text)[0], {})
    assert caught.value.argument == argument
    with pytest.raises(OverlayError, match=f"<string>:\\d+:\\d+: step 1: .*{message}"):
        loads_overlay(text)


def test_a_workload_level_function_cannot_be_written() -> None:
    with pytest.raises(
        ArgumentTypeError, match="cannot be written as YAML: it is a Python function"
    ):
        dump_overlay(workload_level(_label_everything))


def _label_everything(doc: Any) -> Any:
    return {**doc, "metadata": {**doc.get("metadata", {}), "labels": {"all": "yes"}}}


@pytest.mark.parametrize(
    ("step", "macros"),
    [
        (workload_level(upsert("metadata.labels.rank", "${replica_id}")), True),
        (workload_level(upsert("metadata.labels.team", "ml")), False),
        (recipes.kueue_queue("team-a"), False),  # the recipe's body says what it writes
        (workload_level(_label_everything), True),  # runs the caller's code
    ],
)
def test_what_a_workload_level_step_may_write(step: Any, macros: bool) -> None:
    assert may_write_macros(step) is macros


def test_a_workload_level_step_writes_what_its_steps_write() -> None:
    step = workload_level(
        chain(replace_at(QUEUE_LABEL, "team-a"), replace_at(PRIORITY_LABEL, "high"))
    )
    assert writes(step) == frozenset({"team-a", "high"})
    assert writes(recipes.kueue_queue("team-a")) == frozenset({"team-a"})
