"""The kinds podfold knows out of the box, as kind records: data, not code.

Each record has the shape :func:`~transforms.kube.records.kind_from_record`
reads, the same a declared kind has: ``kind``, ``apiVersion`` where two
projects use one kind name, ``pods`` (paths in podfold's path grammar, ``[*]``
for each element of a list or a map, what each holds, how its role is named,
its main container where the kind says so), ``addedVolumes`` and
``metadata``. :mod:`transforms.kube.table` builds the registry from them.

>>> [record["kind"] for record in RECORDS][:3]
['Pod', 'PodTemplate', 'Deployment']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyrsistent import freeze

__all__ = ("RECORDS",)

_Record = Mapping[str, Any]


#: A KServe component's own fields beside its pod spec (ComponentExtensionSpec, storageUris).
_KSERVE_COMPONENT: _Record = {
    "holds": "spec",
    "ownFields": [
        "minReplicas",
        "maxReplicas",
        "scaleTarget",
        "scaleMetric",
        "scaleMetricType",
        "autoScaling",
        "containerConcurrency",
        "timeout",
        "canaryTrafficPercent",
        "logger",
        "batcher",
        "deploymentStrategy",
        "storageUris",
    ],
    "metadataFields": ["labels", "annotations"],
}

#: The model server's image, which KServe fills in where the container names none.
_KSERVE_IMAGE = [
    {
        "path": "containers[name=kserve-container].image",
        "why": "KServe gives the model server's container the image of the serving runtime "
        "(or, for an explainer, of its configuration) where it names none",
    }
]

#: A predictor: a component, with its model server's container at ``model`` or a framework's key.
_KSERVE_PREDICTOR: _Record = {
    **_KSERVE_COMPONENT,
    "filledIn": _KSERVE_IMAGE,
    "ownFields": [*_KSERVE_COMPONENT["ownFields"], "name", "storageContainerName", "workerSpec"],
    "container": {
        "at": [
            "model",
            "sklearn",
            "xgboost",
            "tensorflow",
            "pytorch",
            "triton",
            "onnx",
            "huggingface",
            "pmml",
            "lightgbm",
            "paddle",
        ],
        "name": "kserve-container",
        "ownFields": [
            "modelFormat",
            "runtime",
            "storageUri",
            "runtimeVersion",
            "protocolVersion",
            "storage",
            "confidential",
        ],
    },
}

#: The main container's image of an LLMInferenceService's pool, filled in by KServe.
_LLM_IMAGE = [
    {
        "path": "containers[name=main].image",
        "why": "KServe gives the main container the image of the configuration it is "
        "made from (an LLMInferenceServiceConfig) where it names none",
    }
]

#: A predictor's workers (multi-node): a pod spec and the parallelism KServe gives them.
_KSERVE_WORKER: _Record = {
    "holds": "spec",
    "ownFields": ["pipelineParallelSize", "tensorParallelSize"],
}

#: A serving runtime's pods: the only pod fields it has room for (ServingRuntimePodSpec).
_KSERVE_RUNTIME_POD: _Record = {
    "holds": "spec",
    "podFields": [
        "containers",
        "volumes",
        "nodeSelector",
        "affinity",
        "tolerations",
        "imagePullSecrets",
        "hostIPC",
        "schedulerName",
        "resourceClaims",
    ],
    "metadataFields": ["labels", "annotations"],
}


#: A Knative revision's pod spec: RevisionSpec inlines the pod spec beside fields of its own.
_KNATIVE_REVISION: _Record = {
    "ownFields": [
        "containerConcurrency",
        "timeoutSeconds",
        "responseStartTimeoutSeconds",
        "idleTimeoutSeconds",
    ],
    "containerName": "user-container",
    "filledIn": [
        {
            "path": f"containers[*].{probe}.{handler}.port",
            "why": "Knative gives a probe with no port the port of the container it serves on",
        }
        for probe in ("readinessProbe", "livenessProbe", "startupProbe")
        for handler in ("httpGet", "tcpSocket")
    ],
}


#: The Spark operator's driver or executor pod: its main container's image is the
#: application's where the template names none.
def _spark(path: str, role: str) -> _Record:
    return {
        "path": path,
        "role": role,
        "mainContainer": 0,
        "filledIn": [
            {
                "path": "containers[0].image",
                "why": "the Spark operator gives the main container the application's image "
                "(spec.image, or the driver's or executor's own)",
            }
        ],
    }


#: The pod fields an Argo template has room for (Template in workflow_types.go, as
#: workflowpod.go builds the pod): the rest of a template is Argo's own.
_ARGO_POD_FIELDS = [
    "containers",
    "nodeSelector",
    "affinity",
    "tolerations",
    "volumes",
    "initContainers",
    "securityContext",
    "serviceAccountName",
    "automountServiceAccountToken",
    "priorityClassName",
    "schedulerName",
    "hostAliases",
    "resourceClaims",
]


def _argo_templates(spec: str) -> _Record:
    """An Argo workflow spec's templates at ``spec``: each with a ``container`` or a
    ``script`` makes a pod (a ``steps``, ``dag``, ``suspend``, ``resource``, ``http`` or
    ``data`` template runs no user container; a ``containerSet``'s has no exact place).

    Argo names the main container ``main`` and runs the sidecars beside it; a field the
    template lacks comes from the workflow spec (``podPriorityClassName`` for
    ``priorityClassName``), and its ``nodeSelector``, ``affinity`` and ``tolerations`` from
    the ``steps`` or ``dag`` template that runs it, first (workflowpod.go).
    """
    passed_on = ("nodeSelector", "affinity", "tolerations")
    inherited = [
        {
            "field": field,
            "from": f"{spec}.{'podPriorityClassName' if field == 'priorityClassName' else field}",
            **({"passedOnBy": ["steps", "dag"]} if field in passed_on else {}),
        }
        for field in (
            *passed_on,
            "securityContext",
            "serviceAccountName",
            "priorityClassName",
            "schedulerName",
            "resourceClaims",
        )
    ]
    return {
        "path": f"{spec}.templates[*]",
        "holds": "spec",
        "roleField": "name",
        "onlyWith": ["container", "script"],
        "podFields": _ARGO_POD_FIELDS,
        "container": {"at": ["container", "script"], "name": "main", "ownFields": ["source"]},
        "containersAt": "sidecars",
        "metadataAt": "metadata",
        "inherited": inherited,
        "unplacedNote": (
            "an Argo template has no field for it: its podSpecPatch can carry it, "
            "which podfold does not write yet"
        ),
        "filledIn": [
            {
                "path": f"{containers}[*].mirrorVolumeMounts",
                "why": "Argo gives a container that sets it the main container's volume "
                "mounts, and takes the field away",
            }
            for containers in ("initContainers", "containers")
        ],
    }


def _argo(kind: str, spec: str, metadata: str) -> _Record:
    return {
        "apiVersion": "argoproj.io/*",
        "kind": kind,
        "pods": [_argo_templates(spec)],
        # a mount may name a workflow-level volume or claim template: Argo adds those it names
        "addedVolumes": [
            f"{spec}.volumes[*].name",
            f"{spec}.volumeClaimTemplates[*].metadata.name",
        ],
        "metadata": metadata,
    }


#: The container fields a Tekton step has room for (Step in container_types.go, v1): the
#: rest of a step is Tekton's own; ``resources`` it keeps at ``computeResources``.
_TEKTON_STEP_FIELDS = [
    "image",
    "command",
    "args",
    "workingDir",
    "envFrom",
    "env",
    "resources",
    "volumeMounts",
    "volumeDevices",
    "imagePullPolicy",
    "securityContext",
]

#: The pod fields a TaskRun's podTemplate holds (Template in pod/template.go, as pod.go
#: builds the pod; its ``env``, which pod.go gives every step after the step's own, is no
#: pod field: a step's env var it sets is refused).
_TEKTON_POD_TEMPLATE_FIELDS = [
    "nodeSelector",
    "tolerations",
    "affinity",
    "securityContext",
    "volumes",
    "runtimeClassName",
    "automountServiceAccountToken",
    "dnsPolicy",
    "dnsConfig",
    "enableServiceLinks",
    "priorityClassName",
    "schedulerName",
    "imagePullSecrets",
    "hostAliases",
    "hostNetwork",
    "hostUsers",
    "topologySpreadConstraints",
]


#: Where a Tekton run sets its containers' resources instead of theirs: beside its pod
#: template (a TaskRun's spec, a PipelineRun's taskRunSpecs element).
_TEKTON_RESOURCES_BY = {
    "stepSpecs": "steps",
    "sidecarSpecs": "sidecars",
    "computeResources": "steps",
}


def _tekton_task(path: str, note: str, **more: Any) -> _Record:
    """A Tekton task spec at ``path``: its steps are the pod's first containers, run one
    after another, its sidecars run beside them, its volumes are the pod's; a pod field
    it has no field for is refused with ``note``. A custom task's embedded spec (no
    ``steps``) makes no pod."""
    return {
        "path": path,
        "holds": "spec",
        "onlyWith": ["steps"],
        "podFields": ["containers", "volumes"],
        "ownFields": [
            "params",
            "displayName",
            "description",
            "stepTemplate",
            "workspaces",
            "results",
        ],
        # a step with a ref runs a StepAction, which gives it its container
        "steps": {
            "at": "steps",
            "fields": _TEKTON_STEP_FIELDS,
            "template": "stepTemplate",
            "ref": {
                "at": "ref",
                "without": ["image", "command", "args", "workingDir", "env", "volumeMounts"],
            },
        },
        "containersAt": "sidecars",
        # Tekton names an unnamed step (unnamed-0, ...), as the pod's container step-unnamed-0
        "containerName": "unnamed",
        "containerOwnFields": [
            "displayName",
            "script",
            "timeout",
            "workspaces",
            "onError",
            "stdoutConfig",
            "stderrConfig",
            "ref",
            "params",
            "results",
            "when",
        ],
        "containerKeys": {"resources": "computeResources"},
        "unplacedNote": note,
        **more,
    }


def _tekton_pipeline(spec: str, **more: Any) -> list[_Record]:
    """The pipeline tasks' embedded task specs of a pipeline spec at ``spec``, each its
    task's pod, its role the task's name; an embedded task's metadata is its pod's."""
    return [
        _tekton_task(
            f"{spec}.{tasks}[*].taskSpec",
            "a Pipeline has no field for it: the PipelineRun that runs it can carry it "
            "(spec.taskRunSpecs[].podTemplate, spec.taskRunTemplate.podTemplate)",
            roleField="name",
            metadataAt="metadata",
            ownFields=[
                "params",
                "displayName",
                "description",
                "stepTemplate",
                "workspaces",
                "results",
                "apiVersion",
                "kind",
                "spec",
            ],
            **more,
        )
        for tasks in ("tasks", "finally")
    ]


#: Every built-in kind's record, in the order the registry lists them (frozen: read-only).
RECORDS: tuple[_Record, ...] = freeze(
    (
        {"kind": "Pod", "pods": [{"path": "", "holds": "pod"}]},
        {"kind": "PodTemplate", "pods": [{"path": "template"}], "metadata": "template.metadata"},
        {"kind": "Deployment", "pods": [{"path": "spec.template"}]},
        {
            "kind": "StatefulSet",
            "pods": [{"path": "spec.template"}],
            "addedVolumes": ["spec.volumeClaimTemplates[*].metadata.name"],
        },
        {"kind": "DaemonSet", "pods": [{"path": "spec.template"}]},
        {"kind": "ReplicaSet", "pods": [{"path": "spec.template"}]},
        {"kind": "ReplicationController", "pods": [{"path": "spec.template"}]},
        {"kind": "Job", "pods": [{"path": "spec.template"}]},
        # Kueue reads a CronJob's Jobs' labels, which the CronJob copies from its jobTemplate
        {
            "kind": "CronJob",
            "pods": [{"path": "spec.jobTemplate.spec.template"}],
            "metadata": "spec.jobTemplate.metadata",
        },
        {
            "apiVersion": "batch.volcano.sh/*",
            "kind": "Job",
            "pods": [{"path": "spec.tasks[*].template", "roleField": "name"}],
        },
        {
            "apiVersion": "batch.volcano.sh/*",
            "kind": "CronJob",
            "pods": [{"path": "spec.jobTemplate.spec.tasks[*].template", "roleField": "name"}],
            "metadata": "spec.jobTemplate.metadata",
        },
        {
            "apiVersion": "flow.volcano.sh/*",
            "kind": "JobTemplate",
            "pods": [{"path": "spec.tasks[*].template", "roleField": "name"}],
        },
        # Kueue's Workload: each pod set's template (PodSet), its role the pod set's name
        {
            "apiVersion": "kueue.x-k8s.io/*",
            "kind": "Workload",
            "pods": [{"path": "spec.podSets[*].template", "roleField": "name"}],
        },
        {
            "kind": "AppWrapper",
            "pods": [
                {"path": "spec.resources.GenericItems[*].generictemplate", "holds": "document"},
                {"path": "spec.components[*].template", "holds": "document"},
            ],
        },
        # JobSet adds a claim's volume to each pod that mounts it (jobset's addVolumes)
        {
            "kind": "JobSet",
            "pods": [
                {"path": "spec.replicatedJobs[*].template.spec.template", "roleField": "name"}
            ],
            "addedVolumes": ["spec.volumeClaimPolicies[*].templates[*].metadata.name"],
        },
        {
            "kind": "PyTorchJob",
            "pods": [
                {
                    "path": "spec.pytorchReplicaSpecs[*].template",
                    "roleKey": True,
                    "mainContainer": "pytorch",
                }
            ],
        },
        {
            "kind": "TFJob",
            "pods": [
                {
                    "path": "spec.tfReplicaSpecs[*].template",
                    "roleKey": True,
                    "mainContainer": "tensorflow",
                }
            ],
        },
        # the training operator finds a job's container by its name (its DefaultContainerName);
        # mpi-operator's MPIJob (v2beta1) names none
        {
            "kind": "MPIJob",
            "pods": [{"path": "spec.mpiReplicaSpecs[*].template", "roleKey": True}],
        },
        {
            "kind": "XGBoostJob",
            "pods": [
                {
                    "path": "spec.xgbReplicaSpecs[*].template",
                    "roleKey": True,
                    "mainContainer": "xgboost",
                }
            ],
        },
        {
            "kind": "PaddleJob",
            "pods": [
                {
                    "path": "spec.paddleReplicaSpecs[*].template",
                    "roleKey": True,
                    "mainContainer": "paddle",
                }
            ],
        },
        {
            "kind": "JAXJob",
            "pods": [
                {
                    "path": "spec.jaxReplicaSpecs[*].template",
                    "roleKey": True,
                    "mainContainer": "jax",
                }
            ],
        },
        # KubeRay takes the first container of each group's pod as its Ray container
        {
            "kind": "RayCluster",
            "pods": [
                {"path": "spec.headGroupSpec.template", "role": "head", "mainContainer": 0},
                {
                    "path": "spec.workerGroupSpecs[*].template",
                    "roleField": "groupName",
                    "mainContainer": 0,
                },
            ],
        },
        {
            "kind": "RayJob",
            "pods": [
                {
                    "path": "spec.rayClusterSpec.headGroupSpec.template",
                    "role": "head",
                    "mainContainer": 0,
                },
                {
                    "path": "spec.rayClusterSpec.workerGroupSpecs[*].template",
                    "roleField": "groupName",
                    "mainContainer": 0,
                },
                {"path": "spec.submitterPodTemplate", "role": "submitter"},
            ],
        },
        {
            "kind": "RayService",
            "pods": [
                {
                    "path": "spec.rayClusterConfig.headGroupSpec.template",
                    "role": "head",
                    "mainContainer": 0,
                },
                {
                    "path": "spec.rayClusterConfig.workerGroupSpecs[*].template",
                    "roleField": "groupName",
                    "mainContainer": 0,
                },
            ],
        },
        {
            "kind": "RayCronJob",
            "pods": [
                {
                    "path": "spec.jobTemplate.rayClusterSpec.headGroupSpec.template",
                    "role": "head",
                    "mainContainer": 0,
                },
                {
                    "path": "spec.jobTemplate.rayClusterSpec.workerGroupSpecs[*].template",
                    "roleField": "groupName",
                    "mainContainer": 0,
                },
                {"path": "spec.jobTemplate.submitterPodTemplate", "role": "submitter"},
            ],
            "metadata": None,
        },
        # the leader's and the workers' StatefulSets both get the claim templates (as lws makes them)
        {
            "kind": "LeaderWorkerSet",
            "pods": [
                {"path": "spec.leaderWorkerTemplate.leaderTemplate", "role": "leader"},
                {"path": "spec.leaderWorkerTemplate.workerTemplate", "role": "worker"},
            ],
            "addedVolumes": ["spec.leaderWorkerTemplate.volumeClaimTemplates[*].metadata.name"],
        },
        # Kubeflow Trainer v2: a runtime is a JobSet template; the TrainJobs made from it are the
        # workloads (Kueue reads theirs), so a runtime keeps no workload metadata of its own
        *(
            {
                "apiVersion": "trainer.kubeflow.org/*",
                "kind": kind,
                "pods": [
                    {
                        "path": "spec.template.spec.replicatedJobs[*].template.spec.template",
                        "roleField": "name",
                    }
                ],
                "addedVolumes": [
                    "spec.template.spec.volumeClaimPolicies[*].templates[*].metadata.name"
                ],
                "metadata": None,
            }
            for kind in ("TrainingRuntime", "ClusterTrainingRuntime")
        ),
        # KServe: each component inlines a pod spec with fields of its own, gives the pod its
        # labels and annotations, and keeps the model server's container apart (KServe names it
        # kserve-container and puts it first, before the component's containers)
        {
            "apiVersion": "serving.kserve.io/*",
            "kind": "InferenceService",
            "pods": [
                {**_KSERVE_PREDICTOR, "path": "spec.predictor", "role": "predictor"},
                {**_KSERVE_WORKER, "path": "spec.predictor.workerSpec", "role": "worker"},
                {**_KSERVE_COMPONENT, "path": "spec.transformer", "role": "transformer"},
                {
                    **_KSERVE_COMPONENT,
                    "path": "spec.explainer",
                    "role": "explainer",
                    "filledIn": _KSERVE_IMAGE,
                    "container": {
                        "at": ["art"],
                        "name": "kserve-container",
                        "ownFields": ["type", "storageUri", "runtimeVersion", "config", "storage"],
                    },
                },
                {**_KSERVE_PREDICTOR, "path": "spec.canary[*].predictor", "role": "canary"},
                {
                    **_KSERVE_WORKER,
                    "path": "spec.canary[*].predictor.workerSpec",
                    "role": "canary-worker",
                },
            ],
        },
        *(
            {
                "apiVersion": "serving.kserve.io/*",
                "kind": kind,
                "pods": [
                    {**_KSERVE_RUNTIME_POD, "path": "spec", "role": "head"},
                    {**_KSERVE_RUNTIME_POD, "path": "spec.workerSpec", "role": "worker"},
                ],
            }
            # a namespaced ServingRuntime has the cluster-wide one's shape (ServingRuntimeSpec)
            for kind in ("ClusterServingRuntime", "ServingRuntime")
        ),
        # the pools' pods are bare pod specs; with prefill, the main pool decodes
        {
            "apiVersion": "serving.kserve.io/*",
            "kind": "LLMInferenceService",
            "pods": [
                *(
                    {"path": where, "holds": "spec", "role": role, "filledIn": _LLM_IMAGE}
                    for where, role in (
                        ("spec.template", "main"),
                        ("spec.worker", "worker"),
                        ("spec.prefill.template", "prefill"),
                        ("spec.prefill.worker", "prefill-worker"),
                    )
                ),
                {"path": "spec.router.scheduler.template", "holds": "spec", "role": "scheduler"},
            ],
        },
        # the Spark operator: where a driver or an executor has no template, Spark's own fields
        # (cores, memory, env...) describe its pod, and no overlay reaches it
        {
            "apiVersion": "sparkoperator.k8s.io/*",
            "kind": "SparkApplication",
            "pods": [
                _spark("spec.driver.template", "driver"),
                _spark("spec.executor.template", "executor"),
            ],
        },
        {
            "apiVersion": "sparkoperator.k8s.io/*",
            "kind": "ScheduledSparkApplication",
            "pods": [
                _spark("spec.template.driver.template", "driver"),
                _spark("spec.template.executor.template", "executor"),
            ],
        },
        {
            "apiVersion": "sparkoperator.k8s.io/*",
            "kind": "SparkConnect",
            "pods": [
                _spark("spec.server.template", "server"),
                _spark("spec.executor.template", "executor"),
            ],
        },
        # Knative Serving: a revision's spec is a pod spec with fields of its own, and Knative
        # names each unnamed container (user-container, or user-container-N for several)
        *(
            {
                "apiVersion": "serving.knative.dev/*",
                "kind": kind,
                "pods": [{**_KNATIVE_REVISION, "path": "spec.template"}],
            }
            for kind in ("Service", "Configuration")
        ),
        # a Revision's spec is the pod spec (RevisionSpec inlines it); Knative gives the
        # Revision's labels and annotations to its pods, which are refused from the spec
        {
            "apiVersion": "serving.knative.dev/*",
            "kind": "Revision",
            "pods": [{**_KNATIVE_REVISION, "path": "spec", "holds": "spec"}],
        },
        {
            "apiVersion": "keda.sh/*",
            "kind": "ScaledJob",
            "pods": [{"path": "spec.jobTargetRef.template"}],
        },
        # Dask's operator: bare pod specs beside the scheduler's service and the workers' replicas
        {
            "apiVersion": "kubernetes.dask.org/*",
            "kind": "DaskCluster",
            "pods": [
                {"path": "spec.scheduler.spec", "holds": "spec", "role": "scheduler"},
                {"path": "spec.worker.spec", "holds": "spec", "role": "worker"},
            ],
        },
        {
            "apiVersion": "kubernetes.dask.org/*",
            "kind": "DaskWorkerGroup",
            "pods": [{"path": "spec.worker.spec", "holds": "spec", "role": "worker"}],
        },
        {
            "apiVersion": "kubernetes.dask.org/*",
            "kind": "DaskJob",
            "pods": [
                {"path": "spec.job.spec", "holds": "spec", "role": "job"},
                {"path": "spec.cluster.spec.scheduler.spec", "holds": "spec", "role": "scheduler"},
                {"path": "spec.cluster.spec.worker.spec", "holds": "spec", "role": "worker"},
            ],
        },
        # Argo Workflows: a workflow's Workflows are made from a template's workflowMetadata
        _argo("Workflow", "spec", "metadata"),
        _argo("WorkflowTemplate", "spec", "spec.workflowMetadata"),
        _argo("ClusterWorkflowTemplate", "spec", "spec.workflowMetadata"),
        _argo("CronWorkflow", "spec.workflowSpec", "spec.workflowMetadata"),
        # Tekton Pipelines (v1): a task's pod is its steps and sidecars, the pod fields its
        # TaskRun's podTemplate holds; a Task and a Pipeline are what runs are made from
        {
            "apiVersion": "tekton.dev/v1",
            "kind": "Task",
            "pods": [
                _tekton_task(
                    "spec",
                    "a Task has no field for it: the podTemplate of the TaskRun or the "
                    "PipelineRun that runs it can carry it",
                )
            ],
            "metadata": None,
        },
        {
            "apiVersion": "tekton.dev/v1",
            "kind": "TaskRun",
            "pods": [
                _tekton_task(
                    "spec.taskSpec",
                    "a TaskRun's podTemplate has no field for it",
                    podFieldsAt={
                        "path": "spec.podTemplate",
                        "fields": _TEKTON_POD_TEMPLATE_FIELDS,
                        "stepsEnv": "env",
                        # stepSpecs and sidecarSpecs set a container's resources, by name,
                        # instead of its own, computeResources the steps' (MergeStepsWithSpecs)
                        "resourcesBy": _TEKTON_RESOURCES_BY,
                    },
                )
            ],
        },
        {
            "apiVersion": "tekton.dev/v1",
            "kind": "Pipeline",
            "pods": _tekton_pipeline("spec"),
            "metadata": None,
        },
        {
            "apiVersion": "tekton.dev/v1",
            "kind": "PipelineRun",
            # a task's pod fields are its taskRunSpecs element's, each it has none of the
            # taskRunTemplate's (GetTaskRunSpec): written for that task alone
            "pods": _tekton_pipeline(
                "spec.pipelineSpec",
                podFieldsAt={
                    "path": "spec.taskRunSpecs",
                    "match": "pipelineTaskName",
                    "at": "podTemplate",
                    "defaults": "spec.taskRunTemplate.podTemplate",
                    "fields": _TEKTON_POD_TEMPLATE_FIELDS,
                    "stepsEnv": "env",
                    "resourcesBy": _TEKTON_RESOURCES_BY,
                },
                unplacedNote="a PipelineRun's task pod template has no field for it",
            ),
        },
        {"kind": "List", "pods": [{"path": "items[*]", "holds": "document"}], "metadata": None},
    )
)
