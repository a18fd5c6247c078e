"""The path grammar: parts, rendering, round trips and syntax errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from combinators import (
    All,
    End,
    Index,
    Key,
    Match,
    Path,
    PathSyntaxError,
    TransformError,
    path,
)
from tests.doc_strategies import any_paths


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        (
            "spec.containers[name=trainer].env[name=NCCL_DEBUG].value",
            (
                Key("spec"),
                Key("containers"),
                Match((("name", "trainer"),)),
                Key("env"),
                Match((("name", "NCCL_DEBUG"),)),
                Key("value"),
            ),
        ),
        ("spec.tolerations[-]", (Key("spec"), Key("tolerations"), End())),
        ("spec.containers[*].image", (Key("spec"), Key("containers"), All(), Key("image"))),
        ("spec.containers[0]", (Key("spec"), Key("containers"), Index(0))),
        ("spec.containers[-1]", (Key("spec"), Key("containers"), Index(-1))),
        (
            'metadata.annotations["sidecar.istio.io/inject"]',
            (Key("metadata"), Key("annotations"), Key("sidecar.istio.io/inject")),
        ),
        ("metadata.annotations['a.b/c']", (Key("metadata"), Key("annotations"), Key("a.b/c"))),
        ('metadata."a.b".c', (Key("metadata"), Key("a.b"), Key("c"))),
        (
            "ports[containerPort=29500,protocol=TCP]",
            (Key("ports"), Match((("containerPort", 29500), ("protocol", "TCP")))),
        ),
        ('ports[name="8080"]', (Key("ports"), Match((("name", "8080"),)))),
        (
            "x[a=true,b=false,c=null,d=-3]",
            (Key("x"), Match((("a", True), ("b", False), ("c", None), ("d", -3)))),
        ),
        ('x[a="true",b="null"]', (Key("x"), Match((("a", "true"), ("b", "null"))))),
        ('x["quo\\"te"]', (Key("x"), Key('quo"te'))),
        ('a["x.y"=1,"b c"=d]', (Key("a"), Match((("x.y", 1), ("b c", "d"))))),
        ("[0].a", (Index(0), Key("a"))),
        ("", ()),
    ],
)
def test_grammar(text: str, parts: tuple[object, ...]) -> None:
    assert path(text).parts == parts
    assert Path(parts) == path(text)


@pytest.mark.parametrize(
    "text",
    [
        "spec.containers[name=trainer].env[name=NCCL_DEBUG].value",
        "spec.tolerations[-]",
        "spec.containers[*].image",
        "spec.containers[-1].args[0]",
        'metadata.annotations["sidecar.istio.io/inject"]',
        "ports[containerPort=29500,protocol=TCP]",
        'ports[name="8080"]',
        "",
    ],
)
def test_str_gives_the_text_back_and_repr_is_the_call(text: str) -> None:
    parsed = path(text)
    assert str(parsed) == text
    assert repr(parsed) == f"path({text!r})"
    assert eval(repr(parsed), {"path": path}) == parsed


def test_repr_of_parts_is_the_call() -> None:
    for part in (Key("a.b"), Index(-1), End(), All(), Match((("name", "x"), ("port", 80)))):
        assert (
            eval(repr(part), {"Key": Key, "Index": Index, "End": End, "All": All, "Match": Match})
            == part
        )


def test_values_of_different_kinds_make_different_paths() -> None:
    assert path("a[x=1]") != path("a[x=true]")
    assert path("a[x=1]") != path('a[x="1"]')
    assert path("a[x=null]") != path('a[x="null"]')
    assert Match((("x", 1),)) != Match((("x", 1.0),))
    assert len({path("a[x=1]"), path("a[x=1]"), path("a[x=2]")}) == 2


def test_paths_build_on_paths() -> None:
    base = path("spec.containers")
    assert base + "[name=trainer]" == path("spec.containers[name=trainer]")
    assert base + ".image" == path("spec.containers.image")
    assert base.child(0, "image") == path("spec.containers[0].image")
    assert base.child("x.y") == path('spec.containers["x.y"]')
    assert path("spec.containers[0].image").prefix(2) == base
    assert len(path("spec.containers[0].image")) == 4
    assert list(path("a[*]")) == [Key("a"), All()]
    assert path(base) is base


def test_path_rejects_what_is_not_a_path() -> None:
    with pytest.raises(TypeError):
        path(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Path(["a"])  # type: ignore[list-item]
    with pytest.raises(ValueError):
        Match(())


@settings(max_examples=settings.default.max_examples * 4, deadline=None)
@given(any_paths())
def test_str_round_trips(generated: Path) -> None:
    text = str(generated)
    assert path(text) == generated
    assert Path.parse(text) == generated
    assert str(Path.parse(text)) == text
    assert eval(repr(generated), {"path": path}) == generated


@pytest.mark.parametrize(
    "key",
    [
        "a.b",
        "sidecar.istio.io/inject",
        "sp ace",
        'q"t',
        "back\\slash",
        "é\n",
        "true",
        "null",
        "0n",
        "",
        "[x]",
        "a=b",
        "-",
    ],
)
def test_keys_needing_quotes_round_trip(key: str) -> None:
    built = Path([Key("metadata"), Key(key), Match(((key or "k", key),))])
    assert path(str(built)) == built


@pytest.mark.parametrize(
    ("text", "position", "message"),
    [
        ("spec.containers[name=trainer", 28, "expected ']' to close the selector"),
        ("a..b", 2, "expected a key after '.'"),
        ("a.", 2, "expected a key after '.'"),
        ("a[", 2, "empty selector"),
        ("a[]", 2, "empty selector"),
        ("a b", 1, "unexpected ' '"),
        ("a[0]b", 4, "unexpected 'b'"),
        ("a[x]", 3, "expected '=' after field 'x'"),
        ('a["b', 2, "unterminated quoted string"),
        ("a[x=1,]", 6, "expected a field name"),
        (".a", 0, "expected a key"),
        ("a[*x]", 3, "unexpected 'x' in selector opened at character 2"),
        ("a]", 1, "unexpected ']'"),
    ],
)
def test_syntax_errors_point_at_the_offending_character(
    text: str, position: int, message: str
) -> None:
    with pytest.raises(PathSyntaxError) as caught:
        path(text)
    err = caught.value
    assert err.position == position
    assert err.text == text
    assert message in err.message
    assert isinstance(err, ValueError) and isinstance(err, TransformError)
    lines = str(err).splitlines()
    assert lines[0].endswith(f"at character {position + 1}")
    assert lines[1] == f"  {text}"
    assert lines[2] == "  " + " " * position + "^"
