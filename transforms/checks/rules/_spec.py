"""What the reference rules read of a pod spec, gathered once per pod."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from transforms.checks.problems import Trail
from transforms.kube.schema import DEFAULT_VERSION

__all__ = ("CONTAINER_LISTS", "Spec")

#: The lists of a pod spec that hold containers, in the order they are checked.
CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")


@lru_cache(maxsize=64)
def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


class Spec:
    """A pod spec as the rules see it: the spec, where it is, its containers and volume names.

    ``containers`` holds ``(trail, list name, container)`` for every container
    that is a map; ``volume_names`` every volume name that is a string, in order.
    ``metadata`` is the pod's (or template's) metadata when it is a map, else
    ``None`` (a bare ``PodSpec`` has none), at ``metadata_trail``. ``version``
    is the Kubernetes version checked against (``"1.37"``, as the schema spells
    it), ``release`` the same as numbers, for rules the API server changed.

    >>> spec = Spec({"containers": [{"name": "c"}, "junk"], "volumes": [{"name": "v"}]}, None)
    >>> [(list_name, c["name"]) for _, list_name, c in spec.containers], spec.volume_names
    ([('containers', 'c')], ['v'])
    >>> Spec({}, None, version="1.31").release < (1, 32), spec.metadata is None
    (True, True)
    """

    __slots__ = (
        "spec",
        "trail",
        "containers",
        "volume_names",
        "metadata",
        "metadata_trail",
        "version",
        "release",
    )

    def __init__(
        self,
        spec: dict[str, Any],
        trail: Trail,
        *,
        metadata: Any = None,
        metadata_trail: Trail = None,
        version: str | None = None,
    ) -> None:
        self.spec = spec
        self.trail = trail
        containers: list[tuple[Trail, str, dict[str, Any]]] = []
        for list_name in CONTAINER_LISTS:
            found = spec.get(list_name)
            if type(found) is not list:
                continue
            list_trail = (trail, list_name)
            for index, container in enumerate(found):
                if type(container) is dict:
                    containers.append(((list_trail, index), list_name, container))
        self.containers = containers
        names: list[str] = []
        volumes = spec.get("volumes")
        if type(volumes) is list:
            for volume in volumes:
                if type(volume) is dict and type(name := volume.get("name")) is str:
                    names.append(name)
        self.volume_names = names
        self.metadata: dict[str, Any] | None = metadata if type(metadata) is dict else None
        self.metadata_trail = metadata_trail
        self.version = DEFAULT_VERSION if version is None else version
        self.release = _release(self.version)
