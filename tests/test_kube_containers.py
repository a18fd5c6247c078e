"""The main-container convention is a value; recipes take it, TorchX's is the default."""

from __future__ import annotations

import pytest

from combinators import upsert
from combinators.errors import ArgumentError, ArgumentTypeError, ExpectationError
from recipes._target import container_path, on_container
from transforms.kube.containers import FIRST, MainContainer
from transforms.kube.kinds import ROOT_KINDS, check_kind
from transforms.kube.schema import schema_for

FLYTE_POD = {"spec": {"containers": [{"name": "sidecar"}, {"name": "primary"}]}}


def test_conventions_are_values() -> None:
    assert MainContainer.first() == FIRST == MainContainer()
    assert MainContainer.named("primary") == MainContainer.named("primary")
    assert hash(MainContainer.named("primary")) == hash(MainContainer("primary"))
    assert MainContainer.named("primary") != FIRST
    assert repr(MainContainer.named("primary")) == "MainContainer.named('primary')"
    assert eval(repr(FIRST), {"MainContainer": MainContainer}) == FIRST


def test_bad_names_are_argument_errors() -> None:
    with pytest.raises(ArgumentError) as caught:
        MainContainer.named("")
    assert caught.value.argument == "name"
    with pytest.raises(ArgumentTypeError):
        MainContainer.named(3)  # type: ignore[arg-type]


def test_torchx_default_is_unchanged() -> None:
    assert str(container_path(None)) == "spec.containers[0]"
    out = on_container(None, upsert("workingDir", "/w"))(FLYTE_POD)
    assert out["spec"]["containers"][0] == {"name": "sidecar", "workingDir": "/w"}


def test_a_named_main_container() -> None:
    flyte = MainContainer.named("primary")
    assert str(container_path(None, main=flyte)) == "spec.containers[name=primary]"
    out = on_container(None, upsert("workingDir", "/w"), main=flyte)(FLYTE_POD)
    assert out["spec"]["containers"] == [
        {"name": "sidecar"},
        {"name": "primary", "workingDir": "/w"},
    ]
    # names and "*" mean what they meant, whatever the convention
    assert container_path("x", main=flyte) == container_path("x")
    assert container_path("*", main=flyte) == container_path("*")


def test_a_missing_named_main_container_fails_naming_the_containers() -> None:
    with pytest.raises(ExpectationError, match="names present: sidecar, primary"):
        on_container(None, upsert("workingDir", "/w"), main=MainContainer.named("main"))(FLYTE_POD)


def test_main_must_be_a_convention() -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        on_container(None, upsert("workingDir", "/w"), main="primary")  # type: ignore[arg-type]
    assert caught.value.argument == "main"


def test_root_kinds_live_in_one_place() -> None:
    from transforms.forms.patches._listkeys import ROOTS
    from transforms.kube import schema

    assert schema.ROOT_KINDS is ROOT_KINDS
    assert tuple(ROOTS) == ROOT_KINDS
    assert all(schema_for().root(kind) for kind in ROOT_KINDS)
    with pytest.raises(ArgumentError) as caught:
        check_kind("Deployment")
    assert caught.value.argument == "kind" and isinstance(caught.value, ValueError)
    with pytest.raises(ArgumentTypeError):
        check_kind(None)
