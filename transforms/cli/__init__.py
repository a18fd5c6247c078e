"""The ``podfold`` command line: ``apply``, ``explain``, ``validate``, ``render``, ``recipes``.

``script`` is the console scripts' entry point (``main``, then the process ended at
once), ``main`` the command line as a function that exits; each command lives in a module
of its own and imports what it needs (TorchX, the workload tables) only when
it runs.
"""

from transforms.cli.main import EXIT_FAILED, EXIT_OK, EXIT_USAGE, main, podfold, script

__all__ = ("main", "script", "podfold", "EXIT_OK", "EXIT_FAILED", "EXIT_USAGE")
