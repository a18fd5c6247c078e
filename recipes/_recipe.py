"""Recipes as values: a name, the arguments it was called with, and what it does.

A recipe is a :class:`combinators.Transform` whose ``repr`` reads as the call
that built it and that compares equal to any recipe built by the same call.
Under the hood it holds an ordinary composition of combinators and hands
every pod to it.

>>> from combinators import upsert
>>> @recipe
... def team(name: str, cost_center: str | None = None) -> Transform:
...     '''Label the pod with its team.'''
...     return upsert("metadata.labels", {"team": name})
>>> team("ml")
team('ml')
>>> team("ml") == team(name="ml") == team("ml", cost_center=None)
True
>>> team("ml")({"spec": {}})
{'spec': {}, 'metadata': {'labels': {'team': 'ml'}}}

A bad argument fails at once, and the error names the recipe:

>>> from recipes._check import check_nonempty_string
>>> @recipe
... def owner(name: str) -> Transform:
...     '''Annotate the pod with its owner.'''
...     return upsert("metadata.annotations", {"owner": check_nonempty_string("name", name)})
>>> owner("")
Traceback (most recent call last):
  ...
combinators.errors.ArgumentError: owner(): name must be a non-empty string, got ''

A recipe is a pod-level overlay: given a workload, it says where the pods are:

>>> team("ml")({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}})
Traceback (most recent call last):
  ...
transforms.kube.kinds.WorkloadKindError: team: a pod-level overlay was given a Deployment document ('web'), not a pod; its pods are in its templates: apply it with transforms.kube.apply_to_workload(overlay, document) or `podfold apply`
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from types import FunctionType, MappingProxyType, ModuleType
from typing import Any, ParamSpec, overload

from combinators import ArgumentError, ArgumentTypeError, Transform
from combinators.data import Owned
from combinators.fusion import CHECK, Op
from combinators.near import did_you_mean, near_misses
from combinators.transform import TransformLike, apply_step
from recipes._requires import PodCheck, Requiring
from transforms.kube.kinds import check_pod_document

__all__ = ("Recipe", "recipe", "is_recipe", "recipes_of", "summary", "call_error")

P = ParamSpec("P")

Built = TransformLike | Requiring
"""What a recipe's build function returns: its body, or its body and what it requires."""


class Recipe(Transform):
    """A named transform: ``repr`` is the call, ``_apply`` is the composed body.

    Two recipes are equal when they have the same name and arguments.
    """

    __slots__ = ("name", "body")

    def __init__(
        self, name: str, body: TransformLike, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        self.name = name
        self.body = body
        self._init_params(*args, **kwargs)
        self._key = (name, self._key)

    def _apply(self, doc: Any, owned: Owned) -> Any:
        self._check(doc)
        return apply_step(self.body, doc, owned)

    def _check(self, doc: Any) -> None:
        # a recipe is a pod-level overlay: refuse a workload document or a client's
        # to_dict() output (which always has "kind", or "node_selector" in it or in
        # its spec), testing the common case (a plain template) first
        if type(doc) is dict:
            spec = doc.get("spec")
            if (
                "kind" in doc
                or "node_selector" in doc
                or (type(spec) is dict and "node_selector" in spec)
            ):
                check_pod_document(doc, overlay=self.name)
        else:
            check_pod_document(doc, overlay=self.name)

    def _fusion_ops(self) -> tuple[Op, ...] | None:
        # the check, then the body: a chain of recipes fuses into one function
        body = self.body._fusion_ops() if isinstance(self.body, Transform) else None
        return None if body is None else (Op(CHECK, (), self._check), *body)


class _Requiring(Recipe):
    """A recipe that also checks what it requires of each pod (see :mod:`recipes._requires`);
    a class of its own, so that recipes requiring nothing pay nothing for it."""

    __slots__ = ("requires",)

    def __init__(
        self,
        name: str,
        body: TransformLike,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        requires: tuple[PodCheck, ...],
    ) -> None:
        super().__init__(name, body, args, kwargs)
        self.requires = requires

    def _check(self, doc: Any) -> None:
        Recipe._check(self, doc)
        for requirement in self.requires:
            requirement(doc)


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and bool(a == b)


def _canonical(
    signature: inspect.Signature, bound: inspect.BoundArguments
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments as the shortest call that means the same: required
    parameters by position, the rest by keyword, defaults left out."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for name, parameter in signature.parameters.items():
        if name not in bound.arguments:
            continue
        value = bound.arguments[name]
        if parameter.kind is parameter.VAR_POSITIONAL:
            args.extend(value)
        elif parameter.kind is parameter.VAR_KEYWORD:
            kwargs.update(value)
        elif parameter.kind is parameter.POSITIONAL_ONLY:
            if parameter.default is parameter.empty or not _same(value, parameter.default):
                args.append(value)
        elif parameter.default is parameter.empty and parameter.kind is not parameter.KEYWORD_ONLY:
            args.append(value)
        elif not _same(value, parameter.default):
            kwargs[name] = value
    return _fold_map_into_keywords(signature, tuple(args), kwargs)


def _fold_map_into_keywords(
    signature: inspect.Signature, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``f({"gpu": "a"})`` and ``f(gpu="a")`` mean the same for a recipe taking a
    map then ``**more``: keys that can be keywords become keywords, so both
    calls give one canonical form (and equal recipes)."""
    params = list(signature.parameters.values())
    if not (
        len(params) >= 2
        and params[0].kind is params[0].POSITIONAL_ONLY
        and params[-1].kind is params[-1].VAR_KEYWORD
        and args
        and isinstance(args[0], dict)
    ):
        return args, kwargs
    named = [p.name for p in params[1:]]
    as_keywords = {
        k: v for k, v in args[0].items() if k.isidentifier() and k not in named and k not in kwargs
    }
    rest = {k: v for k, v in args[0].items() if k not in as_keywords}
    merged = {**as_keywords, **kwargs}
    return ((rest, *args[1:]) if rest else args[1:]), merged


@overload
def recipe(build: Callable[P, Built], /) -> Callable[P, Recipe]: ...


@overload
def recipe(
    *, synonyms: Mapping[str, str]
) -> Callable[[Callable[P, Built]], Callable[P, Recipe]]: ...


def recipe(
    build: Callable[P, Built] | None = None, /, *, synonyms: Mapping[str, str] | None = None
) -> Callable[P, Recipe] | Callable[[Callable[P, Built]], Callable[P, Recipe]]:
    """Turn a function that builds a transform into a recipe factory.

    The factory keeps ``build``'s name, signature and docstring; the
    arguments are checked by ``build`` itself, so bad ones fail at once, with
    an :class:`~combinators.ArgumentError` that names the recipe. A call
    that does not fit the signature (an unknown keyword, a missing argument)
    is an :class:`~combinators.ArgumentTypeError`, with the near misses of an
    unknown keyword; ``synonyms`` maps words users reach for to what they
    mean (``{"gpus": "count"}``), for those near misses. ``build`` returns
    the body, or a :class:`~recipes._requires.Requiring` when the body needs
    something of the pod it is given.

    >>> from combinators import upsert
    >>> @recipe(synonyms={"group": "name"})
    ... def team(name: str) -> Transform:
    ...     "Label the pod with its team."
    ...     return upsert("metadata.labels", {"team": name})
    >>> team(group="ml")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentTypeError: team(): group: takes no argument 'group'; did you mean name? (it takes: name)
    """
    if build is None:
        words: Mapping[str, str] = MappingProxyType(dict(synonyms or {}))
        return lambda build: _factory(build, words)
    return _factory(build, MappingProxyType({}))


def _factory(build: Callable[P, Built], synonyms: Mapping[str, str]) -> Callable[P, Recipe]:
    signature = inspect.signature(build)
    name = build.__name__

    @functools.wraps(build)
    def factory(*args: P.args, **kwargs: P.kwargs) -> Recipe:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as err:  # the call does not fit: say so as the YAML loader does
            raise call_error(name, signature, kwargs, str(err), synonyms) from None
        try:
            body = build(*args, **kwargs)
        except ArgumentError as err:
            err.in_factory(name)
            raise
        canonical_args, canonical_kwargs = _canonical(signature, bound)
        if isinstance(body, Requiring):
            return _Requiring(name, body.body, canonical_args, canonical_kwargs, body.checks)
        return Recipe(name, body, canonical_args, canonical_kwargs)

    factory.__dict__["synonyms"] = synonyms  # for the YAML loader's near misses too
    factory.__dict__[_MADE_BY_RECIPE] = name
    return factory


_MADE_BY_RECIPE = "_recipe_name"


def is_recipe(value: object) -> bool:
    """Whether ``value`` is a factory made by :func:`recipe`.

    >>> from combinators import upsert
    >>> @recipe
    ... def team(name: str) -> Transform:
    ...     "Label the pod with its team."
    ...     return upsert("metadata.labels", {"team": name})
    >>> is_recipe(team), is_recipe(team("ml")), is_recipe(upsert)
    (True, False, False)
    """
    return isinstance(value, FunctionType) and value.__dict__.get(_MADE_BY_RECIPE) == value.__name__


def recipes_of(module: ModuleType) -> tuple[Callable[..., Recipe], ...]:
    """The recipes ``module`` defines, in the order of its ``__all__``: the one list of them.

    A name the module imports from elsewhere is left to the module it comes from.

    >>> from recipes import pod
    >>> [factory.__name__ for factory in recipes_of(pod)][:3]
    ['add_labels', 'add_annotations', 'istio_sidecar']
    """
    found = (getattr(module, name) for name in module.__all__)
    return tuple(
        factory for factory in found if is_recipe(factory) and factory.__module__ == module.__name__
    )


def call_error(
    name: str,
    signature: inspect.Signature,
    kwargs: Mapping[str, Any],
    message: str,
    synonyms: Mapping[str, str] | None = None,
) -> ArgumentTypeError:
    """The error for a call of recipe ``name`` that does not fit its ``signature``.

    ``message`` is what :meth:`inspect.Signature.bind` said; the error names
    the argument it is about and, for an unknown keyword, its near misses:
    by spelling (in any case) or by ``synonyms``.

    >>> def gpu(type: str, count: int | None = None) -> None: ...
    >>> print(call_error("gpu", inspect.signature(gpu), {"Count": 8},
    ...                  "got an unexpected keyword argument 'Count'"))
    gpu(): Count: takes no argument 'Count'; did you mean count? (it takes: type, count)
    >>> print(call_error("gpu", inspect.signature(gpu), {}, "missing a required argument: 'type'"))
    gpu(): type: missing a required argument: 'type' (it takes: type, count)
    """
    params = signature.parameters
    takes = ", ".join(params)
    named = [p for p, v in params.items() if v.kind in (v.POSITIONAL_OR_KEYWORD, v.KEYWORD_ONLY)]
    accepts_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
    unknown = [word for word in kwargs if word not in named and not accepts_any]
    if unknown:
        word = unknown[0]
        near = [synonyms[word]] if synonyms and word in synonyms else []
        near += [close for close in near_misses(word, named) if close not in near]
        hint = did_you_mean(near)
        return ArgumentTypeError(
            f"takes no argument {word!r}{hint} (it takes: {takes})",
            argument=word,
            factory=name,
            value=kwargs[word],
        )
    quoted = message.split("'")
    argument = quoted[1] if len(quoted) > 2 else "arguments"
    return ArgumentTypeError(f"{message} (it takes: {takes})", argument=argument, factory=name)


def summary(factory: Callable[..., Any]) -> str:
    """The first line of ``factory``'s docstring.

    >>> summary(recipe)
    'Turn a function that builds a transform into a recipe factory.'
    """
    doc = inspect.getdoc(factory) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""
