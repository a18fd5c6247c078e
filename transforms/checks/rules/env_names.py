"""Rule ``env-names``: env names as the API server reads them (``ValidateEnv`` and the
warnings of ``pkg/api/pod/warnings.go``).

An env name is printable ASCII but '=' (since Kubernetes 1.32; before, it was
letters, digits, '_', '-' and '.', not starting with a digit, and neither '.'
nor starting with '..'). A name set twice in one container is a *warning*:
the API server accepts it (the last value wins) and only warns, so this rule
does too.

>>> out = []
>>> check(Spec({"containers": [{"env": [{"name": "A"}, {"name": "A"}, {"name": "B=1"}]}]}, None), out)
>>> [(message, severity) for _, _, message, _, severity in out]
[("env 'A' is set more than once; the last one wins", 'warning'), ("env name 'B=1' must consist of printable ASCII characters other than '='", 'error')]
"""

from __future__ import annotations

from operator import itemgetter

from combinators.limits import short_repr
from transforms.checks.problems import Raw
from transforms.checks.rules._formats import env_name
from transforms.checks.rules._spec import Spec

__all__ = ("ID", "DESCRIPTION", "check")

ID = "env-names"
DESCRIPTION = (
    "an env name is printable ASCII but '=' (older versions: a C identifier, "
    "more or less), and set once per container (a warning)"
)

_NAME = itemgetter("name")


def check(pod: Spec, out: list[Raw]) -> None:
    """Report every env name the API server refuses; warn at every env entry whose name an
    earlier entry of the same container has."""
    relaxed = pod.release >= (1, 32)
    for here, _, container in pod.containers:
        env = container.get("env")
        if type(env) is not list or not env:
            continue
        if relaxed:
            try:  # the usual case, settled at once: every name set once, and well formed
                names = list(map(_NAME, env))
                joined = "".join(names)
                if (
                    len(set(names)) == len(names)
                    and all(names)
                    and "=" not in joined
                    and joined.isascii()
                    and joined.isprintable()
                ):
                    continue
            except (KeyError, TypeError):  # a var without a name, or no map: look closely
                pass
        seen: set[str] = set()
        for index, var in enumerate(env):
            if type(var) is dict and type(name := var.get("name")) is str:
                if name in seen:
                    out.append(
                        (
                            ((here, "env"), index),
                            "name",
                            f"env {short_repr(name)} is set more than once; the last one wins",
                            name,
                            "warning",
                        )
                    )
                elif (wrong := env_name(name, relaxed)) is not None:
                    out.append(
                        (
                            ((here, "env"), index),
                            "name",
                            f"env name {short_repr(name)} {wrong}",
                            name,
                            "error",
                        )
                    )
                seen.add(name)
