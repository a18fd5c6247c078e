r"""Docstrings as the API reference shows them: doctests fenced as code, roles as code.

The docstrings are written for ``help()`` and doctest: a ``>>>`` example stands
in the text, and ``:func:`name``` names a function. Markdown would read an
example's ``pod["spec"]`` as a link, so each example becomes a fenced block,
and each role its name in backticks.

>>> fenced("Sets it.\n\n>>> f(1)\n2\n\nThen :func:`combinators.fold`.").splitlines()
['Sets it.', '', '```pycon', '>>> f(1)', '2', '```', '', 'Then `combinators.fold`.']
"""

from __future__ import annotations

import re
from typing import Any

try:
    from griffe import Extension
except ImportError:  # the docs extra is not installed: fenced() still works, and is tested
    Extension = object  # type: ignore[assignment,misc]

__all__ = ("DoctestBlocks", "fenced")

ROLE = re.compile(r":(?:class|func|data|meth|attr|mod|exc|obj|py:\w+):`~?([^`]+)`")


def fenced(text: str) -> str:
    """``text`` with every doctest example fenced and every role written as code."""
    lines = text.splitlines()
    out: list[str] = []
    index = 0
    in_fence = False
    while index < len(lines):
        line = lines[index]
        stripped = line.lstrip()
        if stripped.startswith("```"):
            in_fence = not in_fence
        if in_fence or not (stripped == ">>>" or stripped.startswith(">>> ")):
            out.append(line if in_fence else ROLE.sub(r"`\1`", line))
            index += 1
            continue
        indent = line[: len(line) - len(stripped)]
        out.append(f"{indent}```pycon")
        while index < len(lines) and lines[index].strip():
            out.append(lines[index])
            index += 1
        out.append(f"{indent}```")
    return "\n".join(out)


class DoctestBlocks(Extension):
    """Fence each object's doctests when the API reference loads it."""

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fenced(obj.docstring.value)
