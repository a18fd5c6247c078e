"""The testing kit: the plugin loads on install, the fixtures render real TorchX pods,
every assertion helper fails when it should (with the diff in its message), and the
strategies draw valid pods and every recipe."""

from __future__ import annotations

import itertools
import os
import pathlib
import subprocess
import sys
import tempfile
import textwrap
from importlib.metadata import entry_points
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from torchx import specs

import recipes
from combinators import (
    ArgumentTypeError,
    Transform,
    append_at,
    chain,
    remove_at,
    set_default,
    upsert,
)
from transforms.checks.validation import problems
from transforms.testing import (
    assert_changes,
    assert_idempotent,
    assert_pure,
    assert_valid_pod,
    changed_paths,
    describe_difference,
)
from transforms.testing.pods import render_pods, sample_app, sample_role
from transforms.testing.strategies import RECIPE_ARGUMENTS, pods, recipe_calls, transforms

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "test_my_overlays.py"
EXAMPLE_TESTS = 8
_HYPOTHESIS_STORAGE = (
    pathlib.Path(tempfile.gettempdir()) / f"podfold-tests-hypothesis-{os.getuid()}"
)

kit_settings = settings(
    max_examples=settings.default.max_examples * 4 // 5,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def run_pytest(tmp_path: pathlib.Path, *args: str) -> subprocess.CompletedProcess[str]:
    """pytest in a fresh interpreter, from ``tmp_path``, with podfold's plugins as installed.

    Hypothesis keeps what it works out once (the characters of each alphabet, the constants
    of the code under test) in its storage directory, ``.hypothesis`` of the working
    directory: these runs share one of their own, so that each does not work it out anew."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_ADDOPTS", "PYTEST_PLUGINS")
    }
    env["HYPOTHESIS_STORAGE_DIRECTORY"] = str(_HYPOTHESIS_STORAGE)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


# --- the plugin ---------------------------------------------------------------------------------


def test_plugin_is_registered_as_a_pytest11_entry_point() -> None:
    # a top-level name of its own: a user's transforms.py, recipes/ or combinators.py cannot hide it
    found = {entry.name: entry.value for entry in entry_points(group="pytest11")}
    assert found.get("podfold") == "_podfold_pytest_plugin"


@pytest.mark.usefixtures("installed_podfold")
def test_plugin_imports_nothing_of_podfold_until_a_fixture_is_used() -> None:
    code = (
        "import sys, pytest\n"
        "before = set(sys.modules)\n"
        "import _podfold_pytest_plugin\n"
        "print(sorted(set(sys.modules) - before))\n"
        "print(sorted({name.split('.')[0] for name in sys.modules}"
        " & {'combinators', 'transforms', 'recipes', 'torchx', 'kubernetes', 'hypothesis'}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    added, podfold_and_heavy = result.stdout.splitlines()
    assert added == "['_podfold_pytest_plugin']"
    assert podfold_and_heavy == "[]"


@pytest.mark.usefixtures("installed_podfold")
def test_plugin_loads_on_install_in_another_project(tmp_path: pathlib.Path) -> None:
    (tmp_path / "test_uses_the_kit.py").write_text(
        textwrap.dedent("""
        from combinators import upsert
        from transforms.testing import assert_idempotent, assert_pure, assert_valid_pod

        pool = upsert("spec.nodeSelector", {"pool": "gpu"})

        def test_pod(pod):
            assert pod["spec"]["containers"][0]["name"] == "trainer-0"
            assert_valid_pod(assert_idempotent(pool, assert_pure(pool, pod)))

        def test_pod_factory(pod_factory):
            pods = pod_factory(replicas=3, gpu=0, mounts={"/data": "datasets"})
            assert [p["spec"]["containers"][0]["name"] for p in pods] == [
                "trainer-0", "trainer-1", "trainer-2"]

        def test_torchx_app(torchx_app):
            assert [role.name for role in torchx_app.roles] == ["trainer", "ps"]
    """)
    )
    result = run_pytest(tmp_path, "test_uses_the_kit.py")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 passed" in result.stdout


@pytest.mark.usefixtures("installed_podfold")
def test_example_module_passes(tmp_path: pathlib.Path) -> None:
    # in one process: the example is in this checkout, so its run takes podfold's -n auto
    result = run_pytest(tmp_path, "-n0", str(EXAMPLE))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{EXAMPLE_TESTS} passed" in result.stdout, result.stdout


# --- the fixtures, in this very session ---------------------------------------------------------


def test_pod_fixture_is_a_valid_torchx_pod(pod: dict[str, Any]) -> None:
    assert type(pod) is dict
    main = pod["spec"]["containers"][0]
    assert main["name"] == "trainer-0" and main["resources"]["limits"]["nvidia.com/gpu"] == "1"
    assert pod["metadata"]["labels"]["torchx.pytorch.org/role-name"] == "trainer"
    assert_valid_pod(pod)


def test_pod_factory_renders_roles_replicas_resources_and_mounts(pod_factory: Any) -> None:
    rendered = pod_factory(
        replicas=3, cpu=2, gpu=0, memMB=4_000, mounts={"/data": "datasets", "/ckpt": "checkpoints"}
    )
    assert len(rendered) == 3
    for replica, pod in enumerate(rendered):
        main = pod["spec"]["containers"][0]
        assert main["name"] == f"trainer-{replica}"
        assert "nvidia.com/gpu" not in main["resources"]["limits"]
        assert [v.get("persistentVolumeClaim") for v in pod["spec"]["volumes"]][1:] == [
            {"claimName": "datasets"},
            {"claimName": "checkpoints"},
        ]
        assert_valid_pod(pod)
    two_roles = pod_factory(sample_role("a", replicas=2), sample_role("b"))
    assert [p["spec"]["containers"][0]["name"] for p in two_roles] == ["a-0", "a-1", "b-0"]


def test_pod_factory_takes_roles_or_options_not_both(pod_factory: Any) -> None:
    with pytest.raises(TypeError, match="not both"):
        pod_factory(sample_role(), replicas=2)


def test_torchx_app_fixture_is_fresh_for_each_test(torchx_app: Any) -> None:
    assert isinstance(torchx_app, specs.AppDef)
    assert [(r.name, r.num_replicas) for r in torchx_app.roles] == [("trainer", 2), ("ps", 1)]
    torchx_app.roles.pop()  # the next test gets its own


def test_torchx_app_fixture_is_fresh_again(torchx_app: Any) -> None:
    assert len(torchx_app.roles) == 2


def test_render_pods_folds_overlays_and_leaves_the_app_alone() -> None:
    app = sample_app()
    rendered = render_pods(app, overlays=[recipes.add_env(RANK="${replica_id}")])
    assert [pod["spec"]["containers"][0]["env"][-1]["value"] for pod in rendered] == ["0", "1", "0"]
    assert all("kubernetes" not in role.metadata for role in app.roles)
    assert len(render_pods(sample_role(replicas=2))) == 2


# --- assert_pure ----------------------------------------------------------------------------


def test_assert_pure_passes_and_returns_the_output(pod: dict[str, Any]) -> None:
    overlay = chain(recipes.gpu("a100-80gb", count=1), recipes.add_env(NCCL_DEBUG="INFO"))
    assert assert_pure(overlay, pod) == overlay(pod)
    assert assert_pure({"spec": {"hostIPC": True}}, pod)["spec"]["hostIPC"] is True


def test_assert_pure_fails_on_a_mutating_transform_with_the_diff(pod: dict[str, Any]) -> None:
    class Mutate(Transform):  # a hand-written transform that edits what it is given
        name = "mutate"

        def __init__(self) -> None:
            self._init_params()

        def _apply(self, doc: Any, owned: Any) -> Any:
            doc["spec"]["nodeSelector"]["gpu"] = "a100"
            return doc

    with pytest.raises(AssertionError) as failure:
        assert_pure(Mutate(), pod)
    message = str(failure.value)
    assert "changed its input" in message
    assert "spec.nodeSelector.gpu: (absent) -> 'a100'" in message
    assert "+    gpu: a100" in message and "--- before" in message


def test_a_mutating_plain_function_fails_assert_pure_and_cannot_hurt_the_caller(
    pod: dict[str, Any],
) -> None:
    # the fold gives a plain function a copy, so the caller's pod is untouched; assert_pure
    # calls the function as written and fails, since elsewhere it edits what it is given
    def mutate(pod: Any) -> Any:
        pod["spec"]["nodeSelector"]["gpu"] = "a100"
        return pod

    out = chain(mutate)(pod)
    assert out["spec"]["nodeSelector"]["gpu"] == "a100"
    assert "gpu" not in pod["spec"]["nodeSelector"]
    with pytest.raises(
        AssertionError,
        match=r"^not pure: .*mutate mutated its input at "
        r"spec\.nodeSelector\.gpu: added 'a100'\n",
    ):
        assert_pure(mutate, pod)
    assert "gpu" not in pod["spec"]["nodeSelector"]


def test_assert_pure_fails_when_the_output_holds_the_transforms_own_value(
    pod: dict[str, Any],
) -> None:
    labels = {"team": "ml"}

    def label(pod: Any) -> Any:
        return {**pod, "metadata": {**pod["metadata"], "labels": labels}}

    with pytest.raises(AssertionError, match=r"output's metadata\.labels is the very object"):
        assert_pure(label, pod)


SHARED_LABELS = {"team": "ml"}


def _label_from_a_global(pod: Any) -> Any:
    return {**pod, "metadata": {"labels": SHARED_LABELS}}


def test_assert_pure_fails_when_changing_one_output_changes_the_next() -> None:
    # the dict is a global, out of the id check's reach: the second check finds it
    with pytest.raises(AssertionError, match="hands out objects it keeps") as failure:
        assert_pure(_label_from_a_global, {"spec": {}})
    assert "__podfold_testing_changed_this__" in str(failure.value)
    assert SHARED_LABELS == {"team": "ml", "__podfold_testing_changed_this__": True}
    del SHARED_LABELS["__podfold_testing_changed_this__"]


def test_assert_pure_fails_when_two_applications_differ() -> None:
    counter = itertools.count()

    def stamp(pod: Any) -> Any:
        return {**pod, "metadata": {"name": f"job-{next(counter)}"}}

    with pytest.raises(AssertionError, match="two applications to equal pods gave different"):
        assert_pure(stamp, {"spec": {}})


# --- assert_idempotent --------------------------------------------------------------------------


def test_assert_idempotent_fails_on_a_plain_append_with_the_diff(pod: dict[str, Any]) -> None:
    toleration = {"key": "nvidia.com/gpu", "operator": "Exists"}
    with pytest.raises(AssertionError) as failure:
        assert_idempotent(append_at("spec.tolerations", toleration), pod)
    message = str(failure.value)
    assert message.startswith("not idempotent")
    assert "spec.tolerations[1]: (absent) -> {'key': 'nvidia.com/gpu'" in message
    assert "+  - key: nvidia.com/gpu" in message
    assert assert_idempotent(append_at("spec.tolerations", toleration, unique=True), pod)["spec"][
        "tolerations"
    ] == [toleration]


# --- assert_valid_pod ---------------------------------------------------------------------------


def test_assert_valid_pod_lists_every_problem(pod: dict[str, Any]) -> None:
    broken = chain(
        upsert("spec.hostIPC", "yes"),
        append_at("spec.containers[0].volumeMounts", {"name": "data", "mountPath": "/data"}),
        upsert("spec", {"node_selector": {"gpu": "a100"}}),
    )(pod)
    with pytest.raises(AssertionError) as failure:
        assert_valid_pod(broken, k8s_version="1.32")
    message = str(failure.value)
    assert message.startswith("the pod is not valid (Kubernetes 1.32), 3 problems:")
    assert "spec.hostIPC: expected boolean" in message
    assert "spec.node_selector: unknown field" in message and "nodeSelector" in message
    assert "volumeMounts[name=data].name: no volume named 'data'" in message


def test_assert_valid_pod_warnings_fail_only_when_asked(pod: dict[str, Any]) -> None:
    twice = append_at("spec.containers[0].env", {"name": "LOGLEVEL", "value": "DEBUG"})(pod)
    assert assert_valid_pod(twice) is twice
    with pytest.raises(AssertionError, match="1 problem:"):
        assert_valid_pod(twice, warnings=True)


# --- changed_paths and assert_changes -----------------------------------------------------------


def test_changed_paths_in_podfolds_grammar(pod: dict[str, Any]) -> None:
    assert changed_paths(recipes.node_selector(gpu="a100"), pod) == ["spec.nodeSelector.gpu"]
    assert changed_paths(recipes.add_env(X="1"), pod) == [
        "spec.containers[name=trainer-0].env[name=X]"
    ]
    assert changed_paths(recipes.add_env(LOGLEVEL="DEBUG"), pod) == [
        "spec.containers[name=trainer-0].env[name=LOGLEVEL].value"
    ]
    assert changed_paths(remove_at("spec.volumes[name=dshm]"), pod) == ["spec.volumes[name=dshm]"]
    assert changed_paths(set_default("spec.restartPolicy", "Always"), pod) == []


class _Untouchable(dict[str, Any]):
    """A map that fails if anything reads it."""

    def _refuse(self, *args: Any) -> Any:
        raise AssertionError("an untouched subtree was read")

    items = keys = values = get = __iter__ = __getitem__ = __len__ = _refuse


def test_changed_paths_skip_subtrees_shared_with_the_input() -> None:
    pod = {"spec": {"affinity": _Untouchable(), "containers": [{"name": "c", "image": "x"}]}}
    assert changed_paths(upsert("spec.nodeSelector", {"gpu": "a100"}), pod) == ["spec.nodeSelector"]


def test_assert_changes_accepts_prefixes_and_selectors(pod: dict[str, Any]) -> None:
    overlay = chain(recipes.add_env(X="1"), recipes.node_selector(gpu="a100"))
    for main in (
        "spec.containers[0]",
        "spec.containers[*].env",
        "spec.containers[-1]",
        "spec.containers[name=trainer-0].env[name=X]",
        "spec.containers",
    ):
        assert assert_changes(overlay, pod, only=[main, "spec.nodeSelector"]) == [
            "spec.containers[name=trainer-0].env[name=X]",
            "spec.nodeSelector.gpu",
        ]


def test_assert_changes_looks_into_a_map_created_for_an_allowed_key() -> None:
    pod = {"spec": {"containers": [{"name": "c", "image": "x"}]}}
    overlay = upsert("spec.affinity.nodeAffinity", {"preferred": []})
    assert assert_changes(overlay, pod, only=["spec.affinity.nodeAffinity.preferred"]) == [
        "spec.affinity"
    ]
    with pytest.raises(AssertionError, match=r"spec\.affinity: \(absent\)"):
        assert_changes(overlay, pod, only=["spec.affinity.podAffinity"])


def test_assert_changes_fails_naming_the_stray_change_with_the_diff(pod: dict[str, Any]) -> None:
    overlay = chain(recipes.node_selector(gpu="a100"), recipes.host_ipc())
    with pytest.raises(AssertionError) as failure:
        assert_changes(overlay, pod, only=["spec.nodeSelector", "spec.containers[1]"])
    message = str(failure.value)
    assert message.startswith(
        "changes outside spec.nodeSelector, spec.containers[1]:\n  spec.hostIPC: (absent) -> True\n"
    )
    assert "+  hostIPC: true" in message


def test_assert_changes_fails_when_nothing_changes_unless_allowed(pod: dict[str, Any]) -> None:
    with pytest.raises(AssertionError, match="changed nothing"):
        assert_changes(set_default("spec.restartPolicy", "Always"), pod, only=["spec"])
    assert (
        assert_changes(set_default("spec.restartPolicy", "Always"), pod, only=[], nothing_ok=True)
        == []
    )


class _Opaque:
    def __repr__(self) -> str:
        return "<opaque>"


def test_describe_difference_survives_values_yaml_cannot_show() -> None:
    text = describe_difference({"a": 1}, {"a": _Opaque()})
    assert "-{'a': 1}" in text and "+{'a': <opaque>}" in text


# --- strategies ---------------------------------------------------------------------------------


@kit_settings
@given(pods())
def test_generated_pods_are_valid(pod: dict[str, Any]) -> None:
    errors = [problem for problem in problems(pod) if problem.severity == "error"]
    assert not errors, errors


SHAPES = {
    "init containers": lambda pod: "initContainers" in pod["spec"],
    "volume mounts": lambda pod: any("volumeMounts" in c for c in pod["spec"]["containers"]),
    "tolerations": lambda pod: bool(pod["spec"].get("tolerations")),
    "node selector": lambda pod: bool(pod["spec"].get("nodeSelector")),
    "ports and env": lambda pod: {"ports", "env"} <= set(pod["spec"]["containers"][0]),
    "requests and limits": lambda pod: len(pod["spec"]["containers"][0].get("resources", {})) == 2,
    "labels": lambda pod: bool(pod.get("metadata", {}).get("labels")),
    "several containers": lambda pod: len(pod["spec"]["containers"]) > 1,
}


def test_generated_pods_have_varied_shapes() -> None:
    seen: set[str] = set()

    @settings(database=None, deadline=None, derandomize=True)  # the profile's count
    @given(pods())
    def record(pod: dict[str, Any]) -> None:
        seen.update(name for name, has in SHAPES.items() if has(pod))

    record()
    assert seen == set(SHAPES)


def test_every_catalog_recipe_has_an_argument_strategy() -> None:
    assert set(RECIPE_ARGUMENTS) == set(recipes.catalog)
    with pytest.raises(ValueError, match="no argument strategy for recipe"):
        recipe_calls("gpus")


@kit_settings
@given(recipe_calls())
def test_recipe_calls_give_recipes(recipe: Any) -> None:
    assert isinstance(recipe, recipes.Recipe) and recipe.name in recipes.catalog


@kit_settings
@given(transforms(max_steps=3))
def test_transforms_are_chains_of_at_most_the_steps_asked(overlay: Any) -> None:
    steps = getattr(overlay, "steps", (overlay,))
    assert 1 <= len(steps) <= 3


def test_assert_changes_takes_one_path_as_it_is() -> None:
    # a string is one path, not a list of one-letter ones
    overlay = upsert("spec.nodeSelector", {"gpu": "a100"})
    assert assert_changes(overlay, {"spec": {}}, only="spec.nodeSelector") == ["spec.nodeSelector"]


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"gpus": 8}, "make_pods(): gpus: takes no role option 'gpus'; did you mean gpu?"),
        ({"GPU": 8}, "make_pods(): GPU: takes no role option 'GPU'; did you mean gpu?"),
        ({"replicas": "4"}, "make_pods(): replicas is a whole number, not '4'"),
    ],
)
def test_pod_factory_options_that_do_not_fit_say_which(
    pod_factory: Any, options: dict[str, Any], said: str
) -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        pod_factory(**options)
    assert str(caught.value).startswith(said)


def test_transforms_apply_to_every_drawn_pod() -> None:
    # a chain adds no name twice (a container, a volume, a mount path), nor one a drawn pod
    # has: the recipes refuse a name used for something else, and a law stated with these
    # strategies is about the user's overlay, not about a clash the strategies made
    @settings(  # as many examples as the profile draws (ci: the same ones every run)
        database=None,
        deadline=None,
        derandomize=True,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(pods(), transforms(max_steps=8))
    def applies(pod: dict[str, Any], overlay: Any) -> None:
        overlay(pod)

    applies()
