"""Loading overlays from YAML: tags, documents, pipelines, fsspec, refusals and where errors point."""

from __future__ import annotations

import copy
import pathlib
import time
import uuid
from typing import Any

import fsspec
import pytest

from combinators import ArgumentError, Transform, append_at, chain, merge_by, upsert
from tests.yaml_paths import yaml_path  # noqa: F401  (the fixture: libyaml, then pure Python)
from transforms import (
    Append,
    Default,
    MergeBy,
    OverlayError,
    Prepend,
    Remove,
    Replace,
    load_overlay,
    loads_overlay,
    overlay,
)
from transforms.checks.fields import UnknownFieldError
from transforms.forms.markers import AppendUnique

# every test twice: on libyaml, then on pure Python (tests/yaml_paths.py)
pytestmark = pytest.mark.usefixtures("yaml_path")


def make_pod() -> dict[str, Any]:
    return {
        "spec": {
            "containers": [
                {
                    "name": "trainer",
                    "image": "t:1",
                    "ports": [{"containerPort": 80, "protocol": "TCP"}],
                }
            ],
            "tolerations": [{"key": "a"}],
            "nodeSelector": {"zone": "a"},
            "hostIPC": True,
        }
    }


def error_of(text: str, **options: Any) -> OverlayError:
    with pytest.raises(OverlayError) as caught:
        loads_overlay(text, **options)
    return caught.value


# ---------------------------------------------------------------- tags


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        (
            "spec:\n  tolerations: !append [{key: b}]\n",
            {"spec": {"tolerations": Append([{"key": "b"}])}},
        ),
        (
            "spec:\n  tolerations: !append-unique [{key: b}]\n",
            {"spec": {"tolerations": AppendUnique([{"key": "b"}])}},
        ),
        (
            "spec:\n  tolerations: !prepend [{key: b}]\n",
            {"spec": {"tolerations": Prepend([{"key": "b"}])}},
        ),
        (
            "spec:\n  nodeSelector: !replace {gpu: a100}\n",
            {"spec": {"nodeSelector": Replace({"gpu": "a100"})}},
        ),
        ("spec:\n  hostIPC: !remove\n", {"spec": {"hostIPC": Remove()}}),
        ("spec:\n  restartPolicy: !default Never\n", {"spec": {"restartPolicy": Default("Never")}}),
        (
            "spec:\n  containers: !merge-by [{name: trainer, image: t:2}]\n",
            {"spec": {"containers": MergeBy([{"name": "trainer", "image": "t:2"}])}},
        ),
        (
            "spec:\n  volumes: !merge-by:name [{name: v}]\n",
            {"spec": {"volumes": MergeBy([{"name": "v"}], key="name")}},
        ),
        (
            "spec:\n  tolerations: !!python/tuple [{key: b}]\n",
            {"spec": {"tolerations": ({"key": "b"},)}},
        ),
    ],
)
def test_each_tag_loads_its_marker(text: str, wanted: dict[str, Any]) -> None:
    assert loads_overlay(text) == overlay(wanted)


def test_each_tag_applies() -> None:
    pod = make_pod()
    spec = loads_overlay("""
spec:
  tolerations: !prepend [{key: first}]
  nodeSelector: !replace {gpu: a100}
  hostIPC: !remove
  restartPolicy: !default Never
  initContainers: !append [{name: init}]
  volumes: !!python/tuple [{name: only}]
""")(pod)["spec"]
    assert spec["tolerations"] == [{"key": "first"}, {"key": "a"}]
    assert spec["nodeSelector"] == {"gpu": "a100"}
    assert "hostIPC" not in spec
    assert spec["restartPolicy"] == "Never"
    assert spec["initContainers"] == [{"name": "init"}]
    assert spec["volumes"] == [{"name": "only"}]


def test_merge_by_composite_key_tag() -> None:
    transform = loads_overlay("""
spec:
  __join__:containers:name:
  - name: trainer
    ports: !merge-by:containerPort,protocol
    - {containerPort: 80, protocol: TCP, name: http}
    - {containerPort: 80, protocol: UDP}
""")
    ports = transform(make_pod())["spec"]["containers"][0]["ports"]
    assert ports == [
        {"containerPort": 80, "protocol": "TCP", "name": "http"},
        {"containerPort": 80, "protocol": "UDP"},
    ]
    marker = loads_overlay("a: !merge-by:containerPort,protocol []", kind=None)
    assert marker == overlay({"a": MergeBy([], key=("containerPort", "protocol"))})


def test_merge_by_long_form() -> None:
    loaded = loads_overlay(
        "ports: !merge-by {key: [containerPort, protocol], items: []}", kind=None
    )
    assert loaded == overlay({"ports": MergeBy([], key=("containerPort", "protocol"))})


def test_tagged_scalars_keep_their_yaml_types() -> None:
    loaded = loads_overlay(
        "a: !default 1\nb: !default 'true'\nc: !default true\nd: !replace null\ne: !default ''\n",
        kind=None,
    )
    assert loaded == overlay(
        {
            "a": Default(1),
            "b": Default("true"),
            "c": Default(True),
            "d": Replace(None),
            "e": Default(""),
        }
    )


# ---------------------------------------------------------------- documents and pipelines


def test_documents_apply_in_order() -> None:
    transform = loads_overlay("""
spec:
  nodeSelector: {gpu: a100}
---
spec:
  nodeSelector: !replace {gpu: h100}
---
- {op: append_at, path: spec.tolerations, items: [{key: b}]}
""")
    spec = transform(make_pod())["spec"]
    assert spec["nodeSelector"] == {"gpu": "h100"}
    assert spec["tolerations"] == [{"key": "a"}, {"key": "b"}]


def test_empty_documents_change_nothing() -> None:
    pod = make_pod()
    assert loads_overlay("")(pod) is pod
    assert loads_overlay("---\n---\n")(pod) is pod
    assert loads_overlay("[]")(pod) is pod


def test_pipeline_document_builds_a_chain() -> None:
    transform = loads_overlay("""
- op: upsert
  path: spec.nodeSelector
  value: {gpu: a100}
- op: merge_by
  path: spec.containers
  items: [{name: trainer, image: t:2}]
""")
    assert transform == chain(
        upsert("spec.nodeSelector", {"gpu": "a100"}),
        merge_by("spec.containers", [{"name": "trainer", "image": "t:2"}]),
    )


# ---------------------------------------------------------------- sources


def test_load_from_a_path_str_and_pathlike(tmp_path: pathlib.Path) -> None:
    file = tmp_path / "tolerate.yaml"
    file.write_text(
        "- {op: append_at, path: spec.tolerations, items: [{key: b}], unique: true}\n",
        encoding="utf-8",
    )
    wanted = append_at("spec.tolerations", {"key": "b"}, unique=True)
    assert load_overlay(file) == wanted
    assert load_overlay(str(file)) == wanted
    assert load_overlay(f"file://{file}") == wanted


def test_load_from_an_fsspec_uri() -> None:
    uri = f"memory://podfold-tests/{uuid.uuid4().hex}.yaml"
    with fsspec.open(uri, "w") as handle:
        handle.write("spec:\n  nodeSelector: {gpu: a100}\n")
    try:
        assert load_overlay(uri) == overlay({"spec": {"nodeSelector": {"gpu": "a100"}}})
    finally:
        fsspec.filesystem("memory").rm(uri)


def test_errors_name_the_file(tmp_path: pathlib.Path) -> None:
    file = tmp_path / "bad.yaml"
    file.write_text("spec:\n  nodeSelector: !apend {a: b}\n", encoding="utf-8")
    with pytest.raises(OverlayError) as caught:
        load_overlay(file)
    err = caught.value
    assert (err.source, err.line, err.column) == (str(file), 2, 17)
    assert str(err).startswith(f"{file}:2:17: ")


def test_unreadable_source() -> None:
    with pytest.raises(OverlayError, match="cannot read the overlay") as caught:
        load_overlay("memory://podfold-tests/absent.yaml")
    assert caught.value.source == "memory://podfold-tests/absent.yaml"


# ---------------------------------------------------------------- refusals


def test_python_object_tags_are_refused() -> None:
    err = error_of("spec: !!python/object/apply:os.system ['echo owned']\n")
    assert "unsafe tag" in str(err)
    assert (err.line, err.column, err.step) == (1, 7, 0)
    err = error_of("a: !!python/name:os.system\n", kind=None)
    assert "unsafe tag" in str(err)


def test_unknown_tags_are_refused_with_the_list() -> None:
    err = error_of("spec:\n  tolerations: !apend [{key: b}]\n")
    assert "'!apend'" in str(err) and "!append" in str(err)
    assert (err.source, err.line, err.column, err.step) == ("<string>", 2, 16, 0)
    err = error_of(
        "spec: {}\n---\n- {op: upsert, path: a, value: 1}\n"
        "- {op: upsert, path: b, value: !apend [1]}\n",
        kind=None,
    )
    assert (err.line, err.column, err.step) == (4, 32, 1)
    assert str(err).startswith("<string>:4:32: step 2: unknown or unsafe tag '!apend'")


def test_tag_misuse() -> None:
    assert "!remove takes no value" in str(error_of("spec:\n  hostIPC: !remove yes\n"))
    assert "needs a list" in str(error_of("spec:\n  tolerations: !append {key: b}\n"))
    assert "takes a list" in str(error_of("a: !!python/tuple x\n", kind=None))
    assert "names no key field" in str(error_of("a: !merge-by:, []\n", kind=None))


def test_a_list_tag_on_a_map_points_at_the_tag() -> None:
    err = error_of("# pools\nspec:\n  tolerations: !append\n    key: nvidia.com/gpu\n")
    assert "!append at spec.tolerations needs a list, got a map" in str(err)
    assert (err.line, err.column, err.step) == (3, 16, 0)  # the tagged value, not the document


@pytest.mark.parametrize(
    ("text", "message", "column"),
    [
        ("spec:\n  containers: !merge-by {a: 1}\n", "found 'a'", 15),
        ("spec:\n  containers: !merge-by {key: image}\n", "'items' is missing", 15),
        ("spec:\n  containers: !merge-by\n    name: trainer\n", "found 'name'", 15),
        ("a: !merge-by {items: [], key: 3}\n", "'key' is a field or a list of fields, not 3", 4),
        ("a: !merge-by {items: [], key: []}\n", "not []", 4),
    ],
)
def test_the_long_form_of_merge_by_takes_items_and_key_only(
    text: str, message: str, column: int
) -> None:
    # a map that is not the long form used to merge nothing, silently
    err = error_of(text, kind=None)
    assert message in str(err) and "!merge-by" in str(err)
    line = 1 + text[: text.index("!merge-by")].count("\n")
    assert (err.line, err.column) == (line, column)


def test_alias_bombs_are_refused_quickly() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    started = time.perf_counter()
    err = error_of("\n".join(lines) + "\n", kind=None)
    assert time.perf_counter() - started < 5
    assert "expands to more than" in str(err)
    assert (err.line, err.column, err.step) == (1, 1, 0)


def test_modest_aliases_are_fine() -> None:
    transform = loads_overlay("x: &t {key: a}\nspec:\n  tolerations: [*t, *t]\n", kind=None)
    assert transform({})["spec"]["tolerations"] == [{"key": "a"}, {"key": "a"}]


def test_syntax_errors_point_into_the_text() -> None:
    err = error_of("spec:\n  nodeSelector: {gpu: a100\n")
    assert (err.line, err.column, err.step) == (3, 1, 0)
    err = error_of("a: 1\n---\nb: [\n", kind=None)
    assert (err.line, err.step) == (4, 1)


def test_a_document_must_be_a_map_or_a_list() -> None:
    err = error_of("---\n42\n")
    assert "a document is a partial pod" in str(err) and err.line == 2


def test_pipeline_errors_carry_the_step_index() -> None:
    err = error_of("""
- {op: upsert, path: spec.nodeSelector, value: {gpu: a100}}
- {op: upsret, path: spec.hostIPC, value: true}
""")
    assert "unknown op 'upsret'; did you mean upsert?" in str(err)
    # the position is the op's name, which is what is wrong
    assert (err.source, err.line, err.column, err.step) == ("<string>", 3, 8, 1)
    assert str(err).startswith("<string>:3:8: step 2: ")


def test_argument_errors_point_at_the_argument() -> None:
    err = error_of("- op: append_at\n  path: spec.tolerations\n  items: {key: a}\n")
    assert isinstance(err.__cause__, ArgumentError) and err.__cause__.argument == "items"
    assert (err.line, err.column, err.step) == (3, 10, 0)


def test_unknown_recipe_has_close_matches() -> None:
    catalog_is_empty = False
    try:
        from transforms.forms.catalog import recipe_catalog

        catalog_is_empty = not recipe_catalog()
    except Exception:
        pytest.skip("the installed recipe catalog cannot be loaded")
    err = error_of("- {recipe: add_tolration, key: nvidia.com/gpu}\n")
    assert err.step == 0 and err.line == 1
    if catalog_is_empty:
        assert "no recipe catalog is installed" in str(err)
    else:
        assert "unknown recipe 'add_tolration'; did you mean add_toleration" in str(err)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "- {op: upsert, path: spec.nodeSelector, valeu: {a: b}}",
            "takes no argument 'valeu'; did you mean value?",
        ),
        ("- {op: upsert, value: 1}", "missing a required argument: 'path'"),
        ("- {op: append_at, path: spec.tolerations, items: {key: a}}", "'items' takes a list"),
        ("- {op: update_at, path: spec.x}", "takes a Python function"),
        ("- {op: upsert, path: 'spec.containers[name=a', value: 1}", "expected ']'"),
        ("- {opp: upsert}", "did you mean op?"),
        ("- {op: upsert, overlay: {}}", "has exactly one of"),
        ("- {json_patch: [], kind: Pod}", "takes no kind"),
        ("- [1]", "a pipeline step is a map"),
        ("- {json_patch: [{op: ad, path: /a}]}", "ad"),
        ("- {op: expect, path: spec.containers, count: many}", "count"),
    ],
)
def test_bad_steps(text: str, message: str) -> None:
    err = error_of(text + "\n", kind=None)
    assert message in str(err)
    assert err.step == 0 and err.line == 1 and err.column is not None


def test_unknown_fields_suggest_the_api_name() -> None:
    err = error_of("spec:\n  node_selector: {gpu: a100}\n")
    assert err.message == "unknown field spec.node_selector; did you mean nodeSelector?"
    assert (err.line, err.column, err.step) == (2, 3, 0)  # the key that is wrong
    err = error_of("- {op: upsert, path: spec.node_selector, value: {gpu: a100}}\n")
    assert "unknown field spec.node_selector; did you mean nodeSelector?" in err.message
    assert err.step == 0
    err = error_of("spec:\n  containers:\n  - name: t\n    volume_mounts: []\n")
    assert err.message == (
        "unknown field spec.containers[0].volume_mounts; did you mean volumeMounts?"
    )
    assert (err.line, err.column) == (4, 5)
    err = error_of("spec:\n  __join__:containers:name:\n  - name: t\n  - image_pull_policy: x\n")
    assert "spec.containers[1].image_pull_policy" in err.message
    assert (err.line, err.column) == (4, 5)


def test_field_check_can_be_skipped_and_leaves_free_maps_alone() -> None:
    assert isinstance(loads_overlay("spec:\n  node_selector: {}\n", kind=None), Transform)
    loads_overlay("metadata:\n  labels: {any_label: x}\n  annotations: {a.b/c: d}\n")
    loads_overlay("nodeSelector: {any_key: x}\n", kind="PodSpec")
    err = error_of("nodeSelector: {}\nhost_ipc: true\n", kind="PodSpec")
    assert "did you mean hostIPC?" in err.message


def test_append_unique_adds_only_what_is_missing() -> None:
    transform = loads_overlay(
        "spec:\n  tolerations: !append-unique\n"
        "  - {key: a}\n  - {key: gpu, operator: Exists}\n"
        "  - {key: gpu, operator: Exists}\n"
    )
    pod = make_pod()
    once = transform(pod)
    assert once["spec"]["tolerations"] == [{"key": "a"}, {"key": "gpu", "operator": "Exists"}]
    assert transform(once) is once  # nothing left to add: the very same pod
    assert transform({})["spec"]["tolerations"] == [
        {"key": "a"},
        {"key": "gpu", "operator": "Exists"},
    ]
    # strict equality, as append_at(..., unique=True): 1 is neither True nor 1.0
    flags = loads_overlay("args: !append-unique [1, true, 1.0, 1]\n", kind=None)
    assert flags({"args": [True]}) == {"args": [True, 1, 1.0]}


def test_append_unique_takes_a_list() -> None:
    err = error_of("spec:\n  tolerations: !append-unique {key: a}\n")
    assert "!append-unique at spec.tolerations needs a list, got a map" in str(err)
    assert err.step == 0


# ---------------------------------------------------------------- patch steps' field names


@pytest.mark.parametrize(
    ("text", "message", "line", "column"),
    [
        (
            "- {strategic: {spec: {node_selector: {gpu: a100}}}}",
            "unknown field spec.node_selector; did you mean nodeSelector?",
            1,
            23,
        ),
        (
            "- strategic:\n    spec:\n      containers:\n      - name: t\n        image_pull_policy: x",
            "unknown field spec.containers[0].image_pull_policy; did you mean imagePullPolicy?",
            5,
            9,
        ),
        (
            "- {strategic: {host_ipc: true}, kind: PodSpec}",
            "unknown field host_ipc; did you mean hostIPC?",
            1,
            16,
        ),
        (
            "- {strategic: {spec: {$retainKeys: [containres], containers: []}}}",
            "unknown field spec.containres; did you mean containers?",
            1,
            37,
        ),
        (
            "- {strategic: {spec: {$setElementOrder/containres: [{name: a}]}}}",
            "unknown field spec.containres; did you mean containers?",
            1,
            23,
        ),
        (
            "- {strategic: {spec: {$deleteFromPrimitiveList/tolerration: [a]}}}",
            "unknown field spec.tolerration; did you mean tolerations?",
            1,
            23,
        ),
        (
            "- {merge_patch: {spec: {host_network: null}}}",
            "unknown field spec.host_network; did you mean hostNetwork?",
            1,
            25,
        ),
        (
            "- json_patch:\n  - {op: add, path: /spec/hostIPC, value: true}\n"
            "  - {op: add, path: /spec/node_selector, value: {}}",
            "op 1 (add '/spec/node_selector'): unknown field /spec/node_selector; "
            "did you mean nodeSelector?",
            3,
            21,
        ),
        (
            "- json_patch:\n  - {op: add, path: /spec/affinity, value: {node_affinity: {}}}",
            "unknown field /spec/affinity/node_affinity; did you mean nodeAffinity?",
            2,
            45,
        ),
        (
            "- json_patch:\n  - {op: add, path: /spec/containers/0/env/-, value: {name: A, valeu: x}}",
            "unknown field /spec/containers/0/env/-/valeu; did you mean value?",
            2,
            64,
        ),
        (
            "- json_patch:\n  - {op: copy, from: /spec/tolerration, path: /spec/tolerations}",
            "op 0 (copy '/spec/tolerations'): unknown field /spec/tolerration; "
            "did you mean tolerations?",
            2,
            22,
        ),
    ],
)
def test_patch_steps_check_field_names(text: str, message: str, line: int, column: int) -> None:
    err = error_of("- {op: remove, path: spec.hostIPC}\n" + text + "\n")
    assert message in err.message
    assert isinstance(err.__cause__, UnknownFieldError)
    assert (err.step, err.line, err.column) == (1, line + 1, column)
    assert str(err).startswith(f"<string>:{line + 1}:{column}: step 2: ")


def test_patch_steps_with_directives_and_free_maps_pass() -> None:
    transform = loads_overlay("""
- strategic:
    metadata: {labels: {any_label: x}, $deleteFromPrimitiveList/finalizers: [a]}
    spec:
      $retainKeys: [containers, nodeSelector]
      $setElementOrder/containers: [{name: t}]
      nodeSelector: {any_key: x}
      containers:
      - {name: t, image: t:2}
      - {name: old, $patch: delete}
- {strategic: {nodeSelector: {gpu: a}, $patch: merge}, kind: PodSpec}
- {merge_patch: {metadata: {annotations: {a.b/c: null}}, spec: {hostIPC: null}}}
- json_patch:
  - {op: add, path: /metadata/labels/a~1b, value: x}
  - {op: add, path: /spec/tolerations/-, value: {key: gpu, operator: Exists}}
  - {op: add, path: /spec/containers/0/resources/limits, value: {nvidia.com/gpu: 1}}
  - {op: test, path: /spec/containers/0/name, value: t}
""")
    assert isinstance(transform, Transform)


def test_patch_field_check_follows_the_kind_and_can_be_skipped() -> None:
    assert isinstance(
        loads_overlay("- {strategic: {spec: {node_selector: {}}}}\n", kind=None), Transform
    )
    assert isinstance(
        loads_overlay("- {merge_patch: {nodeSelector: {}}}\n", kind="PodSpec"), Transform
    )
    err = error_of("- {merge_patch: {spec: {}}}\n", kind="PodSpec")
    assert "unknown field spec" in err.message
    # a strategic step's own kind says what it patches
    err = error_of("- {strategic: {spec: {hostIPC: true}}, kind: PodSpec}\n")
    assert "unknown field spec" in err.message


# ---------------------------------------------------------------- workload patches, as kustomize writes them

DEPLOYMENT_PATCH = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web"},
    "spec": {"replicas": 3, "template": {"spec": {"nodeSelector": {"gpu": "a100"}}}},
}


def test_a_workload_strategic_patch_dumps_and_loads_back() -> None:
    from transforms import dump_overlay
    from transforms.forms.patches import strategic_merge

    patch = strategic_merge(DEPLOYMENT_PATCH)
    loaded = loads_overlay(dump_overlay(patch))  # checked as a Pod overlay, the default
    assert loaded == patch
    deployment = {
        **DEPLOYMENT_PATCH,
        "spec": {
            "replicas": 1,
            "template": {"spec": {"containers": [{"name": "web", "image": "nginx"}]}},
        },
    }
    assert loaded(deployment)["spec"]["template"]["spec"]["nodeSelector"] == {"gpu": "a100"}


def test_a_workload_strategic_patch_is_checked_in_its_pod_templates() -> None:
    text = (
        "- strategic:\n    apiVersion: kubeflow.org/v1\n    kind: PyTorchJob\n    spec:\n"
        "      pytorchReplicaSpecs:\n        Worker:\n          replicas: 4\n"
        "          template:\n            spec:\n"
        "              tolerations: [{key: a, operatr: Exists}]\n"
    )
    err = error_of(text)
    assert (
        "unknown field spec.pytorchReplicaSpecs.Worker.template.spec.tolerations[0].operatr; "
        "did you mean operator?" in str(err)
    )
    assert (err.line, err.column, err.step) == (10, 38, 0)
    # the workload's own fields (replicas) are not the pod schema's business
    assert loads_overlay(text.replace("operatr", "operator"))


def test_a_workload_document_is_no_partial_pod() -> None:
    err = error_of("apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec: {}\n")
    assert "a document with kind: Deployment is not a partial pod" in str(err)
    assert "make it a step: '- strategic:'" in str(err)
    assert (err.line, err.column) == (2, 1)
    err = error_of("kind: ConfigMap\ndata: {a: b}\n")
    assert "kind: ConfigMap is not a partial pod" in str(err) and "strategic" not in str(err)
    # a Pod's own kind is TorchX's form of a partial pod: still one
    assert loads_overlay("apiVersion: v1\nkind: Pod\nspec: {hostIPC: true}\n")({})["spec"] == {
        "hostIPC": True
    }


# ---------------------------------------------------------------- tags inside !merge-by items

NESTED = """\
spec:
  containers: !merge-by
  - name: web
    image: web:2
    env: !merge-by
    - {name: NCCL_DEBUG, value: INFO}
    args: !append [--fast]
    resources:
      limits: !replace {cpu: "2"}
      requests: {cpu: "1"}
  - name: new
    image: n
    env: !merge-by [{name: A, value: "1"}]
"""


def test_a_tag_inside_a_merge_by_item_acts_on_the_elements_own_value() -> None:
    # it used to be resolved as if merged into nothing: the element's env list was replaced,
    # and its entries lost
    pod = {
        "spec": {
            "containers": [
                {
                    "name": "web",
                    "image": "web:1",
                    "args": ["-v"],
                    "env": [
                        {"name": "LR", "value": "1e-4"},
                        {"name": "NCCL_DEBUG", "value": "WARN"},
                    ],
                    "resources": {
                        "limits": {"cpu": "4", "memory": "1Gi"},
                        "requests": {"memory": "1Gi"},
                    },
                }
            ]
        }
    }
    before = copy.deepcopy(pod)
    web, new = loads_overlay(NESTED)(pod)["spec"]["containers"]
    assert pod == before
    assert web == {
        "name": "web",
        "image": "web:2",
        "args": ["-v", "--fast"],
        "env": [{"name": "LR", "value": "1e-4"}, {"name": "NCCL_DEBUG", "value": "INFO"}],
        "resources": {"limits": {"cpu": "2"}, "requests": {"memory": "1Gi", "cpu": "1"}},
    }
    assert new == {"name": "new", "image": "n", "env": [{"name": "A", "value": "1"}]}


def test_a_merge_by_item_with_tags_inside_names_its_key() -> None:
    err = error_of("spec:\n  containers: !merge-by\n  - image: x\n    env: !append [{name: A}]\n")
    assert (
        "!merge-by at spec.containers: an item with tags inside names its key field (name)"
        in str(err)
    )
    assert (err.line, err.step) == (2, 0)


@pytest.mark.parametrize(
    ("text", "line", "column", "said"),
    [
        (
            "metadata:\n  annotations:\n    a: b\n    off: 'OFF'\n",
            4,
            5,
            "'off' is read by YAML as a boolean (False)",
        ),
        (
            "- {op: upsert, path: metadata.labels, value: {yes: 1}}\n",
            1,
            47,
            "'yes' is read by YAML as a boolean (True)",
        ),
        ("metadata:\n  labels:\n    1.0: x\n", 3, 5, "'1.0' is read by YAML as a number (1.0)"),
        ("metadata:\n  labels:\n    ~: x\n", 3, 5, "'~' is read by YAML as null (None)"),
    ],
)
def test_a_key_yaml_reads_as_no_string_is_refused_where_it_is_written(
    text: str, line: int, column: int, said: str
) -> None:
    # it used to be refused as "a key that is not a string: False", at the map's first line
    err = error_of(text)
    assert f"the key {said}, and the keys of a pod are strings: quote it" in str(err)
    assert (err.line, err.column) == (line, column)
    quoted = text.replace("off:", "'off':").replace("{yes:", "{'yes':")
    if quoted != text:
        assert loads_overlay(quoted)
