"""Testing your overlays: assertion helpers, pytest fixtures and hypothesis strategies.

The helpers need nothing beyond podfold itself. The fixtures (``pod``,
``pod_factory``, ``torchx_app``) come with podfold's pytest plugin, loaded
when podfold is installed; they render pods with TorchX
(:mod:`transforms.testing.pods`). Hypothesis strategies for pods and
transforms are in :mod:`transforms.testing.strategies`.

>>> from transforms.testing import assert_changes, assert_idempotent, assert_pure
>>> from transforms.testing import assert_valid_pod
>>> from combinators import upsert
>>> pod = {"spec": {"nodeSelector": {}, "containers": [{"name": "trainer-0", "image": "t:1"}]}}
>>> gpu_pool = upsert("spec.nodeSelector", {"gpu": "a100"})
>>> new = assert_idempotent(gpu_pool, assert_pure(gpu_pool, pod))
>>> assert_changes(gpu_pool, pod, only=["spec.nodeSelector"])
['spec.nodeSelector.gpu']
>>> assert_valid_pod(new) is new
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from transforms._lazy import lazy_exports

if TYPE_CHECKING:
    from transforms.analysis.footprint import changed_paths, changes
    from transforms.testing.assertions import (
        assert_changes,
        assert_idempotent,
        assert_pure,
        assert_valid_pod,
        describe_difference,
    )

__all__ = (
    "assert_pure",
    "assert_idempotent",
    "assert_valid_pod",
    "assert_changes",
    "changed_paths",
    "changes",
    "describe_difference",
)

# the helpers load when first asked for: importing the kit stays cheap
_HOMES = {
    "assert_pure": "transforms.testing.assertions",
    "assert_idempotent": "transforms.testing.assertions",
    "assert_valid_pod": "transforms.testing.assertions",
    "assert_changes": "transforms.testing.assertions",
    "describe_difference": "transforms.testing.assertions",
    "changed_paths": "transforms.analysis.footprint",
    "changes": "transforms.analysis.footprint",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals())
