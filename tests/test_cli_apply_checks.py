"""What ``podfold apply`` (and ``explain``, ``validate``) check and warn about, run as the
installed script on real manifests (tests/manifests/).

- every pod template the overlays change is validated, by default: a problem the
  overlays brought fails the command (exit 1, nothing on stdout, one line per problem
  naming document, template and path), one the template had already does not;
  ``--no-validate`` skips it, ``--k8s-version`` picks the schema;
- a document of a kind podfold does not know that holds containers, and a known kind
  whose template is missing or not a map, are warned about;
- an error raised while an overlay applies names its file and line;
- an empty overlay file, a TorchX macro an overlay writes, a manifest that is a list.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests import warm
from transforms.kube import pod_templates
from transforms.kube.unreached import unreached_pods

REPO = Path(__file__).resolve().parent.parent
PODFOLD = Path(sys.executable).with_name("podfold")
MANIFESTS = REPO / "tests" / "manifests"
DEPLOYMENT = MANIFESTS / "kubernetes" / "nginx-deployment.yaml"
PYTORCHJOB = MANIFESTS / "kubeflow" / "pytorchjob-simple.yaml"  # Master and Worker
KUEUE_POD = MANIFESTS / "kueue" / "kueue-pod.yaml"
SINGLE_PVC = MANIFESTS / "jobset" / "single-pvc.yaml"
A100 = REPO / "examples" / "a100.yaml"
MASTER = "document 1: PyTorchJob/pytorch-simple template Master (spec.pytorchReplicaSpecs.Master.template)"
WORKER = "document 1: PyTorchJob/pytorch-simple template Worker (spec.pytorchReplicaSpecs.Worker.template)"


def podfold(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return warm.run("podfold", [*args], input=stdin, cwd=REPO, timeout=120)


def written(tmp_path: Path, name: str, text: str) -> Path:
    target = tmp_path / name
    target.write_text(text)
    return target


def problems_of(result: subprocess.CompletedProcess[str], source: Path) -> list[str]:
    """The problem lines of a failed apply, without their ``FILE: `` prefix; the last line
    of stderr sums them up, and nothing is printed."""
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    *lines, summary = result.stderr.splitlines()
    lines = [line for line in lines if not line.startswith("podfold: warning: ")]
    assert summary.startswith(f"podfold: error: {len(lines)} problem")
    assert all(line.startswith(f"{source}: ") for line in lines)
    return [line.removeprefix(f"{source}: ") for line in lines]


# ---------------------------------------------------------------- validation of what changed


@pytest.mark.parametrize(
    ("overlay", "where", "message"),
    [
        # lists append: a second container 'pytorch', with no image
        (
            "spec: {containers: [{name: pytorch, resources: {limits: {nvidia.com/gpu: 1}}}]}\n",
            "spec.containers[1].image",
            "a container of a pod needs an image",
        ),
        (
            "- {op: upsert, path: spec.nodeSelector, value: [a]}\n",
            "spec.nodeSelector",
            "expected object, found list ['a']",
        ),
        (
            "spec: {restartPolicy: always}\n",
            "spec.restartPolicy",
            "'always' is not one of: Always, OnFailure, Never",
        ),
        (
            '- {op: upsert, path: spec.terminationGracePeriodSeconds, value: "30"}\n',
            "spec.terminationGracePeriodSeconds",
            "expected integer, found string '30'",
        ),
    ],
    ids=["container-without-image", "list-for-a-map", "enum", "string-for-an-integer"],
)
def test_apply_refuses_what_the_overlays_break(
    tmp_path: Path, overlay: str, where: str, message: str
) -> None:
    given = written(tmp_path, "o.yaml", overlay)
    lines = problems_of(podfold("apply", "-f", str(given), str(PYTORCHJOB)), PYTORCHJOB)
    # the overlay's line that wrote the value, where one did (a missing image: none did)
    by = "" if where.endswith(".image") else f" (written by {given}:1)"
    for label, role in ((MASTER, "Master"), (WORKER, "Worker")):
        assert f"{label}: spec.pytorchReplicaSpecs.{role}.template.{where}: {message}{by}" in lines
    # --no-validate prints the stream as before
    unchecked = podfold("apply", "--no-validate", "-f", str(given), str(PYTORCHJOB))
    assert unchecked.returncode == 0, unchecked.stderr
    assert len(list(yaml.safe_load_all(unchecked.stdout))) == 1


def test_a_whole_pod_used_as_an_overlay_on_a_deployment_is_refused() -> None:
    lines = problems_of(podfold("apply", "-f", str(KUEUE_POD), str(DEPLOYMENT)), DEPLOYMENT)
    label = "document 1: Deployment/nginx-deployment template (spec.template)"
    assert lines == [
        f"{label}: spec.template.apiVersion: unknown field apiVersion (written by {KUEUE_POD}:1)",
        f"{label}: spec.template.kind: unknown field kind (written by {KUEUE_POD}:2)",
    ]


def test_only_the_problems_the_overlays_brought_are_reported(tmp_path: Path) -> None:
    # an upstream manifest with a typo'd field already: an overlay that breaks nothing
    # passes, one that breaks something names that only
    job: dict[str, Any] = yaml.safe_load(PYTORCHJOB.read_text())
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["restartPolicyy"] = "Never"
    manifest = written(tmp_path, "typo.yaml", yaml.safe_dump(job, sort_keys=False))
    assert podfold("validate", str(manifest)).returncode == 1
    fine = podfold("apply", "-f", str(A100), str(manifest))
    assert fine.returncode == 0, fine.stderr
    out = yaml.safe_load(fine.stdout)
    assert "restartPolicyy" in out["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]
    broken = written(tmp_path, "o.yaml", "spec: {restartPolicy: always}\n")
    lines = problems_of(podfold("apply", "-f", str(broken), str(manifest)), manifest)
    assert len(lines) == 2 and all("restartPolicy: 'always'" in line for line in lines)


def test_warnings_print_and_do_not_fail(tmp_path: Path) -> None:
    # an env name set twice is a warning of validation
    twice = written(
        tmp_path,
        "env.yaml",
        "- {op: append, path: 'spec.containers[name=nginx].env',"
        " value: {name: A, value: '1'}}\n"
        "- {op: append, path: 'spec.containers[name=nginx].env',"
        " value: {name: A, value: '2'}}\n",
    )
    result = podfold("apply", "-f", str(twice), str(DEPLOYMENT))
    assert result.returncode == 0, result.stderr
    assert yaml.safe_load(result.stdout)["kind"] == "Deployment"
    [warning] = result.stderr.splitlines()
    assert warning.startswith(
        f"podfold: warning: {DEPLOYMENT}: document 1: "
        "Deployment/nginx-deployment template (spec.template): "
        "spec.template.spec.containers[name=nginx].env"
    )


def test_k8s_version_picks_the_schema(tmp_path: Path) -> None:
    # pod-level resources are in the newest schemas, not in 1.29's
    pod_resources = written(tmp_path, "r.yaml", "spec: {resources: {limits: {cpu: '1'}}}\n")
    assert podfold("apply", "-f", str(pod_resources), str(DEPLOYMENT)).returncode == 0
    lines = problems_of(
        podfold("apply", "--k8s-version", "1.29", "-f", str(pod_resources), str(DEPLOYMENT)),
        DEPLOYMENT,
    )
    assert lines == [
        "document 1: Deployment/nginx-deployment template (spec.template): "
        "spec.template.spec.resources: unknown field spec.resources; did you "
        f"mean resourceClaims? (written by {pod_resources}:1)"
    ]
    assert (
        podfold("apply", "--k8s-version", "0.1", "-f", str(A100), str(DEPLOYMENT)).returncode == 2
    )


def test_explain_validates_too(tmp_path: Path) -> None:
    broken = written(tmp_path, "o.yaml", "spec: {restartPolicy: always}\n")
    result = podfold("explain", "-f", str(broken), str(DEPLOYMENT))
    assert result.returncode == 1
    assert result.stdout.startswith("# document 1: Deployment/nginx-deployment")
    assert "spec.template.spec.restartPolicy: 'always' is not one of" in result.stderr
    assert podfold("explain", "--no-validate", "-f", str(broken), str(DEPLOYMENT)).returncode == 0


def test_a_jobset_s_claim_volumes_are_the_pods_own(tmp_path: Path) -> None:
    # jobset's own volume-claim-policy example: both replicated jobs mount the claims
    result = podfold("validate", str(SINGLE_PVC))
    assert result.returncode == 0, result.stdout
    assert podfold("apply", "-f", str(A100), str(SINGLE_PVC)).returncode == 0
    mount = written(
        tmp_path,
        "o.yaml",
        "- {op: upsert, path: 'spec.containers[*].volumeMounts"
        "[name=scratch]', value: {name: scratch, "
        "mountPath: /scratch}}\n",
    )
    lines = problems_of(podfold("apply", "-f", str(mount), str(SINGLE_PVC)), SINGLE_PVC)
    assert len(lines) == 2
    assert all("volumeMounts[name=scratch].name: " in line for line in lines)


# ---------------------------------------------------------------- pods out of reach


UNKNOWN_KINDS = {
    # Katib's random search, trimmed: each trial a Job, inside the experiment's trial template
    "Experiment": {
        "apiVersion": "kubeflow.org/v1beta1",
        "kind": "Experiment",
        "metadata": {"name": "random"},
        "spec": {
            "objective": {"type": "maximize", "objectiveMetricName": "Validation-accuracy"},
            "algorithm": {"algorithmName": "random"},
            "parameters": [
                {"name": "lr", "parameterType": "double", "feasibleSpace": {"min": "0.01"}}
            ],
            "trialTemplate": {
                "primaryContainerName": "training-container",
                "trialParameters": [{"name": "learningRate", "reference": "lr"}],
                "trialSpec": {
                    "apiVersion": "batch/v1",
                    "kind": "Job",
                    "spec": {
                        "template": {
                            "spec": {
                                "containers": [
                                    {
                                        "name": "training-container",
                                        "image": "docker.io/kubeflowkatib/pytorch-mnist-cpu",
                                        "command": ["python3", "/opt/pytorch-mnist/mnist.py"],
                                    }
                                ],
                                "restartPolicy": "Never",
                            }
                        }
                    },
                },
            },
        },
    },
    "DisaggregatedSet": {
        "apiVersion": "disaggregatedset.x-k8s.io/v1alpha1",
        "kind": "DisaggregatedSet",
        "metadata": {"name": "vllm"},
        "spec": {
            "roles": [
                {
                    "name": "prefill",
                    "leaderWorkerTemplate": {
                        "workerTemplate": {
                            "spec": {"containers": [{"name": "vllm", "image": "vllm/vllm-openai"}]}
                        }
                    },
                }
            ]
        },
    },
    "SandboxTemplate": {
        "apiVersion": "extensions.agents.x-k8s.io/v1alpha1",
        "kind": "SandboxTemplate",
        "metadata": {"name": "python"},
        "spec": {
            "podTemplate": {"spec": {"containers": [{"name": "python", "image": "python:3.12"}]}}
        },
    },
    # Numaflow's simple pipeline: one container (a map with an image) per user-defined vertex
    "Pipeline": {
        "apiVersion": "numaflow.numaproj.io/v1alpha1",
        "kind": "Pipeline",
        "metadata": {"name": "simple-pipeline"},
        "spec": {
            "vertices": [
                {"name": "in", "source": {"generator": {"rpu": 5, "duration": "1s"}}},
                {
                    "name": "cat",
                    "udf": {"container": {"image": "quay.io/numaio/numaflow-go/map-cat:stable"}},
                },
                {"name": "out", "sink": {"log": {}}},
            ],
            "edges": [{"from": "in", "to": "cat"}, {"from": "cat", "to": "out"}],
        },
    },
    # Argo's usual templates (one container, one script), of a group podfold knows nothing of
    "WorkflowTemplate": {
        "apiVersion": "workflows.example.com/v1",
        "kind": "WorkflowTemplate",
        "metadata": {"name": "hello"},
        "spec": {
            "entrypoint": "main",
            "templates": [
                {"name": "main", "container": {"image": "busybox", "command": ["echo"]}},
                {"name": "gen", "script": {"image": "python:3.12", "source": "print(1)"}},
            ],
        },
    },
}
WHERE = {
    "Experiment": "spec.trialTemplate.trialSpec.spec.template.spec.containers",
    "DisaggregatedSet": "spec.roles[0].leaderWorkerTemplate.workerTemplate.spec.containers",
    "SandboxTemplate": "spec.podTemplate.spec.containers",
    "Pipeline": "spec.vertices[1].udf.container",
    "WorkflowTemplate": "spec.templates[0].container, spec.templates[1].script",
}


@pytest.mark.parametrize("kind", sorted(UNKNOWN_KINDS))
@pytest.mark.parametrize("command", ["apply", "explain", "validate"])
def test_an_unknown_kind_holding_containers_is_warned_about(
    tmp_path: Path, kind: str, command: str
) -> None:
    document = UNKNOWN_KINDS[kind]
    manifest = written(
        tmp_path,
        "m.yaml",
        yaml.safe_dump_all([yaml.safe_load(DEPLOYMENT.read_text()), document], sort_keys=False),
    )
    args = ("-f", str(A100)) if command != "validate" else ()
    result = podfold(command, *args, str(manifest))
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    name = document["metadata"].get("name") or document["metadata"]["generateName"]
    group = document["apiVersion"].split("/")[0]
    # where one can, a record that reaches the containers follows (on lines of its own)
    warnings = [line.split("; a record that reaches its containers")[0] for line in warnings]
    assert warnings == [
        f"podfold: warning: {manifest}: document 2: {kind}/{name} ({document['apiVersion']}) "
        f"holds containers at {WHERE[kind]}, but podfold knows no kind {kind} of {group}, so "
        f"podfold does not know where its pods are: no overlay or check reaches them; declare "
        f"the kind with a record in a --kinds file (`podfold kinds` lists the kinds podfold "
        f"knows)"
    ]
    if command == "apply":  # passed through as it was
        assert list(yaml.safe_load_all(result.stdout))[1] == document


# the examples of unknown kinds above were these, until podfold came to know their kinds
NOW_KNOWN = {
    # kubeflow trainer v2: a JobSet template inside the runtime
    "ClusterTrainingRuntime": {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "ClusterTrainingRuntime",
        "metadata": {"name": "torch-distributed"},
        "spec": {
            "template": {
                "spec": {
                    "replicatedJobs": [
                        {
                            "name": "node",
                            "template": {
                                "spec": {
                                    "template": {
                                        "spec": {
                                            "containers": [
                                                {"name": "node", "image": "pytorch/pytorch:2.7.1"}
                                            ]
                                        }
                                    }
                                }
                            },
                        }
                    ]
                }
            }
        },
    },
    "Workflow": {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Workflow",
        "metadata": {"generateName": "steps-"},
        "spec": {
            "entrypoint": "main",
            "templates": [
                {
                    "name": "main",
                    "containerSet": {"containers": [{"name": "a", "image": "argoproj/argosay:v2"}]},
                }
            ],
        },
    },
    "WorkflowTemplate": {
        **UNKNOWN_KINDS["WorkflowTemplate"],
        "apiVersion": "argoproj.io/v1alpha1",
    },
}


def test_the_kinds_once_unknown_are_reached_now() -> None:
    reached = {
        kind: [(str(template.path), template.role) for template in pod_templates(document)]
        for kind, document in NOW_KNOWN.items()
    }
    assert reached == {
        "ClusterTrainingRuntime": [
            ("spec.template.spec.replicatedJobs[0].template.spec.template", "node")
        ],
        "Workflow": [],
        "WorkflowTemplate": [("spec.templates[0]", "main"), ("spec.templates[1]", "gen")],
    }
    # and where a known kind keeps a pod podfold does not reach (an Argo containerSet), it
    # says so as of a known kind's: not where podfold looks
    assert {
        kind: [(found.reason, found.places) for found in unreached_pods(document)]
        for kind, document in NOW_KNOWN.items()
    } == {
        "ClusterTrainingRuntime": [],
        "Workflow": [("elsewhere", ("spec.templates[0].containerSet.containers",))],
        "WorkflowTemplate": [],
    }


def test_a_known_kind_whose_template_is_null_or_missing_is_warned_about(tmp_path: Path) -> None:
    deployment = yaml.safe_load(DEPLOYMENT.read_text())
    null = {**deployment, "spec": {**deployment["spec"], "template": None}}
    missing = {**deployment, "spec": {"replicas": 1}}
    manifest = written(tmp_path, "m.yaml", yaml.safe_dump_all([null, missing]))
    result = podfold("apply", "--no-validate", "-f", str(A100), str(manifest))
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        f"podfold: warning: {manifest}: document 1: Deployment/nginx-deployment has null at "
        "spec.template, where its pod template (a map) belongs; no overlay or check reaches "
        "its pods",
        f"podfold: warning: {manifest}: document 2: Deployment/nginx-deployment has no pod "
        "template at spec.template; no overlay or check reaches its pods",
        f"podfold: warning: {manifest}: the overlays reach no pod template: podfold reaches the "
        "pods of none of the 2 documents that hold some (named above), so nothing changed",
    ]


def test_apply_help_names_every_kind_podfold_knows() -> None:
    from transforms.kube import WORKLOAD_KINDS

    text = " ".join(podfold("apply", "--help").stdout.split())
    assert [entry.kind for entry in WORKLOAD_KINDS if entry.kind not in text] == []


# ---------------------------------------------------------------- errors name the overlay line


def test_an_error_while_applying_names_the_overlay_file_and_line(tmp_path: Path) -> None:
    deployment = DEPLOYMENT.read_text().replace("name: nginx\n", "name: inference-server\n")
    manifest = written(tmp_path, "dep.yaml", deployment)
    overlay = written(
        tmp_path,
        "o1.yaml",
        "# env for the server\n"
        "- {op: upsert, path: spec.hostIPC, value: false}\n"
        "- {recipe: add_env, container: inference, FOO: bar}\n",
    )
    for command in ("apply", "explain"):
        result = podfold(command, "-f", str(A100), "-f", str(overlay), str(manifest))
        assert result.returncode == 1
        [line] = result.stderr.splitlines()
        assert line.startswith(
            f"podfold: error: {overlay}:3: expected 1 match for "
            "spec.containers[name=inference], found 0; did you mean "
            "inference-server?"
        ), line
        assert "document 1 > Deployment/nginx-deployment template (spec.template)" in line


def test_a_recipe_that_refuses_the_pod_is_named_by_its_line_too(tmp_path: Path) -> None:
    # the refusal comes from the recipe's check of the pod, not from a step of its body
    overlay = written(
        tmp_path, "aa.yaml", "- {recipe: gpu, type: a100}\n- {recipe: anti_affinity}\n"
    )
    result = podfold("apply", "-f", str(overlay), str(DEPLOYMENT))
    assert result.returncode == 1 and result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith(f"podfold: error: {overlay}:2: anti_affinity() keeps apart"), line


# ---------------------------------------------------------------- smaller warnings and errors


def test_an_empty_overlay_file_is_warned_about(tmp_path: Path) -> None:
    empty = written(tmp_path, "empty.yaml", "# nothing yet\n")
    result = podfold("apply", "-f", str(empty), str(DEPLOYMENT))
    assert result.returncode == 0
    assert result.stderr == (
        f"podfold: warning: {empty}: the overlay holds no step (the file "
        "is empty or only comments); it changes nothing\n"
    )


def test_torchx_macros_an_overlay_writes_are_warned_about_once_each(tmp_path: Path) -> None:
    overlay = written(
        tmp_path,
        "rank.yaml",
        "- {recipe: add_env, container: '*', "
        "RANK: '${replica_id}', APP: '$app_id', "
        "ID: 'r${replica_id}'}\n",
    )
    result = podfold("apply", "-f", str(overlay), str(PYTORCHJOB))
    assert result.returncode == 0, result.stderr
    assert "${replica_id}" in result.stdout  # left as text
    warnings = result.stderr.splitlines()
    assert [
        line.split(": the overlays write the TorchX macro ")[1].split(",")[0] for line in warnings
    ] == ["$app_id", "${replica_id}"]
    assert all(line.startswith(f"podfold: warning: {PYTORCHJOB}: {MASTER}: ") for line in warnings)


@pytest.mark.parametrize("text", ["- kind: Pod\n", "just text\n"])
def test_a_manifest_that_is_not_a_map_names_its_file(tmp_path: Path, text: str) -> None:
    manifest = written(tmp_path, "m.yaml", text)
    result = podfold("apply", "-f", str(A100), str(manifest))
    assert result.returncode == 1
    [line] = result.stderr.splitlines()
    assert line.startswith(f"podfold: error: {manifest}: document 1 is a ")
    assert "on_workloads" not in line


def test_select_repeated_means_either_value_of_one_field() -> None:
    both = podfold(
        "apply",
        "-f",
        str(A100),
        "--select",
        "role=Master",
        "--select",
        "role=Worker",
        str(PYTORCHJOB),
    )
    assert both.returncode == 0, both.stderr
    specs = yaml.safe_load(both.stdout)["spec"]["pytorchReplicaSpecs"]
    assert all("nodeSelector" in specs[role]["template"]["spec"] for role in specs)
    text = " ".join(podfold("apply", "--help").stdout.split())
    assert "matches either value" in text and "all must hold" not in text


def test_a_workload_patch_that_targets_no_document_is_warned_about(tmp_path: Path) -> None:
    # as kustomize matches a patch by kind and name: one for another Deployment changes nothing
    patch = written(
        tmp_path,
        "other.yaml",
        "- strategic: {apiVersion: apps/v1, kind: Deployment, "
        "metadata: {name: other}, spec: {template: {spec: {hostIPC: true}}}}\n",
    )
    for command in ("apply", "explain"):
        result = podfold(command, "-f", str(patch), str(DEPLOYMENT))
        assert result.returncode == 0, result.stderr
        assert result.stderr == (
            f"podfold: warning: {patch}: the strategic patch for Deployment "
            "'other' matches no document of the stream, so it changes "
            "nothing (workloads present: Deployment)\n"
        )
    named = written(
        tmp_path,
        "nginx.yaml",
        "- strategic: {apiVersion: apps/v1, kind: Deployment, "
        "metadata: {name: nginx-deployment}, spec: {template: {spec: {hostIPC: true}}}}\n",
    )
    result = podfold("apply", "-f", str(named), str(DEPLOYMENT))
    assert result.returncode == 0 and result.stderr == ""
    assert "hostIPC: true" in result.stdout


# ---------------------------------------------------------------- pods as their controllers make them

TEKTON = MANIFESTS / "tekton"
TASKRUN = TEKTON / "template-volume.yaml"  # a TaskRun with a podTemplate (its volumes)
TASKRUN_AT = "document 1: TaskRun/template-volume- template (spec.taskSpec)"


def test_the_checks_see_what_the_overlays_wrote_where_a_run_keeps_its_pod_fields(
    tmp_path: Path,
) -> None:
    # a TaskRun's pod fields are its spec.podTemplate's, not its task spec's: the checks
    # after the fold read the pod as Tekton makes it, the podTemplate as the fold left it
    selector = written(tmp_path, "pool.yaml", "- {recipe: node_selector, pool: gpu}\n")
    denied = podfold("apply", "-f", str(selector), "--deny", "spec.nodeSelector", str(TASKRUN))
    assert denied.returncode == 1 and denied.stdout == ""
    assert (
        f"{TASKRUN}: {TASKRUN_AT}: spec.taskSpec.nodeSelector: a denied path was changed "
        f"(denied: spec.nodeSelector) (written by {selector}:1)"
    ) in denied.stderr.splitlines()
    allowed = podfold("apply", "-f", str(selector), "--allow", "spec.containers", str(TASKRUN))
    assert allowed.returncode == 1 and "spec.taskSpec.nodeSelector: " in allowed.stderr
    # what the overlays did not change there is no change
    env = written(tmp_path, "env.yaml", "- {recipe: add_env, A: '1'}\n")
    passed = podfold("apply", "-f", str(env), "--deny", "spec.volumes", str(TASKRUN))
    assert passed.returncode == 0, passed.stderr
    assert yaml.safe_load(passed.stdout)["spec"]["taskSpec"]["steps"][0]["env"][-1]["name"] == "A"
    # the policy and validation read it as it is after the fold
    host = written(tmp_path, "host.yaml", "- {op: upsert, path: spec.hostNetwork, value: true}\n")
    policed = podfold("apply", "-f", str(host), "--policy", "baseline", str(TASKRUN))
    assert policed.returncode == 1
    assert f"{TASKRUN_AT}: spec.taskSpec.hostNetwork: sharing the host's namespaces" in (
        policed.stderr
    )
    bad = written(tmp_path, "dns.yaml", "- {op: upsert, path: spec.dnsPolicy, value: [1]}\n")
    invalid = podfold("apply", "-f", str(bad), str(TASKRUN))
    assert invalid.returncode == 1
    assert (
        f"{TASKRUN}: {TASKRUN_AT}: spec.taskSpec.dnsPolicy: expected string, found list [1] "
        f"(written by {bad}:1)"
    ) in invalid.stderr.splitlines()
    # a PipelineRun's task: its pod fields are its taskRunSpecs element's, made by the fold
    runs = TEKTON / "pipelinerun-with-pipelinespec-and-taskspec.yaml"
    tasks = podfold("apply", "-f", str(selector), "--deny", "spec.nodeSelector", str(runs))
    assert tasks.returncode == 1
    assert tasks.stderr.count("taskSpec.nodeSelector: a denied path was changed") == 3


@pytest.mark.parametrize(
    ("name", "where"),
    [
        # a bare pod spec (Dask's) and one kept among a kind's own fields (KServe's)
        ("dask/simpleworkergroup.yaml", "spec.worker.spec.nodeSelector"),
        ("kserve/sklearn.yaml", "spec.predictor.nodeSelector"),
    ],
)
def test_allow_and_deny_name_a_pods_paths_in_every_kind(
    tmp_path: Path, name: str, where: str
) -> None:
    selector = written(tmp_path, "pool.yaml", "- {recipe: node_selector, pool: gpu}\n")
    done = podfold(
        "apply", "-f", str(selector), "--deny", "spec.nodeSelector", str(MANIFESTS / name)
    )
    assert done.returncode == 1 and done.stdout == ""
    assert f"{where}: a denied path was changed (denied: spec.nodeSelector) (written by " in (
        done.stderr
    )
