"""The kind registry's records: each built-in kind is a record, and its record alone finds
the pod templates of a real manifest of that kind.

The manifests are the upstream examples under ``manifests/`` (``SOURCES.md``
says where each comes from). For each built-in record, every document of
that kind (at the top of a file or wrapped in an AppWrapper or a List) is
searched with a registry that holds that record only (with the built-in
kinds for a record that holds whole documents, whose pods are its items'),
and the templates found must be the ones a naive walk finds: every map whose
``spec.containers`` is a list.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import pytest
import yaml

from combinators import Index, Key, path
from transforms.forms.patches._places import PlaceMeta, WorkloadPlace, workload_root
from transforms.forms.patches._smp import field_meta_of
from transforms.kube.builtin_kinds import RECORDS
from transforms.kube.containers import FIRST, MainContainer
from transforms.kube.records import DOCUMENT, SPEC, KindRecordError, kind_from_record
from transforms.kube.table import BUILTIN_KINDS, WORKLOAD_KINDS, KindRegistry
from transforms.kube.workloads import pod_templates, templates_of

MANIFESTS = Path(__file__).parent / "manifests"
FILES = sorted(found for found in MANIFESTS.rglob("*") if found.suffix in (".yaml", ".yml"))

Where = tuple[Any, ...]


def naive_templates(value: Any, where: Where = ()) -> list[Where]:
    """Maps whose spec has a list of containers, found without any record."""
    found: list[Where] = []
    if isinstance(value, dict):
        spec = value.get("spec")
        if isinstance(spec, dict) and isinstance(spec.get("containers"), list):
            found.append(where)
        for key, item in value.items():
            found += naive_templates(item, (*where, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += naive_templates(item, (*where, index))
    return found


def as_where(template_path: Any) -> Where:
    return tuple(
        part.name if isinstance(part, Key) else part.index
        for part in template_path.parts
        if isinstance(part, (Key, Index))
    )


@functools.cache
def _parsed(file: Path) -> tuple[Any, ...]:
    """A manifest's documents, read once for all the kinds (libyaml's reader: plain data)."""
    return tuple(
        doc for doc in yaml.load_all(file.read_text(), Loader=yaml.CSafeLoader) if doc is not None
    )


def documents_of_kind(entry: Any) -> list[Any]:
    """Every document of ``entry``'s kind in the manifests, nested ones too (each a copy)."""
    found = []
    for file in FILES:
        stack = copy.deepcopy(list(_parsed(file)))
        while stack:
            value = stack.pop()
            if isinstance(value, dict):
                if (
                    "apiVersion" in value
                    and BUILTIN_KINDS.lookup(value.get("kind"), value.get("apiVersion")) is entry
                ):
                    found.append(value)
                stack.extend(value.values())
            elif isinstance(value, list):
                stack.extend(value)
    return found


# the naive walk describes pod templates kept as such; bare pod specs, pod specs among fields
# of a kind's own (KServe, Knative) and ScheduledSparkApplication, whose upstream example has
# no template, are tested in test_ml_kinds with their places written out
TEMPLATE_KINDS = [
    entry
    for entry in WORKLOAD_KINDS
    if all(location.holds != SPEC and location.component is None for location in entry.locations)
    and entry.kind != "ScheduledSparkApplication"
]


@pytest.mark.parametrize(
    "entry", TEMPLATE_KINDS, ids=[f"{e.group or ''}/{e.kind}" for e in TEMPLATE_KINDS]
)
def test_each_builtin_record_finds_the_templates_of_a_real_manifest(entry: Any) -> None:
    documents = documents_of_kind(entry)
    assert documents, f"no manifest of {entry.kind} ({entry.group}) under tests/manifests"
    holds_documents = any(location.holds == DOCUMENT for location in entry.locations)
    registry = BUILTIN_KINDS if holds_documents else KindRegistry([entry])
    for document in documents:
        templates = templates_of(document, registry)
        assert templates, document.get("metadata")
        assert [as_where(template.path) for template in templates] == naive_templates(document)
        assert templates == pod_templates(document)  # the registry of built-ins reads the same


def test_the_builtin_kinds_are_their_records_read() -> None:
    # the data is what the registry holds: nothing is added to a kind in code
    assert tuple(kind_from_record(record) for record in RECORDS) == WORKLOAD_KINDS
    assert tuple(BUILTIN_KINDS) == WORKLOAD_KINDS


def test_a_record_names_the_main_container_where_the_kind_does() -> None:
    job = documents_of_kind(BUILTIN_KINDS.lookup("PyTorchJob", "kubeflow.org/v1"))[0]
    for template in pod_templates(job):
        assert template.main == MainContainer.named("pytorch")
        names = [
            container["name"] for container in job_at(job, template.path)["spec"]["containers"]
        ]
        assert "pytorch" in names
    cluster = documents_of_kind(BUILTIN_KINDS.lookup("RayCluster", "ray.io/v1"))[0]
    assert {template.main for template in pod_templates(cluster)} == {FIRST}
    [deployment, *_] = documents_of_kind(BUILTIN_KINDS.lookup("Deployment", "apps/v1"))
    assert {template.main for template in pod_templates(deployment)} == {None}


def job_at(document: Any, where: Any) -> Any:
    for key in as_where(where):
        document = document[key]
    return document


def test_a_declared_kind_reaches_its_pods_and_leaves_the_core_kind_alone() -> None:
    # a kind name two groups share (Knative's Service and the core one) is told apart by group
    knative = KindRegistry.of(
        [
            {
                "apiVersion": "serving.knative.dev/*",
                "kind": "Service",
                "pods": [{"path": "spec.template"}],
            }
        ]
    )
    service = {
        "apiVersion": "serving.knative.dev/v1",
        "kind": "Service",
        "metadata": {"name": "hello"},
        "spec": {"template": {"spec": {"containers": [{"image": "hello"}]}}},
    }
    [template] = templates_of(service, knative)
    assert (str(template.path), template.kind, template.name) == (
        "spec.template",
        "Service",
        "hello",
    )
    assert templates_of({"apiVersion": "v1", "kind": "Service", "spec": {}}, knative) == ()
    # Knative's Service is built in too, and the core one is still none
    assert [str(found.path) for found in pod_templates(service)] == ["spec.template"]
    assert pod_templates({"apiVersion": "v1", "kind": "Service", "spec": {}}) == ()


def test_lookup_prefers_version_then_group_then_any() -> None:
    registry = KindRegistry.of(
        [
            {"kind": "Job", "pods": [{"path": "spec.template"}]},
            {"apiVersion": "example.com/*", "kind": "Job", "pods": [{"path": "spec.a"}]},
            {"apiVersion": "example.com/v2", "kind": "Job", "pods": [{"path": "spec.b"}]},
            {"apiVersion": "other.io/v1", "kind": "Job", "pods": [{"path": "spec.c"}]},
        ]
    )

    def found(api_version: str) -> str | None:
        entry = registry.lookup("Job", api_version)
        return None if entry is None else str(entry.locations[0].path)

    assert found("example.com/v2") == "spec.b"
    assert found("example.com/v1") == "spec.a"
    assert found("batch/v1") == "spec.template"
    # a group with records of its own gets none of the group-less record's
    assert found("other.io/v2") is None
    assert registry.lookup("Widget", "v1") is None and registry.lookup(None) is None


def test_a_registry_is_read_only_and_grows_into_a_new_one() -> None:
    widget = kind_from_record({"kind": "Widget", "pods": [{"path": "spec.template"}]})
    grown = BUILTIN_KINDS.with_kinds([widget])
    assert grown.lookup("Widget") is widget and BUILTIN_KINDS.lookup("Widget") is None
    assert len(grown) == len(BUILTIN_KINDS) + 1 and grown != BUILTIN_KINDS
    assert "widget" in grown.names and "widget" not in BUILTIN_KINDS.names
    with pytest.raises(AttributeError):
        BUILTIN_KINDS.kinds = ()  # type: ignore[misc]
    with pytest.raises(TypeError):
        BUILTIN_KINDS.names["widget"] = "Widget"  # type: ignore[index]
    # a record of the same kind, group and version replaces the one before it
    moved = kind_from_record({"kind": "Deployment", "pods": [{"path": "spec.other"}]})
    assert BUILTIN_KINDS.with_kinds([moved]).lookup("Deployment", "apps/v1") is moved


def test_record_fields() -> None:
    entry = kind_from_record(
        {
            "apiVersion": "example.com/v1",
            "kind": "Pool",
            "pods": [
                {"path": "spec.head", "holds": "spec", "role": "head", "mainContainer": 0},
                {"path": "spec.groups[*].template", "roleKey": True},
            ],
            "addedVolumes": ["spec.claims[*].name"],
            "metadata": None,
        }
    )
    assert (entry.group, entry.version, entry.metadata) == ("example.com", "v1", None)
    head, groups = entry.locations
    assert (head.holds, head.role, head.main) == (SPEC, "head", FIRST)
    assert groups.role_field == "<key>" and entry.added_volumes == (path("spec.claims[*].name"),)
    core = kind_from_record({"apiVersion": "v1", "kind": "Pod", "pods": [{"holds": "pod"}]})
    assert (core.group, core.version, core.locations[0].path) == ("", "v1", path(""))
    assert kind_from_record({"apiVersion": "*", "kind": "X", "pods": [{"path": "a"}]}).group is None


@pytest.mark.parametrize(
    ("record", "field", "message"),
    [
        ({"kind": "X", "pods": [{"path": "a"}], "metdata": None}, None, "did you mean metadata?"),
        ({"kind": "X", "pods": [{"paht": "a"}]}, "pods[0]", "did you mean path?"),
        ({"kind": "X", "pods": [{"path": "a", "holds": "tmpl"}]}, "pods[0].holds", "one of"),
        ({"kind": "X", "pods": [{"path": "a[*].b[*]"}]}, "pods[0].path", "at most one [*]"),
        ({"kind": "X", "pods": [{"path": "a[0]"}]}, "pods[0].path", "keys and [*] only"),
        (
            {"kind": "X", "pods": [{"path": "a", "role": "r", "roleField": "f"}]},
            "pods[0]",
            "one of",
        ),
        ({"kind": "X", "pods": []}, "pods", "non-empty list"),
        ({"kind": "", "pods": [{"path": "a"}]}, "kind", "non-empty string"),
        (
            {"apiVersion": "example.com/", "kind": "X", "pods": [{"path": "a"}]},
            "apiVersion",
            "no version",
        ),
        (
            {"kind": "X", "pods": [{"path": "a", "mainContainer": ""}]},
            "pods[0].mainContainer",
            "non-empty",
        ),
        (
            {"kind": "X", "pods": [{"path": "a", "holds": "tmplate"}]},
            "pods[0].holds",
            "'tmplate'; expected one of: template, pod, spec, document; did you mean template?",
        ),
        (
            {"kind": "X", "pods": [{"path": "a", "holds": "nothing"}]},
            "pods[0].holds",
            "expected one of: template, pod, spec, document",
        ),
    ],
)
def test_a_malformed_record_is_refused_naming_the_field(
    record: dict[str, Any], field: str | None, message: str
) -> None:
    with pytest.raises((KindRecordError, ValueError)) as caught:
        kind_from_record(record)
    assert message in str(caught.value)
    if field is not None:
        assert isinstance(caught.value, KindRecordError) and caught.value.field == field


def test_the_merge_engine_reads_a_workload_patch_places_from_the_record() -> None:
    entry = kind_from_record(
        {
            "apiVersion": "example.com/*",
            "kind": "Pool",
            "pods": [{"path": "spec.groups[*].template"}, {"path": "spec.head", "holds": "spec"}],
        }
    )
    root = workload_root(entry)
    assert workload_root(entry) is root  # once per record
    spec = field_meta_of(root, "spec").type
    assert isinstance(spec, WorkloadPlace) and str(spec) == "Pool.spec"
    assert field_meta_of(spec, "head") == PlaceMeta("PodSpec")
    group = field_meta_of(field_meta_of(spec, "groups").type, "any").type  # [*]: any element
    assert field_meta_of(group, "template").type == "PodTemplateSpec"
    assert field_meta_of(root, "metadata").type == "ObjectMeta"
    assert field_meta_of(root, "status").type is None
    with pytest.raises(AttributeError):
        root.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        root.fields["status"] = "ObjectMeta"  # type: ignore[index]


DASK = {
    "apiVersion": "kubernetes.dask.org/v1",
    "kind": "DaskCluster",
    "metadata": {"name": "simple"},
    "spec": {
        "worker": {"replicas": 2, "spec": {"containers": [{"name": "worker", "image": "dask"}]}},
        "scheduler": {"spec": {"containers": [{"name": "scheduler", "image": "dask"}]}},
    },
}
DASK_KINDS = KindRegistry.of(
    [
        {
            "apiVersion": "kubernetes.dask.org/*",
            "kind": "DaskCluster",
            "pods": [
                {"path": "spec.scheduler.spec", "holds": "spec", "role": "scheduler"},
                {"path": "spec.worker.spec", "holds": "spec", "role": "worker"},
            ],
        }
    ]
)


def test_a_pod_level_overlay_reaches_a_bare_pod_spec_as_a_pod() -> None:
    import recipes
    from transforms.kube.workloads import BareSpecError, Selector, apply_to_documents

    templates = templates_of(DASK, DASK_KINDS)
    assert [(str(t.path), t.root, t.role) for t in templates] == [
        ("spec.scheduler.spec", SPEC, "scheduler"),
        ("spec.worker.spec", SPEC, "worker"),
    ]
    # a recipe writes spec.nodeSelector of the pod it is given: here, the spec itself
    [new] = apply_to_documents(
        recipes.node_selector(pool="gpu"),
        [DASK],
        select=Selector(roles="worker"),
        templates=[templates],
    )
    assert new["spec"]["worker"]["spec"]["nodeSelector"] == {"pool": "gpu"}
    assert new["spec"]["scheduler"] is DASK["spec"]["scheduler"]
    assert "nodeSelector" not in DASK["spec"]["worker"]["spec"]  # the input is left as it was
    # what a bare spec has no place for is refused, naming it, not dropped
    with pytest.raises(BareSpecError) as caught:
        apply_to_documents(recipes.add_labels(team="ml"), [DASK], templates=[templates])
    assert caught.value.keys == ("metadata",) and "spec.scheduler.spec" in str(caught.value)


def test_the_volumes_a_controller_adds_go_into_a_bare_pod_spec_itself() -> None:
    from transforms.kube.workloads import with_added_volumes

    registry = KindRegistry.of(
        [
            {
                "kind": "Pool",
                "pods": [{"path": "spec.pod", "holds": "spec"}],
                "addedVolumes": ["spec.claims[*].name"],
            }
        ]
    )
    pool = {"kind": "Pool", "spec": {"claims": [{"name": "data"}], "pod": {"containers": []}}}
    [template] = templates_of(pool, registry)
    assert with_added_volumes(pool["spec"]["pod"], template) == {
        "containers": [],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}],
    }
