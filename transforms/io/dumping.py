"""Writing transforms back as YAML, in the forms :func:`~transforms.load_overlay` reads.

- a partial pod (:func:`~transforms.forms.partial`) becomes a map, its markers
  tags (``!replace``, ``!merge-by:containerPort,protocol``, ...) and its
  tuples ``!!python/tuple``;
- anything else becomes a pipeline: a list of steps such as
  ``{op: upsert, path: spec.nodeSelector, value: {gpu: a100}}``, using the
  factories' parameter names (``path`` for the first one, ``items`` for
  ``*items``); patches become ``json_patch``/``merge_patch``/``strategic``
  steps and recipes ``{recipe: name, ...arguments}``.

Each kind of step says how it is written in :mod:`transforms.forms.kinds`;
this module writes the YAML text, quoting each string that kubectl or a
YAML 1.2 reader would read as a number, boolean or date
(:mod:`transforms.io.quoting`). Loading what :func:`dump_overlay` writes
gives an equal transform back. A transform holding a Python function
(``update_at``, ``when`` with a predicate function, a lambda) has no YAML
form: an :class:`~combinators.ArgumentTypeError` (also a ``TypeError``) names
the step.

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

from typing import Any

import yaml

from combinators import ArgumentTypeError, Path
from combinators.limits import short_repr
from combinators.transform import TransformLike, describe_step
from transforms.forms import kinds
from transforms.forms.catalog import Catalog
from transforms.forms.kinds.named import composed_steps
from transforms.forms.markers import Marker, MergeBy, Remove
from transforms.forms.partial import Overlay
from transforms.io.quoting import quote_foreign_scalars

__all__ = ("dump_overlay", "dump_steps")

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
            if (
                self.analysis.allow_block_plain
                and self.analysis.allow_flow_plain
                and not self.analysis.empty
                and not self.analysis.multiline
            ):
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
        # and a quoted one as a string: quote the strings that need it ('true', '',
        # and what another reader would misread: '1e-4').
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
quote_foreign_scalars(_Dumper)


def dump_overlay(transform: TransformLike, catalog: Catalog | None = None) -> str:
    """The YAML text of ``transform``; :func:`~transforms.loads_overlay` reads it back.

    ``catalog`` maps recipe names to factories (the installed catalogs by
    default). Raise :class:`~combinators.ArgumentTypeError` (a ``TypeError``)
    naming the step that YAML cannot hold.

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
        return yaml.dump(
            document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False
        )
    except yaml.representer.RepresenterError as err:
        raise ArgumentTypeError(
            f"a value in {describe_step(transform)} has no YAML form: "
            f"{short_repr(err.args[-1] if err.args else err, quoted=False)}",
            argument="transform",
            factory="dump_overlay",
        ) from None


def dump_steps(transform: TransformLike, catalog: Catalog | None = None) -> list[dict[str, Any]]:
    """``transform`` as a list of pipeline steps (plain data; see :mod:`transforms.forms.pipeline`).

    >>> from combinators import remove_at
    >>> dump_steps(remove_at("spec.hostIPC", missing_ok=False))
    [{'op': 'remove_at', 'path': 'spec.hostIPC', 'missing_ok': False}]
    """
    steps = composed_steps(transform)
    found: list[dict[str, Any]] = []
    for number, step in enumerate(steps, 1):
        try:
            found.append(kinds.dump(step, catalog))
        except ArgumentTypeError as err:
            if len(steps) == 1:
                raise
            raise ArgumentTypeError(
                f"step {number} of {len(steps)}: {err.message}",
                argument=err.argument,
                factory=err.factory,
                value=err.value,
            ) from err
    return found
