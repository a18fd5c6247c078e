"""podfold's recipes: named, documented overlays for what ML jobs on Kubernetes need.

Every recipe is a factory returning a :class:`combinators.Transform`: an
immutable value whose ``repr`` reads as the call, equal to any recipe built by
the same call, and a pure function ``pod -> pod`` on API-form pods. Compose
them with :func:`combinators.compose`; find them by name in :data:`catalog`.

>>> from combinators import chain
>>> overlay = chain(gpu("a100-80gb", count=8), shm_size("64Gi"), add_env(NCCL_DEBUG="INFO"))
>>> overlay
chain(gpu('a100-80gb', count=8), shm_size('64Gi'), add_env(NCCL_DEBUG='INFO'))
>>> pod = overlay({"spec": {"containers": [{"name": "trainer-0"}]}})
>>> pod["spec"]["nodeSelector"]
{'cloud.google.com/gke-accelerator': 'nvidia-a100-80gb'}
>>> overlay(pod) == pod
True

Write a recipe of your own with :func:`recipe`: it turns a function that builds
a transform into a factory of :class:`Recipe` values, and a package publishes
its recipes as a map from name to factory under the ``podfold.recipes`` entry
point, as podfold publishes :data:`catalog`:

>>> from combinators import Transform, upsert
>>> @recipe
... def team(name: str) -> Transform:
...     "Label the pod with its team."
...     return upsert("metadata.labels", {"team": name})
>>> team("ml")
team('ml')
>>> team("ml")({"spec": {}})
{'spec': {}, 'metadata': {'labels': {'team': 'ml'}}}
"""

from recipes._catalog import catalog
from recipes._clashes import NameClashError
from recipes._recipe import Recipe, recipe
from recipes._table import markdown_table
from recipes.accelerators import efa, gpu, mig, rdma, tpu
from recipes.containers import (
    add_capabilities,
    add_env,
    add_env_from_config_map,
    add_env_from_field,
    add_env_from_secret,
    image_pull_policy,
    init_container,
    resources,
    security_context,
    sidecar,
    working_dir,
)
from recipes.env import ConfigMapKey, FieldRef, ResourceFieldRef, SecretKey
from recipes.pod import (
    active_deadline,
    add_annotations,
    add_labels,
    dns_policy,
    host_ipc,
    host_network,
    image_pull_secret,
    istio_sidecar,
    service_account,
    termination_grace_period,
)
from recipes.scheduling import (
    add_toleration,
    anti_affinity,
    kueue_queue,
    node_selector,
    prefer_node_affinity,
    priority_class,
    require_node_affinity,
    runtime_class,
    scheduler_name,
    spread,
)
from recipes.storage import (
    mount_config_map,
    mount_empty_dir,
    mount_host_path,
    mount_pvc,
    mount_secret,
    shm_size,
)
from transforms.kube.quantity import parse_quantity

__all__ = (
    "catalog",
    "markdown_table",
    "recipe",
    "Recipe",
    "NameClashError",
    "parse_quantity",
    "SecretKey",
    "ConfigMapKey",
    "FieldRef",
    "ResourceFieldRef",
    # every recipe of the catalog, in its order (tests/test_recipes.py checks it)
    # scheduling
    "node_selector",
    "add_toleration",
    "require_node_affinity",
    "prefer_node_affinity",
    "spread",
    "anti_affinity",
    "priority_class",
    "scheduler_name",
    "runtime_class",
    "kueue_queue",
    # accelerators
    "gpu",
    "mig",
    "tpu",
    "efa",
    "rdma",
    # storage
    "shm_size",
    "mount_pvc",
    "mount_secret",
    "mount_config_map",
    "mount_empty_dir",
    "mount_host_path",
    # containers
    "add_env",
    "add_env_from_secret",
    "add_env_from_config_map",
    "add_env_from_field",
    "resources",
    "image_pull_policy",
    "working_dir",
    "security_context",
    "add_capabilities",
    "sidecar",
    "init_container",
    # pod
    "add_labels",
    "add_annotations",
    "istio_sidecar",
    "service_account",
    "image_pull_secret",
    "host_network",
    "host_ipc",
    "dns_policy",
    "termination_grace_period",
    "active_deadline",
)
