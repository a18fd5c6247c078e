"""Strategic merge's field metadata comes from the versioned schema tables, and
agrees with the table podfold used to ship (computed here from the official
JSON schema that ``kubernetes-validate`` ships, as that table was built)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from transforms.forms.patches._listkeys import NO_META, ROOTS, FieldMeta, field_meta
from transforms.kube.kinds import ROOT_KINDS
from transforms.kube.schema import DEFAULT_VERSION, SUPPORTED_VERSIONS, UnsupportedVersionError

# Key fields the API server fills in when left out (the old table's own list).
_KEY_DEFAULTS = {("ContainerPort", "protocol"): "TCP"}


def _definitions(version: str) -> dict[str, Any]:
    root = Path(str(resources.files("kubernetes_validate") / "kubernetes-json-schema"))
    text = (root / f"v{version}.0-local" / "_definitions.json").read_text(encoding="utf-8")
    defs: dict[str, Any] = json.loads(text)["$defs"]
    return defs


def old_table(definitions: dict[str, Any]) -> dict[str, dict[str, FieldMeta]]:
    """The table as the old generator built it: a walk from the roots keeping fields
    with a patch strategy and the object fields that lead to them."""
    by_short: dict[str, str] = {}
    for full in definitions:
        by_short.setdefault(full.rsplit(".", 1)[-1], full)
    types: dict[str, dict[str, FieldMeta]] = {}

    def ref_of(prop: dict[str, Any]) -> str:
        return str(prop.get("$ref") or (prop.get("items") or {}).get("$ref") or "")

    def child_of(prop: dict[str, Any]) -> str | None:
        ref = ref_of(prop)
        if not ref or not definitions[ref.rsplit("/", 1)[-1]].get("properties"):
            return None
        return ref.rsplit(".", 1)[-1]

    def walk(short: str, visiting: frozenset[str]) -> bool:
        if short in types:
            return bool(types[short])
        if short in visiting:
            return False
        fields: dict[str, FieldMeta] = {}
        for name, prop in definitions[by_short[short]].get("properties", {}).items():
            child = child_of(prop)
            child_type = child if child is not None and walk(child, visiting | {short}) else None
            strategy = (prop.get("x-kubernetes-patch-strategy") or "").split(",")
            keys: tuple[str, ...] = ()
            defaults: tuple[tuple[str, Any], ...] = ()
            if prop.get("x-kubernetes-patch-strategy"):
                keys = tuple(
                    prop.get("x-kubernetes-list-map-keys")
                    or (
                        [prop["x-kubernetes-patch-merge-key"]]
                        if "x-kubernetes-patch-merge-key" in prop
                        else []
                    )
                )
                item_type = ref_of(prop).rsplit(".", 1)[-1]
                defaults = tuple(
                    (key, _KEY_DEFAULTS[(item_type, key)])
                    for key in keys
                    if (item_type, key) in _KEY_DEFAULTS
                )
            meta = FieldMeta(
                child_type, "merge" in strategy, "retainKeys" in strategy, keys, defaults
            )
            if meta != NO_META:
                fields[name] = meta
        types[short] = fields
        return bool(fields)

    for root in ROOT_KINDS:
        walk(root, frozenset())
    return {name: fields for name, fields in types.items() if fields}


@pytest.mark.parametrize("version", [DEFAULT_VERSION, SUPPORTED_VERSIONS[0]])
def test_field_meta_agrees_with_the_old_table(version: str) -> None:
    table = old_table(_definitions(version))
    assert len(table) >= 10
    for type_name, fields in table.items():
        for field, meta in fields.items():
            assert field_meta(type_name, field, k8s_version=version) == meta, (type_name, field)
    # and nothing more: every field the tables know is in the old table too
    from transforms.forms.patches._listkeys import _table

    assert {t: dict(f) for t, f in _table(version).items()} == table


def test_hard_facts_of_strategic_merge() -> None:
    ports = field_meta("Container", "ports")
    assert ports.merge and ports.keys == ("containerPort", "protocol")
    assert ports.defaults == (("protocol", "TCP"),)
    assert field_meta("PodSpec", "tolerations") == NO_META  # atomic: replaced whole
    assert field_meta("Container", "env").keys == ("name",)
    volumes = field_meta("PodSpec", "volumes")
    assert volumes.keys == ("name",) and volumes.merge and volumes.retain_keys
    assert field_meta("PodSpec", "containers").type == "Container"
    assert field_meta("Pod", "spec").type == "PodSpec"
    assert field_meta("PodTemplateSpec", "spec").type == "PodSpec"
    assert field_meta("Nope", "x") is NO_META and field_meta(None, "x") is NO_META


def test_versions_are_read_from_their_own_tables() -> None:
    assert field_meta("PodSpec", "volumes", k8s_version="v1.32.3") == field_meta(
        "PodSpec", "volumes", k8s_version="1.32"
    )
    # evictionResponders is in the newest table only
    assert field_meta("PodSpec", "evictionResponders").keys == ("name",)
    assert field_meta("PodSpec", "evictionResponders", k8s_version="1.32") is NO_META
    with pytest.raises(UnsupportedVersionError):
        field_meta("PodSpec", "volumes", k8s_version="1.12")


def test_roots_are_the_root_kinds() -> None:
    assert tuple(ROOTS) == ROOT_KINDS
    assert all(
        field_meta(kind, "metadata").type == "ObjectMeta" for kind in ("Pod", "PodTemplateSpec")
    )
