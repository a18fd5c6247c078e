"""Names a recipe adds, against the names the pod uses already.

Kubernetes wants some names unique: a container's name across
``containers``, ``initContainers`` and ``ephemeralContainers``; a volume's
name in ``spec.volumes``; a mount path in one container's
``volumeMounts``. A recipe that adds such a named item checks, each time
it is applied, what holds the name already. Where that is the recipe's
own kind of item (the same container, the same volume source, a mount of
the same volume), the recipe merges into it, so applying it twice equals
applying it once. Anything else is refused with a :class:`NameClashError`
naming the recipe, the name, where it is used and by what; ``replace=True``
on the recipe replaces it deliberately.

>>> need = MountPathFree("mount_secret", None, "/data", "gcs-key", "mount_path")
>>> need({"spec": {"containers": [{"name": "trainer-0", "volumeMounts": [
...     {"name": "gcs-key", "mountPath": "/data"}]}]}})
>>> need({"spec": {"containers": [{"name": "trainer-0", "volumeMounts": [
...     {"name": "datasets", "mountPath": "/data"}]}],
...     "volumes": [{"name": "datasets", "csi": {"driver": "gcsfuse.csi.storage.gke.io"}}]}})
Traceback (most recent call last):
  ...
recipes._clashes.NameClashError: mount_secret() mounts volume 'gcs-key' at /data in container 'trainer-0', which mounts volume 'datasets' (csi gcsfuse.csi.storage.gke.io) there already: a container mounts one volume at a path; pass mount_path= another path, or replace=True to replace that mount (and drop volume 'datasets' if nothing else mounts it) (in spec.containers[name=trainer-0].volumeMounts[mountPath=/data])
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from combinators import Index, Key, Match, Path, Transform, TransformError, remove_at, select
from combinators.data import Owned, copy_plain, is_map, is_seq, strict_equal
from combinators.transform import TransformLike, apply_step
from recipes._target import ContainerTarget, container_path

__all__ = (
    "NameClashError",
    "CONTAINER_LISTS",
    "IDENTITY",
    "ContainerNameFree",
    "VolumeFits",
    "MountPathFree",
    "ReleasingVolumes",
    "describe_volume",
    "source_text",
    "volume_in_use",
    "displaced_mounts",
)

CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")
"""The lists of a pod spec whose containers share one namespace of names."""

_MOUNT_LISTS = ("volumeMounts", "volumeDevices")

IDENTITY: Mapping[str, str] = MappingProxyType(
    {
        "persistentVolumeClaim": "claimName",
        "secret": "secretName",
        "configMap": "name",
        "hostPath": "path",
        "csi": "driver",
        "nfs": "path",
    }
)
"""For each kind of volume source, the field that says which thing it is (read-only)."""


class NameClashError(TransformError, ValueError):
    """A recipe would add a name the pod already uses for something else.

    ``recipe`` is the recipe, ``name`` the name (a container's or a
    volume's, or a mount path), ``path`` where the pod uses it already and
    ``existing`` what is there (a plain copy).

    >>> err = NameClashError("sidecar() adds container 'proxy' ...", recipe="sidecar",
    ...                      name="proxy", path=Path([Key("spec"), Key("containers"),
    ...                      Match([("name", "proxy")])]), existing={"name": "proxy"})
    >>> print(err)
    sidecar() adds container 'proxy' ... (in spec.containers[name=proxy])
    >>> isinstance(err, ValueError), err.recipe, err.name
    (True, 'sidecar', 'proxy')
    """

    def __init__(
        self, message: str, *, recipe: str, name: str, path: Path, existing: Any = None
    ) -> None:
        super().__init__(message, path=path)
        self.recipe = recipe
        self.name = name
        self.existing = existing


_CONTAINERS = Path([Key("spec"), Key("containers")])


def _spec(pod: Any) -> Any:
    spec = pod.get("spec") if is_map(pod) else None
    return spec if is_map(spec) else None


def _items(holder: Any, field: str) -> Iterator[tuple[int, Any]]:
    """``(index, item)`` for every map in the list ``holder[field]``, if there is one."""
    found: Any = holder.get(field) if is_map(holder) else None
    if is_seq(found):
        for index, item in enumerate(found):
            if is_map(item):
                yield index, item


def _element(parent: Path, item: Any, index: int, field: str = "name") -> Path:
    """The path of a list element: by ``field`` where it has one as text, else by position."""
    value = item.get(field)
    return parent.child(Match([(field, value)]) if isinstance(value, str) else Index(index))


def describe_volume(volume: Any) -> str:
    """A volume's source in a few words: its kind and which thing it is.

    >>> describe_volume({"name": "d", "persistentVolumeClaim": {"claimName": "datasets"}})
    "persistentVolumeClaim 'datasets'"
    >>> describe_volume({"name": "shm", "hostPath": {"path": "/dev/shm"}})
    'hostPath /dev/shm'
    >>> describe_volume({"name": "dshm", "emptyDir": {"medium": "Memory"}})
    'emptyDir'
    """
    kinds = [key for key in volume if key != "name"] if is_map(volume) else []
    if not kinds:
        return "no source"
    kind = str(kinds[0])
    source = volume[kind]
    field = IDENTITY.get(kind)
    return source_text(kind, source.get(field) if field is not None and is_map(source) else None)


def source_text(kind: str, which: Any) -> str:
    """A volume source of ``kind`` for the thing ``which`` (a claim, a path, ...), in words.

    >>> source_text("secret", "gcs-key"), source_text("hostPath", "/mnt"), source_text("emptyDir", None)
    ("secret 'gcs-key'", 'hostPath /mnt', 'emptyDir')
    """
    if not isinstance(which, str):
        return kind
    return f"{kind} {which}" if which.startswith("/") or "." in which else f"{kind} {which!r}"


def _volumes_named(pod: Any, name: str) -> list[tuple[int, Any]]:
    return [
        (index, volume)
        for index, volume in _items(_spec(pod), "volumes")
        if volume.get("name") == name
    ]


def _mounted(pod: Any, volume: str) -> str:
    """Where the pod's containers mount ``volume``: ``"mounted at /data in trainer-0"``."""
    spec = _spec(pod)
    places = [
        f"{mount.get('mountPath')} in {container.get('name')}"
        for field in CONTAINER_LISTS
        for _, container in _items(spec, field)
        for _, mount in _items(container, "volumeMounts")
        if mount.get("name") == volume
    ]
    return f"mounted at {', '.join(places)}" if places else "mounted nowhere"


def volume_in_use(pod: Any, volume: str) -> bool:
    """Whether a container of ``pod`` mounts ``volume`` (or uses it as a block device)."""
    spec = _spec(pod)
    return any(
        mount.get("name") == volume
        for field in CONTAINER_LISTS
        for _, container in _items(spec, field)
        for mounts in _MOUNT_LISTS
        for _, mount in _items(container, mounts)
    )


def _shown(value: Any) -> str:
    if isinstance(value, tuple):
        value = list(value)
    return "(none)" if value is None else repr(copy_plain(value))


@dataclass(frozen=True)
class ContainerNameFree:
    """Container ``name`` is free, or is the recipe's own: the check of ``sidecar`` and
    ``init_container``.

    The recipe adds container ``name`` to ``spec.<where>``; ``identity``
    holds ``(field, value)`` pairs of what it writes there (``image``,
    ``command``, ``args``, ``restartPolicy``; ``None`` for absent). A
    container of that name in ``where`` with the same identity is the
    recipe's own (it merges into it); one with another identity, or one of
    that name in another list, is refused.

    >>> need = ContainerNameFree("sidecar", "proxy", "initContainers",
    ...                          (("image", "envoy"), ("restartPolicy", "Always")))
    >>> need({"spec": {"initContainers": [{"name": "proxy", "image": "envoy",
    ...                                    "restartPolicy": "Always"}]}})
    >>> need({"spec": {"containers": [{"name": "proxy", "image": "envoy"}]}})
    Traceback (most recent call last):
      ...
    recipes._clashes.NameClashError: sidecar() adds container 'proxy' to spec.initContainers, and the pod has a container 'proxy' in spec.containers already (image 'envoy'): container names are unique across containers, initContainers and ephemeralContainers; give this one another name, or pass replace=True to replace that one (in spec.containers[name=proxy])
    """

    recipe: str
    name: str
    where: str
    identity: tuple[tuple[str, Any], ...]

    def __call__(self, pod: Any) -> None:
        spec = _spec(pod)
        if spec is None:
            return
        for field in CONTAINER_LISTS:
            for _, container in _items(spec, field):
                if container.get("name") == self.name:
                    self._check(field, container)

    def _check(self, field: str, container: Any) -> None:
        at = Path([Key("spec"), Key(field), Match([("name", self.name)])])
        start = f"{self.recipe}() adds container {self.name!r} to spec.{self.where}, and"
        if field != self.where:
            raise NameClashError(
                f"{start} the pod has a container {self.name!r} in spec.{field} already "
                f"(image {_shown(container.get('image'))}): container names are unique across "
                f"{', '.join(CONTAINER_LISTS[:-1])} and {CONTAINER_LISTS[-1]}; give this one "
                f"another name, or pass replace=True to replace that one",
                recipe=self.recipe,
                name=self.name,
                path=at,
                existing=copy_plain(container),
            )
        differences = [
            f"{key} {_shown(container.get(key))}, this one {_shown(value)}"
            for key, value in self.identity
            if not _same(container.get(key), value)
        ]
        if differences:
            raise NameClashError(
                f"{start} another container {self.name!r} is there already "
                f"({'; '.join(differences)}): give this one another name, or pass "
                f"replace=True to replace that one",
                recipe=self.recipe,
                name=self.name,
                path=at,
                existing=copy_plain(container),
            )


def _same(found: Any, wanted: Any) -> bool:
    if found is None or wanted is None:
        return found is wanted
    return strict_equal(found, list(wanted) if isinstance(wanted, tuple) else wanted)


@dataclass(frozen=True)
class VolumeFits:
    """A volume named ``name`` already in the pod has the recipe's kind of source: the
    check of the storage recipes.

    The recipe sets ``spec.volumes[name=<name>]`` to a ``kind`` source (its
    identifying field, such as ``claimName``, set to ``which``). A volume of
    that name with the same kind and identity takes the recipe's settings; any
    other is refused. ``argument`` is the recipe's argument naming the
    volume (``None`` where the recipe fixes the name).

    >>> need = VolumeFits("mount_pvc", "data", "persistentVolumeClaim", "datasets", "volume")
    >>> need({"spec": {"volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "datasets"}}]}})
    >>> need({"spec": {"volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "old"}}]}})
    Traceback (most recent call last):
      ...
    recipes._clashes.NameClashError: mount_pvc() adds volume 'data' (persistentVolumeClaim 'datasets'), and the pod has a volume 'data' already (persistentVolumeClaim 'old', mounted nowhere): volume names are unique in a pod; pass volume= another name, or replace=True to replace that volume (its mounts then mount this one) (in spec.volumes[name=data])
    """

    recipe: str
    name: str
    kind: str
    which: str | None
    argument: str | None

    def __call__(self, pod: Any) -> None:
        for _, volume in _volumes_named(pod, self.name):
            if not self._fits(volume):
                self._refuse(pod, volume)

    def _fits(self, volume: Any) -> bool:
        kinds = [key for key in volume if key != "name"]
        if kinds != [self.kind]:
            return False
        field = IDENTITY.get(self.kind)
        source = volume[self.kind]
        return field is None or (is_map(source) and source.get(field) == self.which)

    def _refuse(self, pod: Any, volume: Any) -> None:
        ours = source_text(self.kind, self.which)
        other = (
            f"pass {self.argument}= another name, or replace=True"
            if self.argument
            else "pass replace=True"
        )
        raise NameClashError(
            f"{self.recipe}() adds volume {self.name!r} ({ours}), and the pod has a volume "
            f"{self.name!r} already ({describe_volume(volume)}, {_mounted(pod, self.name)}): volume "
            f"names are unique in a pod; {other} to replace that volume (its mounts then "
            f"mount this one)",
            recipe=self.recipe,
            name=self.name,
            path=Path([Key("spec"), Key("volumes"), Match([("name", self.name)])]),
            existing=copy_plain(volume),
        )


@dataclass(frozen=True)
class MountPathFree:
    """The selected containers mount nothing but ``volume`` at ``mount_path``: the check of
    the storage recipes.

    A mount of ``volume`` there is the recipe's own (it takes the recipe's
    settings); a mount of another volume is refused, naming it and its
    volume. ``argument`` is the recipe's argument giving the path (``None``
    where the recipe fixes it). Containers that are not there are left to
    the recipe, which names the containers present.
    """

    recipe: str
    container: ContainerTarget
    mount_path: str
    volume: str
    argument: str | None

    def __call__(self, pod: Any) -> None:
        for at, container, mount in displaced_mounts(
            pod, self.container, self.mount_path, self.volume
        ):
            other = str(mount.get("name"))
            volumes = _volumes_named(pod, other)
            source = describe_volume(volumes[0][1]) if volumes else "no such volume"
            instead = (
                f"pass {self.argument}= another path, or replace=True"
                if self.argument
                else "pass replace=True"
            )
            raise NameClashError(
                f"{self.recipe}() mounts volume {self.volume!r} at {self.mount_path} in "
                f"container {container.get('name')!r}, which mounts volume {other!r} "
                f"({source}) there already: a container mounts one volume at a path; "
                f"{instead} to replace that mount (and drop volume {other!r} if nothing else "
                f"mounts it)",
                recipe=self.recipe,
                name=self.mount_path,
                path=at,
                existing=copy_plain(mount),
            )


def displaced_mounts(
    pod: Any, container: ContainerTarget, mount_path: str, volume: str
) -> Iterator[tuple[Path, Any, Any]]:
    """``(path, container, mount)`` for each mount of another volume than ``volume`` at
    ``mount_path`` in the containers ``container`` selects (no path is made where no
    container mounts another volume there: the case of nearly every pod)."""
    found = [
        (index, item, mount)
        for index, item in _items(_spec(pod), "containers")
        for _, mount in _items(item, "volumeMounts")
        if mount.get("mountPath") == mount_path and mount.get("name") != volume
    ]
    if not found:
        return
    selected = {id(item) for item in select(pod, container_path(container))}
    for index, item, mount in found:
        if id(item) in selected:
            mounts = _element(_CONTAINERS, item, index).child(Key("volumeMounts"))
            yield mounts.child(Match([("mountPath", mount_path)])), item, mount


class ReleasingVolumes(Transform):
    """``body``, then drop each volume that a mount it replaced had mounted, where no
    container mounts it any more: what ``replace=True`` does on a storage recipe.

    >>> from combinators import replace_at
    >>> pod = {"spec": {"containers": [{"name": "t", "volumeMounts": [
    ...     {"name": "old", "mountPath": "/data"}]}], "volumes": [{"name": "old", "emptyDir": {}}]}}
    >>> body = replace_at("spec.containers[0].volumeMounts[mountPath=/data]",
    ...                   {"name": "new", "mountPath": "/data"})
    >>> ReleasingVolumes(body, None, "/data", "new")(pod)["spec"]
    {'containers': [{'name': 't', 'volumeMounts': [{'name': 'new', 'mountPath': '/data'}]}], 'volumes': []}
    """

    __slots__ = ("body", "container", "mount_path", "volume")
    name = "releasing_volumes"

    def __init__(
        self, body: TransformLike, container: ContainerTarget, mount_path: str, volume: str
    ) -> None:
        self.body = body
        self.container = container
        self.mount_path = mount_path
        self.volume = volume
        self._init_params(body, container, mount_path, volume)

    def _apply(self, doc: Any, owned: Owned) -> Any:
        released = {
            str(mount.get("name"))
            for _, _, mount in displaced_mounts(doc, self.container, self.mount_path, self.volume)
        }
        result = apply_step(self.body, doc, owned)
        for name in sorted(released):
            if not volume_in_use(result, name):
                drop = remove_at(Path([Key("spec"), Key("volumes"), Match([("name", name)])]))
                result = apply_step(drop, result, owned)
        return result
