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
releases), ``kubernetes_mcad_overlay`` is a stand-in
(:class:`~transforms.torchx.unavailable.UnavailableScheduler`) that says so in one
line when it is used, and under ``torchx runopts``.

**The API server.** A dry run renders and folds, offline, on every TorchX.
Newer TorchX has the run option ``validate_spec``: its own scheduler asks the
API server to dry-run the job inside every dry run, before any overlay is
applied, so ``--dryrun`` needs a cluster there. ``kubernetes_overlay`` asks
about the folded job, and when: unset (the default), once the job is submitted,
before anything is pushed or created; ``validate_spec=true``, under
``--dryrun`` too; ``false``, never. Where there is no cluster to talk to (no
kubeconfig, not in a pod), the API server cannot be reached or refuses the job,
the error is a :class:`~transforms.torchx.errors.LaunchError` in one line
naming the server and its reason.
"""

from __future__ import annotations

import dataclasses
import json
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import torchx
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
from transforms.torchx.unavailable import SchedulerUnavailableError, UnavailableScheduler

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

__all__ = (
    "KubernetesOverlayScheduler",
    "KubernetesMCADOverlayScheduler",
    "create_kubernetes_overlay",
    "create_kubernetes_mcad_overlay",
    "fold_settings",
    "without_overlays",
)


def without_overlays(app: AppDef) -> AppDef:
    """A shallow copy of ``app`` whose roles lack ``metadata["kubernetes"]``.

    What TorchX renders from it is what podfold folds over; newer TorchX
    releases would otherwise apply (or fail to read) the overlays themselves.
    """
    if not any(METADATA_KEY in role.metadata for role in app.roles):
        return app
    roles = [
        dataclasses.replace(
            role,
            metadata={key: value for key, value in role.metadata.items() if key != METADATA_KEY},
        )
        for role in app.roles
    ]
    return dataclasses.replace(app, roles=roles)


def _dry_run(
    render: Callable[[AppDef, Any], AppDryRunInfo[Any]],
    app: AppDef,
    cfg: Any,
    fold: Callable[[AppDef, Any, FoldSettings], dict[str, Any]],
    job: Callable[..., Any],
) -> AppDryRunInfo[Any]:
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
        raise LaunchError(
            f"TorchX cannot render the app {app.name!r}: {type(err).__name__}: {err}"
        ) from err
    try:
        request = info.request
        resource = fold(app, request.resource, settings)
    except LaunchError:
        raise
    except TransformError as err:
        raise LaunchError(str(err)) from err
    return AppDryRunInfo(
        job(resource=resource, images_to_push=request.images_to_push), _request_yaml
    )


VALIDATE_SPEC = "validate_spec"
"""Newer TorchX's run option: ask the API server to dry-run the job."""

_VOLCANO_JOBS = ("batch.volcano.sh", "v1alpha1", "jobs")
"""Where the API server keeps Volcano Jobs: group, version, plural."""

_HOSTNAME_LIMIT = 63
"""A pod's hostname is a DNS label; Volcano names each pod, and sets its hostname,
``JOB-TASK-INDEX``."""


def _offline(cfg: Any) -> Any:
    """``cfg`` with TorchX's own ``validate_spec`` off, where TorchX has it: TorchX
    renders only, and podfold asks the API server about the folded job. A ``cfg``
    without it (TorchX 0.7.0) is returned as it is.

    >>> _offline({"queue": "default", "validate_spec": None})
    {'queue': 'default', 'validate_spec': False}
    >>> cfg = {"queue": "default"}
    >>> _offline(cfg) is cfg
    True
    """
    if dataclasses.is_dataclass(cfg) and not isinstance(cfg, type):
        if any(field.name == VALIDATE_SPEC for field in dataclasses.fields(cfg)):
            return dataclasses.replace(cfg, **{VALIDATE_SPEC: False})
        return cfg
    if isinstance(cfg, Mapping) and VALIDATE_SPEC in cfg:
        return {**cfg, VALIDATE_SPEC: False}
    return cfg


def _as_options(scheduler: Any, cfg: Any) -> Any:
    """``cfg`` as ``scheduler``'s ``_submit_dryrun`` takes it. Newer TorchX resolves the
    run configuration into the dataclass its scheduler names (``Scheduler[Opts]``) before
    it calls ``_submit_dryrun``, whose renderer reads the fields (``cfg.queue``); a plain
    mapping handed to ``_submit_dryrun`` directly, as TorchX 0.7.0 takes it, is resolved
    the same way. On TorchX 0.7.0, ``cfg`` as it is.

    >>> cfg = {"queue": "default"}
    >>> _as_options(KubernetesOverlayScheduler("demo"), cfg)["queue"]
    'default'
    """
    opts_type = getattr(type(scheduler), "_opts_type", None)
    options = opts_type() if opts_type is not None else None
    if options is None or isinstance(cfg, options):
        return cfg
    return scheduler._resolve_cfg(cfg)


def _cfg_of(info: AppDryRunInfo[Any]) -> Mapping[str, Any]:
    """The run configuration a dry run kept (``cfg`` in newer TorchX, ``_cfg`` in 0.7.0)."""
    cfg = getattr(info, "cfg", None)
    return cfg if isinstance(cfg, Mapping) else getattr(info, "_cfg", None) or {}


def _cluster(scheduler: KubernetesScheduler, purpose: str, what_to_do: str) -> str:
    """The address of the API server ``scheduler`` talks to, or a :class:`LaunchError`
    saying why there is none, before anything is sent: ``purpose`` (``submit the job
    to``) and ``what_to_do`` complete the message. TorchX warns that it found no
    kubeconfig and goes on with a client that has no address; the warning is the cause,
    so it goes into the one line instead of before it."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        client = scheduler._api_client()
    host = getattr(getattr(client, "configuration", None), "host", None)
    if host == "":
        reasons = [
            str(found.message)
            for found in caught
            if str(found.message).startswith("failed to load kube config")
        ]
        reason = reasons[0] if reasons else "the client has no API server address"
        raise LaunchError(f"no Kubernetes cluster to {purpose}: {reason} ({what_to_do})")
    for found in caught:  # not the cause of anything: shown as TorchX showed them
        warnings.warn_explicit(found.message, found.category, found.filename, found.lineno)
    return str(host)


@contextmanager
def _asking(
    host: str, purpose: str, resource: Mapping[str, Any], controller: str
) -> Iterator[None]:
    """The API server at ``host`` failing to ``purpose`` (``create the job``) as one
    :class:`LaunchError`: unreachable, or refusing with its status and message; a
    resource it does not know names the ``controller`` (Volcano) that brings it."""
    from kubernetes.client.rest import ApiException
    from urllib3.exceptions import HTTPError  # type: ignore[import-untyped,unused-ignore]

    try:
        yield
    except ApiException as err:
        raise _refusal(err, host, purpose, resource, controller) from err
    except HTTPError as err:  # the client's own transport: not a push to a registry
        reason = str(getattr(err, "reason", None) or err).rsplit(">: ", 1)[-1]
        raise LaunchError(
            f"cannot reach the Kubernetes API server at {host} to {purpose}: {reason}"
        ) from err
    except ValueError as err:  # TorchX's word for a refusal (409: the job exists)
        if not isinstance(err.__cause__, ApiException):
            raise
        raise LaunchError(
            f"the Kubernetes API server at {host} refused to {purpose}: {err}"
        ) from err


def _refusal(
    err: Any, host: str, purpose: str, resource: Mapping[str, Any], controller: str
) -> LaunchError:
    """The API server's refusal ``err`` (an ``ApiException``) in one line: its status,
    reason and message (from the Status object it answered with)."""
    try:
        status = json.loads(err.body)
    except (TypeError, ValueError):
        status = {}
    status = status if isinstance(status, dict) else {}
    message = str(status.get("message") or "").replace("\n", " ").strip()
    text = (
        f"the Kubernetes API server at {host} refused to {purpose}: {err.status} "
        f"{err.reason}{': ' + message if message else ''}"
    )
    details = status.get("details")
    if err.status == 404 and not (isinstance(details, dict) and details.get("name")):
        text += (
            f" (is {controller} installed? the cluster has no "
            f"{resource.get('apiVersion')} {resource.get('kind')})"
        )
    return LaunchError(text)


def _check_pod_names(resource: Mapping[str, Any]) -> None:
    """Refuse a Volcano Job one of whose pods would have a name too long for its hostname
    (the API server takes the Job, and Volcano then fails to make the pod).

    >>> _check_pod_names({"metadata": {"name": "job-" + "x" * 50},
    ...                   "spec": {"tasks": [{"name": "trainer-0", "replicas": 1}]}})
    Traceback (most recent call last):
      ...
    transforms.torchx.errors.LaunchError: the pod name 'job-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx-trainer-0-0' is 66 characters, more than the 63 a pod's hostname may have: shorten the app's name or the role's
    """
    job = resource["metadata"]["name"]
    names = [
        f"{job}-{task['name']}-{task.get('replicas', 1) - 1}" for task in resource["spec"]["tasks"]
    ]
    too_long = [name for name in names if len(name) > _HOSTNAME_LIMIT]
    if too_long:
        more = f" (and {len(too_long) - 1} more)" if len(too_long) > 1 else ""
        raise LaunchError(
            f"the pod name {too_long[0]!r} is {len(too_long[0])} characters, "
            f"more than the {_HOSTNAME_LIMIT} a pod's hostname may have{more}: "
            f"shorten the app's name or the role's"
        )


def _server_dry_run(
    scheduler: KubernetesScheduler, host: str, resource: Mapping[str, Any], namespace: str
) -> None:
    """Ask the API server at ``host`` to dry-run creating the Volcano Job ``resource``
    (nothing is created), after checking its pods' names."""
    _check_pod_names(resource)
    group, version, plural = _VOLCANO_JOBS
    with _asking(host, "dry-run the job", resource, "Volcano"):
        scheduler._custom_objects_api().create_namespaced_custom_object(
            group=group,
            version=version,
            namespace=namespace,
            plural=plural,
            body=sanitize_for_serialization(resource),
            dry_run="All",
        )


def _submit(
    scheduler: KubernetesScheduler,
    info: AppDryRunInfo[Any],
    schedule: Callable[[AppDryRunInfo[Any]], str],
    controller: str,
    before: Callable[[str], None] = lambda host: None,
) -> str:
    """Submit the dry run's folded job with TorchX's ``schedule``, once there is an API
    server to submit it to, and ``before`` (given its address) has passed."""
    host = _cluster(
        scheduler,
        "submit the job to",
        "point KUBECONFIG at a cluster's "
        "kubeconfig, or add --dryrun to print the job without submitting it",
    )
    before(host)
    with _asking(host, "create the job", info.request.resource, controller):
        return schedule(info)


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
        cfg = _as_options(self, cfg)
        render = super()._submit_dryrun
        info = _dry_run(
            lambda bare, given: render(bare, _offline(given)),
            app,
            cfg,
            fold_volcano_job,
            KubernetesJob,
        )
        if cfg.get(VALIDATE_SPEC) is True:  # asked for: under --dryrun too
            host = _cluster(
                self,
                f"dry-run the job on ({VALIDATE_SPEC}=true)",
                f"point KUBECONFIG at a cluster's kubeconfig, or leave "
                f"{VALIDATE_SPEC} unset for a dry run without one",
            )
            _server_dry_run(self, host, info.request.resource, cfg.get("namespace") or "default")
        return info

    def schedule(self, dryrun_info: AppDryRunInfo[KubernetesJob]) -> str:
        cfg = _cfg_of(dryrun_info)

        def dry_run_unless_told(host: str) -> None:  # true: the dry run asked already
            if VALIDATE_SPEC in cfg and cfg[VALIDATE_SPEC] is None:
                _server_dry_run(
                    self, host, dryrun_info.request.resource, cfg.get("namespace") or "default"
                )

        return _submit(self, dryrun_info, super().schedule, "Volcano", dry_run_unless_told)

    def _run_opts(self) -> runopts:
        opts = add_options(super()._run_opts(), "kubernetes_overlay")
        if opts.get(VALIDATE_SPEC) is not None:  # newer TorchX: podfold decides when
            opts.add(
                VALIDATE_SPEC,
                type_=bool,
                default=None,
                help="ask the Kubernetes API server to dry-run the folded job: unset: "
                "when the job is submitted, not under --dryrun (which needs no "
                "cluster); true: under --dryrun too; false: never",
            )
        return opts


class KubernetesMCADOverlayScheduler(KubernetesMCADScheduler or KubernetesScheduler):  # type: ignore[misc]
    """TorchX's MCAD (AppWrapper) scheduler, with each role's overlays folded over its pods."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if _MCAD_MISSING is not None:  # the user's TorchX, not a bug: a short message
            raise SchedulerUnavailableError(
                _mcad_missing(),
                scheduler="kubernetes_mcad_overlay",
                torchx_version=torchx.__version__,
            )
        super().__init__(*args, **kwargs)

    def _submit_dryrun(self, app: AppDef, cfg: Any) -> AppDryRunInfo[Any]:
        return _dry_run(super()._submit_dryrun, app, cfg, fold_app_wrapper, KubernetesMCADJob)

    def schedule(self, dryrun_info: AppDryRunInfo[Any]) -> str:
        return _submit(self, dryrun_info, super().schedule, "MCAD")

    def run_opts(self) -> runopts:
        # TorchX's MCAD scheduler builds its options in run_opts, not _run_opts
        return add_options(super().run_opts(), "kubernetes_mcad_overlay")


def create_kubernetes_overlay(
    session_name: str,
    client: Any = None,
    docker_client: Any = None,
    **kwargs: Any,
) -> KubernetesOverlayScheduler:
    """The factory TorchX calls for ``--scheduler kubernetes_overlay``."""
    return KubernetesOverlayScheduler(
        session_name=session_name, client=client, docker_client=docker_client
    )


def _mcad_missing() -> str:
    """Why ``kubernetes_mcad_overlay`` cannot run on this TorchX."""
    return (
        "kubernetes_mcad_overlay needs TorchX's kubernetes_mcad scheduler, which TorchX "
        f"removed: this TorchX (version {torchx.__version__}) has none (TorchX 0.7.0 has it)"
    )


def create_kubernetes_mcad_overlay(
    session_name: str,
    client: Any = None,
    docker_client: Any = None,
    **kwargs: Any,
) -> KubernetesMCADOverlayScheduler | UnavailableScheduler:
    """The factory TorchX calls for ``--scheduler kubernetes_mcad_overlay``; where this
    TorchX has no MCAD scheduler, a stand-in that says so when it is used (TorchX's CLI
    prints an error raised here as a traceback)."""
    if _MCAD_MISSING is not None:
        return UnavailableScheduler(
            "kubernetes_mcad_overlay", session_name, _mcad_missing(), _MCAD_MISSING
        )
    return KubernetesMCADOverlayScheduler(
        session_name=session_name, client=client, docker_client=docker_client
    )
