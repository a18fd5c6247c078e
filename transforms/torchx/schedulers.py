"""TorchX schedulers that fold each role's overlays over every pod they render.

``kubernetes_overlay`` renders what TorchX's ``kubernetes`` scheduler renders
(a Volcano Job) and ``kubernetes_mcad_overlay`` what ``kubernetes_mcad``
renders (an AppWrapper); then every pod gets its role's overlays, in order,
then the ones given at launch for every role (``-cfg 'overlays=a.yaml;b.yaml'``),
then the ones given at launch for one role
(``-cfg 'role_overlays=trainer:gpu.yaml;ps:cpu.yaml'``). The overlays have
the last word over what TorchX rendered, labels included.
Both are registered with TorchX when podfold is installed::

    torchx run --scheduler kubernetes_overlay --dryrun --workspace "" \\
        -cfg queue=default,overlays=examples/a100.yaml examples/trainer.py:trainer

Run options beyond TorchX's own: ``overlays`` (YAML paths or URIs for every
role), ``role_overlays`` (``ROLE:URI`` items: an overlay for one role),
``validate`` (default true: check each pod against the official
schema and its references) and ``k8s_version`` (the schema's version).

TorchX's own scheduler is handed the roles without ``metadata["kubernetes"]``:
podfold alone reads it, so where TorchX applies overlays itself (newer
releases) nothing is applied twice. Where TorchX has no MCAD scheduler (newer
releases), ``kubernetes_mcad_overlay`` says so when it is created.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, List  # noqa: UP035 - torchx compares option types with typing.List[str]

from torchx.schedulers.api import AppDryRunInfo
from torchx.schedulers.kubernetes_scheduler import KubernetesJob, KubernetesScheduler
from torchx.specs import AppDef, runopts

from combinators import ArgumentError, Transform
from transforms.io.loading import load_overlay
from transforms.kube.schema import DEFAULT_VERSION
from transforms.torchx.folding import FoldSettings, fold_app_wrapper, fold_volcano_job
from transforms.torchx.roles import METADATA_KEY

try:  # TorchX releases after 0.7.0 have no MCAD scheduler
    from torchx.schedulers.kubernetes_mcad_scheduler import (
        KubernetesMCADJob,
        KubernetesMCADScheduler,
    )
except ImportError as _missing:  # pragma: no cover - depends on the TorchX release
    _MCAD_MISSING: ImportError | None = _missing
    KubernetesMCADJob = KubernetesMCADScheduler = None
else:
    _MCAD_MISSING = None

__all__ = ("KubernetesOverlayScheduler", "KubernetesMCADOverlayScheduler",
           "create_kubernetes_overlay", "create_kubernetes_mcad_overlay", "fold_settings",
           "without_overlays")


def _add_options(opts: runopts) -> runopts:
    opts.add("overlays", type_=List[str],  # noqa: UP006
             help="YAML overlays (paths or URIs, ';'-separated) applied to every role's "
                  "pods after the role's own")
    opts.add("role_overlays", type_=List[str],  # noqa: UP006
             help="YAML overlays for one role each, as ROLE:URI items (';'-separated), "
                  "applied after the ones for every role")
    opts.add("validate", type_=bool, default=True,
             help="check every pod against the official Kubernetes schema and its references")
    opts.add("k8s_version", type_=str, default=DEFAULT_VERSION,
             help="the Kubernetes version whose schema pods are checked against")
    return opts


def _items(value: Any) -> list[str]:
    if isinstance(value, str):
        return [item for item in value.replace(";", ",").split(",") if item]
    return list(value or [])


def _per_role(items: list[str]) -> tuple[tuple[str, tuple[Transform, ...]], ...]:
    """``ROLE:URI`` items as (role, overlays) pairs, roles in the order first named."""
    found: dict[str, list[Transform]] = {}
    for item in items:
        role, colon, uri = item.partition(":")
        if not (colon and role and uri):
            raise ArgumentError(f"an item is ROLE:URI (trainer:gpu.yaml), got {item!r}",
                                argument="role_overlays", value=item)
        found.setdefault(role, []).append(load_overlay(uri))
    return tuple((role, tuple(overlays)) for role, overlays in found.items())


def fold_settings(cfg: Mapping[str, Any]) -> FoldSettings:
    """The fold's settings from a scheduler's run configuration.

    >>> settings = fold_settings({"validate": False})
    >>> settings.extra, settings.per_role, settings.validate
    ((), (), False)
    >>> fold_settings({"role_overlays": "trainer"})
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: role_overlays: an item is ROLE:URI (trainer:gpu.yaml), got 'trainer'
    """
    validate = cfg.get("validate")
    return FoldSettings(extra=tuple(load_overlay(uri) for uri in _items(cfg.get("overlays"))),
                        validate=True if validate is None else bool(validate),
                        k8s_version=cfg.get("k8s_version") or None,
                        per_role=_per_role(_items(cfg.get("role_overlays"))))


def without_overlays(app: AppDef) -> AppDef:
    """A shallow copy of ``app`` whose roles lack ``metadata["kubernetes"]``.

    What TorchX renders from it is what podfold folds over; newer TorchX
    releases would otherwise apply (or fail to read) the overlays themselves.
    """
    if not any(METADATA_KEY in role.metadata for role in app.roles):
        return app
    roles = [dataclasses.replace(role, metadata={key: value for key, value
                                                 in role.metadata.items()
                                                 if key != METADATA_KEY})
             for role in app.roles]
    return dataclasses.replace(app, roles=roles)


def _folded(app: AppDef, info: AppDryRunInfo[Any], settings: FoldSettings,
            fold: Callable[[AppDef, Any, FoldSettings], dict[str, Any]],
            job: Callable[..., Any]) -> AppDryRunInfo[Any]:
    """TorchX's dry-run info with its request's pods folded."""
    request = info.request
    return AppDryRunInfo(job(resource=fold(app, request.resource, settings),
                             images_to_push=request.images_to_push), repr)


class KubernetesOverlayScheduler(KubernetesScheduler):
    """TorchX's Volcano scheduler, with each role's overlays folded over its pods."""

    def _submit_dryrun(self, app: AppDef, cfg: Any) -> AppDryRunInfo[KubernetesJob]:
        settings = fold_settings(cfg)  # read the launch-time overlays before rendering
        info = super()._submit_dryrun(without_overlays(app), cfg)
        return _folded(app, info, settings, fold_volcano_job, KubernetesJob)

    def _run_opts(self) -> runopts:
        return _add_options(super()._run_opts())


class KubernetesMCADOverlayScheduler(KubernetesMCADScheduler or KubernetesScheduler):  # type: ignore[misc]
    """TorchX's MCAD (AppWrapper) scheduler, with each role's overlays folded over its pods."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if _MCAD_MISSING is not None:
            raise RuntimeError("kubernetes_mcad_overlay needs TorchX's kubernetes_mcad "
                               f"scheduler, which this TorchX lacks: {_MCAD_MISSING}")
        super().__init__(*args, **kwargs)

    def _submit_dryrun(self, app: AppDef, cfg: Any) -> AppDryRunInfo[Any]:
        settings = fold_settings(cfg)
        info = super()._submit_dryrun(without_overlays(app), cfg)
        return _folded(app, info, settings, fold_app_wrapper, KubernetesMCADJob)

    def run_opts(self) -> runopts:
        # TorchX's MCAD scheduler builds its options in run_opts, not _run_opts
        return _add_options(super().run_opts())


def create_kubernetes_overlay(session_name: str, client: Any = None,
                              docker_client: Any = None, **kwargs: Any,
                              ) -> KubernetesOverlayScheduler:
    """The factory TorchX calls for ``--scheduler kubernetes_overlay``."""
    return KubernetesOverlayScheduler(session_name=session_name, client=client,
                                      docker_client=docker_client)


def create_kubernetes_mcad_overlay(session_name: str, client: Any = None,
                                   docker_client: Any = None, **kwargs: Any,
                                   ) -> KubernetesMCADOverlayScheduler:
    """The factory TorchX calls for ``--scheduler kubernetes_mcad_overlay``."""
    return KubernetesMCADOverlayScheduler(session_name=session_name, client=client,
                                          docker_client=docker_client)
