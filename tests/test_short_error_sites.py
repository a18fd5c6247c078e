"""Each message that once wrote a user's value whole, or crashed writing it, writes it short.

Python refuses to write an int of more than 4,300 digits (``str``, ``repr`` and f-strings
raise ``ValueError``; ``int()`` refuses such text too) and ``float()`` of one overflows: a
message built from a user's integer that way was a bare traceback, not podfold's error.
"""

from __future__ import annotations

from typing import Any

import pytest

from combinators import TransformError, expect, upsert
from combinators.limits import MAX_REPR
from transforms.checks.validation import problems

BIG = 10**5000


def pod(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "i"}], **spec},
    }


def test_a_count_text_of_5000_digits_is_refused_by_name() -> None:
    with pytest.raises(TransformError) as caught:
        expect("spec.containers[*]", count="9" * 5_000 + "+")
    assert caught.value.argument == "count"
    assert "4,000 digits" in str(caught.value) and len(str(caught.value)) < 2 * MAX_REPR


def test_an_index_of_5000_digits_is_refused_short() -> None:
    with pytest.raises(TransformError) as caught:
        upsert("spec.containers[" + "9" * 5_000 + "].image", "i")
    assert "at most 4,000 digits" in str(caught.value), str(caught.value)[:300]


@pytest.mark.parametrize(
    "spec",
    [
        {"activeDeadlineSeconds": BIG},
        {"terminationGracePeriodSeconds": -BIG},
        {
            "containers": [
                {
                    "name": "c",
                    "image": "i",
                    "livenessProbe": {
                        "tcpSocket": {"port": BIG},
                        "periodSeconds": -BIG,
                        "successThreshold": BIG,
                        "terminationGracePeriodSeconds": -BIG,
                    },
                }
            ]
        },
    ],
    ids=["deadline", "grace", "probe"],
)
def test_validation_writes_a_5000_digit_value_short(spec: dict[str, Any]) -> None:
    found = problems(pod(**spec))
    assert found and all(
        "digits)" in problem.message for problem in found if problem.check == "reference"
    ), [p.message[:200] for p in found]


def _spy_on_counts(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each finding rendered was rendered alone (counting its whole list again)."""
    import importlib

    module = importlib.import_module("transforms.checks.problems")
    alone: list[bool] = []
    original = module._path

    def spied(root: Any, keys: list[Any], counts: Any) -> str:
        alone.append(counts is None)
        rendered: str = original(root, keys, counts)
        return rendered

    monkeypatch.setattr(module, "_path", spied)
    return alone


def test_a_policy_counts_each_list_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from transforms.checks import policy_problems

    alone = _spy_on_counts(monkeypatch)
    found = policy_problems(
        pod(
            containers=[
                {"name": f"c{i}", "image": "i", "securityContext": {"privileged": True}}
                for i in range(200)
            ]
        ),
        "baseline",
    )
    assert len(found) == len(alone) >= 200
    assert not any(alone), f"{sum(alone)} of {len(alone)} findings rendered alone"
    assert found[1].path.startswith("spec.containers[name=c1]"), found[1].path


@pytest.mark.parametrize("key", [True, 5], ids=["boolean", "integer"])
def test_a_label_key_that_is_no_string_is_the_schemas_to_report(key: Any) -> None:
    doc = pod(nodeSelector={key: "x"})
    doc["metadata"] = {"name": "p", "labels": {key: "a"}, "annotations": {key: "b"}}
    found = problems(doc)
    assert [problem.check for problem in found] == ["schema"] * 3
    assert all("keys of a map must be strings" in problem.message for problem in found)


def test_a_host_port_taken_names_the_other_container_short() -> None:
    from combinators.limits import MAX_REPR

    huge = "x" * 100_000
    found = problems(
        pod(
            containers=[
                {"name": huge, "image": "i", "ports": [{"containerPort": 80, "hostPort": 80}]},
                {"name": "b", "image": "i", "ports": [{"containerPort": 80, "hostPort": 80}]},
            ]
        )
    )
    taken = [problem.message for problem in found if "already taken" in problem.message]
    assert taken and all(len(message) < 2 * MAX_REPR for message in taken), [
        message[:200] for message in taken
    ]


def test_the_testing_kit_writes_a_5000_digit_value_short() -> None:
    from transforms.testing.assertions import _short

    assert _short(BIG) == "10000000000000000000...(5,001 digits)"


def test_a_key_taken_of_a_string_is_named_short() -> None:
    with pytest.raises(TransformError) as caught:
        upsert("spec.restartPolicy." + "k" * 5_000, 1)(pod(restartPolicy="Never"))
    first = str(caught.value).splitlines()[0]
    assert first.startswith("cannot take key 'kkk") and "k" * (MAX_REPR + 1) not in first
