"""What the TorchX installed has, for the tests that hold on TorchX 0.7.0 and torchx-nightly.

Newer TorchX removed its ``kubernetes_mcad`` scheduler, so ``kubernetes_mcad_overlay`` has
nothing to render with there: a test of what it renders skips, saying so (its stand-in's
one-line error is tested in tests/test_torchx_nightly.py). Newer TorchX's own
``kubernetes`` scheduler asks an API server about every dry run unless
``validate_spec=False``: :func:`offline` is the run configuration a test hands it.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from typing import Any

import pytest
import torchx
from torchx.schedulers.kubernetes_scheduler import KubernetesScheduler

__all__ = (
    "HAS_MCAD",
    "HAS_VALIDATE_SPEC",
    "NO_MCAD",
    "OVERLAY_SCHEDULERS",
    "needs_mcad",
    "offline",
)

HAS_MCAD = importlib.util.find_spec("torchx.schedulers.kubernetes_mcad_scheduler") is not None
NO_MCAD = (
    f"TorchX {torchx.__version__} has no kubernetes_mcad scheduler (removed upstream), so "
    "kubernetes_mcad_overlay renders nothing here; its one-line error is tested in "
    "test_torchx_nightly.py"
)
needs_mcad = pytest.mark.skipif(not HAS_MCAD, reason=NO_MCAD)
"""A test of what ``kubernetes_mcad_overlay`` renders: only where TorchX has MCAD."""

OVERLAY_SCHEDULERS = (
    "kubernetes_overlay",
    pytest.param("kubernetes_mcad_overlay", marks=needs_mcad),
)
"""podfold's two schedulers, to parametrize a test over; the MCAD one where TorchX has MCAD."""

HAS_VALIDATE_SPEC = KubernetesScheduler("test").run_opts().get("validate_spec") is not None
"""Whether TorchX's ``kubernetes`` scheduler asks the API server inside its dry run."""


def offline(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """``cfg`` for TorchX's own ``kubernetes`` scheduler, dry-running without a cluster."""
    return {**cfg, "validate_spec": False} if HAS_VALIDATE_SPEC else dict(cfg)
