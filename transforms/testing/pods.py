"""Realistic pods for tests, rendered by TorchX itself.

The pods come from TorchX's own ``kubernetes`` dry run (through podfold's
``kubernetes_overlay`` scheduler, so roles' overlays are folded), converted
to plain API-form dicts: exactly what an overlay is given at launch. One pod
per replica of each role, in order. Nothing needs a cluster.

>>> pods = make_pods(replicas=2, gpu=0, mounts={"/data": "datasets"})
>>> [pod["spec"]["containers"][0]["name"] for pod in pods]
['trainer-0', 'trainer-1']
>>> pods[0]["spec"]["containers"][0]["volumeMounts"][-1]
{'mountPath': '/data', 'name': 'mount-0', 'readOnly': False}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from torchx import specs

from combinators.errors import ArgumentTypeError
from combinators.near import did_you_mean, near_misses
from transforms.io.normalize import OverlayLike
from transforms.kube.convert import to_data
from transforms.torchx.roles import with_overlays

__all__ = ("sample_role", "sample_app", "render_pods", "make_pods")

_DEFAULT_ENV = {"LOGLEVEL": "INFO"}
_DEFAULT_PORTS = {"c10d": 29500}


def sample_role(
    name: str = "trainer",
    *,
    image: str = "ghcr.io/example/trainer:1.0",
    replicas: int = 1,
    cpu: int = 8,
    gpu: int = 1,
    memMB: int = 32_000,
    args: Sequence[str] = ("-m", "train"),
    env: Mapping[str, str] | None = None,
    ports: Mapping[str, int] | None = None,
    mounts: Mapping[str, str] | Sequence[Any] = (),
) -> specs.Role:
    """A TorchX role for tests: a ``python -m train`` trainer on one GPU by default.

    ``env`` defaults to ``LOGLEVEL=INFO`` and ``ports`` to ``c10d: 29500``;
    ``mounts`` maps mount paths to PersistentVolumeClaim names, or lists
    TorchX mounts (``specs.VolumeMount``, ``specs.BindMount``, ...).

    >>> role = sample_role(replicas=4, gpu=8, mounts={"/ckpt": "checkpoints"})
    >>> role.num_replicas, role.resource.gpu, role.mounts
    (4, 8, [VolumeMount(src='checkpoints', dst_path='/ckpt', read_only=False)])
    """
    if isinstance(mounts, Mapping):
        mount_list: list[Any] = [
            specs.VolumeMount(src=claim, dst_path=mount_path)
            for mount_path, claim in mounts.items()
        ]
    else:
        mount_list = list(mounts)
    return specs.Role(
        name=name,
        image=image,
        entrypoint="python",
        args=list(args),
        env=dict(_DEFAULT_ENV if env is None else env),
        num_replicas=replicas,
        resource=specs.Resource(cpu=cpu, gpu=gpu, memMB=memMB),
        port_map=dict(_DEFAULT_PORTS if ports is None else ports),
        mounts=mount_list,
    )


def sample_app(*roles: specs.Role, name: str = "train") -> specs.AppDef:
    """A TorchX app: ``roles``, or by default a trainer (2 GPU replicas) and a parameter server.

    >>> [(role.name, role.num_replicas) for role in sample_app().roles]
    [('trainer', 2), ('ps', 1)]
    """
    if not roles:
        roles = (
            sample_role(replicas=2),
            sample_role(
                "ps",
                image="ghcr.io/example/param-server:1.0",
                cpu=4,
                gpu=0,
                memMB=8_000,
                args=("-m", "param_server"),
                env={},
                ports={"ps": 9000},
            ),
        )
    return specs.AppDef(name=name, roles=list(roles))


def render_pods(
    app: specs.AppDef | specs.Role | Sequence[specs.Role], *, overlays: Sequence[OverlayLike] = ()
) -> list[dict[str, Any]]:
    """Every pod TorchX renders for ``app`` (an AppDef, a role or roles), as plain dicts.

    Each role's own overlays are folded over its pods, then ``overlays``; the
    pods are not validated (check them with
    :func:`transforms.testing.assert_valid_pod`). ``app`` is left as it was.

    >>> from combinators import upsert
    >>> pods = render_pods(sample_app(), overlays=[upsert("spec.nodeSelector", {"pool": "a"})])
    >>> [(pod["spec"]["containers"][0]["name"], pod["spec"]["nodeSelector"]) for pod in pods]
    [('trainer-0', {'pool': 'a'}), ('trainer-1', {'pool': 'a'}), ('ps-0', {'pool': 'a'})]
    """
    from transforms.torchx.schedulers import KubernetesOverlayScheduler

    if isinstance(app, specs.Role):
        app = sample_app(app)
    elif not isinstance(app, specs.AppDef):
        app = sample_app(*app)
    if overlays:
        app = specs.AppDef(
            name=app.name,
            roles=[with_overlays(role, *overlays) for role in app.roles],
            metadata=dict(app.metadata),
        )
    scheduler = KubernetesOverlayScheduler(session_name="podfold-testing")
    info = scheduler._submit_dryrun(app, {"queue": "default", "validate": False})
    tasks = info.request.resource["spec"]["tasks"]
    return [to_data(task["template"]) for task in tasks]


def make_pods(
    *roles: specs.Role, overlays: Sequence[OverlayLike] = (), **role_options: Any
) -> list[dict[str, Any]]:
    """The pods of ``roles``, or of one :func:`sample_role` built with ``role_options``.

    >>> [pod["spec"]["containers"][0]["name"] for pod in make_pods(sample_role("a"),
    ...                                                         sample_role("b"))]
    ['a-0', 'b-0']
    >>> make_pods(replicas=1, cpu=2, gpu=0, memMB=4_000)[0]["spec"]["containers"][0]["resources"]
    {'limits': {'cpu': '2000m', 'memory': '4000M'}, 'requests': {'cpu': '1900m', 'memory': '2976M'}}
    """
    if roles and role_options:
        raise ArgumentTypeError(
            f"give roles or role options, not both: {sorted(role_options)}",
            argument="role_options",
            factory="make_pods",
            value=sorted(role_options),
        )
    _check_role_options(role_options)
    return render_pods(list(roles) or [sample_role(**role_options)], overlays=overlays)


_COUNTS = ("replicas", "cpu", "gpu", "memMB")


def _check_role_options(options: Mapping[str, Any]) -> None:
    """Refuse a role option :func:`sample_role` does not take (with the near miss), and
    a count that is no integer, before TorchX renders anything."""
    import inspect

    known = [name for name in inspect.signature(sample_role).parameters if name != "name"]
    for key, value in options.items():
        if key not in known:
            hint = did_you_mean(near_misses(key, known))
            raise ArgumentTypeError(
                f"takes no role option {key!r}{hint} (it takes: {', '.join(known)})",
                argument=key,
                factory="make_pods",
                value=value,
            )
        if key in _COUNTS and (type(value) is not int or value < 0):
            raise ArgumentTypeError(
                f"{key} is a whole number, not {value!r}",
                argument=key,
                factory="make_pods",
                value=value,
            )
