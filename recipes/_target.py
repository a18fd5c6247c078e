"""Which container a recipe acts on: the one convention, in one place.

``container=None`` means *the main container*, ``spec.containers[0]``: the
container torchx renders (sidecars are appended after it). A name selects
the container with that name, and ``"*"`` every container. The selected
container must exist: nothing here ever creates a container.

>>> from combinators import upsert
>>> pod = {"spec": {"containers": [{"name": "trainer-0"}, {"name": "proxy"}]}}
>>> on_container(None, upsert("workingDir", "/app"))(pod)["spec"]["containers"]
[{'name': 'trainer-0', 'workingDir': '/app'}, {'name': 'proxy'}]
>>> on_container("*", upsert("workingDir", "/app"))(pod)["spec"]["containers"][1]
{'name': 'proxy', 'workingDir': '/app'}
>>> on_container("trainer", upsert("workingDir", "/app"))(pod)
Traceback (most recent call last):
  ...
combinators.errors.ExpectationError: expected 1 match for spec.containers[name=trainer], found 0; names present: trainer-0, proxy [in step 1 of 2: expect('spec.containers[name=trainer]')]
"""

from __future__ import annotations

from combinators import All, Index, Key, Match, Path, Transform, chain, expect, for_each
from combinators.transform import TransformLike
from recipes._check import check_dns_label

__all__ = ("ContainerTarget", "MAIN", "ALL", "container_path", "check_container",
           "on_container")

ContainerTarget = str | None
MAIN: ContainerTarget = None
ALL = "*"

_CONTAINERS = Path([Key("spec"), Key("containers")])


def check_container(container: object) -> ContainerTarget:
    """``container`` if it is ``None``, ``"*"`` or a container name."""
    if container is None:
        return None
    if container == ALL:
        return ALL
    return check_dns_label("container (None for the main container, '*' for all, or a name)",
                           container)


def container_path(container: ContainerTarget) -> Path:
    """The path of the container(s) ``container`` selects.

    >>> str(container_path(None)), str(container_path("*")), str(container_path("proxy"))
    ('spec.containers[0]', 'spec.containers[*]', 'spec.containers[name=proxy]')
    """
    if container is None:
        return _CONTAINERS.child(Index(0))
    if container == ALL:
        return _CONTAINERS.child(All())
    return _CONTAINERS.child(Match([("name", container)]))


def on_container(container: ContainerTarget, transform: TransformLike) -> Transform:
    """Apply ``transform`` (paths relative to a container) to the selected container(s).

    Fails, naming the containers present, where the selection is empty.
    """
    where = container_path(check_container(container))
    result = chain(expect(where, "1+" if container == ALL else 1), for_each(where, transform))
    assert isinstance(result, Transform)
    return result
