"""Overlays folded into a flytekit ``PodTemplate``, for ``@task(pod_template=...)``.

Flyte runs a task's code in the pod's *primary* container (named
``primary`` unless the template says otherwise) and fills that container's
image, command, arguments and resources itself. :func:`pod_template` folds
podfold overlays over a base template (or nothing), in the order given, and
hands back a new flytekit ``PodTemplate``:

- the primary container is there, first in ``spec.containers``: added (name
  only, no image) where the base has none, moved to the front where the base
  has it elsewhere. Recipes that act on "the main container"
  (``container=None``) act on ``spec.containers[0]``, so they reach the
  primary one; Flyte finds containers by name, so their order is free;
- what the base already holds is not written twice: recipes add a
  toleration, an env var, a volume or a mount only where it is missing
  (unlike Flyte's backend merge, which appends every list again);
- the base is never changed: a ``PodTemplate`` and its ``V1PodSpec`` are
  mutable, and come out as they went in;
- the result is checked as the TorchX fold checks pods (schema and
  references), except that the primary container may lack an image; a
  field written in the client's snake_case (``node_selector``), which the
  client would drop without a word, is an error naming it.

>>> from combinators import append_at, upsert
>>> template = pod_template(upsert("spec.nodeSelector", {"pool": "a100"}),
...                         upsert("spec.containers[0].workingDir", "/app"))
>>> template.primary_container_name, template.pod_spec.node_selector
('primary', {'pool': 'a100'})
>>> template.pod_spec.containers[0].name, template.pod_spec.containers[0].working_dir
('primary', '/app')
>>> gpu = append_at("spec.tolerations", {"key": "gpu", "operator": "Exists"}, unique=True)
>>> once = pod_template(gpu)
>>> pod_template(gpu, base=once).pod_spec.tolerations == once.pod_spec.tolerations
True
"""

from __future__ import annotations

import os
import re
import warnings
from typing import TYPE_CHECKING, Any

from combinators import Transform, TransformError
from combinators.data import copy_plain, is_map, is_seq
from combinators.errors import ArgumentError, ArgumentTypeError
from combinators.transform import describe_step
from transforms.checks.validation import PodValidationError
from transforms.forms.macros import macros_written
from transforms.io.normalize import OverlayLike, as_transform
from transforms.kube.containers import MainContainer
from transforms.kube.convert import to_client, to_data

if TYPE_CHECKING:  # flytekit is imported on first use: it takes seconds to load
    from flytekit import PodTemplate

__all__ = ("FlyteTemplateError", "pod_template", "DEFAULT_PRIMARY")

DEFAULT_PRIMARY = "primary"
"""The name flytekit gives the primary container when a template names none."""

_FACTORY = "pod_template"
_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
# What a flytekit PodTemplate can carry of a pod's metadata; apiVersion and kind
# say nothing a template needs, and are dropped.
_METADATA_KEPT = ("labels", "annotations")
_TOP_DROPPED = ("apiVersion", "kind")


class FlyteTemplateError(TransformError, ValueError):
    """What the overlays made cannot become a flytekit ``PodTemplate``, or lost its primary container.

    ``where`` is the path at fault (``metadata.name``), ``overlay`` the
    number (from 1) of the overlay that left it so, ``None`` for the base.

    >>> print(FlyteTemplateError("metadata.name", "a flytekit PodTemplate keeps only labels and "
    ...                          "annotations of metadata", overlay=2))
    metadata.name: a flytekit PodTemplate keeps only labels and annotations of metadata (after overlay 2)
    """

    def __init__(self, where: str, message: str, *, overlay: int | None = None) -> None:
        super().__init__(message)
        self.where = where
        self.overlay = overlay

    def __str__(self) -> str:
        after = "the base" if self.overlay is None else f"overlay {self.overlay}"
        text = f"{self.where}: {self.message} (after {after})"
        if self.steps:
            text += " [in " + " > ".join(self.steps) + "]"
        return text


def _check_name(name: object) -> str:
    if not isinstance(name, str):
        raise ArgumentTypeError(
            f"must be a container name (a string), found {type(name).__name__} {name!r}",
            argument="primary_container_name",
            factory=_FACTORY,
            value=name,
        )
    if len(name) > 63 or not _DNS_LABEL.match(name):
        raise ArgumentError(
            f"must be a container name (lower-case letters, digits and '-', "
            f"at most 63), got {name!r}",
            argument="primary_container_name",
            factory=_FACTORY,
            value=name,
        )
    return name


def _is_flytekit_template(value: Any) -> bool:
    cls = type(value)
    return cls.__name__ == "PodTemplate" and cls.__module__.startswith("flytekit")


def _client_name(value: Any) -> str | None:
    cls = type(value)
    if hasattr(cls, "attribute_map") and cls.__module__.startswith("kubernetes"):
        return cls.__name__
    return None


def _base_parts(base: Any) -> tuple[dict[str, Any], dict[str, Any], str | None]:
    """The base's metadata and spec as fresh API-form data, and the primary name it declares."""
    if base is None:
        return {}, {}, None
    if _is_flytekit_template(base):
        metadata = {
            key: dict(value)
            for key, value in (("labels", base.labels), ("annotations", base.annotations))
            if value
        }
        spec = {} if base.pod_spec is None else to_data(base.pod_spec)
        return metadata, spec, base.primary_container_name
    client = _client_name(base)
    if client in ("V1PodTemplateSpec", "V1Pod"):
        data = to_data(base)
        return dict(data.get("metadata") or {}), dict(data.get("spec") or {}), None
    if client == "V1PodSpec":
        return {}, to_data(base), None
    if is_map(base):
        data = copy_plain(base)
        if data.get("kind") == "PodTemplate":  # the cluster-side object: its template
            data = data.get("template") or {}
        if not is_map(data.get("metadata", {})) or not is_map(data.get("spec", {})):
            raise ArgumentTypeError(
                "base: a map must be a pod template in API form ({metadata: ..., spec: ...})",
                argument="base",
                factory=_FACTORY,
                value=base,
            )
        return dict(data.get("metadata") or {}), dict(data.get("spec") or {}), None
    raise ArgumentTypeError(
        f"expected a flytekit PodTemplate, a kubernetes V1PodTemplateSpec "
        f"or V1PodSpec, a pod template in API form or None, found "
        f"{type(base).__name__}",
        argument="base",
        factory=_FACTORY,
        value=base,
    )


def _primary_name(asked: str | None, declared: str | None, spec: dict[str, Any]) -> str:
    """The primary container's name: ``asked``, else the one the base ``declared``.

    flytekit names a template's primary container ``primary`` unless told
    otherwise, and cannot say which it was. So a base that declares that name
    but holds no container of it has no primary container to keep: it takes
    the name asked for (a PyTorchJob's master must be named ``pytorch``).
    """
    if asked is None:
        return declared or DEFAULT_PRIMARY
    name = _check_name(asked)
    if declared is None or declared == name:
        return name
    containers = spec.get("containers") or []
    held = is_seq(containers) and any(
        is_map(item) and item.get("name") == declared for item in containers
    )
    if declared == DEFAULT_PRIMARY and not held:
        return name
    if declared == DEFAULT_PRIMARY:
        why, fix = (
            "a container of the base has flytekit's default name",
            f"rename the base's container {declared!r} first",
        )
    else:
        why, fix = (
            "the base's primary_container_name",
            f"build the base with primary_container_name={name!r}",
        )
    raise ArgumentError(
        f"the base's primary container is {declared!r} ({why}), not {name!r}: "
        f"leave primary_container_name out, or {fix}",
        argument="primary_container_name",
        factory=_FACTORY,
        value=asked,
    )


def _primary_first(spec: dict[str, Any], name: str) -> dict[str, Any]:
    """``spec`` with the container ``name`` first in ``containers`` (a bare one if missing)."""
    containers = spec.get("containers") or []
    if not is_seq(containers):
        raise FlyteTemplateError(
            "spec.containers", f"expected a list of containers, found {type(containers).__name__}"
        )
    others = [item for item in containers if not (is_map(item) and item.get("name") == name)]
    found = [item for item in containers if is_map(item) and item.get("name") == name]
    if len(found) > 1:
        raise FlyteTemplateError(
            f"spec.containers[name={name}]", f"{len(found)} containers are named {name!r}"
        )
    return {**spec, "containers": [found[0] if found else {"name": name}, *others]}


def _label(overlay: object, transform: Transform) -> str:
    if isinstance(overlay, (str, os.PathLike)):
        return os.fspath(overlay) if isinstance(overlay, os.PathLike) else overlay
    return describe_step(transform)


def _check_shape(pod: Any, primary: MainContainer, overlay: int | None) -> None:
    """Refuse what a flytekit PodTemplate cannot carry, and a lost primary container."""
    if not is_map(pod):
        raise FlyteTemplateError(
            "(root)", f"expected a pod (a map), found {type(pod).__name__}", overlay=overlay
        )
    for key in pod:
        if key not in ("metadata", "spec", *_TOP_DROPPED):
            raise FlyteTemplateError(
                key,
                "a flytekit PodTemplate holds a pod's spec, labels and annotations only",
                overlay=overlay,
            )
    metadata = pod.get("metadata") or {}
    for key in metadata if is_map(metadata) else ():
        if key not in _METADATA_KEPT:
            raise FlyteTemplateError(
                f"metadata.{key}",
                "a flytekit PodTemplate keeps only labels and annotations of metadata",
                overlay=overlay,
            )
    spec = pod.get("spec")
    containers = spec.get("containers") if is_map(spec) else None
    names = [item.get("name") for item in containers or () if is_map(item)]
    if primary.name not in names:
        raise FlyteTemplateError(
            str(primary.path()),
            f"the primary container is gone; "
            f"containers are: {', '.join(map(str, names)) or '(none)'}",
            overlay=overlay,
        )


def _validate(
    pods: list[Any],
    steps: list[tuple[str, Transform]],
    primary: MainContainer,
    k8s_version: str | None,
) -> None:
    """Validate the last of ``pods`` (the base, then the pod after each overlay) with the
    run (:func:`transforms.run.run`); an error names the overlays that wrote the values
    found wrong, where they can be told."""
    from transforms.run import Checks, Overlays, given, run

    # one step an overlay, named by its label: a writer's step is the overlay's number
    overlays = Overlays([given(transform, label) for label, transform in steps])
    checks = Checks(validate=True, k8s_version=k8s_version, only_new=False)
    done = run(overlays, pods[0], checks, after=pods[-1])
    # Flyte fills the primary container's image: only that one may lack one
    exempt = f"{primary.path()}.image"
    errors = [
        found
        for found in done.findings
        if found.severity == "error"
        and not (found.found.rule == "container-images" and found.path == exempt)
    ]
    if not errors:
        return
    writers = sorted(
        {
            number
            for found in errors
            if found.writers
            and (number := max(found.writers, key=lambda blame: blame.step or 0).step) is not None
        }
    )
    labels = [label for label, _ in steps]
    if len(writers) == 1:
        (number,) = writers
        where = f"{_FACTORY}() overlay {number} of {len(labels)}: {labels[number - 1]}"
    elif writers:
        where = f"{_FACTORY}() overlays {', '.join(map(str, writers))} of {len(labels)}"
    else:
        where = f"{_FACTORY}()"
    raise PodValidationError([found.found for found in errors]).with_step(where)


def _flytekit_template() -> Any:
    try:
        from flytekit import PodTemplate as template_class
    except ImportError as err:  # pragma: no cover - the extra is installed wherever tests run
        raise ImportError("transforms.flyte needs flytekit: pip install 'podfold[flyte]'") from err
    return template_class


def pod_template(
    *overlays: OverlayLike,
    base: Any = None,
    primary_container_name: str | None = None,
    validate: bool = True,
    k8s_version: str | None = None,
) -> PodTemplate:
    """A new flytekit ``PodTemplate``: ``overlays`` folded, in order, over ``base``.

    ``overlays`` are anything :func:`~transforms.io.as_transform` takes
    (transforms, recipes, partial pods, YAML paths, functions); they act on a
    pod (``metadata`` and ``spec``), whose labels and annotations become the
    template's. ``base`` is a flytekit ``PodTemplate``, a kubernetes
    ``V1PodTemplateSpec`` or ``V1PodSpec``, a pod template in API form (or a
    ``kind: PodTemplate`` object), or ``None``; it is left untouched, and
    what it holds is kept. ``primary_container_name`` defaults to the base
    template's, else ``"primary"``; the primary container is placed first. A
    base that names another primary container refuses a different name, unless
    its name is flytekit's default and no container of the base has it (as in
    ``PodTemplate()``): then the name given is taken, ``pytorch`` for a PyTorchJob.
    With ``validate`` (the default) the result is checked against the
    ``k8s_version`` schema. Any failure is a :class:`~combinators.TransformError`
    naming the overlay (its number and what it is) and the path.

    >>> from kubernetes.client import V1Container, V1PodSpec, V1Toleration
    >>> from flytekit import PodTemplate
    >>> base = PodTemplate(pod_spec=V1PodSpec(containers=[V1Container(name="primary")],
    ...     tolerations=[V1Toleration(key="nvidia.com/gpu", operator="Exists")]), labels={"team": "ml"})
    >>> gpu = {"metadata": {"labels": {"pool": "a100"}}, "spec": {"runtimeClassName": "nvidia"}}
    >>> template = pod_template(gpu, base=base)
    >>> template.labels, template.pod_spec.runtime_class_name, len(template.pod_spec.tolerations)
    ({'team': 'ml', 'pool': 'a100'}, 'nvidia', 1)
    >>> base.labels, base.pod_spec.runtime_class_name
    ({'team': 'ml'}, None)
    >>> pod_template({"spec": {"node_selector": {"pool": "a100"}}})
    Traceback (most recent call last):
      ...
    transforms.checks.problems.PodValidationError: pod is invalid (1 problem):
      spec.node_selector: unknown field spec.node_selector; did you mean nodeSelector? [in pod_template() overlay 1 of 1: overlay({'spec': {'node_selector': {'pool': 'a100'}}})]
    """
    metadata, spec, declared = _base_parts(base)
    primary = MainContainer.named(_primary_name(primary_container_name, declared, spec))
    name = primary.name
    assert name is not None
    steps: list[tuple[str, Transform]] = []
    for number, overlay in enumerate(overlays, 1):
        try:
            transform = as_transform(overlay)
        except TransformError as err:
            raise err.with_step(f"{_FACTORY}() overlay {number} of {len(overlays)}") from None
        steps.append((_label(overlay, transform), transform))
    pod: Any = {"spec": _primary_first(spec, name)}
    if metadata:
        pod = {"metadata": metadata, **pod}
    _check_shape(pod, primary, None)
    pods = [pod]  # after each overlay: what a validation error is traced back through
    for number, (label, transform) in enumerate(steps, 1):
        try:
            pod = transform(pod)
        except TransformError as err:
            raise err.with_step(f"{_FACTORY}() overlay {number} of {len(steps)}: {label}") from None
        _check_shape(pod, primary, number)
        pods.append(pod)
    if validate:
        _validate(pods, steps, primary, k8s_version)
    macros = macros_written(pod, pods[0])
    if macros:
        warnings.warn(
            f"{_FACTORY}(): the overlays write the TorchX macro"
            f"{'s' if len(macros) > 1 else ''} {', '.join(sorted(macros))}, which only "
            f"TorchX substitutes; Flyte leaves it as text",
            stacklevel=2,
        )
    result = pod.get("metadata") or {}
    labels, annotations = result.get("labels"), result.get("annotations")
    return _flytekit_template()(
        pod_spec=to_client(pod["spec"], "V1PodSpec"),
        primary_container_name=name,
        labels=dict(labels) if labels else None,
        annotations=dict(annotations) if annotations else None,
    )
