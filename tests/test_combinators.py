"""Each combinator's documented behaviour on maps, lists and missing paths; purity,
persistent documents and transforms as values, for every combinator."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyrsistent import PMap, PVector, freeze, pmap, pvector

import combinators
from combinators import (
    MISSING,
    PathError,
    TransformError,
    TypeClashError,
    append_at,
    chain,
    compose,
    exists,
    expect,
    for_each,
    get_at,
    identity,
    insert_at,
    merge_by,
    prepend_at,
    remove_at,
    replace_at,
    select,
    set_default,
    update_at,
    upsert,
    when,
)
from combinators.data import strict_equal
from tests import doc_strategies
from tests.doc_strategies import KINDS, PLAIN_KINDS, json_docs, json_values, pods, transforms_for

PER_KIND = settings(
    max_examples=settings.default.max_examples // 2,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def pod() -> dict[str, Any]:
    return {
        "metadata": {"name": "p", "labels": {"team": "ml"}},
        "spec": {
            "containers": [
                {"name": "trainer", "image": "x", "env": [{"name": "A", "value": "1"}]},
                {"name": "sidecar", "image": "envoy"},
            ],
            "nodeSelector": {"zone": "a"},
            "hostIPC": False,
        },
    }


# ---------------------------------------------------------------------------
# upsert


def test_upsert_merges_maps_and_keeps_key_order() -> None:
    doc = pod()
    new = upsert("spec.nodeSelector", {"gpu": "a100", "zone": "b"})(doc)
    assert list(new["spec"]["nodeSelector"].items()) == [("zone", "b"), ("gpu", "a100")]
    assert list(new["spec"]) == ["containers", "nodeSelector", "hostIPC"]
    assert new["spec"]["containers"] is doc["spec"]["containers"]
    assert new["metadata"] is doc["metadata"]
    assert doc == pod()


def test_upsert_creates_missing_parents_at_the_end() -> None:
    new = upsert("spec.tolerations[-].key", "gpu")(upsert("metadata.annotations.a", "1")(pod()))
    assert list(new["metadata"]) == ["name", "labels", "annotations"]
    assert list(new["spec"])[-1] == "tolerations"
    assert new["spec"]["tolerations"] == [{"key": "gpu"}]


def test_upsert_merges_recursively_and_replaces_other_values() -> None:
    doc = {"a": {"b": {"c": 1, "d": [1]}, "e": "x"}}
    new = upsert("a", {"b": {"d": [2], "f": None}, "e": {"g": 1}})(doc)
    assert new == {"a": {"b": {"c": 1, "d": [2], "f": None}, "e": {"g": 1}}}
    assert upsert("a", [1])(doc) == {"a": [1]}
    assert upsert("a.e", None)(doc)["a"]["e"] is None


def test_upsert_replaces_a_null_parent() -> None:
    assert upsert("a.b", 1)({"a": None}) == {"a": {"b": 1}}


def test_upsert_match_selector_appends_with_the_selectors_fields_first() -> None:
    doc = pod()
    new = upsert("spec.containers[name=proxy]", {"image": "envoy", "name": "proxy"})(doc)
    assert list(new["spec"]["containers"][-1].items()) == [("name", "proxy"), ("image", "envoy")]
    ports = upsert("ports[containerPort=29500,protocol=TCP]", {"name": "c10d"})({"ports": []})
    assert list(ports["ports"][0].items()) == [
        ("containerPort", 29500),
        ("protocol", "TCP"),
        ("name", "c10d"),
    ]


def test_upsert_match_selector_merges_into_every_match() -> None:
    doc = {"c": [{"name": "a", "x": 1}, {"name": "b"}, {"name": "a"}]}
    assert upsert("c[name=a]", {"y": 2})(doc) == {
        "c": [{"name": "a", "x": 1, "y": 2}, {"name": "b"}, {"name": "a", "y": 2}]
    }


def test_upsert_end_appends_and_all_merges_into_every_element() -> None:
    doc = pod()
    assert len(upsert("spec.containers[-]", {"name": "c"})(doc)["spec"]["containers"]) == 3
    images = upsert("spec.containers[*]", {"imagePullPolicy": "Always"})(doc)
    assert select(images, "spec.containers[*].imagePullPolicy") == ["Always", "Always"]
    empty = {"c": []}
    assert upsert("c[*]", {"x": 1})(empty) is empty


def test_upsert_intermediate_match_that_matches_nothing_raises_without_a_phantom() -> None:
    doc = pod()
    with pytest.raises(PathError):
        upsert("spec.containers[name=trainr].image", "y")(doc)
    with pytest.raises(PathError):
        upsert("spec.initContainers[name=x].image", "y")(doc)
    assert doc == pod()


def test_upsert_that_changes_nothing_returns_its_input() -> None:
    doc = pod()
    assert upsert("spec.nodeSelector", {"zone": "a"})(doc) is doc
    assert upsert("spec.containers[name=trainer].env[name=A]", {"value": "1"})(doc) is doc
    assert upsert("spec.hostIPC", False)(doc) is doc


def test_upsert_keeps_true_apart_from_one() -> None:
    doc = {"a": 1}
    assert upsert("a", True)(doc) == {"a": True}
    assert type(upsert("a", True)(doc)["a"]) is bool
    assert upsert("a", 1.0)(doc)["a"].__class__ is float


# ---------------------------------------------------------------------------
# lists


def test_append_at_appends_and_creates() -> None:
    doc = pod()
    new = append_at("spec.tolerations", {"key": "a"}, {"key": "b"})(doc)
    assert new["spec"]["tolerations"] == [{"key": "a"}, {"key": "b"}]
    assert append_at("spec.containers[name=sidecar].args", "-v")(doc)["spec"]["containers"][1][
        "args"
    ] == ["-v"]
    assert append_at("a", 1)({"a": None}) == {"a": [1]}
    assert append_at("a", 1)({"a": (0,)}) == {"a": (0, 1)}


def test_append_at_unique_skips_what_is_there_or_given_twice() -> None:
    doc = {"t": [{"key": "a"}]}
    assert append_at("t", {"key": "a"}, unique=True)(doc) is doc
    assert append_at("t", {"key": "b"}, {"key": "b"}, unique=True)(doc) == {
        "t": [{"key": "a"}, {"key": "b"}]
    }
    assert append_at("t", True, 1, 1.0, unique=True)({"t": [1]}) == {"t": [1, True, 1.0]}


def test_append_at_to_a_map_is_a_type_clash() -> None:
    with pytest.raises(TypeClashError):
        append_at("spec.nodeSelector", 1)(pod())


def test_prepend_at_keeps_the_order_given() -> None:
    doc = {"cmd": ["python"]}
    assert prepend_at("cmd", "torchrun", "--nnodes=2")(doc) == {
        "cmd": ["torchrun", "--nnodes=2", "python"]
    }
    assert prepend_at("cmd", "python", unique=True)(doc) is doc
    assert prepend_at("new", 1)({}) == {"new": [1]}


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ({"before": "name=b"}, ["a", "x", "b", "b"]),
        ({"after": "name=b"}, ["a", "b", "b", "x"]),
        ({"before": {"name": "b"}}, ["a", "x", "b", "b"]),
        ({"after": 0}, ["a", "x", "b", "b"]),
        ({"before": -1}, ["a", "b", "x", "b"]),
        ({"after": "[name=a]"}, ["a", "x", "b", "b"]),
    ],
)
def test_insert_at_goes_before_the_first_match_or_after_the_last(
    where: Any, expected: list[str]
) -> None:
    doc = {"l": [{"name": "a"}, {"name": "b"}, {"name": "b"}]}
    new = insert_at("l", {"name": "x"}, **where)(doc)
    assert [element["name"] for element in new["l"]] == expected
    assert [element["name"] for element in doc["l"]] == ["a", "b", "b"]


def test_insert_at_needs_exactly_one_anchor_that_matches() -> None:
    with pytest.raises(TypeError):
        insert_at("l", 1)
    with pytest.raises(TypeError):
        insert_at("l", 1, before=0, after=0)
    with pytest.raises(TypeError):
        insert_at("l", 1, before=True)
    with pytest.raises(PathError):
        insert_at("l", 1, before="name=z")({"l": [{"name": "a"}]})
    doc = {"l": [1]}
    assert insert_at("l", 1, before=0, unique=True)(doc) is doc


def test_merge_by_merges_by_name_and_appends_the_rest_in_order() -> None:
    doc = pod()
    new = merge_by(
        "spec.containers[name=trainer].env",
        [{"name": "B", "value": "2"}, {"name": "A", "value": "9"}, {"name": "C", "value": "3"}],
    )(doc)
    assert new["spec"]["containers"][0]["env"] == [
        {"name": "A", "value": "9"},
        {"name": "B", "value": "2"},
        {"name": "C", "value": "3"},
    ]
    assert new["spec"]["containers"][1] is doc["spec"]["containers"][1]
    assert merge_by("spec.containers[name=trainer].env", [{"name": "A", "value": "1"}])(doc) is doc
    assert merge_by("missing", [{"name": "a"}])({}) == {"missing": [{"name": "a"}]}


def test_merge_by_items_with_the_same_key_merge_in_order() -> None:
    items = [
        {"name": "a", "v": 1},
        {"name": "a", "v": 2, "w": {"x": 1}},
        {"name": "a", "w": {"y": 2}},
    ]
    merged = {"name": "a", "v": 2, "w": {"x": 1, "y": 2}}
    assert merge_by("l", items)({}) == {"l": [merged]}
    doc = {"l": [merged]}
    assert merge_by("l", items)(doc) is doc
    assert repr(merge_by("l", items)) == f"merge_by('l', {items!r})"


def test_merge_by_composite_keys() -> None:
    ports = {"ports": [{"containerPort": 80, "protocol": "TCP"}]}
    key = ("containerPort", "protocol")
    assert merge_by("ports", [{"containerPort": 80, "protocol": "UDP"}], key=key)(ports) == {
        "ports": [
            {"containerPort": 80, "protocol": "TCP"},
            {"containerPort": 80, "protocol": "UDP"},
        ]
    }
    assert merge_by("ports", [{"containerPort": 80, "protocol": "TCP", "name": "h"}], key=key)(
        ports
    ) == {"ports": [{"containerPort": 80, "protocol": "TCP", "name": "h"}]}


def test_merge_by_checks_its_items() -> None:
    with pytest.raises(TypeError):
        merge_by("l", [1])
    with pytest.raises(ValueError):
        merge_by("l", [{"value": 1}])
    with pytest.raises(ValueError):
        merge_by("l", [], key=())
    with pytest.raises(TypeClashError):
        merge_by("spec.nodeSelector", [{"name": "a"}])(pod())


# ---------------------------------------------------------------------------
# setting, updating, removing


def test_replace_at_replaces_whole_values() -> None:
    doc = pod()
    assert replace_at("spec.nodeSelector", {"gpu": "a"})(doc)["spec"]["nodeSelector"] == {
        "gpu": "a"
    }
    assert replace_at("spec.containers", [])(doc)["spec"]["containers"] == []
    assert replace_at("spec.x.y", 1)({}) == {"spec": {"x": {"y": 1}}}
    assert replace_at("spec.containers[0].image", "y")(doc)["spec"]["containers"][0]["image"] == "y"
    assert replace_at("spec.nodeSelector", {"zone": "a"})(doc) is doc
    with pytest.raises(PathError):
        replace_at("spec.containers[7]", {})(doc)


def test_replace_at_match_replaces_every_match_or_appends() -> None:
    doc = {"c": [{"name": "a", "x": 1}, {"name": "b"}, {"name": "a"}]}
    assert replace_at("c[name=a]", {"name": "a", "y": 2})(doc) == {
        "c": [{"name": "a", "y": 2}, {"name": "b"}, {"name": "a", "y": 2}]
    }
    assert replace_at("c[name=z]", {"y": 2})(doc)["c"][-1] == {"name": "z", "y": 2}


@pytest.mark.parametrize("present", [False, 0, "", {}, [], 0.0])
def test_set_default_keeps_falsy_values(present: Any) -> None:
    doc = {"spec": {"v": present}}
    assert set_default("spec.v", "new")(doc) is doc


def test_set_default_sets_missing_and_null() -> None:
    assert set_default("spec.restartPolicy", "Never")({}) == {"spec": {"restartPolicy": "Never"}}
    assert set_default("v", 1)({"v": None}) == {"v": 1}
    doc = {"c": [{"name": "a"}]}
    assert set_default("c[name=a]", {"image": "x"})(doc) is doc
    assert set_default("c[name=b]", {"image": "x"})(doc)["c"][-1] == {"name": "b", "image": "x"}


def test_remove_at_removes_keys_and_every_matching_element() -> None:
    doc = {"v": [{"name": "a"}, {"name": "b"}, {"name": "a"}], "k": 1}
    assert remove_at("v[name=a]")(doc) == {"v": [{"name": "b"}], "k": 1}
    assert remove_at("v[0]")(doc)["v"] == [{"name": "b"}, {"name": "a"}]
    assert remove_at("v[-1]")(doc)["v"] == [{"name": "a"}, {"name": "b"}]
    assert remove_at("v[*]")(doc)["v"] == []
    assert list(remove_at("k")(doc)) == ["v"]
    assert doc["v"][0] is remove_at("v[1]")(doc)["v"][0]


def test_remove_at_where_nothing_is_there() -> None:
    doc = pod()
    for target in (
        "spec.x",
        "spec.containers[name=z]",
        "spec.containers[9]",
        "x.y.z",
        "spec.containers[-]",
    ):
        assert remove_at(target)(doc) is doc
        with pytest.raises(PathError):
            remove_at(target, missing_ok=False)(doc)
    with pytest.raises(TypeClashError):
        remove_at("")(doc)


def test_update_at_applies_the_function() -> None:
    doc = {"spec": {"grace": 30, "c": [{"args": ["a"]}, {}]}}
    assert update_at("spec.grace", lambda s: s * 2)(doc)["spec"]["grace"] == 60
    new = update_at("spec.c[*].args", lambda a: [*a, "--fast"], default=[])(doc)
    assert new["spec"]["c"] == [{"args": ["a", "--fast"]}, {"args": ["--fast"]}]
    assert update_at("a.b", len, default="xyz")({}) == {"a": {"b": 3}}
    assert update_at("spec.grace", lambda s: s)(doc) is doc
    with pytest.raises(PathError):
        update_at("spec.missing", str)(doc)
    with pytest.raises(PathError):
        update_at("spec.c[-]", str)(doc)


def test_update_at_gives_a_fresh_default_each_time() -> None:
    default: dict[str, Any] = {"n": [1]}
    transform = update_at("x", lambda value: value, default=default)
    first = transform({})
    first["x"]["n"].append(2)
    assert transform({}) == {"x": {"n": [1]}}
    default["n"].append(3)
    assert transform({}) == {"x": {"n": [1]}}


# ---------------------------------------------------------------------------
# control


def test_for_each_applies_a_relative_transform() -> None:
    doc = pod()
    new = for_each("spec.containers[*]", append_at("args", "--fast"))(doc)
    assert select(new, "spec.containers[*].args") == [["--fast"], ["--fast"]]
    assert for_each("spec.initContainers[*]", append_at("args", "-v"))(doc) is doc
    assert for_each("spec.containers[name=z]", upsert("x", 1))(doc) is doc
    assert (
        for_each("spec.containers[name=sidecar].image", str.upper)(doc)["spec"]["containers"][1][
            "image"
        ]
        == "ENVOY"
    )
    assert for_each("spec.containers[*]", identity)(doc) is doc


def test_when_with_a_predicate_or_a_path() -> None:
    doc = pod()
    gpu = upsert("spec.nodeSelector.pool", "gpu")
    assert when("spec.hostIPC", gpu)(doc)["spec"]["nodeSelector"]["pool"] == "gpu"
    assert when("spec.hostNetwork", gpu)(doc) is doc
    assert when(lambda d: "metadata" in d, gpu)(doc)["spec"]["nodeSelector"]["pool"] == "gpu"
    assert (
        when(lambda d: False, gpu, otherwise=remove_at("spec.hostIPC"))(doc)["spec"].get(
            "hostIPC", MISSING
        )
        is MISSING
    )
    with pytest.raises(TypeError):
        when(3, gpu)  # type: ignore[arg-type]


def test_expect_returns_the_document_itself() -> None:
    doc = pod()
    assert expect("spec.containers[*]", 2)(doc) is doc
    assert expect("spec.containers[*]", "1+")(doc) is doc
    assert expect("spec.containers[name=trainer]")(doc) is doc
    assert expect("spec.initContainers[*]", 0)(doc) is doc
    assert expect("spec.containers[*]", lambda n: n % 2 == 0)(doc) is doc


def test_select_get_at_exists() -> None:
    doc = pod()
    assert select(doc, "spec.containers[*].image") == ["x", "envoy"]
    assert select(doc, "spec.containers[-]") == []
    assert select(doc, "spec.nope[*]") == []
    assert get_at(doc, "spec.containers[name=sidecar].image") == "envoy"
    assert get_at(doc, "spec.containers[-1].name") == "sidecar"
    assert get_at(doc, "spec.nope", default=None) is None
    assert get_at(doc, "") is doc
    assert exists(doc, "spec.hostIPC") and not exists(doc, "spec.hostNetwork")
    with pytest.raises(PathError):
        get_at(doc, "spec.containers[-]")
    with pytest.raises(TypeClashError):
        get_at(doc, "spec.hostIPC.x")


def test_compose_and_chain_order() -> None:
    first, second = replace_at("a", 1), replace_at("a", 2)
    assert compose(first, second)({}) == {"a": 1}
    assert chain(first, second)({}) == {"a": 2}
    assert compose(first) is first and chain() is identity
    with pytest.raises(TypeError):
        chain(3)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# properties for every combinator


def _containers(value: Any, found: list[Any] | None = None) -> list[Any]:
    found = [] if found is None else found
    if isinstance(value, (dict, list)):
        found.append(value)
        for item in value.values() if isinstance(value, dict) else value:
            _containers(item, found)
    return found


def _scribble(value: Any, spare: set[int]) -> None:
    """Change, in place, every container of ``value`` that is not in ``spare``."""
    for container in _containers(value):
        if id(container) in spare:
            continue
        if isinstance(container, dict):
            container["scribbled"] = [1]
        else:
            container.append({"scribbled": 1})


def _draw_transform(data: st.DataObject, doc: Any, kind: str) -> Any:
    return data.draw(transforms_for(doc, kind=kind))


@pytest.mark.parametrize("kind", KINDS)
@PER_KIND
@given(data=st.data(), doc=json_docs() | pods())
def test_no_transform_mutates_its_input_or_its_values(
    kind: str, data: st.DataObject, doc: dict[str, Any]
) -> None:
    transform = _draw_transform(data, doc, kind)
    before = copy.deepcopy(doc)
    try:
        first = transform(doc)
    except TransformError:
        assert doc == before and repr(doc) == repr(before)
        return
    assert repr(doc) == repr(before)
    expected = copy.deepcopy(first)
    # Whatever the output does not share with the input is the caller's to change:
    # the transform must not have kept any of it.
    _scribble(first, {id(container) for container in _containers(doc)})
    assert repr(doc) == repr(before)
    again = transform(doc)
    assert repr(again) == repr(expected)
    assert repr(doc) == repr(before)


@pytest.mark.parametrize(
    "kind",
    [
        "upsert",
        "replace_at",
        "set_default",
        "append_at",
        "prepend_at",
        "insert_at",
        "merge_by",
        "update_at",
    ],
)
@PER_KIND
@given(data=st.data(), doc=json_docs() | pods())
def test_values_given_to_a_factory_are_copied(
    kind: str, data: st.DataObject, doc: dict[str, Any]
) -> None:
    value = data.draw(
        st.dictionaries(st.sampled_from(("name", "a", "b")), json_values(4), max_size=3).map(
            lambda v: {**v, "name": "a"}
        )
    )
    target = data.draw(doc_strategies.paths_into(doc))
    build = {
        "upsert": lambda v: upsert(target, v),
        "replace_at": lambda v: replace_at(target, v),
        "set_default": lambda v: set_default(target, v),
        "append_at": lambda v: append_at(target, v),
        "prepend_at": lambda v: prepend_at(target, v),
        "insert_at": lambda v: insert_at(target, v, after=-1),
        "merge_by": lambda v: merge_by(target, [v]),
        "update_at": lambda v: update_at(target, doc_strategies.same_value, default=v),
    }[kind]
    transform, twin = build(value), build(copy.deepcopy(value))
    assert transform == twin and hash(transform) == hash(twin)
    _scribble(value, set())
    try:
        got = repr(transform(doc))
    except TransformError as err:
        with pytest.raises(type(err)):
            twin(doc)
        return
    assert got == repr(twin(doc))


def _persistent_only(value: Any) -> bool:
    if isinstance(value, (dict, list)):
        return False
    if isinstance(value, PMap):
        return all(_persistent_only(item) for item in value.values())
    if isinstance(value, PVector):
        return all(_persistent_only(item) for item in value)
    return True


@pytest.mark.parametrize("kind", KINDS)
@PER_KIND
@given(data=st.data(), doc=json_docs() | pods())
def test_persistent_in_persistent_out(kind: str, data: st.DataObject, doc: dict[str, Any]) -> None:
    transform = _draw_transform(data, doc, kind)
    frozen = freeze(doc)
    try:
        plain = transform(doc)
    except TransformError as err:
        with pytest.raises(type(err)):
            transform(frozen)
        return
    result = transform(frozen)
    assert strict_equal(result, plain)
    if not isinstance(plain, dict):
        # A root path may replace the whole document with a scalar; after that,
        # nothing tells a later step that the document was persistent.
        return
    assert isinstance(result, PMap)
    assert _persistent_only(result)
    if plain is doc:
        # Law: a frozen document comes back itself wherever a plain one does. (A
        # composition may change a value and change it back: equal, yet new, for both.)
        assert result is frozen


def test_persistent_documents_get_frozen_values() -> None:
    doc = pmap({"spec": pmap({"c": pvector([pmap({"name": "a"})])})})
    new = chain(
        upsert("spec.c[name=b]", {"x": [1]}),
        append_at("spec.t", {"k": 1}),
        update_at("spec.n", lambda v: [v], default={"a": 1}),
        for_each("spec.c[*]", lambda c: {**c, "seen": True}),
    )(doc)
    assert _persistent_only(new)
    assert new["spec"]["c"][1] == {"name": "b", "x": [1], "seen": True}


def test_plain_documents_keep_key_order_and_new_keys_go_last() -> None:
    doc = {"z": 1, "a": {"y": 1, "b": 2}, "m": []}
    new = chain(
        upsert("a.c", 3),
        upsert("a.y", 9),
        remove_at("z"),
        upsert("n", 0),
        merge_by("m", [{"name": "x", "v": 1}]),
    )(doc)
    assert type(new) is dict
    assert list(new) == ["a", "m", "n"]
    assert list(new["a"]) == ["y", "b", "c"]
    assert list(doc) == ["z", "a", "m"] and list(doc["a"]) == ["y", "b"]


_NAMESPACE = {
    **vars(combinators),
    **{fn.__name__: fn for fn in (*doc_strategies.FUNCTIONS, *doc_strategies.KIND_KEEPING)},
    "has_many_keys": doc_strategies.has_many_keys,
}


@pytest.mark.parametrize("kind", KINDS)
@PER_KIND
@given(data=st.data(), doc=json_docs())
def test_transforms_are_values(kind: str, data: st.DataObject, doc: dict[str, Any]) -> None:
    transform = _draw_transform(data, doc, kind)
    rebuilt = eval(repr(transform), _NAMESPACE)
    assert rebuilt == transform and hash(rebuilt) == hash(transform)
    assert repr(rebuilt) == repr(transform)
    if kind in PLAIN_KINDS:  # built from plain values only: the combinators suffice
        assert eval(repr(transform), dict(vars(combinators))) == transform
    other = _draw_transform(data, doc, kind)
    if other == transform:
        assert hash(other) == hash(transform)
        assert _same_outcome(other, transform, doc)


def _same_outcome(left: Any, right: Any, doc: Any) -> bool:
    try:
        result = left(doc)
    except TransformError as err:
        try:
            right(doc)
        except TransformError as other:
            return type(other) is type(err)
        return False
    return strict_equal(result, right(doc))


@pytest.mark.parametrize(
    ("left", "right"),
    [
        (append_at("a", 1), prepend_at("a", 1)),
        (upsert("a", 1), upsert("a", True)),
        (upsert("a", 1), upsert("a", 1.0)),
        (upsert("a", [1]), upsert("a", [True])),
        (upsert("a[x=1]", {}), upsert("a[x=true]", {})),
        (upsert("a", 1), replace_at("a", 1)),
        (remove_at("a"), remove_at("a", missing_ok=False)),
        (insert_at("a", 1, before=0), insert_at("a", 1, after=0)),
        (merge_by("a", [{"name": "x"}]), merge_by("a", [{"name": "x"}], key=("name",))),
        (compose(upsert("a", 1), upsert("b", 1)), chain(upsert("a", 1), upsert("b", 1))),
    ],
)
def test_different_transforms_are_not_equal(left: Any, right: Any) -> None:
    assert left != right


@pytest.mark.parametrize(
    ("left", "right"),
    [
        (upsert("a", {"x": 1}), upsert(combinators.path("a"), {"x": 1})),
        (remove_at("a"), remove_at("a", missing_ok=True)),
        (expect("a"), expect("a", 1)),
        (compose(upsert("a", 1), upsert("b", 1)), chain(upsert("b", 1), upsert("a", 1))),
        (when("a", upsert("b", 1)), when("a", upsert("b", 1), otherwise=identity)),
        (for_each("a[*]", upsert("b", 1)), for_each("a[*]", upsert("b", 1))),
    ],
)
def test_equal_parameters_make_equal_transforms(left: Any, right: Any) -> None:
    assert left == right and hash(left) == hash(right)


def test_repr_reads_as_the_call() -> None:
    assert repr(upsert("spec.nodeSelector", {"gpu": "a100"})) == (
        "upsert('spec.nodeSelector', {'gpu': 'a100'})"
    )
    assert repr(insert_at("l", 1, before="name=x", unique=True)) == (
        "insert_at('l', 1, before='name=x', unique=True)"
    )
    assert repr(merge_by("p", [{"a": 1, "b": 2}], key=("a", "b"))) == (
        "merge_by('p', [{'a': 1, 'b': 2}], key=('a', 'b'))"
    )
    assert repr(update_at("a", doc_strategies.wrap_in_list, default=[])) == (
        "update_at('a', wrap_in_list, default=[])"
    )
    assert repr(expect("a", "1+")) == "expect('a', count='1+')"
    assert repr(identity) == "identity"


def test_fold_conflicts_option_is_glue_to_checked_fold() -> None:
    # fold(..., conflicts=) keeps last-wins by default; "warn" and "error" report
    import warnings

    from combinators import ArgumentError, fold
    from combinators.conflicts import ConflictError, ConflictWarning

    steps = [upsert("spec.nodeSelector.pool", "a"), upsert("spec.nodeSelector.pool", "b")]
    assert fold(steps, {}) == {"spec": {"nodeSelector": {"pool": "b"}}}
    with pytest.raises(ConflictError, match=r"spec\.nodeSelector\.pool"):
        fold(steps, {}, conflicts="error", labels=["base", "team"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert fold(steps, {}, conflicts="warn") == {"spec": {"nodeSelector": {"pool": "b"}}}
    assert [type(w.message) for w in caught] == [ConflictWarning]
    with pytest.raises(ArgumentError, match="did you mean error") as err:
        fold(steps, {}, conflicts="eror")
    assert err.value.argument == "conflicts"
