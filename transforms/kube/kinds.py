"""The root kinds: the objects a pod overlay, a check or a patch can start from.

A pod can be given whole (``Pod``), as its spec (``PodSpec``, what a Flyte or
a Volcano task template holds) or as a template (``PodTemplateSpec``, what a
Deployment or a Job holds). Their schema types carry the same names.

>>> ROOT_KINDS
('Pod', 'PodSpec', 'PodTemplateSpec')
>>> check_kind("PodSpec")
'PodSpec'
"""

from __future__ import annotations

from combinators.errors import ArgumentError, ArgumentTypeError

__all__ = ("ROOT_KINDS", "check_kind")

#: The kinds podfold knows how to start from, outermost first.
ROOT_KINDS: tuple[str, ...] = ("Pod", "PodSpec", "PodTemplateSpec")


def check_kind(kind: object, *, argument: str = "kind", factory: str | None = None) -> str:
    """``kind`` if it is one of :data:`ROOT_KINDS`, else an :class:`ArgumentError` naming ``argument``.

    >>> check_kind("Deployment", factory="problems")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: problems(): kind: unknown kind 'Deployment'; expected one of: Pod, PodSpec, PodTemplateSpec
    """
    if type(kind) is str and kind in ROOT_KINDS:
        return kind
    error = ArgumentError if isinstance(kind, str) else ArgumentTypeError
    raise error(f"unknown kind {kind!r}; expected one of: {', '.join(ROOT_KINDS)}",
                argument=argument, factory=factory, value=kind)
