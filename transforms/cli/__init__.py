"""The ``podfold`` command line: ``apply``, ``explain``, ``validate``, ``render``, ``recipes``.

``main`` is the console script's entry point; each command lives in a module
of its own and imports what it needs (TorchX, the workload tables) only when
it runs.
"""

from transforms.cli.main import EXIT_FAILED, EXIT_OK, EXIT_USAGE, main, podfold

__all__ = ("main", "podfold", "EXIT_OK", "EXIT_FAILED", "EXIT_USAGE")
