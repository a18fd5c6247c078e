"""The copy-on-write engine as a state machine, pyrsistent's evolver tests' way.

Within one application of a composition the engine edits in place the
containers that application made (see :mod:`combinators.owned`). The machine
below queues random steps (combinators, partial pods, the three patch
formats, plain Python functions, one of which keeps what it is given) and
applies them all as one composition, so that ownership passes from step to
step. After every rule it checks:

- no input changed: every document given to an application, and every value
  a plain function was handed, still equals the deep copy taken then;
- the composition's result equals a naive oracle that gives each step a deep
  copy of the previous result (JSON Patch checked against the ``jsonpatch``
  library and merge patch against a direct reading of RFC 7396 instead).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import jsonpatch
import jsonpointer
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from pyrsistent import PMap, freeze

from combinators import TransformError, chain
from combinators.data import strict_equal
from tests.doc_strategies import pods, transforms_for
from transforms.forms.partial import overlay
from transforms.forms.patches import json_patch, merge_patch, strategic_merge

Step = tuple[Callable[[Any], Any], Callable[[Any], Any]]  # (the step, its oracle)


def alone_on_a_copy(step: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """The naive oracle: the step by itself, on a deep copy (nothing to share, nothing owned)."""
    return lambda doc: step(copy.deepcopy(doc))


def rfc7396(target: Any, patch: Any) -> Any:
    """RFC 7396's MergePatch pseudo-code, on deep copies."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(dict(target)) if isinstance(target, (dict, PMap)) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = rfc7396(result.get(key, {}), value)
    return result


def plain(value: Any) -> Any:
    """A plain copy of a plain or persistent document, for the oracles that need dicts."""
    if isinstance(value, (dict, PMap)):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)) or type(value).__name__ == "PVector":
        return [plain(item) for item in value]
    return value


class Keeper:
    """A plain function that keeps what it is given (and the copy it then took)."""

    def __init__(self) -> None:
        self.seen: list[tuple[Any, Any]] = []

    def __call__(self, doc: Any) -> Any:
        self.seen.append((doc, copy.deepcopy(doc)))
        return doc


def add_top_key(doc: Any) -> Any:
    """A plain function building a new document of its own."""
    if isinstance(doc, PMap):
        return doc.set("touched", True)
    return {**doc, "touched": True}


def failing(doc: Any) -> Any:
    raise RuntimeError("a user's function failed")


partial_pods = st.fixed_dictionaries(
    {},
    optional={
        "metadata": st.fixed_dictionaries(
            {},
            optional={
                "labels": st.dictionaries(
                    st.sampled_from(("team", "app")), st.sampled_from(("ml", "y")), max_size=2
                )
            },
        ),
        "spec": st.fixed_dictionaries(
            {},
            optional={
                "nodeSelector": st.dictionaries(
                    st.sampled_from(("gpu", "zone")), st.sampled_from(("a", "c")), max_size=2
                ),
                "tolerations": st.lists(
                    st.fixed_dictionaries({"key": st.sampled_from(("a", "z"))}), max_size=2
                ),
                "hostIPC": st.booleans(),
            },
        ),
    },
)

strategic_patches = st.fixed_dictionaries(
    {},
    optional={
        "metadata": st.fixed_dictionaries(
            {},
            optional={
                "labels": st.dictionaries(
                    st.sampled_from(("team", "app")),
                    st.none() | st.sampled_from(("ml", "y")),
                    max_size=2,
                )
            },
        ),
        "spec": st.fixed_dictionaries(
            {},
            optional={
                "containers": st.lists(
                    st.fixed_dictionaries(
                        {"name": st.sampled_from(("trainer", "sidecar", "new"))},
                        optional={
                            "image": st.sampled_from(("x", "z")),
                            "env": st.lists(
                                st.fixed_dictionaries(
                                    {
                                        "name": st.sampled_from(("A", "C")),
                                        "value": st.sampled_from(("1", "2")),
                                    }
                                ),
                                max_size=2,
                                unique_by=lambda env: env["name"],
                            ),
                        },
                    ),
                    max_size=2,
                    unique_by=lambda container: container["name"],
                ),
                "tolerations": st.lists(
                    st.fixed_dictionaries({"key": st.sampled_from(("a", "z"))}), max_size=1
                ),
            },
        ),
    },
)

merge_patches = st.dictionaries(
    st.sampled_from(("metadata", "spec", "kind", "extra")),
    st.none()
    | st.sampled_from(("Pod", "x"))
    | st.dictionaries(
        st.sampled_from(("labels", "nodeSelector", "hostIPC")),
        st.none()
        | st.booleans()
        | st.dictionaries(st.sampled_from(("team", "gpu")), st.none() | st.just("v"), max_size=2),
        max_size=2,
    ),
    max_size=3,
)


class EngineMachine(RuleBasedStateMachine):
    """Queue steps, apply them as one composition, compare with the oracle."""

    def __init__(self) -> None:
        super().__init__()
        self.doc: Any = {}
        self.steps: list[Step] = []
        self.watched: list[tuple[Any, Any]] = []  # (object, its deep copy then)
        self.keepers: list[Keeper] = []

    def _watch(self, value: Any) -> None:
        self.watched.append((value, copy.deepcopy(value)))

    @initialize(doc=pods(), persistent=st.booleans())
    def start(self, doc: dict[str, Any], persistent: bool) -> None:
        self.doc = freeze(doc) if persistent else doc
        self._watch(self.doc)

    @rule(data=st.data())
    def add_combinator(self, data: st.DataObject) -> None:
        step = data.draw(transforms_for(self.doc))
        self.steps.append((step, alone_on_a_copy(step)))

    @rule(partial_pod=partial_pods)
    def add_partial_pod(self, partial_pod: dict[str, Any]) -> None:
        step = overlay(partial_pod)
        self.steps.append((step, alone_on_a_copy(step)))

    @rule(patch=strategic_patches)
    def add_strategic_merge(self, patch: dict[str, Any]) -> None:
        step = strategic_merge(patch)
        self.steps.append((step, alone_on_a_copy(step)))

    @rule(patch=merge_patches)
    def add_merge_patch(self, patch: dict[str, Any]) -> None:
        self.steps.append((merge_patch(patch), lambda doc: rfc7396(doc, patch)))

    @rule(data=st.data())
    def add_json_patch(self, data: st.DataObject) -> None:
        doc = plain(self.doc)
        spec = doc.get("spec") if isinstance(doc, dict) else None
        keys = sorted(spec) if isinstance(spec, dict) else []
        key = data.draw(st.sampled_from([*keys, "hostNetwork"]))
        value = data.draw(st.sampled_from(({"a": 1}, [1], "x", True)))
        ops = data.draw(
            st.lists(
                st.sampled_from(
                    [
                        {"op": "add", "path": f"/spec/{key}", "value": value},
                        {"op": "replace", "path": f"/spec/{key}", "value": value},
                        {"op": "remove", "path": f"/spec/{key}"},
                        {"op": "add", "path": "/spec/containers/-", "value": {"name": "added"}},
                        {"op": "add", "path": "/spec/containers/0/image", "value": "z"},
                        {"op": "copy", "from": "/spec/containers", "path": "/spec/initContainers"},
                        {"op": "move", "from": f"/spec/{key}", "path": "/metadata"},
                        {"op": "test", "path": "/kind", "value": "Pod"},
                    ]
                ),
                min_size=1,
                max_size=3,
            )
        )

        def oracle(current: Any) -> Any:
            try:
                return jsonpatch.apply_patch(plain(current), ops)
            except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException) as err:
                raise TransformError(f"jsonpatch: {err}") from err

        self.steps.append((json_patch(ops), oracle))

    @rule(kind=st.sampled_from(("keeper", "add_top_key", "failing")))
    def add_plain_function(self, kind: str) -> None:
        if kind == "keeper":
            keeper = Keeper()
            self.keepers.append(keeper)
            self.steps.append((keeper, lambda doc: doc))
        elif kind == "add_top_key":
            self.steps.append((add_top_key, add_top_key))
        else:
            self.steps.append((failing, failing))

    @precondition(lambda self: bool(self.steps))
    @rule()
    def apply(self) -> None:
        steps, self.steps = self.steps, []
        expected: Any = self.doc
        try:
            for _, oracle in steps:
                expected = oracle(expected)
        except Exception as err:  # the oracle failed: so must the composition
            expected = err
        self._watch(self.doc)
        try:
            result = chain(*(step for step, _ in steps))(self.doc)
        except TransformError as err:
            assert isinstance(expected, Exception), (
                f"the composition raised {err!r}, the oracle gave {expected!r}"
            )
            return
        assert not isinstance(expected, Exception), (
            f"the oracle raised {expected!r}, the composition gave {result!r}"
        )
        assert strict_equal(plain(result), plain(expected)), (result, expected)
        if isinstance(self.doc, PMap):
            assert not isinstance(result, (dict, list)), "persistent in, persistent out"
        self.doc = result

    @invariant()
    def no_input_changed(self) -> None:
        for value, then in self.watched:
            assert strict_equal(value, then), f"an input changed: {then!r} became {value!r}"
        for keeper in self.keepers:
            for value, then in keeper.seen:
                assert strict_equal(value, then), (
                    f"what a plain function was given changed: {then!r} became {value!r}"
                )


EngineMachine.TestCase.settings = settings(
    max_examples=settings.default.max_examples * 4,
    stateful_step_count=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestEngine = EngineMachine.TestCase
