"""What overlays do, in words and in changes: explain, describe, and the
footprint of an overlay (the paths it changes)."""

from transforms.analysis.explanation import Change, Explanation, changes_between, describe, explain
from transforms.analysis.footprint import changed_paths, changes

__all__ = ("explain", "describe", "changes_between", "Explanation", "Change", "changed_paths",
           "changes")
