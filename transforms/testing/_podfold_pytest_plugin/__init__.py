"""podfold's pytest plugin: fixtures that render realistic pods with TorchX.

Installed as the top-level module ``_podfold_pytest_plugin`` (its source
lives here, beside the kit it serves) and registered with pytest, so every
test session of anyone who installs podfold loads it. Hence its name, which
no project of a user's would have, and its loading imports nothing beyond
pytest: a project with its own ``transforms``, ``recipes`` or
``combinators`` keeps them. podfold, TorchX and the kubernetes client are
imported by a fixture, when a test asks for it; where a project's own
module of the same name is found first, the fixture fails saying so.
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

import importlib
import importlib.util
from collections.abc import Callable
from types import ModuleType
from typing import Any, NoReturn

import pytest

__all__ = ("torchx_app", "pod", "pod_factory")

# the import packages the kit's pods module needs, in the order they are imported
_PODFOLD_PACKAGES = ("transforms", "combinators")


def _where(name: str) -> str:
    """Where ``import name`` finds its module in this session, in words."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError) as error:  # a module without a spec, or a broken parent
        return f"nowhere ({error})"
    if spec is None:
        return "nowhere"
    return str(spec.origin or next(iter(spec.submodule_search_locations or ()), spec.name))


def _fail_shadowed(name: str, cause: BaseException | None) -> NoReturn:
    """Fail the test that asked for a fixture: a module of the user's named ``name`` hides podfold's."""
    pytest.fail(
        f"podfold's fixtures ({', '.join(__all__)}) need podfold's {name!r} package, but here "
        f"'import {name}' finds {_where(name)}, your project's own module of that name, first "
        f"on sys.path (pytest puts your tests' folder there, 'python -m pytest' the current "
        f"directory too). One process holds one top-level {name!r}: to use podfold's fixtures, "
        f"move your module into your project's package (e.g. 'myproject/{name}.py', imported "
        f"as 'from myproject import {name}') or rename it."
        + (f"\n(the import failed with: {cause!r})" if cause is not None else ""),
        pytrace=False,
    )


def _pods_module() -> ModuleType:
    """podfold's ``transforms.testing.pods``, or a plain error if a user's module shadows podfold's."""
    for name in _PODFOLD_PACKAGES:
        spec = importlib.util.find_spec(name)  # a top-level name: imports nothing new
        if spec is not None and spec.submodule_search_locations is None:
            _fail_shadowed(name, None)  # a plain module (``transforms.py``), not a package
    try:
        return importlib.import_module("transforms.testing.pods")
    except ImportError as error:
        if error.name is not None and error.name.split(".")[0] in _PODFOLD_PACKAGES:
            _fail_shadowed(error.name.split(".")[0], error)
        raise  # TorchX or the kubernetes client missing: its own message says which


@pytest.fixture
def torchx_app() -> Any:
    """A fresh TorchX ``AppDef``: a trainer with two GPU replicas and a parameter server
    (:func:`transforms.testing.pods.sample_app`)."""
    return _pods_module().sample_app()


@pytest.fixture
def pod(torchx_app: Any) -> dict[str, Any]:
    """The first pod TorchX renders for ``torchx_app`` (replica 0 of the trainer),
    as a plain API-form dict: what an overlay is given at launch."""
    rendered: list[dict[str, Any]] = _pods_module().render_pods(torchx_app)
    return rendered[0]


@pytest.fixture
def pod_factory() -> Callable[..., list[dict[str, Any]]]:
    """A function rendering pods with TorchX: ``pod_factory(*roles, overlays=(), **role_options)``.

    With no roles it renders one :func:`transforms.testing.pods.sample_role`
    built from ``role_options`` (``replicas``, ``cpu``, ``gpu``, ``memMB``,
    ``env``, ``ports``, ``mounts``, ``image``, ``args``); it returns one pod per
    replica (:func:`transforms.testing.pods.make_pods`).
    """
    make_pods: Callable[..., list[dict[str, Any]]] = _pods_module().make_pods
    return make_pods
