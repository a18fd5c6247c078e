"""What podfold knows about Kubernetes: the official pod schema as compact
tables (one per version), quantities, and client objects as API-form data."""

from transforms.kube.convert import model_to_dict, pod_to_dict
from transforms.kube.quantity import is_quantity, quantity_value
from transforms.kube.schema import (
    DEFAULT_VERSION,
    Field,
    Schema,
    Type,
    UnsupportedVersionError,
    schema_for,
    suggest_field,
    to_api_form,
)

__all__ = (
    "DEFAULT_VERSION",
    "Field",
    "Schema",
    "Type",
    "UnsupportedVersionError",
    "schema_for",
    "suggest_field",
    "to_api_form",
    "is_quantity",
    "quantity_value",
    "model_to_dict",
    "pod_to_dict",
)
