"""Argo Workflows on its own examples: each template with a ``container`` or a ``script``
is a pod, its role the template's name.

``manifests/SOURCES.md`` says where each file comes from. A typical overlay (a
toleration, a node selector, an env var and a mount in the main container, a
label) folds over each stream and lands where Argo keeps each field (the
template's ``tolerations``, ``nodeSelector``, ``volumes``, ``metadata.labels``;
its ``container`` or ``script``), leaves Argo's own fields as they were, and adds
no problem to what validation finds in the pods as Argo makes them. A change
with no place in a template is refused, naming the field.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

import combinators
import recipes
from combinators import chain, get_at
from tests.kind_fixtures import MANIFESTS, documents, errors
from transforms.kube.components import ComponentFieldError
from transforms.kube.records import KindRecordError, kind_from_record
from transforms.kube.workloads import apply_to_documents, pod_templates, with_added_volumes

_T = "spec.templates"
_CRON = "spec.workflowSpec.templates"

# file -> (document kind, template path, role) of every pod, in document order
EXPECTED: dict[str, list[tuple[str, str, str | None]]] = {
    "argo/hello-world.yaml": [("Workflow", f"{_T}[0]", "hello-world")],
    # a steps template runs no container of its own: its steps' templates are the pods
    "argo/scripts-python.yaml": [
        ("Workflow", f"{_T}[1]", "gen-random-int"),
        ("Workflow", f"{_T}[2]", "print-message"),
    ],
    "argo/dag-diamond.yaml": [("Workflow", f"{_T}[1]", "echo")],
    "argo/sidecar-nginx.yaml": [("Workflow", f"{_T}[0]", "sidecar-nginx-example")],
    "argo/volumes-pvc.yaml": [
        ("Workflow", f"{_T}[1]", "hello-world-to-file"),
        ("Workflow", f"{_T}[2]", "print-message-from-file"),
    ],
    "argo/pod-metadata-wf-field.yaml": [("Workflow", f"{_T}[1]", "print-message")],
    "argo/init-container.yaml": [("Workflow", f"{_T}[0]", "init-container-example")],
    "argo/cron-workflow.yaml": [("CronWorkflow", f"{_CRON}[0]", "hello-world-with-time")],
    "argo/workflow-templates.yaml": [
        ("WorkflowTemplate", f"{_T}[0]", "print-message"),
        ("WorkflowTemplate", f"{_T}[0]", "random-fail-template"),
        ("WorkflowTemplate", f"{_T}[0]", "print-message"),
        ("WorkflowTemplate", f"{_T}[0]", "print-message"),
        ("WorkflowTemplate", f"{_T}[0]", "print-message"),
    ],
    "argo/cluster-workflow-templates.yaml": [
        ("ClusterWorkflowTemplate", f"{_T}[0]", "print-message"),
        ("ClusterWorkflowTemplate", f"{_T}[0]", "random-fail-template"),
        ("ClusterWorkflowTemplate", f"{_T}[0]", "print-message"),
        ("ClusterWorkflowTemplate", f"{_T}[0]", "print-message"),
        ("ClusterWorkflowTemplate", f"{_T}[0]", "print-message"),
    ],
    # a containerSet's containers share its volumeMounts: no exact place, not reached
    "argo/parallel-workflow.yaml": [],
}

OVERLAY = chain(
    recipes.add_toleration("nvidia.com/gpu", "Exists", None, "NoSchedule"),
    recipes.node_selector(pool="gpu"),
    recipes.add_env(TEAM="ml"),
    recipes.mount_empty_dir("scratch", "/scratch"),
    recipes.add_labels(team="ml"),
)


def test_every_argo_fixture_is_listed_here_and_in_the_sources() -> None:
    on_disk = {f"argo/{path.name}" for path in (MANIFESTS / "argo").iterdir()}
    assert on_disk == set(EXPECTED)
    sources = (MANIFESTS / "SOURCES.md").read_text()
    assert [name for name in EXPECTED if f"`{name}`" not in sources] == []


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_an_overlay_reaches_every_pod_template_where_argo_keeps_each_field(name: str) -> None:
    given = documents(name)
    before = copy.deepcopy(given)
    found = [(template, doc) for doc in given for template in pod_templates(doc)]
    assert [(doc["kind"], str(t.path), t.role) for t, doc in found] == EXPECTED[name]
    result = apply_to_documents(OVERLAY, given)
    assert given == before
    for out, doc in zip(result, given, strict=True):
        if not pod_templates(doc):
            assert out is doc
    folded = [(template, out) for out in result for template in pod_templates(out)]
    for (template, out), (_, doc) in zip(folded, found, strict=True):
        value, original = get_at(out, template.path), get_at(doc, template.path)
        assert value["tolerations"][-1]["key"] == "nvidia.com/gpu", template.describe()
        assert value["nodeSelector"] == {**original.get("nodeSelector", {}), "pool": "gpu"}
        assert value["metadata"]["labels"]["team"] == "ml"
        assert value["volumes"][-1] == {"name": "scratch", "emptyDir": {}}
        key = "container" if "container" in original else "script"
        main = value[key]
        assert {"name": "TEAM", "value": "ml"} in main["env"]
        assert {"name": "scratch", "mountPath": "/scratch"} in main["volumeMounts"]
        assert "name" not in main  # Argo names it main; nothing is added
        # Argo's own fields are as they were; the sidecars are not the main container
        for field in ("name", "inputs", "outputs", "retryStrategy"):
            assert value.get(field) == original.get(field)
        assert main.get("source") == original[key].get("source")
        assert value.get("sidecars") == original.get("sidecars")
        assert "containers" not in value and "spec" not in value
        assert errors(template, value) <= errors(template, original), template.describe()
    untouched = [doc["spec"] for doc in result]
    for spec, doc in zip(untouched, given, strict=True):
        for template in doc["spec"].get("templates", ()):
            if "steps" in template or "dag" in template:
                assert template in spec["templates"]  # left as it was


def test_the_pod_an_overlay_is_given_is_as_argo_makes_it() -> None:
    [workflow] = documents("argo/sidecar-nginx.yaml")
    [template] = pod_templates(workflow)
    made = with_added_volumes(workflow["spec"]["templates"][0], template)
    assert [container["name"] for container in made["containers"]] == ["main", "nginx"]
    [script] = pod_templates(documents("argo/scripts-python.yaml")[0])[:1]
    assert script.role == "gen-random-int"
    # a second container runs beside the main one: Argo keeps it with the sidecars
    [new] = apply_to_documents(
        combinators.append_at("spec.containers", {"name": "log", "image": "busybox"}),
        [workflow],
    )
    assert [s["name"] for s in new["spec"]["templates"][0]["sidecars"]] == ["nginx", "log"]
    [named] = apply_to_documents(recipes.add_env(container="nginx", A="1"), [workflow])
    assert named["spec"]["templates"][0]["sidecars"][0]["env"] == [{"name": "A", "value": "1"}]


def test_what_an_argo_template_has_no_field_for_is_refused_naming_it() -> None:
    [workflow] = documents("argo/hello-world.yaml")
    with pytest.raises(ComponentFieldError) as caught:
        apply_to_documents(combinators.upsert("spec.hostNetwork", True), [workflow])
    assert caught.value.keys == ("hostNetwork",)
    assert "spec.templates[0]" in str(caught.value) and "podSpecPatch" in str(caught.value)
    with pytest.raises(ComponentFieldError) as taken:
        apply_to_documents(combinators.replace_at("spec.containers", []), [workflow])
    assert taken.value.keys == ("container",)
    with pytest.raises(ComponentFieldError) as annotated:
        apply_to_documents(combinators.upsert("metadata.name", "x"), [workflow])
    assert annotated.value.keys == ("metadata.name",)


def test_a_workflow_level_field_is_the_pods_where_the_template_has_none() -> None:
    [workflow] = documents("argo/hello-world.yaml")
    workflow["spec"]["tolerations"] = [{"key": "spot", "operator": "Exists"}]
    [template] = pod_templates(workflow)
    # Argo takes the template's tolerations where it has some, else the workflow's
    [new] = apply_to_documents(OVERLAY, [workflow])
    keys = [each["key"] for each in new["spec"]["templates"][0]["tolerations"]]
    assert keys == ["spot", "nvidia.com/gpu"]
    assert new["spec"]["tolerations"] == workflow["spec"]["tolerations"]
    # an overlay that leaves them as they were copies none into the template
    [same] = apply_to_documents(recipes.node_selector(pool="gpu"), [workflow])
    assert "tolerations" not in same["spec"]["templates"][0]
    assert template.component is not None and template.component.undecided == ()


def test_a_field_a_steps_template_passes_on_is_refused_where_the_template_has_none() -> None:
    [workflow] = documents("argo/scripts-python.yaml")
    workflow["spec"]["templates"][0]["nodeSelector"] = {"zone": "a"}
    with pytest.raises(ComponentFieldError) as caught:
        apply_to_documents(recipes.node_selector(pool="gpu"), [workflow])
    assert caught.value.keys == ("nodeSelector",)
    assert "spec.templates[0].nodeSelector" in str(caught.value)
    # a template with a node selector of its own takes the overlay's: Argo uses its own
    workflow["spec"]["templates"][1]["nodeSelector"] = {"zone": "b"}
    workflow["spec"]["templates"][2]["nodeSelector"] = {"zone": "b"}
    [new] = apply_to_documents(recipes.node_selector(pool="gpu"), [workflow])
    assert new["spec"]["templates"][1]["nodeSelector"] == {"zone": "b", "pool": "gpu"}


def test_a_cron_workflow_keeps_its_workflows_metadata_in_its_spec() -> None:
    [cron] = documents("argo/cron-workflow.yaml")
    [template] = pod_templates(cron)
    assert template.workload_metadata is not None
    assert str(template.workload_metadata.path) == "spec.workflowMetadata"


@pytest.mark.parametrize(
    ("pod", "field", "message"),
    [
        ({"path": "a[*]", "onlyWith": []}, "pods[0].onlyWith", "non-empty"),
        ({"path": "a", "metadataAt": "m"}, "pods[0].metadataAt", "holds: spec"),
        ({"path": "a", "holds": "spec", "containersAt": ""}, "pods[0].containersAt", "non-empty"),
        ({"path": "a", "holds": "spec", "inherited": {}}, "pods[0].inherited", "non-empty list"),
        (
            {"path": "a", "holds": "spec", "inherited": [{"field": "x", "form": "spec.x"}]},
            "pods[0].inherited[0]",
            "did you mean from?",
        ),
        (
            {"path": "a", "holds": "spec", "inherited": [{"field": "x", "from": "s[*].x"}]},
            "pods[0].inherited[0].from",
            "keys only",
        ),
        (
            {"path": "a", "holds": "spec", "inherited": [{"field": "x"}]},
            "pods[0].inherited[0]",
            "neither from nor passedOnBy",
        ),
        (
            {"path": "a", "holds": "spec", "inherited": [{"from": "spec.x"}]},
            "pods[0].inherited[0].field",
            "non-empty string",
        ),
        ({"path": "a", "holds": "spec", "unplacedNote": 1}, "pods[0].unplacedNote", "string"),
    ],
)
def test_the_new_place_fields_of_a_record_are_checked(
    pod: dict[str, Any], field: str, message: str
) -> None:
    with pytest.raises(KindRecordError) as caught:
        kind_from_record({"kind": "X", "pods": [pod]})
    assert caught.value.field == field and message in str(caught.value)


def test_a_declared_kind_uses_the_new_place_fields() -> None:
    from transforms.kube.table import KindRegistry

    registry = KindRegistry.of(
        [
            {
                "apiVersion": "example.com/*",
                "kind": "Flow",
                "pods": [
                    {
                        "path": "spec.steps[*]",
                        "holds": "spec",
                        "roleField": "id",
                        "onlyWith": ["run"],
                        "container": {"at": "run"},
                        "containersAt": "helpers",
                        "metadataAt": "meta",
                        "metadataFields": ["labels"],
                        "podFields": ["containers", "nodeSelector"],
                        "inherited": [{"field": "nodeSelector", "from": "spec.nodeSelector"}],
                        "unplacedNote": "see the docs",
                    }
                ],
            }
        ]
    )
    flow = {
        "apiVersion": "example.com/v1",
        "kind": "Flow",
        "spec": {
            "nodeSelector": {"zone": "a"},
            "steps": [{"id": "wait"}, {"id": "train", "run": {"image": "t"}, "helpers": []}],
        },
    }
    from transforms.kube.discovery import templates_of

    [template] = templates_of(flow, registry)
    assert (str(template.path), template.role) == ("spec.steps[1]", "train")
    [new] = apply_to_documents(
        chain(recipes.node_selector(pool="gpu"), recipes.add_labels(team="ml")),
        [flow],
        kinds=registry,
    )
    step = new["spec"]["steps"][1]
    assert step["nodeSelector"] == {"zone": "a", "pool": "gpu"}
    assert step["meta"] == {"labels": {"team": "ml"}}
    with pytest.raises(ComponentFieldError, match="see the docs"):
        apply_to_documents(recipes.priority_class("high"), [flow], kinds=registry)
    with pytest.raises(ComponentFieldError) as caught:
        apply_to_documents(recipes.add_annotations(a="b"), [flow], kinds=registry)
    assert caught.value.keys == ("metadata.annotations",)


# ---------------------------------------------------------------- Tekton

_TR = "spec.taskSpec"
_PR = "spec.pipelineSpec.tasks"

# file -> (document kind, template path, role) of every pod, in document order; a TaskRun or
# a PipelineRun that names its Task or Pipeline (taskRef, pipelineRef) holds no pod of its own
TEKTON: dict[str, list[tuple[str, str, str | None]]] = {
    "tekton/template-volume.yaml": [("TaskRun", _TR, None)],
    "tekton/sidecar-ready.yaml": [("TaskRun", _TR, None)],
    "tekton/steptemplate-env-merge.yaml": [("TaskRun", _TR, None)],
    "tekton/dind-sidecar.yaml": [("TaskRun", _TR, None)],
    "tekton/run-steps-as-non-root.yaml": [("Task", "spec", None)],
    "tekton/pipelinerun-with-pipelinespec-and-taskspec.yaml": [
        ("PipelineRun", f"{_PR}[0].taskSpec", "echo-good-morning"),
        ("PipelineRun", f"{_PR}[0].taskSpec", "echo-message"),
        ("PipelineRun", f"{_PR}[0].taskSpec", "echo-greetings"),
    ],
    "tekton/pipeline-with-displayname.yaml": [
        ("Task", "spec", None),
        ("Pipeline", "spec.finally[0].taskSpec", "print-result"),
    ],
    # a step with a ref runs a StepAction (a kind of no pod), which gives it its container
    "tekton/stepaction.yaml": [("TaskRun", _TR, None)],
    "tekton/stepactions-steptemplate.yaml": [("TaskRun", _TR, None)],
}
#: The fixtures whose steps refer to StepActions: no room for the steps' env or mounts.
REFERRING = {"tekton/stepaction.yaml", "tekton/stepactions-steptemplate.yaml"}

#: What lands in the steps: an env var and a mount (its volume in the task's volumes) in the
#: main container, a CPU limit in every container.
STEP_OVERLAY = chain(
    recipes.add_env(TEAM="ml"),
    recipes.mount_empty_dir("scratch", "/scratch"),
    combinators.upsert("spec.containers[*].resources.limits.cpu", "2"),
)


def test_every_tekton_fixture_is_listed_here_and_in_the_sources() -> None:
    on_disk = {f"tekton/{path.name}" for path in (MANIFESTS / "tekton").iterdir()}
    assert on_disk == set(TEKTON)
    sources = (MANIFESTS / "SOURCES.md").read_text()
    assert [name for name in TEKTON if f"`{name}`" not in sources] == []


@pytest.mark.parametrize("name", sorted(set(TEKTON) - REFERRING))
def test_an_overlay_reaches_every_tekton_pod_in_its_steps(name: str) -> None:
    given = documents(name)
    before = copy.deepcopy(given)
    found = [(template, doc) for doc in given for template in pod_templates(doc)]
    assert [(doc["kind"], str(t.path), t.role) for t, doc in found] == TEKTON[name]
    result = apply_to_documents(STEP_OVERLAY, given)
    assert given == before
    folded = [(template, out) for out in result for template in pod_templates(out)]
    for (template, out), (_, doc) in zip(folded, found, strict=True):
        value, original = get_at(out, template.path), get_at(doc, template.path)
        assert value["volumes"][-1] == {"name": "scratch", "emptyDir": {}}
        # the recipes act on the main container, the pod's first: the first step
        first = value["steps"][0]
        assert {"name": "TEAM", "value": "ml"} in first["env"], template.describe()
        assert {"name": "scratch", "mountPath": "/scratch"} in first["volumeMounts"]
        for step, was in zip(value["steps"], original["steps"], strict=True):
            # Tekton keeps a step's resources at computeResources; its own fields stay
            assert step["computeResources"]["limits"]["cpu"] == "2"
            assert "resources" not in step
            for field in ("name", "script", "displayName", "workspaces"):
                assert step.get(field) == was.get(field)
        for sidecar, was in zip(
            value.get("sidecars", ()), original.get("sidecars", ()), strict=True
        ):
            assert sidecar["computeResources"]["limits"]["cpu"] == "2"
            assert sidecar.get("readinessProbe") == was.get("readinessProbe")
        for field in ("params", "stepTemplate", "results", "workspaces"):
            assert value.get(field) == original.get(field)
        assert "containers" not in value
        assert ("sidecars" in value) == ("sidecars" in original)
        assert errors(template, value) <= errors(template, original), template.describe()
    for out, doc in zip(result, given, strict=True):
        if not pod_templates(doc):
            assert out is doc  # a run of a Task it names is left as it was


def test_a_taskruns_pod_fields_land_in_its_pod_template() -> None:
    [run] = documents("tekton/template-volume.yaml")
    [template] = pod_templates(run)
    # the podTemplate's volumes are the pod's: the steps' mounts of them are no problem
    assert errors(template, run["spec"]["taskSpec"]) == set()
    overlay = chain(
        recipes.add_toleration("nvidia.com/gpu", "Exists", None, "NoSchedule"),
        recipes.node_selector(pool="gpu"),
        recipes.mount_empty_dir("scratch", "/scratch"),
    )
    given = copy.deepcopy(run)
    [new] = apply_to_documents(overlay, [run])
    assert run == given  # the input is never changed
    pod_template = new["spec"]["podTemplate"]
    assert pod_template["nodeSelector"] == {"pool": "gpu"}
    assert pod_template["tolerations"][-1]["key"] == "nvidia.com/gpu"
    # the volumes it held stay there; a new one is the task's
    assert pod_template["volumes"] == run["spec"]["podTemplate"]["volumes"]
    assert new["spec"]["taskSpec"]["volumes"] == [{"name": "scratch", "emptyDir": {}}]
    [made] = apply_to_documents(
        recipes.node_selector(pool="gpu"), documents("tekton/dind-sidecar.yaml")
    )
    assert made["spec"]["podTemplate"] == {"nodeSelector": {"pool": "gpu"}}
    assert apply_to_documents(combinators.chain(), [run])[0] is run


def test_a_container_an_overlay_adds_runs_beside_the_steps_as_a_sidecar() -> None:
    [run] = documents("tekton/sidecar-ready.yaml")
    [new] = apply_to_documents(
        combinators.append_at("spec.containers", {"name": "log", "image": "busybox"}), [run]
    )
    spec = new["spec"]["taskSpec"]
    assert [s["name"] for s in spec["sidecars"]] == ["slow-sidecar", "log"]
    assert spec["steps"] == run["spec"]["taskSpec"]["steps"]


@pytest.mark.parametrize(
    ("name", "overlay", "keys", "said"),
    [
        # a pod field with no place in a Task, in a TaskRun's podTemplate
        (
            "tekton/run-steps-as-non-root.yaml",
            recipes.node_selector(pool="gpu"),
            ("nodeSelector",),
            "podTemplate of the TaskRun",
        ),
        (
            "tekton/template-volume.yaml",
            combinators.upsert("spec.hostIPC", True),
            ("hostIPC",),
            "podTemplate has no field",
        ),
        # a container field a step lacks; the steps taken away; a podTemplate's volume changed
        (
            "tekton/template-volume.yaml",
            combinators.upsert("spec.containers[0].ports", [{"containerPort": 80}]),
            ("ports",),
            "steps[name=write]",
        ),
        (
            "tekton/template-volume.yaml",
            combinators.replace_at("spec.containers", []),
            ("steps",),
            "another order",
        ),
        (
            "tekton/template-volume.yaml",
            combinators.replace_at("spec.volumes", []),
            ("volumes",),
            "spec.podTemplate.volumes",
        ),
        # a TaskRun's and a Task's task spec keep no pod metadata
        (
            "tekton/template-volume.yaml",
            recipes.add_labels(team="ml"),
            ("metadata.labels",),
            "no place",
        ),
    ],
)
def test_what_a_tekton_pod_has_no_place_for_is_refused_naming_it(
    name: str, overlay: Any, keys: tuple[str, ...], said: str
) -> None:
    with pytest.raises(ComponentFieldError) as caught:
        apply_to_documents(overlay, documents(name))
    assert caught.value.keys == keys and said in str(caught.value)


def test_a_pipeline_tasks_embedded_metadata_is_its_pods() -> None:
    first, *_ = documents("tekton/pipelinerun-with-pipelinespec-and-taskspec.yaml")
    [new] = apply_to_documents(recipes.add_labels(team="ml"), [first])
    task = new["spec"]["pipelineSpec"]["tasks"][0]["taskSpec"]
    assert task["metadata"]["labels"] == {"app": "example", "team": "ml"}
    [template] = pod_templates(first)
    assert (
        template.workload_metadata is not None
        and str(template.workload_metadata.path) == "metadata"
    )


def test_the_tekton_place_fields_of_a_record_are_checked() -> None:
    for pod, field, message in [
        (
            {"path": "a", "holds": "spec", "steps": "s"},
            "pods[0].steps",
            "map (at, fields, template, ref)",
        ),
        (
            {"path": "a", "holds": "spec", "steps": {"at": "s", "feilds": []}},
            "pods[0].steps",
            "did you mean fields?",
        ),
        (
            {"path": "a", "holds": "spec", "steps": {"at": "s"}, "container": {"at": "c"}},
            "pods[0].steps",
            "not both",
        ),
        (
            {"path": "a", "holds": "spec", "containerKeys": {}},
            "pods[0].containerKeys",
            "non-empty map",
        ),
        (
            {"path": "a", "holds": "spec", "podFieldsAt": {"path": "s[*]", "fields": ["x"]}},
            "pods[0].podFieldsAt.path",
            "keys only",
        ),
        (
            {"path": "a", "holds": "spec", "podFieldsAt": {"path": "s"}},
            "pods[0].podFieldsAt.fields",
            "non-empty list",
        ),
        (
            {
                "path": "a",
                "holds": "spec",
                "podFieldsAt": {"path": "s", "fields": ["x"], "match": "n"},
            },
            "pods[0].podFieldsAt",
            "go together",
        ),
        (
            {
                "path": "a",
                "holds": "spec",
                "podFieldsAt": {"path": "s", "fields": ["x"], "defaults": "d[0]"},
            },
            "pods[0].podFieldsAt.defaults",
            "keys only",
        ),
    ]:
        with pytest.raises(KindRecordError) as caught:
            kind_from_record({"kind": "X", "pods": [pod]})
        assert caught.value.field == field and message in str(caught.value), pod


def test_a_pipeline_runs_pod_fields_land_in_its_tasks_run_spec() -> None:
    run, *_ = documents("tekton/pipelinerun-with-pipelinespec-and-taskspec.yaml")
    [template] = pod_templates(run)
    [new] = apply_to_documents(recipes.node_selector(pool="gpu"), [run])
    assert new["spec"]["taskRunSpecs"] == [
        {"pipelineTaskName": "echo-good-morning", "podTemplate": {"nodeSelector": {"pool": "gpu"}}}
    ]
    assert errors(template, get_at(new, template.path)) == set()
    # each field the task's run spec has none of is the run template's: given, and kept there
    run["spec"]["taskRunTemplate"] = {
        "podTemplate": {"tolerations": [{"key": "spot", "operator": "Exists"}]}
    }
    run["spec"]["taskRunSpecs"] = [{"pipelineTaskName": "echo-good-morning", "podTemplate": {}}]
    toleration = recipes.add_toleration("nvidia.com/gpu", "Exists", None, "NoSchedule")
    [new] = apply_to_documents(toleration, [run])
    keys = [each["key"] for each in new["spec"]["taskRunSpecs"][0]["podTemplate"]["tolerations"]]
    assert keys == ["spot", "nvidia.com/gpu"]
    assert new["spec"]["taskRunTemplate"] == run["spec"]["taskRunTemplate"]
    with pytest.raises(ComponentFieldError) as caught:
        apply_to_documents(combinators.remove_at("spec.tolerations"), [run])
    assert caught.value.keys == ("tolerations",)
    assert "spec.taskRunTemplate.podTemplate.tolerations" in str(caught.value)


def test_each_task_of_a_pipeline_run_is_written_for_itself() -> None:
    from transforms.kube.workloads import Selector

    run, *_ = documents("tekton/pipelinerun-with-pipelinespec-and-taskspec.yaml")
    tasks = run["spec"]["pipelineSpec"]["tasks"]
    tasks.append({**copy.deepcopy(tasks[0]), "name": "train"})
    toleration = recipes.add_toleration("nvidia.com/gpu", "Exists", None, "NoSchedule")
    given = copy.deepcopy(run)
    [new] = apply_to_documents(toleration, [run])
    assert run == given
    specs = new["spec"]["taskRunSpecs"]
    assert [spec["pipelineTaskName"] for spec in specs] == ["echo-good-morning", "train"]
    assert all(len(spec["podTemplate"]["tolerations"]) == 1 for spec in specs)
    [picked] = apply_to_documents(toleration, [run], select=Selector(roles=("train",)))
    assert [spec["pipelineTaskName"] for spec in picked["spec"]["taskRunSpecs"]] == ["train"]


def test_a_pipelines_pod_fields_are_its_runs() -> None:
    pipeline = documents("tekton/pipeline-with-displayname.yaml")[1]
    with pytest.raises(ComponentFieldError) as caught:
        apply_to_documents(recipes.node_selector(pool="gpu"), [pipeline])
    assert caught.value.keys == ("nodeSelector",)
    assert "the PipelineRun that runs it" in str(caught.value)


def test_a_steps_env_var_the_pod_template_sets_is_refused() -> None:
    # Tekton gives each step the podTemplate's env after its own: the podTemplate's wins
    [run] = documents("tekton/steptemplate-env-merge.yaml")
    run["spec"]["podTemplate"] = {"env": [{"name": "TEAM", "value": "infra"}]}
    with pytest.raises(ComponentFieldError) as caught:
        apply_to_documents(recipes.add_env(TEAM="ml"), [run])
    assert caught.value.keys == ("env",) and "spec.podTemplate.env" in str(caught.value)
    [new] = apply_to_documents(recipes.add_env(OTHER="x"), [run])
    assert new["spec"]["podTemplate"] == run["spec"]["podTemplate"]


def test_validation_reads_each_step_with_its_step_template() -> None:
    [task, *_] = documents("tekton/run-steps-as-non-root.yaml")
    [template] = pod_templates(task)
    for step in task["spec"]["steps"]:
        del step["image"]
    assert {path for path, _ in errors(template, task["spec"])} == {
        "containers[name=show-user-1001].image",
        "containers[name=show-user-2000].image",
    }
    task["spec"]["stepTemplate"] = {"image": "ubuntu", "env": [{"name": "A", "value": "1"}]}
    assert errors(template, task["spec"]) == set()
    # the overlay sees each step as written: the template stays Tekton's own
    [new] = apply_to_documents(recipes.add_env(B="2"), [task])
    assert new["spec"]["stepTemplate"] == task["spec"]["stepTemplate"]
    assert new["spec"]["steps"][0]["env"] == [{"name": "B", "value": "2"}]


def test_a_containers_resources_a_run_sets_instead_are_refused_where_changed() -> None:
    [run] = documents("tekton/template-volume.yaml")
    run["spec"]["stepSpecs"] = [{"name": "read", "computeResources": {"limits": {"cpu": "1"}}}]
    [new] = apply_to_documents(
        combinators.upsert("spec.containers[name=write].resources.limits.cpu", "2"), [run]
    )
    assert new["spec"]["taskSpec"]["steps"][0]["computeResources"] == {"limits": {"cpu": "2"}}
    with pytest.raises(ComponentFieldError) as caught:
        apply_to_documents(
            combinators.upsert("spec.containers[name=read].resources.limits.cpu", "2"), [run]
        )
    assert caught.value.keys == ("resources",) and "stepSpecs[name=read]" in str(caught.value)
    # a PipelineRun's task's run spec may set every step's
    pipeline, *_ = documents("tekton/pipelinerun-with-pipelinespec-and-taskspec.yaml")
    pipeline["spec"]["taskRunSpecs"] = [
        {"pipelineTaskName": "echo-good-morning", "computeResources": {"limits": {"cpu": "1"}}}
    ]
    with pytest.raises(ComponentFieldError, match="computeResources sets instead"):
        apply_to_documents(
            combinators.upsert("spec.containers[*].resources.limits.cpu", "2"), [pipeline]
        )


@pytest.mark.parametrize("name", sorted(REFERRING))
def test_a_step_that_runs_a_step_action_takes_its_container_from_it(name: str) -> None:
    *_, run = documents(name)
    [template] = pod_templates(run)
    # its image is the StepAction's: no problem; an unnamed step is named as Tekton names it
    assert errors(template, run["spec"]["taskSpec"]) == set()
    with pytest.raises(ComponentFieldError) as caught:
        apply_to_documents(recipes.add_env(TEAM="ml"), [run])
    assert caught.value.keys == ("env",) and "its ref" in str(caught.value)
    # its resources and the pod's fields have their places
    overlay = chain(
        recipes.node_selector(pool="gpu"),
        combinators.upsert("spec.containers[*].resources.limits.cpu", "2"),
    )
    [new] = apply_to_documents(overlay, [run])
    [step] = new["spec"]["taskSpec"]["steps"]
    assert step["computeResources"] == {"limits": {"cpu": "2"}}
    assert step["ref"] == run["spec"]["taskSpec"]["steps"][0]["ref"]
    assert "name" not in step or step["name"] == run["spec"]["taskSpec"]["steps"][0]["name"]
    assert new["spec"]["podTemplate"] == {"nodeSelector": {"pool": "gpu"}}


def test_the_run_over_documents_checks_a_runs_pod_fields_as_the_fold_left_them() -> None:
    # what every door over manifests asks of the run (the KRM function's): a change the
    # overlays wrote into a TaskRun's podTemplate is one of its pod's
    from transforms.run import Checks, Overlays, given
    from transforms.run.documents import run_documents

    given_documents = documents("tekton/template-volume.yaml")
    overlays = Overlays([given(recipes.node_selector(pool="gpu"), "pool.yaml")])
    result = apply_to_documents(overlays.transform, given_documents)
    assert result[0]["spec"]["podTemplate"]["nodeSelector"] == {"pool": "gpu"}
    assert result[0]["spec"]["taskSpec"] is given_documents[0]["spec"]["taskSpec"]
    checks = Checks(deny=("spec.nodeSelector",), policy="baseline")
    [(_, template, done)] = run_documents(overlays, checks, given_documents, result)
    assert str(template.path) == "spec.taskSpec"
    assert [(found.kind, found.path) for found in done.findings] == [("paths", "nodeSelector")]
    assert [str(writer.origin) for writer in done.findings[0].writers] == ["pool.yaml"]
    # left as it was, the pod meets the policy, and nothing was changed to deny
    [(_, _, unchanged)] = run_documents(overlays, checks, given_documents, given_documents)
    assert unchanged.findings == ()
