"""Rule ``env-names``: an env name set twice in one container is a *warning*.

The API server accepts it (the last value wins) and only warns, so this rule does too.

>>> out = []
>>> check(Spec({"containers": [{"env": [{"name": "A"}, {"name": "A"}]}]}, None), out)
>>> [(message, severity) for _, _, message, _, severity in out]
[("env 'A' is set more than once; the last one wins", 'warning')]
"""

from __future__ import annotations

from transforms.checks.problems import Raw
from transforms.checks.rules._spec import Spec

__all__ = ("ID", "DESCRIPTION", "check")

ID = "env-names"
DESCRIPTION = "an env name is set once per container (a warning)"


def check(pod: Spec, out: list[Raw]) -> None:
    """Warn at every env entry whose name an earlier entry of the same container has."""
    for here, _, container in pod.containers:
        env = container.get("env")
        if type(env) is not list or len(env) < 2:
            continue
        try:  # the common case: every entry named, no name twice
            if len({var["name"] for var in env}) == len(env):
                continue
        except (KeyError, TypeError):  # an entry without a name, or not a map: look closely
            pass
        names: set[str] = set()
        for index, var in enumerate(env):
            if type(var) is dict and type(name := var.get("name")) is str:
                if name in names:
                    out.append((((here, "env"), index), "name",
                                f"env {name!r} is set more than once; the last one wins",
                                name, "warning"))
                names.add(name)
