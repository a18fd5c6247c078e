"""Kubernetes strategic merge patch (SMP) on a Pod, as a pure transform.

The semantics, and the order of merged lists, follow Kubernetes' own
implementation (the one ``kubectl patch --type strategic`` runs):

- maps merge key by key; ``null`` deletes a key;
- a list whose schema field has patch strategy ``merge`` merges: lists of
  maps element by element on the list's merge key, lists of scalars as sets;
  every other list (tolerations, args, command, ...) is replaced whole;
- directives: ``$patch: replace`` / ``delete`` on a map or as a list element,
  ``$deleteFromPrimitiveList/<field>``, ``$setElementOrder/<field>``,
  ``$retainKeys``;
- merged lists come out in kubectl's order: patch elements in patch order,
  interleaved with the elements only the pod has, each kept in its old place
  relative to the patch's elements where both lists know them (so a new
  container named in the patch comes *before* the pod's others).

Deliberate differences from kubectl, each covered by a marked test case:

1. merge keys are the schema's ``x-kubernetes-list-map-keys``, so container
   ports merge on ``(containerPort, protocol)`` (``protocol`` defaulting to
   ``TCP``) and topology spread constraints on ``(topologyKey,
   whenUnsatisfiable)``; kubectl uses the single ``patchMergeKey``
   (``containerPort``, ``topologyKey``) and merges a UDP port into a TCP one;
2. ``$patch: merge`` (on a map or a list element) means "merge", the default,
   where kubectl rejects it;
3. values inserted from the patch (new keys, new list elements, replaced
   lists) lose their ``null`` members and directives; kubectl keeps them
   verbatim inside new list elements and replaced lists.

A patch applied again is compiled into a plan of path steps, one for each
run of fields of a map, with merge-keyed lists merged in one pass (see
:mod:`._smp_plan`); the first application merges the general way, as does
whatever the plan does not compile. Building a patch equal to one built
lately (the same value, written the same way) gives back that patch, plan
and all (see :mod:`._cache`).

A patch of a workload kind podfold knows (``kind: Deployment``, as kustomize
writes them) merges as kubectl merges it: with the PodTemplateSpec rules at
the kind's template paths (:mod:`transforms.kube.workloads`), maps merging and
other lists replaced elsewhere. A pod-level patch refuses a workload document.

>>> pod = {"spec": {"containers": [{"name": "trainer", "env": [{"name": "A", "value": "1"}]}]}}
>>> overlay = strategic_merge({"spec": {"containers": [
...     {"name": "trainer", "env": [{"name": "B", "value": "2"}]}]}})
>>> overlay(pod)["spec"]["containers"][0]["env"]
[{'name': 'B', 'value': '2'}, {'name': 'A', 'value': '1'}]
"""

from __future__ import annotations

import functools
from typing import Any

from pyrsistent import PMap, PVector

from combinators.data import MISSING, Owned, copy_plain, is_map, kind_name
from combinators.errors import TransformError, TypeClashError
from combinators.fusion import CHECK, Op
from combinators.limits import MAX_NAME, short_repr
from combinators.shape import check_value
from combinators.transform import Transform
from transforms.forms.patches._cache import Keyed, keyed
from transforms.forms.patches._listkeys import ROOTS
from transforms.forms.patches._places import TypeName, workload_root
from transforms.forms.patches._smp import Ctx, check_patch, invalid, merge_map
from transforms.forms.patches._smp_plan import compile_plan
from transforms.kube.kinds import WorkloadKindError, check_pod_document
from transforms.kube.records import WorkloadKind
from transforms.kube.registry import current_kinds
from transforms.kube.table import KindRegistry

__all__ = ("strategic_merge",)


def _workload_of(patch: Any, kind: str, registry: KindRegistry) -> WorkloadKind | None:
    """The workload kind a patch is for, from its own ``kind`` (as kustomize writes
    patches) in ``registry``, or ``None`` for a pod-level patch."""
    if kind not in ROOTS:
        raise invalid(
            f"unknown kind {short_repr(kind)}; kinds are: {', '.join(ROOTS)} (a workload "
            f"patch names its kind in the patch: kind: Deployment)",
            argument="kind",
        )
    named = patch.get("kind")
    if kind != "Pod" or named in (None, "Pod", "List") or not isinstance(named, str):
        return None
    return registry.lookup(named, patch.get("apiVersion"))


def _describe(document: Any) -> str:
    metadata = document.get("metadata")
    name = metadata.get("name") if is_map(metadata) else None
    return short_repr(document.get("kind"), MAX_NAME, quoted=False) + (
        f" {short_repr(name, MAX_NAME)}" if isinstance(name, str) else ""
    )


class _StrategicMerge(Transform):
    __slots__ = ("patch", "root", "workload", "_registry", "_plan", "_applied")
    name = "strategic_merge"

    def __init__(self, patch: Any, kind: str, registry: KindRegistry | None = None) -> None:
        if not isinstance(kind, str):
            raise invalid(f"kind must be a string, got {kind_name(kind)}", argument="kind")
        if not is_map(patch):
            raise invalid(f"a patch is a map, got {kind_name(patch)}")
        check_value(patch, argument="patch", factory="strategic_merge")
        self.patch = copy_plain(patch)
        # the registry it is built in (the current one): where its kind's templates are
        self._registry = current_kinds() if registry is None else registry
        self.workload = _workload_of(self.patch, kind, self._registry)
        self.root: TypeName = ROOTS[kind] if self.workload is None else workload_root(self.workload)
        check_patch(self.patch, self.root, str(self.root))
        if kind == "Pod":
            self._init_params(self.patch)
        else:
            self._init_params(self.patch, kind=kind)
        self._plan: Any = MISSING  # compiled when applied again (see _apply)
        self._applied = False

    def __reduce__(self) -> tuple[Any, ...]:
        # the plan holds compiled code: rebuilt from the patch, not pickled
        return strategic_merge, (self.patch, self._kwargs.get("kind", "Pod"))

    def compiled(self) -> Transform | None:
        """The plan of path steps (made on first use); ``None`` where the patch has
        directives at its top, which the general merge does."""
        plan: Transform | None = self._plan
        if plan is MISSING:
            plan = self._plan = compile_plan(self.patch, self.root)
        return plan

    def _check(self, doc: Any) -> None:
        if not is_map(doc):
            raise TypeClashError(
                f"strategic_merge: a {self.root} is a map, got {kind_name(doc)}",
                expected="a map",
                found=kind_name(doc),
            )
        if self.workload is None:
            check_pod_document(doc, overlay="strategic_merge")
        else:
            self._check_target(doc)

    def _fusion_ops(self) -> tuple[Op, ...] | None:
        # in a composition: its checks, then its plan's steps, fused with the steps around
        plan = self.compiled()
        ops = plan._fusion_ops() if plan is not None else None
        return None if ops is None else (Op(CHECK, (), self._check), *ops)

    def __call__(self, doc: Any) -> Any:
        plan = self._plan
        if plan is MISSING or plan is None or type(doc) is not dict:
            return super().__call__(doc)
        self._check(doc)
        try:
            return plan(doc)  # its own fused function, the shortest way
        except TransformError as err:
            err.steps = ()  # as _apply: the message names the place
            raise

    def _apply(self, doc: Any, owned: Owned) -> Any:
        self._check(doc)
        plan = self._plan
        if plan is MISSING:
            if self._applied:
                plan = self.compiled()
            else:
                # The first application merges: a patch built for one call is applied
                # once, and compiling would cost it more than it saves. One applied
                # again is compiled.
                self._applied = True
                plan = None
        if plan is not None and type(doc) is dict:
            try:
                return plan._apply(doc, owned)
            except TransformError as err:
                # what the plan's chain added names its own steps; the message names the place
                err.steps = ()
                raise
        ctx = Ctx(isinstance(doc, (PMap, PVector)), owned)
        return merge_map(doc, self.patch, self.root, str(self.root), ctx)

    def matches_document(self, doc: Any) -> bool | None:
        """``None`` for a pod-level patch; for a workload patch, whether ``doc`` is its target.

        The target is a document of the patch's kind (and API group, where
        kinds clash) with the patch's ``metadata.name``, if it names one:
        what kustomize matches a patch on. The workload API applies such a
        patch to the documents it targets and leaves the others alone.
        """
        if self.workload is None:
            return None
        if (
            not is_map(doc)
            or self._registry.lookup(doc.get("kind"), doc.get("apiVersion")) != self.workload
        ):
            return False
        patched = self.patch.get("metadata")
        name = patched.get("name") if is_map(patched) else None
        metadata = doc.get("metadata")
        return name is None or (is_map(metadata) and metadata.get("name") == name)

    def _check_target(self, doc: Any) -> None:
        if not self.matches_document(doc):
            wanted = _describe(self.patch) if "kind" in self.patch else str(self.root)
            metadata = doc.get("metadata")
            found = metadata.get("name") if is_map(metadata) else None
            raise WorkloadKindError(
                f"strategic_merge: the patch is for {wanted}, the document is "
                f"{_describe(doc) if 'kind' in doc else 'a map with no kind'}",
                kind=str(doc.get("kind")),
                name=found if isinstance(found, str) else None,
                overlay="strategic_merge",
            )


def strategic_merge(patch: Any, kind: str = "Pod") -> Transform:
    """A Kubernetes strategic merge patch for a ``Pod``, ``PodSpec`` or ``PodTemplateSpec``,
    or for a workload document.

    Maps merge and ``null`` deletes; lists with a merge key (containers, env,
    volumes, volumeMounts, ports, ...) merge element by element, scalar
    lists with strategy ``merge`` (finalizers) merge as sets, other lists
    (tolerations, args, command) replace whole; directives ``$patch``,
    ``$deleteFromPrimitiveList/``, ``$setElementOrder/`` and ``$retainKeys``
    work as in Kubernetes. The result is the very same pod when nothing changes.

    >>> pod = {"metadata": {"finalizers": ["a"]},
    ...        "spec": {"containers": [{"name": "c", "image": "old"}], "tolerations": [{"key": "x"}]}}
    >>> new = strategic_merge({"metadata": {"finalizers": ["b"]},
    ...                        "spec": {"containers": [{"name": "c", "image": "new"}],
    ...                                 "tolerations": [{"key": "y"}]}})(pod)
    >>> new["metadata"]["finalizers"], new["spec"]["containers"], new["spec"]["tolerations"]
    (['b', 'a'], [{'name': 'c', 'image': 'new'}], [{'key': 'y'}])
    >>> strategic_merge({"spec": {"containers": [{"name": "c", "$patch": "delete"}]}})(pod)["spec"]
    {'containers': [], 'tolerations': [{'key': 'x'}]}
    >>> strategic_merge({"containers": [{"name": "c", "image": "old"}]}, kind="PodSpec")(
    ...     pod["spec"]) is pod["spec"]
    True

    A patch that names a workload kind (``kind: Deployment``) merges
    into that kind's documents, at its pod templates by the pod rules; a
    pod-level patch refuses a workload:

    >>> web = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
    ...        "spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": "n"}]}}}}
    >>> sidecar = strategic_merge({"apiVersion": "apps/v1", "kind": "Deployment",
    ...     "metadata": {"name": "web"},
    ...     "spec": {"template": {"spec": {"containers": [{"name": "log", "image": "l"}]}}}})
    >>> [c["name"] for c in sidecar(web)["spec"]["template"]["spec"]["containers"]]
    ['log', 'nginx']
    >>> strategic_merge({"spec": {"hostIPC": True}})(web)
    Traceback (most recent call last):
      ...
    transforms.kube.kinds.WorkloadKindError: strategic_merge: a pod-level overlay was given a Deployment document ('web'), not a pod; its pods are in its templates: apply it with transforms.kube.apply_to_workload(overlay, document) or `podfold apply`
    """
    if type(kind) is str:
        found = keyed(patch)
        if found is not None:
            return _built(found, kind, current_kinds())
    return _StrategicMerge(patch, kind)


@functools.lru_cache(maxsize=256)
def _built(patch: Keyed, kind: str, registry: KindRegistry) -> _StrategicMerge:
    """The patch, built once for each exact value and registry (see :mod:`._cache`)."""
    return _StrategicMerge(patch.take(), kind, registry)
