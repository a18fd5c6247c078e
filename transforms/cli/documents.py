"""Streams of Kubernetes documents in and out: YAML (or JSON) as kubectl reads and writes it.

Reading is safe and strict (:func:`transforms.io.safe_yaml.load_manifest`, on
libyaml where PyYAML has it) and keeps what a manifest holds as plain data: key
order, timestamps as the strings they were written as, and YAML 1.1's booleans
(``y``, ``n``, ``yes``, ``off``, ...) written plain as booleans: as kubectl and the
API server read them. Empty documents (a stray ``---``) are skipped, as kubectl
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

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from combinators import TransformError

if TYPE_CHECKING:
    from transforms.io.booleans import PlainBoolean

__all__ = (
    "ManifestError",
    "read_input",
    "read_documents",
    "read_manifest",
    "dump_documents",
    "template_label",
    "template_booleans",
    "boolean_warnings",
    "BooleanProblem",
    "plain_boolean_problems",
    "document_path",
    "FORMATS",
)

_JOINED = re.compile(r"duplicate key '(apiVersion|kind|metadata)' \(first at line \d+, column 1\)")
"""A document's own key met again at the top of a map: two documents joined without ``---``."""

FORMATS = ("yaml", "json")
"""The output formats: a YAML stream, or JSON (one object, or a ``List`` of several)."""


class ManifestError(TransformError, ValueError):
    """A manifest stream could not be read; ``source``, ``line`` and ``column`` say where.

    >>> print(ManifestError("did not find expected key", source="jobs.yaml", line=3, column=1))
    jobs.yaml:3:1: did not find expected key
    """

    def __init__(
        self, message: str, *, source: str, line: int | None = None, column: int | None = None
    ) -> None:
        super().__init__(message)
        self.source = source
        self.line = line
        self.column = column

    def __str__(self) -> str:
        where = self.source if self.line is None else f"{self.source}:{self.line}:{self.column}"
        return f"{where}: {TransformError.__str__(self)}"


def read_input(stream: Any) -> tuple[str, str]:
    """The text of a manifest stream (a ``click.File`` argument, standard input) and the
    name to give it in errors, read within bounds (:func:`~transforms.io.sources.read_open`:
    no device but ``/dev/null`` and a terminal, at most ``PODFOLD_MAX_MANIFEST_BYTES``).

    Whatever stops the read (an ``OSError``, a device, too many bytes, bytes that
    are not UTF-8) is a :class:`ManifestError` naming the stream, on one line.

    >>> import io
    >>> read_input(io.BytesIO(b"kind: Pod\\n"))
    ('kind: Pod\\n', '<stdin>')
    >>> bad = io.BytesIO(b"kind: Pod\\nmetadata: {name: caf\\xe9}\\n")
    >>> bad.name = "pod.yaml"
    >>> read_input(bad)
    Traceback (most recent call last):
      ...
    transforms.cli.documents.ManifestError: pod.yaml:2:21: the file is not UTF-8: byte 0xe9 (byte 30 of the file) cannot be read (invalid continuation byte)
    """
    from transforms.errors import OverlayError
    from transforms.io.safe_yaml import decode
    from transforms.io.sources import read_open

    name = getattr(stream, "name", "-")
    source = "<stdin>" if name in ("-", "<stdin>") else str(name)
    try:
        data = read_open(stream, source, "manifest")
        return (data if isinstance(data, str) else decode(data, source)), source
    except OverlayError as err:
        # the source the error names: the stream, or the setting that bounds it
        raise ManifestError(
            err.message, source=err.source, line=err.line, column=err.column
        ) from err


def read_documents(text: str, source: str) -> list[Any]:
    """The documents of a YAML (or JSON) stream, empty ones left out
    (:func:`read_manifest`'s documents).

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
    return read_manifest(text, source)[0]


def read_manifest(
    text: str, source: str, nodes: list[Any] | None = None, added: list[int] | None = None
) -> tuple[list[Any], list[PlainBoolean]]:
    """The documents of a YAML (or JSON) stream, as :func:`read_documents` reads them,
    and each of YAML 1.1's booleans (``y``, ``yes``, ``on``, ...) written plain in them,
    which kubectl reads as booleans and so they are read
    (:class:`~transforms.io.booleans.PlainBoolean`: where, as what); ``nodes``, where
    given, is given each document's composed node, and ``added``, how many nodes the
    stream's aliases added (:func:`~transforms.io.safe_yaml.load_manifest`).

    >>> documents, found = read_manifest("kind: Pod\\nspec: {hostNetwork: y}\\n", "pod.yaml")
    >>> documents
    [{'kind': 'Pod', 'spec': {'hostNetwork': True}}]
    >>> [(boolean.document, boolean.keys, boolean.line) for boolean in found]
    [(1, ('spec', 'hostNetwork'), 2)]
    >>> read_manifest("kind: Pod\\nmetadata: {name: a}\\nkind: Job\\n", "<stdin>")
    Traceback (most recent call last):
      ...
    transforms.cli.documents.ManifestError: <stdin>:3:1: duplicate key 'kind' (first at line 1, column 1); a document begins here without the '---' that ends the one before (files joined, as by 'cat a.yaml b.yaml', need '---' between them; or give podfold the files, or their directory, themselves)
    """
    from combinators.data import is_map, kind_name
    from transforms.errors import OverlayError
    from transforms.io.safe_yaml import load_manifest

    try:
        documents, found = load_manifest(text, source, nodes, added)
    except OverlayError as err:  # read as strictly as overlays: duplicate keys, tags, depth
        message = err.message
        if err.column == 1 and _JOINED.match(message):
            message += (
                "; a document begins here without the '---' that ends the one before "
                "(files joined, as by 'cat a.yaml b.yaml', need '---' between them; or "
                "give podfold the files, or their directory, themselves)"
            )
        raise ManifestError(message, source=source, line=err.line, column=err.column) from None
    for number, document in enumerate(documents, 1):
        if not is_map(document):
            hint = (
                (
                    "; a list of objects is written 'kind: List' with 'items:', or as "
                    "documents separated by '---'"
                )
                if isinstance(document, list)
                else ""
            )
            raise ManifestError(
                f"document {number} is {kind_name(document)}, not a map (a "
                f"Kubernetes object such as 'kind: Pod'){hint}",
                source=source,
            )
    return documents, found


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

        data = (
            documents[0]
            if len(documents) == 1
            else {"apiVersion": "v1", "kind": "List", "items": list(documents)}
        )
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


def template_booleans(
    number: int, template: Any, pod: Any, booleans: Sequence[PlainBoolean]
) -> dict[tuple[str, bool], PlainBoolean]:
    """The plain booleans of document ``number`` (from 1) inside ``template``, whose value
    is ``pod``, by the path and value a validation problem of ``pod`` names: a value by
    its own path, a key by its map's (:func:`~transforms.checks.problems.render`'s paths).

    >>> from transforms.io.booleans import PlainBoolean
    >>> from transforms.kube.workloads import pod_templates
    >>> pod = {"kind": "Pod", "spec": {"containers": [{"name": "c", "env": [
    ...        {"name": "A", "value": True}]}]}}
    >>> found = PlainBoolean(1, ("spec", "containers", 0, "env", 0, "value"), "y", True, 9, 14)
    >>> template_booleans(1, pod_templates(pod)[0], pod, [found])
    {('spec.containers[name=c].env[name=A].value', True): PlainBoolean(document=1, keys=('spec', 'containers', 0, 'env', 0, 'value'), text='y', value=True, line=9, column=14, is_key=False)}
    """
    from combinators.paths import Index, Key
    from transforms.checks.problems import render

    prefix: list[Any] = []
    for part in template.path.parts:
        if not isinstance(part, (Key, Index)):
            return {}
        prefix.append(part.name if isinstance(part, Key) else part.index)
    located: dict[tuple[str, bool], PlainBoolean] = {}
    counts: dict[int, dict[str, int]] = {}  # each list's names, counted once for all booleans
    for boolean in booleans:
        keys = boolean.keys
        if boolean.document != number or list(keys[: len(prefix)]) != prefix:
            continue
        inner = keys[len(prefix) :]
        if not inner:
            continue  # the template itself is a boolean: no field of a pod to name
        trail: Any = (None, None)
        for key in inner[:-1]:
            trail = (trail, key)
        path = render(pod, (trail, inner[-1], "", None, "error"), "schema", counts=counts).path
        located[(path, boolean.value)] = boolean
    return located


def boolean_warnings(
    documents: Sequence[Any],
    booleans: Sequence[PlainBoolean],
    source: str,
    k8s_version: str | None = None,
    first: int = 1,
) -> list[str]:
    """A line for each of YAML 1.1's booleans written plain where a pod template's
    schema wants no boolean (a string: an env value, a label, an annotation), naming
    the file, line and column, the template and the path, and how to quote it: kubectl
    reads it as the boolean, which the API server refuses there (``podfold validate``
    reports these as errors; this is for commands that do not check a manifest's own
    problems, to warn of them).

    >>> text = "kind: Pod\\nmetadata:\\n  name: p\\n  labels: {debug: n}\\nspec:\\n  hostNetwork: y\\n  containers: [{name: c, image: x}]\\n"
    >>> documents, found = read_manifest(text, "pod.yaml")
    >>> for line in boolean_warnings(documents, found, "pod.yaml"):
    ...     print(line)
    pod.yaml:4:19: document 1: Pod/p template (the document itself): metadata.labels.debug: expected string, found boolean False; n, written plain, is the boolean false to kubectl (YAML 1.1): quote it ('n') if a string is meant
    """
    from combinators.limits import short_repr

    return [
        f"{source}:{found.boolean.line}:{found.boolean.column}: "
        f"{template_label(found.number, found.template)}: "
        f"{short_repr(found.field, quoted=False)}: {found.message}"
        for found in plain_boolean_problems(documents, booleans, k8s_version, first)
    ]


@dataclass(frozen=True)
class BooleanProblem:
    """A plain YAML 1.1 boolean where a pod template's schema wants no boolean: the
    document's ``number`` (from 1), the ``template``, the ``field`` (a path from the
    document's top), the ``message`` (the problem, and how to quote the text), the
    ``boolean`` as read."""

    number: int
    template: Any
    field: str
    message: str
    boolean: PlainBoolean


def plain_boolean_problems(
    documents: Sequence[Any],
    booleans: Sequence[PlainBoolean],
    k8s_version: str | None = None,
    first: int = 1,
) -> list[BooleanProblem]:
    """What :func:`boolean_warnings` says, as records, for front doors that say it
    their own way (``podfold fn``: a result of the ResourceList)."""
    from combinators import get_at
    from transforms.checks.validation import problems
    from transforms.kube.workloads import pod_templates, with_added_volumes

    found: list[BooleanProblem] = []
    for number in sorted({boolean.document for boolean in booleans}):
        document = documents[number - first]
        for template in pod_templates(document):
            pod = get_at(document, template.path) if template.path.parts else document
            pod = with_added_volumes(pod, template)
            located = template_booleans(number, template, pod, booleans)
            if not located:
                continue
            for problem in problems(pod, kind=template.root, k8s_version=k8s_version):
                boolean = (
                    located.get((problem.path, problem.found))
                    if type(problem.found) is bool
                    else None
                )
                if boolean is not None:
                    found.append(
                        BooleanProblem(
                            number,
                            template,
                            document_path(str(template.path), problem.path),
                            f"{problem.message}; {boolean.note()}",
                            boolean,
                        )
                    )
    return found


def document_path(prefix: str, path: str) -> str:
    """``path`` (of a template's problem) from the top of the document the template is
    at ``prefix`` of (both in podfold's path grammar).

    >>> document_path("spec.template", "spec.containers[0].image"), document_path("items[0]", "[1]")
    ('spec.template.spec.containers[0].image', 'items[0][1]')
    >>> document_path("", "spec.hostNetwork")
    'spec.hostNetwork'
    """
    if not prefix:
        return path
    return f"{prefix}.{path}" if path and not path.startswith("[") else f"{prefix}{path}"
