"""The ``podfold`` command line."""

from typing import NoReturn


def main() -> NoReturn:  # pragma: no cover - replaced by the command line's own module
    raise SystemExit("podfold: the command line is being built")
