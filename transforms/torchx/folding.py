"""Folding each role's overlays over every pod TorchX renders.

TorchX renders one pod per replica (``V1Pod`` objects). For each one this
module turns the pod into plain API-form data, applies the role's overlays
in order (then the launch-time ones), substitutes TorchX's macros in what the
overlays wrote, and validates the result. The request that comes out holds
plain pods; nothing of the ``AppDef`` or of TorchX's request is changed, and
the first failure stops the whole fold.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from torchx.specs import AppDef

from combinators import ArgumentError, Transform, TransformError, chain
from combinators.data import MISSING, is_map, is_seq
from combinators.transform import TransformLike
from transforms.checks.validation import PodValidationError, validate_pod
from transforms.forms.kinds import may_write_macros
from transforms.kube.convert import pod_to_dict
from transforms.torchx.roles import role_overlays

__all__ = ("FoldError", "FoldSettings", "fold_volcano_job", "fold_app_wrapper",
           "substitute_macros")

LABEL_ROLE_INDEX = "torchx.pytorch.org/role-index"
LABEL_REPLICA_ID = "torchx.pytorch.org/replica-id"
LABEL_INSTANCE = "app.kubernetes.io/instance"


class FoldError(TransformError, ValueError):
    """An overlay failed, or left an invalid pod, for one replica of one role."""

    def __init__(self, message: str, *, role: str, replica: int) -> None:
        super().__init__(message)
        self.role = role
        self.replica = replica

    def __str__(self) -> str:
        return f"role {self.role!r}, replica {self.replica}: {self.message}"


@dataclass(frozen=True)
class FoldSettings:
    """How to fold: launch-time overlays for every role (``extra``) and for
    one role (``per_role``: pairs of a role's name and its overlays, applied
    after ``extra``), validation on or off."""

    extra: tuple[TransformLike, ...] = ()
    validate: bool = True
    k8s_version: str | None = None
    per_role: tuple[tuple[str, tuple[TransformLike, ...]], ...] = ()

    def for_role(self, name: str) -> tuple[TransformLike, ...]:
        """The launch-time overlays of the role ``name``: every role's, then its own.

        >>> from combinators import upsert
        >>> settings = FoldSettings(extra=(upsert("a", 1),),
        ...                         per_role=(("ps", (upsert("b", 2),)),))
        >>> settings.for_role("ps"), settings.for_role("trainer")
        ((upsert('a', 1), upsert('b', 2)), (upsert('a', 1),))
        """
        own = tuple(step for role, steps in self.per_role if role == name for step in steps)
        return (*self.extra, *own)


def substitute_macros(new: Any, old: Any, values: Mapping[str, str]) -> Any:
    """Substitute ``${name}`` macros in the strings of ``new`` that ``old`` lacks.

    Subtrees ``new`` shares with ``old`` (the very same objects) are skipped:
    only what the overlays wrote is looked at, and only changed containers
    are copied.

    >>> old = {"args": ["${replica_id}"]}
    >>> new = {"args": old["args"], "env": [{"name": "RANK", "value": "${replica_id}"}]}
    >>> substitute_macros(new, old, {"replica_id": "3"})
    {'args': ['${replica_id}'], 'env': [{'name': 'RANK', 'value': '3'}]}
    >>> old = {"containers": [{"args": ["${replica_id}"]}]}
    >>> new = {"containers": [{**old["containers"][0], "env": [{"value": "${replica_id}"}]}]}
    >>> substitute_macros(new, old, {"replica_id": "3"})
    {'containers': [{'args': ['${replica_id}'], 'env': [{'value': '3'}]}]}
    """
    if new is old:
        return new
    cls = type(new)
    if cls is str:
        return string.Template(new).safe_substitute(values) if "${" in new else new
    if cls is dict or (cls is not list and is_map(new)):
        before = old if old is not MISSING and is_map(old) else _EMPTY
        result = new
        for key, value in new.items():
            if type(value) in _OTHER_SCALARS:
                continue
            was = before.get(key, MISSING)
            if value is was:
                continue
            changed = substitute_macros(value, was, values)
            if changed is not value:
                if result is new:
                    result = dict(new)
                result[key] = changed
        return result
    if cls is list or is_seq(new):
        olds = list(old) if old is not MISSING and is_seq(old) else []
        kept = {id(item) for item in olds}
        items = list(new)
        touched = False
        for position, item in enumerate(items):
            if id(item) in kept or type(item) in _OTHER_SCALARS:
                continue
            # an edited element still shares its untouched parts with the old one
            # in its place: those are skipped (any other old element works too)
            was = olds[position] if position < len(olds) else MISSING
            changed = substitute_macros(item, was, values)
            if changed is not item:
                items[position] = changed
                touched = True
        return items if touched else new
    return new


_EMPTY: Mapping[str, Any] = {}
_OTHER_SCALARS = frozenset({int, float, bool, type(None)})


def _macro_values(app_id: str, replica_id: int, rank0_env: str) -> dict[str, str]:
    return {"img_root": "", "app_id": app_id, "replica_id": str(replica_id),
            "rank0_env": rank0_env}


class _Folder:
    """The fold of one request: each role's chain is built once."""

    def __init__(self, app: AppDef, settings: FoldSettings,
                 rank0_env: Callable[[int, int], str]) -> None:
        self.app = app
        self.settings = settings
        self.rank0_env = rank0_env
        self.chains: list[Transform] = []
        self.macros: list[bool] = []
        names = [role.name for role in app.roles]
        for name, _ in settings.per_role:
            if name not in names:
                raise ArgumentError(f"no role named {name!r}; roles present: {', '.join(names)}",
                                    argument="role_overlays", value=name)
        for role in app.roles:
            try:
                steps: list[TransformLike] = [*role_overlays(role),
                                              *settings.for_role(role.name)]
            except TransformError as err:
                raise FoldError(f"cannot read its overlays: {err}", role=role.name,
                                replica=0) from err
            self.chains.append(chain(*steps))
            # whether macros may need substituting: each step's kind says what it writes
            self.macros.append(any(may_write_macros(step) for step in steps))

    def fold(self, pod: Any) -> dict[str, Any]:
        plain = pod_to_dict(pod)
        labels = plain.get("metadata", {}).get("labels", {})
        role_index = int(labels.get(LABEL_ROLE_INDEX, 0))
        replica_id = int(labels.get(LABEL_REPLICA_ID, 0))
        role = self.app.roles[role_index]
        try:
            new = self.chains[role_index](plain)
            if new is not plain and self.macros[role_index]:
                values = _macro_values(labels.get(LABEL_INSTANCE, ""), replica_id,
                                       self.rank0_env(role_index, replica_id))
                new = substitute_macros(new, plain, values)
            if self.settings.validate:
                validate_pod(new, k8s_version=self.settings.k8s_version)
        except PodValidationError as err:
            raise FoldError(f"the pod is not valid after its overlays:\n{err}",
                            role=role.name, replica=replica_id) from err
        except TransformError as err:
            raise FoldError(str(err), role=role.name, replica=replica_id) from err
        result: dict[str, Any] = new
        return result


def fold_volcano_job(app: AppDef, resource: Mapping[str, Any], settings: FoldSettings,
                     ) -> dict[str, Any]:
    """A new Volcano Job in which every ``spec.tasks[*].template`` is folded."""
    first = app.roles[0].name if app.roles else ""
    from torchx.schedulers.kubernetes_scheduler import normalize_str

    rank0 = f"VC_{normalize_str(first)}_0_HOSTS".upper()
    folder = _Folder(app, settings,
                     lambda role, replica: "TORCHX_RANK0_HOST" if role == replica == 0 else rank0)
    spec = resource["spec"]
    tasks = [{**task, "template": folder.fold(task["template"])} for task in spec["tasks"]]
    return {**resource, "spec": {**spec, "tasks": tasks}}


def fold_app_wrapper(app: AppDef, resource: Mapping[str, Any], settings: FoldSettings,
                     ) -> dict[str, Any]:
    """A new AppWrapper in which every pod of ``spec.resources.GenericItems`` is folded.

    The Service and PodGroup items are left as they are.
    """
    from torchx.schedulers.kubernetes_mcad_scheduler import cleanup_str

    first = app.roles[0].name if app.roles else ""
    rank0 = f"TORCHX_MCAD_{cleanup_str(first)}_0_HOSTS".upper().replace("-", "")
    folder = _Folder(app, settings,
                     lambda role, replica: "TORCHX_RANK0_HOST" if role == replica == 0 else rank0)
    spec = resource["spec"]
    items = [_fold_item(item, folder) for item in spec["resources"]["GenericItems"]]
    return {**resource, "spec": {**spec, "resources": {**spec["resources"],
                                                       "GenericItems": items}}}


def _fold_item(item: Mapping[str, Any], folder: _Folder) -> Any:
    template = item.get("generictemplate")
    if _is_pod(template):
        return {**item, "generictemplate": folder.fold(template)}
    return item


def _is_pod(value: Any) -> bool:
    from kubernetes.client import V1Pod

    if isinstance(value, V1Pod):
        return True
    return is_map(value) and value.get("kind") == "Pod"
