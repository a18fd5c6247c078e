"""Near misses: one policy (:func:`combinators.near.near_misses`), one spelling
(:func:`combinators.near.did_you_mean`), and no other module that chooses or writes them."""

from __future__ import annotations

import ast
import functools
import pathlib

import pytest

import recipes
from combinators.errors import ArgumentError
from combinators.limits import MAX_LISTED, MAX_NAME
from combinators.near import CUTOFF, MAX_CLOSE, did_you_mean, near_misses
from recipes._check import check_choice
from transforms.errors import UnknownNameError
from transforms.forms.catalog import build_recipe

ROOT = pathlib.Path(__file__).resolve().parent.parent
ROOM = pathlib.Path("combinators", "near.py")

# --- the policy -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "candidates", "near"),
    [
        ("GPU", ["tpu", "gpu", "gpus"], ("gpu",)),
        ("A100", ["a100-40gb", "a100-80gb", "a100"], ("a100",)),
        ("tesla-t4", ["t4", "Tesla-T4"], ("Tesla-T4",)),
        ("Count", ["type", "count"], ("count",)),
    ],
)
def test_the_same_word_in_another_case_is_always_the_near_miss(
    word: str, candidates: list[str], near: tuple[str, ...]
) -> None:
    # a wrong case is what was meant: it alone is offered, however alike the others
    assert near_misses(word, candidates) == near


def test_every_candidate_in_another_case_is_offered_in_the_candidates_order() -> None:
    assert near_misses("gpu", ["Gpu", "tpu", "GPU"]) == ("Gpu", "GPU")


def test_the_cutoff_is_one_ratio_of_the_case_folded_spellings() -> None:
    # "abcde" and "abcxy" share 3 of 10 characters: a ratio of 0.6, the cutoff; "abcd"
    # and "abxy" share 2 of 8: 0.5, below it
    assert CUTOFF == 0.6
    assert near_misses("abcde", ["abcxy"]) == ("abcxy",)
    assert near_misses("ABCDE", ["abcXY"]) == ("abcXY",)
    assert near_misses("abcd", ["abxy"]) == ()


@pytest.mark.parametrize(
    ("word", "candidates", "near"),
    [
        ("nodeSelectr", ["nodeName", "nodeSelector", "tolerations"], ("nodeSelector",)),
        ("node_selector", ["nodeSelector", "nodeName"], ("nodeSelector",)),
        (
            "hostports",
            ["host-ports", "host-probes", "host-process"],
            ("host-ports", "host-probes", "host-process"),
        ),
        ("strict", ["baseline", "restricted"], ("restricted",)),
        ("errors", ["last-wins", "warn", "error"], ("error",)),
        ("trainr", ["trainer-0", "sidecar"], ("trainer-0",)),
        ("tema", ["team", "gpu"], ("team",)),
        ("Exist", ["Exists", "Equal"], ("Exists",)),
    ],
)
def test_what_the_messages_offered_before_is_still_offered(
    word: str, candidates: list[str], near: tuple[str, ...]
) -> None:
    assert near_misses(word, candidates) == near


def test_the_most_alike_come_first_and_equally_alike_ones_in_the_candidates_order() -> None:
    # ratios 0.9 and 0.95
    assert near_misses("tolration", ["tolerations", "toleration"]) == (
        "toleration",
        "tolerations",
    )
    assert near_misses("trainr", ["trainer-2", "trainer-0", "trainer-1"]) == (
        "trainer-2",
        "trainer-0",
        "trainer-1",
    )


def test_a_name_cut_short_or_given_a_tail_comes_before_other_spellings() -> None:
    # nvidia-b200 is a little more alike nvidia-a100 than nvidia-a100-80gb is
    assert near_misses("nvidia-a100", ["nvidia-b200", "nvidia-a100-80gb"]) == (
        "nvidia-a100-80gb",
        "nvidia-b200",
    )
    # terrors is more alike errors (0.92) than error is (0.91)
    assert near_misses("errors", ["terrors", "error"]) == ("error", "terrors")


def test_at_most_n_are_offered() -> None:
    names = [f"trainer-{i}" for i in range(10)]
    assert near_misses("trainr", names) == ("trainer-0", "trainer-1", "trainer-2")
    assert near_misses("trainr", names, n=1) == ("trainer-0",)
    assert near_misses("trainr", names, n=0) == ()
    assert near_misses("GPU", ["gpu", "Gpu"], n=1) == ("gpu",)


def test_none_is_offered_for_a_word_nothing_resembles() -> None:
    assert near_misses("zzz", ["nodeSelector", "tolerations"]) == ()
    assert near_misses("zzz", []) == ()


def test_a_candidate_given_twice_is_offered_once() -> None:
    assert near_misses("trainr", iter(["trainer", "trainer"])) == ("trainer",)


def test_a_word_or_a_candidate_too_long_to_be_a_name_is_not_compared() -> None:
    long = "x" * (MAX_CLOSE + 1)
    assert near_misses(long, [long[:-1]]) == ()
    assert near_misses(long[:-1], [long]) == ()
    assert near_misses("X" * MAX_CLOSE, ["x" * MAX_CLOSE]) == ("x" * MAX_CLOSE,)


# --- the spelling ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("near", "text"),
    [
        ((), ""),
        (("nodeSelector",), "; did you mean nodeSelector?"),
        (("warn", "error"), "; did you mean warn or error?"),
        (("a", "b", "c"), "; did you mean a, b or c?"),
    ],
)
def test_did_you_mean_is_one_spelling(near: tuple[str, ...], text: str) -> None:
    assert did_you_mean(near) == text


def test_did_you_mean_keeps_long_and_many_names_short() -> None:
    text = did_you_mean(("x" * 10_000,))
    assert text.startswith("; did you mean x") and len(text) < MAX_NAME + 20
    many = [f"trainer-{i}" for i in range(MAX_LISTED + 5)]
    assert did_you_mean(many) == (
        "; did you mean " + ", ".join(many[:MAX_LISTED]) + " or one of 5 more?"
    )


def test_messages_built_on_it_find_a_wrong_case() -> None:
    with pytest.raises(ArgumentError, match=r"got 'exists'; did you mean Exists\?$"):
        check_choice("operator", "exists", ("Exists", "Equal"))
    with pytest.raises(
        ArgumentError, match=r"'A100' is not a GPU gke offers; did you mean a100\?;"
    ):
        recipes.gpu("A100")
    with pytest.raises(UnknownNameError, match=r"unknown recipe 'GPU'; did you mean gpu\?$"):
        build_recipe("GPU", {}, {"gpu": recipes.gpu, "tpu": recipes.tpu})


# --- one room -------------------------------------------------------------------------------

# each still chooses its near misses itself or writes its own "did you mean"; when all are
# moved to combinators.near, the two xfail tests below pass and lose their marks


@functools.cache
def _modules() -> list[tuple[pathlib.Path, ast.Module]]:
    return [
        (file.relative_to(ROOT), ast.parse(file.read_text(encoding="utf-8"), str(file)))
        for package in ("combinators", "transforms", "recipes")
        for file in sorted((ROOT / package).rglob("*.py"))
    ]


def _choosing() -> set[pathlib.Path]:
    """The modules but the room that call difflib.get_close_matches or close_matches."""
    found = set()
    for name, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                called = node.func
                word = getattr(called, "attr", None) or getattr(called, "id", None)
                if word in ("get_close_matches", "close_matches") and name != ROOM:
                    found.add(name)
    return found


def _writing() -> set[pathlib.Path]:
    """The modules but the room whose code (not their docstrings) writes "did you mean"."""
    found = set()
    for name, tree in _modules():
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and "did you mean" in node.value
                and id(node) not in docstrings
                and name != ROOM
            ):
                found.add(name)
    return found


def test_only_the_room_chooses_near_misses() -> None:
    assert _choosing() == set()


def test_only_the_room_writes_did_you_mean() -> None:
    assert _writing() == set()
