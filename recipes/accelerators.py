"""Accelerators: GPUs, MIG partitions, TPUs, EFA and RDMA devices.

Each recipe steers the pod to matching nodes (a node label), tolerates the
taint such nodes carry, and asks for the device on the main container (or
the one named by ``container``), setting request and limit alike, as
Kubernetes requires for extended resources.
"""

from __future__ import annotations

import re

from combinators import Transform, append_at, chain, upsert
from combinators.limits import short_repr
from recipes._check import (
    bad_type,
    bad_value,
    check_choice,
    check_int,
    check_label_value,
    check_nonempty_string,
    check_qualified_name,
)
from recipes._recipe import recipe
from recipes._target import ContainerTarget, on_container
from recipes.containers import set_resources
from recipes.gpu_types import GPU_LABELS, PROVIDERS, lookup_gpu, lookup_tpu
from recipes.scheduling import node_expression, require_expression, toleration_value

__all__ = (
    "gpu",
    "mig",
    "tpu",
    "efa",
    "rdma",
    "GPU_RESOURCE",
    "TPU_RESOURCE",
    "EFA_RESOURCE",
    "request_devices",
)

GPU_RESOURCE = "nvidia.com/gpu"
TPU_RESOURCE = "google.com/tpu"
EFA_RESOURCE = "vpc.amazonaws.com/efa"
MIG_LABELS = {
    "gke": "cloud.google.com/gke-gpu-partition-size",
    "eks": "k8s.amazonaws.com/gpu-partition-size",
}

_MIG_PROFILE = re.compile(r"[1-8]g\.[0-9]+gb\Z")
_TOPOLOGY = re.compile(r"[1-9][0-9]*x[1-9][0-9]*(x[1-9][0-9]*)?\Z")


def request_devices(resource: str, count: int, container: ContainerTarget) -> Transform:
    """Request and limit ``count`` of ``resource`` on the selected container(s)."""
    amount = {resource: str(count)}
    return on_container(container, set_resources(amount, amount))


def _tolerate(key: str) -> Transform:
    return append_at("spec.tolerations", toleration_value(key, effect="NoSchedule"), unique=True)


def _steps(*steps: Transform | None) -> Transform:
    result = chain(*(step for step in steps if step is not None))
    assert isinstance(result, Transform)
    return result


@recipe(
    synonyms={
        "gpus": "count",
        "num_gpus": "count",
        "gpu_count": "count",
        "n_gpus": "count",
        "gpu_type": "type",
        "model": "type",
        "accelerator": "type",
    }
)
def gpu(
    type: str,
    count: int | None = None,
    provider: str = "gke",
    label: str | None = None,
    container: ContainerTarget = None,
) -> Transform:
    """Run on nodes with GPU ``type``, tolerate their taint, and ask for ``count`` GPUs.

    ``provider`` picks the node label vocabulary: ``'gke'``
    (``cloud.google.com/gke-accelerator``, in ``spec.nodeSelector``),
    ``'eks'`` (``k8s.amazonaws.com/accelerator``, in ``spec.nodeSelector``),
    ``'gfd'`` (NVIDIA GPU Feature Discovery's ``nvidia.com/gpu.product``, a
    required node affinity over the model's product names), or ``'custom'``
    with ``label=`` (then ``type`` is the label's value, unchecked against the
    table). Adds the toleration ``nvidia.com/gpu`` Exists NoSchedule; with a
    ``count``, sets ``resources.requests`` and ``limits`` ``nvidia.com/gpu``.
    See :mod:`recipes.gpu_types` for the known types.

    >>> pod = {"spec": {"containers": [{"name": "trainer-0"}]}}
    >>> new = gpu("a100-80gb", count=8)(pod)
    >>> new["spec"]["nodeSelector"], new["spec"]["tolerations"]
    ({'cloud.google.com/gke-accelerator': 'nvidia-a100-80gb'}, [{'key': 'nvidia.com/gpu', 'operator': 'Exists', 'effect': 'NoSchedule'}])
    >>> new["spec"]["containers"][0]["resources"]
    {'requests': {'nvidia.com/gpu': '8'}, 'limits': {'nvidia.com/gpu': '8'}}
    >>> gpu("h100", provider="eks")(pod)["spec"]["nodeSelector"]
    {'k8s.amazonaws.com/accelerator': 'nvidia-h100'}
    >>> gpu("rtx-4090", provider="custom", label="example.com/gpu")(pod)["spec"]["nodeSelector"]
    {'example.com/gpu': 'rtx-4090'}
    """
    check_choice("provider", provider, PROVIDERS)
    if label is not None:
        check_qualified_name("label", label)
    if provider == "custom":
        if label is None:
            bad_value(
                "label",
                label,
                "provider='custom' needs label=, the node label holding the GPU type",
            )
        check_label_value("type", type)
        steer: Transform = upsert("spec.nodeSelector", {label: type})
    else:
        if label is not None:
            bad_value(
                "label",
                label,
                f"label= only goes with provider='custom'; provider "
                f"{short_repr(provider)} uses {short_repr(GPU_LABELS[provider])}, got label={short_repr(label)}",
            )
        values = lookup_gpu(check_nonempty_string("type", type), provider)
        if provider == "gfd":
            steer = require_expression(node_expression(GPU_LABELS[provider], values, "In"))
        else:
            steer = upsert("spec.nodeSelector", {GPU_LABELS[provider]: values[0]})
    devices = None
    if count is not None:
        devices = request_devices(GPU_RESOURCE, check_int("count", count, minimum=1), container)
    return _steps(steer, _tolerate(GPU_RESOURCE), devices)


@recipe
def mig(
    profile: str, count: int = 1, provider: str | None = None, container: ContainerTarget = None
) -> Transform:
    """Ask for ``count`` MIG partitions of a ``profile`` such as ``'1g.5gb'`` (``nvidia.com/mig-<profile>``).

    With the NVIDIA device plugin's *mixed* strategy each profile is its own
    resource, ``nvidia.com/mig-1g.5gb``. ``provider='eks'`` also selects
    nodes by ``k8s.amazonaws.com/gpu-partition-size``; ``provider='gke'``
    selects by ``cloud.google.com/gke-gpu-partition-size`` and, as GKE
    exposes partitions as whole GPUs, asks for ``nvidia.com/gpu``.
    Tolerates ``nvidia.com/gpu`` NoSchedule.

    >>> pod = mig("1g.5gb", count=2)({"spec": {"containers": [{"name": "t"}]}})
    >>> pod["spec"]["containers"][0]["resources"]["limits"]
    {'nvidia.com/mig-1g.5gb': '2'}
    >>> mig("1g.5gb", provider="eks")({"spec": {"containers": [{"name": "t"}]}})["spec"]["nodeSelector"]
    {'k8s.amazonaws.com/gpu-partition-size': '1g.5gb'}
    >>> mig("1g-5gb")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: mig(): profile must be a MIG profile such as '1g.5gb', '3g.40gb' or '7g.80gb', got '1g-5gb'
    """
    if not isinstance(profile, str):
        bad_type("profile", profile, "a MIG profile such as '1g.5gb'")
    if not _MIG_PROFILE.match(profile):
        bad_value(
            "profile",
            profile,
            f"profile must be a MIG profile such as '1g.5gb', "
            f"'3g.40gb' or '7g.80gb', got {short_repr(profile)}",
        )
    check_int("count", count, minimum=1)
    if provider is not None:
        check_choice("provider", provider, tuple(MIG_LABELS))
    steer = upsert("spec.nodeSelector", {MIG_LABELS[provider]: profile}) if provider else None
    resource = GPU_RESOURCE if provider == "gke" else f"nvidia.com/mig-{profile}"
    return _steps(steer, _tolerate(GPU_RESOURCE), request_devices(resource, count, container))


@recipe(synonyms={"chips": "count", "num_chips": "count", "tpus": "count", "accelerator": "type"})
def tpu(type: str, topology: str, count: int, container: ContainerTarget = None) -> Transform:
    """Run on a GKE TPU slice: ``type`` (``v5e``, ``v5p``, ``v6e``, ...), ``topology`` (``2x4``), ``count`` chips.

    Sets ``spec.nodeSelector`` ``cloud.google.com/gke-tpu-accelerator`` and
    ``cloud.google.com/gke-tpu-topology``, tolerates ``google.com/tpu``
    NoSchedule and asks for ``google.com/tpu`` chips per pod.

    >>> pod = tpu("v5e", "2x4", count=4)({"spec": {"containers": [{"name": "t"}]}})
    >>> pod["spec"]["nodeSelector"]
    {'cloud.google.com/gke-tpu-accelerator': 'tpu-v5-lite-podslice', 'cloud.google.com/gke-tpu-topology': '2x4'}
    >>> pod["spec"]["containers"][0]["resources"]["limits"]
    {'google.com/tpu': '4'}
    """
    if not isinstance(type, str):
        bad_type("type", type, "a TPU type such as 'v5e'")
    accelerator = lookup_tpu(type)
    if not isinstance(topology, str):
        bad_type("topology", topology, "text such as '2x4' or '2x2x4'")
    if not _TOPOLOGY.match(topology):
        bad_value(
            "topology",
            topology,
            f"topology must read like '2x4' or '2x2x4', got {short_repr(topology)}",
        )
    check_int("count", count, minimum=1)
    return _steps(
        upsert(
            "spec.nodeSelector",
            {
                "cloud.google.com/gke-tpu-accelerator": accelerator,
                "cloud.google.com/gke-tpu-topology": topology,
            },
        ),
        _tolerate(TPU_RESOURCE),
        request_devices(TPU_RESOURCE, count, container),
    )


@recipe
def efa(count: int, container: ContainerTarget = None) -> Transform:
    """Ask for ``count`` AWS Elastic Fabric Adapter devices (``vpc.amazonaws.com/efa``).

    >>> efa(4)({"spec": {"containers": [{"name": "t"}]}})["spec"]["containers"][0]["resources"]
    {'requests': {'vpc.amazonaws.com/efa': '4'}, 'limits': {'vpc.amazonaws.com/efa': '4'}}
    """
    return request_devices(EFA_RESOURCE, check_int("count", count, minimum=1), container)


@recipe
def rdma(
    resource: str = "rdma/hca", count: int = 1, container: ContainerTarget = None
) -> Transform:
    """Ask for ``count`` RDMA devices of a device plugin's ``resource`` (e.g. ``rdma/hca``).

    RDMA usually also needs ``add_capabilities('IPC_LOCK')`` to pin memory.

    >>> rdma()({"spec": {"containers": [{"name": "t"}]}})["spec"]["containers"][0]["resources"]["limits"]
    {'rdma/hca': '1'}
    """
    check_qualified_name("resource", resource)
    if "/" not in resource:
        bad_value(
            "resource",
            resource,
            f"resource must be a device plugin resource with a "
            f"domain, such as 'rdma/hca' or 'rdma/rdma_shared_device_a', got {short_repr(resource)}",
        )
    return request_devices(resource, check_int("count", count, minimum=1), container)
