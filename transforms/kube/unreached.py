"""Pods no overlay reaches: what a document holds that :func:`~transforms.kube.workloads.pod_templates`
does not find, so that podfold can say so rather than pass it by in silence.

>>> print(*unreached_pods({"kind": "Deployment", "metadata": {"name": "web"},
...                        "spec": {"template": None}}))
Deployment/web has null at spec.template, where its pod template (a map) belongs; no overlay or check reaches its pods
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from combinators.data import is_map, is_seq, kind_name
from combinators.limits import MAX_NAME, short_repr
from combinators.paths import All, Index, Key, Part, Path
from transforms.kube.records import DOCUMENT, TEMPLATE, reach
from transforms.kube.registry import KindsLike, resolve_kinds
from transforms.kube.table import KindRegistry, a_kind, api_group, document_name

__all__ = ("Unreached", "unreached_pods", "likely_templates", "suggested_record")

_WALK_DEPTH = 24
"""How deep :func:`unreached_pods` looks for containers in a document it cannot place."""
_WALK_NODES = 20_000
"""How many maps and lists it visits at most, per document."""
_PLACES_SHOWN = 3


@dataclass(frozen=True)
class Unreached:
    """Pods of a document that no overlay (and no check) reaches, and why.

    ``kind``, ``name`` and ``api_version`` are the workload's; ``places``
    where its containers (or the value that should be a pod template) are;
    ``reason`` is ``"unknown-kind"`` (a kind the registry does not have),
    ``"not-a-map"`` (its template is ``found``, not a map), ``"missing"`` (it
    has no template), ``"elsewhere"`` (a known kind, whose containers are not
    where its record looks; ``looked`` says where it looks), or ``"trainjob"``
    (a Kubeflow Trainer ``TrainJob``, whose pods are made from several places;
    ``runtime`` names its runtime). ``record`` is, for an unknown kind, the kind
    record that reaches the containers found, as YAML ready for a ``--kinds``
    file (``""`` where no record can: a container outside any pod spec).
    """

    kind: str | None
    name: str | None
    places: tuple[str, ...]
    reason: str
    found: str = ""
    looked: tuple[str, ...] = ()
    more: int = 0
    api_version: str | None = None
    record: str = ""
    runtime: str | None = None

    def __str__(self) -> str:
        # the document's own kind, name and keys: each written short
        kind = short_repr(self.kind, MAX_NAME, quoted=False) if self.kind else ""
        name = short_repr(self.name, MAX_NAME, quoted=False) if self.name else "(unnamed)"
        version = (
            f" ({short_repr(self.api_version, MAX_NAME, quoted=False)})"
            if self.api_version and self.reason in ("unknown-kind", "elsewhere", "trainjob")
            else ""
        )
        who = f"{kind or '(no kind)'}/{name}{version}"
        if self.reason == "trainjob":
            runtime = (
                f" ({short_repr(self.runtime, MAX_NAME)}, its spec.runtimeRef)"
                if self.runtime
                else ""
            )
            return (
                f"{who}: a TrainJob's pods are made from several places (its trainer "
                f"fields, its runtime's template, its runtimePatches), which podfold does not "
                f"reach yet: no overlay or check reaches them; overlay its runtime's pods "
                f"instead, in the TrainingRuntime or ClusterTrainingRuntime{runtime}"
            )
        shown = ", ".join(short_repr(place, quoted=False) for place in self.places) + (
            f" (and {self.more} more)" if self.more else ""
        )
        if self.reason == "not-a-map":
            return (
                f"{who} has {self.found} at {shown}, where its pod template (a map) "
                f"belongs; no overlay or check reaches its pods"
            )
        if self.reason == "missing":
            return f"{who} has no pod template at {shown}; no overlay or check reaches its pods"
        if self.reason == "elsewhere":
            return (
                f"{who} holds containers at {shown}, not where podfold "
                f"looks for the pods of {a_kind(self.kind or '')} "
                f"({', '.join(self.looked)}); no overlay or check reaches them"
            )
        if not self.kind:
            what = "it has no kind"
        elif self.api_version:
            group = api_group(self.api_version)
            of = f"of {short_repr(group, MAX_NAME, quoted=False)}" if group else "of the core group"
            what = f"podfold knows no kind {kind} {of}"
        else:
            what = f"podfold knows no kind {kind} (and it has no apiVersion)"
        return (
            f"{who} holds containers at {shown}, but {what}, so podfold "
            f"does not know where its pods are: no overlay or check reaches them; declare "
            f"the kind with a record in a --kinds file (`podfold kinds` lists the kinds "
            f"podfold knows)"
        )


#: Keys that hold a list of containers (Kubernetes' own, and a Spark driver's sidecars).
_CONTAINER_LISTS = frozenset(("containers", "initContainers", "ephemeralContainers", "sidecars"))
#: Keys that hold one container (a map with an ``image``): Argo's templates, say.
_ONE_CONTAINER = frozenset(("container", "script"))
_PULL_POLICIES = frozenset(("Always", "IfNotPresent", "Never"))


def _named_maps(value: Any, field: str) -> bool:
    """Whether ``value`` is a non-empty list of maps, each with the string ``field``."""
    return (
        is_seq(value)
        and len(value) > 0
        and all(is_map(item) and isinstance(item.get(field), str) for item in value)
    )


def _container_list(value: Any) -> bool:
    """A list of containers, image or not (a controller may fill it in): maps with a name
    or an image."""
    return (
        is_seq(value)
        and len(value) > 0
        and all(
            is_map(item)
            and (isinstance(item.get("name"), str) or isinstance(item.get("image"), str))
            for item in value
        )
    )


def _signals(node: Any) -> tuple[int, int]:
    """(strong, weak): what of a container (or of a pod's size) ``node`` has. Strong ones
    are lists and maps a container has (``env``, ``command``, ``resources``, ...) or a Spark
    pod's ``cores`` and ``memory``; no ConfigMap's data (all text) has one. Weak ones are
    text a container or a pod has (an ``image``, an ``imagePullPolicy``, a service account)."""
    strong = sum(
        (
            _named_maps(node.get("env"), "name"),
            _named_maps(node.get("volumeMounts"), "mountPath"),
            is_seq(node.get("ports"))
            and any(is_map(port) and "containerPort" in port for port in node.get("ports")),
            any(
                is_seq(node.get(key))
                and len(node.get(key)) > 0
                and all(isinstance(item, str) for item in node.get(key))
                for key in ("command", "args")
            ),
            is_seq(node.get("envFrom")) and len(node.get("envFrom")) > 0,
            is_map(node.get("resources"))
            and any(is_map(node["resources"].get(key)) for key in ("limits", "requests")),
            isinstance(node.get("cores"), (int, float))
            and not isinstance(node.get("cores"), bool)
            and isinstance(node.get("memory"), str),
        )
    )
    pull = node.get("imagePullPolicy")
    weak = sum(
        (
            isinstance(node.get("image"), str),
            isinstance(pull, str) and pull in _PULL_POLICIES,
            isinstance(node.get("serviceAccount"), str)
            or isinstance(node.get("serviceAccountName"), str),
        )
    )
    return strong, weak


def _looks_like_a_container(node: Any) -> bool:
    """A map with a container's fields (or a Spark driver's, an executor's: ``cores``,
    ``memory``, ``env``): two of them at least, one a list or a map."""
    strong, weak = _signals(node)
    return strong >= 1 and strong + weak >= 2


def _containers_in(value: Any, prefix: tuple[Part, ...]) -> list[str]:
    """Where ``value`` holds what looks like containers, as paths (see :func:`_container_parts`)."""
    return [str(Path(parts)) for parts in _container_parts(value, prefix)]


def _container_parts(value: Any, prefix: tuple[Part, ...]) -> list[tuple[Part, ...]]:
    """Where ``value`` holds what looks like containers: a ``containers`` list (or
    ``initContainers``, ``sidecars``, ...) of maps with a name or an image, one container
    (``container:`` or ``script:`` with an ``image``, as Argo's templates have), or a map
    with a container's fields (a Spark driver: ``cores``, ``memory``, ``env``). A walk
    bounded in depth and in the number of nodes visited."""
    found: list[tuple[Part, ...]] = []
    stack: list[tuple[Any, tuple[Part, ...]]] = [(value, prefix)]
    visited = 0
    while stack and visited < _WALK_NODES:
        node, where = stack.pop()
        visited += 1
        if len(where) - len(prefix) >= _WALK_DEPTH:
            continue
        if is_map(node):
            if where != prefix and _looks_like_a_container(node):
                found.append(where)
            children: list[tuple[Any, tuple[Part, ...]]] = []
            for key, item in node.items():
                if (key in _CONTAINER_LISTS and _container_list(item)) or (
                    key in _ONE_CONTAINER and is_map(item) and isinstance(item.get("image"), str)
                ):
                    found.append((*where, Key(str(key))))
                elif is_map(item) or is_seq(item):
                    children.append((item, (*where, Key(str(key)))))
            stack.extend(reversed(children))
        elif is_seq(node):
            stack.extend(
                (item, (*where, Index(position)))
                for position, item in reversed(list(enumerate(node)))
                if is_map(item) or is_seq(item)
            )
    return found


_TRAINER = "trainer.kubeflow.org"


def _unreached(
    document: Any, prefix: tuple[Part, ...], out: list[Unreached], registry: KindRegistry
) -> None:
    api_version = document.get("apiVersion")
    api_version = api_version if isinstance(api_version, str) else None
    entry = registry.lookup(document.get("kind"), api_version)
    if entry is not None and len(entry.locations) == 1 and entry.locations[0].holds == TEMPLATE:
        value = document  # the usual case, a Deployment or a Job: its one template is a map
        for part in entry.locations[0].path.parts:
            value = value.get(part.name) if type(part) is Key and is_map(value) else None
        if is_map(value):
            return
    kind = document.get("kind")
    kind = kind if isinstance(kind, str) else None
    if entry is None:
        if kind == "TrainJob" and api_group(api_version) == _TRAINER:
            runtime = _value_at(document, (Key("spec"), Key("runtimeRef"), Key("name")))
            out.append(
                Unreached(
                    kind,
                    document_name(document),
                    (),
                    "trainjob",
                    api_version=api_version,
                    runtime=runtime if isinstance(runtime, str) else None,
                )
            )
            return
        found = _container_parts(document, prefix)
        if found:
            places = [str(Path(parts)) for parts in found]
            out.append(
                Unreached(
                    kind,
                    document_name(document),
                    tuple(places[:_PLACES_SHOWN]),
                    "unknown-kind",
                    more=len(places) - _PLACES_SHOWN if len(places) > _PLACES_SHOWN else 0,
                    api_version=api_version,
                    record=_record_for(document, prefix, kind, api_version, found),
                )
            )
        return
    reached = False
    before = len(out)
    for location in entry.locations:
        for parts, value, _ in reach(document, location.path.parts, location):
            where = str(Path((*prefix, *parts))) or "the top level"
            if location.holds == DOCUMENT:
                if is_map(value):
                    _unreached(value, (*prefix, *parts), out, registry)
                continue
            if is_map(value):
                reached = True
            else:
                out.append(
                    Unreached(
                        kind, document_name(document), (where,), "not-a-map", found=kind_name(value)
                    )
                )
    if (
        reached
        or len(out) > before
        or any(location.holds == DOCUMENT for location in entry.locations)
    ):
        return
    looked = tuple(str(Path((*prefix, *location.path.parts))) for location in entry.locations)
    places = _containers_in(document, prefix)
    if places:
        out.append(
            Unreached(
                kind,
                document_name(document),
                tuple(places[:_PLACES_SHOWN]),
                "elsewhere",
                looked=looked,
                more=max(0, len(places) - _PLACES_SHOWN),
                api_version=api_version,
            )
        )
    elif len(entry.locations) == 1 and not any(
        type(part) is All for part in entry.locations[0].path.parts
    ):
        out.append(Unreached(kind, document_name(document), looked, "missing"))


def unreached_pods(document: Any, *, kinds: KindsLike | None = None) -> tuple[Unreached, ...]:
    """Pods of ``document`` that :func:`~transforms.kube.workloads.pod_templates` does not find, so that
    no overlay reaches them: a kind the table does not know that holds what
    looks like containers, image or not (a ``containers`` list of named
    maps, one ``container`` or ``script`` with an ``image``, a map with a
    container's fields such as a Spark driver's ``cores``, ``memory`` and
    ``env``; found by a walk bounded in depth and size), a known kind whose
    template is missing or not a map, and the same for workloads an
    AppWrapper or a List holds. A document with no pod in it gives ``()``.
    The kinds are the current registry's, or ``kinds``' (see
    :func:`~transforms.kube.registry.resolve_kinds`).

    >>> pipeline = {"apiVersion": "numaflow.numaproj.io/v1alpha1", "kind": "Pipeline",
    ...     "metadata": {"name": "simple"}, "spec": {"vertices": [
    ...         {"name": "in", "container": {"image": "busybox", "args": ["-c", "echo"]}}]}}
    >>> print(*unreached_pods(pipeline))
    Pipeline/simple (numaflow.numaproj.io/v1alpha1) holds containers at spec.vertices[0].container, but podfold knows no kind Pipeline of numaflow.numaproj.io, so podfold does not know where its pods are: no overlay or check reaches them; declare the kind with a record in a --kinds file (`podfold kinds` lists the kinds podfold knows)
    >>> print(*unreached_pods({"kind": "Deployment", "metadata": {"name": "web"},
    ...                        "spec": {"template": None}}))
    Deployment/web has null at spec.template, where its pod template (a map) belongs; no overlay or check reaches its pods
    >>> unreached_pods({"apiVersion": "v1", "kind": "Service", "spec": {"ports": []}})
    ()
    """
    if not is_map(document):
        return ()
    out: list[Unreached] = []
    _unreached(document, (), out, resolve_kinds(kinds))
    return tuple(out)


def likely_templates(document: Any) -> tuple[str, ...]:
    """Where ``document`` seems to keep pod templates: the maps whose ``spec.containers``
    the walk of :func:`unreached_pods` finds (for a kind podfold does not know, what
    to apply a pod-level overlay to).

    >>> likely_templates({"kind": "SparkApplication", "spec": {"driver": {"template": {
    ...     "spec": {"containers": [{"name": "spark-kubernetes-driver"}]}}}}})
    ('spec.driver.template',)
    """
    if not is_map(document):
        return ()
    suffix = ".spec.containers"
    return tuple(
        place[: -len(suffix)] for place in _containers_in(document, ()) if place.endswith(suffix)
    )


# what a pod template holds besides its spec; a map with more beside its ``spec`` (a Dask
# worker's replicas) keeps a bare pod spec there
_TEMPLATE_KEYS = frozenset(("metadata", "spec"))
_MAX_RECORD_PATH = 200
_NOT_A_ROLE = frozenset(("spec", "template", "podTemplate", "pod", "podSpec"))
_PLAIN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-/*\[\]]*$")


def _scalar(text: str) -> str:
    if _PLAIN.match(text) and text not in ("null", "true", "false"):
        return text
    import json  # a few ms, for the odd name quoted: not at start-up of every apply

    return json.dumps(text)


def _value_at(document: Any, parts: tuple[Part, ...]) -> Any:
    node = document
    for part in parts:
        if type(part) is Key and is_map(node):
            node = node.get(part.name)
        elif type(part) is Index and is_seq(node) and part.index < len(node):
            node = node[part.index]
        else:
            return None
    return node


def _place_of(document: Any, parts: tuple[Part, ...]) -> dict[str, Any] | None:
    """The record's place (``pods`` item) for containers at ``parts``, or ``None`` where no
    place reaches them: a list that is no pod spec's ``containers``, two lists on the way."""
    # a pod spec's containers: under a spec (a template's, a bare one: workerSpec, podSpec),
    # not a list of containers of another shape (Argo's containerSet, a KServe predictor's)
    if len(parts) < 2 or parts[-1] != Key("containers") or type(parts[-2]) is not Key:
        return None
    holder = parts[-2].name
    if holder != "spec" and not holder.endswith("Spec"):
        return None
    spec = parts[:-1]
    holds, where = "spec", spec
    if spec and spec[-1] == Key("spec"):
        around = _value_at(document, spec[:-1])
        if not spec[:-1]:
            holds, where = "pod", ()
        elif is_map(around) and set(around) <= _TEMPLATE_KEYS:
            holds, where = "template", spec[:-1]
    if sum(type(part) is Index for part in where) > 1:
        return None
    place: dict[str, Any] = {
        "path": str(Path(tuple(All() if type(part) is Index else part for part in where)))
    }
    if holds != "template":
        place["holds"] = holds
    for number, part in enumerate(where):
        if type(part) is Index:
            element = _value_at(document, where[: number + 1])
            if is_map(element) and isinstance(element.get("name"), str):
                place["roleField"] = "name"
    return place


def _record_for(
    document: Any,
    prefix: tuple[Part, ...],
    kind: str | None,
    api_version: str | None,
    found: list[tuple[Part, ...]],
) -> str:
    if not kind or len(kind) > MAX_NAME or len(api_version or "") > MAX_NAME:
        return ""  # a record is to read and paste: none for names past a message's bound
    places: list[dict[str, Any]] = []
    for parts in found:
        place = _place_of(document, parts[len(prefix) :])
        if place is not None and len(place["path"]) <= _MAX_RECORD_PATH and place not in places:
            places.append(place)
    if not places:
        return ""
    if len(places) > 1:  # a role for each fixed place: the key that names it
        for place in places:
            if "roleField" not in place:
                keys = [part for part in place["path"].split(".") if part and "[" not in part]
                named = [key for key in keys if key not in _NOT_A_ROLE]
                if named and named[-1] != "spec":
                    place["role"] = named[-1]
    lines = []
    if api_version:
        group = api_group(api_version)
        lines.append(f"- apiVersion: {_scalar(f'{group}/*' if group else api_version)}")
        lines.append(f"  kind: {_scalar(kind)}")
    else:
        lines.append(f"- kind: {_scalar(kind)}")
    lines.append("  pods:")
    for place in places:
        first = True
        for key, value in place.items():
            lines.append(f"    {'- ' if first else '  '}{key}: {_scalar(value)}")
            first = False
    return "\n".join(lines) + "\n"


def suggested_record(document: Any, *, kinds: KindsLike | None = None) -> str:
    """The kind record, as YAML ready for a ``--kinds`` file, that reaches the containers
    of a document of a kind the registry does not know; ``""`` for none.

    >>> widget = {"apiVersion": "example.com/v1", "kind": "Widget",
    ...     "metadata": {"name": "hello"}, "spec": {"parts": [{"name": "engine", "template": {
    ...         "spec": {"containers": [{"name": "user", "image": "hello:1"}]}}}]}}
    >>> print(suggested_record(widget), end="")
    - apiVersion: example.com/*
      kind: Widget
      pods:
        - path: spec.parts[*].template
          roleField: name
    """
    return next(
        (found.record for found in unreached_pods(document, kinds=kinds) if found.record), ""
    )
