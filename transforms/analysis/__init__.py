"""What overlays do, in words and in changes: explain, describe, the
footprint of an overlay (the paths it changes), and blame (which file, line
and step wrote each change).

Each name loads its module on first use: ``explain`` does not pay for blame's.
"""

import sys

# typing's own TYPE_CHECKING would import typing; type checkers take any TYPE_CHECKING as true
TYPE_CHECKING = False
if TYPE_CHECKING:  # the names, for type checkers
    from typing import Any

    from transforms.analysis.blame import (
        Blame,
        Origin,
        Step,
        blame,
        load_steps,
        steps_of,
        yaml_steps,
    )
    from transforms.analysis.explanation import (
        Change,
        Explanation,
        changes_between,
        describe,
        explain,
    )
    from transforms.analysis.footprint import changed_paths, changes

# name -> the module that defines it
_WHERE = {
    **dict.fromkeys(("explain", "describe", "changes_between", "Explanation", "Change"),
                    "explanation"),
    **dict.fromkeys(("changed_paths", "changes"), "footprint"),
    **dict.fromkeys(("blame", "Blame", "Origin", "Step", "steps_of", "yaml_steps", "load_steps"),
                    "blame"),
}


def __getattr__(name: str) -> "Any":
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'transforms.analysis' has no attribute {name!r}")
    qualified = f"transforms.analysis.{module}"
    __import__(qualified)  # importlib.import_module, without importing importlib
    value = getattr(sys.modules[qualified], name)
    globals()[name] = value  # later look-ups find it directly
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


__all__ = ("explain", "describe", "changes_between", "Explanation", "Change", "changed_paths",
           "changes", "blame", "Blame", "Origin", "Step", "steps_of", "yaml_steps", "load_steps")
