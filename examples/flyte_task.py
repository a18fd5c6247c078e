"""A Flyte task on an A100 node pool: runtime class, a GPU-memory affinity, a secret mount.

``A100`` is a flytekit ``PodTemplate`` built from podfold recipes; the task
below uses it as any other pod template. The recipes write each toleration,
env var, volume and mount once, even over a base template that holds them
already, so the pod Flyte runs holds no duplicates; the primary container
comes first, so the recipes acting on "the main container" reach it.

Keep the GPU count in one place: flytekit replaces the primary container's
``resources`` with the task's ``requests=``/``limits=`` when the task gives
any, and puts the task's ``environment=`` before the template's env vars
(a name set in both is then set twice). Here the template asks for the GPU
and the task sets no resources.
"""

from flytekit import task

from recipes import (
    add_env,
    add_labels,
    gpu,
    mount_secret,
    require_node_affinity,
    runtime_class,
    shm_size,
)
from transforms.flyte import pod_template

A100 = pod_template(
    gpu("a100", count=1, provider="gke"),
    runtime_class("nvidia"),
    require_node_affinity("nvidia.com/gpu.memory", ["40000"], operator="Gt"),
    mount_secret("hf-token", "/etc/secrets/hf"),
    add_env(HF_HOME="/tmp/hf", NCCL_DEBUG="INFO"),
    shm_size("16Gi"),
    add_labels(team="ml"),
)


@task(pod_template=A100)  # type: ignore[untyped-decorator]  # flytekit ships no types for task
def fine_tune(epochs: int) -> int:
    """Train for ``epochs`` epochs on one A100 (the body runs in the primary container)."""
    return epochs
