"""Transforms are values: they pickle, and copying one gives the value itself."""

from __future__ import annotations

import copy
import pickle

import recipes
from combinators import (
    append_at,
    chain,
    expect,
    insert_at,
    merge_by,
    prepend_at,
    remove_at,
    replace_at,
    set_default,
    upsert,
    when,
)
from transforms import json_patch, loads_overlay, merge_patch, strategic_merge

POD = {
    "metadata": {"labels": {"a": "b"}},
    "spec": {"containers": [{"name": "trainer-0", "image": "t:1"}], "hostPID": True},
}

EVERY_KIND = chain(
    upsert("spec.nodeSelector", {"gpu": "a100"}),
    append_at("spec.tolerations", {"key": "nvidia.com/gpu", "operator": "Exists"}, unique=True),
    prepend_at("spec.containers[0].args", "--fast"),
    insert_at("spec.containers", {"name": "sidecar", "image": "s:1"}, after="name=trainer-0"),
    merge_by("spec.containers[0].env", [{"name": "A", "value": "1"}]),
    replace_at("spec.restartPolicy", "Never"),
    set_default("spec.priorityClassName", "high"),
    remove_at("spec.hostPID"),
    when("spec.containers[name=sidecar]", upsert("metadata.labels.sidecar", "yes")),
    expect("spec.containers[*]", "1+"),
    recipes.gpu("a100", count=1),
    loads_overlay("spec: {hostIPC: true}"),
    json_patch([{"op": "add", "path": "/metadata/labels/x", "value": "1"}]),
    merge_patch({"metadata": {"labels": {"a": None}}}),
    strategic_merge({"spec": {"containers": [{"name": "trainer-0", "image": "t:2"}]}}),
)


def test_a_transform_survives_pickling_as_an_equal_value_with_the_same_effect() -> None:
    copied = pickle.loads(pickle.dumps(EVERY_KIND))
    assert copied == EVERY_KIND and hash(copied) == hash(EVERY_KIND)
    assert copied(POD) == EVERY_KIND(POD)


def test_copying_a_transform_gives_the_transform_itself() -> None:
    assert copy.copy(EVERY_KIND) is EVERY_KIND
    assert copy.deepcopy(EVERY_KIND) is EVERY_KIND
    assert copy.deepcopy({"kubernetes": [EVERY_KIND]})["kubernetes"][0] is EVERY_KIND
