"""What overlays do, in words and in changes: explain, describe, the
footprint of an overlay (the paths it changes), and blame (which file, line
and step wrote each change, from one provenance walk: :class:`Writers`)."""

from transforms.analysis.blame import (
    Blame,
    Origin,
    Step,
    blame,
    load_steps,
    steps_of,
    writers,
    yaml_steps,
)
from transforms.analysis.explanation import Change, Explanation, changes_between, describe, explain
from transforms.analysis.footprint import changed_paths, changes
from transforms.analysis.provenance import Writers

__all__ = (
    "explain",
    "describe",
    "changes_between",
    "Explanation",
    "Change",
    "changed_paths",
    "changes",
    "blame",
    "Blame",
    "Origin",
    "Step",
    "steps_of",
    "yaml_steps",
    "load_steps",
    "writers",
    "Writers",
)
