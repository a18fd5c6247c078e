"""Recipes on pods that torchx did not render, and calls that do not fit a recipe.

A recipe either works on any pod or refuses, clearly, a pod it would get
wrong: ``spread`` and ``anti_affinity`` key on torchx's job label by default,
so on a plain Deployment (kubernetes/website's nginx example) they refuse,
naming the label, the labels present and ``group_label``. A Python call that
does not fit a recipe's signature is an ``ArgumentTypeError`` naming the
recipe, the argument and the near miss, as the YAML loader says it.
"""

from __future__ import annotations

import pathlib
import pickle
import re
import sys
from typing import Any

import kubernetes_validate
import pytest
import yaml

import recipes
from combinators import ArgumentError, ArgumentTypeError, PathError, TransformError, chain
from recipes._recipe import Recipe
from tests import warm
from tests.test_recipes import K8S_VERSION, POD, check_valid
from transforms import loads_overlay
from transforms.kube.workloads import apply_to_workload

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEPLOYMENT_FILE = ROOT / "tests" / "manifests" / "kubernetes" / "nginx-deployment.yaml"
DEPLOYMENT: dict[str, Any] = yaml.safe_load(DEPLOYMENT_FILE.read_text(encoding="utf-8"))
PODFOLD = pathlib.Path(sys.executable).with_name("podfold")
JOB_LABEL = "app.kubernetes.io/instance"


def template(document: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = document["spec"]["template"]
    return found


# --- recipes keyed on torchx's job label: refuse a pod without it ---------------------------


def test_the_deployment_pods_lack_torchx_job_label_and_torchx_pods_carry_it() -> None:
    # the premise of the tests below, on the real files
    assert JOB_LABEL not in template(DEPLOYMENT)["metadata"]["labels"]
    assert POD["metadata"]["labels"][JOB_LABEL]


@pytest.mark.parametrize(
    ("overlay", "verb"),
    [
        (recipes.anti_affinity(), "keeps apart"),
        (recipes.anti_affinity(required=True), "keeps apart"),
        (recipes.spread("topology.kubernetes.io/zone"), "spreads"),
    ],
    ids=["anti_affinity", "anti_affinity-required", "spread"],
)
def test_a_deployment_without_the_job_label_is_refused_naming_label_labels_and_argument(
    overlay: Recipe, verb: str
) -> None:
    with pytest.raises(PathError) as caught:
        apply_to_workload(overlay, DEPLOYMENT)
    err = caught.value
    message = str(err)
    assert isinstance(err, LookupError) and isinstance(err, TransformError)
    assert message.startswith(
        f"{overlay.name}() {verb} the pods sharing this pod's value of label '{JOB_LABEL}'"
    ), message
    assert f"this pod has no label '{JOB_LABEL}'" in message
    assert "group_label='app.kubernetes.io/name'" in message  # the label the pods do carry
    assert "match_labels=" in message
    assert message.count("labels present: app.kubernetes.io/name") == 1
    assert err.present == ("app.kubernetes.io/name",)
    assert "Deployment/nginx-deployment" in message  # the workload and template, from the walk


def test_yaml_overlay_of_the_gke_example_refuses_the_deployment_and_exits_1() -> None:
    # examples/gke_gpu.yaml has ``- {recipe: anti_affinity}``: the user's report
    overlay = ROOT / "examples" / "gke_gpu.yaml"
    assert "- {recipe: anti_affinity}" in overlay.read_text(encoding="utf-8")
    result = warm.run("podfold", ["apply", "-f", str(overlay), str(DEPLOYMENT_FILE)], timeout=120)
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""  # nothing applied partly
    assert "anti_affinity() keeps apart" in result.stderr
    assert f"has no label '{JOB_LABEL}'" in result.stderr
    assert "group_label=" in result.stderr and "Traceback" not in result.stderr


def test_group_label_keeps_the_deployments_own_replicas_apart() -> None:
    overlay = loads_overlay("- {recipe: anti_affinity, group_label: app.kubernetes.io/name}")
    new = apply_to_workload(overlay, DEPLOYMENT)
    kubernetes_validate.validate(new, K8S_VERSION, strict=True)
    term = template(new)["spec"]["affinity"]["podAntiAffinity"][
        "preferredDuringSchedulingIgnoredDuringExecution"
    ][0]["podAffinityTerm"]
    assert term == {
        "topologyKey": "kubernetes.io/hostname",
        "labelSelector": {
            "matchExpressions": [{"key": "app.kubernetes.io/name", "operator": "Exists"}]
        },
        "matchLabelKeys": ["app.kubernetes.io/name"],
    }
    assert apply_to_workload(overlay, new) == new  # idempotent


def test_match_labels_needs_no_label_on_the_pod() -> None:
    new = apply_to_workload(
        recipes.spread(
            "topology.kubernetes.io/zone", match_labels={"app.kubernetes.io/name": "nginx"}
        ),
        DEPLOYMENT,
    )
    kubernetes_validate.validate(new, K8S_VERSION, strict=True)
    (constraint,) = template(new)["spec"]["topologySpreadConstraints"]
    assert constraint["labelSelector"] == {"matchLabels": {"app.kubernetes.io/name": "nginx"}}
    assert "matchLabelKeys" not in constraint


def test_torchx_pods_keep_the_default_job_label() -> None:
    new = recipes.anti_affinity()(POD)
    check_valid(new)
    term = new["spec"]["affinity"]["podAntiAffinity"][
        "preferredDuringSchedulingIgnoredDuringExecution"
    ][0]["podAffinityTerm"]
    assert term["matchLabelKeys"] == [JOB_LABEL]


def test_a_pod_with_no_labels_at_all_is_told_so() -> None:
    with pytest.raises(PathError, match=r"has no label 'team' \(it has no labels at all\)"):
        recipes.spread("kubernetes.io/hostname", group_label="team")(
            {"spec": {"containers": [{"name": "web"}]}}
        )


def test_a_label_added_earlier_in_the_chain_counts() -> None:
    # the check reads the pod as the steps before it left it, fused or not
    overlay = chain(recipes.add_labels(team="ml"), recipes.anti_affinity(group_label="team"))
    new = overlay({"spec": {"containers": [{"name": "web"}]}})
    assert new["metadata"]["labels"] == {"team": "ml"}
    refused = chain(recipes.add_toleration("nvidia.com/gpu"), recipes.anti_affinity())
    with pytest.raises(PathError, match=r"anti_affinity.*step 2 of 2"):
        refused({"spec": {"containers": [{"name": "web"}]}})


def test_group_label_and_match_labels_together_are_refused() -> None:
    with pytest.raises(ArgumentError) as caught:
        recipes.anti_affinity(group_label="app", match_labels={"app": "web"})
    assert caught.value.argument == "group_label"
    assert str(caught.value).startswith("anti_affinity(): group_label='app' and match_labels=")
    with pytest.raises(ArgumentError, match=r"spread\(\): group_label must be a qualified name"):
        recipes.spread("zone", group_label="not a label")


def test_a_recipe_with_a_requirement_pickles_and_compares_as_any_recipe() -> None:
    overlay = recipes.anti_affinity(group_label="app")
    again = pickle.loads(pickle.dumps(overlay))
    assert again == overlay and hash(again) == hash(overlay)
    assert repr(again) == "anti_affinity(group_label='app')"
    with pytest.raises(PathError, match="has no label 'app'"):
        again({"metadata": {"labels": {"team": "ml"}}, "spec": {}})


def test_recipes_that_require_nothing_stay_plain_recipes() -> None:
    # the requirement check is a class of its own: other recipes pay nothing for it
    assert type(recipes.gpu("a100")) is Recipe
    assert type(recipes.anti_affinity(match_labels={"app": "web"})) is Recipe
    assert type(recipes.anti_affinity()) is not Recipe


# --- calls that do not fit the signature ----------------------------------------------------


@pytest.mark.parametrize(
    ("make", "recipe", "argument", "fragments"),
    [
        (
            lambda: recipes.resources(cpu="2"),
            "resources",
            "cpu",
            [
                "takes no argument 'cpu'",
                "did you mean requests={'cpu': ...} or limits={'cpu': ...}?",
                "(it takes: requests, limits, container)",
            ],
        ),
        (
            lambda: recipes.gpu(gpus=1),
            "gpu",
            "gpus",
            [
                "takes no argument 'gpus'",
                "did you mean count?",
                "(it takes: type, count, provider, label, container)",
            ],
        ),
        (lambda: recipes.gpu("a100", Count=1), "gpu", "Count", ["did you mean count?"]),
        (lambda: recipes.gpu("a100", provder="eks"), "gpu", "provder", ["did you mean provider?"]),
        (lambda: recipes.tpu("v5e", "2x4", chips=4), "tpu", "chips", ["did you mean count?"]),
        (lambda: recipes.shm_size(sise="1Gi"), "shm_size", "sise", ["did you mean size?"]),
        (lambda: recipes.gpu(), "gpu", "type", ["missing a required argument: 'type'"]),
        (lambda: recipes.efa(1, None, 3), "efa", "arguments", ["too many positional arguments"]),
        (lambda: recipes.gpu("a100", type="l4"), "gpu", "type", ["multiple values"]),
    ],
    ids=[
        "resources-cpu",
        "gpu-gpus",
        "gpu-Count",
        "gpu-provder",
        "tpu-chips",
        "shm-sise",
        "gpu-missing",
        "efa-too-many",
        "gpu-twice",
    ],
)
def test_a_call_that_does_not_fit_is_an_argument_type_error_naming_recipe_and_argument(
    make: Any, recipe: str, argument: str, fragments: list[str]
) -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        make()
    err = caught.value
    assert isinstance(err, TypeError) and isinstance(err, ValueError)  # both contracts hold
    assert err.factory == recipe and err.argument == argument
    message = str(err)
    assert message.startswith(f"{recipe}(): {argument}: "), message
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message}"


def test_python_and_yaml_say_an_unknown_argument_alike() -> None:
    with pytest.raises(ArgumentTypeError) as in_python:
        recipes.resources(limit={"cpu": "2"})
    with pytest.raises(TransformError) as in_yaml:
        loads_overlay("- {recipe: resources, limit: {cpu: 2}}")
    said = "resources(): limit: takes no argument 'limit'; did you mean limits?"
    assert str(in_python.value).startswith(said)
    assert said in str(in_yaml.value)


@pytest.mark.parametrize(
    ("written", "hint"),
    [
        (
            "{recipe: gpu, type: a100, gpus: 1}",
            "gpu(): gpus: takes no argument 'gpus'; did you mean count?",
        ),
        ("{recipe: gpu, type: a100, Count: 1}", "did you mean count?"),
        (
            "{recipe: resources, cpu: 2}",
            "did you mean requests={'cpu': ...} or limits={'cpu': ...}?",
        ),
    ],
)
def test_yaml_names_the_words_users_reach_for_as_python_does(written: str, hint: str) -> None:
    with pytest.raises(TransformError, match=re.escape(hint)):
        loads_overlay(f"- {written}")


def test_a_type_error_inside_a_recipe_is_not_taken_for_a_bad_call() -> None:
    # only what the signature refuses is reported as a call that does not fit
    with pytest.raises(ArgumentTypeError, match=r"gpu\(\): count must be an integer"):
        recipes.gpu("a100", count="8")  # type: ignore[arg-type]


# --- GPU types: the near miss ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("type", "provider", "hint"),
    [
        ("A100", "gke", "; did you mean a100?"),
        ("H100-80GB", "eks", "; did you mean h100-80gb?"),
        ("tesla-t4", "gfd", "; did you mean Tesla-T4?"),
        ("a100-80", "eks", "; did you mean a100-80gb?"),
        ("nvidia-a100", "gke", "; did you mean nvidia-a100-80gb?"),
        ("a10g", "gke", " (offered by: eks, gfd)"),
        ("NVIDIA-A10G", "gke", " (offered by: eks, gfd)"),
        ("h100-mega-80gb", "eks", " (offered by: gke, gfd)"),
    ],
)
def test_an_unknown_gpu_type_gets_a_near_miss(type: str, provider: str, hint: str) -> None:
    with pytest.raises(ArgumentError) as caught:
        recipes.gpu(type, provider=provider)
    message = str(caught.value)
    assert message.startswith(
        f"gpu(): type {type!r} is not a GPU {provider} offers{hint}; known {provider} types: "
    ), message
    assert caught.value.argument == "type"


def test_a_gpu_type_nothing_resembles_gets_the_list_only() -> None:
    with pytest.raises(ArgumentError) as caught:
        recipes.gpu("zzz")
    assert "did you mean" not in str(caught.value) and "known gke types: a100-40gb" in str(
        caught.value
    )


# --- podfold recipes NAME: the YAML form ----------------------------------------------------


def test_podfold_recipes_name_shows_the_yaml_step() -> None:
    result = warm.run("podfold", ["recipes", "gpu"], timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("gpu(type: str, count: int | None = None")
    step = "- {recipe: gpu, type: ..., count: ..., provider: ..., label: ..., container: ...}"
    assert lines[1:4] == ["", f"in YAML: {step}", ""]
    assert lines[4].startswith("Run on nodes with GPU")
    # the form is YAML a pipeline reads, each argument a key the loader binds
    (read,) = yaml.safe_load(step)
    assert list(read) == ["recipe", "type", "count", "provider", "label", "container"]
    assert loads_overlay("- {recipe: gpu, type: l4, count: 1}") == recipes.gpu("l4", count=1)


@pytest.mark.parametrize(
    ("written", "meant"), [("GPU", "gpu"), ("Node_Selector", "node_selector"), ("gpuu", "gpu")]
)
def test_a_recipe_name_in_another_case_or_misspelt_is_named(written: str, meant: str) -> None:
    with pytest.raises(
        TransformError, match=f"unknown recipe '{written}'; did you mean {meant}\\?"
    ):
        loads_overlay(f"- {{recipe: {written}}}")
