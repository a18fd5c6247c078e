"""Kubernetes client objects in and out: any transform, and ``fold``, takes a ``V1Pod``,
``V1PodSpec`` or ``V1PodTemplateSpec`` and gives back the same type.

Checked against the same overlay on API-form dicts, on real pods (TorchX's, where
TorchX is installed, and a hand-built pod using many fields of the API), for every
recipe of the catalog: the input is left as it was, the very same object comes back
where nothing changed, and the client's own ``to_dict()`` output is refused with the
explicit conversion named. Runs with kubernetes 36 and 37 (pydantic models).
"""

from __future__ import annotations

import copy
import subprocess
import sys
from typing import Any

import pytest
from kubernetes import client
from pyrsistent import pmap

import recipes
from combinators import (
    ExpectationError,
    PathError,
    TypeClashError,
    chain,
    expect,
    fold,
    identity,
    remove_at,
    upsert,
)
from combinators.documents import adapter_for, document_adapters
from tests.test_convert import deserialize, many_fields_pod
from transforms.kube import to_client, to_data
from transforms.kube.client import ADAPTER, root_kind
from transforms.kube.convert import ConversionError
from transforms.kube.kinds import ClientDictError

try:  # torchx 0.7.0 and kubernetes 37 cannot be installed together (urllib3)
    from tests.test_recipes import SAMPLES
    from transforms.testing.pods import make_pods, sample_role
except ImportError:
    SAMPLES = {}
    make_pods = None

MODELS = ("V1Pod", "V1PodSpec", "V1PodTemplateSpec")


def real_pods() -> list[dict[str, Any]]:
    """API-form pods: TorchX's own (GPU, CPU, mounts, ports) where installed, and a hand-built one."""
    pods = [to_data(many_fields_pod())]
    if make_pods is not None:
        pods += make_pods(replicas=2, mounts={"/data": "datasets"})
        pods += make_pods(sample_role("cpu", gpu=0, env={"A": "1"}, ports={"http": 8080}))
    return pods


PODS = real_pods()


def as_client(pod: dict[str, Any], model: str) -> Any:
    """The client object of ``model`` holding ``pod`` (its spec, or its metadata and spec)."""
    if model == "V1PodSpec":
        return to_client(pod["spec"], model)
    if model == "V1PodTemplateSpec":
        return to_client({"metadata": pod.get("metadata", {}), "spec": pod["spec"]}, model)
    return to_client(pod, model)


def as_seen(obj: Any) -> dict[str, Any]:
    """The dict a transform is given for ``obj``: a V1PodSpec is the spec of a pod."""
    data = to_data(obj)
    return {"spec": data} if isinstance(obj, client.V1PodSpec) else data


def back(result: dict[str, Any], model: str) -> dict[str, Any]:
    """What of ``result`` (a transform's, on :func:`as_seen`) an object of ``model`` holds."""
    return result.get("spec", {}) if model == "V1PodSpec" else result


def snapshot(obj: Any) -> Any:
    return copy.deepcopy(obj.to_dict())


def check_like_dicts(transform: Any, obj: Any) -> Any:
    """``transform(obj)`` agrees with ``transform`` on the dict; ``obj`` is left alone."""
    model = type(obj).__name__
    before, seen = snapshot(obj), as_seen(obj)
    expected = transform(seen)
    if model == "V1PodSpec" and {k: v for k, v in expected.items() if k != "spec" and v}:
        # a V1PodSpec cannot hold what the overlay wrote beside the spec (labels, ...)
        with pytest.raises(ConversionError, match="holds only a pod's spec"):
            transform(obj)
        assert obj.to_dict() == before
        return None
    new = transform(obj)
    assert obj.to_dict() == before, "the input object was changed"
    assert type(new) is type(obj)
    assert to_data(new) == to_data(to_client(back(expected, model), model))
    assert as_seen(new) == expected
    if expected is seen:
        assert new is obj, "a transform that changes nothing gives back the same object"
    else:
        assert new is not obj
    return new


# ------------------------------------------------------------------ every recipe of the catalog

CASES = [
    pytest.param(name, args, kwargs, id=f"{name}-{number}")
    for name, samples in SAMPLES.items()
    for number, (args, kwargs) in enumerate(samples)
]


@pytest.mark.skipif(not CASES, reason="the recipe samples need torchx")
@pytest.mark.parametrize(("name", "args", "kwargs"), CASES)
def test_every_recipe_gives_on_client_objects_what_it_gives_on_dicts(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    recipe = recipes.catalog[name](*args, **kwargs)
    for pod in PODS:
        for model in MODELS:
            obj = as_client(pod, model)
            if refused_alike(recipe, obj):
                continue
            new = check_like_dicts(recipe, obj)
            if new is not None:
                # recipes are idempotent: the second time, the very same object comes back
                assert recipe(new) is new


def refused_alike(recipe: Any, obj: Any) -> bool:
    """Whether ``recipe`` refuses the pod (it keys on a label the pod lacks, or would add
    a name or a mount path the pod uses already), as an object with the very error it
    gives on the dict."""
    if not getattr(recipe, "requires", ()):
        return False
    try:
        recipe(as_seen(obj))
    except (PathError, recipes.NameClashError) as err:
        with pytest.raises(type(err)) as caught:
            recipe(obj)
        assert str(caught.value) == str(err)
        return True
    return False


def test_the_catalog_has_samples_here_too() -> None:
    if make_pods is None:
        pytest.skip("the recipe samples need torchx")
    assert set(SAMPLES) == set(recipes.catalog)


# ------------------------------------------------------------------ transforms and fold

OVERLAY = [
    recipes.gpu("a100-80gb", count=8),
    recipes.shm_size("16Gi"),
    recipes.add_env(NCCL_DEBUG="INFO"),
    upsert("spec.nodeSelector", {"pool": "train"}),
    recipes.add_toleration("dedicated", value="ml", effect="NoSchedule"),
]


@pytest.mark.parametrize("model", MODELS)
def test_fold_with_a_chain(model: str) -> None:
    for pod in PODS:
        obj = as_client(pod, model)
        before = snapshot(obj)
        new = fold(OVERLAY, obj)
        assert type(new) is type(obj) and obj.to_dict() == before
        assert as_seen(new) == fold(OVERLAY, as_seen(obj))
        assert fold([chain(*OVERLAY)], obj) == new
        # a plain function in the chain is given the data, as on dicts
        labelled = fold(
            [*OVERLAY, lambda data: {**data, "spec": {**data["spec"], "hostIPC": True}}], obj
        )
        assert labelled.host_ipc if model == "V1PodSpec" else labelled.spec.host_ipc
        assert fold(OVERLAY, new) is new  # applied again, nothing changes
        assert fold([], obj) is obj


@pytest.mark.parametrize("model", MODELS)
def test_the_very_same_object_where_nothing_changes(model: str) -> None:
    obj = as_client(PODS[0], model)
    assert identity(obj) is obj
    assert remove_at("spec.tolerations[key=no-such-key]")(obj) is obj
    first = obj.spec.containers[0].name if model != "V1PodSpec" else obj.containers[0].name
    assert expect(f"spec.containers[name={first}]")(obj) is obj
    assert (
        chain(upsert("spec.nodeSelector", {}), remove_at("spec.nodeSelector"))(
            upsert("spec.nodeSelector", {"x": "y"})(obj)
        )
        is not obj
    )


@pytest.mark.parametrize("model", MODELS)
def test_the_result_shares_no_client_object_with_the_input(model: str) -> None:
    obj = as_client(PODS[0], model)
    before = snapshot(obj)
    new = upsert("spec.schedulerName", "volcano")(obj)
    new_spec, old_spec = (new, obj) if model == "V1PodSpec" else (new.spec, obj.spec)
    assert new_spec.containers[0] == old_spec.containers[0]
    assert new_spec.containers[0] is not old_spec.containers[0]
    new_spec.containers[0].image = "changed:1"  # client objects are mutable
    new_spec.containers[0].env.append(client.V1EnvVar(name="X", value="1"))
    assert obj.to_dict() == before


def test_errors_are_those_of_the_same_overlay_on_dicts() -> None:
    obj = as_client(PODS[0], "V1Pod")
    overlay = chain(upsert("metadata.labels.team", "ml"), expect("spec.containers[name=nope]"))
    with pytest.raises(ExpectationError) as on_object:
        overlay(obj)
    with pytest.raises(ExpectationError) as on_dict:
        overlay(to_data(obj))
    assert str(on_object.value) == str(on_dict.value)


def test_a_field_the_client_does_not_know_is_refused_not_dropped() -> None:
    obj = as_client(PODS[0], "V1Pod")
    with pytest.raises(ConversionError) as caught:
        upsert("spec.nodeSelectr", {"gpu": "a100"})(obj)
    assert caught.value.where == "spec.nodeSelectr"
    assert "did you mean nodeSelector?" in str(caught.value)
    with pytest.raises(ConversionError, match="holds only a pod's spec"):
        upsert("metadata.labels", {"team": "ml"})(obj.spec)


# ------------------------------------------------------------------ what is accepted


@pytest.mark.parametrize(
    "document",
    [
        {1, 2},
        object(),
        b"spec",
        to_client({"metadata": {"name": "web"}}, "V1Deployment"),
        client.V1Container(name="c"),
    ],
)
def test_a_document_of_an_unknown_type_is_refused(document: Any) -> None:
    with pytest.raises(TypeClashError) as caught:
        upsert("spec.nodeSelector", {"gpu": "a100"})(document)
    text = str(caught.value)
    assert f"a {type(document).__name__}" in text or f"an {type(document).__name__}" in text
    assert "a map (dict, PMap), a list (list, tuple, PVector)" in text
    assert "V1Pod, V1PodSpec or V1PodTemplateSpec" in text
    assert "upsert('spec.nodeSelector', {'gpu': 'a100'})" in text  # the transform
    assert caught.value.found and caught.value.expected
    with pytest.raises(TypeClashError):
        fold([recipes.gpu("a100")], document)
    if isinstance(document, client.V1Deployment):
        assert "transforms.kube.apply_to_workload" in text


def test_a_scalar_document_is_data_a_path_cannot_enter() -> None:
    with pytest.raises(TypeClashError, match=r"a number \(5\)"):
        upsert("spec.nodeSelector", {"gpu": "a100"})(5)


def test_the_adapter_comes_from_the_entry_point() -> None:
    assert ADAPTER in document_adapters()
    assert adapter_for(client.V1PodSpec(containers=[])) is ADAPTER
    assert [root_kind(as_client(PODS[0], model)) for model in MODELS] == [
        "Pod",
        "PodSpec",
        "PodTemplateSpec",
    ]
    assert root_kind(to_client({}, "V1Deployment")) is None and root_kind({"spec": {}}) is None


def test_plain_documents_never_load_adapters() -> None:
    # a fresh interpreter: dicts, lists and persistent maps go nowhere near the entry points
    code = (
        "import sys\n"
        "from pyrsistent import pmap\n"
        "from combinators import upsert\n"
        "from combinators.documents import document_adapters\n"
        "upsert('spec.nodeSelector', {'gpu': 'a100'})({'spec': {}})\n"
        "upsert('spec.nodeSelector', {'gpu': 'a100'})(pmap({'spec': pmap()}))\n"
        "upsert('[0].a', 1)([{}])\n"
        "assert document_adapters.cache_info().currsize == 0\n"
        "assert 'transforms.kube.client' not in sys.modules and 'kubernetes' not in sys.modules\n"
        "from kubernetes.client import V1Pod\n"
        "upsert('spec', {})(V1Pod())\n"
        "assert 'transforms.kube.client' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_persistent_documents_stay_persistent() -> None:
    doc = pmap({"spec": pmap()})
    assert type(upsert("spec.nodeSelector", {"gpu": "a100"})(doc)) is type(doc)


# ------------------------------------------------------------------ the client's to_dict() output


def test_client_dicts_are_refused_naming_the_conversion() -> None:
    obj = as_client(PODS[0], "V1Pod")
    with pytest.raises(ClientDictError) as caught:
        recipes.gpu("a100")(obj.to_dict())
    assert "transforms.kube.to_data" in str(caught.value)


@pytest.mark.parametrize("model", MODELS)
def test_the_conversion_takes_exactly_those_dicts(model: str) -> None:
    for pod in PODS:
        obj = as_client(pod, model)
        kind = root_kind(obj)
        assert to_data(obj.to_dict(), kind) == to_data(obj)
        # and the overlay then does on it what it does on the object
        if model != "V1PodSpec":
            assert recipes.gpu("a100")(to_data(obj.to_dict(), kind)) == to_data(
                recipes.gpu("a100")(obj)
            )


def test_to_client_agrees_with_the_clients_own_deserializer() -> None:
    for pod in PODS:
        for model in MODELS:
            obj = as_client(pod, model)
            assert obj == deserialize(to_data(obj), model)
        assert to_client(pod, "V1Pod") == deserialize(pod, "V1Pod")


def test_a_workload_object_built_without_kind_is_known_by_its_class() -> None:
    # client objects are often built without kind and api_version: the class says the kind
    from transforms.kube import Selector, apply_to_workload

    template = client.V1PodTemplateSpec(
        metadata=client.V1ObjectMeta(labels={"app": "web"}),
        spec=client.V1PodSpec(containers=[client.V1Container(name="web", image="x")]),
    )
    deployment = client.V1Deployment(
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V1DeploymentSpec(
            selector=client.V1LabelSelector(match_labels={"app": "web"}), template=template
        ),
    )
    before = copy.deepcopy(deployment)
    new = apply_to_workload(
        upsert("spec.nodeSelector", {"gpu": "a100"}),
        deployment,
        select=Selector.parse("kind=Deployment"),
    )
    assert type(new) is client.V1Deployment and new.kind is None  # no field it was not given
    assert new.spec.template.spec.node_selector == {"gpu": "a100"}
    assert deployment == before
    job = client.V1Job(spec=client.V1JobSpec(template=template))
    assert apply_to_workload(upsert("spec.hostIPC", True), job).spec.template.spec.host_ipc
    assert (
        apply_to_workload(
            upsert("spec.hostIPC", True), job, select=Selector.parse("kind=Deployment")
        )
        is job
    )
