"""Plain scalars read the way kubectl reads them: numbers, null, booleans, and the keys of maps.

kubectl reads a manifest with ``sigs.k8s.io/yaml``: go-yaml v2 (the fork
``sigs.k8s.io/yaml/goyaml.v2``) resolves each plain (unquoted, untagged)
scalar, then the document is made JSON. Its numbers are not YAML 1.1's,
which PyYAML reads:

* no base 60: ``23:30`` and ``1:30.5`` are strings (PyYAML: 1410 and 90.5);
* a float needs no dot and its exponent no sign: ``1e3``, ``6.02e23``, ``1.5e3``;
* integers are Go's ``strconv.ParseInt(text, 0, 64)`` once every underscore is
  dropped: ``0o17``, ``0O17``, ``0X1F``, ``0B101``, ``-_1``; a leading zero makes
  an octal number (``0777`` is 511), and where the digits are not octal the
  text is a decimal float (``08`` is 8.0, ``012345678`` is 12345678.0);
* past 64 bits a decimal integer is a float (``99999999999999999999``) and a
  hexadecimal, octal or binary one a string, as is a float past the largest
  (``1e400``);
* a date or time (``2024-01-02``) stays the text it was written as;
* null is ``~``, ``null``, ``Null``, ``NULL`` and the empty text, as in PyYAML;
  ``=`` and ``<<`` as values are strings;
* ``.inf``, ``-.inf`` and ``.nan`` are floats JSON cannot carry: kubectl
  refuses a file with one as a value (``json: unsupported value: +Inf``).

JSON's keys are strings: kubectl writes a key that is read as a boolean,
an integer or a float as text (``y`` is the key ``"true"``, ``0x1F``
``"31"``, ``1e3`` ``"1000"``: Go's shortest form of the float as a 32-bit
one), and refuses a null key and an integer past 2**63 - 1 as one.

:func:`read_as_kubectl` gives a podfold loader class all of this (and
kubectl's booleans, :mod:`transforms.io.booleans`): the manifest loaders of
:mod:`transforms.io.safe_yaml` read with it. Overlays are podfold's own
format and keep PyYAML's reading.

>>> [kubectl_scalar(text) for text in ("23:30", "1e3", "0o17", "08", "0x1F", "2024-01-02")]
['23:30', 1000.0, 15, 8.0, 31, '2024-01-02']
>>> [json_key(key) for key in (True, 31, 1000.0, 6.02e23, "name")]
['true', '31', '1000', '6.02e+23', 'name']
"""

from __future__ import annotations

import math
import re
import struct
from typing import Any

import yaml

from combinators.limits import short_repr
from transforms.io.booleans import KUBECTL_FALSE, KUBECTL_TRUE, read_booleans_as_kubectl

__all__ = (
    "NUMBER_TAG",
    "read_as_kubectl",
    "kubectl_scalar",
    "kubectl_number",
    "json_key",
    "refuse_non_finite",
)

NUMBER_TAG = "tag:podfold,2024:kubectl-number"
"""The tag a manifest loader gives a plain scalar written as one of kubectl's numbers (an
integer or a float, or a text that is one but for its size); its constructor gives what
kubectl reads it as: :func:`kubectl_number`."""

_PREFIX = "tag:yaml.org,2002:"
_INT, _FLOAT, _NULL, _TIMESTAMP = (_PREFIX + name for name in ("int", "float", "null", "timestamp"))
_VALUE, _MERGE = _PREFIX + "value", _PREFIX + "merge"
# PyYAML's resolvers these replace: YAML 1.1's numbers (base 60 included) and dates, and
# "=" (YAML 1.1's "value", which no constructor builds: PyYAML refused `a: =`)
_REPLACED = frozenset({_INT, _FLOAT, _TIMESTAMP, _VALUE})

_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1

# go-yaml's resolveMap entries that are numbers
_SPECIAL = {
    **dict.fromkeys([".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"], math.inf),
    **dict.fromkeys(["-.inf", "-.Inf", "-.INF"], -math.inf),
    **dict.fromkeys([".nan", ".NaN", ".NAN"], math.nan),
}

# A text go-yaml reads as a number, or would but for its size. Led by a digit or a sign
# (its "D" and "S" hints) every underscore is dropped first, so "_*" follows each piece;
# led by a dot, strconv.ParseFloat reads the text itself, where an underscore may stand
# only between two digits.
_U = "_*"
_DIGITS = f"(?:[0-9]{_U})+"
_SIGNED_BODY = (
    f"0{_U}[xX]{_U}(?:[0-9a-fA-F]{_U})+"  # 0x1F: ParseInt's base prefixes
    f"|0{_U}[oO]{_U}(?:[0-7]{_U})+"  # 0o17
    f"|0{_U}[bB]{_U}(?:[01]{_U})+"  # 0b101
    f"|{_DIGITS}(?:\\.{_U}(?:[0-9]{_U})*)?"  # 12, 0777, 08, 1., 1.5 ...
    f"(?:[eE]{_U}(?:[-+]{_U})?{_DIGITS})?"  # ... 1e3, 1.5E-3 (yamlStyleFloat)
    f"|\\.{_U}{_DIGITS}(?:[eE]{_U}(?:[-+]{_U})?{_DIGITS})?"
)  # .5 after a sign: -.5, +.5e3
_RUN = "[0-9]+(?:_[0-9]+)*"
_NUMBER_TEXT = re.compile(
    f"(?:[-+]{_U}(?:{_SIGNED_BODY})|(?=[0-9])(?:{_SIGNED_BODY})"
    f"|0{_U}b{_U}[-+]{_U}(?:[01]{_U})+"  # go-yaml's own "0b" branch: 0b-101
    f"|\\.{_RUN}(?:[eE][-+]?{_RUN})?"  # led by a dot: ParseFloat
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z"
)
_YAML_STYLE_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_BASES = {"x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2}
_OCTAL = frozenset("01234567")


def kubectl_number(text: str) -> int | float | str:
    """What kubectl reads ``text``, a plain scalar written as a number (see
    :data:`NUMBER_TAG`), as: an ``int``, a ``float``, or ``text`` itself where the number
    is too large for Go's 64 bits (go-yaml's ``resolve``, step for step).

    >>> [kubectl_number(text) for text in ("0777", "08", "1_000", "-0x1F", "0b-101", ".5e1_0")]
    [511, 8.0, 1000, -31, -5, 5000000000.0]
    >>> [kubectl_number(text) for text in ("99999999999999999999", "0x1FFFFFFFFFFFFFFFFF", "1e400")]
    [1e+20, '0x1FFFFFFFFFFFFFFFFF', '1e400']
    """
    special = _SPECIAL.get(text)
    if special is not None:
        return special
    if text[0] == ".":
        number = float(text.replace("_", ""))
        return text if number == math.inf else number  # ParseFloat's range error
    plain = text.replace("_", "")
    integer = _parse_int(plain)
    if integer is not None:
        return integer
    if _YAML_STYLE_FLOAT.match(plain):
        number = float(plain)
        if not math.isinf(number):
            return number
    elif plain.startswith("0b"):  # ParseInt(plain[2:], 2, 64), its sign included
        rest = plain[2:]
        digits = rest[1:] if rest[:1] in ("-", "+") else rest
        if digits and set(digits) <= {"0", "1"}:
            value = -int(digits, 2) if rest[0] == "-" else int(digits, 2)
            if _INT64_MIN <= value <= (_INT64_MAX if digits != rest else _UINT64_MAX):
                return value
    return text


def _parse_int(plain: str) -> int | None:
    """Go's ``strconv.ParseInt(plain, 0, 64)``, else ``strconv.ParseUint(plain, 0, 64)``."""
    signed = plain[0] in "-+"
    digits = plain[1:] if signed else plain
    base = 10
    if len(digits) > 1 and digits[0] == "0":
        base = _BASES.get(digits[1], 8)
        digits = digits[2:] if base != 8 or digits[1] in "oO" else digits[1:]
        if base == 8 and not set(digits) <= _OCTAL:
            return None  # 08, 0.5, 0e3: no octal integer (a decimal float, for yamlStyleFloat)
    elif not (digits.isascii() and digits.isdigit()):
        return None  # 1.5, 1e3
    if not digits or (base == 2 and not set(digits) <= {"0", "1"}):
        return None  # 0b-101: no sign after the prefix
    significant = digits.lstrip("0")
    if len(significant) > 64:
        return None  # past 64 bits in any base (and past what int() reads of a long text)
    value = int(significant or "0", base)
    if plain[0] == "-":
        return -value if value <= -_INT64_MIN else None
    return value if value <= (_INT64_MAX if signed else _UINT64_MAX) else None


def kubectl_scalar(text: str) -> Any:
    """What kubectl reads the plain scalar ``text`` as: ``None``, a boolean, a number
    (:func:`kubectl_number`) or the text itself.

    >>> [kubectl_scalar(text) for text in ("~", "", "y", "Off", "1:30.5", "-.inf", "nUll", "=")]
    [None, None, True, False, '1:30.5', -inf, 'nUll', '=']
    """
    if text in ("", "~", "null", "Null", "NULL"):
        return None
    if text in KUBECTL_TRUE:
        return True
    if text in KUBECTL_FALSE:
        return False
    return kubectl_number(text) if _NUMBER_TEXT.match(text) else text


def _construct_number(loader: Any, node: yaml.ScalarNode) -> int | float | str:
    value = kubectl_number(node.value)
    if type(value) is float and not math.isfinite(value):
        loader.non_finite_read = True
    return value


def _explicit(name: str) -> Any:
    """The constructor of an explicit ``!!int`` or ``!!float`` in a manifest: the text is
    read as kubectl reads it plain, and must be what the tag says, as go-yaml checks (an
    integer is a float to ``!!float``); else the tag is refused where it is written."""

    def construct(loader: Any, node: yaml.ScalarNode) -> int | float:
        text = loader.construct_scalar(node)
        value = kubectl_scalar(text)
        if type(value) is int and (name == "int" or _INT64_MIN <= value <= _INT64_MAX):
            return value if name == "int" else float(value)
        if type(value) is float and name == "float":
            if not math.isfinite(value):
                loader.non_finite_read = True
            return value
        what = (
            "null"
            if value is None
            else f"the boolean {str(value).lower()}"
            if type(value) is bool
            else f"the integer {short_repr(value)}"
            if type(value) is int
            else f"the float {value!r}"
            if type(value) is float
            else "a string"
        )
        kind = "an integer" if name == "int" else "a number"
        raise yaml.constructor.ConstructorError(
            None,
            None,
            f"!!{name} takes {kind}, not {short_repr(text)}: kubectl reads it as "
            f"{what} "
            f"and refuses the tag",
            node.start_mark,
        )

    return construct


def _construct_merge_text(loader: Any, node: yaml.ScalarNode) -> str:
    return str(loader.construct_scalar(node))  # "<<" as a value (as a key it merges)


def read_as_kubectl(loader: type[Any]) -> None:
    """Make ``loader`` (a podfold loader class, never one of PyYAML's own: they are
    shared) read plain scalars as kubectl does (see the module): its numbers
    (:data:`NUMBER_TAG`), dates as text, ``=`` as text, its booleans
    (:func:`~transforms.io.booleans.read_booleans_as_kubectl`); explicit ``!!int`` and
    ``!!float`` checked as go-yaml checks them; and, as its ``json_key``, how the keys of
    its maps are made text, as kubectl makes them (:func:`json_key`). A float JSON cannot
    carry, read, is noted on the loader as ``non_finite_read``
    (:func:`refuse_non_finite`).

    Only the resolvers of texts led by a digit, a sign or a dot (and ``=``) change: one
    regular expression for kubectl's numbers in place of PyYAML's three for YAML 1.1's
    integers, floats and dates.

    >>> from transforms.io.safe_yaml import StrictLoader
    >>> class Loader(StrictLoader):
    ...     pass
    >>> read_as_kubectl(Loader)
    >>> yaml.load("[23:30, 1e3, 0o17, 08, y, 2024-01-02, =, '1e3']", Loader=Loader)
    ['23:30', 1000.0, 15, 8.0, True, '2024-01-02', '=', '1e3']
    """
    if loader.__module__ == "yaml" or loader.__module__.startswith("yaml."):
        raise ValueError(f"{loader.__name__} is PyYAML's own class; subclass it first")
    read_booleans_as_kubectl(loader)
    loader.yaml_implicit_resolvers = {
        first: [(tag, pattern) for tag, pattern in resolvers if tag not in _REPLACED]
        for first, resolvers in loader.yaml_implicit_resolvers.items()
    }
    loader.add_implicit_resolver(NUMBER_TAG, _NUMBER_TEXT, list("-+0123456789."))
    loader.add_constructor(NUMBER_TAG, _construct_number)
    loader.add_constructor(_INT, _explicit("int"))
    loader.add_constructor(_FLOAT, _explicit("float"))
    loader.add_constructor(_MERGE, _construct_merge_text)
    loader.json_key = staticmethod(json_key)
    loader.non_finite_read = False


def json_key(key: Any, node: yaml.Node | None = None) -> str:
    """The text kubectl makes of the map key ``key`` (``sigs.k8s.io/yaml``'s
    ``convertToJSONableObject``): a string as it is, a boolean as ``true`` or ``false``,
    an integer in decimal, a float as Go's shortest ``%g`` of it as a 32-bit float
    (``.inf``, ``-.inf`` and ``.nan`` for those); a null key and an integer past
    2**63 - 1 (``uint64`` to go-yaml) are refused, as kubectl refuses them, at ``node``
    where it is given.

    >>> [json_key(key) for key in (False, -7, 1234567.0, 3.14159265358979, 1e-5, 1e300, "x")]
    ['false', '-7', '1.234567e+06', '3.1415927', '1e-05', '.inf', 'x']
    >>> try:
    ...     json_key(None, yaml.compose("~"))
    ... except yaml.MarkedYAMLError as err:
    ...     print(err.problem)
    the key '~' is null to kubectl, which cannot read a null key (unsupported map key of type: <nil>): quote it ('~') if a string is meant
    """
    kind = type(key)
    if kind is str:
        return str(key)
    if kind is bool:
        return "true" if key else "false"
    if kind is int and _INT64_MIN <= key <= _INT64_MAX:
        return str(key)
    if kind is float:
        return _go_float32_g(key)
    text = node.value if isinstance(node, yaml.ScalarNode) else short_repr(key)
    if key is None:
        problem = (
            f"the key {short_repr(text)} is null to kubectl, which cannot read a null key "
            f"(unsupported map key of type: <nil>)"
        )
    elif kind is int:
        problem = (
            f"the key {short_repr(text)} is an integer past 2**63 - 1, which kubectl "
            f"reads as an unsigned one and cannot read as a key (unsupported map key of type: "
            f"uint64)"
        )
    else:
        problem = (
            f"the key {short_repr(text)} is {kind.__name__} to kubectl, which cannot "
            f"read it as a key"
        )
    hint = (
        f": quote it ('{short_repr(text, quoted=False)}') if a string is meant"
        if text
        else ": write a key"
    )
    mark = node.start_mark if node is not None else None
    raise yaml.constructor.ConstructorError(None, None, problem + hint, mark)


def _go_float32_g(value: float) -> str:
    """Go's ``strconv.FormatFloat(value, 'g', -1, 32)``, with go-yaml's names for the
    infinities and NaN: the shortest text that reads back as the same 32-bit float."""
    if math.isnan(value):
        return ".nan"
    try:
        single = struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:  # Go's float32() of a float64 past the largest is an infinity
        single = math.copysign(math.inf, value)
    if math.isinf(single):
        return ".inf" if single > 0 else "-.inf"
    if single == 0:
        return "-0" if math.copysign(1.0, single) < 0 else "0"
    digits, exponent = _shortest(single)
    sign = "-" if single < 0 else ""
    point = exponent + 1  # digits[:point] before the decimal point
    if exponent < -4 or exponent >= 6:  # %e (shortest: Go decides with a precision of 6)
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def _shortest(single: float) -> tuple[str, int]:
    """The fewest significant digits that read back as the 32-bit float ``single`` (the
    nearest such where several do), and the decimal exponent of the first."""
    magnitude = abs(single)
    for precision in range(1, 10):
        mantissa, exponent = f"{magnitude:.{precision - 1}e}".split("e")
        nearest = int(mantissa.replace(".", ""))
        # the nearest decimal of this many digits, and its neighbours: next to a power of
        # two the texts read as the float reach further on one side than on the other
        found = []
        for digits in (nearest, nearest - 1, nearest + 1):
            if digits <= 0:
                continue
            power = int(exponent) + len(str(digits)) - precision
            value = float(f"{digits}e{power - len(str(digits)) + 1}")
            if struct.unpack("f", struct.pack("f", value))[0] == magnitude:
                found.append((abs(value - magnitude), str(digits).rstrip("0") or "0", power))
        if found:
            _, digits_text, power = min(found)
            return digits_text, power
    raise AssertionError(f"no shortest form of {single!r}")  # pragma: no cover


def refuse_non_finite(node: yaml.Node) -> None:
    """Refuse the first infinity or NaN among the values of the composed manifest
    document ``node`` (its keys are text to kubectl: :func:`json_key`), where it is
    written: kubectl refuses the file, as JSON cannot carry it.

    >>> refuse_non_finite(yaml.compose("a: [1, .5]\\n.inf: b\\n"))
    >>> try:
    ...     refuse_non_finite(yaml.compose("a: [1, -.Inf]\\n"))
    ... except yaml.MarkedYAMLError as err:
    ...     print(err.problem, "| at column", err.problem_mark.column + 1)
    -.Inf is the float -Inf to kubectl, which JSON cannot carry: kubectl refuses the file (json: unsupported value: -Inf); quote it ('-.Inf') if a string is meant | at column 8
    """
    seen: set[int] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, yaml.MappingNode):
            stack.extend(value for _, value in reversed(current.value))
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(reversed(current.value))
        elif current.tag in (NUMBER_TAG, _FLOAT):
            value = kubectl_scalar(current.value)
            if type(value) is float and not math.isfinite(value):
                go = "NaN" if math.isnan(value) else "+Inf" if value > 0 else "-Inf"
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"{current.value} is the float {go} to kubectl, which JSON "
                    f"cannot carry: kubectl refuses the file (json: unsupported value: {go}); "
                    f"quote it ('{current.value}') if a string is meant",
                    current.start_mark,
                )
