"""Writing transforms back as YAML, in the forms :func:`~transforms.load_overlay` reads.

- a partial pod (:func:`~transforms.forms.partial`) becomes a map, its markers
  tags (``!replace``, ``!merge-by:containerPort,protocol``, ...) and its
  tuples ``!!python/tuple``;
- anything else becomes a pipeline: a list of steps such as
  ``{op: upsert, path: spec.nodeSelector, value: {gpu: a100}}``, using the
  factories' parameter names (``path`` for the first one, ``items`` for
  ``*items``); patches become ``json_patch``/``merge_patch``/``strategic``
  steps and recipes ``{recipe: name, ...arguments}``.

Loading what :func:`dump_overlay` writes gives an equal transform back.
A transform holding a Python function (``update_at``, ``when`` with a
predicate function, a lambda) has no YAML form: a ``TypeError`` names the step.

>>> from combinators import append_at, chain, upsert
>>> print(dump_overlay(chain(upsert("spec.nodeSelector", {"gpu": "a100"}),
...                          append_at("spec.tolerations", {"key": "gpu"}, unique=True))), end="")
- op: upsert
  path: spec.nodeSelector
  value:
    gpu: a100
- op: append_at
  path: spec.tolerations
  items:
  - key: gpu
  unique: true
>>> from transforms import overlay, Replace
>>> print(dump_overlay(overlay({"spec": {"tolerations": Replace([])}})), end="")
spec:
  tolerations: !replace []
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

import yaml

from combinators import Path, Transform, identity
from combinators.transform import Compose, describe_step
from transforms.forms.catalog import recipe_catalog
from transforms.forms.markers import Marker, MergeBy, Remove
from transforms.forms.partial import Overlay
from transforms.forms.pipeline import OPS

__all__ = ("dump_overlay", "dump_steps")

_PATCHES = {"json_patch": "json_patch", "merge_patch": "merge_patch",
            "strategic_merge": "strategic"}
_TUPLE_TAG = "tag:yaml.org,2002:python/tuple"


_PLAIN_TAGGED = ""  # the style of a tagged scalar written plain: ``!default 1``


class _Dumper(yaml.SafeDumper):
    """``yaml.SafeDumper`` that writes markers as tags and tuples as ``!!python/tuple``."""

    def choose_scalar_style(self) -> str:
        # PyYAML writes a scalar plain only where its tag can be left out; a
        # marker's tag must stay, and its scalar must keep its type: plain.
        event = self.event
        if isinstance(event, yaml.ScalarEvent) and event.style == _PLAIN_TAGGED:
            if self.analysis is None:
                self.analysis = self.analyze_scalar(event.value)
            if self.analysis.allow_block_plain and self.analysis.allow_flow_plain \
                    and not self.analysis.empty and not self.analysis.multiline:
                return ""
            event.style = None
        return str(super().choose_scalar_style())


def _marker_tag(marker: Marker) -> str:
    if isinstance(marker, MergeBy) and marker.key != "name":
        fields = (marker.key,) if isinstance(marker.key, str) else marker.key
        return "!merge-by:" + ",".join(fields)
    return marker.tag


def _represent_marker(dumper: _Dumper, marker: Marker) -> yaml.Node:
    if isinstance(marker, Remove):
        return dumper.represent_scalar("!remove", "")
    node = dumper.represent_data(marker.value)
    if isinstance(node, yaml.ScalarNode) and node.style is None:
        # The loader reads a tagged plain scalar as YAML would read it untagged,
        # and a quoted one as a string: quote the strings that need it ('true', '').
        plain = dumper.resolve(yaml.ScalarNode, node.value, (True, False))  # type: ignore[no-untyped-call]
        needs_quotes = isinstance(marker.value, str) and plain != "tag:yaml.org,2002:str"
        node.style = "'" if needs_quotes else _PLAIN_TAGGED
    node.tag = _marker_tag(marker)
    return node


def _represent_tuple(dumper: _Dumper, value: tuple[Any, ...]) -> yaml.Node:
    return dumper.represent_sequence(_TUPLE_TAG, list(value))


def _represent_str(dumper: _Dumper, value: str) -> yaml.Node:
    if any(char in value for char in _BREAKS):
        # YAML 1.1 folds these line breaks in plain and single-quoted text
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
    return dumper.represent_str(value)


_BREAKS = ("\x85", "\u2028", "\u2029", "\r")
_Dumper.add_representer(str, _represent_str)
_Dumper.add_multi_representer(Marker, _represent_marker)
_Dumper.add_representer(tuple, _represent_tuple)
_Dumper.add_representer(Path, lambda dumper, value: dumper.represent_str(str(value)))


def dump_overlay(transform: Any, catalog: Mapping[str, Callable[..., Any]] | None = None) -> str:
    """The YAML text of ``transform``; :func:`~transforms.loads_overlay` reads it back.

    ``catalog`` maps recipe names to factories (the installed catalogs by
    default). Raise ``TypeError`` naming the step that YAML cannot hold.

    >>> from combinators import identity
    >>> dump_overlay(identity)
    '[]\\n'
    """
    document: Any
    if isinstance(transform, Overlay):
        document = transform.source
    else:
        document = dump_steps(transform, catalog)
    try:
        return yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                         default_flow_style=False)
    except yaml.representer.RepresenterError as err:
        raise TypeError(f"a value in {describe_step(transform)} has no YAML form: "
                        f"{err.args[-1] if err.args else err}") from None


def dump_steps(transform: Any, catalog: Mapping[str, Callable[..., Any]] | None = None
               ) -> list[dict[str, Any]]:
    """``transform`` as a list of pipeline steps (plain data; see :mod:`transforms.forms.pipeline`).

    >>> from combinators import remove_at
    >>> dump_steps(remove_at("spec.hostIPC", missing_ok=False))
    [{'op': 'remove_at', 'path': 'spec.hostIPC', 'missing_ok': False}]
    """
    steps = transform.steps if isinstance(transform, Compose) else \
        () if transform is identity else (transform,)
    found: list[dict[str, Any]] = []
    for number, step in enumerate(steps, 1):
        try:
            found.append(_step(step, catalog))
        except TypeError as err:
            if len(steps) == 1:
                raise
            raise TypeError(f"step {number} of {len(steps)}: {err}") from None
    return found


def _no_form(step: Any, why: str) -> TypeError:
    return TypeError(f"{describe_step(step)} cannot be written as YAML: {why}")


def _step(step: Any, catalog: Mapping[str, Callable[..., Any]] | None) -> dict[str, Any]:
    if not isinstance(step, Transform):
        return _recipe_or_fail(step, catalog)
    name = step.name
    args, kwargs = step.params
    if isinstance(step, Overlay):
        return {"overlay": step.source}
    if name in _PATCHES and type(step).__module__.startswith("transforms.forms.patches"):
        return {_PATCHES[name]: args[0], **kwargs}
    if name in OPS and type(step).__module__.startswith("combinators"):
        if name == "update_at":
            raise _no_form(step, "it holds a Python function")
        return _op(step, name, args, kwargs, catalog)
    return _recipe_or_fail(step, catalog)


def _op(step: Transform, name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
        catalog: Mapping[str, Callable[..., Any]] | None) -> dict[str, Any]:
    params = list(inspect.signature(OPS[name]).parameters.values())
    found: dict[str, Any] = {"op": name}
    position = 0
    for param in params:
        if param.kind is param.VAR_POSITIONAL:
            found[param.name] = list(args[position:])
            position = len(args)
        elif position < len(args):
            found["path" if position == 0 else param.name] = args[position]
            position += 1
    found.update(kwargs)
    for key, value in found.items():
        if isinstance(value, Path):
            found[key] = str(value)
        elif key in ("transform", "then", "otherwise"):
            found[key] = _nested(value, catalog)
        elif callable(value):
            raise _no_form(step, f"its {'predicate' if key == 'path' else key} "
                                 f"is a Python function")
    if name == "merge_by" and isinstance(found.get("key"), tuple):
        found["key"] = list(found["key"])  # the pipeline reads a list of key fields
    return found


def _nested(value: Any, catalog: Mapping[str, Callable[..., Any]] | None) -> Any:
    if isinstance(value, Compose):
        return dump_steps(value, catalog)
    if value is identity:
        return []
    return _step(value, catalog)


def _recipe_or_fail(step: Any, catalog: Mapping[str, Callable[..., Any]] | None
                    ) -> dict[str, Any]:
    if not isinstance(step, Transform):
        raise _no_form(step, "it is a Python function")
    recipes = recipe_catalog() if catalog is None else catalog
    factory = recipes.get(step.name)
    if factory is None:
        raise _no_form(step, f"{type(step).__name__} is neither a combinator, an overlay, "
                             f"a patch nor a recipe of the catalog")
    args, kwargs = step.params
    bound = inspect.signature(factory).bind(*args, **kwargs)
    found: dict[str, Any] = {"recipe": step.name}
    for name, value in bound.arguments.items():
        kind = inspect.signature(factory).parameters[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            found[name] = list(value)
        elif kind is inspect.Parameter.VAR_KEYWORD:
            found.update(value)
        else:
            found[name] = value
    for name, value in found.items():
        if callable(value) or isinstance(value, Transform):
            raise _no_form(step, f"its argument {name!r} is a Python function or transform")
    return found
