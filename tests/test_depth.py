"""Depth and cycles: refused at MAX_DEPTH levels, naming where, within budget.

Values nested 10,000 levels deep, paths of 10,000 parts, documents whose
``nodeSelector`` nests that deep, and structures that contain themselves
used to end in a bare ``RecursionError`` with no location (once raised by
``repr`` inside an error message). Each case runs in a child process with a
time and memory budget (see ``tests/test_growth.py``), so a regression cannot
hang CI; each checks podfold's own error, its class and the place it names.
"""

from __future__ import annotations

import textwrap

import pytest

from combinators.limits import MAX_DEPTH
from tests.test_growth import run_bounded

_BUILD = """
from combinators import *
from combinators.limits import MAX_DEPTH
deep = leaf = {}
for _ in range(10_000):
    leaf["a"] = {}
    leaf = leaf["a"]
deep_list = []
for _ in range(10_000):
    deep_list = [deep_list]
loop = {"name": "x"}
loop["self"] = loop
def refused(run, kind, *words):
    try:
        run()
    except kind as err:
        text = str(err)
        assert len(text) < 2_000, len(text)
        for word in words:
            assert word in text, (word, text)
        print("ok")
    else:
        raise SystemExit("accepted")
"""

CASES = {
    "a value 10,000 levels deep": """
        refused(lambda: upsert("spec.nodeSelector", deep), ArgumentError,
                "upsert(): value.a.a", f"nests deeper than {MAX_DEPTH} levels")
    """,
    "a list 10,000 levels deep among the items": """
        refused(lambda: append_at("spec.tolerations", {"key": "k"}, deep_list), ArgumentError,
                "append_at(): items[1][0][0]", "nests deeper")
    """,
    "a value that contains itself": """
        refused(lambda: replace_at("metadata.labels", {"team": loop}), ArgumentError,
                "value.team is a cycle: value.team.self is value.team again")
    """,
    "a partial pod 10,000 levels deep": """
        from transforms import overlay
        refused(lambda: overlay({"spec": {"nodeSelector": deep}}), ArgumentError,
                "overlay(): partial_pod.spec.nodeSelector.a", "nests deeper")
    """,
    "a partial pod with a cycle": """
        from transforms import overlay
        refused(lambda: overlay({"metadata": {"labels": loop}}), ArgumentError,
                "partial_pod.metadata.labels is a cycle")
    """,
    "patches 10,000 levels deep": """
        from transforms.forms.patches import json_patch, merge_patch, strategic_merge
        refused(lambda: merge_patch({"spec": deep}), ArgumentError, "patch.spec.a.a")
        refused(lambda: strategic_merge({"spec": {"nodeSelector": deep}}), ArgumentError,
                "patch.spec.nodeSelector.a")
        refused(lambda: json_patch([{"op": "add", "path": "/spec/x", "value": deep}]),
                ArgumentError, "op 0 (add): value.a.a")
    """,
    "a path of 10,000 keys": """
        from combinators.paths import Key, Path
        refused(lambda: upsert(".".join(["a"] * 10_000), 1), PathSyntaxError,
                f"a path has at most {MAX_DEPTH} parts")
        refused(lambda: upsert(Path([Key("a")] * 10_000), 1), ArgumentError,
                "upsert(): target has 10000 parts")
        assert select({}, Path([Key("a")] * 10_000)) == []
    """,
    "a function given a document that nests 10,000 levels deep": """
        pod = {"spec": {"nodeSelector": deep}}
        refused(lambda: fold([lambda p: p], pod), NestingError,
                "spec.nodeSelector.a.a", f"nests deeper than {MAX_DEPTH} levels")
    """,
    "a function given a document that contains itself": """
        pod = {"metadata": {"labels": loop}}
        refused(lambda: fold([lambda p: p], pod), NestingError,
                "metadata.labels is a cycle: metadata.labels.self is metadata.labels again")
    """,
    "a function that returns a cycle": """
        def loops(pod):
            pod["metadata"] = loop
            return pod
        refused(lambda: fold([loops], {}), StepError, "loops returned", "metadata is a cycle")
    """,
    "transforms on a pod whose nodeSelector nests 10,000 levels deep": """
        pod = {"spec": {"nodeSelector": deep, "tolerations": [deep]}}
        assert upsert("spec.nodeSelector", {"gpu": "a100"})(pod)["spec"]["nodeSelector"][
            "gpu"] == "a100"
        assert replace_at("spec.nodeSelector", {"gpu": "a100"})(pod)["spec"]["nodeSelector"] \\
            == {"gpu": "a100"}
        assert len(append_at("spec.tolerations", {"key": "k"}, unique=True)(pod)["spec"][
            "tolerations"]) == 2
        assert remove_at("spec.nodeSelector")(pod)["spec"] == {"tolerations": [deep]}
        print("ok")
    """,
    "error messages about deep and cyclic arguments": """
        refused(lambda: chain(deep), ArgumentTypeError, "step 1 must be a transform")
        refused(lambda: for_each("spec", loop), ArgumentTypeError, "for_each()")
        refused(lambda: fold(deep_list, {}), ArgumentTypeError, "fold()")
    """,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_deep_and_cyclic_input_is_refused_naming_where(case: str) -> None:
    output = run_bounded(_BUILD + textwrap.dedent(CASES[case]), seconds=30, n=1, fresh=True)
    assert output.split() and set(output.split()) == {"ok"}, output


def test_max_depth_is_what_kubernetes_objects_need() -> None:
    # a pod nests about a dozen levels deep; a workload wrapping pod templates twice that
    assert 30 <= MAX_DEPTH <= 1_000
