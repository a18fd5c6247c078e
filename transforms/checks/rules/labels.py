"""Rule ``labels``: labels, annotations and the node selector as the API server checks them
(``ValidateLabels``, ``ValidateAnnotations``).

A label key, an annotation key and a node selector key are qualified names
(an optional DNS subdomain and '/', then a name of at most 63 letters,
digits, '-', '_' and '.'); a label value and a node selector value are at
most 63 of those, maybe none; a pod's annotations take at most 256 KiB.

>>> out = []
>>> check(Spec({"nodeSelector": {"pool": "a100 80gb"}}, None), out)
>>> [(key, message) for _, key, message, _, _ in out]
[('pool', "node selector value 'a100 80gb' must be empty or consist of letters, digits, '-', '_' or '.', and start and end with a letter or digit (such as 'my_value' or '12345')")]
"""

from __future__ import annotations

from typing import Any

from combinators.limits import short_repr
from transforms.checks.problems import Raw, Trail
from transforms.checks.rules._formats import label_value, qualified_name
from transforms.checks.rules._spec import Spec

__all__ = ("ID", "DESCRIPTION", "check")

ID = "labels"
DESCRIPTION = (
    "label, annotation and node selector keys are qualified names; label and node "
    "selector values are label values; annotations take at most 256 KiB"
)

_ANNOTATIONS_BYTES = 256 * 1024


def check(pod: Spec, out: list[Raw]) -> None:
    """Report every label, annotation or node selector entry the API server refuses."""
    metadata = pod.metadata
    if metadata is not None:
        labels = metadata.get("labels")
        if type(labels) is dict and labels:
            _labels(labels, (pod.metadata_trail, "labels"), "label", out)
        annotations = metadata.get("annotations")
        if type(annotations) is dict and annotations:
            _annotations(annotations, (pod.metadata_trail, "annotations"), out)
    selector = pod.spec.get("nodeSelector")
    if type(selector) is dict and selector:
        _labels(selector, (pod.trail, "nodeSelector"), "node selector", out)


def _labels(labels: dict[Any, Any], trail: Trail, what: str, out: list[Raw]) -> None:
    try:  # the usual case, settled at once: no verdict against any key or value
        if not any(map(qualified_name, labels)) and not any(map(label_value, labels.values())):
            return
    except TypeError:  # a key or value that is no string: look closely
        pass
    for key, value in labels.items():
        if type(key) is str and (wrong := qualified_name(key)) is not None:
            out.append((trail, key, f"{what} key {short_repr(key)} {wrong}", key, "error"))
        if type(value) is str and (wrong := label_value(value)) is not None:
            out.append((trail, key, f"{what} value {short_repr(value)} {wrong}", value, "error"))


def _annotations(annotations: dict[Any, Any], trail: Trail, out: list[Raw]) -> None:
    try:  # the usual case, settled at once: short, and no verdict against a key as written
        if (
            not any(map(qualified_name, annotations))
            and sum(map(len, annotations)) + sum(map(len, annotations.values()))
            <= _ANNOTATIONS_BYTES // 4
        ):  # 4 bytes a character at most
            return
    except TypeError:  # a key or value that is no string: look closely
        pass
    size = 0
    for key, value in annotations.items():
        if type(key) is str:
            # the API server reads annotation keys in lower case
            if (wrong := qualified_name(key.lower())) is not None:
                out.append((trail, key, f"annotation key {short_repr(key)} {wrong}", key, "error"))
            size += _bytes(key)
        if type(value) is str:
            size += _bytes(value)
    if size > _ANNOTATIONS_BYTES:
        out.append(
            (
                trail[0],
                trail[1],
                f"annotations take {size} bytes; they may take at most "
                f"{_ANNOTATIONS_BYTES} (256 KiB)",
                size,
                "error",
            )
        )


def _bytes(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
