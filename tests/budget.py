"""Run a callable, or a snippet of Python, in a child process with a time and a memory budget.

Two functions and one result type, so that a regression that hangs or eats
memory fails one test instead of hanging the run:

``within(fn, *args, seconds=5.0, megabytes=512, **kwargs) -> Outcome``
    Forks (Linux), limits the child's address space to what it already uses
    plus ``megabytes`` (``resource.RLIMIT_AS``) and its CPU time to
    ``seconds`` (``RLIMIT_CPU``, rounded up to whole seconds: CPU time, not
    wall time, so a busy machine does not fail a case), calls
    ``fn(*args, **kwargs)`` there and brings back what happened; the parent
    kills a child that is still there after four times ``seconds`` of wall
    time, plus one (one that sleeps or blocks). The child inherits every
    module the parent imported, so a call costs a few milliseconds.
``run_code(source, *, seconds=30.0, megabytes=2048, cwd=None) -> Outcome``
    Runs ``python -c source`` in a fresh interpreter whose whole address
    space is limited to ``megabytes``; ``value`` is its standard output.
``Outcome``
    ``status``: ``"returned"``, ``"raised"``, ``"timeout"``, ``"memory"`` or
    ``"crashed"``; ``value`` (what ``fn`` returned, pickled back; ``None``
    where it cannot be pickled, with ``value_note`` saying why);
    ``error_types`` (the qualified names of the raised exception's classes,
    its own first, so checks need not unpickle it); ``error_text``
    (``str()`` of it, computed in the child); ``error`` (the exception
    itself when it pickles, else ``None``); ``traceback``; ``seconds`` (the
    child's CPU time; ``run_code``: wall time).
    ``raised(name)`` says whether the error is of a class named ``name``
    (short or qualified); ``unwrap()`` gives the value back, re-raises the
    error, or fails with an ``AssertionError`` naming the budget exceeded.

>>> within(sum, [1, 2, 3]).value
6
>>> outcome = within(int, "x")
>>> outcome.status, outcome.raised("ValueError"), outcome.error_text
('raised', True, "invalid literal for int() with base 10: 'x'")
>>> import itertools, time
>>> within(sum, itertools.count(), seconds=1).status      # CPU time spent
'timeout'
>>> within(time.sleep, 60, seconds=0.1).status            # blocked: the wall-time backstop
'timeout'
>>> within(bytearray, 10**9, megabytes=64).status
'memory'
>>> run_code("print(6 * 7)").value
'42\\n'
"""

from __future__ import annotations

import gc
import math
import os
import pickle
import resource
import select
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ("Outcome", "within", "run_code")

_MEMORY_EXIT = 3  # the child ran out of memory before it could report


@dataclass(frozen=True)
class Outcome:
    """What happened to one budgeted call (see the module's docstring)."""

    status: str
    value: Any = None
    value_note: str = ""
    error_types: tuple[str, ...] = ()
    error_text: str = ""
    error: BaseException | None = None
    traceback: str = ""
    seconds: float = 0.0

    def raised(self, name: str) -> bool:
        """Whether the call raised an exception of a class named ``name`` (or a subclass)."""
        return any(found == name or found.endswith("." + name) for found in self.error_types)

    def unwrap(self) -> Any:
        """The returned value; the raised error again; or an ``AssertionError`` for the budget."""
        if self.status == "returned":
            return self.value
        if self.status == "raised" and self.error is not None:
            raise self.error
        raise AssertionError(
            f"{self.status} after {self.seconds:.2f} s: "
            f"{self.error_types[:1]} {self.error_text}\n{self.traceback}"
        )


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _text(err: BaseException) -> str:
    try:
        return str(err)
    except BaseException as failure:  # the message itself fails (a deep repr, say)
        return f"<str() of the error raised {type(failure).__name__}: {failure}>"


def _report(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> bytes:
    started = time.monotonic()
    try:
        value = fn(*args, **kwargs)
    except MemoryError:
        return pickle.dumps(Outcome("memory", seconds=time.monotonic() - started))
    except BaseException as err:
        report = Outcome(
            "raised",
            error_types=tuple(_qualified(cls) for cls in type(err).__mro__),
            error_text=_text(err),
            traceback=traceback.format_exc(),
            seconds=time.monotonic() - started,
        )
        try:
            return pickle.dumps(Outcome(**{**report.__dict__, "error": err}))
        except BaseException:  # an error that does not pickle still reports its names
            return pickle.dumps(report)
    elapsed = time.monotonic() - started
    try:
        return pickle.dumps(Outcome("returned", value=value, seconds=elapsed))
    except BaseException as err:  # too deep, cyclic through unpicklable parts, ...
        return pickle.dumps(
            Outcome("returned", value_note=f"not picklable: {type(err).__name__}", seconds=elapsed)
        )


def _address_space() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0  # pragma: no cover - Linux always says


def _child(
    write_fd: int,
    seconds: float,
    megabytes: float,
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> None:
    try:
        cpu = max(1, math.ceil(seconds))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(
            resource.RLIMIT_AS,
            (_address_space() + int(megabytes * 2**20), resource.getrlimit(resource.RLIMIT_AS)[1]),
        )
        data = _report(fn, args, kwargs)
        with os.fdopen(write_fd, "wb") as pipe:
            pipe.write(data)
    except MemoryError:
        os._exit(_MEMORY_EXIT)
    except BaseException:
        os._exit(1)
    os._exit(0)


def within(
    fn: Callable[..., Any],
    /,
    *args: Any,
    seconds: float = 5.0,
    megabytes: float = 512,
    **kwargs: Any,
) -> Outcome:
    """Call ``fn(*args, **kwargs)`` in a forked child within the budget; see the module."""
    read_fd, write_fd = os.pipe()
    started = time.monotonic()
    deadline = started + 4 * seconds + 1
    # what the parent holds is frozen for the fork, so that the child's collections never
    # walk it (and copy every page of it on write): the child collects only its own objects
    gc.freeze()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child; coverage cannot follow it
        os.close(read_fd)
        _child(write_fd, seconds, megabytes, fn, args, kwargs)
    gc.unfreeze()
    os.close(write_fd)
    chunks: list[bytes] = []
    timed_out = False
    with os.fdopen(read_fd, "rb", buffering=0) as pipe:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([pipe], [], [], left)[0]:
                timed_out = True
                os.kill(pid, signal.SIGKILL)
                break
            chunk = pipe.read(1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    _, status, usage = os.wait4(pid, 0)
    elapsed = usage.ru_utime + usage.ru_stime
    if timed_out or (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGXCPU):
        return Outcome("timeout", seconds=elapsed)
    if chunks:
        outcome: Outcome = pickle.loads(b"".join(chunks))
        return Outcome(**{**outcome.__dict__, "seconds": elapsed})
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == _MEMORY_EXIT:
        return Outcome("memory", seconds=elapsed)
    return Outcome("crashed", error_text=f"child ended with status {status}", seconds=elapsed)


def run_code(
    source: str,
    *,
    seconds: float = 30.0,
    megabytes: float = 2048,
    cwd: str | os.PathLike[str] | None = None,
) -> Outcome:
    """Run ``python -c source`` in a fresh interpreter within the budget; see the module."""

    def limit() -> None:  # pragma: no cover - runs in the child
        size = int(megabytes * 2**20)
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    started = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "-c", source],
            capture_output=True,
            text=True,
            timeout=seconds,
            preexec_fn=limit,
            cwd=cwd,
        )
    except subprocess.TimeoutExpired:
        return Outcome("timeout", seconds=time.monotonic() - started)
    elapsed = time.monotonic() - started
    if done.returncode == 0:
        return Outcome("returned", value=done.stdout, traceback=done.stderr, seconds=elapsed)
    last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
    if "MemoryError" in last:
        return Outcome("memory", traceback=done.stderr, seconds=elapsed)
    if done.returncode < 0:
        return Outcome(
            "crashed",
            error_text=f"signal {-done.returncode}",
            traceback=done.stderr,
            seconds=elapsed,
        )
    name, _, text = last.partition(": ")
    return Outcome(
        "raised",
        value=done.stdout,
        error_types=(name,) if name else (),
        error_text=text,
        traceback=done.stderr,
        seconds=elapsed,
    )
