"""The reference rules: one rule per module, as yamllint keeps its rules.

Each rule module has an ``ID`` (kebab-case), a one-line ``DESCRIPTION`` and
``check(spec, out)``, which appends raw findings (see
:mod:`transforms.checks.problems`) for a :class:`~transforms.checks.rules._spec.Spec`.
:data:`RULES` lists them in the order they run, and so the order their
problems come in; :func:`rule` finds one by its id. Policy rules will join
them here, one module each.

>>> [module.ID for module in RULES]
['volume-names', 'container-names', 'container-images', 'volume-mounts', 'env-names', 'requests-within-limits']
>>> rule("env-names").DESCRIPTION
'an env name is set once per container (a warning)'
"""

from __future__ import annotations

from types import ModuleType

from combinators.errors import ArgumentError
from transforms.checks.rules import (
    container_images,
    container_names,
    env_names,
    requests_limits,
    volume_mounts,
    volume_names,
)
from transforms.checks.rules._spec import Spec

__all__ = ("RULES", "Spec", "rule")

#: Every reference rule, in the order it runs.
RULES: tuple[ModuleType, ...] = (volume_names, container_names, container_images, volume_mounts,
                                 env_names, requests_limits)


def rule(rule_id: str) -> ModuleType:
    """The rule module with id ``rule_id``; an :class:`ArgumentError` lists the ids if none has it.

    >>> rule("image")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: rule(): rule_id: no rule 'image'; rules are: volume-names, container-names, container-images, volume-mounts, env-names, requests-within-limits
    """
    for module in RULES:
        if rule_id == module.ID:
            return module
    raise ArgumentError(f"no rule {rule_id!r}; rules are: {', '.join(m.ID for m in RULES)}",
                        argument="rule_id", factory="rule", value=rule_id)
