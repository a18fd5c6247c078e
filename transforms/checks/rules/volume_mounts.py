"""Rule ``volume-mounts``: every volumeMount and volumeDevice names a volume of the pod.

>>> out = []
>>> check(Spec({"containers": [{"volumeMounts": [{"name": "dshm"}]}]}, None), out)
>>> [message for _, _, message, _, _ in out]
["no volume named 'dshm'; volumes are: (none)"]
"""

from __future__ import annotations

from operator import itemgetter

from combinators.limits import short_names, short_repr
from transforms.checks.problems import Raw
from transforms.checks.rules._spec import Spec

__all__ = ("ID", "DESCRIPTION", "check")

ID = "volume-mounts"
DESCRIPTION = "volume mounts and devices name a volume of the pod"

_MOUNT_LISTS = ("volumeMounts", "volumeDevices")


_NAME = itemgetter("name")


def check(pod: Spec, out: list[Raw]) -> None:
    """Report every mount or device whose ``name`` is no volume's, naming the volumes."""
    known: frozenset[str] | None = None
    for here, _, container in pod.containers:
        for mounts_field in _MOUNT_LISTS:
            mounts = container.get(mounts_field)
            if type(mounts) is not list or not mounts:
                continue
            if known is None:
                known = frozenset(pod.volume_names)
            try:  # the usual case, settled at once: every mount names a volume
                if known.issuperset(map(_NAME, mounts)):
                    continue
            except (KeyError, TypeError):  # a mount without a name, or no map: look closely
                pass
            for index, mount in enumerate(mounts):
                if type(mount) is not dict:
                    continue
                volume = mount.get("name")
                if type(volume) is not str:
                    continue
                if volume not in known:
                    present = short_names(pod.volume_names) or "(none)"
                    out.append(
                        (
                            ((here, mounts_field), index),
                            "name",
                            f"no volume named {short_repr(volume)}; volumes are: {present}",
                            volume,
                            "error",
                        )
                    )
