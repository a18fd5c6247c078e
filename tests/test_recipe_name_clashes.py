"""Recipes that add a named item, on pods that already use the name.

Kubernetes wants a container's name unique across ``containers``,
``initContainers`` and ``ephemeralContainers``, a volume's name unique in the
pod and a mount path unique in a container. Each recipe that adds one of them
either merges into what holds the name (its own item: applying twice equals
applying once) or refuses, with a :class:`NameClashError` that names the
recipe, the name and where it is used; ``replace=True`` replaces deliberately.
Env names are one namespace per container, and the env recipes set them:
last wins, never duplicated.

:func:`assert_real_clash` is the oracle the property tests use too: a refusal
is right only where the recipe, applied without what holds the name, writes
the name where putting the old item back would hold it twice.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

import recipes
from combinators import Path, append_at, chain, get_at, path, remove_at, select
from combinators.data import strict_equal
from combinators.transform import Compose
from recipes._clashes import CONTAINER_LISTS, NameClashError
from recipes._recipe import Recipe
from transforms.testing import assert_idempotent, assert_pure, assert_valid_pod

MAIN = {"name": "trainer-0", "image": "ghcr.io/example/trainer:1.0"}
ABSENT = object()


# --- the oracle ------------------------------------------------------------------------------


def _key_field(parent: Path) -> str:
    return "mountPath" if str(parent).endswith("volumeMounts") else "name"


def _holders(pod: Any, parent: Path) -> list[Any]:
    """The items sharing one namespace with the list ``parent``: for a container list, all
    three; else that list."""
    if str(parent) in {f"spec.{field}" for field in CONTAINER_LISTS}:
        return [
            item for field in CONTAINER_LISTS for item in get_at(pod, f"spec.{field}", default=[])
        ]
    return [item for found in select(pod, parent) for item in found]


def assert_real_clash(step: Recipe, pod: Any, err: NameClashError, depth: int = 0) -> None:
    """``step`` refused ``pod`` with ``err``, rightly and saying so.

    The error names the recipe, the name and where the pod uses it, and
    carries what is there; without that item the recipe applies, writing
    the name where the item, put back, would hold it a second time (a pod the
    API server refuses) and writing something other than the item (else the
    recipe should have merged into it).
    """
    message = str(err)
    assert err.recipe == step.name and message.startswith(f"{step.name}() "), message
    assert f"{err.name!r}" in message or f" {err.name} " in message, message
    assert f"(in {err.path})" in message, message
    existing = get_at(pod, err.path)
    assert strict_equal(existing, err.existing)
    parent = Path(err.path.parts[:-1])
    field = _key_field(parent)
    assert existing[field] == err.name
    without = remove_at(err.path)(pod)
    try:
        result = step(without)
    except NameClashError as again:  # a second item holds the name as well
        assert depth < 3 and again.path != err.path, again
        assert_real_clash(step, without, again, depth + 1)
        return
    assert not strict_equal(get_at(result, err.path, default=ABSENT), existing), (
        f"{step!r} refused an item it writes itself: {existing}"
    )
    back = append_at(parent, existing)(result)
    held = [item.get(field) for item in _holders(back, parent)]
    assert held.count(err.name) >= 2, f"no clash: {err.name!r} held once in {held}"


def assert_refused_for_a_real_clash(overlay: Any, pod: Any, err: NameClashError) -> int:
    """The overlay's refusal is one of its recipes meeting a real name clash; the index of the
    step that refused."""
    steps = overlay.steps if isinstance(overlay, Compose) else (overlay,)
    at = pod
    for index, step in enumerate(steps):
        try:
            at = step(at)
        except NameClashError as found:
            assert isinstance(step, Recipe), step
            assert (found.path, found.name, found.recipe) == (err.path, err.name, err.recipe)
            assert_real_clash(step, at, found)
            return index
    raise AssertionError(f"{overlay!r} refused ({err}), but applied step by step it does not")


# --- containers: sidecar, native sidecar, init_container -----------------------------------

ADDERS: dict[str, Callable[..., Recipe]] = {
    "sidecar": lambda **more: recipes.sidecar(
        "proxy", "envoyproxy/envoy:v1.30", env={"A": 1}, limits={"memory": "256Mi"}, **more
    ),
    "native-sidecar": lambda **more: recipes.sidecar(
        "proxy", "envoyproxy/envoy:v1.30", native=True, **more
    ),
    "init_container": lambda **more: recipes.init_container(
        "proxy", "busybox:1.36", command=["sh", "-c", "true"], **more
    ),
}
WHERE = {
    "sidecar": "containers",
    "native-sidecar": "initContainers",
    "init_container": "initContainers",
}


def _own_container(adder: str) -> dict[str, Any]:
    """The container the recipe adds, as it writes it."""
    found: dict[str, Any] = get_at(
        ADDERS[adder]()({"spec": {"containers": [MAIN]}}), f"spec.{WHERE[adder]}[name=proxy]"
    )
    return found


def _pod_holding(field: str, container: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [MAIN]}
    spec[field] = [*spec.get(field, []), container]
    return {"spec": spec}


@pytest.mark.parametrize(
    ("adder", "field", "holder"),
    [
        (adder, field, holder)
        for adder in sorted(ADDERS)
        for field in CONTAINER_LISTS
        for holder in ("other", "same")
        # the recipe's own container where it goes is merged into (a test below)
        if field != WHERE[adder] or holder == "other"
    ],
)
def test_a_container_name_held_elsewhere_or_by_another_container_is_refused(
    adder: str, field: str, holder: str
) -> None:
    held = (
        {"name": "proxy", "image": "example/other:2"}
        if holder == "other"
        else _own_container(adder)
    )
    pod = _pod_holding(field, held)
    before = copy.deepcopy(pod)
    recipe = ADDERS[adder]()
    with pytest.raises(NameClashError) as caught:
        recipe(pod)
    err = caught.value
    assert pod == before
    assert isinstance(err, ValueError)
    assert str(err.path) == f"spec.{field}[name=proxy]" and err.name == "proxy"
    message = str(err)
    assert f"adds container 'proxy' to spec.{WHERE[adder]}" in message
    assert "replace=True" in message
    if field != WHERE[adder]:
        assert f"in spec.{field} already" in message
    assert_real_clash(recipe, pod, err)


@pytest.mark.parametrize("field", CONTAINER_LISTS)
@pytest.mark.parametrize("adder", sorted(ADDERS))
def test_replace_puts_the_container_where_the_recipe_says_and_nowhere_else(
    adder: str, field: str
) -> None:
    pod = _pod_holding(field, {"name": "proxy", "image": "example/other:2"})
    recipe = ADDERS[adder](replace=True)
    new = assert_idempotent(recipe, assert_pure(recipe, pod))
    names = [
        (list_name, container["name"])
        for list_name in CONTAINER_LISTS
        for container in new["spec"].get(list_name, [])
    ]
    assert names.count((WHERE[adder], "proxy")) == 1
    assert [name for _, name in names].count("proxy") == 1
    assert get_at(new, f"spec.{WHERE[adder]}[name=proxy]") == _own_container(adder)
    assert_valid_pod(new)


@pytest.mark.parametrize("adder", sorted(ADDERS))
def test_the_recipes_own_container_is_merged_into_keeping_what_others_wrote(adder: str) -> None:
    own = _own_container(adder)
    grown = {
        **own,
        "imagePullPolicy": "Always",
        "env": [{"name": "B", "value": "2"}],
        "resources": {"limits": {"cpu": "1"}},
    }
    pod = _pod_holding(WHERE[adder], grown)
    recipe = ADDERS[adder]()
    new = assert_idempotent(recipe, assert_pure(recipe, pod))
    merged = get_at(new, f"spec.{WHERE[adder]}[name=proxy]")
    assert merged["imagePullPolicy"] == "Always"
    assert {"name": "B", "value": "2"} in merged["env"]
    for variable in own.get("env", []):
        assert variable in merged["env"]
    for kind, amounts in own.get("resources", {}).items():
        assert merged["resources"][kind].items() >= amounts.items()
    assert merged["resources"]["limits"]["cpu"] == "1"
    assert recipe(new) is new
    assert_valid_pod(new)


def test_the_chain_the_property_test_found_is_refused_naming_both_lists() -> None:
    # the issue's example: a regular and a native sidecar of one name
    pod = {"spec": {"containers": [dict(MAIN)]}}
    overlay = chain(
        recipes.sidecar("proxy-sidecar", "ghcr.io/example/trainer:1.0"),
        recipes.sidecar("proxy-sidecar", "ghcr.io/example/trainer:1.0", native=True),
    )
    with pytest.raises(NameClashError) as caught:
        overlay(pod)
    assert str(caught.value) == (
        "sidecar() adds container 'proxy-sidecar' to spec.initContainers, and the pod has a "
        "container 'proxy-sidecar' in spec.containers already (image "
        "'ghcr.io/example/trainer:1.0'): container names are unique across containers, "
        "initContainers and ephemeralContainers; give this one another name, or pass "
        "replace=True to replace that one (in spec.containers[name=proxy-sidecar]) [in step 2 "
        "of 2: sidecar('proxy-sidecar', 'ghcr.io/example/trainer:1.0', native=True)]"
    )
    assert assert_refused_for_a_real_clash(overlay, pod, caught.value) == 1
    with pytest.raises(NameClashError):  # fused, from the second call on: the same
        overlay(pod)
    moved = chain(
        recipes.sidecar("proxy-sidecar", "ghcr.io/example/trainer:1.0"),
        recipes.sidecar("proxy-sidecar", "ghcr.io/example/trainer:1.0", native=True, replace=True),
    )(pod)
    assert [c["name"] for c in moved["spec"]["containers"]] == ["trainer-0"]
    assert [c["name"] for c in moved["spec"]["initContainers"]] == ["proxy-sidecar"]
    assert_valid_pod(moved)


def test_a_sidecar_named_as_the_main_container_is_refused_not_swapped_in() -> None:
    pod = {"spec": {"containers": [dict(MAIN)]}}
    with pytest.raises(
        NameClashError,
        match="another container 'trainer-0' is there already "
        r"\(image 'ghcr.io/example/trainer:1.0', this one 'envoy:1'\)",
    ):
        recipes.sidecar("trainer-0", "envoy:1")(pod)


# --- volumes and mount paths ---------------------------------------------------------------

# recipe -> (the recipe, its volume's name, its mount path, a source of another kind, a
# source of the same kind and thing with other settings)
MOUNTERS: dict[str, tuple[Callable[..., Recipe], str, str, dict[str, Any], dict[str, Any]]] = {
    "mount_pvc": (
        lambda **more: recipes.mount_pvc("datasets", "/data", read_only=True, **more),
        "datasets",
        "/data",
        {"emptyDir": {}},
        {"persistentVolumeClaim": {"claimName": "datasets"}},
    ),
    "mount_secret": (
        lambda **more: recipes.mount_secret("gcs-key", "/secrets/gcs", **more),
        "gcs-key",
        "/secrets/gcs",
        {"secret": {"secretName": "another-key"}},
        {"secret": {"secretName": "gcs-key", "defaultMode": 0o400}},
    ),
    "mount_config_map": (
        lambda **more: recipes.mount_config_map("train-config", "/etc/train", **more),
        "train-config",
        "/etc/train",
        {"configMap": {"name": "other"}},
        {"configMap": {"name": "train-config", "optional": True}},
    ),
    "mount_empty_dir": (
        lambda **more: recipes.mount_empty_dir("scratch", "/scratch", size="100Gi", **more),
        "scratch",
        "/scratch",
        {"hostPath": {"path": "/scratch"}},
        {"emptyDir": {"medium": "Memory"}},
    ),
    "mount_host_path": (
        lambda **more: recipes.mount_host_path("/mnt/nvme", "/nvme", type="Directory", **more),
        "host-mnt-nvme",
        "/nvme",
        {"hostPath": {"path": "/mnt/other"}},
        {"hostPath": {"path": "/mnt/nvme"}},
    ),
    "shm_size": (
        lambda **more: recipes.shm_size("64Gi", **more),
        "dshm",
        "/dev/shm",
        {"hostPath": {"path": "/dev/shm"}},
        {"emptyDir": {}},
    ),
}
VOLUME_ARGUMENT = {"mount_empty_dir": "name=", "shm_size": None}
GCS_FUSE = {
    "csi": {"driver": "gcsfuse.csi.storage.gke.io", "volumeAttributes": {"bucketName": "team-data"}}
}


def _pod(
    volumes: list[dict[str, Any]], mounts: list[dict[str, Any]], *more: dict[str, Any]
) -> dict[str, Any]:
    return {"spec": {"containers": [{**MAIN, "volumeMounts": mounts}, *more], "volumes": volumes}}


@pytest.mark.parametrize("name", sorted(MOUNTERS))
def test_a_volume_name_held_by_another_source_is_refused(name: str) -> None:
    make, volume, _, other, _ = MOUNTERS[name]
    pod = _pod([{"name": volume, **other}], [{"name": volume, "mountPath": "/elsewhere"}])
    recipe = make()
    with pytest.raises(NameClashError) as caught:
        recipe(pod)
    err = caught.value
    assert str(err.path) == f"spec.volumes[name={volume}]" and err.name == volume
    message = str(err)
    assert f"adds volume {volume!r}" in message
    assert "mounted at /elsewhere in trainer-0" in message  # what would mount it instead
    assert next(iter(other)) in message  # the other source, by kind
    argument = VOLUME_ARGUMENT.get(name, "volume=")
    assert (
        (f"pass {argument} another name" in message)
        if argument
        else ("pass replace=True" in message)
    )
    assert_real_clash(recipe, pod, err)
    replaced = assert_idempotent(make(replace=True), assert_pure(make(replace=True), pod))
    assert get_at(replaced, f"spec.volumes[name={volume}]") == get_at(
        recipe(_pod([], [])), f"spec.volumes[name={volume}]"
    )
    assert_valid_pod(replaced)


@pytest.mark.parametrize("name", sorted(MOUNTERS))
def test_a_volume_of_the_same_source_takes_the_recipes_settings(name: str) -> None:
    make, volume, mount_path, _, same = MOUNTERS[name]
    pod = _pod([{"name": volume, **same}], [{"name": volume, "mountPath": mount_path}])
    recipe = make()
    new = assert_idempotent(recipe, assert_pure(recipe, pod))
    alone = recipe(_pod([], []))
    assert new["spec"]["volumes"] == alone["spec"]["volumes"]
    assert (
        new["spec"]["containers"][0]["volumeMounts"]
        == alone["spec"]["containers"][0]["volumeMounts"]
    )
    assert_valid_pod(new)


@pytest.mark.parametrize("name", sorted(MOUNTERS))
def test_a_mount_of_another_volume_at_the_path_is_refused_naming_it_and_its_volume(
    name: str,
) -> None:
    make, volume, mount_path, _, _ = MOUNTERS[name]
    pod = _pod(
        [{"name": "team-data", **GCS_FUSE}], [{"name": "team-data", "mountPath": mount_path}]
    )
    recipe = make()
    with pytest.raises(NameClashError) as caught:
        recipe(pod)
    err = caught.value
    assert (
        str(err.path) == (f"spec.containers[name=trainer-0].volumeMounts[mountPath={mount_path}]")
        and err.name == mount_path
    )
    message = str(err)
    assert (
        f"mounts volume {volume!r} at {mount_path} in container 'trainer-0', which mounts "
        f"volume 'team-data' (csi gcsfuse.csi.storage.gke.io) there already"
    ) in message
    assert "replace=True" in message and "drop volume 'team-data'" in message
    assert (
        ("pass replace=True" in message)
        if name == "shm_size"
        else ("pass mount_path= another path" in message)
    )
    assert_real_clash(recipe, pod, err)


@pytest.mark.parametrize("name", sorted(MOUNTERS))
def test_replace_replaces_the_mount_and_drops_the_volume_it_leaves_unused(name: str) -> None:
    make, volume, mount_path, _, _ = MOUNTERS[name]
    pod = _pod(
        [{"name": "team-data", **GCS_FUSE}, {"name": "logs", "emptyDir": {}}],
        [{"name": "team-data", "mountPath": mount_path}, {"name": "logs", "mountPath": "/logs"}],
    )
    recipe = make(replace=True)
    new = assert_idempotent(recipe, assert_pure(recipe, pod))
    mounts = new["spec"]["containers"][0]["volumeMounts"]
    assert [m["name"] for m in mounts if m["mountPath"] == mount_path] == [volume]
    assert {"name": "logs", "mountPath": "/logs"} in mounts
    assert [v["name"] for v in new["spec"]["volumes"]] == ["logs", volume]
    assert_valid_pod(new)


@pytest.mark.parametrize("name", sorted(MOUNTERS))
def test_replace_keeps_a_displaced_volume_another_container_mounts(name: str) -> None:
    make, volume, mount_path, _, _ = MOUNTERS[name]
    reader = {
        "name": "reader",
        "image": "busybox:1.36",
        "volumeMounts": [{"name": "team-data", "mountPath": "/data"}],
    }
    pod = _pod(
        [{"name": "team-data", **GCS_FUSE}],
        [{"name": "team-data", "mountPath": mount_path}],
        reader,
    )
    new = make(replace=True)(pod)
    assert [v["name"] for v in new["spec"]["volumes"]] == ["team-data", volume]
    assert new["spec"]["containers"][1] == reader
    assert_valid_pod(new)


@pytest.mark.parametrize("name", sorted(MOUNTERS))
def test_with_every_container_a_clash_in_any_one_is_refused(name: str) -> None:
    make, _, mount_path, _, _ = MOUNTERS[name]
    proxy = {
        "name": "proxy",
        "image": "envoy:1",
        "volumeMounts": [{"name": "team-data", "mountPath": mount_path}],
    }
    pod = _pod([{"name": "team-data", **GCS_FUSE}], [], proxy)
    with pytest.raises(NameClashError) as caught:
        make(container="*")(pod)
    assert str(caught.value.path) == (
        f"spec.containers[name=proxy].volumeMounts[mountPath={mount_path}]"
    )
    assert make()(pod)["spec"]["containers"][1] == proxy  # the main container alone: no clash


def test_the_issue_mount_secret_over_a_gcs_fuse_volume_names_what_it_would_displace() -> None:
    pod = _pod([{"name": "gcs-fuse", **GCS_FUSE}], [{"name": "gcs-fuse", "mountPath": "/data"}])
    with pytest.raises(NameClashError) as caught:
        recipes.mount_secret("gcs-key", "/data")(pod)
    assert str(caught.value) == (
        "mount_secret() mounts volume 'gcs-key' at /data in container 'trainer-0', which mounts "
        "volume 'gcs-fuse' (csi gcsfuse.csi.storage.gke.io) there already: a container mounts "
        "one volume at a path; pass mount_path= another path, or replace=True to replace that "
        "mount (and drop volume 'gcs-fuse' if nothing else mounts it) (in "
        "spec.containers[name=trainer-0].volumeMounts[mountPath=/data])"
    )


def test_the_issue_shm_size_over_a_host_path_at_dev_shm_names_it() -> None:
    pod = _pod(
        [{"name": "host-shm", "hostPath": {"path": "/dev/shm"}}],
        [{"name": "host-shm", "mountPath": "/dev/shm"}],
    )
    with pytest.raises(
        NameClashError,
        match=r"shm_size\(\) mounts volume 'dshm' at /dev/shm in "
        r"container 'trainer-0', which mounts volume 'host-shm' \(hostPath "
        r"/dev/shm\) there already: .*; pass replace=True to replace that mount",
    ):
        recipes.shm_size("64Gi")(pod)
    new = recipes.shm_size("64Gi", replace=True)(pod)
    assert new["spec"]["volumes"] == [
        {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "64Gi"}}
    ]


def test_a_clash_refused_on_a_persistent_pod_too() -> None:
    from pyrsistent import freeze

    pod = freeze(
        _pod([{"name": "gcs-fuse", **GCS_FUSE}], [{"name": "gcs-fuse", "mountPath": "/data"}])
    )
    with pytest.raises(NameClashError, match="volume 'gcs-fuse'"):
        recipes.mount_pvc("datasets", "/data")(pod)
    assert recipes.mount_pvc("datasets", "/other")(pod)["spec"]["volumes"][1]["name"] == (
        "datasets"
    )


# --- env: one namespace per container, set by name ------------------------------------------

ENV_SETTERS: dict[str, Recipe] = {
    "add_env": recipes.add_env(TOKEN="plain"),
    "add_env_from_secret": recipes.add_env_from_secret("TOKEN", "hf", "token"),
    "add_env_from_config_map": recipes.add_env_from_config_map("TOKEN", "settings", "token"),
    "add_env_from_field": recipes.add_env_from_field("TOKEN", "metadata.name"),
}


@pytest.mark.parametrize("name", sorted(ENV_SETTERS))
@pytest.mark.parametrize("held_by", sorted(ENV_SETTERS))
def test_an_env_name_set_by_any_recipe_is_replaced_once_not_refused(
    name: str, held_by: str
) -> None:
    pod = ENV_SETTERS[held_by](
        {"spec": {"containers": [{**MAIN, "env": [{"name": "A", "value": "1"}]}]}}
    )
    recipe = ENV_SETTERS[name]
    new = assert_idempotent(recipe, assert_pure(recipe, pod))
    env = new["spec"]["containers"][0]["env"]
    assert [variable["name"] for variable in env] == ["A", "TOKEN"]
    assert (
        env[1] == recipe({"spec": {"containers": [dict(MAIN)]}})["spec"]["containers"][0]["env"][0]
    )
    assert_valid_pod(new, warnings=True)


def test_the_oracle_rejects_a_refusal_without_a_clash() -> None:
    # it can fail: a refusal naming a mount at a path the recipe does not use is no clash
    pod = _pod([{"name": "other", "emptyDir": {}}], [{"name": "other", "mountPath": "/x"}])
    where = path("spec.containers[name=trainer-0].volumeMounts[mountPath=/x]")
    fake = NameClashError(
        f"mount_pvc() mounts at /x (in {where})",
        recipe="mount_pvc",
        name="/x",
        path=where,
        existing={"name": "other", "mountPath": "/x"},
    )
    with pytest.raises(AssertionError, match="no clash: '/x' held once"):
        assert_real_clash(recipes.mount_pvc("datasets", "/data"), pod, fake)
