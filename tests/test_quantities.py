"""Quantities are valued in time bounded by their text and within Kubernetes' range.

``"1e999999999"`` once made podfold compute ``10**999999999`` (CPU and memory
without end) whenever a request and its limit were both set; 5,000 digits
ended in a bare ValueError. Each hostile case runs in a child process with a
time and a memory budget (``tests.budget.within``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import recipes
from combinators import ArgumentError
from tests.budget import within
from transforms.checks.validation import PodValidationError, problems, validate_pod
from transforms.io import loads_overlay
from transforms.kube.quantity import MAX_QUANTITY, QuantityRangeError, quantity_value

HOSTILE = [
    "1e999999999",
    "-1e999999999",
    "1E2147483648",
    "1e" + "9" * 5000,
    "1" + "0" * 5000,
    "9" * 100_000 + "e-99990",
    "0." + "0" * 100_000 + "1Ei",
    "1e-999999999",
    "-1e-" + "9" * 5000,
    "8Ei",
    "9223372036854775808",
]
IN_RANGE = {
    "1e-999999999": Fraction(1, 10**9),
    "-1e-" + "9" * 5000: Fraction(-1, 10**9),
    "0." + "0" * 100_000 + "1Ei": Fraction(1, 10**9),
    "9" * 100_000 + "e-99990": Fraction(10**10),
}  # rounded up to a whole nano unit
PATH = "spec.containers[name=trainer].resources.limits.cpu"


def _pod(request: Any, limit: Any) -> dict[str, Any]:
    return {
        "spec": {
            "containers": [
                {
                    "name": "trainer",
                    "image": "x",
                    "resources": {"requests": {"cpu": request}, "limits": {"cpu": limit}},
                }
            ]
        }
    }


def _value_or_error(text: str) -> Any:
    try:
        return quantity_value(text)
    except QuantityRangeError as err:
        return ("out of range", str(err)[:40])


@pytest.mark.parametrize("text", HOSTILE, ids=lambda text: text[:20])
def test_hostile_quantities_are_valued_in_bounded_time(text: str) -> None:
    outcome = within(_value_or_error, text, seconds=2, megabytes=128)
    assert outcome.status == "returned", (outcome.status, outcome.error_text)
    if text in IN_RANGE:
        assert outcome.value == IN_RANGE[text]
    else:
        assert outcome.value[0] == "out of range"


@pytest.mark.parametrize("text", HOSTILE, ids=lambda text: text[:20])
def test_a_request_and_its_limit_never_hang_validation(text: str) -> None:
    # both set: the requests-within-limits rule compares them
    outcome = within(problems, _pod("1", text), seconds=3, megabytes=256)
    assert outcome.status == "returned", (outcome.status, outcome.error_text)
    found = [(problem.path, problem.rule) for problem in outcome.value]
    if text in IN_RANGE:
        expected = (
            [(PATH.replace("limits", "requests"), "requests-within-limits")]
            if IN_RANGE[text] < 1
            else []
        )
        if IN_RANGE[text] < 0:  # the API server refuses a negative quantity outright
            expected.append((PATH, "resource-names"))
        assert sorted(found) == sorted(expected)
    else:  # the schema check names it; the rule leaves it to the schema check
        assert found == [(PATH, None)]
        message = outcome.value[0].message
        assert message.startswith("quantity '") and "is out of range" in message
        assert len(message) < 200


def test_an_overlay_file_with_a_huge_quantity_is_refused_at_its_path() -> None:
    overlay = (
        "spec:\n  containers: !merge-by\n  - name: trainer\n    resources:\n"
        "      requests: {cpu: '1'}\n      limits: {cpu: 1e999999999}\n"
    )

    def fold_and_validate() -> str:
        pod = loads_overlay(overlay)({"spec": {"containers": [{"name": "trainer", "image": "x"}]}})
        try:
            validate_pod(pod)
        except PodValidationError as err:
            return str(err)
        return "accepted"

    outcome = within(fold_and_validate, seconds=3, megabytes=256)
    assert outcome.status == "returned", (outcome.status, outcome.error_text)
    assert f"{PATH}: quantity '1e999999999' is out of range" in outcome.value


@pytest.mark.parametrize(
    "build",
    [
        lambda: recipes.resources(requests={"cpu": "1"}, limits={"cpu": "1e999999999"}),
        lambda: recipes.resources(requests={"memory": "1" + "0" * 5000}),
        lambda: recipes.shm_size("1e999999999"),
        lambda: recipes.parse_quantity("1e999999999"),
    ],
)
def test_recipes_refuse_huge_quantities_when_built(build: Any) -> None:
    def attempt() -> str:
        try:
            build()
        except ArgumentError as err:
            return str(err)
        return "accepted"

    outcome = within(attempt, seconds=2, megabytes=128)
    assert outcome.status == "returned", (outcome.status, outcome.error_text)
    assert "out of range" in outcome.value and "2^63-1" in outcome.value


def test_the_bound_is_kubernetes_own() -> None:
    # resource.Quantity: "no quantity may represent a number greater than 2^63-1 in magnitude"
    assert MAX_QUANTITY == 9223372036854775807
    assert quantity_value(str(MAX_QUANTITY)) == MAX_QUANTITY
    assert quantity_value(-MAX_QUANTITY) == -MAX_QUANTITY
    assert quantity_value("7Ei") == 7 * 2**60
    for beyond in (
        MAX_QUANTITY + 1,
        str(MAX_QUANTITY + 1),
        "8Ei",
        "9223372036854775807.5",
        "9.3E18",
        1e19,
    ):
        with pytest.raises(QuantityRangeError, match=r"2\^63-1"):
            quantity_value(beyond)
    with pytest.raises(QuantityRangeError) as caught:
        quantity_value("8Ei", path=PATH)
    assert str(caught.value.path) == PATH and isinstance(caught.value, ValueError)


def test_below_a_nano_unit_rounds_up_away_from_zero() -> None:
    # as the API server keeps it: 0.1n is 1n, -0.1n is -1n, 1.5n is 2n
    assert quantity_value("0.1n") == quantity_value("1n") == Fraction(1, 10**9)
    assert quantity_value("-0.1n") == Fraction(-1, 10**9)
    assert quantity_value("1.5n") == Fraction(2, 10**9)
    assert quantity_value("0e999999999") == quantity_value("-0") == 0


# ---------------------------------------------------------------- against a naive oracle

_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}


def _naive(sign: str, whole: str, fraction: str, suffix: str) -> Fraction | str:
    """Exact arithmetic on the whole number (fine for short texts), then Kubernetes' rules."""
    value = Fraction(f"{whole or '0'}.{fraction or '0'}")
    if suffix in _BINARY:
        value *= 2 ** _BINARY[suffix]
    elif suffix in _DECIMAL:
        value *= Fraction(10) ** _DECIMAL[suffix]
    else:
        value *= Fraction(10) ** int(suffix[1:])
    nanos = value * 10**9
    if nanos.denominator != 1:
        nanos = Fraction(int(nanos) + 1)
    value = nanos / 10**9
    if value > MAX_QUANTITY:
        return "out of range"
    return -value if sign == "-" else value


DIGITS = st.text("0123456789", max_size=30)
SUFFIXES = st.sampled_from(sorted(_BINARY) + sorted(_DECIMAL)) | st.builds(
    lambda e: f"e{e}", st.integers(-40, 30)
)


@settings(max_examples=settings.default.max_examples * 8, deadline=None)
@given(st.sampled_from(["", "+", "-"]), DIGITS, st.none() | DIGITS, SUFFIXES)
def test_quantity_value_agrees_with_exact_arithmetic(
    sign: str, whole: str, fraction: str | None, suffix: str
) -> None:
    text = sign + whole + ("" if fraction is None else "." + fraction) + suffix
    if not (whole or fraction):
        assert quantity_value(text) is None
        return
    try:
        found: Fraction | str | None = quantity_value(text)
    except QuantityRangeError:
        found = "out of range"
    assert found == _naive(sign, whole, fraction or "", suffix), text


def test_one_module_values_quantities_for_recipes_and_checks() -> None:
    import importlib.util

    from transforms.kube import quantity

    assert recipes.parse_quantity is quantity.parse_quantity
    assert importlib.util.find_spec("recipes._quantity") is None
    with pytest.raises(
        ArgumentError, match=r"^parse_quantity\(\): text: not a Kubernetes quantity"
    ):
        quantity.parse_quantity("2 GB")
