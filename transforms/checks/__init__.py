"""Checks of pods and overlays: field names against the official schema, and
whole pods against the schema and their internal references."""

from transforms.checks.fields import UnknownFieldError, check_overlay_fields, check_path_fields
from transforms.checks.validation import PodValidationError, Problem, problems, validate_pod

__all__ = (
    "Problem",
    "PodValidationError",
    "problems",
    "validate_pod",
    "UnknownFieldError",
    "check_overlay_fields",
    "check_path_fields",
)
