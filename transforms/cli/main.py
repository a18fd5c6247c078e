"""The ``podfold`` group: its commands, ``--debug``, and the one place errors become exit codes.

Exit codes: 0 success; 1 a validation or overlay failure (any
:class:`~combinators.TransformError`), and output that could not be written
whole (a full disk, a file too large, a closed stdout:
:class:`~transforms.cli.output.OutputError`); 2 a usage error (click's own).
An error is one line on stderr, ``podfold: error: ...``; ``--debug`` adds the
traceback. Where the reader of stdout goes away first (``podfold apply ... |
head``), podfold ends silently as any writer ``head`` leaves does, by
``SIGPIPE`` (exit status 141 in a shell), where there is one.

Importing this module imports click only: a run imports the module of the
command it runs (:data:`COMMANDS`), and that command what it needs (TorchX,
the workload tables) when it runs, so ``podfold --help`` stays fast.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import click

from combinators import TransformError
from transforms.cli.options import debug_option
from transforms.cli.output import OutputError, discard_stdout, flush_stdout

__all__ = (
    "COMMANDS",
    "podfold",
    "main",
    "script",
    "one_line",
    "EXIT_OK",
    "EXIT_FAILED",
    "EXIT_USAGE",
    "EXIT_BROKEN_PIPE",
)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_BROKEN_PIPE = 128 + 13
"""What a shell reports for a writer ended by ``SIGPIPE`` (``yes | head``; signal 13)."""


COMMANDS = {
    "apply": ("transforms.cli.apply", "apply_command"),
    "explain": ("transforms.cli.explain", "explain_command"),
    "fn": ("transforms.cli.krm", "fn_command"),
    "helm": ("transforms.cli.helm", "helm_group"),
    "kinds": ("transforms.cli.kinds", "kinds_command"),
    "recipes": ("transforms.cli.recipes", "recipes_command"),
    "render": ("transforms.cli.render", "render_command"),
    "validate": ("transforms.cli.validate", "validate_command"),
}
"""Each command's module and name: a run imports the one it runs (``--help`` all)."""


class _Commands(click.Group):
    """The commands of :data:`COMMANDS`, each imported when it is first asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            import importlib

            module, name = COMMANDS[cmd_name]
            self.add_command(getattr(importlib.import_module(module), name), cmd_name)
        return self.commands.get(cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] not in COMMANDS:  # click's refusal names the near misses
            for name in COMMANDS:
                self.get_command(ctx, name)
        return super().resolve_command(ctx, args)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@debug_option
@click.version_option(package_name="podfold", prog_name="podfold")
def podfold() -> None:
    """Pure, composable overlays for the pods of Kubernetes manifests and TorchX jobs.

    \b
    Exit codes: 0 success, 1 a validation or overlay failure, 2 a usage error.
    Output that cannot be written whole (a full disk, a closed stdout) fails
    with 1 and one line on stderr; a reader that stops early ('| head') ends
    podfold silently by SIGPIPE, as it ends any writer (141 in a shell).
    """


def one_line(err: BaseException) -> str:
    """An error as one line: its own lines joined with ``; ``, short enough that the
    line podfold writes with it (``podfold: internal error: TypeError: ...``, the
    ``--debug`` hint) stays within :data:`~combinators.limits.MAX_LINE` characters:
    a longer one is cut, saying how much was left out (the problems of an invalid
    pod, listed; a library's error that quotes a value whole).

    >>> one_line(ValueError("pod is invalid (1 problem):\\n  spec.x: unknown field"))
    'pod is invalid (1 problem): spec.x: unknown field'
    >>> text = one_line(ValueError("x" * 5000))
    >>> len(text), text[-29:]
    (898, 'x... (4,129 more characters)')
    """
    from combinators.limits import MAX_LINE, short_line

    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    text = ""
    for line in lines:
        text += line if not text else (" " if text.endswith(":") else "; ") + line
    # room for what _failed writes around it
    return short_line(text, MAX_LINE - 100) if text else type(err).__name__


def _print_traceback() -> None:
    import traceback  # with linecache and tokenize: paid only by --debug, once something failed

    traceback.print_exc()


def main(args: Sequence[str] | None = None) -> NoReturn:
    """Run ``podfold`` with ``args`` (the command line's by default) and exit with its code."""
    settings: dict[str, Any] = {"debug": False}
    # a run holds its whole stream, parsed, for its length: collections of the youngest
    # generation walked those documents again and again (half of explain --blame's time at
    # 8,000 containers); the caller's thresholds come back when the run ends
    thresholds = gc.get_threshold()
    gc.set_threshold(100_000, 20, 10)
    try:
        _run(args, settings)
    finally:
        gc.set_threshold(*thresholds)


def script() -> NoReturn:
    """The console scripts' entry point (``podfold``, ``kubectl-podfold``): :func:`main`,
    then the process ends at once.

    Once ``main`` has flushed its output and chosen its exit code, all Python still
    does on its way out is tear the interpreter down: a full collection over every
    object the run made and every module it loaded, then each module freed. That took
    80 ms of an ``apply`` of 1,000 Jobs here (17 ms with those objects frozen; 5 ms
    ended at once), about a tenth of the run. So the functions registered with
    :mod:`atexit` are run, stdout and stderr flushed, and the process ends with the
    code ``main`` chose. Where that cannot be done as Python would (a code that is not
    a number, a thread still running that Python would wait for, a stream that cannot
    be flushed), Python's own exit is taken instead. ``main`` itself exits as any
    function does, for a caller that catches :class:`SystemExit`.
    """
    try:
        main()
    except SystemExit as done:
        code = done.code
    _end_at_once(code)


def _end_at_once(code: str | int | None) -> NoReturn:
    """End the process with ``code`` as :func:`script` says."""
    import threading

    if code is None:
        code = EXIT_OK
    others = [
        thread
        for thread in threading.enumerate()
        if thread is not threading.main_thread() and not thread.daemon
    ]
    if type(code) is not int or others:
        sys.exit(code)  # Python's exit: it prints a message code, it waits for the threads
    import atexit

    atexit._run_exitfuncs()
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        sys.exit(code)  # what Python's exit says of a stream it cannot flush
    os._exit(code)


def _run(args: Sequence[str] | None, settings: dict[str, Any]) -> NoReturn:
    try:
        # without standalone mode, click returns what ctx.exit() was given
        code = podfold.main(
            args=list(args) if args is not None else None,
            prog_name="podfold",
            obj=settings,
            standalone_mode=False,
        )
        _exit(code if isinstance(code, int) else EXIT_OK, settings)
    except click.exceptions.Exit as done:
        _exit(done.exit_code, settings)
    except click.ClickException as err:  # a usage error: 2, with click's own message
        _say(err.show)
        _exit(err.exit_code, settings)
    except click.exceptions.Abort:
        _say(lambda: click.echo("podfold: aborted", err=True))
        _exit(EXIT_FAILED, settings)
    except OutputError as err:
        _output_failed(err, settings)
    except TransformError as err:
        _failed(err, settings, "error")
    except Exception as err:  # a bug of podfold's or of a library's: say so, briefly
        _failed(err, settings, "internal error")


def _failed(err: BaseException, settings: dict[str, Any], kind: str) -> NoReturn:
    if settings["debug"]:
        _say(_print_traceback)
    line = f"podfold: {kind}: " + (
        one_line(err)
        if isinstance(err, TransformError)
        else f"{type(err).__name__}: {one_line(err)} (run with --debug for the traceback)"
    )
    _say(lambda: click.echo(line, err=True))
    _exit(EXIT_FAILED, settings)


def _output_failed(err: OutputError, settings: dict[str, Any]) -> NoReturn:
    """End after a write of the output failed: what is left in stdout's buffers is
    dropped, not written again on the way out; a reader that went away ends podfold
    as it ends ``head``'s writer, by ``SIGPIPE``, silently."""
    discard_stdout()
    if not err.broken_pipe:
        _failed(err, settings, "error")
    _say(sys.stderr.flush)
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGPIPE)
    sys.exit(EXIT_BROKEN_PIPE)  # where there is no SIGPIPE: its status, as a shell gives it


def _exit(code: int, settings: dict[str, Any]) -> NoReturn:
    """Exit with ``code`` once stdout is flushed: output still buffered is written now,
    where its failure is an error like any other, not Python's final flush (exit 120)."""
    try:
        flush_stdout()
    except OutputError as err:
        if code == EXIT_OK or err.broken_pipe:
            _output_failed(err, settings)
        # the command failed already, and said why: the output it leaves is not the news
        discard_stdout()
    sys.exit(code)


def _say(write: Callable[[], object]) -> None:
    """Write on stderr, where a stderr that cannot be written to is no second error."""
    with contextlib.suppress(OSError, ValueError):
        write()
