"""Rule ``mount-paths``: where a container mounts its volumes, as the API server checks it
(``ValidateVolumeMounts`` and ``ValidateVolumeDevices``).

In one container: a ``mountPath`` is set and no two mounts share one (an
overlay that mounts a second volume at ``/dev/shm`` clashes with the first);
``subPath`` and ``subPathExpr`` are not both set, and each is a relative
path without ``..``; ``mountPropagation: Bidirectional`` needs a privileged
container, ``recursiveReadOnly`` (but ``Disabled``) a ``readOnly`` mount; a
``volumeDevices`` path is unique, its volume a claim, and neither its name
nor its path is a mount's.

>>> out = []
>>> check(Spec({"containers": [{"volumeMounts": [{"name": "a", "mountPath": "/data"},
...                                               {"name": "b", "mountPath": "/data"}]}]}, None), out)
>>> [(key, message) for _, key, message, _, _ in out]
[('mountPath', "mountPath '/data' is already where volumeMounts[0] (volume 'a') is mounted; a container mounts one volume at a path")]
"""

from __future__ import annotations

from itertools import chain
from operator import itemgetter
from typing import Any

from combinators.limits import short_repr
from transforms.checks.problems import Raw, Trail
from transforms.checks.rules._spec import Spec

__all__ = ("ID", "DESCRIPTION", "check")

ID = "mount-paths"
DESCRIPTION = (
    "in a container, each mount has its own mountPath; subPath and subPathExpr are "
    "relative, and not both set; volumeDevices paths are unique"
)

_USUAL = frozenset({"name", "mountPath", "readOnly"})
_PATH = itemgetter("mountPath")


def check(pod: Spec, out: list[Raw]) -> None:
    """Report every mount or device of a container that the API server would refuse."""
    for here, _, container in pod.containers:
        mounts = container.get("volumeMounts")
        devices = container.get("volumeDevices")
        mount_paths: dict[str, int] = {}
        if type(mounts) is list and mounts:
            try:  # the usual case, settled at once: each a name, a path of its own, readOnly
                paths = set(map(_PATH, mounts))
                plain = (
                    len(paths) == len(mounts)
                    and "" not in paths
                    and _USUAL.issuperset(chain.from_iterable(mounts))
                )
            except (KeyError, TypeError):  # no path, or no map, or a path no string
                plain = False
            if devices or not plain:
                mount_paths = _mounts(mounts, (here, "volumeMounts"), container, out)
        if type(devices) is list and devices:
            _devices(pod, devices, (here, "volumeDevices"), mounts, mount_paths, out)


def _mounts(
    mounts: list[Any], trail: Trail, container: dict[str, Any], out: list[Raw]
) -> dict[str, int]:
    """Report what is wrong with a container's mounts; the index of each mount path."""
    mount_paths: dict[str, int] = {}
    for index, mount in enumerate(mounts):
        if type(mount) is not dict:
            continue
        path = mount.get("mountPath")
        if type(path) is not str:
            pass  # the schema check's to report
        elif path in mount_paths:
            first = mount_paths[path]
            out.append(
                (
                    (trail, index),
                    "mountPath",
                    f"mountPath {short_repr(path)} is already where volumeMounts[{first}]"
                    f"{_volume_of(mounts[first])} is mounted; a container mounts one "
                    f"volume at a path",
                    path,
                    "error",
                )
            )
        else:
            if not path:
                out.append(
                    (
                        (trail, index),
                        "mountPath",
                        "a volumeMount needs a mountPath; found ''",
                        path,
                        "error",
                    )
                )
            mount_paths[path] = index
        if len(mount) > 2 and not _USUAL.issuperset(mount):
            _unusual(mount, (trail, index), container, out)
    return mount_paths


def _volume_of(mount: Any) -> str:
    name = mount.get("name") if type(mount) is dict else None
    return f" (volume {short_repr(name)})" if type(name) is str else ""


def _unusual(mount: dict[str, Any], at: Trail, container: dict[str, Any], out: list[Raw]) -> None:
    """The checks of a mount with more than a name, a path and readOnly."""
    sub_path, expression = mount.get("subPath"), mount.get("subPathExpr")
    for key, value in (("subPath", sub_path), ("subPathExpr", expression)):
        if type(value) is str and value and (wrong := _descending(value)) is not None:
            out.append((at, key, f"{key} {short_repr(value)} {wrong}", value, "error"))
    if type(sub_path) is str and sub_path and type(expression) is str and expression:
        out.append(
            (
                at,
                "subPathExpr",
                f"subPathExpr and subPath are mutually exclusive; "
                f"subPath is {short_repr(sub_path)}",
                expression,
                "error",
            )
        )
    propagation = mount.get("mountPropagation")
    if propagation == "Bidirectional":
        security = container.get("securityContext")
        if not (type(security) is dict and security.get("privileged") is True):
            out.append(
                (
                    at,
                    "mountPropagation",
                    "Bidirectional mount propagation is for "
                    "privileged containers only (securityContext.privileged: true)",
                    propagation,
                    "error",
                )
            )
    recursive = mount.get("recursiveReadOnly")
    if recursive in ("Enabled", "IfPossible"):
        if mount.get("readOnly") is not True:
            out.append(
                (
                    at,
                    "recursiveReadOnly",
                    f"recursiveReadOnly {recursive} needs readOnly: true",
                    recursive,
                    "error",
                )
            )
        if propagation not in (None, "None"):
            out.append(
                (
                    at,
                    "recursiveReadOnly",
                    f"recursiveReadOnly {recursive} needs "
                    f"mountPropagation None or unset; found {propagation}",
                    recursive,
                    "error",
                )
            )


def _descending(path: str) -> str | None:
    """What keeps ``path`` from being a relative path that stays below where it starts."""
    if path.startswith("/"):
        return "must be a relative path"
    if ".." in path.split("/"):
        return "must not contain '..'"
    return None


def _devices(
    pod: Spec,
    devices: list[Any],
    devices_trail: Trail,
    mounts: Any,
    mount_paths: dict[str, int],
    out: list[Raw],
) -> None:
    claims = _claim_volumes(pod)
    mount_names = (
        {
            mount["name"]
            for mount in mounts
            if type(mount) is dict and type(mount.get("name")) is str
        }
        if type(mounts) is list
        else set()
    )
    paths: set[str] = set()
    names: set[str] = set()
    for index, device in enumerate(devices):
        if type(device) is not dict:
            continue
        at = (devices_trail, index)
        name, path = device.get("name"), device.get("devicePath")
        if type(name) is str:
            if name in names:
                out.append(
                    (
                        at,
                        "name",
                        f"volume {short_repr(name)} is a device twice in this container",
                        name,
                        "error",
                    )
                )
            if name in mount_names:
                out.append(
                    (
                        at,
                        "name",
                        f"volume {short_repr(name)} is also mounted by volumeMounts; a "
                        f"volume is a mount or a device",
                        name,
                        "error",
                    )
                )
            if name in pod.volume_names and name not in claims:
                out.append(
                    (
                        at,
                        "name",
                        f"volume {short_repr(name)} is no persistentVolumeClaim nor "
                        f"ephemeral volume; only those can be block devices",
                        name,
                        "error",
                    )
                )
            names.add(name)
        if type(path) is str:
            if not path:
                out.append(
                    (at, "devicePath", "a volumeDevice needs a devicePath; found ''", path, "error")
                )
            elif path in paths:
                out.append(
                    (
                        at,
                        "devicePath",
                        f"devicePath {short_repr(path)} is used twice in this container",
                        path,
                        "error",
                    )
                )
            elif ".." in path.split("/"):
                out.append(
                    (
                        at,
                        "devicePath",
                        f"devicePath {short_repr(path)} must not contain '..'",
                        path,
                        "error",
                    )
                )
            if path in mount_paths:
                out.append(
                    (
                        at,
                        "devicePath",
                        f"devicePath {short_repr(path)} is also where "
                        f"volumeMounts[{mount_paths[path]}] is mounted",
                        path,
                        "error",
                    )
                )
            paths.add(path)


def _claim_volumes(pod: Spec) -> frozenset[str]:
    volumes = pod.spec.get("volumes")
    if type(volumes) is not list:
        return frozenset()
    return frozenset(
        volume["name"]
        for volume in volumes
        if type(volume) is dict
        and type(volume.get("name")) is str
        and (volume.get("persistentVolumeClaim") is not None or volume.get("ephemeral") is not None)
    )
