"""Storage: volumes and where containers mount them.

Each recipe adds the volume (``spec.volumes``) and its mount
(``containers[].volumeMounts``) together, so they never disagree. Volumes
are set by name and mounts by mount path, and each recipe checks, when
applied, what holds that name and that path already:

- a volume of that name with the same source (the same claim, Secret,
  ConfigMap or host path; any emptyDir for the emptyDir recipes) takes the
  recipe's settings, and so does a mount of that volume at that path:
  applying a recipe twice equals applying it once;
- another volume of that name, or a mount of another volume at that path
  (Kubernetes refuses two mounts at one path in a container), is refused
  with a :class:`~recipes._clashes.NameClashError` naming it, its volume
  and where it is, never replaced silently;
- ``replace=True`` replaces it deliberately, and drops a volume the
  replaced mount leaves mounted by no container.

>>> pod = {"spec": {"containers": [{"name": "t", "volumeMounts": [{"name": "fuse", "mountPath": "/data"}]}],
...                 "volumes": [{"name": "fuse", "csi": {"driver": "gcsfuse.csi.storage.gke.io"}}]}}
>>> mount_secret("gcs-key", "/data")(pod)
Traceback (most recent call last):
  ...
recipes._clashes.NameClashError: mount_secret() mounts volume 'gcs-key' at /data in container 't', which mounts volume 'fuse' (csi gcsfuse.csi.storage.gke.io) there already: a container mounts one volume at a path; pass mount_path= another path, or replace=True to replace that mount (and drop volume 'fuse' if nothing else mounts it) (in spec.containers[name=t].volumeMounts[mountPath=/data])
>>> mount_secret("gcs-key", "/data", replace=True)(pod)["spec"]["volumes"]
[{'name': 'gcs-key', 'secret': {'secretName': 'gcs-key'}}]
"""

from __future__ import annotations

import re
from typing import Any

from combinators import Key, Match, Path, Transform, chain, replace_at
from combinators.limits import short_repr
from recipes._check import (
    bad_value,
    check_bool,
    check_choice,
    check_dns_label,
    check_int,
    check_nonempty_string,
)
from recipes._clashes import IDENTITY, MountPathFree, ReleasingVolumes, VolumeFits
from recipes._recipe import recipe
from recipes._requires import Requiring
from recipes._target import ContainerTarget, check_container, on_container
from transforms.kube.quantity import check_quantity

__all__ = (
    "shm_size",
    "mount_pvc",
    "mount_secret",
    "mount_config_map",
    "mount_empty_dir",
    "mount_host_path",
    "mount_volume",
    "volume_name_for",
    "SHM_VOLUME",
    "SHM_PATH",
    "Quantity",
)

Quantity = str | int | float
"""A Kubernetes quantity as a recipe takes it: text (``'64Gi'``) or a number of bytes."""

SHM_VOLUME = "dshm"
"""The name torchx gives the memory-backed volume it mounts at ``/dev/shm``."""

SHM_PATH = "/dev/shm"
"""Where a container's shared memory is."""

HOST_PATH_TYPES = (
    "",
    "DirectoryOrCreate",
    "Directory",
    "FileOrCreate",
    "File",
    "Socket",
    "CharDevice",
    "BlockDevice",
)


def volume_name_for(text: str, prefix: str = "") -> str:
    """A DNS-1123 label made from ``text``, for a volume nobody named.

    >>> volume_name_for("team.datasets"), volume_name_for("/mnt/Data", prefix="host")
    ('team-datasets', 'host-mnt-data')
    """
    words = [word for word in re.split(r"[^a-z0-9]+", text.lower()) if word]
    if prefix:
        words.insert(0, prefix)
    name = "-".join(words)[:63].strip("-")
    return name or "volume"


def _mount_path(mount_path: Any) -> str:
    check_nonempty_string("mount_path", mount_path)
    if not mount_path.startswith("/"):
        bad_value(
            "mount_path",
            mount_path,
            f"mount_path must be an absolute path, got {short_repr(mount_path)}",
        )
    return str(mount_path)


def mount_volume(
    volume: dict[str, Any],
    mount: dict[str, Any],
    container: ContainerTarget,
    *,
    recipe: str = "mount_volume",
    replace: bool = False,
    volume_argument: str | None = "volume",
    path_argument: str | None = "mount_path",
) -> Transform | Requiring:
    """Set ``volume`` by name and ``mount`` by mount path in the selected container(s),
    with the checks of what holds that name and that path already (see above).

    ``recipe`` names the recipe in errors; ``volume_argument`` and
    ``path_argument`` are its arguments that pick another name and path
    (``None`` where it fixes them). With ``replace=True`` a volume of that
    name and mounts at that path are replaced, and a volume a replaced mount
    leaves mounted by no container is dropped.

    >>> pod = {"spec": {"containers": [{"name": "t"}]}}
    >>> built = mount_volume({"name": "x", "emptyDir": {}}, {"mountPath": "/x", "name": "x"}, None)
    >>> built.body(pod)
    {'spec': {'containers': [{'name': 't', 'volumeMounts': [{'mountPath': '/x', 'name': 'x'}]}], 'volumes': [{'name': 'x', 'emptyDir': {}}]}}
    >>> [type(check).__name__ for check in built.checks]
    ['MountPathFree', 'VolumeFits']
    """
    name, mount_path = volume["name"], mount["mountPath"]
    volumes = Path([Key("spec"), Key("volumes"), Match([("name", name)])])
    mounts = Path([Key("volumeMounts"), Match([("mountPath", mount_path)])])
    # the container is checked first, so a missing one is reported before anything else
    body = chain(on_container(container, replace_at(mounts, mount)), replace_at(volumes, volume))
    assert isinstance(body, Transform)
    if check_bool("replace", replace):
        return ReleasingVolumes(body, container, mount_path, name)
    kind = next(key for key in volume if key != "name")
    field = IDENTITY.get(kind)
    which = volume[kind].get(field) if field is not None else None
    return Requiring(
        body,
        (
            MountPathFree(recipe, check_container(container), mount_path, name, path_argument),
            VolumeFits(recipe, name, kind, which, volume_argument),
        ),
    )


def _mount(
    name: str, mount_path: str, read_only: bool = False, sub_path: str | None = None
) -> dict[str, Any]:
    mount: dict[str, Any] = {"mountPath": _mount_path(mount_path), "name": name}
    if check_bool("read_only", read_only):
        mount["readOnly"] = True
    if sub_path is not None:
        check_nonempty_string("sub_path", sub_path)
        if sub_path.startswith("/") or ".." in sub_path.split("/"):
            bad_value(
                "sub_path",
                sub_path,
                f"sub_path must be a relative path without '..', got {short_repr(sub_path)}",
            )
        mount["subPath"] = sub_path
    return mount


def _volume_name(volume: str | None, source: str) -> str:
    return volume_name_for(source) if volume is None else check_dns_label("volume", volume)


def _mode(default_mode: int | None) -> dict[str, Any]:
    if default_mode is None:
        return {}
    check_int("default_mode", default_mode)
    if default_mode > 0o777:
        bad_value(
            "default_mode",
            default_mode,
            f"default_mode must be a file mode between 0 and 0o777, got {short_repr(default_mode)}",
        )
    return {"defaultMode": default_mode}


@recipe
def shm_size(
    size: Quantity, container: ContainerTarget = None, replace: bool = False
) -> Transform | Requiring:
    """Size the shared memory at ``/dev/shm`` (the memory-backed ``dshm`` emptyDir volume).

    Sets ``spec.volumes[name=dshm]`` to ``{emptyDir: {medium: Memory,
    sizeLimit: size}}`` and mounts it at ``/dev/shm``; torchx's own ``dshm``
    volume is resized, and both are created where absent. ``size`` is
    quantity text or a number of bytes. A ``dshm`` volume that is no
    emptyDir, or a mount of another volume at ``/dev/shm`` (a hostPath of
    the node's, say), is refused unless ``replace=True``, which replaces it
    (and drops the volume that mount leaves unused).

    >>> pod = {"spec": {"containers": [{"name": "t", "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}]}],
    ...                 "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory"}}]}}
    >>> shm_size("64Gi")(pod)["spec"]["volumes"]
    [{'name': 'dshm', 'emptyDir': {'medium': 'Memory', 'sizeLimit': '64Gi'}}]
    >>> shm_size(2**30)
    shm_size(1073741824)
    >>> shm_size("64 GB")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: shm_size(): size must be a Kubernetes quantity such as '1Gi', '500m' or '2', got '64 GB'
    """
    limit = check_quantity("size", size, positive=True)
    return mount_volume(
        {"name": SHM_VOLUME, "emptyDir": {"medium": "Memory", "sizeLimit": limit}},
        {"mountPath": SHM_PATH, "name": SHM_VOLUME},
        container,
        recipe="shm_size",
        replace=replace,
        volume_argument=None,
        path_argument=None,
    )


@recipe
def mount_pvc(
    claim: str,
    mount_path: str,
    volume: str | None = None,
    read_only: bool = False,
    sub_path: str | None = None,
    container: ContainerTarget = None,
    replace: bool = False,
) -> Transform | Requiring:
    """Mount a PersistentVolumeClaim (``volumes[].persistentVolumeClaim``) at ``mount_path``.

    The volume is named ``volume``, by default after the claim. A volume of
    that name for the same claim, and its mount at ``mount_path``, take these
    settings; another volume of that name, or a mount of another volume at
    ``mount_path``, is refused unless ``replace=True`` (see :mod:`recipes.storage`).

    >>> pod = mount_pvc("datasets", "/data", read_only=True)({"spec": {"containers": [{"name": "t"}]}})
    >>> pod["spec"]["volumes"], pod["spec"]["containers"][0]["volumeMounts"]
    ([{'name': 'datasets', 'persistentVolumeClaim': {'claimName': 'datasets', 'readOnly': True}}], [{'mountPath': '/data', 'name': 'datasets', 'readOnly': True}])
    """
    check_nonempty_string("claim", claim)
    name = _volume_name(volume, claim)
    source: dict[str, Any] = {"claimName": claim}
    if check_bool("read_only", read_only):
        source["readOnly"] = True
    return mount_volume(
        {"name": name, "persistentVolumeClaim": source},
        _mount(name, mount_path, read_only, sub_path),
        container,
        recipe="mount_pvc",
        replace=replace,
    )


@recipe
def mount_secret(
    secret: str,
    mount_path: str,
    volume: str | None = None,
    default_mode: int | None = None,
    optional: bool = False,
    container: ContainerTarget = None,
    replace: bool = False,
) -> Transform | Requiring:
    """Mount a Secret's keys as files (``volumes[].secret``), read-only, at ``mount_path``.

    A volume of that name for the same Secret, and its mount at
    ``mount_path``, take these settings; another volume of that name, or a
    mount of another volume at ``mount_path``, is refused unless
    ``replace=True`` (see :mod:`recipes.storage`).

    >>> pod = mount_secret("gcs-key", "/secrets/gcs", default_mode=0o400)({"spec": {"containers": [{"name": "t"}]}})
    >>> pod["spec"]["volumes"], pod["spec"]["containers"][0]["volumeMounts"]
    ([{'name': 'gcs-key', 'secret': {'secretName': 'gcs-key', 'defaultMode': 256}}], [{'mountPath': '/secrets/gcs', 'name': 'gcs-key', 'readOnly': True}])
    """
    return _mount_keys(
        "mount_secret",
        "secret",
        "secretName",
        secret,
        mount_path,
        volume,
        default_mode,
        optional,
        container,
        replace,
    )


@recipe
def mount_config_map(
    config_map: str,
    mount_path: str,
    volume: str | None = None,
    default_mode: int | None = None,
    optional: bool = False,
    container: ContainerTarget = None,
    replace: bool = False,
) -> Transform | Requiring:
    """Mount a ConfigMap's keys as files (``volumes[].configMap``), read-only, at ``mount_path``.

    A volume of that name for the same ConfigMap, and its mount at
    ``mount_path``, take these settings; another volume of that name, or a
    mount of another volume at ``mount_path``, is refused unless
    ``replace=True`` (see :mod:`recipes.storage`).

    >>> pod = mount_config_map("train-config", "/etc/train")({"spec": {"containers": [{"name": "t"}]}})
    >>> pod["spec"]["volumes"]
    [{'name': 'train-config', 'configMap': {'name': 'train-config'}}]
    """
    return _mount_keys(
        "mount_config_map",
        "configMap",
        "name",
        config_map,
        mount_path,
        volume,
        default_mode,
        optional,
        container,
        replace,
    )


def _mount_keys(
    recipe: str,
    kind: str,
    name_field: str,
    source_name: str,
    mount_path: str,
    volume: str | None,
    default_mode: int | None,
    optional: bool,
    container: ContainerTarget,
    replace: bool,
) -> Transform | Requiring:
    """A Secret's or ConfigMap's keys as read-only files: the volume and its mount."""
    check_nonempty_string("secret" if kind == "secret" else "config_map", source_name)
    name = _volume_name(volume, source_name)
    source: dict[str, Any] = {name_field: source_name, **_mode(default_mode)}
    if check_bool("optional", optional):
        source["optional"] = True
    return mount_volume(
        {"name": name, kind: source},
        _mount(name, mount_path, read_only=True),
        container,
        recipe=recipe,
        replace=replace,
    )


@recipe
def mount_empty_dir(
    name: str,
    mount_path: str,
    size: Quantity | None = None,
    memory: bool = False,
    container: ContainerTarget = None,
    replace: bool = False,
) -> Transform | Requiring:
    """Mount scratch space that lives as long as the pod (``volumes[].emptyDir``).

    ``memory=True`` backs it with RAM (tmpfs); ``size`` sets ``sizeLimit``.
    An emptyDir volume of that name, and its mount at ``mount_path``, take
    these settings; a volume of that name with another source, or a mount of
    another volume at ``mount_path``, is refused unless ``replace=True``
    (see :mod:`recipes.storage`).

    >>> mount_empty_dir("scratch", "/scratch", size="100Gi")({"spec": {"containers": [{"name": "t"}]}})["spec"]["volumes"]
    [{'name': 'scratch', 'emptyDir': {'sizeLimit': '100Gi'}}]
    """
    check_dns_label("name", name)
    source: dict[str, Any] = {}
    if check_bool("memory", memory):
        source["medium"] = "Memory"
    if size is not None:
        source["sizeLimit"] = check_quantity("size", size, positive=True)
    return mount_volume(
        {"name": name, "emptyDir": source},
        _mount(name, mount_path),
        container,
        recipe="mount_empty_dir",
        replace=replace,
        volume_argument="name",
    )


@recipe
def mount_host_path(
    path: str,
    mount_path: str,
    volume: str | None = None,
    type: str = "",
    read_only: bool = False,
    container: ContainerTarget = None,
    replace: bool = False,
) -> Transform | Requiring:
    """Mount a file or directory of the node (``volumes[].hostPath``) at ``mount_path``.

    ``type`` is a hostPath type such as ``'Directory'`` or
    ``'DirectoryOrCreate'`` (no check when empty); the volume is named
    ``volume``, by default after the path (``/mnt/data`` -> ``host-mnt-data``).
    A volume of that name for the same host path, and its mount at
    ``mount_path``, take these settings; another volume of that name, or a
    mount of another volume at ``mount_path``, is refused unless
    ``replace=True`` (see :mod:`recipes.storage`).

    >>> pod = mount_host_path("/mnt/data", "/data", type="Directory")({"spec": {"containers": [{"name": "t"}]}})
    >>> pod["spec"]["volumes"]
    [{'name': 'host-mnt-data', 'hostPath': {'path': '/mnt/data', 'type': 'Directory'}}]
    """
    check_nonempty_string("path", path)
    if not path.startswith("/"):
        bad_value(
            "path", path, f"path must be an absolute path on the node, got {short_repr(path)}"
        )
    check_choice("type", type, HOST_PATH_TYPES)
    name = (
        volume_name_for(path, prefix="host")
        if volume is None
        else check_dns_label("volume", volume)
    )
    source: dict[str, Any] = {"path": path}
    if type:
        source["type"] = type
    return mount_volume(
        {"name": name, "hostPath": source},
        _mount(name, mount_path, read_only),
        container,
        recipe="mount_host_path",
        replace=replace,
    )
