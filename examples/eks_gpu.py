"""The same GPU training job on EKS: 8 x A100 80GB per pod (p4de), with EFA networking.

Apply ``overlay`` to every pod torchx renders for the trainer role. The same
overlay in YAML pipeline form is in ``eks_gpu.yaml``.
"""

from combinators import compose
from recipes import (
    add_capabilities,
    add_env,
    add_labels,
    anti_affinity,
    efa,
    gpu,
    istio_sidecar,
    kueue_queue,
    mount_pvc,
    priority_class,
    service_account,
    shm_size,
    termination_grace_period,
)

overlay = compose(
    gpu("a100-80gb", count=8, provider="eks"),
    efa(4),
    add_capabilities("IPC_LOCK"),
    shm_size("128Gi"),
    mount_pvc("training-data", "/data", read_only=True),
    add_env(NCCL_DEBUG="INFO", FI_PROVIDER="efa", FI_EFA_USE_DEVICE_RDMA=1),
    service_account("s3-reader"),
    anti_affinity(),
    priority_class("ml-training"),
    kueue_queue("ml-team"),
    istio_sidecar(False),
    add_labels(team="ml"),
    termination_grace_period(120),
)
