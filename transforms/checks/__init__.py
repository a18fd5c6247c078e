"""Checks of pods and overlays: field names against the official schema, and
whole pods against the schema (:mod:`~transforms.checks.schema_check`) and
their internal references (:mod:`~transforms.checks.references`, one rule per
module in :mod:`~transforms.checks.rules`), the Pod Security Standards
(:mod:`~transforms.checks.policies`, one rule per module) and the paths an
overlay may change (:mod:`~transforms.checks.paths`), reported as
:class:`Problem` values.

Each name is imported from its module when first asked for, so that a program
that only loads overlays (``podfold apply``, whose loader checks field names)
imports neither the validation nor the policies.
"""

from transforms._lazy import TYPE_CHECKING, lazy_exports

if TYPE_CHECKING:
    from transforms.checks.fields import (
        UnknownFieldError,
        check_overlay_fields,
        check_path_fields,
    )
    from transforms.checks.paths import PathPolicy
    from transforms.checks.policies import PROFILES, PolicyError, check_policy, policy_problems
    from transforms.checks.problems import PodValidationError, Problem
    from transforms.checks.references import reference_problems
    from transforms.checks.validation import problems, validate_pod

# The package's name "problems" is the function (transforms.checks.validation.problems), as
# it was when this module imported every name. Importing the module of that name binds the
# name to it, on the first import only: so the module is imported here, and the binding dropped.
from transforms.checks import problems as _problems_module

del globals()["problems"], _problems_module

_HOMES = {
    "UnknownFieldError": "transforms.checks.fields",
    "check_overlay_fields": "transforms.checks.fields",
    "check_path_fields": "transforms.checks.fields",
    "PathPolicy": "transforms.checks.paths",
    "PROFILES": "transforms.checks.policies",
    "PolicyError": "transforms.checks.policies",
    "check_policy": "transforms.checks.policies",
    "policy_problems": "transforms.checks.policies",
    "PodValidationError": "transforms.checks.problems",
    "Problem": "transforms.checks.problems",
    "reference_problems": "transforms.checks.references",
    "problems": "transforms.checks.validation",
    "validate_pod": "transforms.checks.validation",
}

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

__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals())
