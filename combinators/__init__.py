"""podfold's combinator algebra: pure, composable edits of nested maps and lists.

Nothing here knows about Kubernetes. A transform is an immutable value and a
pure function ``doc -> doc``: it never mutates its input, copies only the maps
and lists along the path it changes, and returns the very same document when
it changes nothing.

>>> from combinators import compose, upsert, append_at
>>> overlay = compose(append_at("spec.tolerations", {"key": "nvidia.com/gpu",
...                                                  "operator": "Exists"}, unique=True),
...                   upsert("spec.nodeSelector", {"gpu": "a100"}))
>>> pod = {"spec": {"containers": [{"name": "trainer"}]}}
>>> new = overlay(pod)
>>> new["spec"]["nodeSelector"], new["spec"]["tolerations"]
({'gpu': 'a100'}, [{'key': 'nvidia.com/gpu', 'operator': 'Exists'}])
>>> new["spec"]["containers"] is pod["spec"]["containers"]
True
"""

# ``import combinators`` loads of the standard library only __future__, itertools and
# reprlib: typing, re, enum, functools and collections each cost more than this whole
# package (tests/test_startup.py holds it to that). So annotations are strings, the names
# they use are imported under the one flag ``combinators._typing.TYPE_CHECKING`` (false at
# run time, true to type checkers), and what needs one of those modules at run time imports
# it where it is used: the path grammar's regexes compile when the first path is parsed or printed.
from combinators.control import expect, for_each, when
from combinators.data import MISSING
from combinators.errors import (
    ArgumentError,
    ArgumentTypeError,
    ExpectationError,
    NestingError,
    PathError,
    PathSyntaxError,
    StepError,
    TransformError,
    TypeClashError,
)
from combinators.limits import MAX_DEPTH
from combinators.lists import append_at, insert_at, merge_by, prepend_at
from combinators.paths import All, End, Index, Key, Match, Part, Path, path
from combinators.reading import exists, get_at, select
from combinators.setting import remove_at, replace_at, set_default, update_at, upsert
from combinators.transform import Transform, chain, compose, fold, identity

__all__ = (
    "Path",
    "path",
    "Part",
    "Key",
    "Index",
    "End",
    "All",
    "Match",
    "Transform",
    "identity",
    "compose",
    "chain",
    "fold",
    "upsert",
    "replace_at",
    "set_default",
    "update_at",
    "remove_at",
    "append_at",
    "prepend_at",
    "insert_at",
    "merge_by",
    "for_each",
    "when",
    "expect",
    "select",
    "get_at",
    "exists",
    "MISSING",
    "MAX_DEPTH",
    "TransformError",
    "PathError",
    "PathSyntaxError",
    "TypeClashError",
    "ExpectationError",
    "StepError",
    "NestingError",
    "ArgumentError",
    "ArgumentTypeError",
)

# podfold's version, written here only: pyproject.toml reads it when building
__version__ = "0.1.0"
