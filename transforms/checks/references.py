"""Reference checks: what a pod's parts say about each other, rule by rule.

The schema cannot say that a volumeMount names a volume of the same pod, that
a request stays within its limit, or that two mounts of a container may not
share a path; the rules of :mod:`transforms.checks.rules` do (most of them
the API server's own checks), on the spec (and metadata) of a ``Pod`` or
``PodTemplateSpec``, or on a ``PodSpec`` itself. Problems come rule by rule,
in the order of :data:`~transforms.checks.rules.RULES`, each in document order.

>>> pod = {"spec": {"containers": [{"name": "c", "image": "x",
...        "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}]}]}}
>>> [(p.rule, p.path) for p in reference_problems(pod)]
[('volume-mounts', 'spec.containers[name=c].volumeMounts[name=dshm].name')]
"""

from __future__ import annotations

from typing import Any

from transforms.checks.problems import Problem, Raw, render_all
from transforms.checks.rules import RULES, Spec
from transforms.kube.kinds import check_kind
from transforms.kube.schema import schema_for

__all__ = ("reference_problems", "references_of")

_CHECKS = tuple((module.ID, module.check) for module in RULES)
_AT_ROOT = (None, None)
_AT_SPEC = ((None, None), "spec")
_AT_METADATA = ((None, None), "metadata")


def reference_problems(
    pod: Any, kind: str = "Pod", *, k8s_version: str | None = None
) -> list[Problem]:
    """The problems every reference rule finds in ``pod`` (API-form data of ``kind``).

    Anything that is not a map where the rules look is the schema check's to
    report; the rules skip it. ``k8s_version`` is the API server's version
    (default the newest bundled): a few rules changed with it (env names may
    hold any printable ASCII but '=' since 1.32).

    >>> reference_problems({"containers": [{"name": "c"}]}, "PodSpec")[0].message
    'a container of a pod needs an image'
    >>> pod = {"containers": [{"name": "c", "image": "x", "env": [{"name": "1ST"}]}]}
    >>> reference_problems(pod, "PodSpec"), len(reference_problems(pod, "PodSpec", k8s_version="1.31"))
    ([], 1)
    """
    version = schema_for(k8s_version).version
    if type(pod) is not dict:
        return []
    return references_of(pod, check_kind(kind, factory="reference_problems"), version)


def references_of(pod: dict[str, Any], kind: str, version: str | None = None) -> list[Problem]:
    """:func:`reference_problems` of a plain ``pod`` of a ``kind`` known to be valid, for a
    ``version`` as the schema spells it (for :func:`~transforms.checks.validation.problems`,
    which has checked all three)."""
    if kind == "PodSpec":
        view = Spec(pod, _AT_ROOT, version=version)
    elif type(spec := pod.get("spec")) is dict:
        view = Spec(
            spec,
            _AT_SPEC,
            metadata=pod.get("metadata"),
            metadata_trail=_AT_METADATA,
            version=version,
        )
    else:
        return []
    out: list[Raw] = []
    found: list[Problem] = []
    for rule_id, check in _CHECKS:
        check(view, out)
        if out:
            found += render_all(pod, out, "reference", rule_id)
            out = []
    return found
