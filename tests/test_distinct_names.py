"""One name, one thing: names that meant two things now mean one, or say which."""

from __future__ import annotations

import pytest


def test_the_catalog_type_is_defined_once() -> None:
    from transforms.forms import catalog
    from transforms.forms.kinds import base

    assert base.Catalog is catalog.Catalog


def test_check_text_is_the_yaml_text_check_only() -> None:
    # recipes check an argument is a non-empty string; the YAML loader checks a text
    # (text, source): two things, two names
    from recipes import _check
    from transforms.io.safe_yaml import check_text

    assert not hasattr(_check, "check_text")
    assert _check.check_nonempty_string("image", "x:1") == "x:1"
    with pytest.raises(ValueError, match="image must be a non-empty string"):
        _check.check_nonempty_string("image", "")
    check_text("a: 1\n", "pod.yaml")


def test_the_shape_walks_signal_is_no_problem_record() -> None:
    from combinators import shape
    from transforms.checks import Problem

    assert shape.UnfitValue.__name__ == "UnfitValue"
    assert not hasattr(shape, "Problem")  # one Problem: the record a check reports
    assert "UnfitValue" in shape.__all__
    assert Problem is not shape.UnfitValue
    found = shape.value_problem({"labels": {"team": b"ml"}})
    assert isinstance(found, shape.UnfitValue) and found.sort == "type"
