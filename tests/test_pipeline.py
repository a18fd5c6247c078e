"""Pipelines: every op, recipes (explicit catalogs and the installed one), patches and overlays."""

from __future__ import annotations

from typing import Any

import pytest

from combinators import (
    ArgumentError,
    ArgumentTypeError,
    Transform,
    TransformError,
    append_at,
    chain,
    expect,
    for_each,
    identity,
    insert_at,
    merge_by,
    prepend_at,
    remove_at,
    replace_at,
    set_default,
    upsert,
    when,
)
from transforms import (
    as_transform,
    build_pipeline,
    build_step,
    json_patch,
    loads_overlay,
    merge_patch,
    overlay,
    strategic_merge,
)
from transforms.errors import UnknownNameError
from transforms.forms.catalog import bind_arguments, build_recipe, recipe_catalog
from transforms.forms.pipeline import OPS, STEP_KEYS


def make_pod() -> dict[str, Any]:
    return {
        "spec": {
            "containers": [{"name": "trainer", "image": "t:1"}],
            "tolerations": [{"key": "a"}],
            "hostIPC": True,
        }
    }


@pytest.mark.parametrize(
    ("step", "wanted"),
    [
        (
            {"op": "upsert", "path": "spec.nodeSelector", "value": {"gpu": "a100"}},
            upsert("spec.nodeSelector", {"gpu": "a100"}),
        ),
        (
            {"op": "replace_at", "path": "spec.tolerations", "value": []},
            replace_at("spec.tolerations", []),
        ),
        (
            {"op": "replace", "path": "spec.tolerations", "value": []},
            replace_at("spec.tolerations", []),
        ),
        (
            {"op": "set_default", "path": "spec.restartPolicy", "value": "Never"},
            set_default("spec.restartPolicy", "Never"),
        ),
        (
            {"op": "default", "path": "spec.restartPolicy", "value": "Never"},
            set_default("spec.restartPolicy", "Never"),
        ),
        ({"op": "remove_at", "path": "spec.hostIPC"}, remove_at("spec.hostIPC")),
        (
            {"op": "remove", "path": "spec.hostIPC", "missing_ok": False},
            remove_at("spec.hostIPC", missing_ok=False),
        ),
        (
            {"op": "append_at", "path": "spec.tolerations", "items": [{"key": "b"}, {"key": "c"}]},
            append_at("spec.tolerations", {"key": "b"}, {"key": "c"}),
        ),
        (
            {"op": "append", "path": "spec.tolerations", "value": {"key": "b"}, "unique": True},
            append_at("spec.tolerations", {"key": "b"}, unique=True),
        ),
        (
            {"op": "prepend_at", "path": "spec.tolerations", "items": [{"key": "b"}]},
            prepend_at("spec.tolerations", {"key": "b"}),
        ),
        (
            {
                "op": "insert_at",
                "path": "spec.containers",
                "items": [{"name": "s"}],
                "after": "name=trainer",
            },
            insert_at("spec.containers", {"name": "s"}, after="name=trainer"),
        ),
        (
            {
                "op": "merge_by",
                "path": "spec.containers",
                "items": [{"name": "trainer", "image": "2"}],
            },
            merge_by("spec.containers", [{"name": "trainer", "image": "2"}]),
        ),
        (
            {"op": "merge_by", "path": "ports", "items": [], "key": ["containerPort", "protocol"]},
            merge_by("ports", [], key=("containerPort", "protocol")),
        ),
        (
            {
                "op": "for_each",
                "path": "spec.containers[*]",
                "transform": [{"op": "upsert", "path": "imagePullPolicy", "value": "Always"}],
            },
            for_each("spec.containers[*]", upsert("imagePullPolicy", "Always")),
        ),
        (
            {
                "op": "when",
                "path": "spec.tolerations",
                "transform": {"op": "set_default", "path": "spec.restartPolicy", "value": "Never"},
                "otherwise": [
                    {"op": "remove_at", "path": "spec.x"},
                    {"op": "remove_at", "path": "spec.y"},
                ],
            },
            when(
                "spec.tolerations",
                set_default("spec.restartPolicy", "Never"),
                otherwise=chain(remove_at("spec.x"), remove_at("spec.y")),
            ),
        ),
        ({"op": "when", "predicate": "spec.x", "transform": []}, when("spec.x", identity)),
        (
            {"op": "expect", "path": "spec.containers[name=trainer]"},
            expect("spec.containers[name=trainer]"),
        ),
        (
            {"op": "expect", "path": "spec.containers[*]", "count": "1+"},
            expect("spec.containers[*]", "1+"),
        ),
        ({"overlay": {"spec": {"hostIPC": False}}}, overlay({"spec": {"hostIPC": False}})),
        (
            {"json_patch": [{"op": "remove", "path": "/spec/hostIPC"}]},
            json_patch([{"op": "remove", "path": "/spec/hostIPC"}]),
        ),
        ({"merge_patch": {"spec": {"hostIPC": None}}}, merge_patch({"spec": {"hostIPC": None}})),
        (
            {"strategic": {"spec": {"containers": [{"name": "trainer", "image": "2"}]}}},
            strategic_merge({"spec": {"containers": [{"name": "trainer", "image": "2"}]}}),
        ),
        (
            {"strategic": {"containers": []}, "kind": "PodSpec"},
            strategic_merge({"containers": []}, kind="PodSpec"),
        ),
    ],
)
def test_each_step_kind_builds_the_combinator(step: dict[str, Any], wanted: Any) -> None:
    assert build_step(step) == wanted


def test_every_op_and_step_kind_is_covered() -> None:
    assert set(OPS) - {"update_at"} <= {
        "upsert",
        "replace_at",
        "set_default",
        "remove_at",
        "append_at",
        "prepend_at",
        "insert_at",
        "merge_by",
        "for_each",
        "when",
        "expect",
    }
    assert STEP_KEYS == (
        "op",
        "recipe",
        "overlay",
        "json_patch",
        "merge_patch",
        "strategic",
        "workload_level",
    )


def test_steps_apply_in_order() -> None:
    transform = build_pipeline(
        [
            {"op": "replace_at", "path": "spec.hostIPC", "value": False},
            {"op": "replace_at", "path": "spec.hostIPC", "value": "last"},
        ]
    )
    assert transform(make_pod())["spec"]["hostIPC"] == "last"
    assert build_pipeline([]) is identity


def test_building_does_not_change_the_step() -> None:
    step = {"op": "append", "path": "spec.tolerations", "value": {"key": "b"}}
    build_step(step)
    assert step == {"op": "append", "path": "spec.tolerations", "value": {"key": "b"}}


@pytest.mark.parametrize(
    ("step", "error", "message"),
    [
        ({"op": "upsrt", "path": "a", "value": 1}, LookupError, "did you mean upsert"),
        ({"op": "update_at", "path": "a"}, LookupError, "Python function"),
        ({"op": "upsert", "path": "a"}, TypeError, "missing a required argument: 'value'"),
        ({"op": "upsert", "path": "a", "value": 1, "vlaue": 2}, TypeError, "did you mean value"),
        ({"op": "insert_at", "path": "a", "items": [1]}, TypeError, "before= or after="),
        ({"op": "merge_by", "path": "a", "items": [{"x": 1}]}, ValueError, "no name field"),
        ({"overlay": {}, "json_patch": []}, ValueError, "this one has overlay, json_patch"),
        ({"patch": {}}, ValueError, "exactly one of"),
        ({"merge_patch": {}, "kind": "Pod"}, TypeError, "takes no kind"),
        ({"strategic": {}, "kind": "Deployment"}, ValueError, "Deployment"),
        ("upsert", TypeError, "a pipeline step is a map"),
    ],
)
def test_bad_steps_say_what_is_wrong(step: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        build_step(step)


# ---------------------------------------------------------------- recipes


def team(name: str, cost_center: str | None = None) -> Any:
    """Label the pod with its team."""
    labels = {"team": name} if cost_center is None else {"team": name, "cost": cost_center}
    return upsert("metadata.labels", labels)


def labels(labels: dict[str, str] | None = None, /, **more: str) -> Any:
    """Add labels."""
    return upsert("metadata.labels", {**(labels or {}), **more})


def ports(*numbers: int, protocol: str = "TCP") -> Any:
    """Open ports on the first container."""
    return append_at(
        "spec.containers[0].ports", *({"containerPort": n, "protocol": protocol} for n in numbers)
    )


CATALOG = {"team": team, "labels": labels, "ports": ports}


def test_build_recipe_from_an_explicit_catalog() -> None:
    assert build_recipe("team", {"name": "ml"}, CATALOG) == team("ml")
    assert build_recipe("team", {"name": "ml", "cost_center": "42"}, CATALOG) == team("ml", "42")
    assert build_recipe("labels", {"labels": {"a": "b"}, "c": "d"}, CATALOG) == labels(
        {"a": "b"}, c="d"
    )
    assert build_recipe("labels", {"c": "d"}, CATALOG) == labels(c="d")
    assert build_recipe("ports", {"numbers": [80, 443], "protocol": "UDP"}, CATALOG) == ports(
        80, 443, protocol="UDP"
    )


def test_recipe_errors() -> None:
    with pytest.raises(LookupError, match="unknown recipe 'tema'; did you mean team"):
        build_recipe("tema", {}, CATALOG)
    with pytest.raises(LookupError, match="no recipe catalog is installed"):
        build_recipe("team", {}, {})
    with pytest.raises(TypeError, match="takes no argument 'nmae'; did you mean name"):
        build_recipe("team", {"nmae": "ml"}, CATALOG)
    with pytest.raises(TypeError, match="missing a required argument: 'name'"):
        build_recipe("team", {}, CATALOG)
    with pytest.raises(TypeError, match="'numbers' takes a list"):
        build_recipe("ports", {"numbers": 80}, CATALOG)


def test_bind_arguments_positional_only_and_star_items() -> None:
    bound = bind_arguments(labels, {"labels": {"a": "b"}, "x": "y"}, "recipe 'labels'")
    assert (bound.args, bound.kwargs) == (({"a": "b"},), {"x": "y"})
    bound = bind_arguments(ports, {"numbers": [1, 2]}, "recipe 'ports'")
    assert bound.args == (1, 2)


def installed_catalog() -> Any:
    try:
        catalog = recipe_catalog()
    except Exception as err:  # a catalog package that is being written may not import yet
        pytest.skip(f"the installed recipe catalog cannot be loaded: {err}")
    if not catalog:
        pytest.skip(
            "no recipe catalog is installed under the entry point group "
            "'podfold.recipes' (pip install podfold to publish its catalog)"
        )
    return catalog


def test_installed_catalog_through_the_entry_point() -> None:
    catalog = installed_catalog()
    assert "add_toleration" in catalog
    loaded = loads_overlay("- {recipe: add_toleration, key: nvidia.com/gpu}\n")
    assert loaded == catalog["add_toleration"]("nvidia.com/gpu")
    tolerations = loaded({"spec": {}})["spec"]["tolerations"]
    assert tolerations[0]["key"] == "nvidia.com/gpu"
    with pytest.raises(LookupError, match="did you mean add_toleration"):
        build_step({"recipe": "add_tolration"})


def test_installed_catalog_is_read_only() -> None:
    catalog = installed_catalog()
    with pytest.raises(TypeError):
        catalog["mine"] = team  # type: ignore[index]


# ---------------------------------------------------------------- the error contract


@pytest.mark.parametrize(
    ("step", "error", "argument"),
    [
        ({"op": "upsrt", "path": "a", "value": 1}, UnknownNameError, "op"),
        ({"op": "update_at", "path": "a"}, UnknownNameError, "op"),
        ({"op": "upsert", "path": "a"}, ArgumentTypeError, "value"),
        ({"op": "upsert", "value": 1}, ArgumentTypeError, "path"),
        ({"op": "upsert", "path": "a", "value": 1, "vlaue": 2}, ArgumentTypeError, "vlaue"),
        ({"op": "append_at", "path": "a", "items": 1}, ArgumentTypeError, "items"),
        ({"overlay": {}, "json_patch": []}, ArgumentError, "step"),
        ({"merge_patch": {}, "kind": "Pod"}, ArgumentTypeError, "kind"),
        ({"overlay": {}, "x": 1}, ArgumentTypeError, "x"),
        ({"recipe": "tema"}, UnknownNameError, "recipe"),
        ({"recipe": "team", "nmae": "ml"}, ArgumentTypeError, "nmae"),
        ("upsert", ArgumentTypeError, "step"),
    ],
)
def test_bad_steps_are_argument_errors_naming_the_argument(
    step: Any, error: type[Exception], argument: str
) -> None:
    with pytest.raises(error) as caught:
        build_step(step, CATALOG)
    err = caught.value
    assert isinstance(err, ArgumentError) and isinstance(err, TransformError)
    assert err.argument == argument
    assert argument in str(err)


def test_unknown_names_are_lookup_errors_with_their_near_misses() -> None:
    with pytest.raises(UnknownNameError) as caught:
        build_step({"op": "apend", "path": "a"})
    assert isinstance(caught.value, LookupError)
    assert caught.value.near_misses[0] == "append"


def test_a_pipeline_names_the_step_that_is_wrong() -> None:
    with pytest.raises(ArgumentError) as caught:
        build_pipeline(
            [
                {"op": "remove", "path": "a"},
                {"op": "for_each", "path": "b[*]", "transform": [{"op": "upsrt"}]},
            ]
        )
    assert caught.value.steps == ("step 2 of 2", "step 1 of 1")
    assert str(caught.value).endswith("[in step 2 of 2 > step 1 of 1]")
    with pytest.raises(ArgumentTypeError, match="a pipeline is a list of steps"):
        build_pipeline({"op": "remove", "path": "a"})  # type: ignore[arg-type]


def test_a_catalogs_own_checks_come_out_as_argument_errors_naming_the_recipe() -> None:
    def gpu(count: int) -> Any:
        """Ask for GPUs."""
        if count < 1:
            raise ValueError("count must be at least 1")
        return upsert("spec.x", count)

    def strict(count: int) -> Any:
        raise ArgumentError("must be at least 1", argument="count", value=count)

    with pytest.raises(ArgumentError) as caught:
        build_recipe("gpu", {"count": 0}, {"gpu": gpu})
    assert caught.value.factory == "gpu" and isinstance(caught.value.__cause__, ValueError)
    assert str(caught.value) == "gpu(): count: ValueError: count must be at least 1"
    with pytest.raises(ArgumentError) as caught:
        build_recipe("strict", {"count": 0}, {"strict": strict})
    assert str(caught.value) == "strict(): count: must be at least 1"


def test_as_transform_refuses_what_is_no_overlay() -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        as_transform(42)
    assert (caught.value.argument, caught.value.factory, caught.value.value) == (
        "value",
        "as_transform",
        42,
    )


def test_as_transform_makes_a_function_a_transform() -> None:
    def label(pod: Any) -> Any:
        return {**pod, "kind": "Pod"}

    transform = as_transform(label)
    assert isinstance(transform, Transform) and transform == chain(label)
    assert transform({}) == {"kind": "Pod"}
