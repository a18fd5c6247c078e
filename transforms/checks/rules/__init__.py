"""The reference rules: one rule per module, as yamllint keeps its rules.

Each rule module has an ``ID`` (kebab-case), a one-line ``DESCRIPTION`` and
``check(spec, out)``, which appends raw findings (see
:mod:`transforms.checks.problems`) for a :class:`~transforms.checks.rules._spec.Spec`.
:data:`RULES` lists them in the order they run, and so the order their
problems come in; :func:`rule` finds one by its id.

Most are the API server's own checks of a pod (``ValidatePodSpec`` and what it
calls, in Kubernetes' ``pkg/apis/core/validation``) that the OpenAPI schema
cannot express: names in the formats it wants, one volume at a mount path, one
handler per probe, ... Where the API server only warns, the rule warns too.

>>> [module.ID for module in RULES]  # doctest: +NORMALIZE_WHITESPACE
['containers-required', 'volume-names', 'container-names', 'container-images', 'volume-mounts', 'env-names',
 'requests-within-limits', 'volume-sources', 'mount-paths', 'container-ports', 'env-sources',
 'probes', 'resource-names', 'tolerations', 'labels', 'hostname', 'dns-config', 'pod-timing']
>>> rule("volume-sources").DESCRIPTION
'a volume has at most one source'
"""

from __future__ import annotations

from types import ModuleType

from combinators.errors import ArgumentError
from combinators.limits import short_repr
from transforms.checks.rules import (
    container_images,
    container_names,
    container_ports,
    containers_required,
    dns_config,
    env_names,
    env_sources,
    hostname,
    labels,
    mount_paths,
    pod_timing,
    probes,
    requests_limits,
    resource_names,
    tolerations,
    volume_mounts,
    volume_names,
    volume_sources,
)
from transforms.checks.rules._spec import Spec

__all__ = ("RULES", "Spec", "rule")

#: Every reference rule, in the order it runs.
RULES: tuple[ModuleType, ...] = (
    containers_required,
    volume_names,
    container_names,
    container_images,
    volume_mounts,
    env_names,
    requests_limits,
    volume_sources,
    mount_paths,
    container_ports,
    env_sources,
    probes,
    resource_names,
    tolerations,
    labels,
    hostname,
    dns_config,
    pod_timing,
)


def rule(rule_id: str) -> ModuleType:
    """The rule module with id ``rule_id``; an :class:`ArgumentError` lists the ids if none has it.

    >>> rule("image")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: rule(): rule_id: no rule 'image'; rules are: containers-required, volume-names, container-names, container-images, volume-mounts, env-names, requests-within-limits, volume-sources, mount-paths, container-ports, env-sources, probes, resource-names, tolerations, labels, hostname, dns-config, pod-timing
    """
    for module in RULES:
        if rule_id == module.ID:
            return module
    raise ArgumentError(
        f"no rule {short_repr(rule_id)}; rules are: {', '.join(m.ID for m in RULES)}",
        argument="rule_id",
        factory="rule",
        value=rule_id,
    )
