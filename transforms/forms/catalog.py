"""Finding recipes by name: the catalogs installed packages publish.

A package publishes a catalog (a mapping of name to factory) under the entry
point group ``podfold.recipes``; podfold's own ``recipes`` package is one.
This module never imports a catalog's package directly, so the layers stay
``recipes -> transforms -> combinators``.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Mapping
from functools import lru_cache
from importlib.metadata import entry_points
from types import MappingProxyType
from typing import Any

__all__ = ("recipe_catalog", "build_recipe", "bind_arguments", "GROUP")

GROUP = "podfold.recipes"


@lru_cache(maxsize=1)
def recipe_catalog() -> Mapping[str, Callable[..., Any]]:
    """Every recipe the installed catalogs publish, by name (read-only).

    Later catalogs do not override earlier ones: a name clash is an error.
    """
    merged: dict[str, Callable[..., Any]] = {}
    for point in sorted(entry_points(group=GROUP), key=lambda p: p.name):
        catalog = point.load()
        for name, factory in catalog.items():
            if name in merged and merged[name] is not factory:
                raise ValueError(f"recipe {name!r} is published by two catalogs "
                                 f"(the second: {point.value})")
            merged[name] = factory
    return MappingProxyType(merged)


def bind_arguments(factory: Callable[..., Any], arguments: Mapping[str, Any],
                   what: str) -> inspect.BoundArguments:
    """Bind ``arguments`` (by name) to ``factory``'s signature, or say what is wrong.

    A parameter collecting positional items (``*items``) takes a list; a
    positional-only parameter is given by its name too (the name wins over
    a ``**kwargs`` entry of the same name).

    >>> def node_selector(labels=None, /, **more): ...
    >>> bind_arguments(node_selector, {"labels": {"gpu": "a100"}}, "recipe").args
    ({'gpu': 'a100'},)
    """
    signature = inspect.signature(factory)
    params = signature.parameters
    accepts_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
    positional_only: dict[str, Any] = {}
    items: list[Any] | None = None
    kwargs: dict[str, Any] = {}
    for name, value in arguments.items():
        param = params.get(name)
        if param is not None and param.kind is param.VAR_POSITIONAL:
            if not isinstance(value, list):
                raise TypeError(f"{what}: {name!r} takes a list, got {value!r}")
            items = value
            continue
        if param is not None and param.kind is param.POSITIONAL_ONLY:
            positional_only[name] = value
            continue
        if param is None and not accepts_any:
            known = [p for p, v in params.items() if v.kind is not v.VAR_POSITIONAL]
            close = difflib.get_close_matches(name, known, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise TypeError(f"{what} takes no argument {name!r}{hint} "
                            f"(it takes: {', '.join(params)})")
        kwargs[name] = value
    args: list[Any] = []
    if positional_only or items is not None:
        ordered = [p for p in params.values() if p.kind is p.POSITIONAL_ONLY]
        for number, param in enumerate(ordered):
            later = any(p.name in positional_only for p in ordered[number + 1:])
            if param.name in positional_only:
                args.append(positional_only[param.name])
            elif param.default is not param.empty and (later or items is not None):
                args.append(param.default)
            else:
                break
    if items is not None:
        args += [kwargs.pop(p) for p, v in params.items()
                 if v.kind is v.POSITIONAL_OR_KEYWORD and p in kwargs]
        args += items
    try:
        return signature.bind(*args, **kwargs)
    except TypeError as err:
        raise TypeError(f"{what}: {err} (it takes: {', '.join(params)})") from None


def build_recipe(name: str, arguments: Mapping[str, Any],
                 catalog: Mapping[str, Callable[..., Any]] | None = None) -> Any:
    """Build the recipe ``name`` from ``arguments`` checked against its signature.

    An unknown name is answered with the close matches.
    """
    recipes = recipe_catalog() if catalog is None else catalog
    factory = recipes.get(name)
    if factory is None:
        close = difflib.get_close_matches(name, list(recipes), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise LookupError(f"unknown recipe {name!r}{hint}" if recipes
                          else f"unknown recipe {name!r}: no recipe catalog is installed")
    bound = bind_arguments(factory, arguments, f"recipe {name!r}")
    return factory(*bound.args, **bound.kwargs)
