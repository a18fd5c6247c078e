"""Step kinds that are not one edit: a recipe of the catalog, a composition,
a plain Python function, and a transform no other kind knows."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from combinators import Transform, TransformError, chain, identity, remove_at, upsert
from combinators.limits import short_repr
from combinators.shape import check_flag
from combinators.transform import Compose, TransformLike, describe_step
from transforms.forms.catalog import build_recipe
from transforms.forms.kinds.base import ANYTHING, StepKind, Steps, Written, no_yaml_form, union

__all__ = ("RECIPE_KIND", "COMPOSITION_KIND", "FUNCTION_KIND", "OTHER_KIND", "composed_steps")


def composed_steps(transform: TransformLike) -> tuple[TransformLike, ...]:
    """The steps of a composition, in the order they apply; ``(transform,)`` otherwise.

    >>> from combinators import upsert
    >>> composed_steps(identity), composed_steps(upsert("a", 1))
    ((), (upsert('a', 1),))
    """
    if isinstance(transform, Compose):
        return transform.steps
    return () if transform is identity else (transform,)


# ---------------------------------------------------------------- recipes


def _recipe_build(value: Any, steps: Steps) -> Transform:
    arguments = {key: item for key, item in value.items() if key != "recipe"}
    name = str(value["recipe"])
    factory = steps.recipes().get(name)
    if factory is not None:
        check_flags(factory, arguments, name)
    return build_recipe(name, arguments, steps.recipes())


def check_flags(factory: Any, arguments: Mapping[str, Any], name: str) -> None:
    """Refuse a non-boolean value for a flag of ``factory`` (a parameter whose
    default is ``True`` or ``False``): YAML's ``"false"`` or ``no`` in quotes is a
    string, truthy, and would do the opposite of what was written."""
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):  # a callable without a signature: nothing to check
        return
    for argument, param in params.items():
        if isinstance(param.default, bool) and argument in arguments:
            check_flag(arguments[argument], argument=argument, factory=name)


def _recipe_dump(step: Any, steps: Steps) -> Any:
    factory = steps.recipes()[step.name]
    signature = inspect.signature(factory)
    args, kwargs = step.params
    found: dict[str, Any] = {"recipe": step.name}
    for name, value in signature.bind(*args, **kwargs).arguments.items():
        kind = signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            found[name] = list(value)
        elif kind is inspect.Parameter.VAR_KEYWORD:
            found.update(value)
        else:
            found[name] = value
    for name, value in found.items():
        if callable(value) or isinstance(value, Transform):
            raise no_yaml_form(
                step, f"its argument {short_repr(name)} is a Python function or transform"
            )
    return found


def _recipe_phrase(step: Any, steps: Steps) -> str:
    factory = steps.recipes().get(step.name)
    summary = (factory.__doc__ or "").strip().splitlines() if factory is not None else []
    # the docstring's ``literal`` as `literal`: what a reader of plain text expects
    return f"recipe {describe_step(step)}" + (
        f": {summary[0].replace('``', '`')}" if summary else ""
    )


def _named_writes(step: Any, steps: Steps) -> Written:
    """A named transform writes what its body writes (a recipe keeps its
    composed body as ``body``); one that keeps none may write anything."""
    body = getattr(step, "body", None)
    return steps.writes(body) if callable(body) else ANYTHING


RECIPE_KIND = StepKind(
    name="recipe",
    key="recipe",
    build=_recipe_build,
    dump=_recipe_dump,
    phrase=_recipe_phrase,
    writes=_named_writes,
)
"""A named transform of the catalog: ``{recipe: add_toleration, key: nvidia.com/gpu}``.
It is recognised by its name, which the catalog lists."""


# ---------------------------------------------------------------- compositions


def _composition_build(value: Any, steps: Steps) -> Transform:
    built = []
    for number, item in enumerate(value, 1):
        try:
            built.append(steps.build(item))
        except TransformError as err:
            raise err.with_step(f"step {number} of {len(value)}") from None
    return chain(*built)


def _composition_dump(step: Any, steps: Steps) -> Any:
    return [steps.dump(inner) for inner in composed_steps(step)]


def _composition_phrase(step: Any, steps: Steps) -> str:
    inner = composed_steps(step)
    return "; then ".join(steps.phrase(item) for item in inner) if inner else "nothing"


def _composition_writes(step: Any, steps: Steps) -> Written:
    return union(*(steps.writes(inner) for inner in composed_steps(step)))


COMPOSITION_KIND = StepKind(
    name="composition",
    key=None,
    build=_composition_build,
    dump=_composition_dump,
    phrase=_composition_phrase,
    writes=_composition_writes,
    examples=(
        lambda: identity,
        lambda: chain(upsert("metadata.labels", {"team": "ml"}), remove_at("spec.hostIPC")),
    ),
    factory=chain,
)
"""Steps applied in order; YAML writes it as a list of steps (``[]`` is ``identity``)."""


# ---------------------------------------------------------------- functions and the rest


def _function_dump(step: Any, steps: Steps) -> Any:
    raise no_yaml_form(step, "it is a Python function")


def _function_phrase(step: Any, steps: Steps) -> str:
    return f"call {describe_step(step)}"


def _writes_anything(step: Any, steps: Steps) -> Written:
    return ANYTHING


def _example_function(pod: Any) -> Any:
    return {**pod, "kind": "Pod"}


FUNCTION_KIND = StepKind(
    name="function",
    key=None,
    build=None,
    dump=_function_dump,
    phrase=_function_phrase,
    writes=_writes_anything,
    examples=(lambda: _example_function,),
)
"""A plain function ``pod -> pod``: the caller's code, guarded; no YAML form."""


def _other_dump(step: Any, steps: Steps) -> Any:
    raise no_yaml_form(
        step,
        f"{type(step).__name__} is neither a combinator, an overlay, "
        f"a patch nor a recipe of the catalog",
    )


def _other_phrase(step: Any, steps: Steps) -> str:
    return describe_step(step)


OTHER_KIND = StepKind(
    name="transform",
    key=None,
    build=None,
    dump=_other_dump,
    phrase=_other_phrase,
    writes=_named_writes,
)
"""A :class:`~combinators.Transform` of the caller's, which no kind knows and
no catalog names."""
