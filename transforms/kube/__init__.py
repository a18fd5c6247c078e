"""What podfold knows about Kubernetes: the official pod schema as compact
tables (one per version), the root kinds, quantities, client objects and
API-form data (one converter each way), which container is the main one,
where each workload kind keeps its pods (the workload API), and which steps act
on the workload object rather than on its pods (Kueue's queue label).

Each name is imported from its module when first asked for, so that a program
that only applies overlays to manifests (``podfold apply``) loads neither the
schema nor the quantities nor the client conversions.
"""

from transforms._lazy import TYPE_CHECKING, lazy_exports

if TYPE_CHECKING:
    from transforms.kube.acting import BareSpecError
    from transforms.kube.containers import FIRST, MainContainer
    from transforms.kube.convert import ConversionError, pod_to_dict, to_client, to_data
    from transforms.kube.discovery import templates_of
    from transforms.kube.kinds import (
        ROOT_KINDS,
        ClientDictError,
        WorkloadKindError,
        check_kind,
        check_pod_document,
    )
    from transforms.kube.quantity import (
        MAX_QUANTITY,
        QuantityRangeError,
        is_quantity,
        quantity_value,
    )
    from transforms.kube.records import SPEC, KindRecordError, kind_from_record
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
    from transforms.kube.scopes import (
        NoWorkloadMetadataError,
        UnsupportedWorkloadError,
        WorkloadCheck,
        WorkloadMetadataError,
        is_workload_level,
        pod_level,
        split_levels,
        workload_checks,
        workload_level,
    )
    from transforms.kube.table import BUILTIN_KINDS, WORKLOAD_KINDS, KindRegistry, api_group
    from transforms.kube.workloads import (
        PodTemplate,
        SelectionError,
        Selector,
        WorkloadKind,
        WorkloadMetadata,
        apply_to_documents,
        apply_to_workload,
        check_selection,
        on_workloads,
        pod_templates,
        workload_kind,
        workloads_of,
    )

_HOMES = {
    "FIRST": "transforms.kube.containers",
    "MainContainer": "transforms.kube.containers",
    "ConversionError": "transforms.kube.convert",
    "pod_to_dict": "transforms.kube.convert",
    "to_client": "transforms.kube.convert",
    "to_data": "transforms.kube.convert",
    "ROOT_KINDS": "transforms.kube.kinds",
    "ClientDictError": "transforms.kube.kinds",
    "WorkloadKindError": "transforms.kube.kinds",
    "check_kind": "transforms.kube.kinds",
    "check_pod_document": "transforms.kube.kinds",
    "MAX_QUANTITY": "transforms.kube.quantity",
    "QuantityRangeError": "transforms.kube.quantity",
    "is_quantity": "transforms.kube.quantity",
    "quantity_value": "transforms.kube.quantity",
    "DEFAULT_VERSION": "transforms.kube.schema",
    "SUPPORTED_VERSIONS": "transforms.kube.schema",
    "Field": "transforms.kube.schema",
    "Schema": "transforms.kube.schema",
    "Type": "transforms.kube.schema",
    "UnsupportedVersionError": "transforms.kube.schema",
    "check_version": "transforms.kube.schema",
    "schema_for": "transforms.kube.schema",
    "suggest_field": "transforms.kube.schema",
    "PodTemplate": "transforms.kube.workloads",
    "SelectionError": "transforms.kube.workloads",
    "Selector": "transforms.kube.workloads",
    "WorkloadKind": "transforms.kube.workloads",
    "apply_to_documents": "transforms.kube.workloads",
    "apply_to_workload": "transforms.kube.workloads",
    "check_selection": "transforms.kube.workloads",
    "on_workloads": "transforms.kube.workloads",
    "pod_templates": "transforms.kube.workloads",
    "workload_kind": "transforms.kube.workloads",
    "WorkloadMetadata": "transforms.kube.workloads",
    "workloads_of": "transforms.kube.workloads",
    "workload_level": "transforms.kube.scopes",
    "split_levels": "transforms.kube.scopes",
    "is_workload_level": "transforms.kube.scopes",
    "pod_level": "transforms.kube.scopes",
    "WorkloadMetadataError": "transforms.kube.scopes",
    "NoWorkloadMetadataError": "transforms.kube.scopes",
    "UnsupportedWorkloadError": "transforms.kube.scopes",
    "WorkloadCheck": "transforms.kube.scopes",
    "workload_checks": "transforms.kube.scopes",
    "api_group": "transforms.kube.table",
    "BUILTIN_KINDS": "transforms.kube.table",
    "WORKLOAD_KINDS": "transforms.kube.table",
    "KindRegistry": "transforms.kube.table",
    "kind_from_record": "transforms.kube.records",
    "KindRecordError": "transforms.kube.records",
    "SPEC": "transforms.kube.records",
    "templates_of": "transforms.kube.discovery",
    "BareSpecError": "transforms.kube.acting",
}

__all__ = (
    "BUILTIN_KINDS",
    "WORKLOAD_KINDS",
    "KindRegistry",
    "kind_from_record",
    "KindRecordError",
    "SPEC",
    "templates_of",
    "BareSpecError",
    "UnsupportedWorkloadError",
    "WorkloadCheck",
    "workload_checks",
    "api_group",
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
    "WorkloadKind",
    "workload_kind",
    "PodTemplate",
    "pod_templates",
    "Selector",
    "apply_to_workload",
    "on_workloads",
    "apply_to_documents",
    "WorkloadMetadata",
    "workloads_of",
    "workload_level",
    "split_levels",
    "is_workload_level",
    "pod_level",
    "WorkloadMetadataError",
    "NoWorkloadMetadataError",
)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals())
