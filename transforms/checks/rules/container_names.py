"""Rule ``container-names``: container names are unique across containers,
initContainers and ephemeralContainers.

>>> out = []
>>> check(Spec({"containers": [{"name": "c"}], "ephemeralContainers": [{"name": "c"}]}, None), out)
>>> [message for _, _, message, _, _ in out]
["duplicate container name 'c' (also in containers)"]
"""

from __future__ import annotations

from transforms.checks.problems import Raw
from transforms.checks.rules._spec import Spec

__all__ = ("ID", "DESCRIPTION", "check")

ID = "container-names"
DESCRIPTION = "container names are unique across all container lists"


def check(pod: Spec, out: list[Raw]) -> None:
    """Report every container whose name an earlier container (of any list) has."""
    seen: dict[str, str] = {}
    for here, list_name, container in pod.containers:
        name = container.get("name")
        if type(name) is str:
            if name in seen:
                out.append((here, "name", f"duplicate container name {name!r} "
                            f"(also in {seen[name]})", name, "error"))
            else:
                seen[name] = list_name
