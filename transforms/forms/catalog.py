"""Finding recipes by name: the catalogs installed packages publish.

A package publishes a catalog (a mapping of name to factory) under the entry
point group ``podfold.recipes``; podfold's own ``recipes`` package is one.
This module never imports a catalog's package directly, so the layers stay
``recipes -> transforms -> combinators``.

Every function that finds recipes by name (:func:`build_recipe`, and through
it :func:`~transforms.build_step`, :func:`~transforms.loads_overlay`,
:func:`~transforms.dump_overlay`, :func:`~transforms.describe`) takes a
``catalog=`` argument: a mapping of name to factory, the installed catalogs
(:func:`recipe_catalog`) where it is ``None``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from combinators import ArgumentError, ArgumentTypeError, Transform, TransformError, chain
from combinators.limits import short_repr
from combinators.near import did_you_mean, near_misses
from transforms._entry_points import entry_points
from transforms.errors import CatalogError, UnknownNameError

if TYPE_CHECKING:
    import inspect

__all__ = (
    "recipe_catalog",
    "resolve_catalog",
    "build_recipe",
    "bind_arguments",
    "yaml_call",
    "GROUP",
    "Catalog",
)

GROUP = "podfold.recipes"

Catalog = Mapping[str, Callable[..., Any]]
"""Recipe name -> factory, as the ``podfold.recipes`` entry point publishes (the one definition:
:mod:`transforms.forms.kinds` imports it)."""


@lru_cache(maxsize=1)
def recipe_catalog() -> Catalog:
    """Every recipe the installed catalogs publish, by name (read-only).

    Later catalogs do not override earlier ones: a name clash is a
    :class:`~transforms.errors.CatalogError`, and so is a catalog that cannot
    load or is not a mapping of names to factories, naming the catalog.
    """
    return _installed()[0]


@lru_cache(maxsize=1)
def _installed() -> tuple[Catalog, Mapping[str, str]]:
    """The installed recipes by name, and for each name the entry point that published it."""
    merged: dict[str, Callable[..., Any]] = {}
    origins: dict[str, str] = {}
    # the scan the kinds share (transforms._entry_points): paid by the first look-up
    for point in entry_points(GROUP):
        where = (
            f"the recipe catalog {short_repr(point.name)} ({short_repr(point.value, quoted=False)})"
        )
        try:
            catalog = point.load()
        except (ImportError, AttributeError) as err:  # most often: a module of the same name
            import sys

            module = sys.modules.get(point.module)
            found = getattr(module, "__file__", None)
            hint = (
                f"; the module {short_repr(point.module)} found is {found}, which hides the "
                f"catalog's: move it into your project's package or rename it"
                if found
                else ""
            )
            raise CatalogError(
                f"{where} cannot load: {type(err).__name__}: {_said(err)}{hint}"
            ) from err
        except Exception as err:  # another package's code: whatever it raises, name it
            raise CatalogError(
                f"{where} cannot load: importing it raised {type(err).__name__}: {_said(err)}"
            ) from err
        if not isinstance(catalog, Mapping):
            raise CatalogError(
                f"{where} is {type(catalog).__name__}, not a mapping of recipe names to factories"
            )
        for name, factory in catalog.items():
            if not isinstance(name, str) or not callable(factory):
                raise CatalogError(
                    f"{where} maps {short_repr(name, 200)} to "
                    f"{short_repr(factory, 200)}: a catalog "
                    f"maps recipe names (text) to factories (callables)"
                )
            if name in merged and merged[name] is not factory:
                raise CatalogError(
                    f"recipe {short_repr(name)} is published by two catalogs "
                    f"({origins[name]} and {point.value})"
                )
            merged[name] = factory
            origins[name] = point.value
    return MappingProxyType(merged), MappingProxyType(origins)


def _said(err: BaseException) -> str:
    """What ``err`` says, on one line and short: another package's message, quoted."""
    return short_repr(" ".join(str(err).split()), 200, quoted=False)


def resolve_catalog(catalog: Catalog | None) -> Catalog:
    """``catalog``, or the installed catalogs where it is ``None``.

    >>> resolve_catalog({}) == {}
    True
    """
    return recipe_catalog() if catalog is None else catalog


_QUOTED = re.compile(r"'(\w+)'")


def bind_arguments(
    factory: Callable[..., Any],
    arguments: Mapping[str, Any],
    what: str,
    yaml_names: Mapping[str, str] | None = None,
) -> inspect.BoundArguments:
    """Bind ``arguments`` (by name) to ``factory``'s signature, or say what is wrong.

    A parameter collecting positional items (``*items``) takes a list; a
    positional-only parameter is given by its name too (the name wins over
    a ``**kwargs`` entry of the same name). ``what`` names the factory in
    errors (:class:`~combinators.ArgumentTypeError`, naming the argument);
    ``yaml_names`` maps a parameter to the name YAML gives it, for messages.

    >>> def node_selector(labels=None, /, **more): ...
    >>> bind_arguments(node_selector, {"labels": {"gpu": "a100"}}, "recipe").args
    ({'gpu': 'a100'},)
    >>> bind_arguments(node_selector, {"labels": 1, "more": 2}, "node_selector").kwargs
    {'more': 2}
    """
    import inspect  # several ms, with ast and dis: paid by the first recipe built by name

    renamed = yaml_names or {}
    signature = inspect.signature(factory)
    params = signature.parameters
    takes = ", ".join(renamed.get(p, p) for p in params)
    accepts_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
    positional_only: dict[str, Any] = {}
    items: list[Any] | None = None
    kwargs: dict[str, Any] = {}
    for name, value in arguments.items():
        param = params.get(name)
        if param is not None and param.kind is param.VAR_POSITIONAL:
            if not isinstance(value, list):
                raise ArgumentTypeError(
                    f"{short_repr(name)} takes a list, got {short_repr(value)}",
                    argument=name,
                    factory=what,
                    value=value,
                )
            items = value
            continue
        if param is not None and param.kind is param.POSITIONAL_ONLY:
            positional_only[name] = value
            continue
        if param is None and not accepts_any:
            known = [renamed.get(p, p) for p, v in params.items() if v.kind is not v.VAR_POSITIONAL]
            # a recipe's words users reach for (gpus for count), then its near misses
            synonyms: Mapping[str, str] = getattr(factory, "synonyms", None) or {}
            close = [synonyms[name]] if name in synonyms else []
            close += [near for near in near_misses(name, known) if near not in close]
            hint = did_you_mean(close)
            raise ArgumentTypeError(
                f"takes no argument {short_repr(name)}{hint} (it takes: {takes})",
                argument=name,
                factory=what,
                value=value,
            )
        kwargs[name] = value
    args: list[Any] = []
    if positional_only or items is not None:
        ordered = [p for p in params.values() if p.kind is p.POSITIONAL_ONLY]
        for number, param in enumerate(ordered):
            later = any(p.name in positional_only for p in ordered[number + 1 :])
            if param.name in positional_only:
                args.append(positional_only[param.name])
            elif param.default is not param.empty and (later or items is not None):
                args.append(param.default)
            else:
                break
    if items is not None:
        args += [
            kwargs.pop(p)
            for p, v in params.items()
            if v.kind is v.POSITIONAL_OR_KEYWORD and p in kwargs
        ]
        args += items
    try:
        return signature.bind(*args, **kwargs)
    except TypeError as err:  # inspect's own check: name the argument it found wrong
        message = str(err)
        for parameter, yaml_name in renamed.items():
            message = message.replace(f"'{parameter}'", f"'{yaml_name}'")
        found = _QUOTED.search(message)
        raise ArgumentTypeError(
            f"{message} (it takes: {takes})",
            argument=found.group(1) if found else "arguments",
            factory=what,
        ) from None


def yaml_call(name: str, factory: Callable[..., Any]) -> str | None:
    """The pipeline step that calls recipe ``name``, each argument by name as
    :func:`bind_arguments` takes it; ``None`` for a factory without a signature.

    >>> def gpu(type: str, count: int | None = None): ...
    >>> yaml_call("gpu", gpu)
    '- {recipe: gpu, type: ..., count: ...}'
    >>> def node_selector(labels=None, /, **more): ...
    >>> yaml_call("node_selector", node_selector)
    '- {recipe: node_selector, labels: ..., <more>: ...}'
    """
    import inspect

    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # a callable without a signature
        return None
    keys = [
        f"<{p.name}>: ..."
        if p.kind is p.VAR_KEYWORD  # any other key
        else f"{p.name}: [...]"
        if p.kind is p.VAR_POSITIONAL
        else f"{p.name}: ..."
        for p in params
    ]
    return "- {" + ", ".join([f"recipe: {name}", *keys]) + "}"


def build_recipe(
    name: str, arguments: Mapping[str, Any], catalog: Catalog | None = None
) -> Transform:
    """Build the recipe ``name`` from ``arguments`` checked against its signature.

    An unknown name is an :class:`~transforms.errors.UnknownNameError` (also a
    ``LookupError``) with the close matches; bad arguments are an
    :class:`~combinators.ArgumentError` naming the recipe and the argument.

    >>> def team(name: str) -> Transform:
    ...     from combinators import upsert
    ...     return upsert("metadata.labels.team", name)
    >>> build_recipe("team", {"name": "ml"}, {"team": team})
    upsert('metadata.labels.team', 'ml')
    >>> build_recipe("tema", {}, {"team": team})
    Traceback (most recent call last):
      ...
    transforms.errors.UnknownNameError: unknown recipe 'tema'; did you mean team?
    """
    recipes = resolve_catalog(catalog)
    factory = recipes.get(name)
    if factory is None:
        close = near_misses(name, list(recipes))  # GPU for gpu, too
        hint = did_you_mean(close)
        shown = short_repr(name)
        raise UnknownNameError(
            f"unknown recipe {shown}{hint}"
            if recipes
            else f"unknown recipe {shown}: no recipe catalog is installed",
            argument="recipe",
            value=name,
            near_misses=close,
        )
    bound = bind_arguments(factory, arguments, name)
    try:
        built = factory(*bound.args, **bound.kwargs)
    except ArgumentError as err:
        raise err.in_factory(name) from None
    except TransformError:
        raise
    except (TypeError, ValueError) as err:
        # a catalog is another package's code: its own argument checks may
        # raise the built-ins; they still name the recipe and the arguments
        raise ArgumentError(
            f"{type(err).__name__}: {_said(err)}",
            argument=", ".join(arguments) or "arguments",
            factory=name,
        ) from err
    except Exception as err:  # a fault of the catalog's code, not of the arguments
        installed, origins = _installed()
        origin = origins.get(name) if installed.get(name) is factory else None
        where = f" (published by {origin})" if origin else ""
        raise CatalogError(
            f"recipe {short_repr(name)}{where} failed while building: "
            f"{type(err).__name__}: {_said(err)}"
        ) from err
    if isinstance(built, Transform):
        return built
    if callable(built):
        return chain(built)  # a plain function pod -> pod, guarded as any
    raise ArgumentTypeError(
        f"the catalog's factory built {short_repr(built)}, not a transform",
        argument="recipe",
        factory=name,
        value=built,
    )
