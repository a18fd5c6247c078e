"""Step kinds: each kind of step (each combinator, each patch format, a
recipe, a partial pod, a step on the workload object, a composition, a plain
function) says once how it is
built from YAML, written back, put in words, and what it may write.

:mod:`~transforms.forms.pipeline` builds with it, :mod:`~transforms.io.dumping`
writes with it, :func:`~transforms.describe` phrases with it, and the TorchX
fold asks it whether a step may write macros.
"""

from transforms.forms.kinds.base import ANYTHING, NOTHING, StepKind, Steps, Written
from transforms.forms.kinds.registry import (
    OPS,
    STEP_KEYS,
    STEP_KINDS,
    build,
    dump,
    kind_of,
    may_write_macros,
    phrase,
    writes,
    yaml_kind,
)

__all__ = (
    "StepKind",
    "Steps",
    "Written",
    "ANYTHING",
    "NOTHING",
    "STEP_KINDS",
    "STEP_KEYS",
    "OPS",
    "kind_of",
    "yaml_kind",
    "build",
    "dump",
    "phrase",
    "writes",
    "may_write_macros",
)
