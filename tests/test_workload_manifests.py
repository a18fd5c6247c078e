"""The workload API on real manifests, taken unchanged from each kind's upstream project.

``manifests/`` holds examples from the Kubernetes docs, Kubeflow, Volcano,
JobSet, KubeRay, LeaderWorkerSet, AppWrapper (both APIs), Kueue, kjob and
GKE's samples (``manifests/SOURCES.md`` says where each comes from). For each
document of each file:

- every pod template is reached: the API's templates are the ones a naive
  walk written here finds (every map whose ``spec.containers`` is a list);
- the rest of the document is the same after a YAML round trip of the result;
- the result is what applying the overlay in plain Python to each template gives;
- every folded template is valid against the official schema, with the
  volumes its workload's controller adds (a StatefulSet's and a
  LeaderWorkerSet's claim templates, a JobSet's claim policies:
  ``with_added_volumes``);
- the input is left as it was, and a document with no pod comes back as itself.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

import recipes
from combinators import Index, Key, chain
from transforms.checks.validation import problems
from transforms.kube import WORKLOAD_KINDS, apply_to_documents, pod_templates, workload_kind
from transforms.kube.records import SPEC
from transforms.kube.workloads import unreached_pods, with_added_volumes

MANIFESTS = Path(__file__).parent / "manifests"
FILES = sorted(path for path in MANIFESTS.rglob("*") if path.suffix in (".yaml", ".yml"))

# a realistic overlay: what an ML platform adds to every pod of a training job
OVERLAY = chain(
    recipes.gpu("a100", count=1),
    recipes.add_toleration("cloud.google.com/gke-spot", "Equal", "true", "NoSchedule"),
    recipes.add_env(NCCL_DEBUG="INFO"),
    recipes.shm_size("16Gi"),
    recipes.add_labels(team="ml"),
)

Where = tuple[Any, ...]


def naive_templates(value: Any, where: Where = ()) -> list[Where]:
    """Where the pods are, found without any table: maps whose spec has a list of containers."""
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


def at(document: Any, where: Where) -> Any:
    for key in where:
        document = document[key]
    return document


def put(document: Any, where: Where, value: Any) -> Any:
    """``document`` with ``value`` at ``where``, written in place on a deep copy."""
    if not where:
        return value
    document = copy.deepcopy(document)
    at(document, where[:-1])[where[-1]] = value
    return document


def without_templates(document: Any, places: list[Where]) -> Any:
    for where in places:
        document = put(document, where, "<template>")
    return document


def as_where(template_path: Any) -> Where:
    return tuple(
        part.name if isinstance(part, Key) else part.index
        for part in template_path.parts
        if isinstance(part, (Key, Index))
    )


def errors_of(template: Any, pod: Any) -> set[tuple[str, str | None]]:
    """The errors of ``pod``, ``template``'s value, with the volumes its controller adds."""
    return {
        (problem.path, problem.rule)
        for problem in problems(with_added_volumes(pod, template), kind=template.root)
        if problem.severity == "error"
    }


@functools.cache
def _parsed(path: Path) -> tuple[Any, ...]:
    return tuple(
        doc for doc in yaml.load_all(path.read_text(), Loader=yaml.CSafeLoader) if doc is not None
    )


def documents_of(path: Path) -> list[Any]:
    """The documents of a manifest, each a copy of what was read once."""
    return copy.deepcopy(list(_parsed(path)))


ALL_CASES = [(path, number) for path in FILES for number in range(len(documents_of(path)))]


def naive_walk_applies(document: Any) -> bool:
    """Whether the naive walk describes the document's pods: pod templates kept as such.
    A bare pod spec, a pod spec among fields of its kind's own (KServe, Knative) or a
    template-less Spark application is tested in test_ml_kinds, with its places written out."""
    entry = workload_kind(document.get("kind"), document.get("apiVersion"))
    return entry is None or all(
        location.holds != SPEC and location.component is None for location in entry.locations
    )


CASES = [
    (path, number)
    for path, number in ALL_CASES
    if naive_walk_applies(documents_of(path)[number])
    # the Spark operator's examples write a container's securityContext fields in the pod's and
    # give the image in spec.image: invalid as pods before any overlay; test_ml_kinds checks
    # that an overlay adds no problem to them
    and path.parent.name != "spark-operator"
]


#: Kinds no upstream repository publishes a manifest of: Knative makes each Revision of a
#: Configuration's template (the tests make them of Knative's files as its MakeRevision does)
MADE_OF_ANOTHER = {("Revision", "serving.knative.dev")}


def test_every_kind_in_the_table_has_a_real_manifest() -> None:
    seen = set(MADE_OF_ANOTHER)
    for path in FILES:
        for document in documents_of(path):
            stack = [document]
            while stack:
                value = stack.pop()
                if isinstance(value, dict):
                    entry = workload_kind(value.get("kind"), value.get("apiVersion"))
                    if entry is not None and "apiVersion" in value:
                        seen.add((entry.kind, entry.group))
                    stack.extend(value.values())
                elif isinstance(value, list):
                    stack.extend(value)
    assert {(entry.kind, entry.group) for entry in WORKLOAD_KINDS} - seen == set()


@pytest.mark.parametrize(
    ("path", "number"),
    CASES,
    ids=[f"{path.relative_to(MANIFESTS)}#{number}" for path, number in CASES],
)
def test_real_manifest(path: Path, number: int) -> None:
    document = documents_of(path)[number]
    before = copy.deepcopy(document)
    places = naive_templates(document)

    # every template reached, in document order
    templates = pod_templates(document)
    assert [as_where(template.path) for template in templates] == places

    [result] = apply_to_documents(OVERLAY, [document])
    assert document == before
    if not places:
        assert result is document
        return

    # the same as the overlay applied by hand to each template
    expected = document
    for where in places:
        expected = put(expected, where, OVERLAY(at(document, where)))
    assert result == expected

    # the rest of the document is the same after a YAML round trip
    again = yaml.safe_load(yaml.safe_dump(result, sort_keys=False))
    assert without_templates(again, places) == without_templates(document, places)
    # byte for byte: key order kept outside the templates too
    assert yaml.safe_dump(without_templates(result, places), sort_keys=False) == yaml.safe_dump(
        without_templates(document, places), sort_keys=False
    )
    for template, where in zip(templates, places, strict=True):
        folded = at(again, where)
        assert folded == OVERLAY(at(document, where))
        # and valid against the official schema, before and after, once the volumes
        # the controller adds are there (a StatefulSet's pods mount its
        # volumeClaimTemplates, a JobSet's its volumeClaimPolicies)
        assert errors_of(template, folded) == set(), template.describe()
        assert errors_of(template, at(document, where)) == set(), template.describe()
        assert folded["spec"]["tolerations"][-1]["key"] == "cloud.google.com/gke-spot"


def test_no_real_manifest_has_pods_out_of_reach() -> None:
    # but where upstream's own manifests keep pods out of reach, and podfold says so: an Argo
    # containerSet template (its containers share its mounts: no exact place), a Spark
    # application whose driver only Spark's own fields describe, a TrainJob, and a Tekton
    # TaskRun that names its Task (its pod is that Task's steps with its own podTemplate),
    # and a Tekton StepAction with a command (the container of the steps that refer to it,
    # which no overlay of theirs reaches)
    assert [
        (path.name, number, found.reason)
        for path, number in ALL_CASES
        for found in unreached_pods(documents_of(path)[number])
    ] == [
        ("parallel-workflow.yaml", 0, "elsewhere"),
        ("spark-pi-scheduled.yaml", 0, "elsewhere"),
        ("run-steps-as-non-root.yaml", 1, "missing"),
        ("stepactions-steptemplate.yaml", 0, "unknown-kind"),
        ("05-multi-step.yaml", 1, "trainjob"),
    ]


def test_the_volumes_a_controller_adds_are_its_claim_templates() -> None:
    # jobset's single-pvc example mounts its two volumeClaimPolicies, which JobSet adds
    [document] = documents_of(MANIFESTS / "jobset" / "single-pvc.yaml")
    templates = pod_templates(document)
    assert [template.added_volumes for template in templates] == [
        ("initializer", "checkpoints")
    ] * 2
    pod = at(document, as_where(templates[0].path))
    assert errors_of(replace(templates[0], added_volumes=()), pod) == {
        ("spec.containers[name=initializer].volumeMounts[name=initializer].name", "volume-mounts")
    }
    assert errors_of(templates[0], pod) == set()
    [_, statefulset] = documents_of(MANIFESTS / "kubernetes" / "web.yaml")
    assert [template.added_volumes for template in pod_templates(statefulset)] == [("www",)]
    # a pod that has the volume already keeps its own, and comes back as itself
    own = {"spec": {"volumes": [{"name": "www", "emptyDir": {}}]}}
    assert with_added_volumes(own, pod_templates(statefulset)[0]) is own


def test_selecting_the_workers_of_a_pytorchjob_in_an_appwrapper() -> None:
    # the AppWrapper wraps a PyTorchJob: select by the inner kind and the replica type
    from transforms.kube import Selector, apply_to_workload

    document = documents_of(MANIFESTS / "appwrapper" / "wrapped-pytorch-job.yaml")[0]
    roles = [(template.kind, template.role) for template in pod_templates(document)]
    assert roles == [("PyTorchJob", "Master"), ("PyTorchJob", "Worker")]
    result = apply_to_workload(
        OVERLAY, document, select=Selector.parse("kind=PyTorchJob,role=Worker")
    )
    replicas = result["spec"]["components"][0]["template"]["spec"]["pytorchReplicaSpecs"]
    original = document["spec"]["components"][0]["template"]["spec"]["pytorchReplicaSpecs"]
    assert replicas["Master"] is original["Master"]
    assert "nodeSelector" in replicas["Worker"]["template"]["spec"]
