"""The root kinds: the objects a pod overlay, a check or a patch can start from.

A pod can be given whole (``Pod``), as its spec (``PodSpec``, what a Flyte or
a Volcano task template holds) or as a template (``PodTemplateSpec``, what a
Deployment or a Job holds). Their schema types carry the same names.

>>> ROOT_KINDS
('Pod', 'PodSpec', 'PodTemplateSpec')
>>> check_kind("PodSpec")
'PodSpec'

Anything else is not a pod: :func:`check_pod_document` refuses, where a
pod-level overlay starts, a workload document (a Deployment, a PyTorchJob:
their pods are in templates, which :mod:`transforms.kube.workloads` finds)
and the snake_case dict a kubernetes client object's ``to_dict()`` returns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from combinators.errors import ArgumentError, ArgumentTypeError, TransformError
from combinators.limits import short_repr

__all__ = ("ROOT_KINDS", "check_kind", "WorkloadKindError", "ClientDictError", "check_pod_document")

#: The kinds podfold knows how to start from, outermost first.
ROOT_KINDS: tuple[str, ...] = ("Pod", "PodSpec", "PodTemplateSpec")

# The kubernetes client's classes for the root kinds: their objects are pods.
_CLIENT_PODS = frozenset({"V1Pod", "V1PodSpec", "V1PodTemplateSpec"})


def check_kind(kind: object, *, argument: str = "kind", factory: str | None = None) -> str:
    """``kind`` if it is one of :data:`ROOT_KINDS`, else an :class:`ArgumentError` naming ``argument``.

    >>> check_kind("Deployment", factory="problems")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: problems(): kind: unknown kind 'Deployment'; expected one of: Pod, PodSpec, PodTemplateSpec
    """
    if type(kind) is str and kind in ROOT_KINDS:
        return kind
    error = ArgumentError if isinstance(kind, str) else ArgumentTypeError
    raise error(
        f"unknown kind {short_repr(kind)}; expected one of: {', '.join(ROOT_KINDS)}",
        argument=argument,
        factory=factory,
        value=kind,
    )


class WorkloadKindError(TransformError, TypeError):
    """A pod-level overlay was given a document that is not a pod (a Deployment, say).

    ``kind`` and ``name`` name the document, ``overlay`` the overlay.
    """

    def __init__(self, message: str, *, kind: str, name: str | None, overlay: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.name = name
        self.overlay = overlay


class ClientDictError(TransformError, TypeError):
    """A pod-level overlay was given a kubernetes client object's ``to_dict()`` output.

    ``key`` is the snake_case key that gave it away (``api_version``, ``node_selector``).
    """

    def __init__(self, message: str, *, key: str, overlay: str) -> None:
        super().__init__(message)
        self.key = key
        self.overlay = overlay


def _snake_key(document: Mapping[str, Any]) -> str | None:
    """The key that marks ``document`` as a client's ``to_dict()`` output, if one does."""
    if "api_version" in document:
        return "api_version"
    if "node_selector" in document:
        return "node_selector"
    spec = document.get("spec")
    if isinstance(spec, Mapping) and "node_selector" in spec:
        return "spec.node_selector"
    return None


def check_pod_document(document: Any, *, overlay: str) -> None:
    """Refuse ``document`` where a pod-level overlay starts, unless it is a pod.

    A mapping passes when its ``kind`` is ``Pod`` or when it has no ``kind``
    (a ``PodSpec`` or ``PodTemplateSpec``: what a workload's template holds).
    Any other kind raises :class:`WorkloadKindError`, naming it and the way
    to reach its pods: the workload API for a kind podfold knows, else the
    overlay applied at a pod template of it (``combinators.for_each``) or a
    merge patch of the whole document; the snake_case dict of a kubernetes client object's
    ``to_dict()`` (``api_version`` at the top, ``node_selector`` in the spec)
    raises :class:`ClientDictError`, naming the conversion. A client object
    of a workload class (``V1Deployment``) is refused like its kind. A few
    dict look-ups: cheap enough for every application of every recipe.

    >>> check_pod_document({"kind": "Pod", "spec": {}}, overlay="gpu")
    >>> check_pod_document({"spec": {"containers": []}}, overlay="gpu")
    >>> check_pod_document({"apiVersion": "apps/v1", "kind": "Deployment",
    ...                     "metadata": {"name": "web"}}, overlay="gpu")
    Traceback (most recent call last):
      ...
    transforms.kube.kinds.WorkloadKindError: gpu: a pod-level overlay was given a Deployment document ('web'), not a pod; its pods are in its templates: apply it with transforms.kube.apply_to_workload(overlay, document) or `podfold apply`
    >>> check_pod_document({"apiVersion": "example.com/v1", "kind": "Widget",
    ...     "spec": {"driver": {"template": {"spec": {"containers": [{"name": "driver"}]}}}}},
    ...     overlay="gpu")
    Traceback (most recent call last):
      ...
    transforms.kube.kinds.WorkloadKindError: gpu: a pod-level overlay was given a Widget document, not a pod, and podfold does not know where a Widget keeps its pods (the kinds it knows: `podfold kinds`; declare one with register_kinds or --kinds), so the workload API would leave it as it is: apply the overlay to a pod template in it, combinators.for_each('spec.driver.template', overlay)(document), or change the whole document with a merge patch, transforms.merge_patch({...})(document)
    >>> check_pod_document({"api_version": "v1", "kind": "Pod", "spec": {"node_selector": None}},
    ...                    overlay="gpu")
    Traceback (most recent call last):
      ...
    transforms.kube.kinds.ClientDictError: gpu: given a kubernetes client object's to_dict() output (snake_case key 'api_version'), which overlays would silently get wrong; pass the client object itself, or convert it first with transforms.kube.to_data(value, kind)
    """
    if type(document) is dict:
        # the common case first: a template or a pod in API form
        if (
            "kind" not in document
            and "api_version" not in document
            and "node_selector" not in document
        ):
            spec = document.get("spec")
            if type(spec) is not dict or "node_selector" not in spec:
                return
    elif not isinstance(document, Mapping):
        model = type(document).__name__
        if hasattr(type(document), "attribute_map") and model not in _CLIENT_PODS:
            from transforms.kube.table import a_kind

            raise WorkloadKindError(
                f"{overlay}: a pod-level overlay was given {a_kind(model)} object, not a pod; "
                f"apply it to its pod templates with "
                f"transforms.kube.apply_to_workload(overlay, document)",
                kind=model,
                name=None,
                overlay=overlay,
            )
        return
    snake = _snake_key(document)
    if snake is not None:
        raise ClientDictError(
            f"{overlay}: given a kubernetes client object's to_dict() output (snake_case key "
            f"{short_repr(snake)}), which overlays would silently get wrong; pass the client "
            f"object "
            f"itself, or convert it first with transforms.kube.to_data(value, kind)",
            key=snake,
            overlay=overlay,
        )
    kind = document.get("kind")
    if kind is None or kind == "Pod":
        return
    metadata = document.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    raise WorkloadKindError(
        _refusal(overlay, document, str(kind), name),
        kind=str(kind),
        name=name if isinstance(name, str) else None,
        overlay=overlay,
    )


def _refusal(overlay: str, document: Mapping[str, Any], kind: str, name: Any) -> str:
    """What to say to a pod-level overlay given a workload: what works for its kind."""
    # here, not at the top: only a refusal needs the kind table
    from transforms.kube.registry import workload_kind
    from transforms.kube.table import a_kind
    from transforms.kube.unreached import likely_templates

    named = f" ({short_repr(name)})" if isinstance(name, str) else ""
    given = f"{overlay}: a pod-level overlay was given {a_kind(kind)} document{named}, not a pod"
    if workload_kind(kind, document.get("apiVersion")) is not None:
        return (
            f"{given}; its pods are in its templates: apply it with "
            f"transforms.kube.apply_to_workload(overlay, document) or `podfold apply`"
        )
    where = next(iter(likely_templates(document)), "<the path of its pod template>")
    return (
        f"{given}, and podfold does not know where {a_kind(kind)} keeps its pods (the "
        f"kinds it knows: `podfold kinds`; declare one with register_kinds or --kinds), so "
        f"the workload API would leave it as "
        f"it is: apply the overlay to a pod template in it, "
        f"combinators.for_each({short_repr(where)}, overlay)(document), or change the whole "
        f"document with a merge patch, transforms.merge_patch({{...}})(document)"
    )
