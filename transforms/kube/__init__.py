"""What podfold knows about Kubernetes: the official pod schema as compact
tables (one per version), the root kinds, quantities, client objects and
API-form data (one converter each way), which container is the main one, and
where each workload kind keeps its pods (the workload API)."""

from transforms.kube.containers import FIRST, MainContainer
from transforms.kube.convert import ConversionError, pod_to_dict, to_client, to_data
from transforms.kube.kinds import (
    ROOT_KINDS,
    ClientDictError,
    WorkloadKindError,
    check_kind,
    check_pod_document,
)
from transforms.kube.quantity import MAX_QUANTITY, QuantityRangeError, is_quantity, quantity_value
from transforms.kube.schema import (
    DEFAULT_VERSION,
    SUPPORTED_VERSIONS,
    Field,
    Schema,
    Type,
    UnsupportedVersionError,
    check_version,
    schema_for,
    suggest_field,
)
from transforms.kube.workloads import (
    KINDS,
    PodTemplate,
    SelectionError,
    Selector,
    WorkloadKind,
    apply_to_documents,
    apply_to_workload,
    check_selection,
    on_workloads,
    pod_templates,
    workload_kind,
)

__all__ = (
    "DEFAULT_VERSION",
    "SUPPORTED_VERSIONS",
    "ROOT_KINDS",
    "check_kind",
    "check_pod_document",
    "WorkloadKindError",
    "ClientDictError",
    "Field",
    "Schema",
    "Type",
    "UnsupportedVersionError",
    "schema_for",
    "suggest_field",
    "is_quantity",
    "quantity_value",
    "QuantityRangeError",
    "MAX_QUANTITY",
    "check_version",
    "SelectionError",
    "check_selection",
    "ConversionError",
    "to_data",
    "to_client",
    "pod_to_dict",
    "FIRST",
    "MainContainer",
    "KINDS",
    "WorkloadKind",
    "workload_kind",
    "PodTemplate",
    "pod_templates",
    "Selector",
    "apply_to_workload",
    "on_workloads",
    "apply_to_documents",
)
