"""``podfold recipes``: the catalog of recipes, and one recipe's arguments."""

from __future__ import annotations

import click

from combinators.limits import short_repr
from combinators.near import did_you_mean, near_misses
from transforms.cli.options import debug_option
from transforms.cli.output import echo

__all__ = ("recipes_command", "summary_of", "signature_of")


def summary_of(factory: object) -> str:
    """The first line of a factory's docstring.

    >>> def gpu(kind):
    ...     '''Run on GPU nodes of one kind.
    ...
    ...     More words.'''
    >>> summary_of(gpu)
    'Run on GPU nodes of one kind.'
    """
    import inspect

    doc = inspect.getdoc(factory) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def signature_of(name: str, factory: object) -> str:
    """``name(arguments)`` as the factory's signature reads, annotations included.

    >>> def shm_size(size: str = "1Gi", /, *, medium: str = "Memory") -> None: ...
    >>> signature_of("shm_size", shm_size)
    "shm_size(size: str = '1Gi', /, *, medium: str = 'Memory')"
    """
    import inspect

    try:
        signature = inspect.signature(factory)  # type: ignore[arg-type]
    except (TypeError, ValueError):  # pragma: no cover - a catalog entry with no signature
        return f"{name}(...)"
    # annotations as written (a string under ``from __future__ import annotations``), unquoted
    params = [
        param.replace(annotation=_Written(param.annotation))
        if isinstance(param.annotation, str)
        else param
        for param in signature.parameters.values()
    ]
    return f"{name}{signature.replace(parameters=params, return_annotation=signature.empty)}"


class _Written(str):
    """An annotation written as text, shown without quotes."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


@click.command("recipes")
@debug_option
@click.argument("name", required=False)
def recipes_command(name: str | None) -> None:
    """List the recipes of the installed catalogs, or describe the recipe NAME.

    A recipe is used in an overlay's pipeline as one step, its arguments by
    name beside it: '- {recipe: add_toleration, key: nvidia.com/gpu}'.
    """
    import inspect

    from transforms.forms.catalog import recipe_catalog, yaml_call

    catalog = recipe_catalog()
    if name is None:
        width = max((len(recipe) for recipe in catalog), default=0)
        for recipe in sorted(catalog):
            echo(f"{recipe:<{width}}  {summary_of(catalog[recipe])}".rstrip())
        return
    factory = catalog.get(name)
    if factory is None:
        hint = did_you_mean(near_misses(name, list(catalog)))
        raise click.BadParameter(
            f"no recipe named {short_repr(name)}{hint} (podfold recipes lists them)",
            param_hint="'NAME'",
        )
    echo(signature_of(name, factory))
    echo()
    step = yaml_call(name, factory)
    if step is not None:
        echo(f"in YAML: {step}")
        echo()
    echo(inspect.getdoc(factory) or "(no description)")
