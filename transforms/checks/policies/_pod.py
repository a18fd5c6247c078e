"""What the policy rules read of a pod, gathered once per check: its spec, metadata,
containers (with where each is) and the settings that exempt it from some rules."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from combinators.limits import short_repr
from transforms.checks.problems import Problem, Trail, render
from transforms.checks.rules import Spec

__all__ = ("PodView", "security_settings")

_ROOT = (None, None)


class PodView:
    """A pod as the policy rules see it, checked against one ``profile``.

    ``containers`` holds ``(trail, list name, container)`` for the containers,
    initContainers and ephemeralContainers that are maps; ``windows`` says
    whether ``spec.os.name`` is ``windows`` (some restricted controls are for
    Linux only); ``user_namespace`` whether ``spec.hostUsers`` is ``false``.

    >>> view = PodView.of({"spec": {"os": {"name": "windows"},
    ...                            "containers": [{"name": "c"}]}}, "restricted")
    >>> view.windows, [c["name"] for _, _, c in view.containers]
    (True, ['c'])
    """

    __slots__ = (
        "root",
        "profile",
        "spec",
        "spec_trail",
        "metadata",
        "metadata_trail",
        "containers",
        "windows",
        "user_namespace",
        "pod_security",
        "pod_security_trail",
        "_counts",
    )

    def __init__(
        self,
        root: dict[str, Any],
        profile: str,
        spec: dict[str, Any],
        spec_trail: Trail,
        metadata: dict[str, Any],
    ) -> None:
        self.root = root
        self.profile = profile
        self.spec = spec
        self.spec_trail = spec_trail
        self.metadata = metadata
        self.metadata_trail = (_ROOT, "metadata")
        self.containers = Spec(spec, spec_trail).containers
        os_name = spec.get("os")
        self.windows = type(os_name) is dict and os_name.get("name") == "windows"
        self.user_namespace = spec.get("hostUsers") is False
        found = spec.get("securityContext")
        self.pod_security: dict[str, Any] = found if type(found) is dict else {}
        self.pod_security_trail = (spec_trail, "securityContext")
        # the names counted in each list of root, shared by every problem found in it: a
        # problem counted its whole list alone, quadratic in a long list
        self._counts: dict[int, dict[str, int]] = {}

    @classmethod
    def of(cls, pod: dict[str, Any], profile: str, kind: str = "Pod") -> PodView:
        """The view of ``pod``, API-form data of ``kind`` (``Pod``, ``PodTemplateSpec``, ``PodSpec``)."""
        if kind == "PodSpec":
            return cls(pod, profile, pod, _ROOT, {})
        spec = pod.get("spec")
        metadata = pod.get("metadata")
        return cls(
            pod,
            profile,
            spec if type(spec) is dict else {},
            (_ROOT, "spec"),
            metadata if type(metadata) is dict else {},
        )

    def problem(self, rule_id: str, trail: Trail, key: Any, text: str, found: Any) -> Problem:
        """A violation of rule ``rule_id`` at ``key`` under ``trail``; the message names the profile."""
        message = f"{text} ({self.profile} profile, rule {rule_id})"
        return render(
            self.root, (trail, key, message, found, "error"), "policy", rule_id, counts=self._counts
        )


def security_settings(pod: PodView) -> Iterator[tuple[Trail, dict[str, Any], str]]:
    """Every security context that is a map: the pod's first (if set), then each
    container's, as ``(trail, securityContext, who)``; ``who`` names the owner.

    >>> view = PodView.of({"spec": {"securityContext": {"runAsUser": 0},
    ...                             "containers": [{"name": "c", "securityContext": {}}]}}, "baseline")
    >>> [who for _, _, who in security_settings(view)]
    ['the pod', "container 'c'"]
    """
    if pod.pod_security:
        yield pod.pod_security_trail, pod.pod_security, "the pod"
    for trail, _, container in pod.containers:
        found = container.get("securityContext")
        if type(found) is dict:
            yield (
                (trail, "securityContext"),
                found,
                f"container {short_repr(container.get('name'))}",
            )
