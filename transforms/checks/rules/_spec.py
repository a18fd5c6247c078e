"""What the reference rules read of a pod spec, gathered once per pod."""

from __future__ import annotations

from typing import Any

from transforms.checks.problems import Trail

__all__ = ("CONTAINER_LISTS", "Spec")

#: The lists of a pod spec that hold containers, in the order they are checked.
CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")


class Spec:
    """A pod spec as the rules see it: the spec, where it is, its containers and volume names.

    ``containers`` holds ``(trail, list name, container)`` for every container
    that is a map; ``volume_names`` every volume name that is a string, in order.

    >>> spec = Spec({"containers": [{"name": "c"}, "junk"], "volumes": [{"name": "v"}]}, None)
    >>> [(list_name, c["name"]) for _, list_name, c in spec.containers], spec.volume_names
    ([('containers', 'c')], ['v'])
    """

    __slots__ = ("spec", "trail", "containers", "volume_names")

    def __init__(self, spec: dict[str, Any], trail: Trail) -> None:
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
