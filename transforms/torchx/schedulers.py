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

Run options beyond TorchX's own (:mod:`transforms.torchx.options`): ``overlays``
(YAML paths or URIs for every role), ``role_overlays`` (``ROLE:URI`` items:
an overlay for one role), ``validate`` (default true: check each pod
against the official schema and its references), ``k8s_version`` (the
schema's version), ``policy`` (``baseline`` or ``restricted``: the Pod
Security Standards), ``allow`` and ``deny`` (paths the overlays may change,
or not) and ``conflicts`` (``last-wins``, ``warn`` or ``error``). A key
neither TorchX nor podfold has is refused, with a near miss.

Every error is a :class:`~transforms.torchx.errors.LaunchError`, which
``torchx run`` prints as one short message naming role, replica and path
(or the run option); a failing check lists every violation of every role
and replica.

TorchX's own scheduler is handed the roles without ``metadata["kubernetes"]``:
podfold alone reads it, so where TorchX applies overlays itself (newer
releases) nothing is applied twice. Where TorchX has no MCAD scheduler (newer
releases), ``kubernetes_mcad_overlay`` says so when it is created.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import yaml
from torchx.schedulers.api import AppDryRunInfo
from torchx.schedulers.kubernetes_scheduler import (
    KubernetesJob,
    KubernetesScheduler,
    sanitize_for_serialization,
)
from torchx.specs import AppDef, runopts

from combinators import ArgumentError, TransformError
from transforms.io.quoting import QuotingDumper
from transforms.kube.schema import UnsupportedVersionError
from transforms.torchx.errors import LaunchError, RunOptionError
from transforms.torchx.folding import FoldSettings, fold_app_wrapper, fold_volcano_job
from transforms.torchx.options import add_options, fold_settings
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


def _dry_run(render: Callable[[AppDef, Any], AppDryRunInfo[Any]], app: AppDef, cfg: Any,
             fold: Callable[[AppDef, Any, FoldSettings], dict[str, Any]],
             job: Callable[..., Any]) -> AppDryRunInfo[Any]:
    """TorchX's dry-run info (``render``) with its request's pods folded.

    The run configuration is read, and checked, before anything is rendered: a
    value its option cannot take is a :class:`~transforms.torchx.errors.RunOptionError`.
    Every podfold error comes out as a :class:`~transforms.torchx.errors.LaunchError`
    (the original as its cause), which TorchX's CLI prints as one short message.
    """
    try:
        settings = fold_settings(cfg)
    except (ArgumentError, UnsupportedVersionError) as err:  # a value its option cannot take
        raise _option_error(err, cfg) from err
    except TransformError as err:  # an overlay a run option names cannot be read or built
        raise LaunchError(str(err)) from err
    try:
        info = render(without_overlays(app), cfg)
    except Exception as err:  # TorchX's renderer refused the app: a role with no resource, ...
        raise LaunchError(f"TorchX cannot render the app {app.name!r}: "
                          f"{type(err).__name__}: {err}") from err
    try:
        request = info.request
        resource = fold(app, request.resource, settings)
    except LaunchError:
        raise
    except TransformError as err:
        raise LaunchError(str(err)) from err
    return AppDryRunInfo(job(resource=resource, images_to_push=request.images_to_push),
                         _request_yaml)


def _request_yaml(request: Any) -> str:
    """What TorchX prints of a request (``yaml.dump`` of its resource), but for the
    strings kubectl would read as numbers or booleans (``1e-4``, ``y``): quoted."""
    return str(yaml.dump(sanitize_for_serialization(request.resource), Dumper=QuotingDumper))


def _option_error(err: TransformError, cfg: Any) -> RunOptionError:
    """``err``, found reading the run configuration ``cfg``, as a :class:`RunOptionError`
    whose message starts with the run option (``run option policy is one of ...``)."""
    if not isinstance(err, ArgumentError):  # the version's error names its option already
        return RunOptionError(str(err), key="k8s_version", value=cfg.get("k8s_version"))
    text = TransformError.__str__(err)  # without the factory (PathPolicy) the user never wrote
    if not text.startswith(f"{err.argument} ") and not text.startswith(f"{err.argument}:"):
        text = f"{err.argument}: {text}"
    return RunOptionError(f"run option {text}", key=err.argument, value=cfg.get(err.argument))


class KubernetesOverlayScheduler(KubernetesScheduler):
    """TorchX's Volcano scheduler, with each role's overlays folded over its pods."""

    def _submit_dryrun(self, app: AppDef, cfg: Any) -> AppDryRunInfo[KubernetesJob]:
        return _dry_run(super()._submit_dryrun, app, cfg, fold_volcano_job, KubernetesJob)

    def _run_opts(self) -> runopts:
        return add_options(super()._run_opts(), "kubernetes_overlay")


class KubernetesMCADOverlayScheduler(KubernetesMCADScheduler or KubernetesScheduler):  # type: ignore[misc]
    """TorchX's MCAD (AppWrapper) scheduler, with each role's overlays folded over its pods."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if _MCAD_MISSING is not None:  # the user's TorchX, not a bug: a short message
            raise LaunchError("kubernetes_mcad_overlay needs TorchX's kubernetes_mcad "
                              f"scheduler, which this TorchX lacks: {_MCAD_MISSING}")
        super().__init__(*args, **kwargs)

    def _submit_dryrun(self, app: AppDef, cfg: Any) -> AppDryRunInfo[Any]:
        return _dry_run(super()._submit_dryrun, app, cfg, fold_app_wrapper, KubernetesMCADJob)

    def run_opts(self) -> runopts:
        # TorchX's MCAD scheduler builds its options in run_opts, not _run_opts
        return add_options(super().run_opts(), "kubernetes_mcad_overlay")


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
