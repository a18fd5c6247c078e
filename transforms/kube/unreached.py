"""Pods no overlay reaches: what a document holds that :func:`~transforms.kube.workloads.pod_templates`
does not find, so that podfold can say so rather than pass it by in silence.

>>> print(*unreached_pods({"kind": "Deployment", "metadata": {"name": "web"},
...                        "spec": {"template": None}}))
Deployment/web has null at spec.template, where its pod template (a map) belongs; no overlay or check reaches its pods
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from combinators.data import is_map, is_seq, kind_name
from combinators.limits import MAX_NAME, short_repr
from combinators.paths import All, Index, Key, Part, Path
from transforms.kube.records import DOCUMENT, TEMPLATE, reach
from transforms.kube.table import a_kind, document_name, workload_kind

__all__ = ("Unreached", "unreached_pods", "likely_templates")

_WALK_DEPTH = 24
"""How deep :func:`unreached_pods` looks for containers in a document it cannot place."""
_WALK_NODES = 20_000
"""How many maps and lists it visits at most, per document."""
_PLACES_SHOWN = 3


@dataclass(frozen=True)
class Unreached:
    """Pods of a document that no overlay (and no check) reaches, and why.

    ``kind`` and ``name`` are the workload's; ``places`` where its containers
    (or the value that should be a pod template) are; ``reason`` is
    ``"unknown-kind"`` (a kind the table does not have), ``"not-a-map"``
    (its template is ``found``, not a map), ``"missing"`` (it has no
    template), or ``"elsewhere"`` (a known kind, whose containers are not
    where the table looks); ``looked`` says where the table looks.
    """

    kind: str | None
    name: str | None
    places: tuple[str, ...]
    reason: str
    found: str = ""
    looked: tuple[str, ...] = ()
    more: int = 0

    def __str__(self) -> str:
        # the document's own kind, name and keys: each written short
        kind = short_repr(self.kind, MAX_NAME, quoted=False) if self.kind else ""
        name = short_repr(self.name, MAX_NAME, quoted=False) if self.name else "(unnamed)"
        who = f"{kind or '(no kind)'}/{name}"
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
        what = f"{kind} is not one of the kinds podfold knows" if self.kind else "it has no kind"
        return (
            f"{who} holds containers at {shown}, but {what}, so podfold "
            f"does not know where its pods are: no overlay or check reaches them (the "
            f"kinds podfold knows: `podfold apply --help`)"
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
    """Where ``value`` holds what looks like containers: a ``containers`` list (or
    ``initContainers``, ``sidecars``, ...) of maps with a name or an image, one container
    (``container:`` or ``script:`` with an ``image``, as Argo's templates have), or a map
    with a container's fields (a Spark driver: ``cores``, ``memory``, ``env``). A walk
    bounded in depth and in the number of nodes visited."""
    found: list[str] = []
    stack: list[tuple[Any, tuple[Part, ...]]] = [(value, prefix)]
    visited = 0
    while stack and visited < _WALK_NODES:
        node, where = stack.pop()
        visited += 1
        if len(where) - len(prefix) >= _WALK_DEPTH:
            continue
        if is_map(node):
            if where != prefix and _looks_like_a_container(node):
                found.append(str(Path(where)))
            children: list[tuple[Any, tuple[Part, ...]]] = []
            for key, item in node.items():
                if (key in _CONTAINER_LISTS and _container_list(item)) or (
                    key in _ONE_CONTAINER and is_map(item) and isinstance(item.get("image"), str)
                ):
                    found.append(str(Path((*where, Key(str(key))))))
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


def _unreached(document: Any, prefix: tuple[Part, ...], out: list[Unreached]) -> None:
    entry = workload_kind(document.get("kind"), document.get("apiVersion"))
    if entry is not None and len(entry.locations) == 1 and entry.locations[0].holds == TEMPLATE:
        value = document  # the usual case, a Deployment or a Job: its one template is a map
        for part in entry.locations[0].path.parts:
            value = value.get(part.name) if type(part) is Key and is_map(value) else None
        if is_map(value):
            return
    kind = document.get("kind")
    kind = kind if isinstance(kind, str) else None
    if entry is None:
        places = _containers_in(document, prefix)
        if places:
            out.append(
                Unreached(
                    kind,
                    document_name(document),
                    tuple(places[:_PLACES_SHOWN]),
                    "unknown-kind",
                    more=len(places) - _PLACES_SHOWN if len(places) > _PLACES_SHOWN else 0,
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
                    _unreached(value, (*prefix, *parts), out)
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
            )
        )
    elif len(entry.locations) == 1 and not any(
        type(part) is All for part in entry.locations[0].path.parts
    ):
        out.append(Unreached(kind, document_name(document), looked, "missing"))


def unreached_pods(document: Any) -> tuple[Unreached, ...]:
    """Pods of ``document`` that :func:`~transforms.kube.workloads.pod_templates` does not find, so that
    no overlay reaches them: a kind the table does not know that holds what
    looks like containers, image or not (a ``containers`` list of named
    maps, one ``container`` or ``script`` with an ``image``, a map with a
    container's fields such as a Spark driver's ``cores``, ``memory`` and
    ``env``; found by a walk bounded in depth and size), a known kind whose
    template is missing or not a map, and the same for workloads an
    AppWrapper or a List holds. A document with no pod in it gives ``()``.

    >>> workflow = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow",
    ...     "metadata": {"name": "hello"}, "spec": {"templates": [
    ...         {"name": "main", "container": {"image": "busybox"}},
    ...         {"name": "pod", "podSpecPatch": "", "containerSet": {
    ...             "containers": [{"name": "a", "image": "busybox"}]}}]}}
    >>> print(*unreached_pods(workflow))
    Workflow/hello holds containers at spec.templates[0].container, spec.templates[1].containerSet.containers, but Workflow is not one of the kinds podfold knows, so podfold does not know where its pods are: no overlay or check reaches them (the kinds podfold knows: `podfold apply --help`)
    >>> print(*unreached_pods({"kind": "Deployment", "metadata": {"name": "web"},
    ...                        "spec": {"template": None}}))
    Deployment/web has null at spec.template, where its pod template (a map) belongs; no overlay or check reaches its pods
    >>> unreached_pods({"apiVersion": "v1", "kind": "Service", "spec": {"ports": []}})
    ()
    """
    if not is_map(document):
        return ()
    out: list[Unreached] = []
    _unreached(document, (), out)
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
