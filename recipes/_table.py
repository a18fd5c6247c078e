"""The README's table of recipes, generated from the catalog.

>>> print(markdown_table().splitlines()[0])
| recipe | what it does |
>>> "| `gpu` |" in markdown_table()
True
"""

from __future__ import annotations

from recipes._catalog import GROUPS
from recipes._recipe import summary

__all__ = ("markdown_table", "cell", "BEGIN", "END")

BEGIN = "<!-- recipes:begin -->"
END = "<!-- recipes:end -->"


def cell(text: str) -> str:
    """Docstring text as a Markdown table cell: single backticks, ``|`` escaped.

    >>> print(cell("Set ``spec.hostIPC`` (a | b)."))
    Set `spec.hostIPC` (a \\| b).
    """
    return text.replace("``", "`").replace("|", "\\|")


def markdown_table() -> str:
    """A Markdown table of every recipe, by topic, with its one-line summary."""
    lines = ["| recipe | what it does |", "|---|---|"]
    for topic, factories in GROUPS:
        lines.append(f"| **{topic}** | |")
        lines.extend(
            f"| `{factory.__name__}` | {cell(summary(factory))} |" for factory in factories
        )
    return "\n".join(lines) + "\n"
