"""A bounded fuzz test: random text and data into every entry point end in success or a
``TransformError``, never another exception, never a changed input, never a hang.

Each example runs in a child process with a budget (``tests/budget.py``), so a hang or a
crash fails the example instead of the run; hypothesis keeps the examples few and each under
a deadline, so the module stays well under 30 s.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combinators import (
    TransformError,
    append_at,
    merge_by,
    path,
    remove_at,
    replace_at,
    set_default,
    upsert,
)
from tests.budget import within
from tests.doc_strategies import pods
from transforms import as_transform, json_patch, loads_overlay, strategic_merge
from transforms.checks.validation import validate_pod

FUZZ = settings(
    max_examples=settings.default.max_examples * 4 // 5,  # a share of the profile's
    deadline=timedelta(seconds=3),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# warm podfold's caches (schema tables, compiled paths) before any child is forked
validate_pod({"spec": {"containers": [{"name": "a", "image": "a"}]}})
loads_overlay("spec: {hostIPC: false}\n")({"spec": {}})
strategic_merge({"spec": {"hostIPC": False}})({"spec": {}})

# --- strategies ----------------------------------------------------------------------------

# pieces of YAML that matter: indicators, tags (podfold's, YAML's, Python's), anchors, aliases,
# directives, escapes, control characters, and the words of pod overlays and pipelines
YAML_PIECES = st.sampled_from(
    (
        "\n",
        "  ",
        " ",
        "- ",
        ": ",
        "{",
        "}",
        "[",
        "]",
        ",",
        "?",
        "#",
        "&a ",
        "*a",
        "<<: ",
        "---\n",
        "%YAML 1.1\n",
        "%TAG ! tag:yaml.org,2002:\n",
        "!replace ",
        "!append ",
        "!append-unique ",
        "!remove",
        "!merge-by ",
        "!merge-by:name ",
        "!default ",
        "!!python/tuple ",
        "!!python/object/apply:os.system ",
        "!!binary ",
        "!!set ",
        "!frob ",
        "!!str ",
        "'",
        '"',
        "\\",
        "\t",
        "\0",
        "\x07",
        "\ufeff",
        "\ud800",
        "é",
        "spec",
        "metadata",
        "labels",
        "nodeSelector",
        "tolerations",
        "containers",
        "env",
        "name",
        "value",
        "key",
        "op",
        "upsert",
        "append_at",
        "merge_by",
        "remove_at",
        "path",
        "items",
        "unique",
        "missing_ok",
        "json_patch",
        "strategic",
        "merge_patch",
        "recipe",
        "overlay",
        "$patch",
        "delete",
        "__put__:",
        "__del__:",
        "__join__:containers:name",
        "spec.containers[0].env",
        "/spec",
        "true",
        "no",
        "~",
        "null",
        "1e999999999",
        "0x1f",
        "2024-01-02",
        "1.5",
        "-1",
    )
)
YAML_TEXT = st.lists(YAML_PIECES, max_size=40).map("".join)

# values podfold must take (JSON) or refuse (sets, bytes, tuples, odd keys, objects)
HOSTILE_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(width=16, allow_nan=False)
    | st.text(max_size=5)
    | st.binary(max_size=3)
    | st.sampled_from(("1e999999999", "${nope}", "__put__:", "$patch", ""))
)
KEYS = st.text(max_size=4) | st.sampled_from(
    (
        "spec",
        "metadata",
        "containers",
        "name",
        "env",
        "tolerations",
        "nodeSelector",
        "labels",
        "__put__:",
        "__del__:",
        "__join__:containers:name",
        "__put__:tolerations",
        "$patch",
        "$setElementOrder/containers",
        "$retainKeys",
        "$deleteFromPrimitiveList/args",
    )
)
ODD_KEYS = KEYS | st.integers(-2, 2) | st.none() | st.booleans()
VALUES = st.recursive(
    HOSTILE_SCALARS,
    lambda children: (
        st.lists(children, max_size=3)
        | st.lists(children, max_size=2).map(tuple)
        | st.frozensets(st.integers(0, 3), max_size=2).map(set)
        | st.dictionaries(ODD_KEYS, children, max_size=3)
    ),
    max_leaves=10,
)
PATCHES = st.dictionaries(KEYS, VALUES, max_size=3)

OPS = st.sampled_from(("add", "remove", "replace", "move", "copy", "test", "frob", ""))
POINTERS = st.lists(
    st.sampled_from(
        (
            "spec",
            "containers",
            "0",
            "-",
            "01",
            "env",
            "metadata",
            "labels",
            "~1",
            "~2",
            "",
            "99999999999999999999",
        )
    ),
    max_size=4,
).map(lambda parts: "".join("/" + part for part in parts))
JSON_PATCH_OPS = st.lists(
    st.fixed_dictionaries(
        {},
        optional={"op": OPS | VALUES, "path": POINTERS | VALUES, "from": POINTERS, "value": VALUES},
    ),
    max_size=4,
)

PATH_TEXT = st.lists(
    st.sampled_from(
        (
            "spec",
            ".",
            "containers",
            "[",
            "]",
            "0",
            "-1",
            "-",
            "*",
            "name",
            "=",
            "trainer",
            ",",
            "'",
            '"',
            "\\",
            " ",
            "env",
            "value",
            "99999999999999999999",
            "\0",
            "é",
        )
    ),
    max_size=12,
).map("".join)
COMBINATORS: tuple[Callable[..., Any], ...] = (
    lambda where, value: upsert(where, value),
    lambda where, value: replace_at(where, value),
    lambda where, value: set_default(where, value),
    lambda where, value: append_at(where, value, unique=True),
    lambda where, value: merge_by(where, [value] if isinstance(value, dict) else [{"name": "x"}]),
    lambda where, value: remove_at(where),
)


# --- the check -----------------------------------------------------------------------------


def _verdict(build: Callable[[], Any], pod: Any, inputs: tuple[Any, ...]) -> str:
    """Build a transform and apply it (in the child); say what went wrong, or ''."""
    before = copy.deepcopy((pod, inputs))
    try:
        transform = build()
        if pod is not None:
            transform(pod)
    except TransformError as err:
        str(err)  # its message must print
    except RecursionError:
        return "a bare RecursionError"
    except Exception as err:
        return f"a bare {type(err).__name__}: {err}"
    if (pod, inputs) != before:
        return "an input was changed in place"
    return ""


def _check(build: Callable[[], Any], pod: Any, *inputs: Any) -> None:
    outcome = within(_verdict, build, pod, inputs, seconds=3, megabytes=512)
    assert outcome.status == "returned", (outcome.status, outcome.error_text, outcome.traceback)
    assert outcome.value == "", outcome.value


# --- the properties ------------------------------------------------------------------------


@FUZZ
@given(YAML_TEXT, pods())
def test_random_yaml_overlays(text: str, pod: Any) -> None:
    # loads_overlay(text)(pod) succeeds or raises a TransformError; pod is unchanged
    _check(lambda: loads_overlay(text, source="fuzz.yaml"), pod, text)


@FUZZ
@given(VALUES, pods())
def test_random_data_as_overlays(value: Any, pod: Any) -> None:
    # as_transform(value)(pod) succeeds or raises a TransformError; value and pod are unchanged
    _check(lambda: as_transform(value), pod, value)


@FUZZ
@given(JSON_PATCH_OPS, pods())
def test_random_json_patches(ops: Any, pod: Any) -> None:
    # json_patch(ops)(pod) succeeds or raises a TransformError; ops and pod are unchanged
    _check(lambda: json_patch(ops), pod, ops)


@FUZZ
@given(PATCHES, pods())
def test_random_strategic_patches(patch: Any, pod: Any) -> None:
    # strategic_merge(patch)(pod) succeeds or raises a TransformError; nothing is changed
    _check(lambda: strategic_merge(patch), pod, patch)


@FUZZ
@given(PATH_TEXT)
def test_random_path_text(text: str) -> None:
    # path(text) parses or raises a PathSyntaxError; what parses prints back to an equal path
    def parse() -> Any:
        parsed = path(text)
        again = path(str(parsed))
        assert again == parsed, (text, str(parsed))
        return lambda pod: pod

    _check(parse, None, text)


@FUZZ
@given(PATH_TEXT, VALUES, st.sampled_from(range(len(COMBINATORS))), pods())
def test_random_combinators_on_random_pods(where: str, value: Any, which: int, pod: Any) -> None:
    # every combinator, on any path and value, succeeds or raises a TransformError
    _check(lambda: COMBINATORS[which](where, value), pod, value)
