"""Rule ``apparmor`` (baseline): AppArmor is not turned off or overridden, in fields or annotations.

The ``appArmorProfile.type`` of the pod and of every container may be unset,
``RuntimeDefault`` or ``Localhost``; a ``container.apparmor.security.beta.kubernetes.io/*``
annotation may be ``runtime/default`` or ``localhost/<profile>``.

>>> from transforms.checks.policies._pod import PodView
>>> pod = {"metadata": {"annotations": {
...            "container.apparmor.security.beta.kubernetes.io/c": "unconfined"}},
...        "spec": {"securityContext": {"appArmorProfile": {"type": "Unconfined"}}}}
>>> [p.path for p in check(PodView.of(pod, "baseline"))]
['spec.securityContext.appArmorProfile.type', 'metadata.annotations["container.apparmor.security.beta.kubernetes.io/c"]']
"""

from __future__ import annotations

from collections.abc import Iterator

from combinators.limits import short_repr
from transforms.checks.policies._pod import PodView, security_settings
from transforms.checks.problems import Problem

__all__ = ("ID", "PROFILE", "DESCRIPTION", "OVERRIDES", "check")

ID = "apparmor"
PROFILE = "baseline"
DESCRIPTION = (
    "appArmorProfile.type is unset, RuntimeDefault or Localhost; AppArmor annotations "
    "are runtime/default or localhost/*"
)
OVERRIDES: tuple[str, ...] = ()

_TYPES = ("RuntimeDefault", "Localhost")
_ANNOTATION = "container.apparmor.security.beta.kubernetes.io/"


def check(pod: PodView) -> Iterator[Problem]:
    """Each AppArmor profile type or annotation outside the allowed values."""
    for trail, security, _ in security_settings(pod):
        profile = security.get("appArmorProfile")
        if (
            type(profile) is dict
            and profile.get("type") is not None
            and profile["type"] not in _TYPES
        ):
            yield pod.problem(
                ID,
                (trail, "appArmorProfile"),
                "type",
                f"AppArmor profile type {short_repr(profile['type'])} is not allowed; "
                f"allowed: {', '.join(_TYPES)}",
                profile["type"],
            )
    annotations = pod.metadata.get("annotations")
    if type(annotations) is not dict:
        return
    for key, value in annotations.items():
        if (
            type(key) is str
            and key.startswith(_ANNOTATION)
            and value != "runtime/default"
            and not (type(value) is str and value.startswith("localhost/"))
        ):
            yield pod.problem(
                ID,
                (pod.metadata_trail, "annotations"),
                key,
                f"AppArmor profile {short_repr(value)} is not allowed; allowed: "
                f"runtime/default, localhost/<profile>",
                value,
            )
