"""The catalog: every recipe by name, for YAML pipelines and generated docs.

A read-only map from name to factory. YAML loaders find it through the
``podfold.recipes`` entry point and check a step's arguments against the
factory's signature.

>>> catalog["add_toleration"]("nvidia.com/gpu")
add_toleration('nvidia.com/gpu')
>>> catalog["gpu"] = None
Traceback (most recent call last):
  ...
TypeError: 'mappingproxy' object does not support item assignment
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from recipes import accelerators, containers, pod, scheduling, storage
from recipes._recipe import Recipe

__all__ = ("catalog", "GROUPS")

GROUPS: tuple[tuple[str, tuple[Callable[..., Recipe], ...]], ...] = (
    (
        "Scheduling",
        (
            scheduling.node_selector,
            scheduling.add_toleration,
            scheduling.require_node_affinity,
            scheduling.prefer_node_affinity,
            scheduling.spread,
            scheduling.anti_affinity,
            scheduling.priority_class,
            scheduling.scheduler_name,
            scheduling.runtime_class,
            scheduling.kueue_queue,
        ),
    ),
    (
        "Accelerators",
        (accelerators.gpu, accelerators.mig, accelerators.tpu, accelerators.efa, accelerators.rdma),
    ),
    (
        "Storage",
        (
            storage.shm_size,
            storage.mount_pvc,
            storage.mount_secret,
            storage.mount_config_map,
            storage.mount_empty_dir,
            storage.mount_host_path,
        ),
    ),
    (
        "Containers",
        (
            containers.add_env,
            containers.add_env_from_secret,
            containers.add_env_from_config_map,
            containers.add_env_from_field,
            containers.resources,
            containers.image_pull_policy,
            containers.working_dir,
            containers.security_context,
            containers.add_capabilities,
            containers.sidecar,
            containers.init_container,
        ),
    ),
    (
        "Pod",
        (
            pod.add_labels,
            pod.add_annotations,
            pod.istio_sidecar,
            pod.service_account,
            pod.image_pull_secret,
            pod.host_network,
            pod.host_ipc,
            pod.dns_policy,
            pod.termination_grace_period,
            pod.active_deadline,
        ),
    ),
)
"""The recipes by topic, in the order the docs list them."""

catalog: Mapping[str, Callable[..., Recipe]] = MappingProxyType(
    {factory.__name__: factory for _, factories in GROUPS for factory in factories}
)
"""Recipe name -> factory, read-only."""
