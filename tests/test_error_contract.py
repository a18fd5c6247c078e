"""The error contract: every public factory refuses bad arguments with an ``ArgumentError``.

A transform that cannot be built fails when it is built, with an
:class:`~combinators.ArgumentError` (a :class:`~combinators.TransformError` and a
``ValueError``; :class:`~combinators.ArgumentTypeError`, also a ``TypeError``,
for a value of the wrong type) whose message names the argument at fault,
and, for a recipe, the recipe. The walk covers the combinators, every recipe
of the catalog (bad types derived from each signature, bad values from a
table), pipeline steps, the patch builders and ``as_transform``.
"""

from __future__ import annotations

import collections.abc
import contextlib
import inspect
import re
import types
import typing
from collections.abc import Callable
from typing import Any

import pytest

import combinators
from combinators import (
    ArgumentError,
    ArgumentTypeError,
    PathSyntaxError,
    TransformError,
    identity,
)
from combinators.limits import MAX_LINE
from recipes import catalog
from tests.test_recipes import SAMPLES

POD: dict[str, Any] = {"spec": {"containers": [{"name": "trainer-0"}]}}


def names_argument(text: str, argument: str) -> bool:
    """Whether ``text`` names ``argument`` as a word (``size``, not ``sizeLimit``)."""
    return re.search(rf"(?<![\w.]){re.escape(argument)}(?!\w)", text) is not None


def check_contract(
    err: BaseException, arguments: tuple[str, ...], factory: str | None = None
) -> None:
    """``err`` is an ArgumentError naming one of ``arguments`` (and ``factory``, if given)."""
    assert isinstance(err, ArgumentError), f"{type(err).__name__} is no ArgumentError: {err}"
    assert isinstance(err, TransformError) and isinstance(err, ValueError)
    message = str(err)
    # short on any input (tests/test_short_errors.py sweeps huge values through every factory)
    assert len(message) <= MAX_LINE and "\n" not in message, message[:300]
    assert any(names_argument(message, name) for name in arguments), (
        f"message does not name {' or '.join(arguments)}: {message}"
    )
    assert any(names_argument(err.argument, name) for name in arguments), (
        f"err.argument is {err.argument!r}, not {' or '.join(arguments)}"
    )
    if factory is not None:
        assert err.factory == factory, f"err.factory is {err.factory!r}, not {factory!r}"
        assert message.startswith(f"{factory}(): "), message


# --- combinators ---------------------------------------------------------------------------------

loose: Any = combinators  # the calls below are ill-typed on purpose

# (the factory, a call with a bad argument, the argument(s) the error must name)
COMBINATOR_CASES: list[tuple[str, Callable[[], Any], tuple[str, ...]]] = [
    ("path", lambda: loose.path(3), ("text",)),
    ("upsert", lambda: loose.upsert(3, {"a": 1}), ("target",)),
    ("replace_at", lambda: loose.replace_at(3, 1), ("target",)),
    ("set_default", lambda: loose.set_default(3, 1), ("target",)),
    ("remove_at", lambda: loose.remove_at(3), ("target",)),
    ("update_at", lambda: loose.update_at(3, str), ("target",)),
    ("update_at", lambda: loose.update_at("spec.x", 3), ("fn",)),
    ("append_at", lambda: loose.append_at(3, 1), ("target",)),
    ("prepend_at", lambda: loose.prepend_at(3, 1), ("target",)),
    ("insert_at", lambda: loose.insert_at(3, 1, before=0), ("target",)),
    ("insert_at", lambda: loose.insert_at("spec.containers", {"name": "x"}), ("before", "after")),
    (
        "insert_at",
        lambda: loose.insert_at("spec.containers", {"name": "x"}, before=0, after=1),
        ("before", "after"),
    ),
    (
        "insert_at",
        lambda: loose.insert_at("spec.containers", {"name": "x"}, before=1.5),
        ("before",),
    ),
    ("insert_at", lambda: loose.insert_at("spec.containers", {"name": "x"}, after={}), ("after",)),
    (
        "insert_at",
        lambda: loose.insert_at("spec.containers", {"name": "x"}, after={1: "a"}),
        ("after",),
    ),
    (
        "insert_at",
        lambda: loose.insert_at("spec.containers", {"name": "x"}, before="name"),
        ("before",),
    ),
    ("merge_by", lambda: loose.merge_by(3, [{"name": "a"}]), ("target",)),
    ("merge_by", lambda: loose.merge_by("spec.containers", [{"name": "a"}], key=()), ("key",)),
    ("merge_by", lambda: loose.merge_by("spec.containers", [{"name": "a"}], key=5), ("key",)),
    (
        "merge_by",
        lambda: loose.merge_by("spec.containers", [{"name": "a"}], key=("name", 5)),
        ("key",),
    ),
    ("merge_by", lambda: loose.merge_by("spec.containers", [{"name": "a"}], key=""), ("key",)),
    ("merge_by", lambda: loose.merge_by("spec.containers", [3]), ("items",)),
    ("merge_by", lambda: loose.merge_by("spec.containers", [{"image": "x"}]), ("items",)),
    ("for_each", lambda: loose.for_each(3, identity), ("target",)),
    ("for_each", lambda: loose.for_each("spec.containers[*]", 3), ("transform",)),
    ("when", lambda: loose.when(3, identity), ("predicate",)),
    ("when", lambda: loose.when("spec.x", 3), ("transform",)),
    ("when", lambda: loose.when("spec.x", identity, otherwise=3), ("otherwise",)),
    ("expect", lambda: loose.expect(3), ("target",)),
    ("expect", lambda: loose.expect("spec.x", -1), ("count",)),
    ("expect", lambda: loose.expect("spec.x", "one+"), ("count",)),
    ("expect", lambda: loose.expect("spec.x", 1.5), ("count",)),
    ("chain", lambda: loose.chain(1), ("transforms",)),
    ("compose", lambda: loose.compose(identity, 1), ("transforms",)),
    ("fold", lambda: loose.fold(5, POD), ("transforms",)),
    ("fold", lambda: loose.fold([identity, 5], POD), ("transforms",)),
    ("select", lambda: loose.select(POD, 3), ("target",)),
    ("get_at", lambda: loose.get_at(POD, 3), ("target",)),
    ("exists", lambda: loose.exists(POD, 3), ("target",)),
]


def test_every_public_combinator_is_walked() -> None:
    factories = {
        name
        for name in combinators.__all__
        if callable(getattr(combinators, name)) and not isinstance(getattr(combinators, name), type)
    } - {"identity"}
    assert factories == {name for name, _, _ in COMBINATOR_CASES}


@pytest.mark.parametrize(
    ("factory", "make", "arguments"),
    COMBINATOR_CASES,
    ids=[f"{case[0]}-{number}" for number, case in enumerate(COMBINATOR_CASES)],
)
def test_combinators_refuse_bad_arguments(
    factory: str, make: Callable[[], Any], arguments: tuple[str, ...]
) -> None:
    with pytest.raises(ArgumentError) as caught:
        make()
    check_contract(caught.value, arguments)


# the parts of a path, built by hand: each refuses what no path can hold, naming its argument
PART_CASES: list[tuple[Callable[..., Any], str, Any]] = [
    (combinators.Key, "name", 5),
    (combinators.Key, "name", None),
    (combinators.Index, "index", "0"),
    (combinators.Index, "index", True),
    (combinators.Index, "index", 1.5),
    (combinators.Match, "fields", 5),
    (combinators.Match, "fields", ()),
    (combinators.Match, "fields", [(1, "a")]),
    (combinators.Match, "fields", ["name=a"]),
    (combinators.Path, "parts", ["spec"]),
]


@pytest.mark.parametrize(
    ("part", "argument", "odd"),
    PART_CASES,
    ids=[f"{case[0].__name__}-{number}" for number, case in enumerate(PART_CASES)],
)
def test_path_parts_refuse_what_no_path_holds(
    part: Callable[..., Any], argument: str, odd: Any
) -> None:
    with pytest.raises(ArgumentError) as caught:
        part(odd)
    check_contract(caught.value, (argument,), factory=part.__name__)


def test_the_issue_examples_name_the_argument_and_what_was_given() -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        loose.merge_by("spec.containers", [{"name": "a"}], key=5)
    assert str(caught.value) == ("merge_by(): key is a field name or a tuple of them, got 5")
    with pytest.raises(ArgumentError) as refused:
        loose.insert_at("spec.containers", {"name": "x"}, after={})
    assert (refused.value.factory, refused.value.argument) == ("insert_at", "after")
    assert "Match" not in str(refused.value) and "got {}" in str(refused.value)


# --- recipes: a wrong type for each parameter, derived from the signature -------------------------


def accepts(hint: Any, value: Any) -> bool:
    """Whether ``value`` is of type ``hint`` (one level into maps and sequences)."""
    if hint is Any:
        return True
    if hint is None or hint is type(None):
        return value is None
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(accepts(member, value) for member in typing.get_args(hint))
    if origin is None:
        if hint in (int, float) and isinstance(value, bool):
            return False
        if hint is float:
            return isinstance(value, (int, float))
        return isinstance(value, hint)
    if not isinstance(value, origin):
        return False
    arguments = typing.get_args(hint)
    if issubclass(origin, collections.abc.Mapping) and len(arguments) == 2:
        return all(
            accepts(arguments[0], key) and accepts(arguments[1], item)
            for key, item in value.items()
        )
    if issubclass(origin, collections.abc.Sequence) and len(arguments) == 1:
        return not isinstance(value, str) and all(accepts(arguments[0], item) for item in value)
    return True


class Odd:
    """A value no recipe parameter is typed to take."""

    def __repr__(self) -> str:
        return "Odd()"


WRONG_TYPES: tuple[Any, ...] = (42, "text", ["text"], Odd())


# --- combinators: every argument given values of the wrong type or shape ----------------------------

# a call of each public factory that builds (or reads) fine; the sweep swaps one argument at a time
SAMPLE_CALLS: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "path": (("spec.x",), {}),
    "compose": ((identity, identity), {}),
    "chain": ((identity, identity), {}),
    "fold": (([identity], POD), {"conflicts": "last-wins", "labels": None}),
    "upsert": (("spec.x", {"a": 1}), {}),
    "replace_at": (("spec.x", 1), {}),
    "set_default": (("spec.x", 1), {}),
    "update_at": (("spec.x", str), {"default": 1}),
    "remove_at": (("spec.x",), {"missing_ok": True}),
    "append_at": (("spec.xs", 1), {"unique": False}),
    "prepend_at": (("spec.xs", 1), {"unique": False}),
    "insert_at": (("spec.containers", {"name": "x"}), {"after": "name=trainer-0", "unique": False}),
    "merge_by": (("spec.containers", [{"name": "a"}]), {"key": "name"}),
    "for_each": (("spec.containers[*]", identity), {}),
    "when": (("spec.x", identity), {"otherwise": identity}),
    "expect": (("spec.containers[*]",), {"count": "1+"}),
    "select": ((POD, "spec"), {}),
    "get_at": ((POD, "spec"), {"default": None}),
    "exists": ((POD, "spec"), {}),
}

# values of every kind and odd shape: of the wrong type for most arguments, odd for the rest,
# and too large for any message to quote whole (5,000 digits, 100,000 characters)
ODD_VALUES: tuple[Any, ...] = (
    5,
    -1,
    1.5,
    True,
    None,
    "",
    "x",
    "[",
    "*",
    b"name",
    (),
    [],
    [1],
    ("name", 5),
    {},
    {1: 2},
    {"a": [1]},
    {"a": {"b": 1}},
    Odd(),
    float("nan"),
    10**30,
    10**5000,
    "x" * 100_000,
)
# the arguments that are the document: what is no document is refused, not as an argument
DOCUMENTS = {("fold", "doc"), ("select", "doc"), ("get_at", "doc"), ("exists", "doc")}
PATHS = {"text", "target", "predicate"}


# the messages that once wrote a 5,000-digit int or a 100,000-character string whole, each
# an expected failure here until its module wrote the value with combinators.limits.short_repr
WRITTEN_WHOLE: dict[str, str] = {}


def sweep_cases() -> list[Any]:
    cases = []
    for name in SAMPLE_CALLS:
        signature = inspect.signature(getattr(combinators, name))
        for parameter in signature.parameters.values():
            for number, odd in enumerate(ODD_VALUES):
                case_id = f"{name}-{parameter.name}-{number}"
                reason = WRITTEN_WHOLE.get(case_id)
                cases.append(
                    pytest.param(
                        name,
                        parameter.name,
                        odd,
                        id=case_id,
                        marks=[pytest.mark.xfail(strict=True, reason=reason)] if reason else [],
                    )
                )
    return cases


def test_every_public_combinator_is_swept() -> None:
    factories = {
        name
        for name in combinators.__all__
        if callable(getattr(combinators, name)) and not isinstance(getattr(combinators, name), type)
    } - {"identity"}
    assert factories == set(SAMPLE_CALLS)


@pytest.mark.parametrize(("name", "parameter", "odd"), sweep_cases())
def test_combinators_take_or_refuse_every_odd_argument_by_name(
    name: str, parameter: str, odd: Any
) -> None:
    # Each argument, given any value: the factory builds a transform that applies or
    # raises a TransformError, or it refuses the value with an ArgumentError naming the
    # argument. Never a bare TypeError from deep inside.
    factory = getattr(combinators, name)
    signature = inspect.signature(factory)
    args, kwargs = SAMPLE_CALLS[name]
    arguments = dict(signature.bind(*args, **kwargs).arguments)
    kind = signature.parameters[parameter].kind
    arguments[parameter] = (odd,) if kind is inspect.Parameter.VAR_POSITIONAL else odd
    call_args: list[Any] = []
    call_kwargs: dict[str, Any] = {}
    for each in signature.parameters.values():
        if each.name not in arguments:
            continue
        if each.kind is each.VAR_POSITIONAL:
            call_args.extend(arguments[each.name])
        elif each.kind is each.KEYWORD_ONLY:
            call_kwargs[each.name] = arguments[each.name]
        else:
            call_args.append(arguments[each.name])
    try:
        built = factory(*call_args, **call_kwargs)
    except ArgumentError as err:
        if (name, parameter) not in DOCUMENTS:
            # the argument at fault, or another that it does not fit (items without the
            # key field) while the message names both
            assert names_argument(str(err), parameter), str(err)
            check_contract(err, tuple(signature.parameters))
        return
    except PathSyntaxError as err:
        # a path's text that does not parse: the error points at the character
        assert parameter in PATHS and isinstance(odd, str), str(err)
        return
    except TransformError:
        if (name, parameter) in DOCUMENTS:
            return
        raise
    if isinstance(built, combinators.Transform):
        for doc in (POD, {}):
            with contextlib.suppress(TransformError):
                for _ in range(3):  # fused from the third application on
                    built(doc)


def wrong_value(hint: Any) -> Any:
    """The first of a few plain values that ``hint`` does not accept."""
    return next(value for value in WRONG_TYPES if not accepts(hint, value))


def sample_arguments(name: str) -> tuple[inspect.Signature, dict[str, Any]]:
    """The recipe's signature and the bound arguments of its first sample."""
    signature = inspect.signature(catalog[name])
    args, kwargs = SAMPLES[name][0]
    return signature, dict(signature.bind(*args, **kwargs).arguments)


def call(name: str, signature: inspect.Signature, arguments: dict[str, Any]) -> Any:
    """Call recipe ``name`` with bound ``arguments``: positional-only ones by position."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for parameter in signature.parameters.values():
        if parameter.name not in arguments:
            continue
        value = arguments[parameter.name]
        if parameter.kind is parameter.POSITIONAL_ONLY:
            args.append(value)
        elif parameter.kind is parameter.VAR_KEYWORD:
            kwargs.update(value)
        elif parameter.kind is parameter.VAR_POSITIONAL:
            args.extend(value)
        else:
            kwargs[parameter.name] = value
    return catalog[name](*args, **kwargs)


def wrong_type_cases() -> list[Any]:
    cases = []
    for name in catalog:
        hints = typing.get_type_hints(catalog[name])
        for parameter in inspect.signature(catalog[name]).parameters.values():
            hint = hints[parameter.name]
            if hint is Any:  # nothing is the wrong type
                continue
            cases.append(pytest.param(name, parameter.name, id=f"{name}-{parameter.name}"))
    return cases


@pytest.mark.parametrize(("name", "parameter"), wrong_type_cases())
def test_recipes_refuse_a_wrong_type_for_each_parameter(name: str, parameter: str) -> None:
    signature, arguments = sample_arguments(name)
    hint = typing.get_type_hints(catalog[name])[parameter]
    bad = wrong_value(hint)
    kind = signature.parameters[parameter].kind
    if kind is inspect.Parameter.VAR_KEYWORD:
        named = "wrong"  # a keyword the recipe collects, given a value of the wrong type
        arguments[parameter] = {**arguments.get(parameter, {}), named: bad}
    elif kind is inspect.Parameter.VAR_POSITIONAL:
        named = parameter
        arguments[parameter] = (bad,)
    else:
        named = parameter
        arguments[parameter] = bad
    with pytest.raises(ArgumentTypeError) as caught:
        call(name, signature, arguments)
    check_contract(caught.value, (named,), factory=name)
    assert (
        caught.value.value is bad
        or caught.value.value == bad
        or bad in _values_within(caught.value.value)
    )


def _values_within(value: Any) -> list[Any]:
    """The values of a map or the items of a list (the bad one may sit inside)."""
    if isinstance(value, collections.abc.Mapping):
        return list(value.values())
    if isinstance(value, (list, tuple)):
        return list(value)
    return []


def test_every_recipe_sample_is_typed_as_its_signature_says() -> None:
    # a recipe accepts what it is typed to accept: every argument a sample
    # gives it (and the recipe takes) fits the parameter's annotation
    misfits = []
    for name, samples in SAMPLES.items():
        hints = typing.get_type_hints(catalog[name])
        signature = inspect.signature(catalog[name])
        for args, kwargs in samples:
            catalog[name](*args, **kwargs)
            for parameter, value in signature.bind(*args, **kwargs).arguments.items():
                kind = signature.parameters[parameter].kind
                values = (
                    list(value.values())
                    if kind is inspect.Parameter.VAR_KEYWORD
                    else list(value)
                    if kind is inspect.Parameter.VAR_POSITIONAL
                    else [value]
                )
                misfits += [
                    f"{name}({parameter}={item!r}): typed {hints[parameter]}"
                    for item in values
                    if not accepts(hints[parameter], item)
                ]
    assert not misfits, "\n".join(misfits)


def test_quantities_are_typed_and_taken_as_text_or_numbers() -> None:
    from recipes import mount_empty_dir, shm_size

    assert accepts(typing.get_type_hints(shm_size)["size"], 2**30)
    assert shm_size(2**30)(POD)["spec"]["volumes"][0]["emptyDir"]["sizeLimit"] == "1073741824"
    volume = mount_empty_dir("scratch", "/scratch", size=2**30)(POD)["spec"]["volumes"][0]
    assert volume["emptyDir"]["sizeLimit"] == "1073741824"


# --- recipes: bad values, for the recipes that check values ------------------------------------

# (recipe, args, kwargs, the argument the error must name)
VALUE_CASES: list[tuple[str, tuple[Any, ...], dict[str, Any], str]] = [
    ("shm_size", ("16GB",), {}, "size"),
    ("shm_size", ("0",), {}, "size"),
    ("shm_size", ("8Gi",), {"container": "Main"}, "container"),
    ("node_selector", (), {}, "labels"),
    ("node_selector", ({"a": "1"},), {"a": "2"}, "labels"),
    ("node_selector", (), {"gpu": "a 100"}, "gpu"),
    ("add_toleration", ("nvidia.com/gpu",), {"operator": "Exist"}, "operator"),
    ("add_toleration", ("k",), {"operator": "Exists", "value": "v"}, "value"),
    ("add_toleration", ("k",), {"effect": "NoSchedul"}, "effect"),
    ("add_toleration", ("k",), {"seconds": 30}, "seconds"),
    ("add_toleration", ("bad key!",), {}, "key"),
    ("require_node_affinity", ("gpu",), {"operator": "In"}, "values"),
    ("require_node_affinity", ("gpu", "a"), {"operator": "Exists"}, "values"),
    ("require_node_affinity", ("gpu", ["a", "b"]), {"operator": "Gt"}, "values"),
    ("prefer_node_affinity", ("gpu", "a"), {"weight": 101}, "weight"),
    ("spread", ("zone",), {"when_unsatisfiable": "Never"}, "when_unsatisfiable"),
    ("spread", ("zone",), {"max_skew": 0}, "max_skew"),
    ("spread", ("zone",), {"match_labels": {}}, "match_labels"),
    ("anti_affinity", (), {"weight": 0}, "weight"),
    ("priority_class", ("",), {}, "name"),
    ("scheduler_name", ("",), {}, "name"),
    ("runtime_class", ("",), {}, "name"),
    ("kueue_queue", ("team a",), {}, "name"),
    ("gpu", ("a10g",), {"provider": "gke"}, "type"),
    ("gpu", ("a100",), {"provider": "azure"}, "provider"),
    ("gpu", ("x",), {"provider": "custom"}, "label"),
    ("gpu", ("a100",), {"label": "gpu"}, "label"),
    ("gpu", ("a100",), {"count": 0}, "count"),
    ("mig", ("1g5gb",), {}, "profile"),
    ("mig", ("1g.5gb",), {"provider": "aks"}, "provider"),
    ("tpu", ("v9", "2x2", 4), {}, "type"),
    ("tpu", ("v5e", "2by2", 4), {}, "topology"),
    ("tpu", ("v5e", "2x2", 0), {}, "count"),
    ("efa", (0,), {}, "count"),
    ("rdma", ("hca",), {}, "resource"),
    ("mount_pvc", ("data", "data"), {}, "mount_path"),
    ("mount_pvc", ("data", "/data"), {"volume": "Data"}, "volume"),
    ("mount_pvc", ("data", "/d"), {"sub_path": "../x"}, "sub_path"),
    ("mount_secret", ("s", "/s"), {"default_mode": 0o1000}, "default_mode"),
    ("mount_config_map", ("", "/c"), {}, "config_map"),
    ("mount_empty_dir", ("Scratch", "/scratch"), {}, "name"),
    ("mount_empty_dir", ("scratch", "/scratch"), {"size": "lots"}, "size"),
    ("mount_host_path", ("mnt", "/m"), {}, "path"),
    ("mount_host_path", ("/mnt", "/m"), {"type": "Dir"}, "type"),
    ("add_env", (), {}, "variables"),
    ("add_env", ({"A": "1"},), {"A": "2"}, "variables"),
    ("add_env", (), {"A": {"secretRef": {}}}, "A"),
    ("add_env", (), {"A": "1", "container": "Main"}, "container"),
    ("add_env_from_secret", ("TOKEN", "", "token"), {}, "secret"),
    ("add_env_from_config_map", ("LEVEL", "settings", ""), {}, "key"),
    ("add_env_from_field", ("NODE", ""), {}, "field_path"),
    ("resources", (), {}, "requests"),
    ("resources", (), {"limits": {"memory": "lots"}}, "limits"),
    ("resources", (), {"requests": {"cpu": "8"}, "limits": {"cpu": "4"}}, "requests"),
    ("resources", (), {"limits": {"bad name!": "1"}}, "limits"),
    ("image_pull_policy", ("always",), {}, "policy"),
    ("working_dir", ("",), {}, "path"),
    ("security_context", (), {}, "settings"),
    ("security_context", (), {"run_as_user": -1}, "run_as_user"),
    (
        "security_context",
        (),
        {"privileged": True, "allow_privilege_escalation": False},
        "privileged",
    ),
    ("add_capabilities", ("CAP_SYS_ADMIN",), {}, "capabilities"),
    ("add_capabilities", ("sys_admin",), {}, "capabilities"),
    ("add_capabilities", ([],), {}, "capabilities"),
    ("sidecar", ("Proxy", "envoy"), {}, "name"),
    ("sidecar", ("proxy", ""), {}, "image"),
    ("sidecar", ("proxy", "envoy"), {"limits": {"memory": "lots"}}, "limits"),
    ("init_container", ("fetch", "busybox"), {"requests": {"cpu": "-1x"}}, "requests"),
    ("add_labels", (), {}, "labels"),
    ("add_labels", (), {"team": "a b"}, "team"),
    ("add_labels", ({"bad key!": "x"},), {}, "label key"),
    ("add_annotations", (), {}, "annotations"),
    ("add_annotations", ({"bad key!": "x"},), {}, "annotation key"),
    ("service_account", ("Trainer",), {}, "name"),
    ("image_pull_secret", ("Creds",), {}, "name"),
    ("dns_policy", ("clusterfirst",), {}, "policy"),
    ("termination_grace_period", (-1,), {}, "seconds"),
    ("active_deadline", (0,), {}, "seconds"),
]


def test_value_cases_name_recipes_of_the_catalog() -> None:
    assert {name for name, _, _, _ in VALUE_CASES} <= set(catalog)


@pytest.mark.parametrize(
    ("name", "args", "kwargs", "argument"),
    VALUE_CASES,
    ids=[f"{case[0]}-{number}" for number, case in enumerate(VALUE_CASES)],
)
def test_recipes_refuse_bad_values(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any], argument: str
) -> None:
    with pytest.raises(ArgumentError) as caught:
        catalog[name](*args, **kwargs)
    check_contract(caught.value, (argument,), factory=name)


def test_the_issue_example_reads_well() -> None:
    from recipes import shm_size

    with pytest.raises(ArgumentError) as caught:
        shm_size("16GB")
    err = caught.value
    assert (err.factory, err.argument, err.value) == ("shm_size", "size", "16GB")
    assert str(err) == (
        "shm_size(): size must be a Kubernetes quantity such as '1Gi', '500m' or '2', got '16GB'"
    )


def test_value_objects_name_themselves() -> None:
    from recipes import ConfigMapKey, FieldRef, ResourceFieldRef, SecretKey

    for make, factory, argument in (
        (lambda: SecretKey("", "k"), "SecretKey", "name"),
        (
            lambda: ConfigMapKey("c", 3),  # type: ignore[arg-type]
            "ConfigMapKey",
            "key",
        ),
        (lambda: FieldRef(""), "FieldRef", "field_path"),
        (lambda: ResourceFieldRef("limits.memory", divisor="x"), "ResourceFieldRef", "divisor"),
    ):
        with pytest.raises(ArgumentError) as caught:
            make()
        check_contract(caught.value, (argument,), factory=factory)


# --- pipeline steps, patch builders, as_transform -------------------------------------------------


def _build_step(step: Any) -> Any:
    from transforms.forms.pipeline import build_step

    return build_step(step)


def _transforms(name: str) -> Any:
    import transforms

    return getattr(transforms, name)


# (what is built, a call with a bad argument, the argument(s) the error must name, the recipe)
BUILDER_CASES: list[tuple[str, Callable[[], Any], tuple[str, ...], str | None]] = [
    ("build_step", lambda: _build_step(42), ("step",), None),
    ("build_step", lambda: _build_step({"op": "frobnicate", "path": "spec.x"}), ("op",), None),
    ("build_step", lambda: _build_step({"op": "upsert", "value": {"a": 1}}), ("path",), None),
    (
        "build_step",
        lambda: _build_step({"op": "upsert", "path": "spec.x", "value": 1, "bogus": 2}),
        ("bogus",),
        None,
    ),
    (
        "build_step",
        lambda: _build_step(
            {"op": "merge_by", "path": "spec.containers", "items": [{"name": "a"}], "key": []}
        ),
        ("key",),
        None,
    ),
    (
        "build_step",
        lambda: _build_step({"recipe": "shm_size", "size": "16GB"}),
        ("size",),
        "shm_size",
    ),
    ("build_step", lambda: _build_step({"recipe": "shm_size", "sise": "16Gi"}), ("sise",), None),
    ("build_step", lambda: _build_step({"recipe": "no_such_recipe"}), ("recipe",), None),
    ("build_step", lambda: _build_step({"op": "upsert", "recipe": "gpu"}), ("step",), None),
    ("json_patch", lambda: _transforms("json_patch")("not a list"), ("ops",), None),
    ("json_patch", lambda: _transforms("json_patch")([{"op": "ad", "path": "/a"}]), ("ops",), None),
    ("json_patch", lambda: _transforms("json_patch")([{"op": "add", "value": 1}]), ("ops",), None),
    (
        "json_patch",
        lambda: _transforms("json_patch")([{"op": "add", "path": "a", "value": 1}]),
        ("ops",),
        None,
    ),
    ("merge_patch", lambda: _transforms("merge_patch")({"metadata": {1: "x"}}), ("patch",), None),
    (
        "strategic_merge",
        lambda: _transforms("strategic_merge")(["not", "a", "map"]),
        ("patch",),
        None,
    ),
    (
        "strategic_merge",
        lambda: _transforms("strategic_merge")(
            {"spec": {"containers": [{"name": "c", "$patch": "frobnicate"}]}}
        ),
        ("patch",),
        None,
    ),
    (
        "strategic_merge",
        lambda: _transforms("strategic_merge")({}, kind="Deployment"),
        ("kind",),
        None,
    ),
    ("as_transform", lambda: _transforms("as_transform")(42), ("value",), None),
]


@pytest.mark.parametrize(
    ("built", "make", "arguments", "recipe"),
    BUILDER_CASES,
    ids=[f"{case[0]}-{number}" for number, case in enumerate(BUILDER_CASES)],
)
def test_steps_patches_and_as_transform_refuse_bad_arguments(
    built: str, make: Callable[[], Any], arguments: tuple[str, ...], recipe: str | None
) -> None:
    with pytest.raises(ArgumentError) as caught:
        make()
    check_contract(caught.value, arguments, factory=recipe)
