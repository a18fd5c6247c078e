"""Known accelerator types and the node labels each provider gives them.

One row per GPU model, in the label vocabulary of each provider:

- ``gke``: ``cloud.google.com/gke-accelerator``, set by GKE on every GPU node;
- ``eks``: ``k8s.amazonaws.com/accelerator``, the conventional EKS label
  (cluster autoscaler, Flyte; set it on your node groups);
- ``gfd``: ``nvidia.com/gpu.product``, set by NVIDIA GPU Feature Discovery
  (the GPU operator) from the product name; one model has several
  (SXM, PCIe), so it is matched with ``In``.

Where a provider does not offer a model the entry is absent. Short names
(``a100``, ``h100``, ``h200``) are aliases; the providers' own values are
accepted too.

>>> lookup_gpu("a100-80gb", "gke")
('nvidia-a100-80gb',)
>>> lookup_gpu("nvidia-tesla-t4", "eks")
('nvidia-tesla-t4',)
>>> lookup_gpu("a10g", "gke")
Traceback (most recent call last):
  ...
combinators.errors.ArgumentError: type 'a10g' is not a GPU gke offers (offered by: eks, gfd); known gke types: a100-40gb, a100-80gb, h100-80gb, h100-mega-80gb, h200-141gb, b200, l4, t4, v100, p100, p4 (or their label values, or provider='custom' with label=)
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from combinators.limits import short_repr
from combinators.near import did_you_mean, near_misses
from recipes._check import bad_value

__all__ = (
    "GPU_LABELS",
    "GPU_TYPES",
    "GPU_ALIASES",
    "TPU_TYPES",
    "lookup_gpu",
    "lookup_tpu",
    "PROVIDERS",
)

GPU_LABELS: Mapping[str, str] = MappingProxyType(
    {
        "gke": "cloud.google.com/gke-accelerator",
        "eks": "k8s.amazonaws.com/accelerator",
        "gfd": "nvidia.com/gpu.product",
    }
)
"""The node label each provider puts GPU models in."""

PROVIDERS = ("gke", "eks", "gfd", "custom")

_T = tuple[str, ...]


def _row(gke: str | None, eks: str | None, gfd: _T) -> Mapping[str, _T]:
    row: dict[str, _T] = {"gfd": gfd}
    if gke:
        row["gke"] = (gke,)
    if eks:
        row["eks"] = (eks,)
    return MappingProxyType(row)


GPU_TYPES: Mapping[str, Mapping[str, _T]] = MappingProxyType(
    {
        "a100-40gb": _row(
            "nvidia-tesla-a100",
            "nvidia-tesla-a100",
            ("NVIDIA-A100-SXM4-40GB", "NVIDIA-A100-PCIE-40GB"),
        ),
        "a100-80gb": _row(
            "nvidia-a100-80gb",
            "nvidia-a100-80gb",
            ("NVIDIA-A100-SXM4-80GB", "NVIDIA-A100-80GB-PCIe"),
        ),
        "h100-80gb": _row(
            "nvidia-h100-80gb", "nvidia-h100", ("NVIDIA-H100-80GB-HBM3", "NVIDIA-H100-PCIe")
        ),
        "h100-mega-80gb": _row("nvidia-h100-mega-80gb", None, ("NVIDIA-H100-80GB-HBM3",)),
        "h200-141gb": _row("nvidia-h200-141gb", "nvidia-h200", ("NVIDIA-H200",)),
        "b200": _row("nvidia-b200", "nvidia-b200", ("NVIDIA-B200",)),
        "l4": _row("nvidia-l4", "nvidia-l4", ("NVIDIA-L4",)),
        "l40s": _row(None, "nvidia-l40s", ("NVIDIA-L40S",)),
        "a10g": _row(None, "nvidia-a10g", ("NVIDIA-A10G",)),
        "t4": _row("nvidia-tesla-t4", "nvidia-tesla-t4", ("Tesla-T4",)),
        "v100": _row(
            "nvidia-tesla-v100",
            "nvidia-tesla-v100",
            (
                "Tesla-V100-SXM2-16GB",
                "Tesla-V100-SXM2-32GB",
                "Tesla-V100-PCIE-16GB",
                "Tesla-V100-PCIE-32GB",
            ),
        ),
        "p100": _row("nvidia-tesla-p100", None, ("Tesla-P100-PCIE-16GB",)),
        "p4": _row("nvidia-tesla-p4", None, ("Tesla-P4",)),
    }
)
"""GPU model -> provider -> the label values that mean it."""

GPU_ALIASES: Mapping[str, str] = MappingProxyType(
    {
        "a100": "a100-40gb",
        "h100": "h100-80gb",
        "h200": "h200-141gb",
    }
)

TPU_TYPES: Mapping[str, str] = MappingProxyType(
    {
        "v4": "tpu-v4-podslice",
        "v5e": "tpu-v5-lite-podslice",
        "v5e-device": "tpu-v5-lite-device",
        "v5p": "tpu-v5p-slice",
        "v6e": "tpu-v6e-slice",
    }
)
"""Short TPU names -> GKE's ``cloud.google.com/gke-tpu-accelerator`` values."""


def lookup_gpu(type: str, provider: str) -> _T:
    """The label values that mean GPU ``type`` for ``provider`` (not ``custom``)."""
    model = GPU_ALIASES.get(type, type)
    row = GPU_TYPES.get(model)
    if row is not None and provider in row:
        return row[provider]
    for values in (row[provider] for row in GPU_TYPES.values() if provider in row):
        if type in values:
            return (type,)
    known = ", ".join(name for name, row in GPU_TYPES.items() if provider in row)
    bad_value(
        "type",
        type,
        f"type {short_repr(type)} is not a GPU {provider} offers{_hint(type, provider)}; "
        f"known {provider} types: {known} (or their label values, or provider='custom' "
        f"with label=)",
    )


def lookup_tpu(type: str) -> str:
    """GKE's label value for TPU ``type`` (a short name or the value itself).

    >>> lookup_tpu("v5e"), lookup_tpu("tpu-v6e-slice")
    ('tpu-v5-lite-podslice', 'tpu-v6e-slice')
    """
    if type in TPU_TYPES:
        return TPU_TYPES[type]
    if type in TPU_TYPES.values():
        return type
    bad_value(
        "type",
        type,
        f"type must be a TPU type: one of {', '.join(TPU_TYPES)} or its "
        f"GKE label value ({', '.join(TPU_TYPES.values())}), got {short_repr(type)}",
    )


def _names(provider: str) -> dict[str, str]:
    """Every name that means a GPU ``provider`` offers, lower-cased, to the name as
    the table spells it: the models, their aliases and the provider's label values."""
    names: dict[str, str] = {}
    for model, row in GPU_TYPES.items():
        if provider in row:
            names[model] = model
            names.update((value.lower(), value) for value in row[provider])
    names.update(
        (alias, alias) for alias, model in GPU_ALIASES.items() if provider in GPU_TYPES[model]
    )
    return names


def _offering(lowered: str) -> list[str]:
    """The providers offering the GPU a lower-cased name (a model, an alias or any
    provider's label value) means, in table order; none for a name no row knows."""
    model = GPU_ALIASES.get(lowered, lowered)
    for name, row in GPU_TYPES.items():
        if name == model or any(
            lowered == value.lower() for values in row.values() for value in values
        ):
            return [provider for provider in PROVIDERS if provider in row]
    return []


def _hint(type: str, provider: str) -> str:
    """The near miss for an unknown GPU ``type``: the same name in another case, the
    providers that offer it, or a close spelling (:func:`~combinators.near.near_misses`).

    >>> _hint("A100", "gke"), _hint("nvidia-a100", "gke"), _hint("a10g", "gke")
    ('; did you mean a100?', '; did you mean nvidia-a100-80gb?', ' (offered by: eks, gfd)')
    """
    lowered = type.lower()
    names = _names(provider)
    offering = [] if lowered in names else _offering(lowered)
    if offering:
        return f" (offered by: {', '.join(offering)})"
    return did_you_mean(near_misses(type, list(names.values()), n=1))
