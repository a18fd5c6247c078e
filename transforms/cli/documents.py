"""Streams of Kubernetes documents in and out: YAML (or JSON) as kubectl reads and writes it.

Reading is safe and strict (:func:`transforms.io.safe_yaml.load_documents`, on
libyaml where PyYAML has it) and keeps what a manifest holds as plain data: key
order, and timestamps as the strings they were written as (kubectl and the API
server read them so). Empty documents (a stray ``---``) are skipped, as kubectl
skips them. Writing (:func:`transforms.io.streams.dump_stream`) keeps key order
and writes multi-line strings as ``|`` blocks.

>>> docs = read_documents("kind: ConfigMap\\nmetadata: {name: a, creationTimestamp: 2024-01-02T03:04:05Z}\\n---\\n", "cm.yaml")
>>> docs
[{'kind': 'ConfigMap', 'metadata': {'name': 'a', 'creationTimestamp': '2024-01-02T03:04:05Z'}}]
>>> print(dump_documents(docs + [{"kind": "Pod", "data": {"run.sh": "echo 1\\necho 2\\n"}}]), end="")
kind: ConfigMap
metadata:
  name: a
  creationTimestamp: '2024-01-02T03:04:05Z'
---
kind: Pod
data:
  run.sh: |
    echo 1
    echo 2
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from combinators import TransformError

__all__ = ("ManifestError", "read_documents", "dump_documents", "template_label", "FORMATS")

FORMATS = ("yaml", "json")
"""The output formats: a YAML stream, or JSON (one object, or a ``List`` of several)."""


class ManifestError(TransformError, ValueError):
    """A manifest stream could not be read; ``source``, ``line`` and ``column`` say where.

    >>> print(ManifestError("did not find expected key", source="jobs.yaml", line=3, column=1))
    jobs.yaml:3:1: did not find expected key
    """

    def __init__(self, message: str, *, source: str, line: int | None = None,
                 column: int | None = None) -> None:
        super().__init__(message)
        self.source = source
        self.line = line
        self.column = column

    def __str__(self) -> str:
        where = self.source if self.line is None else f"{self.source}:{self.line}:{self.column}"
        return f"{where}: {TransformError.__str__(self)}"


def read_documents(text: str, source: str) -> list[Any]:
    """The documents of a YAML (or JSON) stream, empty ones left out.

    A syntax error is a :class:`ManifestError` naming ``source``, line and column;
    so is a document that is not a map (an object has a kind, a name, ...).

    >>> read_documents("a: [1", "bad.yaml")
    Traceback (most recent call last):
      ...
    transforms.cli.documents.ManifestError: bad.yaml:1:6: expected ',' or ']', but got '<stream end>'
    >>> read_documents("kind: Pod\\n---\\n- kind: Pod\\n", "pods.yaml")
    Traceback (most recent call last):
      ...
    transforms.cli.documents.ManifestError: pods.yaml: document 2 is a list, not a map (a Kubernetes object such as 'kind: Pod'); a list of objects is written 'kind: List' with 'items:', or as documents separated by '---'
    """
    from combinators.data import is_map, kind_name
    from transforms.errors import OverlayError
    from transforms.io.safe_yaml import load_documents

    try:
        documents = load_documents(text, source)
    except OverlayError as err:  # read as strictly as overlays: duplicate keys, tags, depth
        raise ManifestError(err.message, source=source, line=err.line,
                            column=err.column) from None
    for number, document in enumerate(documents, 1):
        if not is_map(document):
            hint = ("; a list of objects is written 'kind: List' with 'items:', or as "
                    "documents separated by '---'") if isinstance(document, list) else ""
            raise ManifestError(f"document {number} is {kind_name(document)}, not a map (a "
                                f"Kubernetes object such as 'kind: Pod'){hint}", source=source)
    return documents


def dump_documents(documents: Sequence[Any], output: str = "yaml") -> str:
    """The documents as a YAML stream, or as JSON: one object, or a ``List`` of several
    (what ``kubectl ... -o json`` prints).

    >>> print(dump_documents([{"kind": "Pod"}, {"kind": "Job"}], "json"), end="")
    {
      "apiVersion": "v1",
      "kind": "List",
      "items": [
        {
          "kind": "Pod"
        },
        {
          "kind": "Job"
        }
      ]
    }
    """
    if output == "json":
        import json

        data = documents[0] if len(documents) == 1 else {
            "apiVersion": "v1", "kind": "List", "items": list(documents)}
        return json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n"
    from transforms.io.streams import dump_stream

    return dump_stream(documents)


def template_label(number: int, template: Any) -> str:
    """Where a pod template is, for messages: the document's place in the
    stream (from 1), then its workloads, role and path
    (:meth:`~transforms.kube.workloads.PodTemplate.describe`).

    >>> from transforms.kube.workloads import pod_templates
    >>> job = {"kind": "PyTorchJob", "metadata": {"name": "mnist"}, "spec": {
    ...        "pytorchReplicaSpecs": {"Worker": {"template": {"spec": {}}}}}}
    >>> template_label(2, pod_templates(job)[0])
    'document 2: PyTorchJob/mnist template Worker (spec.pytorchReplicaSpecs.Worker.template)'
    """
    return f"document {number}: {template.describe()}"
