"""Build the compact pod schema tables in ``transforms/kube/data/`` (a maintainer's script).

Run ``python .ci/schema_build.py`` from the checkout's root after changing this
script or upgrading ``kubernetes-validate``, and commit the tables it writes;
``tests/test_schema.py`` rebuilds them into a temporary directory and compares
them byte for byte with the committed ones. It needs no network: it reads the official Kubernetes
OpenAPI schemas that the ``kubernetes-validate`` package ships (JSON Schema
2020-12, one directory per Kubernetes version), keeps the types reachable
from ``io.k8s.api.core.v1.Pod``, ``PodSpec``, ``PodTemplateSpec`` and
``ObjectMeta``, and writes one gzipped JSON table per version:

``{"version": "1.37", "roots": {"Pod": name, ...}, "types": {name: type}}``

where a type is ``{"fields": {name: shape}, "required": [names]}`` and a
shape is a small map: ``k`` (``object``, ``list``, ``map``, ``scalar``,
``int-or-string``, ``quantity``, ``any``), ``ref`` (the type of an object),
``item`` (the shape of a list's or map's elements), ``t``/``f`` (JSON type
and format of a scalar), ``null`` (whether ``null`` is allowed), ``enum``,
and the list and map semantics ``lt`` (``x-kubernetes-list-type``), ``lk``
(``x-kubernetes-list-map-keys``), ``mk`` (``x-kubernetes-patch-merge-key``),
``ps`` (``x-kubernetes-patch-strategy``), ``mt`` (``x-kubernetes-map-type``),
and ``d``, the value the API server fills in when the field is left out
(only for fields a strategic merge patch keys lists by, see :data:`KEY_DEFAULTS`).
Output is deterministic: sorted keys, compact separators, gzip without a
timestamp.

>>> shape_of({"type": ["string", "null"], "format": "byte"}, {})
{'k': 'scalar', 'null': True, 't': 'string', 'f': 'byte'}
>>> shape_of({"type": "array", "items": {"type": "string"},
...           "x-kubernetes-list-type": "atomic"}, {})
{'k': 'list', 'null': False, 'item': {'k': 'scalar', 'null': False, 't': 'string'}, 'lt': 'atomic'}
"""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = (
    "VERSIONS",
    "ROOTS",
    "PROSE_ENUMS",
    "KEY_DEFAULTS",
    "DATA_DIR",
    "shape_of",
    "build_table",
    "write_tables",
    "main",
)

#: Where the runtime package keeps the tables: ``transforms/kube/data`` in this checkout.
DATA_DIR = Path(__file__).resolve().parents[1] / "transforms" / "kube" / "data"

#: The Kubernetes versions whose tables are built, oldest first.
VERSIONS: tuple[str, ...] = ("1.29", "1.30", "1.31", "1.32", "1.33", "1.34", "1.35", "1.36", "1.37")

#: Root kinds and their definition names.
ROOTS: dict[str, str] = {
    "Pod": "io.k8s.api.core.v1.Pod",
    "PodSpec": "io.k8s.api.core.v1.PodSpec",
    "PodTemplateSpec": "io.k8s.api.core.v1.PodTemplateSpec",
    "ObjectMeta": "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
}

_SPECIAL: dict[str, dict[str, Any]] = {
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {"k": "int-or-string"},
    "io.k8s.apimachinery.pkg.api.resource.Quantity": {"k": "quantity"},
}

_SEMANTICS = (
    ("x-kubernetes-list-type", "lt"),
    ("x-kubernetes-list-map-keys", "lk"),
    ("x-kubernetes-patch-merge-key", "mk"),
    ("x-kubernetes-patch-strategy", "ps"),
    ("x-kubernetes-map-type", "mt"),
)


_OS_UNIX = b"\x03"
"""The OS byte of the tables' gzip header (RFC 1952: Unix), whatever Python writes."""


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _types_of(schema: dict[str, Any]) -> tuple[list[str], bool]:
    declared = schema.get("type")
    names = [declared] if isinstance(declared, str) else list(declared or [])
    return [n for n in names if n != "null"], "null" in names or declared is None


def shape_of(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """The compact shape of one property schema (see the module docstring)."""
    shape: dict[str, Any]
    if "$ref" in schema:
        name = _ref_name(schema["$ref"])
        target = defs[name]
        if name in _SPECIAL:
            shape = dict(_SPECIAL[name], null=False)
        elif "properties" in target:
            shape = {"k": "object", "ref": name, "null": _types_of(target)[1]}
        else:
            shape = shape_of(target, defs)
    else:
        types, nullable = _types_of(schema)
        if types == ["array"]:
            shape = {"k": "list", "null": nullable, "item": shape_of(schema["items"], defs)}
        elif types == ["object"] and "additionalProperties" in schema:
            shape = {
                "k": "map",
                "null": nullable,
                "item": shape_of(schema["additionalProperties"], defs),
            }
        elif types == ["object"]:  # free-form object, such as FieldsV1
            shape = {"k": "any", "null": nullable, "t": "object"}
        elif not types:
            shape = {"k": "any", "null": nullable}
        else:
            (json_type,) = types
            shape = {"k": "scalar", "null": nullable, "t": json_type}
            if "format" in schema:
                shape["f"] = schema["format"]
    if "enum" in schema:
        shape["enum"] = list(schema["enum"])
        # JSON Schema checks enum on its own: null passes only if listed
        shape["null"] = shape["null"] and None in schema["enum"]
    for long_name, short in _SEMANTICS:
        if long_name in schema:
            shape[short] = schema[long_name]
    return shape


def _refs(schema: Any) -> Iterator[str]:
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "$ref":
                yield _ref_name(value)
            elif key != "description":
                yield from _refs(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _refs(value)


def _normal(name: str) -> str:
    return name.replace("_", "").lower()


_CORE, _META = "io.k8s.api.core.v1.", "io.k8s.apimachinery.pkg.apis.meta.v1."
PROSE_ENUMS: dict[tuple[str, str], tuple[str, ...]] = {
    # The official schemas state these fields' values only in their descriptions
    # ("One of Always, OnFailure, Never."); the values are the constants of the
    # Kubernetes API (core/v1), stable across the versions supported here.
    (_CORE + "PodSpec", "restartPolicy"): ("Always", "OnFailure", "Never"),
    (_CORE + "PodSpec", "dnsPolicy"): (
        "ClusterFirstWithHostNet",
        "ClusterFirst",
        "Default",
        "None",
    ),
    (_CORE + "PodSpec", "preemptionPolicy"): ("Never", "PreemptLowerPriority"),
    (_CORE + "Container", "imagePullPolicy"): ("Always", "Never", "IfNotPresent"),
    (_CORE + "EphemeralContainer", "imagePullPolicy"): ("Always", "Never", "IfNotPresent"),
    (_CORE + "Container", "terminationMessagePolicy"): ("File", "FallbackToLogsOnError"),
    (_CORE + "EphemeralContainer", "terminationMessagePolicy"): ("File", "FallbackToLogsOnError"),
    (_CORE + "ContainerPort", "protocol"): ("TCP", "UDP", "SCTP"),
    (_CORE + "Toleration", "operator"): ("Exists", "Equal"),
    (_CORE + "Toleration", "effect"): ("NoSchedule", "PreferNoSchedule", "NoExecute"),
    (_CORE + "NodeSelectorRequirement", "operator"): (
        "In",
        "NotIn",
        "Exists",
        "DoesNotExist",
        "Gt",
        "Lt",
    ),
    (_META + "LabelSelectorRequirement", "operator"): ("In", "NotIn", "Exists", "DoesNotExist"),
    (_CORE + "TopologySpreadConstraint", "whenUnsatisfiable"): ("DoNotSchedule", "ScheduleAnyway"),
    (_CORE + "TopologySpreadConstraint", "nodeAffinityPolicy"): ("Honor", "Ignore"),
    (_CORE + "TopologySpreadConstraint", "nodeTaintsPolicy"): ("Honor", "Ignore"),
    (_CORE + "PodSecurityContext", "fsGroupChangePolicy"): ("OnRootMismatch", "Always"),
    (_CORE + "SeccompProfile", "type"): ("RuntimeDefault", "Unconfined", "Localhost"),
    (_CORE + "AppArmorProfile", "type"): ("RuntimeDefault", "Unconfined", "Localhost"),
    (_CORE + "HostPathVolumeSource", "type"): (
        "",
        "DirectoryOrCreate",
        "Directory",
        "FileOrCreate",
        "File",
        "Socket",
        "CharDevice",
        "BlockDevice",
    ),
    (_CORE + "VolumeMount", "mountPropagation"): ("None", "HostToContainer", "Bidirectional"),
    (_CORE + "HTTPGetAction", "scheme"): ("HTTP", "HTTPS"),
    (_CORE + "PodOS", "name"): ("linux", "windows"),
}
"""Enumerations the schemas give only in prose, added to the tables."""


KEY_DEFAULTS: dict[tuple[str, str], Any] = {
    # A strategic merge patch matches ports by (containerPort, protocol); a port
    # written without a protocol is a TCP port (the API server defaults it; the
    # schema says so only in prose), so it must match the same port with TCP.
    (_CORE + "ContainerPort", "protocol"): "TCP",
}
"""Defaults of key fields of merged lists, added to the tables as ``d``."""


def _with_prose(type_name: str, fields: dict[str, Any]) -> dict[str, Any]:
    for (owner, field), values in PROSE_ENUMS.items():
        shape = fields.get(field)
        if (
            owner == type_name
            and shape is not None
            and "enum" not in shape
            and shape.get("k") == "scalar"
            and shape.get("t") == "string"
        ):
            fields[field] = {**shape, "enum": list(values)}
    for (owner, field), default in KEY_DEFAULTS.items():
        if owner == type_name and field in fields:
            fields[field] = {**fields[field], "d": default}
    return fields


def build_table(version: str, root_dir: Path) -> dict[str, Any]:
    """The compact table of one version, from that version's schema directory."""
    defs: dict[str, Any] = json.loads((root_dir / "_definitions.json").read_text())["$defs"]
    pod_file: dict[str, Any] = json.loads((root_dir / "pod-v1.json").read_text())
    # the per-kind file pins apiVersion and kind; fold that into the Pod type
    defs = dict(defs)
    pod = dict(defs[ROOTS["Pod"]])
    pod["properties"] = {**pod["properties"], **pod_file["properties"]}
    defs[ROOTS["Pod"]] = pod
    seen: set[str] = set()
    stack = list(ROOTS.values())
    while stack:
        name = stack.pop()
        if name in seen or name in _SPECIAL:
            continue
        seen.add(name)
        stack.extend(_refs(defs[name]))
    types: dict[str, Any] = {}
    for name in sorted(seen):
        schema = defs[name]
        if "properties" not in schema:
            continue  # scalars such as Time are inlined where they are used
        fields = _with_prose(
            name, {key: shape_of(prop, defs) for key, prop in schema["properties"].items()}
        )
        normal = [_normal(key) for key in fields]
        if len(set(normal)) != len(normal):  # to_data (Type.alias) matches keys this way
            raise ValueError(f"{name}: field names clash once normalised")
        types[name] = {"fields": fields, "required": sorted(schema.get("required", []))}
    return {"version": version, "roots": dict(ROOTS), "types": types}


def _schema_root() -> Path:
    return Path(str(resources.files("kubernetes_validate") / "kubernetes-json-schema"))


def write_tables(out_dir: Path) -> list[Path]:
    """Write one ``pod-schema-<version>.json.gz`` per version into ``out_dir``; the files written.

    The bytes depend only on the schemas read: sorted keys, compact JSON, gzip
    without a timestamp.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    source = _schema_root()
    written = []
    for version in VERSIONS:
        table = build_table(version, source / f"v{version}.0-local")
        text = json.dumps(table, sort_keys=True, separators=(",", ":"))
        target = out_dir / f"pod-schema-{version}.json.gz"
        packed = gzip.compress(text.encode(), compresslevel=9, mtime=0)
        # the header's OS byte is the one part of it Python versions write differently
        # (3 on 3.11 and 3.12, 255 on 3.10 and 3.13): one, so every Python rebuilds the same
        target.write_bytes(packed[:9] + _OS_UNIX + packed[10:])
        print(
            f"{target.name}: {len(table['types'])} types, "
            f"{len(text)} bytes of JSON, {target.stat().st_size} gzipped"
        )
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    """Write the tables into the directory given (by default :data:`DATA_DIR`)."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1:
        print("usage: python .ci/schema_build.py [OUT_DIR]", file=sys.stderr)
        return 2
    write_tables(Path(args[0]) if args else DATA_DIR)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
