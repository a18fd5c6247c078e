"""Laws of the recipes over random arguments, with hypothesis: idempotence,
inputs left alone, equal calls equal recipes; and the quantity parser
against the Kubernetes Python client's."""

from __future__ import annotations

import copy
from decimal import ROUND_CEILING, Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kubernetes.utils import parse_quantity as client_parse_quantity

import recipes
from combinators import ArgumentError
from transforms.kube.quantity import is_quantity, parse_quantity

# 60 examples a law under the suite's ci profile (tests/conftest.py), more under fuzz; set
# per test, as a profile loaded here would change every later test of the session
laws = settings(
    max_examples=settings.default.max_examples * 3 // 5,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

POD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"labels": {"app.kubernetes.io/instance": "llm-1"}},
    "spec": {
        "containers": [
            {
                "name": "trainer-0",
                "image": "x",
                "env": [{"name": "A", "value": "1"}],
                "volumeMounts": [{"mountPath": "/dev/shm", "name": "dshm"}],
            },
            {"name": "proxy", "image": "envoy"},
        ],
        "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory"}}],
        "tolerations": [{"key": "spot", "operator": "Exists"}],
    },
}

dns_labels = st.from_regex(r"[a-z]([a-z0-9-]{0,10}[a-z0-9])?", fullmatch=True)
env_names = st.from_regex(r"[A-Z_][A-Z0-9_]{0,12}", fullmatch=True).filter(
    lambda name: name != "container"
)
env_values = st.one_of(
    st.text(max_size=20),
    st.integers(),
    st.booleans(),
    st.builds(recipes.SecretKey, dns_labels, dns_labels),
    st.builds(recipes.FieldRef, st.sampled_from(["metadata.name", "status.podIP"])),
)
label_values = st.from_regex(r"([a-z0-9]([a-z0-9._-]{0,10}[a-z0-9])?)?", fullmatch=True)
quantities = st.builds(
    lambda number, suffix: f"{number}{suffix}",
    st.integers(min_value=1, max_value=10**6),
    st.sampled_from(["", "Ki", "Mi", "Gi", "Ti", "k", "M", "G", "m"]),
)
containers = st.sampled_from([None, "*", "proxy", "trainer-0"])


def law_holds(recipe: Any) -> None:
    before = copy.deepcopy(POD)
    once = recipe(POD)
    assert before == POD, "input changed"
    assert recipe(once) == once, "not idempotent"


@laws
@given(st.dictionaries(env_names, env_values, min_size=1, max_size=5), containers)
def test_add_env_is_idempotent(variables: dict[str, Any], container: str | None) -> None:
    law_holds(recipes.add_env(variables, container=container))


@laws
@given(
    st.dictionaries(
        st.from_regex(r"[a-z]{1,8}(\.io/[a-z]{1,8})?", fullmatch=True),
        label_values,
        min_size=1,
        max_size=4,
    )
)
def test_node_selector_and_labels_are_idempotent(labels: dict[str, str]) -> None:
    law_holds(recipes.node_selector(labels))
    law_holds(recipes.add_labels(labels))
    law_holds(recipes.add_annotations(labels))


@laws
@given(
    st.from_regex(r"[a-z]{1,8}(\.com/[a-z]{1,8})?", fullmatch=True),
    st.one_of(st.none(), label_values.filter(bool)),
    st.sampled_from([None, "NoSchedule", "PreferNoSchedule", "NoExecute"]),
    st.one_of(st.none(), st.integers(min_value=0, max_value=3600)),
)
def test_add_toleration_is_idempotent(
    key: str, value: str | None, effect: str | None, seconds: int | None
) -> None:
    if seconds is not None and effect != "NoExecute":
        seconds = None
    recipe = recipes.add_toleration(key, value=value, effect=effect, seconds=seconds)
    law_holds(recipe)
    assert recipe == recipes.add_toleration(key, None, value, effect, seconds)


@laws
@given(
    st.sampled_from(sorted(recipes.gpu_types.GPU_TYPES)),
    st.sampled_from(["gke", "eks", "gfd"]),
    st.one_of(st.none(), st.integers(1, 16)),
)
def test_gpu_is_idempotent_for_every_known_type(
    type: str, provider: str, count: int | None
) -> None:
    if provider not in recipes.gpu_types.GPU_TYPES[type]:
        return
    law_holds(recipes.gpu(type, count=count, provider=provider))


@laws
@given(
    st.dictionaries(
        st.sampled_from(["cpu", "memory", "nvidia.com/gpu", "ephemeral-storage"]),
        quantities,
        min_size=1,
    ),
    containers,
)
def test_resources_and_shm_size_are_idempotent(
    limits: dict[str, str], container: str | None
) -> None:
    law_holds(recipes.resources(limits=limits, container=container))
    law_holds(recipes.shm_size(next(iter(limits.values())), container=container))


@laws
# not POD's own volume nor its path: a mount there is refused (tests/test_recipe_name_clashes.py)
@given(
    dns_labels.filter(lambda name: name != "dshm"),
    st.from_regex(r"/[a-z]{1,8}(/[a-z]{1,8})?", fullmatch=True).filter(
        lambda path: path != "/dev/shm"
    ),
    st.booleans(),
    containers,
)
def test_mounts_are_idempotent(
    name: str, mount_path: str, read_only: bool, container: str | None
) -> None:
    law_holds(recipes.mount_pvc(name, mount_path, read_only=read_only, container=container))
    law_holds(recipes.mount_secret(name, mount_path, container=container))
    law_holds(recipes.mount_config_map(name, mount_path, container=container))
    law_holds(recipes.mount_empty_dir(name, mount_path, memory=read_only, container=container))


@laws
@given(
    st.from_regex(r"[a-z]{1,6}", fullmatch=True),
    st.lists(label_values.filter(bool), min_size=1, max_size=3),
)
def test_require_node_affinity_is_idempotent_and_only_narrows(key: str, values: list[str]) -> None:
    recipe = recipes.require_node_affinity(key, values)
    law_holds(recipe)
    other = recipes.require_node_affinity("zone", "a")
    both = recipe(other(POD))
    term = both["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    assert len(term) == 1
    assert {"key": "zone", "operator": "In", "values": ["a"]} in term[0]["matchExpressions"]


@laws
@given(
    st.builds(
        lambda sign, whole, fraction, suffix: f"{sign}{whole}{fraction}{suffix}",
        st.sampled_from(["", "+", "-"]),
        st.integers(0, 10**9).map(str),
        st.sampled_from(["", ".5", ".25", "."]),
        st.sampled_from(
            [
                "",
                "Ki",
                "Mi",
                "Gi",
                "Ti",
                "Pi",
                "Ei",
                "n",
                "u",
                "m",
                "k",
                "M",
                "G",
                "T",
                "P",
                "E",
                "e3",
                "E-2",
                "e0",
            ]
        ),
    )
)
def test_quantity_parser_agrees_with_the_kubernetes_client(text: str) -> None:
    assert is_quantity(text)
    # the client's parser is exact and unbounded; Kubernetes (and podfold) keep a quantity
    # in nano units, rounded up, within 2**63-1
    theirs = client_parse_quantity(text)
    nanos = (abs(theirs) * 10**9).to_integral_value(rounding=ROUND_CEILING) / Decimal(10**9)
    if nanos > 2**63 - 1:
        with pytest.raises(ArgumentError, match="out of range"):
            parse_quantity(text)
        return
    mine = parse_quantity(text)
    assert Decimal(mine.numerator) / Decimal(mine.denominator) == (nanos if theirs >= 0 else -nanos)


def test_quantity_parser_rejects_what_kubernetes_rejects() -> None:
    for text in ["", "1GB", "1 Gi", "Gi", "1.2.3", "1Ki2", "0x10", "1e", "1iB", "--1", "1gi"]:
        assert not is_quantity(text), text
