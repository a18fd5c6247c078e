"""A GPU training job on GKE: 8 x A100 80GB per pod, fast shared memory, NCCL settings.

Apply ``overlay`` to every pod torchx renders for the trainer role. The same
overlay in YAML pipeline form is in ``gke_gpu.yaml``.
"""

from combinators import compose
from recipes import (
    add_env,
    add_labels,
    anti_affinity,
    gpu,
    istio_sidecar,
    kueue_queue,
    mount_pvc,
    mount_secret,
    priority_class,
    shm_size,
    termination_grace_period,
)

overlay = compose(
    gpu("a100-80gb", count=8, provider="gke"),
    shm_size("128Gi"),
    mount_pvc("training-data", "/data", read_only=True),
    mount_secret("gcs-credentials", "/var/secrets/gcs"),
    add_env(NCCL_DEBUG="INFO", GOOGLE_APPLICATION_CREDENTIALS="/var/secrets/gcs/key.json"),
    anti_affinity(),
    priority_class("ml-training"),
    kueue_queue("ml-team"),
    istio_sidecar(False),
    add_labels(team="ml"),
    termination_grace_period(120),
)
