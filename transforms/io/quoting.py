"""Strings that YAML readers other than PyYAML would read as something else, and the
dumpers that quote them.

PyYAML writes a string plain (unquoted) wherever its own YAML 1.1 resolvers
read the plain text back as a string. Other readers of what podfold writes
resolve more: kubectl (Go's ``sigs.k8s.io/yaml``, on go-yaml v2) reads ``y``
and ``n`` as booleans and any text Go's ``strconv`` parses as a number, once
its underscores are dropped (``08`` and ``1e-4`` as floats, ``0o17`` and
``0b101`` as integers); go-yaml also reads ``2024-1-2`` as a date; YAML 1.2's
core schema (ruamel.yaml, go-yaml v3) reads ``0o17``, ``1e-4`` and ``-.5e3``
as numbers. :func:`quote_foreign_scalars` gives one of podfold's dumper
classes implicit resolvers for all of these, after PyYAML's own, so that a
string they match is written quoted; numbers, booleans and null keep their
plain text (PyYAML's resolvers still match them first), and so does every
other string.

>>> import yaml
>>> class Dumper(yaml.SafeDumper):
...     pass
>>> quote_foreign_scalars(Dumper)
>>> print(yaml.dump({"args": ["1e-4", "y", "08", "0o17", "12", "train"], "n": 1}, Dumper=Dumper), end="")
args:
- '1e-4'
- 'y'
- '08'
- '0o17'
- '12'
- train
'n': 1
"""

from __future__ import annotations

import re

import yaml
from yaml.resolver import BaseResolver

__all__ = (
    "quote_foreign_scalars",
    "QuotingDumper",
    "FOREIGN_BOOL",
    "FOREIGN_INT",
    "FOREIGN_FLOAT",
    "FOREIGN_TIMESTAMP",
)

# Go's resolver drops every underscore of a text that starts with a digit or a sign
# before it tries strconv; ruamel.yaml takes underscores among the digits (and reads
# "-_" or "._" as numbers too, and fails): so "_" may be anywhere after the first
# character. A little more than any reader takes ("0o9", "1e400") is quoted too.
_START = r"(?=[-+0-9.])"

FOREIGN_BOOL = re.compile(r"(?:y|Y|n|N)\Z")
"""go-yaml v2's booleans that PyYAML reads as strings (YAML 1.1's own list has them)."""

FOREIGN_INT = re.compile(
    _START + r"[-+]?(?:[0-9_]+"  # 12, 08 (YAML 1.2), 0777 (Go: octal)
    r"|_*0_*[xXoObB][0-9a-fA-F_]+)\Z"  # 0x1F, 0o17 (YAML 1.2), 0b101 (Go)
    r"|0_*[bBoO]_*[-+][0-9_]+\Z"
)  # 0b+101: go-yaml parses what follows
"""Integers of YAML 1.2's core schema, of ruamel.yaml, of Go's ``strconv.ParseInt(text,
0, 64)`` and of go-yaml's ``0b``/``0o`` branches."""

FOREIGN_FLOAT = re.compile(
    _START + r"[-+]?_*(?:\.[0-9_]+|[0-9][0-9_]*(?:\.[0-9_]*)?)"
    r"(?:[eE]_*[-+]?_*[0-9][0-9_]*)?\Z"
)
"""Floats of YAML 1.2's core schema, of ruamel.yaml and of go-yaml (``1e-4``, ``-.5e3``,
``1.``)."""

FOREIGN_TIMESTAMP = re.compile(
    r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"
    r"(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:[.,][0-9]*)?"
    r"(?:[ \t]*(?:[Zz]|[-+][0-9]{1,2}(?::?[0-9]{2})?))?)?\Z"
)
"""The dates and times go-yaml's ``time.Parse`` layouts read (``2024-1-2``), a little more."""

_FOREIGN_NUMBER = re.compile(
    "|".join(
        f"(?:{pattern.pattern})" for pattern in (FOREIGN_INT, FOREIGN_FLOAT, FOREIGN_TIMESTAMP)
    )
)
# the tag the resolvers give what they match: any tag but str's makes the text be written
# quoted, and none is written (the quoted text reads back as a string without one)
_MISREAD = "tag:podfold,2024:misread-elsewhere"


def quote_foreign_scalars(dumper: type[BaseResolver]) -> None:
    """Give ``dumper`` (a podfold class, never one of PyYAML's: they are shared) the
    implicit resolvers of this module, after the ones it has.

    A string is written plain only where ``dumper.resolve`` reads its plain text
    as a string. A resolver is tried only for a text that begins with one of its
    first characters: one regular expression for the numbers and dates (a digit,
    a sign or a dot first), one for ``y`` and ``n``.
    """
    if dumper.__module__ == "yaml" or dumper.__module__.startswith("yaml."):
        raise ValueError(f"{dumper.__name__} is PyYAML's own class; subclass it first")
    if any(tag == _MISREAD for tag, _ in dumper.yaml_implicit_resolvers.get("0", ())):
        return  # inherited from a class given them already
    dumper.add_implicit_resolver(_MISREAD, FOREIGN_BOOL, list("yYnN"))
    dumper.add_implicit_resolver(_MISREAD, _FOREIGN_NUMBER, list("0123456789+-."))


class QuotingDumper(yaml.Dumper):
    """``yaml.Dumper``, what ``yaml.dump`` writes with unless told otherwise, quoting
    the strings another reader would misread (see the module): TorchX's dry run
    prints a job with it.

    >>> print(yaml.dump({"args": ["1e-4", "train"], "n": 1}, Dumper=QuotingDumper), end="")
    args:
    - '1e-4'
    - train
    'n': 1
    """


quote_foreign_scalars(QuotingDumper)
