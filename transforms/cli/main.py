"""The ``podfold`` group: its commands, ``--debug``, and the one place errors become exit codes.

Exit codes: 0 success; 1 a validation or overlay failure (any
:class:`~combinators.TransformError`); 2 a usage error (click's own). An
error is one line on stderr, ``podfold: error: ...``; ``--debug`` adds the
traceback. Importing this module imports click and the commands' small
modules only: each command imports what it needs (TorchX, the workload
tables) when it runs, so ``podfold --help`` stays fast.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import click

from combinators import TransformError
from transforms.cli.apply import apply_command
from transforms.cli.explain import explain_command
from transforms.cli.options import debug_option
from transforms.cli.recipes import recipes_command
from transforms.cli.render import render_command
from transforms.cli.validate import validate_command

__all__ = ("podfold", "main", "one_line", "EXIT_OK", "EXIT_FAILED", "EXIT_USAGE")

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@debug_option
@click.version_option(package_name="podfold", prog_name="podfold")
def podfold() -> None:
    """Pure, composable overlays for the pods of Kubernetes manifests and TorchX jobs.

    \b
    Exit codes: 0 success, 1 a validation or overlay failure, 2 a usage error.
    """


podfold.add_command(apply_command)
podfold.add_command(explain_command)
podfold.add_command(validate_command)
podfold.add_command(render_command)
podfold.add_command(recipes_command)


def one_line(err: BaseException) -> str:
    """An error as one line: its own lines joined with ``; ``.

    >>> one_line(ValueError("pod is invalid (1 problem):\\n  spec.x: unknown field"))
    'pod is invalid (1 problem): spec.x: unknown field'
    """
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    text = ""
    for line in lines:
        text += line if not text else (" " if text.endswith(":") else "; ") + line
    return text or type(err).__name__


def _print_traceback() -> None:
    import traceback  # with linecache and tokenize: paid only by --debug, once something failed

    traceback.print_exc()


def main(args: Sequence[str] | None = None) -> NoReturn:
    """Run ``podfold`` with ``args`` (the command line's by default) and exit with its code."""
    settings: dict[str, Any] = {"debug": False}
    try:
        # without standalone mode, click returns what ctx.exit() was given
        code = podfold.main(args=list(args) if args is not None else None, prog_name="podfold",
                            obj=settings, standalone_mode=False)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.ClickException as err:  # a usage error: 2, with click's own message
        err.show()
        sys.exit(err.exit_code)
    except click.exceptions.Abort:
        click.echo("podfold: aborted", err=True)
        sys.exit(EXIT_FAILED)
    except TransformError as err:
        if settings["debug"]:
            _print_traceback()
        click.echo(f"podfold: error: {one_line(err)}", err=True)
        sys.exit(EXIT_FAILED)
    except BrokenPipeError:  # the reader went away (podfold apply ... | head)
        sys.stderr.close()
        sys.exit(EXIT_FAILED)
    except Exception as err:  # a bug of podfold's or of a library's: say so, briefly
        if settings["debug"]:
            _print_traceback()
        click.echo(f"podfold: internal error: {type(err).__name__}: {one_line(err)} "
                   f"(run with --debug for the traceback)", err=True)
        sys.exit(EXIT_FAILED)
    sys.exit(code if isinstance(code, int) else EXIT_OK)
