"""``podfold render``: TorchX's dry run with overlays, printing only the job.

The component is found and built as ``torchx run`` finds and builds it
(``torchx.specs.finder.get_component``, ``materialize_appdef``), the
``.torchxconfig`` of the current directory applies as it does there, and the
dry run is offline (no workspace is built: ``--workspace ""``).

Errors: a run option that is missing or malformed, or a component that
refuses its arguments, is a usage error (exit 2); an overlay that cannot be
read or applied, a ``.torchxconfig`` that cannot be read, or a job TorchX
cannot render is a :class:`~combinators.TransformError` (exit 1).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click

from combinators import TransformError
from combinators.limits import short_line, short_repr
from transforms.cli.options import debug_option, output_option
from transforms.cli.output import echo

__all__ = ("render_command", "RenderError", "SCHEDULERS")

SCHEDULERS = ("kubernetes_overlay", "kubernetes_mcad_overlay")
"""podfold's TorchX schedulers: a Volcano Job, an MCAD AppWrapper."""

_FLAGS = {"queue": "--queue", "namespace": "--namespace"}
"""The run options ``render`` has a flag of its own for."""


class RenderError(TransformError, ValueError):
    """TorchX could not render the job (a role with no entrypoint, no replicas, ...)."""


def _role_overlay(value: str) -> str:
    role, equals, uri = value.partition("=")
    if not (equals and role and uri):
        raise click.BadParameter(
            f"expected ROLE=FILE (trainer=gpu.yaml), got {short_repr(value)}",
            param_hint="'--overlay'",
        )
    return f"{role}:{uri}"


@click.command(
    "render", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False}
)
@debug_option
@click.option(
    "-f",
    "--filename",
    "overlays",
    multiple=True,
    metavar="OVERLAY",
    help="An overlay for every role, applied after the roles' own (repeatable).",
)
@click.option(
    "--overlay",
    "role_overlays",
    multiple=True,
    metavar="ROLE=FILE",
    help="An overlay for one role, applied after the ones for every role (repeatable).",
)
@click.option(
    "-s",
    "--scheduler",
    type=click.Choice(SCHEDULERS),
    default=SCHEDULERS[0],
    show_default=True,
    help="podfold's TorchX scheduler to render for.",
)
@click.option("--queue", help="The scheduler's queue (Volcano queue; -cfg queue=...).")
@click.option("--namespace", help="The namespace to render for (-cfg namespace=...).")
@click.option(
    "-c",
    "--cfg",
    "cfg_text",
    metavar="K=V[,K=V]",
    help="More run options, as TorchX's -cfg takes them (image_repo, "
    "service_account, priority_class, k8s_version, ...).",
)
@click.option(
    "--no-validate",
    is_flag=True,
    help="Do not check the pods against the schema and their references.",
)
@output_option
@click.argument("component")
@click.argument("component_args", nargs=-1, type=click.UNPROCESSED, metavar="[ARGS]...")
def render_command(
    overlays: tuple[str, ...],
    role_overlays: tuple[str, ...],
    scheduler: str,
    queue: str | None,
    namespace: str | None,
    cfg_text: str | None,
    no_validate: bool,
    output: str,
    component: str,
    component_args: tuple[str, ...],
) -> None:
    """Render a TorchX COMPONENT with overlays and print only the job, as YAML.

    COMPONENT is what 'torchx run' takes (a builtin such as dist.ddp, or
    path/to/file.py:function); ARGS are the component's own arguments. The
    job is what 'torchx run --scheduler kubernetes_overlay --dryrun
    --workspace ""' prints after '=== SCHEDULER REQUEST ==='.

    \b
    podfold render --queue default -f examples/a100.yaml examples/trainer.py:trainer --replicas 4
    podfold render --overlay ps=examples/a100.yaml --queue ml examples/trainer.py:trainer
    """
    import json

    from torchx.runner import get_runner
    from torchx.specs import InvalidRunConfigException
    from torchx.specs.builders import materialize_appdef
    from torchx.specs.finder import (
        ComponentNotFoundException,
        ComponentValidationException,
        get_component,
    )

    from transforms.torchx.errors import RunOptionError
    from transforms.torchx.options import CheckedRunopts

    per_role = [_role_overlay(value) for value in role_overlays]
    with get_runner() as runner:
        opts = runner.scheduler_run_opts(scheduler)
        try:  # refused now, not kept back for the dry run as for torchx run
            cfg: dict[str, Any] = (
                opts.parse(cfg_text or "")
                if isinstance(opts, CheckedRunopts)
                else opts.cfg_from_str(cfg_text or "")
            )
        except RunOptionError as err:
            raise click.BadParameter(str(err), param_hint="'-c' / '--cfg'") from None
        flags = {
            key: (value, flag)
            for key, value, flag in (
                ("queue", queue, "--queue"),
                ("namespace", namespace, "--namespace"),
                ("validate", False if no_validate else None, "--no-validate"),
            )
            if value is not None
        }
        for key, (value, flag) in flags.items():
            if key in cfg and cfg[key] != value:  # never drop one of the two silently
                raise click.BadParameter(
                    f"{flag} and -c {key}={cfg[key]} say different things: give one",
                    param_hint=f"'{flag}'",
                )
        _apply_torchxconfig(scheduler, cfg)  # what the files set, where the command line did not
        cfg.update((key, value) for key, (value, _) in flags.items())
        if overlays:
            cfg["overlays"] = [*cfg.get("overlays", []), *overlays]
        if per_role:
            cfg["role_overlays"] = [*cfg.get("role_overlays", []), *per_role]
        try:
            found = get_component(component)
        except (ComponentNotFoundException, ComponentValidationException) as err:
            # TorchX's message quotes the component as given: written short, the rest kept
            message = str(err).strip().replace(component, short_repr(component, quoted=False))
            raise click.BadParameter(short_line(message), param_hint="'COMPONENT'") from None
        except Exception as err:  # the component's file fails to import: the user's code
            raise click.BadParameter(
                f"{short_repr(component, quoted=False)} cannot be loaded: "
                f"{type(err).__name__}: {short_line(str(err))}",
                param_hint="'COMPONENT'",
            ) from None
        try:
            app = materialize_appdef(_apps_only(found.fn), list(component_args), None)
        except _NotAnApp as err:
            raise click.BadParameter(
                f"{component} returned {type(err.value).__name__}, not a torchx.specs.AppDef",
                param_hint="'COMPONENT'",
            ) from None
        except TransformError:  # an overlay the component itself builds: exit 1
            raise
        except Exception as err:  # the component refused its arguments: the user's error
            raise click.UsageError(
                f"component {component} failed: {type(err).__name__}: {err} (its arguments "
                f"follow it: podfold render [OPTIONS] {component} [ARGS]...; "
                f"'podfold render {component} --help' lists them)"
            ) from None
        try:
            info = runner.dryrun(app, scheduler, cfg=cfg, workspace=None)
        except RunOptionError as err:  # a -c key no option has, a value it cannot take
            raise click.UsageError(str(err)) from None
        except TransformError:
            raise
        except InvalidRunConfigException as err:  # a missing or wrong option: usage
            raise click.UsageError(_missing_option(err, scheduler)) from None
        except ValueError as err:  # torchx's own checks of the app and of the options
            raise RenderError(f"TorchX cannot render {component}: {err}") from err
    if output == "json":
        from kubernetes.client import ApiClient

        resource = ApiClient().sanitize_for_serialization(info.request.resource)
        echo(json.dumps(resource, indent=2))
    else:
        echo(str(info), nl=False)


class _NotAnApp(Exception):
    """A component returned ``value``, which is no AppDef."""

    def __init__(self, value: object) -> None:
        super().__init__(value)
        self.value = value


def _apps_only(component: Callable[..., Any]) -> Callable[..., Any]:
    """``component``, raising :class:`_NotAnApp` where it returns no AppDef: newer TorchX
    checks what a component returns inside ``materialize_appdef``, with a ``TypeError``
    indistinguishable from arguments the component refused. The signature and
    docstring TorchX reads the arguments from are ``component``'s."""
    from torchx.specs import AppDef

    @functools.wraps(component)
    def checked(*args: Any, **kwargs: Any) -> Any:
        app = component(*args, **kwargs)
        if not isinstance(app, AppDef):
            raise _NotAnApp(app)
        return app

    return checked


def _apply_torchxconfig(scheduler: str, cfg: dict[str, Any]) -> None:
    """Add to ``cfg`` the run options the ``.torchxconfig`` files set (as ``torchx
    run`` reads them: TorchX's ``config.apply``), naming the file that cannot be read."""
    from configparser import Error as ConfigError

    from torchx.runner.config import find_configs, load

    try:
        files = find_configs()
    except OSError as err:  # TORCHXCONFIG names no file
        raise RenderError(f"cannot read TorchX's configuration: {err}") from err
    for file in files:
        try:
            with open(file) as handle:
                load(scheduler, handle, cfg)
        except (OSError, ConfigError, ValueError) as err:
            raise RenderError(
                f"{file}: cannot read TorchX's configuration: {type(err).__name__}: {err}"
            ) from err


def _missing_option(err: Any, scheduler: str) -> str:
    """TorchX's message for a missing or mistyped run option, naming the flag that sets it."""
    key = getattr(err, "cfg_key", "")
    message = str(err).strip().split(". Given:", 1)[0]  # TorchX appends the whole cfg
    if message.startswith("Required run option"):
        flag = _FLAGS.get(key)
        how = f"{flag} {key.upper()} (or -c {key}=...)" if flag else f"-c {key}=..."
        return f"{scheduler} needs the run option {key}: give {how}"
    return message
