"""Kubernetes client pods as documents: any transform takes them and gives back the same type.

:data:`ADAPTER` is published under the entry point group ``podfold.documents``
(see :mod:`combinators.documents`), so a transform called on a ``V1Pod``,
``V1PodSpec`` or ``V1PodTemplateSpec`` runs on its API-form data
(:func:`~transforms.kube.convert.to_data`) and gives back a new object of the
same class (:func:`~transforms.kube.convert.to_client`); the input is left
as it was, and a transform that changes nothing gives back the very same
object. Client objects are mutable, so the result shares none of them with
the input.

A transform sees every one of them as a pod, so one overlay (a recipe, a
YAML file) serves all three: a ``V1PodTemplateSpec`` is ``metadata`` and
``spec`` already, and a ``V1PodSpec`` is seen as the ``spec`` of a pod.
What the result holds must fit the class: a field the client does not know
(``spec.nodeSelectr``), or metadata written to a ``V1PodSpec``, is a
:class:`~transforms.kube.convert.ConversionError`, never silently dropped.
Workload objects (``V1Deployment``, ``V1Job``, ...) go through
``transforms.kube.apply_to_workload``, which knows where their pods are.

>>> from kubernetes.client import V1Container, V1PodSpec
>>> from combinators import upsert
>>> spec = V1PodSpec(containers=[V1Container(name="trainer")])
>>> new = upsert("spec.nodeSelector", {"gpu": "a100"})(spec)
>>> type(new).__name__, new.node_selector, spec.node_selector
('V1PodSpec', {'gpu': 'a100'}, None)
>>> upsert("spec.nodeSelector", {"gpu": "a100"})(new) is new
True
>>> upsert("metadata.labels.team", "ml")(spec)
Traceback (most recent call last):
  ...
transforms.kube.convert.ConversionError: metadata: a V1PodSpec holds only a pod's spec, but the result has metadata (dict {'labels': {'team': 'ml'}}); give a V1PodTemplateSpec or a V1Pod to keep it
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from combinators.limits import MAX_NAME, short_repr
from transforms.kube.convert import ConversionError, to_client, to_data

__all__ = ("ROOT_MODELS", "ClientObjects", "ADAPTER", "root_kind")

#: The client classes a pod overlay takes, and the root kind of each (the schema type).
ROOT_MODELS: dict[str, str] = {
    "V1Pod": "Pod",
    "V1PodSpec": "PodSpec",
    "V1PodTemplateSpec": "PodTemplateSpec",
}

_CLIENT_MODULE = "kubernetes.client.models."


def root_kind(document: Any) -> str | None:
    """The root kind of a client pod object (``V1PodSpec`` -> ``"PodSpec"``), else ``None``.

    Looks at the class only, and imports nothing: a document that is not a
    kubernetes client object costs a type check.

    >>> from kubernetes.client import V1PodTemplateSpec
    >>> root_kind(V1PodTemplateSpec()), root_kind({"spec": {}})
    ('PodTemplateSpec', None)
    """
    cls = type(document)
    kind = ROOT_MODELS.get(cls.__name__)
    if kind is None or not cls.__module__.startswith(_CLIENT_MODULE):
        return None
    return kind


class ClientObjects:
    """The document adapter for kubernetes client pods (see :mod:`combinators.documents`)."""

    accepted = (
        "a kubernetes client V1Pod, V1PodSpec or V1PodTemplateSpec (for a workload "
        "object such as V1Deployment: transforms.kube.apply_to_workload)"
    )

    def accepts(self, document: Any) -> bool:
        """Whether ``document`` is a ``V1Pod``, ``V1PodSpec`` or ``V1PodTemplateSpec``."""
        return root_kind(document) is not None

    def to_data(self, document: Any) -> Any:
        """The object's API-form data, fresh; a ``V1PodSpec``'s as ``{"spec": ...}``."""
        kind = root_kind(document) or "Pod"
        data = to_data(document, kind)
        return {"spec": data} if kind == "PodSpec" else data

    def from_data(self, data: Any, like: Any) -> Any:
        """A new object of ``like``'s class built from API-form ``data``, strictly."""
        if root_kind(like) == "PodSpec":
            data = _spec_of(data)
        return to_client(data, type(like), strict=True)

    def __repr__(self) -> str:
        return "transforms.kube.client.ADAPTER"


def _spec_of(data: Any) -> Any:
    """The spec of a pod that stands for a ``V1PodSpec``; nothing else may be in it."""
    if not isinstance(data, Mapping):
        raise ConversionError(
            "",
            f"a V1PodSpec is seen as a pod; the result is {type(data).__name__}, not a map",
            data,
        )
    for key, value in data.items():
        if key != "spec" and value not in (None, {}, []):
            raise ConversionError(
                key,
                f"a V1PodSpec holds only a pod's spec, but the result "
                f"has {short_repr(key, MAX_NAME, quoted=False)} "
                f"({type(value).__name__} {short_repr(value, 60)}); give a "
                f"V1PodTemplateSpec or a V1Pod to keep it",
                value,
            )
    spec = data.get("spec")
    return {} if spec is None else spec


ADAPTER = ClientObjects()
"""The adapter the ``podfold.documents`` entry point ``kubernetes`` publishes."""
