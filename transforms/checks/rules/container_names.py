"""Rule ``container-names``: container names are DNS-1123 labels (as the API server requires:
lower-case letters, digits and '-', at most 63 characters), unique across containers,
initContainers and ephemeralContainers.

>>> out = []
>>> check(Spec({"containers": [{"name": "c"}], "ephemeralContainers": [{"name": "c"}]}, None), out)
>>> [message for _, _, message, _, _ in out]
["duplicate container name 'c' (also in containers)"]
>>> out = []
>>> check(Spec({"containers": [{"name": "Trainer_0"}]}, None), out)
>>> [message for _, _, message, _, _ in out]
["container name 'Trainer_0' must consist of lower-case letters, digits and '-', and start and end with a letter or digit (such as 'my-name' or '123-abc')"]
"""

from __future__ import annotations

from combinators.limits import short_repr
from transforms.checks.problems import Raw
from transforms.checks.rules._formats import dns_label
from transforms.checks.rules._spec import Spec

__all__ = ("ID", "DESCRIPTION", "check")

ID = "container-names"
DESCRIPTION = "container names are DNS-1123 labels, unique across all container lists"


def check(pod: Spec, out: list[Raw]) -> None:
    """Report every container whose name is no DNS-1123 label, or one an earlier container
    (of any list) has. A name that is no string is the schema check's to report."""
    seen: dict[str, str] = {}
    for here, list_name, container in pod.containers:
        name = container.get("name")
        if type(name) is str:
            if (wrong := dns_label(name)) is not None:
                out.append(
                    (here, "name", f"container name {short_repr(name)} {wrong}", name, "error")
                )
            if name in seen:
                out.append(
                    (
                        here,
                        "name",
                        f"duplicate container name {short_repr(name)} (also in {seen[name]})",
                        name,
                        "error",
                    )
                )
            else:
                seen[name] = list_name
