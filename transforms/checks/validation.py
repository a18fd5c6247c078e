"""Validate a pod (API form) against the official schema and its own references, fast.

Two kinds of checks, both in one call to :func:`problems`:

* **schema** (:mod:`transforms.checks.schema_check`): unknown fields (with a
  suggestion), wrong JSON types, enum values, missing required fields,
  int-or-string values and quantities (``"2Gi"``, ``"500m"``; not
  ``"2 GB"``), 32/64-bit integer ranges;
* **references** (:mod:`transforms.checks.references`, one rule per module in
  :mod:`transforms.checks.rules`): every volumeMount names a volume;
  container names are unique across containers, initContainers and
  ephemeralContainers; volume names are unique; every container has an
  image; no resource request exceeds its limit (``"1Gi"`` equals
  ``"1024Mi"``); and the API server's own checks the schema cannot express:
  DNS-1123 names, one volume per mount path, port names and numbers, env
  names and sources, one handler per probe, resource names, tolerations,
  labels, DNS settings. Where the API server accepts and only warns (an env
  name set twice, a containerPort declared twice), the problem is a *warning*.

>>> pod = {"spec": {"containers": [{"name": "trainer", "image": "x",
...        "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}]}],
...        "node_selector": {"gpu": "a100"}}}
>>> for problem in problems(pod):
...     print(problem)
spec.node_selector: unknown field spec.node_selector; did you mean nodeSelector?
spec.containers[name=trainer].volumeMounts[name=dshm].name: no volume named 'dshm'; volumes are: (none)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from combinators.errors import NestingError
from combinators.limits import MAX_DEPTH
from combinators.paths import Index, Key, Part, Path
from transforms.checks.problems import PodValidationError, Problem, Raw, render_all
from transforms.checks.references import references_of
from transforms.checks.schema_check import checker_for
from transforms.kube.convert import to_data
from transforms.kube.kinds import check_kind
from transforms.kube.quantity import quantity_value as parse_quantity
from transforms.kube.schema import schema_for

__all__ = (
    "Problem",
    "PodValidationError",
    "problems",
    "validate_pod",
    "parse_quantity",
    "without_filled_in",
)


def _thaw(value: Any, trail: Any = None, depth: int = 0) -> Any:
    """Plain dicts and lists of ``value`` (pyrsistent's, or other mappings and sequences),
    refused past :data:`~combinators.limits.MAX_DEPTH` levels with the path where
    (``trail`` is ``(parent trail, key)`` pairs, built into a path only then)."""
    if isinstance(value, Mapping) or (
        isinstance(value, Sequence) and not isinstance(value, (str, bytes))
    ):
        if depth >= MAX_DEPTH:
            parts: list[Part] = []
            while trail is not None:
                trail, key = trail
                parts.append(Index(key) if type(key) is int else Key(str(key)))
            path = Path(tuple(reversed(parts)))
            raise NestingError(
                f"the pod nests deeper than {MAX_DEPTH} levels at "
                f"{path if parts else 'its top'}; refused",
                path=path,
            )
        depth += 1
        if isinstance(value, Mapping):
            return {key: _thaw(item, (trail, key), depth) for key, item in value.items()}
        return [_thaw(item, (trail, index), depth) for index, item in enumerate(value)]
    return value


def _as_plain(pod: Any, kind: str, version: str) -> Any:
    if not isinstance(pod, Mapping):
        if hasattr(type(pod), "attribute_map"):  # a kubernetes client object
            return to_data(pod)
        if hasattr(pod, "to_dict"):
            return to_data(pod.to_dict(), kind, k8s_version=version)
    return _thaw(pod)


def problems(pod: Any, *, kind: str = "Pod", k8s_version: str | None = None) -> list[Problem]:
    """Every problem of ``pod`` (API form), errors and warnings: schema ones first.

    A kubernetes client object (``V1Pod``) is checked in its API form
    (:func:`~transforms.kube.convert.to_data`), other mappings and sequences
    (pyrsistent's) as plain data. ``kind`` is ``"Pod"``, ``"PodSpec"`` or ``"PodTemplateSpec"``;
    ``k8s_version`` picks the schema (default the newest bundled). Paths
    name list elements by ``[name=...]`` when their name is unique, else by index.

    >>> problems({"spec": {"containers": [{"name": "c", "image": "x",
    ...     "resources": {"requests": {"memory": "2Gi"}, "limits": {"memory": "1024Mi"}}}]}})
    [Problem(path='spec.containers[name=c].resources.requests.memory', message='request 2Gi for memory exceeds its limit 1024Mi', found='2Gi', severity='error', check='reference', rule='requests-within-limits')]
    >>> problems({"containers": [{"name": "c", "ports": [{"containerPort": "80"}]}]}, kind="PodSpec")[0].message
    "expected integer, found string '80'"
    """
    schema = schema_for(k8s_version)
    check = checker_for(schema.version, check_kind(kind, factory="problems"))
    if type(pod) is not dict:
        pod = _as_plain(pod, kind, schema.version)
    out: list[Raw] = []
    check(pod, None, None, out)
    found = render_all(pod, out, "schema")
    if type(pod) is dict:
        if kind != "PodSpec" and not isinstance(pod.get("spec"), Mapping):
            # the schema lets spec out, the API server does not: a pod runs containers
            found.append(
                Problem(
                    "spec",
                    "a pod needs a spec, with its containers; found "
                    + ("none" if pod.get("spec") is None else "no map"),
                    pod.get("spec"),
                )
            )
        found += references_of(pod, kind, schema.version)
    return found


def validate_pod(pod: Any, *, kind: str = "Pod", k8s_version: str | None = None) -> Any:
    """Return ``pod`` itself if it has no errors, else raise :class:`PodValidationError`.

    Warnings (an env name set twice) do not raise. Accepts what
    :func:`problems` accepts and gives back the very object it was given.

    >>> pod = {"spec": {"containers": [{"name": "c", "image": "x"}]}}
    >>> validate_pod(pod) is pod
    True
    >>> try:
    ...     validate_pod({"spec": {"containers": [{"image": "x"}]}})
    ... except PodValidationError as err:
    ...     print(err)
    pod is invalid (1 problem):
      spec.containers[0].name: missing required field name
    """
    errors = [
        found
        for found in problems(pod, kind=kind, k8s_version=k8s_version)
        if found.severity == "error"
    ]
    if errors:
        raise PodValidationError(errors)
    return pod


def _filled_here(pattern: tuple[Part, ...], parts: tuple[Part, ...], spec: Any) -> bool:
    """Whether the problem's ``parts`` (keys, indexes, name matches) are a place the
    filled-in ``pattern`` (keys, indexes, ``[*]``, matches) names in ``spec``."""
    from combinators.paths import All, Match

    if len(pattern) != len(parts):
        return False
    node = spec
    for want, part in zip(pattern, parts, strict=True):
        if type(part) is Key:
            if type(want) is not Key or want.name != part.name:
                return False
            node = node.get(part.name) if isinstance(node, Mapping) else None
            continue
        if not isinstance(node, Sequence) or isinstance(node, (str, bytes)):
            return False
        if type(part) is Index:
            index = part.index
        elif type(part) is Match:
            index = next((i for i, each in enumerate(node) if part.matches(each)), -1)
        else:
            return False
        if not 0 <= index < len(node):
            return False
        element = node[index]
        if type(want) is Index:
            if want.index != index:
                return False
        elif type(want) is Match:
            if not want.matches(element):
                return False
        elif type(want) is not All:
            return False
        node = element
    return True


def _absent_or_foreign(problem: Problem) -> bool:
    """Whether ``problem`` is of a value missing (a required field, a container's image)
    or of a field a pod has not: what a controller that fills a path in, or takes it
    away, makes right."""
    if problem.rule == "container-images":
        return True
    return problem.check == "schema" and (
        problem.message.startswith("missing required field")
        or problem.message.startswith("unknown field")
    )


def without_filled_in(
    found: list[Problem], pod: Any, filled_in: Sequence[Any], *, kind: str = "Pod"
) -> list[Problem]:
    """``found`` (the problems of ``pod``, of ``kind``) without those a kind's controller
    makes right: a value missing, or a field none of a pod's, at one of the
    ``filled_in`` paths (:class:`~transforms.kube.records.FilledIn`, relative to the pod
    spec). A value there is checked as ever.

    >>> from combinators import path
    >>> from transforms.kube.records import FilledIn
    >>> spec = {"containers": [{"name": "kserve-container"}, {"name": "side"}]}
    >>> found = problems(spec, kind="PodSpec")
    >>> [str(problem) for problem in found]
    ['containers[name=kserve-container].image: a container of a pod needs an image', 'containers[name=side].image: a container of a pod needs an image']
    >>> filled = [FilledIn(path("containers[0].image"), "KServe gives it the runtime's")]
    >>> [str(problem) for problem in without_filled_in(found, spec, filled, kind="PodSpec")]
    ['containers[name=side].image: a container of a pod needs an image']
    """
    if not filled_in or not found:
        return found
    from combinators.errors import TransformError
    from combinators.paths import path

    spec = pod if kind == "PodSpec" else (pod.get("spec") if isinstance(pod, Mapping) else None)
    if not isinstance(spec, Mapping):
        return found
    out = []
    for problem in found:
        if _absent_or_foreign(problem):
            try:
                parts = path(problem.path).parts
            except TransformError:
                parts = ()
            if kind != "PodSpec":
                parts = parts[1:] if parts[:1] == (Key("spec"),) else ()
            if parts and any(_filled_here(filled.path.parts, parts, spec) for filled in filled_in):
                continue
        out.append(problem)
    return out
