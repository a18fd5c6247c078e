"""The catalog: every recipe by name, for YAML pipelines and generated docs.

A read-only map from name to factory, built from the recipes themselves:
each topic module defines its recipes with :func:`~recipes.recipe` and lists
them in its ``__all__`` (:func:`~recipes._recipe.recipes_of`). YAML loaders
find the catalog through the ``podfold.recipes`` entry point and check a step's
arguments against the factory's signature.

>>> catalog["add_toleration"]("nvidia.com/gpu")
add_toleration('nvidia.com/gpu')
>>> catalog["gpu"] = None
Traceback (most recent call last):
  ...
TypeError: 'mappingproxy' object does not support item assignment
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from recipes import accelerators, containers, pod, scheduling, storage
from recipes._recipe import Recipe, recipes_of

__all__ = ("catalog", "GROUPS", "TOPICS")

TOPICS = (
    ("Scheduling", scheduling),
    ("Accelerators", accelerators),
    ("Storage", storage),
    ("Containers", containers),
    ("Pod", pod),
)
"""The modules of recipes, each with the title of its topic, in the order the docs list them."""

GROUPS: tuple[tuple[str, tuple[Callable[..., Recipe], ...]], ...] = tuple(
    (title, recipes_of(module)) for title, module in TOPICS
)
"""The recipes by topic, in the order the docs list them."""

catalog: Mapping[str, Callable[..., Recipe]] = MappingProxyType(
    {factory.__name__: factory for _, factories in GROUPS for factory in factories}
)
"""Recipe name -> factory, read-only."""
