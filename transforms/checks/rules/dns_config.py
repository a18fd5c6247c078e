"""Rule ``dns-config``: the pod's DNS settings as the API server checks them
(``validatePodDNSConfig``).

``dnsPolicy: None`` needs a ``dnsConfig`` with at least one nameserver; a
``dnsConfig`` has at most 3 nameservers, each an IP address, and at most 32
search domains (2048 characters in all), each a DNS subdomain (with '_' and
a lone '.' allowed since Kubernetes 1.33); every option has a name.

>>> out = []
>>> check(Spec({"dnsPolicy": "None"}, None), out)
>>> [(key, message) for _, key, message, _, _ in out]
[('dnsConfig', 'dnsPolicy None needs a dnsConfig with at least one nameserver; found none')]
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any

from combinators.limits import short_repr
from transforms.checks.problems import Raw
from transforms.checks.rules._formats import dns_subdomain
from transforms.checks.rules._spec import Spec

__all__ = ("ID", "DESCRIPTION", "check")

ID = "dns-config"
DESCRIPTION = (
    "dnsPolicy None has a dnsConfig with a nameserver; at most 3 nameservers, each an "
    "IP; at most 32 search domains, each a DNS subdomain; options have names"
)

# the API server reads IPv4 addresses with leading zeros too (010.0.0.1)
_SLOPPY_IPV4 = re.compile(r"(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})")


def check(pod: Spec, out: list[Raw]) -> None:
    """Report the DNS settings the API server refuses."""
    config = pod.spec.get("dnsConfig")
    if pod.spec.get("dnsPolicy") == "None":
        if type(config) is not dict:
            out.append(
                (
                    pod.trail,
                    "dnsConfig",
                    "dnsPolicy None needs a dnsConfig with at least one nameserver; found none",
                    config,
                    "error",
                )
            )
            return
        if not config.get("nameservers"):
            out.append(
                (
                    (pod.trail, "dnsConfig"),
                    "nameservers",
                    "dnsPolicy None needs at least one nameserver; found none",
                    config.get("nameservers"),
                    "error",
                )
            )
    if type(config) is not dict:
        return
    trail = (pod.trail, "dnsConfig")
    nameservers = config.get("nameservers")
    if type(nameservers) is list:
        if len(nameservers) > 3:
            out.append(
                (
                    trail,
                    "nameservers",
                    f"a pod has at most 3 nameservers; found {len(nameservers)}",
                    nameservers,
                    "error",
                )
            )
        for index, server in enumerate(nameservers):
            if type(server) is str and not _ip(server):
                out.append(
                    (
                        (trail, "nameservers"),
                        index,
                        f"nameserver {short_repr(server)} must be an "
                        f"IP address (such as 10.0.0.10 or 2001:db8::10)",
                        server,
                        "error",
                    )
                )
    searches = config.get("searches")
    if type(searches) is list:
        _searches(searches, trail, pod.release >= (1, 33), out)
    options = config.get("options")
    if type(options) is list:
        for index, option in enumerate(options):
            if type(option) is dict and not option.get("name"):
                out.append(
                    ((trail, "options"), index, "a DNS option needs a name", option, "error")
                )


def _searches(searches: list[Any], trail: Any, relaxed: bool, out: list[Raw]) -> None:
    if len(searches) > 32:
        out.append(
            (
                trail,
                "searches",
                f"a pod has at most 32 search domains; found {len(searches)}",
                searches,
                "error",
            )
        )
    texts = [search for search in searches if type(search) is str]
    if len(" ".join(texts)) > 2048:
        out.append(
            (
                trail,
                "searches",
                f"search domains take at most 2048 characters, spaces "
                f"between them counted; found {len(' '.join(texts))}",
                searches,
                "error",
            )
        )
    for index, search in enumerate(searches):
        if type(search) is not str or (relaxed and search == "."):
            continue
        if (wrong := dns_subdomain(search.removesuffix("."), relaxed)) is not None:
            out.append(
                (
                    (trail, "searches"),
                    index,
                    f"search domain {short_repr(search)} {wrong}",
                    search,
                    "error",
                )
            )


def _ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        found = _SLOPPY_IPV4.fullmatch(text)
        return found is not None and all(int(part) <= 255 for part in found.groups())
    return True
