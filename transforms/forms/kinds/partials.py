"""A partial pod as a step kind: ``{overlay: {spec: {...}}}``, markers as tags."""

from __future__ import annotations

from typing import Any

from combinators import ArgumentTypeError, Path, Transform
from combinators.data import is_map
from combinators.limits import short_names
from combinators.paths import Key
from transforms.forms.kinds.base import StepKind, Steps, Written, flow, items_text, strings_in
from transforms.forms.markers import (
    AppendUnique,
    Default,
    Marker,
    MergeBy,
    Prepend,
    Remove,
    Replace,
)
from transforms.forms.partial import overlay

__all__ = ("OVERLAY_KIND", "overlay_actions")


def _build(value: Any, steps: Steps) -> Transform:
    extra = [key for key in value if key != "overlay"]
    if extra:
        raise ArgumentTypeError(
            f"an overlay step takes no {short_names(map(str, extra))}",
            argument=str(extra[0]),
            factory="overlay",
        )
    return overlay(value["overlay"])


def _dump(step: Any, steps: Steps) -> Any:
    return {"overlay": step.source}


def _phrase(step: Any, steps: Steps) -> str:
    actions = overlay_actions(step.source, ())
    return "overlay: " + ("; ".join(actions) if actions else "nothing")


def _writes(step: Any, steps: Steps) -> Written:
    return strings_in(step.source)


def overlay_actions(value: Any, where: tuple[str, ...]) -> list[str]:
    """What a partial pod does, one phrase per path it touches.

    >>> overlay_actions({"spec": {"tolerations": Replace([]), "hostIPC": True}}, ())
    ['replace spec.tolerations with []', 'set spec.hostIPC to true']
    >>> overlay_actions({"spec": {"tolerations": AppendUnique([{"key": "gpu"}])}}, ())
    ['append 1 item to spec.tolerations, skipping items already there']
    """
    here = str(Path(Key(k) for k in where)) or "the pod"
    if isinstance(value, Marker):
        return [_marker_action(value, here)]
    if isinstance(value, tuple):
        return [f"replace {here} with {flow(list(value))}"]
    if isinstance(value, list):
        return [f"append {items_text(len(value))} to {here}"]
    if not is_map(value):
        return [f"set {here} to {flow(value)}"]
    if (
        value
        and all(not isinstance(v, (Marker, tuple, list)) and not is_map(v) for v in value.values())
        and not any(isinstance(k, str) and k.startswith("__") for k in value)
    ):
        return [f"merge {flow(value)} into {here}"]
    actions: list[str] = []
    for key, item in value.items():
        child = str(Path(Key(k) for k in (*where, _field(key))))
        if key.startswith("__put__:"):
            actions.append(f"replace {child} with {flow(item)}")
        elif key.startswith("__del__:"):
            actions.append(f"remove {child}")
        elif key.startswith("__join__:"):
            on = key[len("__join__:") :].partition(":")[2]
            actions.append(
                f"merge {items_text(len(item))} into {child} by {on} "
                f"(top-level fields), appending those not there"
            )
        else:
            actions.extend(overlay_actions(item, (*where, key)))
    return actions


def _marker_action(marker: Marker, here: str) -> str:
    if isinstance(marker, Remove):
        return f"remove {here}"
    if isinstance(marker, Replace):
        return f"replace {here} with {flow(marker.value)}"
    if isinstance(marker, Default):
        return f"set {here} to {flow(marker.value)} where absent"
    if isinstance(marker, AppendUnique):
        return f"append {items_text(len(marker.value))} to {here}, skipping items already there"
    if isinstance(marker, Prepend):
        return f"put {items_text(len(marker.value))} at the start of {here}"
    if isinstance(marker, MergeBy):
        keys = marker.key if isinstance(marker.key, str) else ", ".join(marker.key)
        return f"merge {items_text(len(marker.value))} into {here} by {keys}"
    return f"append {items_text(len(marker.value))} to {here}"


def _field(key: str) -> str:
    for prefix in ("__put__:", "__del__:"):
        if key.startswith(prefix):
            return key[len(prefix) :]
    if key.startswith("__join__:"):
        return key[len("__join__:") :].partition(":")[0]
    return key


OVERLAY_KIND = StepKind(
    name="overlay",
    key="overlay",
    build=_build,
    dump=_dump,
    phrase=_phrase,
    writes=_writes,
    examples=(
        lambda: overlay(
            {
                "spec": {
                    "tolerations": Replace([]),
                    "hostIPC": Remove(),
                    "containers": MergeBy([{"name": "t", "image": "x"}]),
                    "args": ("--fast",),
                }
            }
        ),
        lambda: overlay({"spec": {"tolerations": AppendUnique([{"key": "gpu"}])}}),
    ),
    factory=overlay,
)
"""A partial pod, merged by TorchX's rules."""
