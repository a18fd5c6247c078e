"""Upstream's operator keys (PUT, JOIN, DEL) refuse what no field name is, naming the argument."""

from __future__ import annotations

import pytest

from combinators import ArgumentError, ArgumentTypeError, TransformError
from transforms.forms.partial import DEL, JOIN, PUT


@pytest.mark.parametrize(
    ("build", "argument"),
    [
        (lambda: PUT(5), "key"),
        (lambda: DEL(None), "key"),
        (lambda: DEL(["env"]), "key"),
        (lambda: JOIN(5, on="name"), "key"),
        (lambda: JOIN("env", on=5), "on"),
    ],
)
def test_a_key_that_is_no_text_is_refused_naming_it(build, argument: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ArgumentTypeError) as caught:
        build()
    assert caught.value.argument == argument
    assert isinstance(caught.value, TransformError) and isinstance(caught.value, TypeError)


@pytest.mark.parametrize(
    "build", [lambda: PUT(""), lambda: JOIN("env", on="a:b"), lambda: DEL("x:y")]
)
def test_a_key_the_operator_syntax_cannot_carry_is_refused(build) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ArgumentError, match="a field name without ':'"):
        build()


def test_the_keys_read_as_upstream_writes_them() -> None:
    assert (PUT("volumes"), JOIN("env", on="name"), DEL("nodeSelector")) == (
        "__put__:volumes",
        "__join__:env:name",
        "__del__:nodeSelector",
    )
