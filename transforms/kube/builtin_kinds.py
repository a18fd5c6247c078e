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
        {"kind": "List", "pods": [{"path": "items[*]", "holds": "document"}], "metadata": None},
    )
)
