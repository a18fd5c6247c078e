"""Scheduling: where a pod may run and how its workload is queued.

Every recipe here is idempotent: applying it twice equals applying it once.
The Kueue recipes act on the workload object, not on its pods (see
:mod:`transforms.kube.scopes`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from combinators import (
    Key,
    Path,
    Transform,
    append_at,
    chain,
    for_each,
    replace_at,
    upsert,
    when,
)
from combinators.limits import short_repr
from recipes._check import (
    bad_type,
    bad_value,
    check_bool,
    check_choice,
    check_int,
    check_label_value,
    check_nonempty_string,
    check_qualified_name,
    merge_kwargs,
)
from recipes._recipe import recipe
from recipes._requires import HasLabel, Requiring
from transforms.kube.scopes import UnsupportedWorkloadError, workload_level
from transforms.kube.table import a_kind, api_group

__all__ = (
    "node_selector",
    "add_toleration",
    "require_node_affinity",
    "prefer_node_affinity",
    "spread",
    "anti_affinity",
    "priority_class",
    "scheduler_name",
    "runtime_class",
    "kueue_queue",
    "JOB_LABEL",
    "KUEUE_QUEUE",
    "KUEUE_PRIORITY_CLASS",
    "KUEUE_WORKLOADS",
    "toleration_value",
    "node_expression",
)

JOB_LABEL = "app.kubernetes.io/instance"
"""The label torchx gives every pod of a job (its app id): the default group of
pods that :func:`spread` and :func:`anti_affinity` keep apart (``group_label``
picks another; a pod without the label is refused)."""

TOLERATION_OPERATORS = ("Exists", "Equal")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
NODE_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")

_REQUIRED = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
_TERMS = _REQUIRED + ".nodeSelectorTerms"


@recipe
def node_selector(labels: Mapping[str, str] | None = None, /, **more: str) -> Transform:
    """Run only on nodes with these labels (``spec.nodeSelector``).

    Labels merge into the selector already there. Keys with dots or slashes
    go in the positional map.

    >>> node_selector(gpu="a100")({"spec": {"nodeSelector": {"zone": "a"}}})
    {'spec': {'nodeSelector': {'zone': 'a', 'gpu': 'a100'}}}
    >>> node_selector({"cloud.google.com/gke-nodepool": "gpu"})
    node_selector({'cloud.google.com/gke-nodepool': 'gpu'})
    """
    merged = merge_kwargs("labels", labels, more)
    if not merged:
        bad_value("labels", merged, "labels: needs at least one label")
    for key, value in merged.items():
        check_qualified_name("label key", key)
        check_label_value(f"label {short_repr(key)}", value)
    return upsert("spec.nodeSelector", merged)


def toleration_value(
    key: str,
    operator: str | None = None,
    value: str | None = None,
    effect: str | None = None,
    seconds: int | None = None,
) -> dict[str, Any]:
    """A checked toleration in API form (see :func:`add_toleration`).

    >>> toleration_value("nvidia.com/gpu", effect="NoSchedule")
    {'key': 'nvidia.com/gpu', 'operator': 'Exists', 'effect': 'NoSchedule'}
    """
    check_qualified_name("key", key)
    if operator is None:
        operator = "Equal" if value is not None else "Exists"
    check_choice("operator", operator, TOLERATION_OPERATORS)
    toleration: dict[str, Any] = {"key": key, "operator": operator}
    if value is not None:
        if operator == "Exists":
            bad_value(
                "value",
                value,
                f"value must be left out with operator 'Exists', got {short_repr(value)}",
            )
        toleration["value"] = check_label_value("value", value)
    if effect is not None:
        toleration["effect"] = check_choice("effect", effect, TAINT_EFFECTS)
    if seconds is not None:
        check_int("seconds", seconds)
        if effect != "NoExecute":
            bad_value(
                "seconds",
                seconds,
                f"seconds only applies with effect 'NoExecute', got effect={short_repr(effect)}",
            )
        toleration["tolerationSeconds"] = seconds
    return toleration


@recipe
def add_toleration(
    key: str,
    operator: str | None = None,
    value: str | None = None,
    effect: str | None = None,
    seconds: int | None = None,
) -> Transform:
    """Tolerate a node taint (appends to ``spec.tolerations`` unless already there).

    ``operator`` is ``'Exists'`` (the default without a ``value``) or
    ``'Equal'`` (the default with one); ``effect`` is ``'NoSchedule'``,
    ``'PreferNoSchedule'`` or ``'NoExecute'`` (any effect when left out);
    ``seconds`` (``tolerationSeconds``) only goes with ``'NoExecute'``.

    >>> gpu = add_toleration("nvidia.com/gpu", effect="NoSchedule")
    >>> pod = gpu({"spec": {}})
    >>> pod
    {'spec': {'tolerations': [{'key': 'nvidia.com/gpu', 'operator': 'Exists', 'effect': 'NoSchedule'}]}}
    >>> gpu(pod) is pod
    True
    >>> add_toleration("dedicated", operator="Equals", value="ml")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: add_toleration(): operator must be one of 'Exists', 'Equal', got 'Equals'; did you mean Equal?
    """
    return append_at(
        "spec.tolerations", toleration_value(key, operator, value, effect, seconds), unique=True
    )


def node_expression(key: str, values: Sequence[str] | str, operator: str) -> dict[str, Any]:
    """A checked node selector requirement ``{key, operator, values}``.

    >>> node_expression("gpu", "a100", "In")
    {'key': 'gpu', 'operator': 'In', 'values': ['a100']}
    """
    check_qualified_name("key", key)
    check_choice("operator", operator, NODE_OPERATORS)
    if not isinstance(values, (str, Sequence)):
        bad_type("values", values, "a label value or a list of them")
    listed = [values] if isinstance(values, str) else list(values)
    for value in listed:
        check_label_value("values", value)
    if operator in ("Exists", "DoesNotExist"):
        if listed:
            bad_value(
                "values",
                values,
                f"values must be empty with operator {short_repr(operator)}, got {short_repr(listed)}",
            )
        return {"key": key, "operator": operator}
    if operator in ("Gt", "Lt") and (len(listed) != 1 or not listed[0].lstrip("-").isdigit()):
        bad_value(
            "values",
            values,
            f"operator {short_repr(operator)} needs exactly one integer value in values, "
            f"got {short_repr(listed)}",
        )
    if not listed:
        bad_value(
            "values", values, f"operator {short_repr(operator)} needs at least one value in values"
        )
    return {"key": key, "operator": operator, "values": listed}


def require_expression(expression: Mapping[str, Any]) -> Transform:
    """AND ``expression`` into every required node selector term (one term if none)."""
    every_term = Path.parse(_TERMS + "[*]")
    return when(
        every_term,
        for_each(every_term, append_at("matchExpressions", dict(expression), unique=True)),
        otherwise=replace_at(_TERMS, [{"matchExpressions": [dict(expression)]}]),
    )


@recipe
def require_node_affinity(
    key: str, values: Sequence[str] | str = (), operator: str = "In"
) -> Transform:
    """Run only on nodes whose label ``key`` satisfies ``operator`` over ``values``.

    Sets ``spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution``.
    Kubernetes ORs node selector terms, so the requirement is ANDed into
    *every* existing term (and one term is made where there is none): a
    requirement added never weakens one already there.

    >>> pod = require_node_affinity("gpu", ["a100", "h100"])({"spec": {}})
    >>> pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    {'nodeSelectorTerms': [{'matchExpressions': [{'key': 'gpu', 'operator': 'In', 'values': ['a100', 'h100']}]}]}
    >>> zone = require_node_affinity("zone", "a")(pod)
    >>> zone["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]["matchExpressions"][1]
    {'key': 'zone', 'operator': 'In', 'values': ['a']}
    """
    return require_expression(node_expression(key, values, operator))


@recipe
def prefer_node_affinity(
    key: str, values: Sequence[str] | str = (), operator: str = "In", weight: int = 1
) -> Transform:
    """Prefer nodes whose label ``key`` satisfies ``operator`` over ``values``.

    Appends a term of weight 1-100 to
    ``spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution``,
    unless the same term is already there.

    >>> prefer_node_affinity("zone", "us-central1-a", weight=10)({"spec": {}})["spec"]["affinity"]
    {'nodeAffinity': {'preferredDuringSchedulingIgnoredDuringExecution': [{'weight': 10, 'preference': {'matchExpressions': [{'key': 'zone', 'operator': 'In', 'values': ['us-central1-a']}]}}]}}
    """
    expression = node_expression(key, values, operator)
    _check_weight(weight)
    return append_at(
        "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution",
        {"weight": weight, "preference": {"matchExpressions": [expression]}},
        unique=True,
    )


def _check_weight(weight: int) -> int:
    """``weight`` if it is a preference weight, 1 to 100."""
    check_int("weight", weight, minimum=1)
    if weight > 100:
        bad_value("weight", weight, f"weight must be between 1 and 100, got {weight}")
    return weight


def _pod_selector(
    match_labels: Mapping[str, str] | None, group_label: str | None
) -> tuple[dict[str, Any], str | None]:
    """A label selector (and matchLabelKeys), and the label the pod itself must carry:
    the pods sharing this pod's value of ``group_label`` (torchx's job label by
    default), or the pods matching ``match_labels`` (then nothing is required)."""
    if match_labels is None:
        label = (
            JOB_LABEL if group_label is None else check_qualified_name("group_label", group_label)
        )
        return (
            {
                "labelSelector": {"matchExpressions": [{"key": label, "operator": "Exists"}]},
                "matchLabelKeys": [label],
            },
            label,
        )
    if group_label is not None:
        bad_value(
            "group_label",
            group_label,
            f"group_label={short_repr(group_label)} and match_labels= "
            f"select the pods two ways: give one of them",
        )
    labels = merge_kwargs("match_labels", match_labels, {})
    if not labels:
        bad_value(
            "match_labels",
            match_labels,
            "match_labels must name at least one label (or be None for the pods of the same job)",
        )
    for key, value in labels.items():
        check_qualified_name("match_labels key", key)
        check_label_value(f"match_labels[{short_repr(key)}]", value)
    return {"labelSelector": {"matchLabels": labels}}, None


def _requiring(recipe: str, does: str, body: Transform, label: str | None) -> Transform | Requiring:
    """``body``, requiring the pod to carry ``label`` (where it keys on one)."""
    if label is None:
        return body
    note = "torchx gives it to every pod of a job" if label == JOB_LABEL else ""
    return Requiring(body, (HasLabel(recipe, label, does, "group_label", note),))


@recipe
def spread(
    topology_key: str,
    max_skew: int = 1,
    when_unsatisfiable: str = "ScheduleAnyway",
    match_labels: Mapping[str, str] | None = None,
    group_label: str | None = None,
) -> Transform | Requiring:
    """Spread the job's pods evenly over ``topology_key`` domains (``spec.topologySpreadConstraints``).

    The pods counted are those sharing this pod's value of label
    ``group_label``, through ``matchLabelKeys`` (honoured from Kubernetes
    1.27): by default ``app.kubernetes.io/instance``, which torchx gives every
    pod of a job. A pod without that label is refused (a Deployment's pods,
    say: pass the label its template carries, such as
    ``group_label='app'``). ``match_labels`` selects the pods by fixed labels
    instead. ``when_unsatisfiable`` is ``'ScheduleAnyway'`` or ``'DoNotSchedule'``.

    >>> spread("topology.kubernetes.io/zone", match_labels={"team": "ml"})({"spec": {}})
    {'spec': {'topologySpreadConstraints': [{'topologyKey': 'topology.kubernetes.io/zone', 'maxSkew': 1, 'whenUnsatisfiable': 'ScheduleAnyway', 'labelSelector': {'matchLabels': {'team': 'ml'}}}]}}
    >>> spread("topology.kubernetes.io/zone")({"metadata": {"labels": {"app": "web"}}, "spec": {}})
    Traceback (most recent call last):
      ...
    combinators.errors.PathError: spread() spreads the pods sharing this pod's value of label 'app.kubernetes.io/instance' (torchx gives it to every pod of a job), and this pod has no label 'app.kubernetes.io/instance': pass group_label= a label the pods to spread share, such as group_label='app', or match_labels= labels that select them (part 3 of metadata.labels["app.kubernetes.io/instance"]); labels present: app
    """
    check_qualified_name("topology_key", topology_key)
    check_int("max_skew", max_skew, minimum=1)
    check_choice("when_unsatisfiable", when_unsatisfiable, ("ScheduleAnyway", "DoNotSchedule"))
    selector, label = _pod_selector(match_labels, group_label)
    constraint = {
        "topologyKey": topology_key,
        "maxSkew": max_skew,
        "whenUnsatisfiable": when_unsatisfiable,
        **selector,
    }
    return _requiring(
        "spread",
        "spreads",
        append_at("spec.topologySpreadConstraints", constraint, unique=True),
        label,
    )


@recipe
def anti_affinity(
    topology_key: str = "kubernetes.io/hostname",
    required: bool = False,
    weight: int = 100,
    match_labels: Mapping[str, str] | None = None,
    group_label: str | None = None,
) -> Transform | Requiring:
    """Keep pods apart: no two of the job's pods in one ``topology_key`` domain.

    Sets ``spec.affinity.podAntiAffinity``: a required term with
    ``required=True``, else a preferred term of ``weight`` (1-100). The pods
    kept apart are those sharing this pod's value of label ``group_label``,
    through ``matchLabelKeys`` (honoured from Kubernetes 1.31; older clusters
    ignore it and keep apart every pod carrying the label): by default
    ``app.kubernetes.io/instance``, which torchx gives every pod of a job. A
    pod without that label is refused (a Deployment's pods, say: pass the
    label its template carries, such as ``group_label='app'``).
    ``match_labels`` selects the pods by fixed labels instead.

    >>> pod = anti_affinity(required=True, match_labels={"app": "trainer"})({"spec": {}})
    >>> pod["spec"]["affinity"]["podAntiAffinity"]
    {'requiredDuringSchedulingIgnoredDuringExecution': [{'topologyKey': 'kubernetes.io/hostname', 'labelSelector': {'matchLabels': {'app': 'trainer'}}}]}
    >>> web = {"metadata": {"labels": {"app": "web"}}, "spec": {}}
    >>> anti_affinity(required=True, group_label="app")(web)["spec"]["affinity"]["podAntiAffinity"]
    {'requiredDuringSchedulingIgnoredDuringExecution': [{'topologyKey': 'kubernetes.io/hostname', 'labelSelector': {'matchExpressions': [{'key': 'app', 'operator': 'Exists'}]}, 'matchLabelKeys': ['app']}]}
    >>> anti_affinity()(web)
    Traceback (most recent call last):
      ...
    combinators.errors.PathError: anti_affinity() keeps apart the pods sharing this pod's value of label 'app.kubernetes.io/instance' (torchx gives it to every pod of a job), and this pod has no label 'app.kubernetes.io/instance': pass group_label= a label the pods to keep apart share, such as group_label='app', or match_labels= labels that select them (part 3 of metadata.labels["app.kubernetes.io/instance"]); labels present: app
    """
    check_qualified_name("topology_key", topology_key)
    selector, label = _pod_selector(match_labels, group_label)
    term = {"topologyKey": topology_key, **selector}
    base = "spec.affinity.podAntiAffinity."
    if check_bool("required", required):
        body = append_at(base + "requiredDuringSchedulingIgnoredDuringExecution", term, unique=True)
    else:
        _check_weight(weight)
        body = append_at(
            base + "preferredDuringSchedulingIgnoredDuringExecution",
            {"weight": weight, "podAffinityTerm": term},
            unique=True,
        )
    return _requiring("anti_affinity", "keeps apart", body, label)


@recipe
def priority_class(name: str) -> Transform:
    """Give the pod a priority class (``spec.priorityClassName``).

    >>> priority_class("high")({"spec": {}})
    {'spec': {'priorityClassName': 'high'}}
    """
    check_nonempty_string("name", name)
    return replace_at("spec.priorityClassName", name)


@recipe
def scheduler_name(name: str) -> Transform:
    """Have the pod scheduled by the named scheduler (``spec.schedulerName``).

    >>> scheduler_name("default-scheduler")({"spec": {"schedulerName": "volcano"}})
    {'spec': {'schedulerName': 'default-scheduler'}}
    """
    check_nonempty_string("name", name)
    return replace_at("spec.schedulerName", name)


@recipe
def runtime_class(name: str) -> Transform:
    """Run the pod's containers with a runtime class (``spec.runtimeClassName``).

    >>> runtime_class("nvidia")({"spec": {}})
    {'spec': {'runtimeClassName': 'nvidia'}}
    """
    check_nonempty_string("name", name)
    return replace_at("spec.runtimeClassName", name)


KUEUE_QUEUE = "kueue.x-k8s.io/queue-name"
KUEUE_PRIORITY_CLASS = "kueue.x-k8s.io/priority-class"

KUEUE_WORKLOADS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "": ("Pod",),
        "batch": ("Job", "CronJob"),
        "jobset.x-k8s.io": ("JobSet",),
        "apps": ("Deployment", "StatefulSet"),
        "leaderworkerset.x-k8s.io": ("LeaderWorkerSet",),
        "workload.codeflare.dev": ("AppWrapper",),
        "kubeflow.org": ("PyTorchJob", "TFJob", "XGBoostJob", "PaddleJob", "JAXJob", "MPIJob"),
        "trainer.kubeflow.org": ("TrainJob",),
        "ray.io": ("RayJob", "RayCluster", "RayService"),
        "sparkoperator.k8s.io": ("SparkApplication",),
    }
)
"""The workloads Kueue queues, by API group (``""``: the core group): those of its job
integrations (Kueue's ``pkg/controller/jobs``), and a CronJob, whose Jobs it manages. Kueue
never reads :data:`KUEUE_QUEUE` on any other kind (a DaemonSet, a ReplicaSet, a Volcano Job),
so :func:`kueue_queue` refuses them."""

# Volcano's API groups: their jobs are queued by Volcano, in the queue their spec names
_VOLCANO_GROUPS = ("batch.volcano.sh", "flow.volcano.sh")


@dataclass(frozen=True)
class QueuedByKueue:
    """What :func:`kueue_queue` requires: a workload of a kind Kueue queues (:data:`KUEUE_WORKLOADS`).

    The workload API asks it about each workload the recipe is to label
    (:func:`transforms.kube.scopes.workload_checks`), by kind and API group;
    without an ``apiVersion``, by kind alone. A pod given as such (a TorchX
    pod, a Flyte pod template) is queued as itself, so on a pod it checks nothing.

    >>> QueuedByKueue().check_workload("Job", "batch/v1")
    >>> QueuedByKueue().check_workload("ReplicaSet", "apps/v1")
    Traceback (most recent call last):
      ...
    transforms.kube.scopes.UnsupportedWorkloadError: kueue_queue: Kueue does not manage a ReplicaSet; the label kueue.x-k8s.io/queue-name would not be read there, and the workload would never be queued (Kueue queues a Pod, Job, CronJob, JobSet, Deployment, StatefulSet, LeaderWorkerSet, AppWrapper, PyTorchJob, TFJob, XGBoostJob, PaddleJob, JAXJob, MPIJob, TrainJob, RayJob, RayCluster, RayService or SparkApplication); leave it out (--select, Selector)
    """

    recipe: str = "kueue_queue"

    def __call__(self, pod: Any) -> None:
        """Nothing to check: Kueue queues a pod by its own labels."""

    def check_workload(self, kind: str, api_version: str | None) -> None:
        """Raise an :class:`~transforms.kube.scopes.UnsupportedWorkloadError` unless Kueue
        queues a workload of ``kind`` in ``api_version``'s group."""
        group = None if api_version is None else api_group(api_version)
        if group is None:
            managed = any(kind in kinds for kinds in KUEUE_WORKLOADS.values())
        else:
            managed = kind in KUEUE_WORKLOADS.get(group, ())
        if managed:
            return
        supported = tuple(each for kinds in KUEUE_WORKLOADS.values() for each in kinds)
        what = a_kind(kind)
        if group is not None and kind in supported:  # a Volcano Job: Kueue queues batch's
            what += f" of {group or 'the core API group'}"
        volcano = (
            "; Volcano queues its jobs itself, in the queue their spec.queue names"
            if group in _VOLCANO_GROUPS
            else ""
        )
        raise UnsupportedWorkloadError(
            f"{self.recipe}: Kueue does not manage {what}; the label {KUEUE_QUEUE} would not "
            f"be read there, and the workload would never be queued{volcano} (Kueue queues "
            f"a {', '.join(supported[:-1])} or {supported[-1]}); leave it out (--select, "
            f"Selector)",
            kind=kind,
            api_version=api_version,
            supported=supported,
        )


@recipe
def kueue_queue(name: str, priority_class: str | None = None) -> Transform | Requiring:
    """Submit the workload to a Kueue local queue (label ``kueue.x-k8s.io/queue-name``).

    Kueue reads the label on the workload object, so it is set there (see
    :mod:`transforms.kube.scopes`): on a Job's, a JobSet's, a RayJob's, a
    PyTorchJob's, a LeaderWorkerSet's or a Deployment's own
    ``metadata.labels``, in a CronJob's ``spec.jobTemplate.metadata.labels``
    (which its Jobs get), on the AppWrapper around what it wraps; on the pod
    itself for a plain pod (a TorchX pod, a ``kind: Pod``, a Flyte pod
    template). The pod templates of a workload are left as they are. A
    workload of a kind Kueue does not queue (a DaemonSet, a ReplicaSet, a
    Volcano Job: :data:`KUEUE_WORKLOADS`) is refused, naming its kind, as the
    label would never be read there.
    ``priority_class`` names a Kueue WorkloadPriorityClass (label
    ``kueue.x-k8s.io/priority-class``, set in the same place), which orders
    the workload in its queue; the pods' own ``priorityClassName``
    (:func:`priority_class`) is another thing, and left alone.

    >>> kueue_queue("team-a")({"metadata": {"labels": {}}})
    {'metadata': {'labels': {'kueue.x-k8s.io/queue-name': 'team-a'}}}
    >>> from transforms.kube import apply_to_workload
    >>> job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi"},
    ...        "spec": {"template": {"spec": {"containers": [{"name": "pi"}]}}}}
    >>> queued = apply_to_workload(kueue_queue("team-a", priority_class="high"), job)
    >>> queued["metadata"]["labels"], queued["spec"] is job["spec"]
    ({'kueue.x-k8s.io/queue-name': 'team-a', 'kueue.x-k8s.io/priority-class': 'high'}, True)
    >>> apply_to_workload(kueue_queue("team-a"), {**job, "apiVersion": "apps/v1",
    ...                                          "kind": "DaemonSet"})
    Traceback (most recent call last):
      ...
    transforms.kube.scopes.UnsupportedWorkloadError: kueue_queue: Kueue does not manage a DaemonSet; ... [in DaemonSet/pi metadata (metadata)]
    """
    labels = {KUEUE_QUEUE: check_label_value("name", check_nonempty_string("name", name))}
    if priority_class is not None:
        labels[KUEUE_PRIORITY_CLASS] = check_label_value(
            "priority_class", check_nonempty_string("priority_class", priority_class)
        )
    edits = [
        replace_at(Path([Key("metadata"), Key("labels"), Key(key)]), value)
        for key, value in labels.items()
    ]
    return Requiring(workload_level(chain(*edits)), (QueuedByKueue(),))
