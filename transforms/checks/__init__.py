"""Checks of pods and overlays: field names against the official schema, and
whole pods against the schema (:mod:`~transforms.checks.schema_check`) and
their internal references (:mod:`~transforms.checks.references`, one rule per
module in :mod:`~transforms.checks.rules`), the Pod Security Standards
(:mod:`~transforms.checks.policies`, one rule per module) and the paths an
overlay may change (:mod:`~transforms.checks.paths`), reported as
:class:`Problem` values."""

from transforms.checks.fields import UnknownFieldError, check_overlay_fields, check_path_fields
from transforms.checks.paths import PathPolicy
from transforms.checks.policies import PROFILES, PolicyError, check_policy, policy_problems
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
    "PROFILES",
    "PolicyError",
    "policy_problems",
    "check_policy",
    "PathPolicy",
)
