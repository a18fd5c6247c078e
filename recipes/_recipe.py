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

>>> from recipes._check import check_text
>>> @recipe
... def owner(name: str) -> Transform:
...     '''Annotate the pod with its owner.'''
...     return upsert("metadata.annotations", {"owner": check_text("name", name)})
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
from collections.abc import Callable
from typing import Any, ParamSpec

from combinators import ArgumentError, Transform
from combinators.data import Owned
from combinators.fusion import CHECK, Op
from combinators.transform import TransformLike, apply_step
from transforms.kube.kinds import check_pod_document

__all__ = ("Recipe", "recipe", "summary")

P = ParamSpec("P")


class Recipe(Transform):
    """A named transform: ``repr`` is the call, ``_apply`` is the composed body.

    Two recipes are equal when they have the same name and arguments.
    """

    __slots__ = ("name", "body")

    def __init__(self, name: str, body: TransformLike, args: tuple[Any, ...],
                 kwargs: dict[str, Any]) -> None:
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
            if ("kind" in doc or "node_selector" in doc
                    or (type(spec) is dict and "node_selector" in spec)):
                check_pod_document(doc, overlay=self.name)
        else:
            check_pod_document(doc, overlay=self.name)

    def _fusion_ops(self) -> tuple[Op, ...] | None:
        # the check, then the body: a chain of recipes fuses into one function
        body = self.body._fusion_ops() if isinstance(self.body, Transform) else None
        return None if body is None else (Op(CHECK, (), self._check), *body)


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and bool(a == b)


def _canonical(signature: inspect.Signature, bound: inspect.BoundArguments
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


def _fold_map_into_keywords(signature: inspect.Signature, args: tuple[Any, ...],
                            kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``f({"gpu": "a"})`` and ``f(gpu="a")`` mean the same for a recipe taking a
    map then ``**more``: keys that can be keywords become keywords, so both
    calls give one canonical form (and equal recipes)."""
    params = list(signature.parameters.values())
    if not (len(params) >= 2 and params[0].kind is params[0].POSITIONAL_ONLY
            and params[-1].kind is params[-1].VAR_KEYWORD and args
            and isinstance(args[0], dict)):
        return args, kwargs
    named = [p.name for p in params[1:]]
    as_keywords = {k: v for k, v in args[0].items()
                   if k.isidentifier() and k not in named and k not in kwargs}
    rest = {k: v for k, v in args[0].items() if k not in as_keywords}
    merged = {**as_keywords, **kwargs}
    return ((rest, *args[1:]) if rest else args[1:]), merged


def recipe(build: Callable[P, TransformLike]) -> Callable[P, Recipe]:
    """Turn a function that builds a transform into a recipe factory.

    The factory keeps ``build``'s name, signature and docstring; the
    arguments are checked by ``build`` itself, so bad ones fail at once, with
    an :class:`~combinators.ArgumentError` that names the recipe.
    """
    signature = inspect.signature(build)
    name = build.__name__

    @functools.wraps(build)
    def factory(*args: P.args, **kwargs: P.kwargs) -> Recipe:
        try:
            body = build(*args, **kwargs)
        except ArgumentError as err:
            err.in_factory(name)
            raise
        bound = signature.bind(*args, **kwargs)
        canonical_args, canonical_kwargs = _canonical(signature, bound)
        return Recipe(name, body, canonical_args, canonical_kwargs)

    return factory


def summary(factory: Callable[..., Any]) -> str:
    """The first line of ``factory``'s docstring.

    >>> summary(recipe)
    'Turn a function that builds a transform into a recipe factory.'
    """
    doc = inspect.getdoc(factory) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""
