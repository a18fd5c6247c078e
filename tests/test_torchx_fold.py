"""The fold at scale, through real TorchX: the garbage collector paused while a
request is folded and put back as found, no garbage piled up meanwhile, and
macros substituted exactly where the overlays wrote them (against an oracle).

The schedulers run TorchX's own dry run (both of them: a Volcano Job and an
AppWrapper, where TorchX still has MCAD); nothing is mocked.
"""

from __future__ import annotations

import copy
import gc
import string
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from torchx import specs
from torchx.schedulers.kubernetes_scheduler import KubernetesScheduler

from combinators import append_at, merge_by, upsert
from combinators.data import MISSING
from tests.torchx_versions import OVERLAY_SCHEDULERS, offline
from transforms.torchx.folding import (
    FoldError,
    FoldSettings,
    FoldViolationsError,
    fold_volcano_job,
    substitute_macros,
)
from transforms.torchx.roles import with_overlays
from transforms.torchx.schedulers import (
    KubernetesMCADOverlayScheduler,
    KubernetesOverlayScheduler,
    without_overlays,
)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

STEPS = (
    upsert("spec.nodeSelector", {"pool": "a100"}),
    append_at("spec.tolerations", {"key": "gpu", "operator": "Exists"}, unique=True),
    merge_by("spec.containers[0].env", [{"name": "RANK", "value": "${replica_id}"}]),
    upsert("metadata.labels", {"job": "${app_id}"}),
)
SCHEDULERS: dict[str, tuple[Callable[[], Any], dict[str, Any]]] = {
    "kubernetes_overlay": (lambda: KubernetesOverlayScheduler("test"), {"queue": "default"}),
    "kubernetes_mcad_overlay": (
        lambda: KubernetesMCADOverlayScheduler("test"),
        {"namespace": "ml"},
    ),
}


def make_app(replicas: int, *overlays: Any) -> specs.AppDef:
    role = specs.Role(
        name="trainer",
        image="trainer:1",
        entrypoint="python",
        args=["-m", "train", "--rank", specs.macros.replica_id],
        num_replicas=replicas,
        resource=specs.Resource(cpu=2, gpu=0, memMB=4096),
    )
    return specs.AppDef(name="train", roles=[with_overlays(role, *overlays)])


def pods_of(resource: dict[str, Any]) -> list[dict[str, Any]]:
    if resource["kind"] == "Job":
        return [task["template"] for task in resource["spec"]["tasks"]]
    return [
        item["generictemplate"]
        for item in resource["spec"]["resources"]["GenericItems"]
        if isinstance(item["generictemplate"], dict)
        and item["generictemplate"].get("kind") == "Pod"
    ]


@pytest.fixture(params=OVERLAY_SCHEDULERS)
def dry_run(request: pytest.FixtureRequest) -> Callable[..., Any]:
    make, cfg = SCHEDULERS[request.param]
    scheduler = make()

    def run(app: specs.AppDef, **options: Any) -> list[dict[str, Any]]:
        # TorchX's public dry run: the run configuration resolved as TorchX resolves it
        # (newer TorchX hands _submit_dryrun its options as a dataclass)
        resource = scheduler.submit_dryrun(app, {**cfg, **options}).request.resource
        return pods_of(resource)

    return run


@pytest.fixture
def collector_on() -> Iterator[None]:
    """The collector on for the test, and afterwards as it was."""
    was_on = gc.isenabled()
    gc.enable()
    try:
        yield
    finally:
        if not was_on:
            gc.disable()


# --------------------------------------------------------------------------
# the collector


def test_the_collector_is_paused_on_every_pod_and_put_back(
    dry_run: Callable[..., Any], collector_on: None
) -> None:
    seen: list[bool] = []

    def spy(pod: Any) -> Any:
        seen.append(gc.isenabled())
        return pod

    pods = dry_run(make_app(3, *STEPS, spy))
    assert len(pods) == len(seen) == 3
    assert seen == [False, False, False]
    assert gc.isenabled()


def test_a_caller_that_keeps_the_collector_off_finds_it_off(
    dry_run: Callable[..., Any], collector_on: None
) -> None:
    gc.disable()
    pods = dry_run(make_app(2, *STEPS))
    assert not gc.isenabled()
    assert [pod["spec"]["containers"][0]["env"][-1] for pod in pods] == [
        {"name": "RANK", "value": "0"},
        {"name": "RANK", "value": "1"},
    ]


def test_the_collector_is_put_back_when_the_fold_fails(
    dry_run: Callable[..., Any], collector_on: None
) -> None:
    def fail_on_replica_1(pod: Any) -> Any:
        if pod["metadata"]["labels"]["torchx.pytorch.org/replica-id"] == "1":
            raise ValueError("replica 1 is refused")
        return pod

    with pytest.raises(FoldError, match="replica 1"):
        dry_run(make_app(3, fail_on_replica_1))
    assert gc.isenabled()
    # and an invalid pod, refused by validation
    with pytest.raises(FoldError, match="not valid"):
        dry_run(make_app(2, upsert("spec.hostIPC", "yes")))
    assert gc.isenabled()


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"validate": False},
        {"conflicts": "warn"},
        {"policy": "baseline"},
        {"allow": ("spec", "metadata")},
        {"deny": ("spec.hostIPC",)},
    ],
)
def test_the_fold_leaves_no_garbage_for_the_collector(
    options: dict[str, Any], collector_on: None
) -> None:
    # While the collector waits, only reference cycles could pile up: the fold
    # makes none, whatever its checks (in "warn" mode an error is raised and
    # caught on every pod; "deny" finds a violation on every pod), so what it
    # throws away is freed as it goes.
    app = make_app(40, *STEPS, upsert("spec.hostIPC", True), upsert("spec.hostIPC", False))
    rendered = (
        KubernetesScheduler("test")
        .submit_dryrun(without_overlays(app), offline({"queue": "default"}))
        .request.resource
    )
    fold = FoldSettings(**options)

    # With the collector off, the youngest generation holds exactly what the run made:
    # collecting it alone finds any cycle among those, without walking the whole heap of
    # a test process that has run hundreds of tests (seconds of each full collection).
    def run() -> int:
        gc.collect(0)
        gc.disable()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                folded = fold_volcano_job(app, rendered, fold)
            assert len(folded["spec"]["tasks"]) == 40
        except FoldViolationsError as err:
            assert len(err.violations) == 40
        return gc.collect(0)

    run()  # what is made once and kept (compiled checks and paths) is made here
    assert run() == 0


# --------------------------------------------------------------------------
# macros, against an oracle

VALUES = {"replica_id": "7", "app_id": "train-x1", "img_root": "", "rank0_env": "HOST"}
# each draw a string object of its own: which strings are "the same" is told by identity
strings = st.sampled_from(
    [
        "ab",
        "${replica_id}",
        "r-${replica_id}-${app_id}",
        "${nope}",
        "$$",
        "$${replica_id}",
        "$replica_id",
        "${img_root}/x",
    ]
).map(lambda text: (text + ".")[:-1])
scalars = st.one_of(strings, st.integers(-3, 3), st.booleans(), st.none(), st.just(1.5))
keys = st.sampled_from(["a", "b", "c", "name", "value"])
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=20,
)


@st.composite
def edited(draw: st.DrawFn, old: Any) -> Any:
    """A new version of ``old`` as an overlay makes it: parts kept (the same objects),
    parts replaced or added (fresh), containers along the changes copied."""
    choice = draw(st.sampled_from(["keep", "replace", "edit"]))
    if choice == "keep":
        return old
    if choice == "replace" or not isinstance(old, (dict, list)):
        return draw(documents)
    if isinstance(old, dict):
        new = {key: draw(edited(value)) for key, value in old.items()}
        new.update(draw(st.dictionaries(keys, documents, max_size=2)))
        return new
    new_items = [draw(edited(item)) for item in old]
    extra = draw(st.lists(documents, max_size=2))
    shuffled = draw(st.permutations(new_items)) if draw(st.booleans()) else new_items
    return [*shuffled, *extra]


def oracle(new: Any, old: Any) -> Any:
    """Every string of ``new`` that is not (the very object) a part of ``old`` where it
    stands, with its macros substituted; a list's element may stand anywhere in the old list."""
    if new is old:
        return new
    if isinstance(new, str):
        return string.Template(new).safe_substitute(VALUES) if "${" in new else new
    if isinstance(new, dict):
        before = old if isinstance(old, dict) else {}
        return {key: oracle(value, before.get(key, MISSING)) for key, value in new.items()}
    if isinstance(new, list):
        olds = old if isinstance(old, list) else []
        return [
            item
            if any(item is element for element in olds)
            else oracle(item, olds[index] if index < len(olds) else MISSING)
            for index, item in enumerate(new)
        ]
    return new


def fresh_macros(new: Any, old: Any) -> bool:
    """Whether a string with ``${`` stands in ``new`` where ``old`` does not have it."""
    if new is old:
        return False
    if isinstance(new, str):
        return "${" in new
    if isinstance(new, dict):
        before = old if isinstance(old, dict) else {}
        return any(fresh_macros(value, before.get(key, MISSING)) for key, value in new.items())
    if isinstance(new, list):
        olds = old if isinstance(old, list) else []
        return any(
            not any(item is element for element in olds)
            and fresh_macros(item, olds[index] if index < len(olds) else MISSING)
            for index, item in enumerate(new)
        )
    return False


@settings(max_examples=settings.default.max_examples * 6, deadline=None)
@given(st.data(), documents)
def test_macros_are_substituted_as_the_oracle_says(data: st.DataObject, old: Any) -> None:
    # substitute_macros(new, old) == oracle(new, old); the inputs are left alone;
    # where nothing was written with a macro, new itself comes back
    new = data.draw(edited(old))
    old_copy, new_copy = copy.deepcopy(old), copy.deepcopy(new)
    result = substitute_macros(new, old, VALUES)
    assert result == oracle(new, old)
    assert old == old_copy and new == new_copy
    if not fresh_macros(new, old):
        assert result is new


@settings(max_examples=settings.default.max_examples * 10, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "$",
                "{",
                "}",
                "$$",
                "${",
                "a",
                "_",
                "1",
                "-",
                "A",
                "é",
                "replica_id",
                "app_id",
                "img_root",
                "rank0_env",
                "nope",
            ]
        ),
        max_size=12,
    ).map("".join)
)
def test_a_written_string_is_substituted_as_torchx_substitutes(text: str) -> None:
    # TorchX's own substitution: string.Template(text).safe_substitute(values); podfold
    # substitutes what overlays wrote with a "${" in it
    expected = string.Template(text).safe_substitute(VALUES) if "${" in text else text
    assert substitute_macros(text, None, VALUES) == expected


def test_what_the_overlays_only_moved_is_left_as_it_was() -> None:
    # an element of the old list, moved: not written by an overlay, so not substituted
    # (TorchX substitutes its own macros; "$${replica_id}" leaves a literal one)
    literal, other = "${replica_id}", "x"
    written = (literal + ".")[:-1]  # equal, but another object: what an overlay wrote
    old = {"args": [literal, other], "env": [{"value": literal}]}
    new = {"args": [other, literal, "${replica_id}-new"], "env": [{"value": written}, *old["env"]]}
    assert substitute_macros(new, old, VALUES) == {
        "args": ["x", "${replica_id}", "7-new"],
        "env": [{"value": "7"}, {"value": "${replica_id}"}],
    }


def test_macros_in_rendered_pods_are_substituted_per_replica(dry_run: Callable[..., Any]) -> None:
    pods = dry_run(make_app(3, *STEPS))
    assert [pod["spec"]["containers"][0]["env"][-1]["value"] for pod in pods] == ["0", "1", "2"]
    jobs = {pod["metadata"]["labels"]["job"] for pod in pods}
    assert len(jobs) == 1 and "${" not in next(iter(jobs))
    # TorchX's own substitution in the args stays as TorchX made it
    assert [pod["spec"]["containers"][0]["command"][-1] for pod in pods] == ["0", "1", "2"]


def test_the_fold_leaves_the_rendered_request_alone_and_validation_changes_nothing() -> None:
    app = make_app(3, *STEPS)
    rendered = (
        KubernetesScheduler("test")
        .submit_dryrun(without_overlays(app), offline({"queue": "default"}))
        .request.resource
    )
    before = copy.deepcopy(rendered)
    folded = fold_volcano_job(app, rendered, FoldSettings())
    assert rendered == before
    assert folded == fold_volcano_job(app, rendered, FoldSettings(validate=False))
    assert folded["spec"]["tasks"][2]["template"]["spec"]["nodeSelector"] == {"pool": "a100"}
