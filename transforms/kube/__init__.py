"""What podfold knows about Kubernetes: the official pod schema as compact
tables (one per version), the root kinds, quantities, client objects and
API-form data (one converter each way), and which container is the main one."""

from transforms.kube.containers import FIRST, MainContainer
from transforms.kube.convert import ConversionError, pod_to_dict, to_client, to_data
from transforms.kube.kinds import ROOT_KINDS, check_kind
from transforms.kube.quantity import is_quantity, quantity_value
from transforms.kube.schema import (
    DEFAULT_VERSION,
    SUPPORTED_VERSIONS,
    Field,
    Schema,
    Type,
    UnsupportedVersionError,
    schema_for,
    suggest_field,
)

__all__ = (
    "DEFAULT_VERSION",
    "SUPPORTED_VERSIONS",
    "ROOT_KINDS",
    "check_kind",
    "Field",
    "Schema",
    "Type",
    "UnsupportedVersionError",
    "schema_for",
    "suggest_field",
    "is_quantity",
    "quantity_value",
    "ConversionError",
    "to_data",
    "to_client",
    "pod_to_dict",
    "FIRST",
    "MainContainer",
)
