"""YAML refusals said in the terms of their cause: a key longer than YAML allows, a template.

A parser says what it met where it stopped (``mapping values are not allowed
here``), not why. Two causes are common enough, and far enough from what the
parser says, to be named:

* an implicit key (``key: value``, no ``?``) longer than the 1,024 characters
  YAML allows (:func:`long_key`): named at once, where the key begins, so that
  the pure-Python parser is not run over megabytes of key only to say the
  same in other words;
* an unrendered template (:func:`template_hint`): Helm's ``{{ .Values.x }}``
  or ``{{- if ... }}``, Jinja's ``{% if %}``, or a ``{username}`` placeholder
  left unfilled, where the parser stopped: named at the template, with the
  parser's own words after it.

>>> refused = yaml.constructor.ConstructorError(
...     None, None, "found unhashable key", yaml.Mark("pod.yaml", 0, 2, 9, None, 0))
>>> message, line, column = template_hint("kind: Pod\\nmetadata:\\n  name: {{ .Release.Name }}\\n",
...                                       refused)
>>> print(f"{line}:{column}: {message}")
3:9: looks like an unrendered Helm template ('{{ .Release.Name }}'): render it with `helm template` first (YAML refused it at line 3, column 10: found unhashable key)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import yaml

__all__ = ("KEY_LIMIT", "long_key", "template_hint")

KEY_LIMIT = 1024
"""The most characters from an implicit key's start to its ``:`` that YAML allows (libyaml,
PyYAML and go-yaml alike)."""

# YAML's line breaks; the text was checked (check_text) to hold no other control character
_BREAKS = ("\n", "\r", "\x85", "\u2028", "\u2029")
# the ":" that ends a plain key: followed by a space, a line break, the end, or (in a flow
# collection) a flow indicator
_VALUE_INDICATOR = re.compile(":(?=[ \\t\\r\\n\\x85\\u2028\\u2029,\\[\\]{}]|\\Z)")
_QUOTED = {'"': re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL), "'": re.compile(r"'(?:[^']|'')*'")}
_INDICATORS = re.compile(r"[ \t]*(?:[-?:][ \t]+)*")  # indentation, then "- ", "? ", ": "


def _line_bounds(text: str, index: int) -> tuple[int, int]:
    start = max(text.rfind(char, 0, index) for char in _BREAKS) + 1
    ends = [end for end in (text.find(char, index) for char in _BREAKS) if end != -1]
    return start, min(ends, default=len(text))


def _key_span(
    text: str, err: yaml.MarkedYAMLError, offset: int
) -> tuple[int, int, int, int] | None:
    """Where the implicit key that ``err`` may be refusing begins and where its ``:`` is
    (indexes into ``text``; ``offset`` is added to the error's marks), and the line and
    column (from 0) it begins at."""
    problem, context = err.problem_mark, err.context_mark
    if err.context == "while scanning a simple key" and context is not None:
        start = context.index + offset
        _, end = _line_bounds(text, start)
        after = start
        quoted = _QUOTED.get(text[start : start + 1])
        if quoted is not None:
            found = quoted.match(text, start, end)
            if found is None:
                return None
            after = found.end()
        indicator = _VALUE_INDICATOR.search(text, after, end)
        if indicator is None:
            return None
        return start, indicator.start(), context.line, context.column
    if problem is None:
        return None
    colon = problem.index + offset
    if text[colon : colon + 1] != ":":
        return None
    line_start, _ = _line_bounds(text, colon)
    if err.context is not None and "flow" in err.context:
        # a plain key in a flow collection holds no flow indicator
        start = max(line_start, *(text.rfind(char, line_start, colon) + 1 for char in "{[,"))
        while text[start : start + 1] in (" ", "\t"):
            start += 1
    else:
        indicators = _INDICATORS.match(text, line_start, colon)
        start = indicators.end() if indicators is not None else line_start
    return start, colon, problem.line, problem.column - (colon - start)


def long_key(
    text: str,
    err: yaml.MarkedYAMLError,
    offset: int,
    first_error: Callable[[str], yaml.MarkedYAMLError | None],
) -> yaml.MarkedYAMLError | None:
    """The refusal of an implicit key longer than :data:`KEY_LIMIT`, placed where it
    begins, where that is what the parser refused in ``text`` with ``err``; else ``None``.

    ``offset`` is what the parser's marks lack of an index into ``text`` (1 where
    libyaml read past a byte-order mark). The cause is confirmed, not guessed:
    ``first_error`` (the same parser's first refusal of a text, or ``None``) must
    get past the key once it is shortened to one character.
    """
    span = _key_span(text, err, offset)
    if span is None:
        return None
    start, colon, line, column = span
    if colon - start <= KEY_LIMIT or any(text.find(char, start, colon) != -1 for char in _BREAKS):
        return None
    again = first_error(text[:start] + "k" + text[colon:])
    if again is not None:
        mark, context = again.problem_mark or again.context_mark, again.context_mark
        if (
            mark is None
            or mark.index + offset <= start + 1
            or (context is not None and context.index + offset == start)
        ):
            return None  # still refused at the key: its length is not (only) the cause
    length = len(text[start:colon].rstrip(" \t"))
    name = (err.problem_mark or err.context_mark or yaml.Mark("", 0, 0, 0, None, 0)).name
    return yaml.scanner.ScannerError(
        None,
        None,
        f"an implicit key ('key: value') may be at most {KEY_LIMIT:,} characters "
        f"long, as YAML (and kubectl) allow; this one is {length:,}: shorten it, or write it "
        f"as an explicit key ('? ' before it)",
        yaml.Mark(name, start - offset, line, column, None, 0),
    )


# a template where a YAML node begins (at a line's start, after "- ", ": ", "[" or ","),
# which YAML reads as a flow map, or refuses: never as the text it stands for
_NODE_START = r"(?:^[ \t]*(?:-[ \t]+)*|:[ \t]+|[,\[][ \t]*)"
_TEMPLATE = re.compile(_NODE_START + r"(\{\{|\{%)")
_PLACEHOLDER = re.compile(_NODE_START + r"(\{[A-Za-z_][A-Za-z0-9_.-]*\})(?!\})")
_ENDS = {"{{": "}}", "{%": "%}"}


def template_hint(text: str, err: yaml.MarkedYAMLError) -> tuple[str, int, int] | None:
    """The message, line and column (from 1) of a refusal ``err`` of ``text`` whose likely
    cause is a template left unrendered where the parser stopped (the line it stopped
    at, the two before it, or the line of its context), else ``None``.

    >>> template_hint("a: [1\\n", yaml.parser.ParserError(
    ...     None, None, "expected ',' or ']'", yaml.Mark("a.yaml", 5, 1, 0, None, 0))) is None
    True
    """
    mark = err.problem_mark or err.context_mark
    if mark is None:
        return None
    lines = text.splitlines()  # check_text left only YAML's line breaks in the text
    stopped = min(mark.line, len(lines) - 1)
    near = [stopped, stopped - 1, stopped - 2]
    if err.context_mark is not None:
        near.append(err.context_mark.line)
    for pattern in (_TEMPLATE, _PLACEHOLDER):
        for number in near:
            matches = list(pattern.finditer(lines[number])) if 0 <= number < len(lines) else []
            if not matches:
                continue
            if number == stopped:  # the last one before where the parser stopped, or the first
                before = [match for match in matches if match.start(1) <= mark.column]
                chosen = before[-1] if before else matches[0]
            else:
                chosen = matches[-1]
            return _hint(chosen, lines[number], number, text, err, mark)
    return None


def _hint(
    match: re.Match[str], line: str, number: int, text: str, err: yaml.MarkedYAMLError, mark: Any
) -> tuple[str, int, int]:
    opening = match.group(1)
    column = match.start(1) - (1 if number == 0 and text.startswith("\ufeff") else 0)
    stopped = f"YAML refused it at line {mark.line + 1}, column {mark.column + 1}: {err.problem}"
    if opening in _ENDS:
        end = line.find(_ENDS[opening], match.end(1))
        shown = line[match.start(1) : end + 2 if end != -1 else len(line)]
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        what = "an unrendered Helm template" if opening == "{{" else "an unrendered Jinja template"
        how = "render it with `helm template` first" if opening == "{{" else "render it first"
        return f"looks like {what} ({shown!r}): {how} ({stopped})", number + 1, column + 1
    return (
        f"looks like a placeholder left unfilled ({opening!r}): fill it in first, or quote "
        f"the value if the braces are meant ({stopped})",
        number + 1,
        column + 1,
    )
