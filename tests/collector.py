"""The cyclic garbage collector's thresholds in the test run, and the interpreter's own.

A pytest-xdist worker holds a large heap (the modules, schemas and caches of 7,000 tests),
and every full collection walks all of it: in four property-heavy modules, 42 full
collections took 3.9 s of 42 s; at a tenth of the default rate, 6 took 0.9 s. The young
generations are collected at the default rate, so a test's cyclic garbage goes as soon as
it would in a user's process. ``tests/conftest.py`` calls :func:`for_the_run` before it
collects; the children ``tests/warm.py`` forks to be a user's ``podfold`` get
:data:`INTERPRETER` back.
"""

from __future__ import annotations

import gc

__all__ = ("INTERPRETER", "RUN", "for_the_run")

INTERPRETER: tuple[int, ...] = gc.get_threshold()
"""The interpreter's thresholds, as this module first found them."""

RUN = (INTERPRETER[0], INTERPRETER[1], 10 * INTERPRETER[2])
"""The run's: a full collection a tenth as often, the young generations as by default."""


def for_the_run() -> None:
    gc.set_threshold(*RUN)
