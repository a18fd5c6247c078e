"""Writing transforms back as YAML, and the law load -> dump -> load."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combinators import (
    Transform,
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
    update_at,
    upsert,
    when,
)
from combinators.data import Owned
from tests.yaml_paths import yaml_path  # noqa: F401  (the fixture: libyaml, then pure Python)
from transforms import (
    DEL,
    JOIN,
    PUT,
    Append,
    Default,
    MergeBy,
    Prepend,
    Remove,
    Replace,
    dump_overlay,
    json_patch,
    loads_overlay,
    merge_patch,
    overlay,
    strategic_merge,
)
from transforms.forms.catalog import recipe_catalog
from transforms.forms.markers import AppendUnique
from transforms.io.dumping import dump_steps

# every test twice: on libyaml, then on pure Python (tests/yaml_paths.py)
pytestmark = pytest.mark.usefixtures("yaml_path")


def round_trip(transform: Any) -> Any:
    return loads_overlay(dump_overlay(transform), kind=None)


# ---------------------------------------------------------------- the forms written


def test_partial_pod_is_a_map_with_tags() -> None:
    transform = overlay(
        {
            "spec": {
                "tolerations": Replace([]),
                "hostIPC": Remove(),
                "restartPolicy": Default("Never"),
                "volumes": Prepend([{"name": "v"}]),
                "initContainers": Append([{"name": "i"}]),
                "imagePullSecrets": AppendUnique([{"name": "s"}]),
                "containers": MergeBy([{"name": "t", "image": "x"}]),
                "ports": MergeBy(
                    [{"containerPort": 80, "protocol": "TCP"}], key=("containerPort", "protocol")
                ),
                "env": MergeBy([{"id": 1}], key="id"),
                "args": ("--fast",),
                PUT("dnsConfig"): {},
                DEL("hostNetwork"): None,
                JOIN("imagePullSecrets", on="name"): [{"name": "s"}],
            }
        }
    )
    text = dump_overlay(transform)
    assert (
        text
        == """\
spec:
  tolerations: !replace []
  hostIPC: !remove ''
  restartPolicy: !default Never
  volumes: !prepend
  - name: v
  initContainers: !append
  - name: i
  imagePullSecrets: !append-unique
  - name: s
  containers: !merge-by
  - name: t
    image: x
  ports: !merge-by:containerPort,protocol
  - containerPort: 80
    protocol: TCP
  env: !merge-by:id
  - id: 1
  args: !!python/tuple
  - --fast
  __put__:dnsConfig: {}
  __del__:hostNetwork: null
  __join__:imagePullSecrets:name:
  - name: s
"""
    )
    assert loads_overlay(text, kind=None) == transform


def test_tagged_scalars_keep_their_types() -> None:
    values = [
        None,
        True,
        0,
        -1,
        1.5,
        1e20,
        "",
        "true",
        "1",
        "null",
        "~",
        "a: b",
        "#x",
        " x",
        "multi\nline",
        "Never",
        "é",
        "- item",
    ]
    transform = overlay(
        {f"k{i}": marker(value) for i, value in enumerate(values) for marker in [Default]}
        | {"r": Replace("yes"), "s": Replace(2)}
    )
    assert round_trip(transform) == transform


def test_pipeline_uses_the_factories_parameter_names() -> None:
    steps = dump_steps(
        chain(
            upsert("spec.nodeSelector", {"gpu": "a100"}),
            append_at("spec.tolerations", {"key": "a"}, {"key": "b"}, unique=True),
            insert_at("spec.containers", {"name": "s"}, before="name=trainer"),
            merge_by(
                "ports",
                [{"containerPort": 80, "protocol": "TCP"}],
                key=("containerPort", "protocol"),
            ),
            when("spec.x", upsert("y", 1), otherwise=chain(remove_at("a"), remove_at("b"))),
            for_each("spec.containers[*]", set_default("imagePullPolicy", "Always")),
            expect("spec.containers[name=trainer]", "1+"),
        )
    )
    assert steps == [
        {"op": "upsert", "path": "spec.nodeSelector", "value": {"gpu": "a100"}},
        {
            "op": "append_at",
            "path": "spec.tolerations",
            "items": [{"key": "a"}, {"key": "b"}],
            "unique": True,
        },
        {
            "op": "insert_at",
            "path": "spec.containers",
            "items": [{"name": "s"}],
            "before": "name=trainer",
        },
        {
            "op": "merge_by",
            "path": "ports",
            "items": [{"containerPort": 80, "protocol": "TCP"}],
            "key": ["containerPort", "protocol"],
        },
        {
            "op": "when",
            "path": "spec.x",
            "transform": {"op": "upsert", "path": "y", "value": 1},
            "otherwise": [{"op": "remove_at", "path": "a"}, {"op": "remove_at", "path": "b"}],
        },
        {
            "op": "for_each",
            "path": "spec.containers[*]",
            "transform": {"op": "set_default", "path": "imagePullPolicy", "value": "Always"},
        },
        {"op": "expect", "path": "spec.containers[name=trainer]", "count": "1+"},
    ]


def test_patches_and_overlay_steps() -> None:
    transform = chain(
        json_patch([{"op": "add", "path": "/spec/hostIPC", "value": True}]),
        merge_patch({"spec": {"hostIPC": None}}),
        strategic_merge({"spec": {"containers": [{"name": "t"}]}}),
        strategic_merge({"containers": []}, kind="PodSpec"),
        overlay({"spec": {"tolerations": ({"key": "a"},)}}),
    )
    assert dump_steps(transform) == [
        {"json_patch": [{"op": "add", "path": "/spec/hostIPC", "value": True}]},
        {"merge_patch": {"spec": {"hostIPC": None}}},
        {"strategic": {"spec": {"containers": [{"name": "t"}]}}},
        {"strategic": {"containers": []}, "kind": "PodSpec"},
        {"overlay": {"spec": {"tolerations": ({"key": "a"},)}}},
    ]
    assert round_trip(transform) == transform


def test_identity_is_an_empty_pipeline() -> None:
    assert dump_overlay(identity) == "[]\n"
    assert round_trip(identity) is identity


def test_quoted_keys_and_selectors_survive() -> None:
    transform = chain(
        upsert('metadata.annotations["sidecar.istio.io/inject"]', "false"),
        replace_at('spec.containers[name="8080"].ports[containerPort=80]', {}),
        remove_at('metadata.labels["a b"]'),
    )
    assert round_trip(transform) == transform


# ---------------------------------------------------------------- recipes


class Team(Transform):
    """A stand-in for a recipe: a named transform with parameters."""

    __slots__ = ()
    name = "team"

    def __init__(self, name: str, cost_center: str | None = None) -> None:
        if cost_center is None:
            self._init_params(name)
        else:
            self._init_params(name, cost_center=cost_center)

    def _apply(self, doc: Any, owned: Owned) -> Any:
        return doc


def test_a_named_transform_of_the_catalog_becomes_a_recipe_step() -> None:
    catalog = {"team": Team}
    assert dump_steps(Team("ml"), catalog) == [{"recipe": "team", "name": "ml"}]
    assert dump_steps(chain(Team("ml", cost_center="42"), upsert("a", 1)), catalog) == [
        {"recipe": "team", "name": "ml", "cost_center": "42"},
        {"op": "upsert", "path": "a", "value": 1},
    ]
    assert dump_overlay(Team("ml"), catalog) == "- recipe: team\n  name: ml\n"
    with pytest.raises(TypeError, match="neither a combinator, an overlay, a patch nor a recipe"):
        dump_overlay(Team("ml"), {})


def test_installed_recipes_round_trip() -> None:
    try:
        catalog = recipe_catalog()
    except Exception as err:  # the recipes package may be mid-edit
        pytest.skip(f"the installed recipe catalog cannot be loaded: {err}")
    if not {"add_toleration", "node_selector", "shm_size"} <= set(catalog):
        pytest.skip("podfold's recipe catalog is not installed (entry point 'podfold.recipes')")
    transform = chain(
        catalog["node_selector"]({"gpu": "a100"}),
        catalog["add_toleration"]("nvidia.com/gpu", effect="NoSchedule"),
        catalog["shm_size"]("16Gi"),
    )
    text = dump_overlay(transform)
    assert text.startswith("- recipe: node_selector\n")
    assert loads_overlay(text) == transform


# ---------------------------------------------------------------- refusals


def test_functions_cannot_be_written() -> None:
    with pytest.raises(TypeError, match=r"update_at\('a', len\) cannot be written as YAML"):
        dump_overlay(update_at("a", len))
    with pytest.raises(
        TypeError, match=r"step 2 of 2: when\(.*<lambda>.*its predicate is a Python function"
    ):
        dump_overlay(chain(upsert("a", 1), when(lambda pod: True, upsert("b", 1))))
    with pytest.raises(TypeError, match="<lambda> cannot be written as YAML"):
        dump_overlay(lambda pod: pod)
    with pytest.raises(TypeError, match="count is a Python function"):
        dump_overlay(expect("a", lambda found: found > 1))
    with pytest.raises(TypeError, match="update_at"):
        dump_overlay(for_each("spec.containers[*]", update_at("args", list)))


def test_values_yaml_cannot_hold() -> None:
    # a value JSON cannot carry never gets into a transform; a function has no YAML form
    with pytest.raises(TypeError, match="only strings, numbers"):
        upsert("a", 1j)

    def double(value: Any) -> Any:
        return value

    with pytest.raises(TypeError, match="cannot be written as YAML"):
        dump_overlay(update_at("a", double))


# ---------------------------------------------------------------- the law


TEXT = st.sampled_from(
    [
        "",
        "a",
        "true",
        "1",
        "null",
        "~",
        "a: b",
        "#x",
        " x",
        "multi\nline",
        "é",
        "- x",
        "<<",
        "8080",
        "x,y",
        "[a]",
        "'q'",
    ]
) | st.text(max_size=6)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT
)
KEYS = st.sampled_from(["a", "b", "name", "env", "x.y", "a b", "true", "1", "<<", "é", "-k"])
VALUES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(KEYS, children, max_size=3),
    max_leaves=8,
)
NAMED = st.lists(
    st.fixed_dictionaries(
        {"name": st.sampled_from(["a", "b", "8080", "true"])}, optional={"value": VALUES}
    ),
    max_size=3,
)


def markers() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.builds(Replace, VALUES),
        st.builds(Default, VALUES),
        st.just(Remove()),
        st.builds(Append, st.lists(VALUES, max_size=3)),
        st.builds(AppendUnique, st.lists(VALUES, max_size=3)),
        st.builds(Prepend, st.lists(VALUES, max_size=3)),
        st.builds(MergeBy, NAMED),
        st.builds(lambda items: MergeBy(items, key="name"), NAMED),
        st.builds(
            lambda ports: MergeBy(ports, key=("containerPort", "protocol")),
            st.lists(
                st.fixed_dictionaries(
                    {"containerPort": st.integers(1, 3), "protocol": st.just("TCP")}
                ),
                max_size=2,
            ),
        ),
    )


PARTIAL_VALUES = st.recursive(
    VALUES | markers() | st.lists(VALUES, max_size=3).map(tuple),
    lambda children: st.dictionaries(KEYS, children, max_size=3),
    max_leaves=8,
)
OPERATOR_ENTRIES = st.one_of(
    st.tuples(KEYS.map(PUT), VALUES),
    st.tuples(KEYS.map(DEL), st.none()),
    st.tuples(KEYS.map(lambda k: JOIN(k, on="name")), NAMED),
)
PARTIAL_PODS = st.builds(
    lambda plain, ops: {**plain, **dict(ops)},
    st.dictionaries(KEYS, PARTIAL_VALUES, max_size=4),
    st.lists(OPERATOR_ENTRIES, max_size=2),
)
PATHS = st.sampled_from(
    [
        "spec.nodeSelector",
        "spec.tolerations",
        "a",
        'metadata.labels["x.y"]',
        "spec.containers[name=trainer].env",
        "spec.containers[0].args",
        'spec.containers[name="8080"]',
        "spec.containers[*]",
        "a[-]",
        "ports[containerPort=80,protocol=TCP]",
    ]
)


def steps(depth: int = 1) -> st.SearchStrategy[Any]:
    plain = st.one_of(
        st.builds(upsert, PATHS, VALUES),
        st.builds(replace_at, PATHS, VALUES),
        st.builds(set_default, PATHS, VALUES),
        st.builds(remove_at, PATHS, st.booleans()),
        st.builds(
            lambda p, items, u: append_at(p, *items, unique=u),
            PATHS,
            st.lists(VALUES, max_size=3),
            st.booleans(),
        ),
        st.builds(lambda p, items: prepend_at(p, *items), PATHS, st.lists(VALUES, max_size=2)),
        st.builds(
            lambda p, items, anchor: insert_at(p, *items, before=anchor),
            PATHS,
            st.lists(VALUES, min_size=1, max_size=2),
            st.sampled_from(["name=a", 0, -1, {"name": "b"}]),
        ),
        st.builds(lambda p, items: merge_by(p, items), PATHS, NAMED),
        st.builds(expect, PATHS, st.sampled_from([0, 1, 2, "1+", "0+"])),
        st.builds(overlay, PARTIAL_PODS),
        st.builds(merge_patch, st.dictionaries(KEYS, VALUES, max_size=3)),
        st.builds(
            json_patch,
            st.lists(
                st.fixed_dictionaries(
                    {
                        "op": st.just("add"),
                        "path": st.sampled_from(["/a", "/b/0", "/spec/x~1y"]),
                        "value": VALUES,
                    }
                ),
                max_size=2,
            ),
        ),
    )
    if depth == 0:
        return plain
    inner = st.lists(steps(depth - 1), max_size=2).map(lambda found: chain(*found))
    return (
        plain
        | st.builds(for_each, PATHS, inner)
        | st.builds(lambda p, then, other: when(p, then, otherwise=other), PATHS, inner, inner)
    )


PIPELINES = st.lists(steps(), max_size=4).map(lambda found: chain(*found))
# the fixture that picks the YAML path is set once for all of a law's examples
LAW = settings(
    max_examples=settings.default.max_examples * 3,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@LAW
@given(PARTIAL_PODS)
def test_law_load_dump_load_partial_pods(partial: dict[str, Any]) -> None:
    transform = overlay(partial)
    text = dump_overlay(transform)
    loaded = loads_overlay(text, kind=None)
    assert loaded == transform
    assert dump_overlay(loaded) == text


@LAW
@given(PIPELINES)
def test_law_load_dump_load_pipelines(transform: Any) -> None:
    text = dump_overlay(transform)
    loaded = loads_overlay(text, kind=None)
    assert loaded == transform
    assert dump_overlay(loaded) == text
    assert loads_overlay(dump_overlay(loaded), kind=None) == loaded


class _TagsAsData(yaml.SafeLoader):
    """A plain safe loader that reads podfold's tags as the tag's name."""


_TagsAsData.add_multi_constructor("!", lambda loader, suffix, node: suffix)


def test_the_output_is_plain_safe_yaml_with_tags() -> None:
    text = dump_overlay(chain(upsert("a", [1, {"b": None}]), overlay({"c": Replace(1)})))
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load(text)  # podfold's tags need podfold's loader
    assert yaml.load(text, Loader=_TagsAsData) == [
        {"op": "upsert", "path": "a", "value": [1, {"b": None}]},
        {"overlay": {"c": "replace"}},
    ]
