"""Only JSON-shaped data gets in; flags are booleans; errors name the whole path.

What a transform inserts may only be what JSON can carry (str, int, float,
bool, None, lists, maps with string keys): anything else is refused when
the transform is built, naming the place inside the value. Flags refuse
truthy strings. Errors raised while a transform applies name the path in
the whole document, inside ``for_each`` too.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from typing import Any

import pytest

from combinators import (
    ArgumentError,
    ArgumentTypeError,
    PathError,
    Transform,
    TransformError,
    TypeClashError,
    append_at,
    for_each,
    insert_at,
    merge_by,
    prepend_at,
    remove_at,
    replace_at,
    set_default,
    update_at,
    upsert,
)
from transforms import build_step, loads_overlay, overlay
from transforms.forms.markers import AppendUnique, Replace
from transforms.forms.partial import JOIN
from transforms.forms.patches import InvalidPatchError, json_patch, merge_patch, strategic_merge

ODD = {
    "a set": {"a", "b"},
    "bytes": b"ml",
    "a datetime": datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc),
    "an object": object(),
    "NaN": float("nan"),  # JSON numbers are finite
    "infinity": float("inf"),
    "minus infinity": float("-inf"),
}

BUILDERS: dict[str, tuple[Callable[[Any], Any], str]] = {
    # factory given a value with ``odd`` inside, and the place the error must name
    "upsert": (
        lambda odd: upsert("metadata", {"labels": {"team": odd}}),
        "upsert(): value.labels.team is",
    ),
    "replace_at": (
        lambda odd: replace_at("metadata.finalizers", ["a", odd]),
        "replace_at(): value[1] is",
    ),
    "set_default": (
        lambda odd: set_default("spec", {"x": [{"y": odd}]}),
        "set_default(): value.x[0].y is",
    ),
    "update_at default": (
        lambda odd: update_at("spec.x", list, default={"y": odd}),
        "update_at(): default.y is",
    ),
    "append_at": (
        lambda odd: append_at("metadata.finalizers", "a", odd),
        "append_at(): items[1] is",
    ),
    "prepend_at": (
        lambda odd: prepend_at("spec.tolerations", {"key": odd}),
        "prepend_at(): items[0].key is",
    ),
    "insert_at": (
        lambda odd: insert_at("spec.containers", {"name": "s", "x": odd}, before=0),
        "insert_at(): items[0].x is",
    ),
    "merge_by": (
        lambda odd: merge_by("spec.containers", [{"name": "t", "image": odd}]),
        "merge_by(): items[0].image is",
    ),
    "overlay": (
        lambda odd: overlay({"metadata": {"labels": {"team": odd}}}),
        "overlay(): partial_pod.metadata.labels.team is",
    ),
    "overlay marker": (
        lambda odd: overlay({"spec": {"tolerations": AppendUnique([odd])}}),
        "overlay(): partial_pod.spec.tolerations[0] is",
    ),
    "merge_patch": (
        lambda odd: merge_patch({"metadata": {"finalizers": [odd]}}),
        "merge_patch(): patch.metadata.finalizers[0] is",
    ),
    "strategic_merge": (
        lambda odd: strategic_merge({"metadata": {"labels": {"a": odd}}}),
        "strategic_merge(): patch.metadata.labels.a is",
    ),
    "json_patch": (
        lambda odd: json_patch([{"op": "add", "path": "/a", "value": {"b": odd}}]),
        "json_patch(): ops: op 0 (add): value.b is",
    ),
}


@pytest.mark.parametrize("odd", sorted(ODD))
@pytest.mark.parametrize("builder", sorted(BUILDERS))
def test_what_json_cannot_carry_is_refused_when_built_naming_the_place(
    builder: str, odd: str
) -> None:
    build, place = BUILDERS[builder]
    with pytest.raises(ArgumentError, match=re.escape(place)) as caught:
        build(ODD[odd])
    assert "only strings, numbers, booleans, null, lists and maps with string keys" in str(
        caught.value
    )


@pytest.mark.parametrize("builder", sorted(BUILDERS))
def test_a_key_that_is_no_string_is_refused(builder: str) -> None:
    build, _ = BUILDERS[builder]
    with pytest.raises(ArgumentError, match=r"has a key that is not a string: 1 \(int\)"):
        build({1: "x"})


@pytest.mark.parametrize("builder", sorted(BUILDERS))
def test_json_values_are_accepted(builder: str) -> None:
    # every JSON kind is accepted, and lands in the document as given
    build, _ = BUILDERS[builder]
    value = {"s": "x", "i": 1, "f": 1.5, "b": True, "n": None, "l": [1, [2]], "m": {"k": {}}}
    transform = build(value)
    assert isinstance(transform, Transform)
    assert repr(value)[1:-1] in repr(transform)


def test_a_yaml_timestamp_never_lands_in_a_pod_as_a_datetime() -> None:
    # read as a string, or refused naming the place: never a datetime in the pod
    text = "- op: upsert\n  path: metadata\n  value:\n    labels:\n      created: 2026-01-01\n"
    try:
        step = loads_overlay(text)
    except TransformError as err:
        assert "4:5:" in str(err) and "value.labels.created is a date" in str(err)
    else:
        pod: dict[str, Any] = step({})
        assert type(pod["metadata"]["labels"]["created"]) is str


FLAGS = {
    "append_at unique": lambda value: append_at("spec.tolerations", {"key": "a"}, unique=value),
    "prepend_at unique": lambda value: prepend_at("spec.args", "-v", unique=value),
    "insert_at unique": lambda value: insert_at("spec.args", "-v", before=0, unique=value),
    "remove_at missing_ok": lambda value: remove_at("spec.hostIPC", missing_ok=value),
}


@pytest.mark.parametrize("value", ["false", "no", "", 0, 1, None])
@pytest.mark.parametrize("flag", sorted(FLAGS))
def test_flags_are_booleans(flag: str, value: Any) -> None:
    with pytest.raises(ArgumentTypeError, match=r"is a flag, true or false") as caught:
        FLAGS[flag](value)
    assert caught.value.argument == flag.split()[1]
    FLAGS[flag](True)
    FLAGS[flag](False)


@pytest.mark.parametrize(
    "step",
    [
        {"op": "append_at", "path": "spec.tolerations", "items": [{"key": "a"}], "unique": "false"},
        {"op": "remove", "path": "spec.hostIPC", "missing_ok": "no"},
        {"op": "insert_at", "path": "spec.args", "items": ["-v"], "before": 0, "unique": "yes"},
        {"recipe": "host_network", "enabled": "false"},
    ],
)
def test_flags_in_yaml_pipelines_are_booleans(step: dict[str, Any]) -> None:
    with pytest.raises(ArgumentTypeError, match="is a flag, true or false; got a string"):
        build_step(step)


@pytest.mark.parametrize("key", ["__put__:", "__del__:"])
def test_operator_keys_without_a_field_are_refused(key: str) -> None:
    with pytest.raises(ArgumentError, match=f"'{key}' at spec names no field"):
        overlay({"spec": {key: 1}})
    with pytest.raises(ArgumentError, match=f"'{key}' at .* names no field"):
        overlay({"spec": {"nodeSelector": Replace({key: 1})}})


def test_expected_a_list_names_the_path() -> None:
    pod = {"spec": {"tolerations": {"key": "a"}}}
    with pytest.raises(
        TypeClashError,
        match=r"expected a list, found a map "
        r"\(part 2 of spec.tolerations\)",
    ):
        append_at("spec.tolerations", {"key": "b"})(pod)


def test_an_error_inside_for_each_names_the_elements_full_path() -> None:
    pod = {"spec": {"containers": [{"name": "a", "args": ["-v"]}, {"name": "b", "args": {"x": 1}}]}}
    with pytest.raises(TypeClashError) as caught:
        for_each("spec.containers[*]", append_at("args", "--fast"))(pod)
    assert str(caught.value.path) == "spec.containers[1].args"
    assert "(part 4 of spec.containers[1].args)" in str(caught.value)
    with pytest.raises(TypeClashError) as caught:
        for_each("spec.containers[name=b]", append_at("args", "--fast"))(pod)
    assert str(caught.value.path) == "spec.containers[1].args"
    # nested: each for_each adds the way to the value it reached
    with pytest.raises(PathError) as missing:
        for_each("spec.containers[*]", for_each("args", remove_at("x", missing_ok=False)))(
            {"spec": {"containers": [{"args": {"x": 1}}, {"args": {"y": 2}}]}}
        )
    assert str(missing.value.path) == "spec.containers[1].args.x"


def test_json_patch_operations_that_are_not_strings_name_the_index() -> None:
    with pytest.raises(InvalidPatchError, match=r"op 1: unknown op \['add'\]") as caught:
        json_patch(
            [{"op": "test", "path": "", "value": {}}, {"op": ["add"], "path": "/a", "value": 1}]
        )
    assert caught.value.index == 1


def test_join_keys_may_be_maps_or_lists() -> None:
    # no hashing error: keys are compared strictly, whatever their kind
    join = overlay({"spec": {JOIN("containers", on="name"): [{"name": {"x": 1}, "image": "b"}]}})
    pod = {"spec": {"containers": [{"name": {"x": 1}, "image": "a"}, {"name": ["y"]}]}}
    assert join(pod)["spec"]["containers"] == [{"name": {"x": 1}, "image": "b"}, {"name": ["y"]}]
