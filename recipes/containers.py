"""Containers: environment, resources, security, sidecars and init containers.

Recipes that act on a container take ``container=None`` (the main container,
``spec.containers[0]``), a container name, or ``"*"`` for every container;
see :mod:`recipes._target`. The container must exist.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from combinators import (
    Key,
    Match,
    Path,
    Transform,
    append_at,
    chain,
    for_each,
    identity,
    remove_at,
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
    check_dns_label,
    check_int,
    check_nonempty_string,
    check_qualified_name,
    merge_kwargs,
)
from recipes._clashes import CONTAINER_LISTS, ContainerNameFree
from recipes._recipe import recipe
from recipes._requires import Requiring
from recipes._target import ContainerTarget, on_container
from recipes.env import ConfigMapKey, EnvValue, FieldRef, SecretKey, env_var
from transforms.kube.quantity import check_quantity, parse_quantity

__all__ = (
    "add_env",
    "add_env_from_secret",
    "add_env_from_config_map",
    "add_env_from_field",
    "resources",
    "image_pull_policy",
    "working_dir",
    "security_context",
    "add_capabilities",
    "sidecar",
    "init_container",
    "set_env",
    "set_resources",
    "resource_map",
)

PULL_POLICIES = ("Always", "IfNotPresent", "Never")


def set_env(variables: Mapping[str, Any]) -> Transform:
    """Set env vars by name in a container (paths relative to it): each replaces
    the variable of that name, or is appended; so ``value`` and ``valueFrom``
    never mix and nothing is duplicated."""
    return _set_env_vars([env_var(name, value) for name, value in variables.items()])


def _set_env_vars(variables: Sequence[dict[str, Any]]) -> Transform:
    result = chain(
        *(
            replace_at(Path([Key("env"), Match([("name", variable["name"])])]), variable)
            for variable in variables
        )
    )
    assert isinstance(result, Transform)
    return result


@recipe
def add_env(
    variables: Mapping[str, EnvValue] | None = None,
    /,
    *,
    container: ContainerTarget = None,
    **values: EnvValue,
) -> Transform:
    """Set environment variables on a container (``containers[].env``).

    Values are text, numbers or booleans (written as text), or a source:
    :class:`~recipes.env.SecretKey`, :class:`~recipes.env.ConfigMapKey`,
    :class:`~recipes.env.FieldRef`, :class:`~recipes.env.ResourceFieldRef`,
    or a ``valueFrom`` map (the YAML spelling). Names that are not Python
    identifiers, and a variable named ``container``, go in the positional
    map. A variable already there, whichever recipe set it, is replaced,
    never duplicated: env names are one namespace per container (of two,
    the API server keeps the last), so setting one merges what the recipe says.

    >>> pod = {"spec": {"containers": [{"name": "t", "env": [{"name": "NCCL_DEBUG", "value": "WARN"}]}]}}
    >>> add_env(NCCL_DEBUG="INFO", OMP_NUM_THREADS=4)(pod)["spec"]["containers"][0]["env"]
    [{'name': 'NCCL_DEBUG', 'value': 'INFO'}, {'name': 'OMP_NUM_THREADS', 'value': '4'}]
    >>> from recipes.env import SecretKey
    >>> add_env(HF_TOKEN=SecretKey("hf", "token"))(pod)["spec"]["containers"][0]["env"][1]
    {'name': 'HF_TOKEN', 'valueFrom': {'secretKeyRef': {'name': 'hf', 'key': 'token'}}}
    """
    merged = merge_kwargs("variables", variables, values)
    if not merged:
        bad_value("variables", merged, "variables: needs at least one variable")
    return on_container(container, set_env(merged))


@recipe
def add_env_from_secret(
    name: str, secret: str, key: str, optional: bool = False, container: ContainerTarget = None
) -> Transform:
    """Set env var ``name`` from ``key`` of a Secret (``env[].valueFrom.secretKeyRef``).

    A variable ``name`` already in the container is replaced, never
    duplicated: env names are one namespace per container.

    >>> pod = {"spec": {"containers": [{"name": "t"}]}}
    >>> add_env_from_secret("HF_TOKEN", "hf", "token")(pod)["spec"]["containers"][0]["env"]
    [{'name': 'HF_TOKEN', 'valueFrom': {'secretKeyRef': {'name': 'hf', 'key': 'token'}}}]
    """
    check_nonempty_string("name", name)
    check_nonempty_string("secret", secret)
    check_nonempty_string("key", key)
    check_bool("optional", optional)
    return on_container(container, set_env({name: SecretKey(secret, key, optional)}))


@recipe
def add_env_from_config_map(
    name: str, config_map: str, key: str, optional: bool = False, container: ContainerTarget = None
) -> Transform:
    """Set env var ``name`` from ``key`` of a ConfigMap (``env[].valueFrom.configMapKeyRef``).

    A variable ``name`` already in the container is replaced, never
    duplicated: env names are one namespace per container.

    >>> pod = {"spec": {"containers": [{"name": "t"}]}}
    >>> add_env_from_config_map("LEVEL", "settings", "level")(pod)["spec"]["containers"][0]["env"]
    [{'name': 'LEVEL', 'valueFrom': {'configMapKeyRef': {'name': 'settings', 'key': 'level'}}}]
    """
    check_nonempty_string("name", name)
    check_nonempty_string("config_map", config_map)
    check_nonempty_string("key", key)
    check_bool("optional", optional)
    return on_container(container, set_env({name: ConfigMapKey(config_map, key, optional)}))


@recipe
def add_env_from_field(name: str, field_path: str, container: ContainerTarget = None) -> Transform:
    """Set env var ``name`` from a pod field, via the downward API (``env[].valueFrom.fieldRef``).

    A variable ``name`` already in the container is replaced, never
    duplicated: env names are one namespace per container.

    >>> pod = {"spec": {"containers": [{"name": "t"}]}}
    >>> add_env_from_field("POD_IP", "status.podIP")(pod)["spec"]["containers"][0]["env"]
    [{'name': 'POD_IP', 'valueFrom': {'fieldRef': {'fieldPath': 'status.podIP'}}}]
    """
    check_nonempty_string("name", name)
    check_nonempty_string("field_path", field_path)
    return on_container(container, set_env({name: FieldRef(field_path)}))


def resource_map(argument: str, amounts: Mapping[str, Any] | None) -> dict[str, str]:
    """Checked resource names and quantities, as text.

    >>> resource_map("limits", {"cpu": 2, "memory": "8Gi"})
    {'cpu': '2', 'memory': '8Gi'}
    """
    checked: dict[str, str] = {}
    for name, amount in merge_kwargs(argument, amounts, {}).items():
        check_qualified_name(f"{argument} resource name", name)
        checked[name] = check_quantity(f"{argument}[{short_repr(name)}]", amount)
    return checked


def set_resources(requests: Mapping[str, str], limits: Mapping[str, str]) -> Transform:
    """Merge requests and limits into a container's ``resources`` (relative paths)."""
    wanted: dict[str, Any] = {}
    if requests:
        wanted["requests"] = dict(requests)
    if limits:
        wanted["limits"] = dict(limits)
    return upsert("resources", wanted)


def _per_resource(name: str) -> str:
    return f"requests={{{short_repr(name)}: ...}} or limits={{{short_repr(name)}: ...}}"


@recipe(
    synonyms={
        "cpu": _per_resource("cpu"),
        "memory": _per_resource("memory"),
        "ephemeral_storage": _per_resource("ephemeral-storage"),
    }
)
def resources(
    requests: Mapping[str, Any] | None = None,
    limits: Mapping[str, Any] | None = None,
    container: ContainerTarget = None,
) -> Transform:
    """Set resource requests and limits (``containers[].resources``), merging by resource name.

    Quantities are checked (``'8Gi'``, ``'500m'``, ``4``); a request above its
    limit is refused.

    >>> pod = {"spec": {"containers": [{"name": "t", "resources": {"limits": {"cpu": "8"}}}]}}
    >>> resources(limits={"memory": "64Gi"}, requests={"memory": "60Gi"})(pod)["spec"]["containers"][0]["resources"]
    {'limits': {'cpu': '8', 'memory': '64Gi'}, 'requests': {'memory': '60Gi'}}
    >>> resources(requests={"memory": "64GB"})
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: resources(): requests['memory'] must be a Kubernetes quantity such as '1Gi', '500m' or '2', got '64GB'
    """
    wanted_requests = resource_map("requests", requests)
    wanted_limits = resource_map("limits", limits)
    if not wanted_requests and not wanted_limits:
        bad_value("requests", requests, "requests: needs requests or limits")
    for name, amount in wanted_requests.items():
        limit = wanted_limits.get(name)
        if limit is not None and parse_quantity(amount) > parse_quantity(limit):
            bad_value(
                f"requests[{short_repr(name)}]",
                amount,
                f"requests[{short_repr(name)}] = {short_repr(amount)} is above "
                f"limits[{short_repr(name)}] = {short_repr(limit)}",
            )
    return on_container(container, set_resources(wanted_requests, wanted_limits))


@recipe
def image_pull_policy(policy: str, container: ContainerTarget = None) -> Transform:
    """When to pull the image (``containers[].imagePullPolicy``): Always, IfNotPresent or Never.

    >>> image_pull_policy("Always", container="*")({"spec": {"containers": [{"name": "a"}, {"name": "b"}]}})
    {'spec': {'containers': [{'name': 'a', 'imagePullPolicy': 'Always'}, {'name': 'b', 'imagePullPolicy': 'Always'}]}}
    """
    check_choice("policy", policy, PULL_POLICIES)
    return on_container(container, replace_at("imagePullPolicy", policy))


@recipe
def working_dir(path: str, container: ContainerTarget = None) -> Transform:
    """Start the container in ``path`` (``containers[].workingDir``).

    >>> working_dir("/workspace")({"spec": {"containers": [{"name": "t"}]}})
    {'spec': {'containers': [{'name': 't', 'workingDir': '/workspace'}]}}
    """
    check_nonempty_string("path", path)
    return on_container(container, replace_at("workingDir", path))


@recipe
def security_context(
    *,
    run_as_user: int | None = None,
    run_as_group: int | None = None,
    run_as_non_root: bool | None = None,
    privileged: bool | None = None,
    read_only_root_filesystem: bool | None = None,
    allow_privilege_escalation: bool | None = None,
    container: ContainerTarget = None,
) -> Transform:
    """Merge settings into a container's ``securityContext``; unset ones are left alone.

    >>> pod = {"spec": {"containers": [{"name": "t", "securityContext": {}}]}}
    >>> security_context(run_as_user=1000, run_as_non_root=True)(pod)["spec"]["containers"][0]
    {'name': 't', 'securityContext': {'runAsUser': 1000, 'runAsNonRoot': True}}
    """
    wanted: dict[str, Any] = {}
    for argument, key, value in (
        ("run_as_user", "runAsUser", run_as_user),
        ("run_as_group", "runAsGroup", run_as_group),
    ):
        if value is not None:
            wanted[key] = check_int(argument, value)
    for argument, key, flag in (
        ("run_as_non_root", "runAsNonRoot", run_as_non_root),
        ("privileged", "privileged", privileged),
        ("read_only_root_filesystem", "readOnlyRootFilesystem", read_only_root_filesystem),
        ("allow_privilege_escalation", "allowPrivilegeEscalation", allow_privilege_escalation),
    ):
        if flag is not None:
            wanted[key] = check_bool(argument, flag)
    if not wanted:
        bad_value(
            "settings",
            None,
            "settings: needs at least one of run_as_user, run_as_group, "
            "run_as_non_root, privileged, read_only_root_filesystem, "
            "allow_privilege_escalation",
        )
    if wanted.get("privileged") and wanted.get("allowPrivilegeEscalation") is False:
        bad_value(
            "privileged", True, "privileged=True cannot go with allow_privilege_escalation=False"
        )
    return on_container(container, upsert("securityContext", wanted))


@recipe
def add_capabilities(
    capabilities: Sequence[str] | str, container: ContainerTarget = None
) -> Transform:
    """Add Linux capabilities (``containers[].securityContext.capabilities.add``), once each.

    Names are written without ``CAP_``, as Kubernetes expects: ``IPC_LOCK``,
    ``SYS_PTRACE``, ``SYS_NICE``.

    >>> add_capabilities(["IPC_LOCK", "SYS_NICE"])({"spec": {"containers": [{"name": "t"}]}})
    {'spec': {'containers': [{'name': 't', 'securityContext': {'capabilities': {'add': ['IPC_LOCK', 'SYS_NICE']}}}]}}
    >>> add_capabilities("CAP_IPC_LOCK")
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: add_capabilities(): capabilities: write 'IPC_LOCK' without the CAP_ prefix, got 'CAP_IPC_LOCK'
    """
    if not isinstance(capabilities, (str, Sequence)):
        bad_type("capabilities", capabilities, "a capability name or a list of them")
    listed = [capabilities] if isinstance(capabilities, str) else list(capabilities)
    if not listed:
        bad_value("capabilities", capabilities, "capabilities: needs at least one capability")
    for capability in listed:
        check_nonempty_string("capabilities", capability)
        if capability.upper().startswith("CAP_"):
            bad_value(
                "capabilities",
                capability,
                f"capabilities: write "
                f"{short_repr(capability[4:].upper())} without the CAP_ prefix, got {short_repr(capability)}",
            )
        if not capability.replace("_", "").isalnum() or capability.upper() != capability:
            bad_value(
                "capabilities",
                capability,
                f"capabilities must be upper-case names "
                f"such as 'IPC_LOCK', got {short_repr(capability)}",
            )
    return on_container(
        container, append_at("securityContext.capabilities.add", *listed, unique=True)
    )


def _container_spec(
    name: str,
    image: str,
    command: Sequence[str] | None,
    args: Sequence[str] | None,
    env: Mapping[str, EnvValue] | None,
    requests: Mapping[str, Any] | None,
    limits: Mapping[str, Any] | None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "name": check_dns_label("name", name),
        "image": check_nonempty_string("image", image),
    }
    for argument, words in (("command", command), ("args", args)):
        if words is not None:
            if (
                isinstance(words, str)
                or not isinstance(words, Sequence)
                or not all(isinstance(word, str) for word in words)
            ):
                bad_type(argument, words, "a list of strings")
            spec[argument] = list(words)
    variables = merge_kwargs("env", env, {})
    if variables:
        spec["env"] = [env_var(key, value) for key, value in variables.items()]
    wanted_requests = resource_map("requests", requests)
    wanted_limits = resource_map("limits", limits)
    if wanted_requests or wanted_limits:
        spec["resources"] = {
            key: value
            for key, value in (("requests", wanted_requests), ("limits", wanted_limits))
            if value
        }
    return spec


@recipe
def sidecar(
    name: str,
    image: str,
    command: Sequence[str] | None = None,
    args: Sequence[str] | None = None,
    env: Mapping[str, EnvValue] | None = None,
    requests: Mapping[str, Any] | None = None,
    limits: Mapping[str, Any] | None = None,
    native: bool = False,
    replace: bool = False,
) -> Transform | Requiring:
    """Run a helper container next to the main one (appended to ``spec.containers``).

    With ``native=True`` it is a Kubernetes native sidecar instead (1.29+):
    an init container with ``restartPolicy: Always``, started before and
    stopped after the main container, so it never keeps a finished job alive.

    Container names are unique across ``containers``, ``initContainers``
    and ``ephemeralContainers``. A container of this name where this one
    goes, running the same image, command and args, is this sidecar: its
    ``env`` and ``resources`` are merged (by name), so applying twice adds it
    once. Any other container of this name, in any of the lists, is refused
    (:class:`~recipes._clashes.NameClashError`) unless ``replace=True``,
    which replaces it, or moves it to where this one goes.

    >>> pod = {"spec": {"containers": [{"name": "trainer-0"}]}}
    >>> sidecar("proxy", "envoy:1.30", args=["--log-level", "warn"])(pod)["spec"]["containers"][1]
    {'name': 'proxy', 'image': 'envoy:1.30', 'args': ['--log-level', 'warn']}
    >>> sidecar("proxy", "envoy:1.30", native=True)(pod)["spec"]["initContainers"]
    [{'name': 'proxy', 'image': 'envoy:1.30', 'restartPolicy': 'Always'}]
    >>> sidecar("trainer-0", "envoy:1.30")(pod)
    Traceback (most recent call last):
      ...
    recipes._clashes.NameClashError: sidecar() adds container 'trainer-0' to spec.containers, and another container 'trainer-0' is there already (image (none), this one 'envoy:1.30'): give this one another name, or pass replace=True to replace that one (in spec.containers[name=trainer-0])
    """
    spec = _container_spec(name, image, command, args, env, requests, limits)
    if check_bool("native", native):
        spec["restartPolicy"] = "Always"
    return _add_container(
        "sidecar",
        "initContainers" if native else "containers",
        spec,
        check_bool("replace", replace),
    )


@recipe
def init_container(
    name: str,
    image: str,
    command: Sequence[str] | None = None,
    args: Sequence[str] | None = None,
    env: Mapping[str, EnvValue] | None = None,
    requests: Mapping[str, Any] | None = None,
    limits: Mapping[str, Any] | None = None,
    replace: bool = False,
) -> Transform | Requiring:
    """Run a container to completion before the others start (``spec.initContainers``).

    Init containers run in the order added. An init container of this name
    running the same image, command and args is this one: its ``env`` and
    ``resources`` are merged (by name), so applying twice adds it once. Any
    other container of this name (in ``containers``, ``initContainers`` or
    ``ephemeralContainers``: names are unique across them) is refused
    (:class:`~recipes._clashes.NameClashError`) unless ``replace=True``,
    which replaces it, or moves it here.

    >>> init_container("fetch", "busybox", command=["sh", "-c", "echo ready"])({"spec": {}})
    {'spec': {'initContainers': [{'name': 'fetch', 'image': 'busybox', 'command': ['sh', '-c', 'echo ready']}]}}
    """
    spec = _container_spec(name, image, command, args, env, requests, limits)
    return _add_container("init_container", "initContainers", spec, check_bool("replace", replace))


_IDENTITY_FIELDS = ("image", "command", "args", "restartPolicy")
"""What makes a container the one a recipe adds: the rest (env, resources) it merges."""


def _add_container(
    recipe: str, where: str, spec: dict[str, Any], replace: bool
) -> Transform | Requiring:
    """Add container ``spec`` to ``spec.<where>``: merged into the same container there,
    refusing one of its name elsewhere, or (``replace``) replacing whatever holds the name."""
    name = spec["name"]
    target = Path([Key("spec"), Key(where), Match([("name", name)])])
    if replace:
        others = [
            remove_at(Path([Key("spec"), Key(field), Match([("name", name)])]))
            for field in CONTAINER_LISTS
            if field != where
        ]
        replaced = chain(*others, replace_at(target, spec))
        assert isinstance(replaced, Transform)
        return replaced
    merge: list[Transform] = []
    if "env" in spec:
        merge.append(_set_env_vars(spec["env"]))
    if "resources" in spec:
        merge.append(
            set_resources(
                spec["resources"].get("requests", {}), spec["resources"].get("limits", {})
            )
        )
    into = for_each(target, chain(*merge)) if merge else identity
    identity_of = tuple((field, _frozen(spec.get(field))) for field in _IDENTITY_FIELDS)
    return Requiring(
        when(target, into, otherwise=replace_at(target, spec)),
        (ContainerNameFree(recipe, name, where, identity_of),),
    )


def _frozen(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value
