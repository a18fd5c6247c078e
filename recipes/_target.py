"""Which container a recipe acts on: the one convention, in one place.

``container=None`` means *the main container*. Which one that is, is a
convention of whoever rendered the pod, given as ``main=`` (a
:class:`~transforms.kube.containers.MainContainer`): by default TorchX's,
``spec.containers[0]`` (sidecars are appended after it); Flyte's target says
``MainContainer.named("primary")``. A name selects the container with that
name, and ``"*"`` every container. The selected container must exist:
nothing here ever creates a container.

>>> from combinators import upsert
>>> pod = {"spec": {"containers": [{"name": "trainer-0"}, {"name": "proxy"}]}}
>>> on_container(None, upsert("workingDir", "/app"))(pod)["spec"]["containers"]
[{'name': 'trainer-0', 'workingDir': '/app'}, {'name': 'proxy'}]
>>> on_container("*", upsert("workingDir", "/app"))(pod)["spec"]["containers"][1]
{'name': 'proxy', 'workingDir': '/app'}
>>> on_container("trainer", upsert("workingDir", "/app"))(pod)
Traceback (most recent call last):
  ...
combinators.errors.ExpectationError: expected 1 match for spec.containers[name=trainer], found 0; did you mean trainer-0?; names present: trainer-0, proxy [in step 1 of 2: expect('spec.containers[name=trainer]')]
>>> flyte = MainContainer.named("primary")
>>> on_container(None, upsert("workingDir", "/app"), main=flyte)(
...     {"spec": {"containers": [{"name": "sidecar"}, {"name": "primary"}]}})["spec"]["containers"]
[{'name': 'sidecar'}, {'name': 'primary', 'workingDir': '/app'}]
"""

from __future__ import annotations

from combinators import All, Key, Match, Path, Transform, chain, expect, for_each
from combinators.errors import ArgumentTypeError
from combinators.transform import TransformLike
from recipes._check import check_dns_label
from transforms.kube.containers import FIRST, MainContainer

__all__ = (
    "ContainerTarget",
    "MAIN",
    "ALL",
    "MainContainer",
    "FIRST",
    "container_path",
    "check_container",
    "on_container",
)

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
    return check_dns_label(
        "container (None for the main container, '*' for all, or a name)", container
    )


def container_path(container: ContainerTarget, *, main: MainContainer = FIRST) -> Path:
    """The path of the container(s) ``container`` selects; ``None`` is ``main``'s.

    >>> str(container_path(None)), str(container_path("*")), str(container_path("proxy"))
    ('spec.containers[0]', 'spec.containers[*]', 'spec.containers[name=proxy]')
    >>> str(container_path(None, main=MainContainer.named("primary")))
    'spec.containers[name=primary]'
    """
    if container is None:
        return _check_main(main).path()
    if container == ALL:
        return _CONTAINERS.child(All())
    return _CONTAINERS.child(Match([("name", container)]))


def _check_main(main: object) -> MainContainer:
    if not isinstance(main, MainContainer):
        raise ArgumentTypeError(
            f"main must be a MainContainer (such as "
            f"MainContainer.named('primary')), found {type(main).__name__}",
            argument="main",
            value=main,
        )
    return main


def on_container(
    container: ContainerTarget, transform: TransformLike, *, main: MainContainer = FIRST
) -> Transform:
    """Apply ``transform`` (paths relative to a container) to the selected container(s).

    ``container=None`` selects the main container as ``main`` finds it.
    Fails, naming the containers present, where the selection is empty.
    """
    where = container_path(check_container(container), main=main)
    result = chain(expect(where, "1+" if container == ALL else 1), for_each(where, transform))
    assert isinstance(result, Transform)
    return result
