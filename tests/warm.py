"""Run ``podfold`` or ``torchx`` as a process forked from this warm one: what a user's shell
sees (the exit status, stdout and stderr as pipes, the working directory), without paying for
a new interpreter and its imports on every call.

The child is forked from the test process (Linux), which has imported the command line,
TorchX and the kubernetes client once (:data:`WARM_MODULES`); it points descriptors 0, 1
and 2 at pipes, makes ``sys.stdin``, ``sys.stdout`` and ``sys.stderr`` as a new interpreter
makes them for pipes (UTF-8; stdout block-buffered, stderr line-buffered with
``backslashreplace``), runs the program's ``main`` with ``argv``, flushes, and ends with its
exit status. An exception that escapes is printed as the interpreter prints it, with status
1; a signal that kills the child is a negative status, as :mod:`subprocess` reports it.

What a fork cannot show, real processes are kept for: how the installed script starts and
what it imports (``tests/test_startup.py``, ``tests/test_packaging.py``), what an
interpreter does with its streams at exit under faults (``tests/test_output_faults.py``),
settings read from the environment as a process starts. :func:`run` takes ``env`` only by
starting the real program, so a test that sets one gets a fresh interpreter.

>>> done = run("podfold", ["recipes", "shm_size"])
>>> done.returncode, done.stdout.startswith("shm_size(")
(0, True)
>>> run("podfold", ["apply", "--no-such-flag"]).returncode
2
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import io
import logging
import os
import selectors
import signal
import subprocess
import sys
import time
import traceback
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tests import collector

__all__ = ("WARM_MODULES", "run")

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

#: What the children would otherwise import each time: the command line's commands, TorchX's
#: command line and schedulers, and the kubernetes client TorchX builds its pods with.
WARM_MODULES = (
    "transforms.cli.main",
    "transforms.cli.apply",
    "transforms.cli.explain",
    "transforms.cli.validate",
    "transforms.cli.recipes",
    "transforms.cli.render",
    "transforms.torchx.schedulers",
    "torchx.cli.main",
    "torchx.schedulers.kubernetes_scheduler",
    "kubernetes.client",
)


def _podfold(argv: Sequence[str]) -> Any:
    from transforms.cli.main import main

    return main(list(argv))


def _torchx(argv: Sequence[str]) -> Any:
    from torchx.cli.main import main

    return main(list(argv))


PROGRAMS: dict[str, Callable[[Sequence[str]], Any]] = {"podfold": _podfold, "torchx": _torchx}

_warmed = False


def _warm() -> None:
    global _warmed
    if not _warmed:
        for name in WARM_MODULES:
            with contextlib.suppress(ImportError):  # a module not in every TorchX
                importlib.import_module(name)
        # what every run reads first: the installed recipe catalogs and kinds (entry points)
        from transforms.forms.catalog import recipe_catalog
        from transforms.kube.registry import current_kinds

        recipe_catalog()
        current_kinds()
        _warmed = True


def _status(code: Any) -> int:
    """The exit status ``sys.exit(code)`` gives, as the interpreter computes it."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _streams() -> list[tuple[Any, str]]:
    return [
        (sys.stdout, "stdout"),
        (sys.__stdout__, "stdout"),
        (sys.stderr, "stderr"),
        (sys.__stderr__, "stderr"),
    ]


def _fresh_logging(old: dict[int, str]) -> None:
    """Logging as a new interpreter has it once the same modules are imported: the test
    run's own handlers gone from the root logger (so ``logging.basicConfig`` configures
    it, as TorchX's command line does), and handlers made on the old streams on the new."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if type(handler).__module__.startswith("_pytest"):
            root.removeHandler(handler)
    root.setLevel(logging.WARNING)
    new = {"stdout": sys.stdout, "stderr": sys.stderr}
    loggers = [root, *logging.Logger.manager.loggerDict.values()]
    for each in loggers:
        for handler in getattr(each, "handlers", ()):
            if isinstance(handler, logging.StreamHandler) and id(handler.stream) in old:
                handler.setStream(new[old[id(handler.stream)]])


def _show(message: Any) -> None:
    """How the interpreter shows a warning: formatted, on stderr (or the file it names)."""
    stream = message.file if message.file is not None else sys.stderr
    with contextlib.suppress(OSError):
        stream.write(warnings._formatwarnmsg(message))  # type: ignore[attr-defined]


def _fresh_warnings() -> None:
    """The interpreter's warning filters and display, not the test run's: the run records
    warnings (and turns some into errors) where a user's shell would see them printed."""
    warnings.resetwarnings()  # also forgets which warnings were shown once already
    for category in (ResourceWarning, ImportWarning, PendingDeprecationWarning):
        warnings.filterwarnings("ignore", category=category)
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    warnings.filterwarnings("default", category=DeprecationWarning, module="__main__")
    warnings.showwarning = warnings._showwarning_orig  # type: ignore[attr-defined]
    warnings._showwarnmsg_impl = _show  # type: ignore[attr-defined]


def _child(program: str, argv: Sequence[str], cwd: Path, fds: tuple[int, int, int]) -> None:
    """In the forked child: become the program, and never return."""
    status = 1
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.chdir(cwd)
        gc.set_threshold(*collector.INTERPRETER)  # a user's interpreter's, not the run's
        old = {id(stream): name for stream, name in _streams()}
        stdin = io.FileIO(0, "r", closefd=False)
        stdin.name = "<stdin>"  # type: ignore[misc]  # as the interpreter names it
        sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.BufferedReader(stdin), encoding="utf-8")
        sys.stdout = sys.__stdout__ = io.TextIOWrapper(
            io.BufferedWriter(io.FileIO(1, "w", closefd=False)), encoding="utf-8"
        )
        sys.stderr = sys.__stderr__ = io.TextIOWrapper(
            io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
            encoding="utf-8",
            errors="backslashreplace",
            line_buffering=True,
        )
        _fresh_logging(old)
        _fresh_warnings()
        sys.argv = [str(BIN / program), *argv]
        try:
            status = _status(PROGRAMS[program](argv))
        except SystemExit as done:
            status = _status(done.code)
        except BaseException:
            traceback.print_exc()
            status = 1
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                status = 120  # as the interpreter ends when it cannot flush stdout
    finally:
        os._exit(status)


def run(
    program: str,
    argv: Sequence[str],
    *,
    input: str | None = None,
    cwd: Path = REPO,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """Run ``program`` (``podfold`` or ``torchx``) with ``argv`` as :func:`subprocess.run`
    with ``capture_output=True, text=True`` would, in a child forked from this process."""
    if env is not None:  # read as the process starts: only a new interpreter sees it
        return subprocess.run(
            [str(BIN / program), *argv],
            input=input,
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    _warm()
    stdin_r, stdin_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    gc.freeze()  # the child's collections walk only what it makes, not the parent's heap
    pid = os.fork()
    if pid == 0:
        for fd in (stdin_w, out_r, err_r):
            os.close(fd)
        _child(program, argv, cwd, (stdin_r, out_w, err_w))
    gc.unfreeze()
    for fd in (stdin_r, out_w, err_w):
        os.close(fd)
    pending = (input or "").encode("utf-8")
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    with selectors.DefaultSelector() as selector:
        selector.register(out_r, selectors.EVENT_READ)
        selector.register(err_r, selectors.EVENT_READ)
        if pending:
            os.set_blocking(stdin_w, False)
            selector.register(stdin_w, selectors.EVENT_WRITE)
        else:
            os.close(stdin_w)
        deadline = time.monotonic() + timeout
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise subprocess.TimeoutExpired([program, *argv], timeout)
            for key, _ in selector.select(left):
                fd = int(key.fd)
                if fd == stdin_w:
                    try:
                        pending = pending[os.write(fd, pending[: 1 << 16]) :]
                    except BrokenPipeError:
                        pending = b""
                    if not pending:
                        selector.unregister(fd)
                        os.close(fd)
                    continue
                data = os.read(fd, 1 << 16)
                if data:
                    chunks[fd].append(data)
                else:
                    selector.unregister(fd)
                    os.close(fd)
    _, wait = os.waitpid(pid, 0)
    status = -os.WTERMSIG(wait) if os.WIFSIGNALED(wait) else os.WEXITSTATUS(wait)

    def text(fd: int) -> str:
        return io.TextIOWrapper(io.BytesIO(b"".join(chunks[fd])), encoding="utf-8").read()

    return subprocess.CompletedProcess(
        [program, *argv], status, stdout=text(out_r), stderr=text(err_r)
    )
