"""An error names its place however the overlay runs: alone, in a composition, fused or not.

A composition runs its steps one by one on its first application and fused
from then on (:mod:`combinators.fusion`); a partial pod's list tags
(``!append``, ``!merge-by``...) run the leaf of the combinator they stand
for without its walk. Each way, a list edit that meets a map names the path
of the map, the same path the step-by-step run names.
"""

from __future__ import annotations

from typing import Any

import pytest

from combinators import (
    Path,
    TransformError,
    TypeClashError,
    append_at,
    chain,
    merge_by,
    path,
    prepend_at,
    upsert,
)
from transforms import loads_overlay

POD: dict[str, Any] = {
    "metadata": {"name": "p", "labels": {"team": "ml"}},
    "spec": {"nodeSelector": {"gpu": "a100"}, "containers": [{"name": "main", "image": "x"}]},
}

TAGGED = [
    ("spec:\n  nodeSelector: !append [x]\n", "spec.nodeSelector"),
    ("spec:\n  nodeSelector: !prepend [x]\n", "spec.nodeSelector"),
    ("metadata:\n  labels: !append-unique [x]\n", "metadata.labels"),
    ("metadata:\n  labels: !merge-by [{name: x}]\n", "metadata.labels"),
    ("metadata:\n  labels: !merge-by {key: name, items: [{name: x}]}\n", "metadata.labels"),
]


def errors(transform: Any, times: int = 4) -> list[TransformError]:
    """The error of each of ``times`` applications to the pod (fused from the third on)."""
    found = []
    for _ in range(times):
        with pytest.raises(TransformError) as caught:
            transform(POD)
        found.append(caught.value)
    return found


@pytest.mark.parametrize(
    ("text", "place"), TAGGED, ids=[case[1] + "-" + case[0].split("!")[1] for case in TAGGED]
)
def test_a_list_tag_on_a_map_names_the_place(text: str, place: str) -> None:
    overlay = loads_overlay(text, source="overlay.yaml")
    for transform in (overlay, chain(upsert("metadata.annotations.a", "b"), overlay)):
        for err in errors(transform):
            assert isinstance(err, TypeClashError)
            assert err.path == path(place), str(err)
            assert place in str(err)


@pytest.mark.parametrize(
    "edit",
    [
        append_at("spec.nodeSelector", "x"),
        prepend_at("metadata.labels", "x"),
        merge_by("metadata.labels", [{"name": "x"}]),
    ],
    ids=repr,
)
def test_a_list_edit_on_a_map_names_the_place_alone_and_fused(edit: Any) -> None:
    alone = [str(err) for err in errors(edit)]
    composed = chain(upsert("metadata.annotations.a", "b"), edit, upsert("spec.hostIPC", False))
    steps = [str(err) for err in errors(composed)]
    place = str(edit.path)
    assert all(text == alone[0] and place in text for text in alone)
    # the first run goes step by step, the later ones through the fused function
    assert all(text == steps[0] and place in text and "step 2 of 3" in text for text in steps)
    assert errors(composed)[-1].path == Path.parse(place)
