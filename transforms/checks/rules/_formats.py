"""The name formats the API server checks (DNS labels, label keys and values, port and env
names), each a verdict: ``None`` when the text fits, else what is wrong with it.

The rules come from Kubernetes' apimachinery validation (``IsDNS1123Label``,
``IsQualifiedName``, ``IsValidLabelValue``, ``IsValidPortName``, ``IsEnvVarName``
and ``IsRelaxedEnvVarName``). Pods repeat a handful of names (every replica
has the same containers and labels): each verdict is worked out once.

>>> dns_label("trainer-0") is None, dns_label("Trainer_0")
(True, "must consist of lower-case letters, digits and '-', and start and end with a letter or digit (such as 'my-name' or '123-abc')")
>>> qualified_name("example.com/pool") is None, label_value("a b")
(True, "must be empty or consist of letters, digits, '-', '_' or '.', and start and end with a letter or digit (such as 'my_value' or '12345')")
"""

from __future__ import annotations

import re
from functools import lru_cache

from combinators.limits import short_repr

__all__ = ("dns_label", "dns_subdomain", "qualified_name", "label_value", "port_name", "env_name")

_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS_LABEL = re.compile(_LABEL)
_DNS_SUBDOMAIN = re.compile(rf"{_LABEL}(\.{_LABEL})*")
_UNDERSCORE_LABEL = r"_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_DNS_SUBDOMAIN_UNDERSCORE = re.compile(rf"{_UNDERSCORE_LABEL}(\.{_UNDERSCORE_LABEL})*")
_NAME_PART = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_PORT_NAME = re.compile(r"[-a-z0-9]+")
_STRICT_ENV_NAME = re.compile(r"[-._a-zA-Z][-._a-zA-Z0-9]*")

_LABEL_TEXT = (
    "must consist of lower-case letters, digits and '-', and start and end with a "
    "letter or digit (such as 'my-name' or '123-abc')"
)
_SUBDOMAIN_TEXT = (
    "must consist of lower-case letters, digits, '-' and '.', and start and end "
    "with a letter or digit (such as 'example.com')"
)
_NAME_PART_TEXT = (
    "must consist of letters, digits, '-', '_' or '.', and start and end with a "
    "letter or digit (such as 'MyName', 'my.name' or '123-abc')"
)


@lru_cache(maxsize=4096)
def dns_label(text: str) -> str | None:
    """What keeps ``text`` from being a DNS-1123 label (container and volume names).

    >>> dns_label("a" * 64)
    'must be at most 63 characters'
    >>> dns_label("my.name")
    'must not contain dots'
    """
    if len(text) <= 63 and _DNS_LABEL.fullmatch(text):
        return None
    if not text:
        return "must not be empty"
    wrong = ["must be at most 63 characters"] if len(text) > 63 else []
    if not _DNS_LABEL.fullmatch(text):
        wrong.append("must not contain dots" if _DNS_SUBDOMAIN.fullmatch(text) else _LABEL_TEXT)
    return "; ".join(wrong)


@lru_cache(maxsize=4096)
def dns_subdomain(text: str, underscore: bool = False) -> str | None:
    """What keeps ``text`` from being a DNS-1123 subdomain (``underscore``: one that may
    hold '_', as the API server allows in DNS search domains since Kubernetes 1.33).

    >>> dns_subdomain("example.com") is None, dns_subdomain("_srv.example.com", True) is None
    (True, True)
    >>> dns_subdomain("Example.com")
    "must consist of lower-case letters, digits, '-' and '.', and start and end with a letter or digit (such as 'example.com')"
    """
    pattern = _DNS_SUBDOMAIN_UNDERSCORE if underscore else _DNS_SUBDOMAIN
    if len(text) <= 253 and pattern.fullmatch(text):
        return None
    if not text:
        return "must not be empty"
    wrong = ["must be at most 253 characters"] if len(text) > 253 else []
    if not pattern.fullmatch(text):
        wrong.append(
            _SUBDOMAIN_TEXT.replace("'-' and '.'", "'-', '_' and '.'")
            if underscore
            else _SUBDOMAIN_TEXT
        )
    return "; ".join(wrong)


@lru_cache(maxsize=4096)
def qualified_name(text: str) -> str | None:
    """What keeps ``text`` from being a qualified name: a label or annotation key, a
    toleration key (an optional DNS subdomain and '/', then a name of at most 63 characters).

    >>> qualified_name("app.kubernetes.io/name") is None
    True
    >>> qualified_name("a b")
    "its name part must consist of letters, digits, '-', '_' or '.', and start and end with a letter or digit (such as 'MyName', 'my.name' or '123-abc')"
    >>> qualified_name("a/b/c")
    "must be a name with an optional DNS subdomain prefix and '/' (such as 'example.com/MyName'), with one '/' at most"
    """
    if type(text) is not str:  # a key YAML read as a boolean or a number: the schema's to report
        raise TypeError(f"a qualified name is a string, got {type(text).__name__}")
    prefix, slash, name = text.partition("/")
    if not slash:
        prefix, name = "", text
    elif "/" in name:
        return (
            "must be a name with an optional DNS subdomain prefix and '/' (such as "
            "'example.com/MyName'), with one '/' at most"
        )
    wrong = []
    if slash:
        if not prefix:
            wrong.append("its prefix (before '/') must not be empty")
        elif (found := dns_subdomain(prefix)) is not None:
            wrong.append(f"its prefix (before '/') {found}")
    if not name:
        wrong.append("its name part must not be empty")
    else:
        if len(name) > 63:
            wrong.append("its name part must be at most 63 characters")
        if not _NAME_PART.fullmatch(name):
            wrong.append(f"its name part {_NAME_PART_TEXT}")
    return "; ".join(wrong) or None


@lru_cache(maxsize=4096)
def label_value(text: str) -> str | None:
    """What keeps ``text`` from being a label value (at most 63 characters, maybe empty).

    >>> label_value("") is None, label_value("p4d.24xlarge") is None, label_value("-x")
    (True, True, "must be empty or consist of letters, digits, '-', '_' or '.', and start and end with a letter or digit (such as 'my_value' or '12345')")
    """
    wrong = ["must be at most 63 characters"] if len(text) > 63 else []
    if text and not _NAME_PART.fullmatch(text):
        wrong.append(
            "must be empty or consist of letters, digits, '-', '_' or '.', and start "
            "and end with a letter or digit (such as 'my_value' or '12345')"
        )
    return "; ".join(wrong) or None


@lru_cache(maxsize=4096)
def port_name(text: str) -> str | None:
    """What keeps ``text`` from being a port name (an IANA service name: at most 15
    characters, lower-case letters, digits and '-', at least one letter, no '-' at either
    end nor two in a row).

    >>> port_name("c10d") is None, port_name("metrics-port-9090")
    (True, 'must be at most 15 characters')
    >>> port_name("8080")
    'must contain at least one letter (a-z)'
    """
    wrong = ["must be at most 15 characters"] if len(text) > 15 else []
    if not _PORT_NAME.fullmatch(text):
        wrong.append("must contain only lower-case letters, digits and '-'")
    if not any("a" <= char <= "z" for char in text):
        wrong.append("must contain at least one letter (a-z)")
    if "--" in text:
        wrong.append("must not contain two '-' in a row")
    if text.startswith("-") or text.endswith("-"):
        wrong.append("must not begin or end with '-'")
    return "; ".join(wrong) or None


@lru_cache(maxsize=4096)
def env_name(text: str, relaxed: bool = True) -> str | None:
    """What keeps ``text`` from being an env var name (or envFrom prefix).

    ``relaxed`` is the API server's rule since Kubernetes 1.32 (printable ASCII
    but '='); before, a name was letters, digits, '_', '-' and '.', not
    starting with a digit, and neither '.' nor starting with '..'.

    >>> env_name("NCCL_DEBUG") is None, env_name("1ST") is None, env_name("A=B")
    (True, True, "must consist of printable ASCII characters other than '='")
    >>> env_name("1ST", relaxed=False)
    "must consist of letters, digits, '_', '-' or '.', and not start with a digit (such as 'my.env-name' or 'MY_ENV.NAME')"
    """
    if not text:
        return "must not be empty"
    if relaxed:
        if text.isascii() and text.isprintable() and "=" not in text:
            return None
        return "must consist of printable ASCII characters other than '='"
    wrong = (
        []
        if _STRICT_ENV_NAME.fullmatch(text)
        else [
            "must consist of letters, digits, '_', '-' or '.', and not start with a digit (such "
            "as 'my.env-name' or 'MY_ENV.NAME')"
        ]
    )
    if text in (".", ".."):
        wrong.append(f"must not be {short_repr(text)}")
    elif text.startswith(".."):
        wrong.append("must not start with '..'")
    return "; ".join(wrong) or None
