"""podfold's pytest plugin: fixtures that render realistic pods with TorchX.

Registered with pytest when podfold is installed, so every test session
loads it: it imports nothing beyond pytest at load time. TorchX and the
kubernetes client are imported by a fixture, when a test asks for it.
Fixtures cannot be called outside pytest; a test uses them so::

    from transforms.testing import assert_idempotent, assert_valid_pod

    def test_gpu_pool(pod, pod_factory):
        new = assert_idempotent(gpu_pool, pod)
        assert_valid_pod(new)
        for replica in pod_factory(replicas=4, gpu=8, mounts={"/data": "datasets"}):
            assert_valid_pod(gpu_pool(replica))

A conftest's fixture of the same name takes precedence: define your own
``torchx_app`` and ``pod`` renders your app's first pod.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

__all__ = ("torchx_app", "pod", "pod_factory")


@pytest.fixture
def torchx_app() -> Any:
    """A fresh TorchX ``AppDef``: a trainer with two GPU replicas and a parameter server
    (:func:`transforms.testing.pods.sample_app`)."""
    from transforms.testing.pods import sample_app

    return sample_app()


@pytest.fixture
def pod(torchx_app: Any) -> dict[str, Any]:
    """The first pod TorchX renders for ``torchx_app`` (replica 0 of the trainer),
    as a plain API-form dict: what an overlay is given at launch."""
    from transforms.testing.pods import render_pods

    return render_pods(torchx_app)[0]


@pytest.fixture
def pod_factory() -> Callable[..., list[dict[str, Any]]]:
    """A function rendering pods with TorchX: ``pod_factory(*roles, overlays=(), **role_options)``.

    With no roles it renders one :func:`transforms.testing.pods.sample_role`
    built from ``role_options`` (``replicas``, ``cpu``, ``gpu``, ``memMB``,
    ``env``, ``ports``, ``mounts``, ``image``, ``args``); it returns one pod per
    replica (:func:`transforms.testing.pods.make_pods`).
    """
    from transforms.testing.pods import make_pods

    return make_pods
