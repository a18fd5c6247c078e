"""What the official Kubernetes schema says about pods: types, fields, list semantics.

The tables in ``transforms/kube/data/`` are extracted once (``python -m
transforms.kube.schema_build``) from the OpenAPI schemas that ``kubernetes-validate``
ships, and cover every type reachable from a Pod, PodSpec, PodTemplateSpec
and ObjectMeta. A version's table is loaded on first use, never at import.
Validation (:mod:`transforms.checks`) and strategic merge
(:mod:`transforms.forms.patches`) both read these tables: types, and the
lists' merge keys and patch strategies.

>>> schema = schema_for("1.37")
>>> containers = schema.root("PodSpec").field("containers")
>>> containers.kind, containers.list_type, containers.list_map_keys
('list', 'map', ('name',))
>>> schema.type_at("Pod", ("spec", "containers", None, "ports")).field("containerPort")
Field(name='containerPort', kind='scalar', nullable=False, required=True, json_type='integer', format='int32')
>>> schema_for() is schema_for(DEFAULT_VERSION)
True
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from combinators.errors import TransformError
from combinators.limits import short_repr
from combinators.near import did_you_mean, near_misses
from transforms.kube.kinds import ROOT_KINDS, check_kind

__all__ = (
    "SUPPORTED_VERSIONS",
    "DEFAULT_VERSION",
    "ROOT_KINDS",
    "Field",
    "Type",
    "Schema",
    "UnsupportedVersionError",
    "UnknownTypeError",
    "schema_for",
    "check_version",
    "suggest_field",
)

#: Kubernetes versions whose pod schema is bundled, oldest first.
SUPPORTED_VERSIONS: tuple[str, ...] = (
    "1.29",
    "1.30",
    "1.31",
    "1.32",
    "1.33",
    "1.34",
    "1.35",
    "1.36",
    "1.37",
)
#: The version used when none is given: the newest bundled.
DEFAULT_VERSION: str = SUPPORTED_VERSIONS[-1]


class UnsupportedVersionError(TransformError, ValueError):
    """No bundled schema for the asked Kubernetes version.

    >>> schema_for("1.12")
    Traceback (most recent call last):
      ...
    transforms.kube.schema.UnsupportedVersionError: no pod schema for Kubernetes 1.12; did you mean 1.29?; supported: 1.29, 1.30, 1.31, 1.32, 1.33, 1.34, 1.35, 1.36, 1.37
    """


class UnknownTypeError(TransformError, KeyError):
    """No type of that name in a version's pod schema.

    >>> schema_for("1.37").type("io.k8s.api.core.v1.Service")
    Traceback (most recent call last):
      ...
    transforms.kube.schema.UnknownTypeError: no type 'io.k8s.api.core.v1.Service' in the pod schema of Kubernetes 1.37
    """

    def __str__(self) -> str:  # a message, not the quoted key KeyError would show
        return TransformError.__str__(self)


@dataclass(frozen=True)
class Field:
    """One field of a type, or the element of a list or map (``item``).

    ``kind`` is ``object`` (``ref`` names its type), ``list`` or ``map``
    (``item`` describes the elements), ``scalar`` (``json_type`` is string,
    integer, number or boolean; ``format`` such as int32, byte), ``int-or-string``,
    ``quantity`` (``"500m"``, ``"2Gi"``, or a number) or ``any`` (free-form;
    ``json_type`` is ``object`` when it must at least be an object).
    Lists carry their merge semantics: ``list_type`` (atomic, set, map),
    ``list_map_keys``, ``merge_key`` and ``patch_strategy``; ``default`` is
    what the API server fills in for a left-out key field of such a list
    (a port's ``protocol`` is ``TCP``), ``None`` elsewhere.

    >>> schema_for().root("PodSpec").field("tolerations").list_type
    'atomic'
    >>> schema_for().root("PodSpec").field("nodeSelector").item.json_type
    'string'
    """

    name: str
    kind: str
    nullable: bool = True
    required: bool = False
    ref: str | None = None
    item: Field | None = None
    json_type: str | None = None
    format: str | None = None
    enum: tuple[Any, ...] = ()
    list_type: str | None = None
    list_map_keys: tuple[str, ...] = ()
    merge_key: str | None = None
    patch_strategy: str | None = None
    map_type: str | None = None
    default: Any = None

    def __repr__(self) -> str:
        shown = [
            f"{f.name}={getattr(self, f.name)!r}"
            for f in dataclasses.fields(self)
            if f.name in ("name", "kind", "nullable") or getattr(self, f.name) != f.default
        ]
        return "Field(" + ", ".join(shown) + ")"


def _normal(name: str) -> str:
    return name.replace("_", "").lower()


@dataclass(frozen=True, eq=False)
class Type:
    """An object type: its fields in schema order and which of them are required.

    >>> volume = schema_for().type("io.k8s.api.core.v1.Volume")
    >>> volume.required
    ('name',)
    >>> volume.field("emptyDir").ref
    'io.k8s.api.core.v1.EmptyDirVolumeSource'
    >>> volume.field("nope") is None
    True
    """

    name: str
    fields: Mapping[str, Field]
    required: tuple[str, ...]
    aliases: Mapping[str, str]  # normalised name (no "_", lower case) -> field name

    def field(self, name: str) -> Field | None:
        """The field called ``name`` (exact spelling), or ``None``."""
        return self.fields.get(name)

    def alias(self, name: str) -> str | None:
        """The field ``name`` means in any spelling (``node_selector``, ``NodeSelector``), or ``None``.

        >>> schema_for().root("PodSpec").alias("node_selector")
        'nodeSelector'
        """
        return self.aliases.get(_normal(name))

    def __repr__(self) -> str:
        return f"Type({self.name!r})"


@dataclass(frozen=True, eq=False)
class Schema:
    """The pod-related types of one Kubernetes version.

    >>> s = schema_for("1.32")
    >>> s.version, s.root("Pod").name
    ('1.32', 'io.k8s.api.core.v1.Pod')
    >>> s.type_at("PodSpec", ("volumes", None, "emptyDir")).name
    'io.k8s.api.core.v1.EmptyDirVolumeSource'
    """

    version: str
    types: Mapping[str, Type]
    roots: Mapping[str, str]

    def type(self, name: str) -> Type:
        """The type with the full definition name, e.g. ``io.k8s.api.core.v1.Container``."""
        try:
            return self.types[name]
        except KeyError:
            raise UnknownTypeError(
                f"no type {short_repr(name)} in the pod schema of Kubernetes {self.version}"
            ) from None

    def root(self, kind: str) -> Type:
        """The type of a root kind: ``Pod``, ``PodSpec`` or ``PodTemplateSpec``.

        >>> schema_for().root("Deployment")
        Traceback (most recent call last):
          ...
        combinators.errors.ArgumentError: kind: unknown kind 'Deployment'; expected one of: Pod, PodSpec, PodTemplateSpec
        """
        return self.types[self.roots[check_kind(kind)]]

    def field_at(self, kind: str, path_keys: Iterable[str | int | None]) -> Field | None:
        """The field a path of keys ends on, or ``None`` if the path leaves the schema.

        Keys are field names, map keys, and ``None`` or an index for a list element.

        >>> schema_for().field_at("Pod", ("metadata", "labels", "app")).json_type
        'string'
        >>> schema_for().field_at("Pod", ("spec", "nodeSelectr")) is None
        True
        """
        current: Type | None = self.root(kind)
        found: Field | None = None
        for key in path_keys:
            if current is None:
                if found is None or found.item is None:
                    return None
                is_element = (found.kind == "list" and (key is None or type(key) is int)) or (
                    found.kind == "map" and isinstance(key, str)
                )
                if not is_element:
                    return None
                found = found.item
                current = self.types[found.ref] if found.kind == "object" and found.ref else None
                continue
            if not isinstance(key, str):
                return None
            found = current.field(key)
            if found is None:
                return None
            current = self.types[found.ref] if found.kind == "object" and found.ref else None
        return found

    def type_at(self, kind: str, path_keys: Iterable[str | int | None]) -> Type | None:
        """The object type at a path; a list or map of objects gives its element type.

        ``None`` marks a list element, ``()`` is the root.

        >>> schema_for().type_at("Pod", ("spec", "containers", None, "ports")).name
        'io.k8s.api.core.v1.ContainerPort'
        >>> schema_for().type_at("Pod", ("spec", "containers")).name
        'io.k8s.api.core.v1.Container'
        >>> schema_for().type_at("Pod", ("spec", "nodeName")) is None
        True
        """
        keys = tuple(path_keys)
        if not keys:
            return self.root(kind)
        found = self.field_at(kind, keys)
        while found is not None and found.kind in ("list", "map"):
            found = found.item
        if found is None or found.kind != "object" or found.ref is None:
            return None
        return self.types[found.ref]


def _field(name: str, shape: Mapping[str, Any], required: bool = False) -> Field:
    item = shape.get("item")
    return Field(
        name=name,
        kind=shape["k"],
        nullable=bool(shape.get("null", False)),
        required=required,
        ref=shape.get("ref"),
        item=_field("", item) if item is not None else None,
        json_type=shape.get("t"),
        format=shape.get("f"),
        enum=tuple(shape.get("enum", ())),
        list_type=shape.get("lt"),
        list_map_keys=tuple(shape.get("lk", ())),
        merge_key=shape.get("mk"),
        patch_strategy=shape.get("ps"),
        map_type=shape.get("mt"),
        default=shape.get("d"),
    )


_VERSION = re.compile(r"v?(?P<major>[0-9]+)\.(?P<minor>[0-9]+)(?:[.+-].*)?", re.DOTALL)


def check_version(version: str) -> str:
    """The supported ``major.minor`` that a Kubernetes version names, or an
    :class:`UnsupportedVersionError` with the near misses.

    Takes what clusters report: ``"1.30"``, ``"v1.30.4"``,
    ``"1.30.5-gke.1014001"``, ``"v1.30.4-eks-a737599"``. Cheap and loads no
    table: a surface checks its configuration once with it, before any pod.

    >>> check_version("v1.30.4-eks-a737599"), check_version("1.37")
    ('1.30', '1.37')
    >>> check_version("1.38")
    Traceback (most recent call last):
      ...
    transforms.kube.schema.UnsupportedVersionError: no pod schema for Kubernetes 1.38; did you mean 1.37?; supported: 1.29, 1.30, 1.31, 1.32, 1.33, 1.34, 1.35, 1.36, 1.37
    """
    if not isinstance(version, str):
        raise UnsupportedVersionError(
            f"a Kubernetes version is text such as '{DEFAULT_VERSION}', found "
            f"{type(version).__name__} {short_repr(version, 60)}; supported: "
            f"{', '.join(SUPPORTED_VERSIONS)}"
        )
    return _checked(version)


@functools.lru_cache(maxsize=64)
def _checked(version: str) -> str:
    found = _VERSION.fullmatch(version)
    if found is not None:
        major_minor = (
            f"{int(found['major'])}.{int(found['minor'])}"
            if len(found["major"]) + len(found["minor"]) < 12
            else version
        )
        if major_minor in SUPPORTED_VERSIONS:
            return major_minor
    near = _near_versions(version, found)
    hint = did_you_mean(near)
    shown = short_repr(version, 60, quoted=found is None or not version.isprintable())
    return _refuse(
        f"no pod schema for Kubernetes {shown}{hint}; supported: {', '.join(SUPPORTED_VERSIONS)}"
    )


def _near_versions(version: str, found: re.Match[str] | None) -> list[str]:
    """The supported versions ``version`` most likely meant: by value where it is
    a version (the spelling of ``1.12`` is no closer to ``1.29`` than to ``1.37``;
    its number says which end it is past), else by spelling, as every near miss."""
    if found is None or len(found["minor"]) >= 12:  # not a version: what it looks like
        return list(near_misses(version[:40].strip().lstrip("v"), SUPPORTED_VERSIONS, n=2))
    major_minor = f"{int(found['major'])}.{int(found['minor'])}"
    started = [known for known in SUPPORTED_VERSIONS if known.startswith(major_minor)]
    if started:  # "1.3", cut short
        return started[:1] + started[1:][-1:]
    if found["major"].lstrip("0") != "1":  # "2.30", "0.30": the same minor under 1
        return [known for known in SUPPORTED_VERSIONS if known == f"1.{int(found['minor'])}"]
    minor, oldest = int(found["minor"]), SUPPORTED_VERSIONS[0]  # past either end
    return [oldest if minor < int(oldest.split(".")[1]) else SUPPORTED_VERSIONS[-1]]


def _refuse(message: str) -> str:
    raise UnsupportedVersionError(message)


def _normal_version(version: str | None) -> str:
    return DEFAULT_VERSION if version is None else check_version(version)


def schema_for(version: str | None = None) -> Schema:
    """The schema of a Kubernetes version (``"1.37"``, ``"v1.37.2"``; default the newest).

    Loaded on first use and cached: asking again gives the same object.

    >>> schema_for("v1.33.4") is schema_for("1.33")
    True
    >>> schema_for(1.33)
    Traceback (most recent call last):
      ...
    transforms.kube.schema.UnsupportedVersionError: a Kubernetes version is text such as '1.37', found float 1.33; supported: 1.29, 1.30, 1.31, 1.32, 1.33, 1.34, 1.35, 1.36, 1.37
    """
    return _load(_normal_version(version))


@functools.cache
def _load(version: str) -> Schema:
    import gzip
    import json
    import pkgutil

    # the package's loader reads its files (in a directory or a zip file) for 1 ms of imports;
    # importlib.resources (with pathlib, tempfile, urllib, zipfile) costs 10 ms more
    blob = pkgutil.get_data("transforms.kube", f"data/pod-schema-{version}.json.gz")
    if blob is None:  # a loader with no get_data: importlib.resources knows more of them
        from importlib import resources

        blob = (
            resources.files("transforms.kube")
            .joinpath("data")
            .joinpath(f"pod-schema-{version}.json.gz")
            .read_bytes()
        )
    table = json.loads(gzip.decompress(blob))
    types: dict[str, Type] = {}
    for name, spec in table["types"].items():
        required = tuple(spec["required"])
        fields = {key: _field(key, shape, key in required) for key, shape in spec["fields"].items()}
        types[name] = Type(
            name=name,
            fields=fields,
            required=required,
            aliases={_normal(key): key for key in fields},
        )
    roots = {kind: table["roots"][kind] for kind in ROOT_KINDS}
    return Schema(version=version, types=types, roots=roots)


def suggest_field(type_: Type, name: str) -> str | None:
    """The field of ``type_`` that ``name`` most likely meant, or ``None``.

    snake_case and wrong case map to the real spelling; typos go to close matches.

    >>> spec = schema_for().root("PodSpec")
    >>> suggest_field(spec, "node_selector")
    'nodeSelector'
    >>> suggest_field(spec, "tolerration")
    'tolerations'
    >>> suggest_field(spec, "zzz") is None
    True
    """
    exact = type_.aliases.get(_normal(name))
    if exact is not None:
        return exact
    close = near_misses(name, list(type_.fields), n=1)
    if close:
        return close[0]
    close = near_misses(_normal(name), list(type_.aliases), n=1)
    return type_.aliases[close[0]] if close else None
