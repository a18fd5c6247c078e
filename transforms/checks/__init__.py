"""Checks of pods and overlays: field names against the official schema, and
whole pods against the schema (:mod:`~transforms.checks.schema_check`) and
their internal references (:mod:`~transforms.checks.references`, one rule per
module in :mod:`~transforms.checks.rules`), reported as :class:`Problem` values."""

from transforms.checks.fields import UnknownFieldError, check_overlay_fields, check_path_fields
from transforms.checks.problems import PodValidationError, Problem
from transforms.checks.references import reference_problems
from transforms.checks.validation import problems, validate_pod

__all__ = (
    "Problem",
    "PodValidationError",
    "problems",
    "validate_pod",
    "reference_problems",
    "UnknownFieldError",
    "check_overlay_fields",
    "check_path_fields",
)
