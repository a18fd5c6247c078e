"""The door of the workload API: where each workload kind keeps its pods, and pod
overlays applied there.

Every name of the workload API is imported from here; each lives in the module
of its concept: the kind records (:mod:`transforms.kube.records`, the built-in
ones :mod:`transforms.kube.builtin_kinds`) and their registry
(:mod:`transforms.kube.table`), template discovery
(:mod:`transforms.kube.discovery`), selection (:mod:`transforms.kube.selection`),
applying (:mod:`transforms.kube.applying`; where each level of step acts:
:mod:`transforms.kube.acting`, at a concrete path: :mod:`transforms.kube.placing`)
the pods no overlay reaches
(:mod:`transforms.kube.unreached`), and the current registry, with the kinds
users declare (:mod:`transforms.kube.registry`: :func:`register_kinds`, a
package's ``podfold.kinds`` entry point, :func:`using_kinds`, a ``kinds=``
argument).

A Deployment's pods are in ``spec.template``, a PyTorchJob's in
``spec.pytorchReplicaSpecs.<type>.template``, an AppWrapper holds whole
workloads that hold templates. Each kind's record says so (:data:`WORKLOAD_KINDS`);
:func:`pod_templates` lists the templates of a document, and
:func:`apply_to_workload` applies a pod-level overlay to each selected one,
and its workload-level steps (:mod:`transforms.kube.scopes`) once to the
workload's own metadata, copying only the paths it changes (an unchanged
document comes back as the very same object). Documents with no pod (a
Service, a ConfigMap, a kind the table does not know) pass through
untouched; :func:`unreached_pods` (:mod:`transforms.kube.unreached`) says
which hold pods that no overlay reaches.

>>> import combinators
>>> job = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "mnist"},
...        "spec": {"pytorchReplicaSpecs": {
...            "Master": {"template": {"spec": {"containers": [{"name": "pytorch"}]}}},
...            "Worker": {"template": {"spec": {"containers": [{"name": "pytorch"}]}}}}}}
>>> [(str(t.path), t.role) for t in pod_templates(job)]
[('spec.pytorchReplicaSpecs.Master.template', 'Master'), ('spec.pytorchReplicaSpecs.Worker.template', 'Worker')]
>>> gpu = combinators.upsert("spec.nodeSelector", {"gpu": "a100"})
>>> new = apply_to_workload(gpu, job, select=Selector.parse("role=Worker"))
>>> new["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["nodeSelector"]
{'gpu': 'a100'}
>>> new["spec"]["pytorchReplicaSpecs"]["Master"] is job["spec"]["pytorchReplicaSpecs"]["Master"]
True
"""

from __future__ import annotations

from transforms.kube.acting import BareSpecError
from transforms.kube.applying import apply_to_documents, apply_to_workload, on_workloads
from transforms.kube.discovery import (
    PodTemplate,
    WorkloadMetadata,
    pod_templates,
    templates_of,
    with_added_volumes,
)
from transforms.kube.records import (
    BY_KEY,
    DOCUMENT,
    POD,
    SPEC,
    TEMPLATE,
    KindRecordError,
    Location,
    WorkloadKind,
    kind_from_record,
)
from transforms.kube.registry import (
    DeclaredKind,
    KindSourceError,
    current_kinds,
    kind_origin,
    register_kinds,
    resolve_kinds,
    using_kinds,
    workload_kind,
)
from transforms.kube.selection import SelectionError, Selector, check_selection, workloads_of
from transforms.kube.table import (
    BUILTIN_KINDS,
    WORKLOAD_KINDS,
    KindRegistry,
)
from transforms.kube.unreached import Unreached, suggested_record, unreached_pods

__all__ = (
    "SelectionError",
    "check_selection",
    "POD",
    "TEMPLATE",
    "SPEC",
    "DOCUMENT",
    "BY_KEY",
    "Location",
    "WorkloadKind",
    "KindRecordError",
    "kind_from_record",
    "KindRegistry",
    "BUILTIN_KINDS",
    "WORKLOAD_KINDS",
    "WorkloadMetadata",
    "workloads_of",
    "workload_kind",
    "PodTemplate",
    "pod_templates",
    "templates_of",
    "Selector",
    "apply_to_workload",
    "on_workloads",
    "apply_to_documents",
    "BareSpecError",
    "with_added_volumes",
    "Unreached",
    "unreached_pods",
    "suggested_record",
    "DeclaredKind",
    "KindSourceError",
    "current_kinds",
    "register_kinds",
    "using_kinds",
    "resolve_kinds",
    "kind_origin",
)
