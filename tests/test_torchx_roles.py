"""Overlays kept on TorchX roles: ``with_overlays`` and ``role_overlays``.

Every legacy form a role written for upstream TorchX may hold in
``metadata["kubernetes"]`` is read: a flat partial pod, upstream's marked
``{"__torchx_overlays__": True, "V1Pod": ...}``, a YAML file path, and an
inline YAML or JSON text.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from torchx.specs import Role

from combinators import ArgumentTypeError, TransformError, merge_by, upsert
from transforms.torchx.roles import METADATA_KEY, role_overlays, with_overlays

POD: dict[str, Any] = {
    "metadata": {"labels": {"app": "x"}},
    "spec": {
        "containers": [{"name": "trainer-0", "image": "trainer:1"}],
        "tolerations": [{"key": "a", "operator": "Exists"}],
    },
}


def apply_all(role: Role, pod: Any = POD) -> Any:
    for step in role_overlays(role):
        pod = step(pod)
    return pod


def test_with_overlays_returns_a_new_role_and_leaves_the_input_alone() -> None:
    role = Role(name="trainer", image="trainer:1", metadata={"other": {"keep": 1}})
    before = copy.deepcopy(role)
    new = with_overlays(role, upsert("spec.nodeSelector", {"gpu": "a100"}))
    assert new is not role
    assert role == before
    assert role.metadata == {"other": {"keep": 1}}
    assert new.metadata["other"] == {"keep": 1}
    assert (new.name, new.image) == (role.name, role.image)


def test_overlays_are_kept_and_applied_in_order() -> None:
    first = upsert("spec.nodeSelector", {"pool": "first"})
    second = upsert("spec.nodeSelector", {"pool": "second"})
    role = with_overlays(with_overlays(Role(name="t", image="i"), first), second)
    assert role_overlays(role) == [first, second]
    assert apply_all(role)["spec"]["nodeSelector"] == {"pool": "second"}
    reverse = with_overlays(Role(name="t", image="i"), second, first)
    assert apply_all(reverse)["spec"]["nodeSelector"] == {"pool": "first"}


def test_a_bad_overlay_fails_when_it_is_added() -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        with_overlays(Role(name="t", image="i"), 42)
    assert isinstance(caught.value, TransformError) and isinstance(caught.value, TypeError)
    assert caught.value.argument == "value" and "cannot make an overlay of int" in str(caught.value)


def test_the_package_exports_with_overlays_and_role_overlays() -> None:
    import transforms.torchx as package

    assert package.with_overlays is with_overlays and package.role_overlays is role_overlays
    assert {"with_overlays", "role_overlays"} <= set(package.__all__)


def test_legacy_flat_dict() -> None:
    role = Role(
        name="t", image="i", metadata={METADATA_KEY: {"spec": {"nodeSelector": {"gpu": "a100"}}}}
    )
    new = apply_all(role)
    assert new["spec"]["nodeSelector"] == {"gpu": "a100"}
    assert new["spec"]["containers"] == POD["spec"]["containers"]


def test_legacy_upstream_marked_format() -> None:
    role = Role(
        name="t",
        image="i",
        metadata={
            METADATA_KEY: {
                "__torchx_overlays__": True,
                "V1Pod": {"spec": {"tolerations": [{"key": "b", "operator": "Exists"}]}},
            }
        },
    )
    new = apply_all(role)
    # upstream's semantics: a list is appended to
    assert [t["key"] for t in new["spec"]["tolerations"]] == ["a", "b"]
    assert "V1Pod" not in new and "__torchx_overlays__" not in new


def test_legacy_yaml_file_path(tmp_path: Path) -> None:
    path = tmp_path / "overlay.yaml"
    path.write_text("spec:\n  nodeSelector:\n    gpu: a100\n  runtimeClassName: nvidia\n")
    role = Role(name="t", image="i", metadata={METADATA_KEY: str(path)})
    new = apply_all(role)
    assert new["spec"]["nodeSelector"] == {"gpu": "a100"}
    assert new["spec"]["runtimeClassName"] == "nvidia"


def test_legacy_inline_yaml_and_json_texts() -> None:
    yaml_text = "spec:\n  nodeSelector:\n    gpu: a100\n"
    json_text = json.dumps({"spec": {"nodeSelector": {"gpu": "h100"}}})
    for text, gpu in ((yaml_text, "a100"), (json_text, "h100")):
        role = Role(name="t", image="i", metadata={METADATA_KEY: text})
        assert apply_all(role)["spec"]["nodeSelector"] == {"gpu": gpu}


def test_with_overlays_appends_to_a_legacy_value() -> None:
    legacy = {"spec": {"nodeSelector": {"gpu": "a100"}}}
    role = Role(name="t", image="i", metadata={METADATA_KEY: legacy})
    new = with_overlays(role, merge_by("spec.containers[0].env", [{"name": "A", "value": "1"}]))
    assert role.metadata[METADATA_KEY] is legacy  # untouched
    assert len(role_overlays(new)) == 2
    pod = apply_all(new)
    assert pod["spec"]["nodeSelector"] == {"gpu": "a100"}
    assert pod["spec"]["containers"][0]["env"] == [{"name": "A", "value": "1"}]


def test_the_pod_is_never_mutated() -> None:
    before = copy.deepcopy(POD)
    role = with_overlays(
        Role(name="t", image="i"),
        {"spec": {"tolerations": [{"key": "b", "operator": "Exists"}]}},
        upsert("metadata.labels.team", "ml"),
    )
    apply_all(role)
    assert before == POD


def test_a_role_without_overlays_has_none() -> None:
    assert role_overlays(Role(name="t", image="i")) == []
