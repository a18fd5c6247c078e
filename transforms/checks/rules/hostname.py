"""Rule ``hostname``: the pod's ``hostname`` and ``subdomain`` are DNS-1123 labels, as the API
server requires (``ValidatePodSpec``): lower-case letters, digits and '-', at most 63
characters; a hostname with dots is refused.

>>> out = []
>>> check(Spec({"hostname": "node.1", "subdomain": "workers"}, None), out)
>>> [(key, message) for _, key, message, _, _ in out]
[('hostname', "hostname 'node.1' must not contain dots")]
"""

from __future__ import annotations

from combinators.limits import short_repr
from transforms.checks.problems import Raw
from transforms.checks.rules._formats import dns_label
from transforms.checks.rules._spec import Spec

__all__ = ("ID", "DESCRIPTION", "check")

ID = "hostname"
DESCRIPTION = "hostname and subdomain are DNS-1123 labels"


def check(pod: Spec, out: list[Raw]) -> None:
    """Report a hostname or subdomain that is no DNS-1123 label (an empty one is none)."""
    for field in ("hostname", "subdomain"):
        value = pod.spec.get(field)
        if type(value) is str and value and (wrong := dns_label(value)) is not None:
            out.append((pod.trail, field, f"{field} {short_repr(value)} {wrong}", value, "error"))
