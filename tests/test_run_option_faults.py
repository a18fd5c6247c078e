"""Run options that would silently do other than written: a key given twice, an empty overlay.

TorchX's own ``to_dict`` keeps the last value of a key given twice, so
``-cfg "overlays=a.yaml,overlays=b.yaml"`` applied only ``b.yaml`` and
``validate=false,validate=true`` read as true. A list option takes every
value given, in order; any other option given twice with different values
is refused, naming it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from torchx.runner import get_runner
from torchx.util.types import to_dict

from tests import warm
from transforms.torchx.errors import RunOptionError
from transforms.torchx.options import _pairs, add_options

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

REPO = Path(__file__).resolve().parent.parent
TORCHX_CLI = Path(sys.executable).with_name("torchx")
PODFOLD_CLI = Path(sys.executable).with_name("podfold")


@pytest.fixture(scope="module")
def opts():  # type: ignore[no-untyped-def]
    with get_runner() as runner:
        return runner.scheduler_run_opts("kubernetes_overlay")


def test_a_list_option_given_twice_takes_both_in_order(opts) -> None:  # type: ignore[no-untyped-def]
    assert opts.parse("overlays=a.yaml,overlays=b.yaml;c.yaml")["overlays"] == [
        "a.yaml",
        "b.yaml",
        "c.yaml",
    ]
    assert opts.parse("role_overlays=trainer:a.yaml,queue=q,role_overlays=ps:b.yaml")[
        "role_overlays"
    ] == ["trainer:a.yaml", "ps:b.yaml"]
    assert opts.parse("deny=spec.hostNetwork,deny=spec.hostPID")["deny"] == [
        "spec.hostNetwork",
        "spec.hostPID",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "validate=false,validate=true",
        "queue=a,queue=b",
        "k8s_version=1.30,overlays=a.yaml,k8s_version=1.31",
        "conflicts=warn;conflicts=error",
    ],
)
def test_any_other_option_given_twice_differently_is_refused_naming_it(opts, text: str) -> None:  # type: ignore[no-untyped-def]
    key = text.split("=", 1)[0]
    with pytest.raises(RunOptionError, match=rf"run option {key} is given twice") as caught:
        opts.parse(text)
    assert caught.value.cfg_key == key


def test_the_same_value_twice_means_what_it_says(opts) -> None:  # type: ignore[no-untyped-def]
    assert opts.parse("validate=false,queue=q,validate=false") == {"validate": False, "queue": "q"}


def test_a_very_long_repeated_value_is_quoted_short(opts) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RunOptionError) as caught:
        opts.parse(f"queue={'q' * 10_000},queue=b")
    assert len(str(caught.value)) < 300


_KEY = st.sampled_from(["queue", "overlays", "validate", "namespace", "deny", "x"])
_VALUE = st.lists(st.text("abc.:/-_", min_size=1, max_size=6), min_size=1, max_size=3)
_SEP = st.sampled_from([",", ";"])


@settings(max_examples=settings.default.max_examples * 4, derandomize=True)
@given(
    st.lists(st.tuples(_KEY, _VALUE, _SEP), min_size=1, max_size=5, unique_by=lambda pair: pair[0])
)
def test_without_repeats_the_pairs_are_torchx_s_own(
    pairs: list[tuple[str, list[str], str]],
) -> None:
    # torchx's to_dict is the reference wherever no key repeats
    text = ",".join(f"{key}={sep.join(values)}" for key, values, sep in pairs)
    assert dict(_pairs(text)) == to_dict(text)
    assert [key for key, _ in _pairs(text)] == list(to_dict(text))


def _run(program: str, *args: str) -> subprocess.CompletedProcess[str]:
    return warm.run(Path(program).name, args, cwd=REPO, timeout=180)


def _overlays(tmp_path: Path) -> tuple[Path, Path]:
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text("spec:\n  nodeSelector: {pool: a100}\n")
    second.write_text("spec:\n  priorityClassName: high\n")
    return first, second


@pytest.mark.skipif(not TORCHX_CLI.exists(), reason="the torchx command is not installed")
def test_torchx_run_applies_both_overlays_given_as_two_keys(tmp_path: Path) -> None:
    first, second = _overlays(tmp_path)
    done = _run(
        str(TORCHX_CLI),
        "run",
        "--scheduler",
        "kubernetes_overlay",
        "--dryrun",
        "--workspace",
        "",
        "-cfg",
        f"queue=default,overlays={first},overlays={second}",
        "examples/trainer.py:trainer",
    )
    assert done.returncode == 0, done.stderr
    job = yaml.safe_load(done.stdout.split("=== SCHEDULER REQUEST ===", 1)[1])
    for task in job["spec"]["tasks"]:
        spec = task["template"]["spec"]
        assert spec["nodeSelector"] == {"pool": "a100"}
        assert spec["priorityClassName"] == "high"


@pytest.mark.skipif(not TORCHX_CLI.exists(), reason="the torchx command is not installed")
def test_torchx_run_refuses_a_scalar_option_given_twice(tmp_path: Path) -> None:
    done = _run(
        str(TORCHX_CLI),
        "run",
        "--scheduler",
        "kubernetes_overlay",
        "--dryrun",
        "--workspace",
        "",
        "-cfg",
        "queue=default,validate=false,validate=true",
        "examples/trainer.py:trainer",
    )
    assert done.returncode == 1
    assert "run option validate is given twice, as 'false' and 'true'" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(not PODFOLD_CLI.exists(), reason="the podfold command is not installed")
def test_render_applies_both_and_refuses_a_flag_the_cfg_contradicts(tmp_path: Path) -> None:
    first, second = _overlays(tmp_path)
    done = _run(
        str(PODFOLD_CLI),
        "render",
        "--queue",
        "default",
        "-c",
        f"overlays={first},overlays={second}",
        "examples/trainer.py:trainer",
    )
    assert done.returncode == 0, done.stderr
    for task in yaml.safe_load(done.stdout)["spec"]["tasks"]:
        assert task["template"]["spec"]["priorityClassName"] == "high"
        assert task["template"]["spec"]["nodeSelector"] == {"pool": "a100"}
    done = _run(
        str(PODFOLD_CLI),
        "render",
        "--queue",
        "default",
        "-c",
        "queue=other",
        "examples/trainer.py:trainer",
    )
    assert done.returncode == 2
    assert "--queue and -c queue=other say different things" in done.stderr
    done = _run(
        str(PODFOLD_CLI),
        "render",
        "--queue",
        "default",
        "--no-validate",
        "-c",
        "validate=true",
        "examples/trainer.py:trainer",
    )
    assert done.returncode == 2 and "--no-validate" in done.stderr


def test_add_options_is_what_the_scheduler_uses(opts) -> None:  # type: ignore[no-untyped-def]
    # the checked parse above is the one the scheduler registers, not a copy
    assert type(opts) is type(add_options(opts, "kubernetes_overlay"))


def test_an_empty_overlay_a_run_option_names_is_warned_about_at_the_file(tmp_path: Path) -> None:
    import warnings

    from transforms.torchx import EmptyOverlayWarning
    from transforms.torchx.options import fold_settings

    empty = tmp_path / "empty.yaml"
    empty.write_text("# the A100 pool: to do\n")
    for cfg, key in (
        ({"overlays": [str(empty)]}, "overlays"),
        ({"role_overlays": [f"trainer:{empty}"]}, "role_overlays"),
    ):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fold_settings(cfg)
        [warning] = [w for w in caught if w.category is EmptyOverlayWarning]
        assert (warning.filename, warning.lineno) == (str(empty), 1)
        assert "holds no step" in str(warning.message) and key in str(warning.message)


@pytest.mark.skipif(not PODFOLD_CLI.exists(), reason="the podfold command is not installed")
def test_render_warns_of_an_empty_overlay_as_apply_does(tmp_path: Path) -> None:
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    done = _run(
        str(PODFOLD_CLI),
        "render",
        "--queue",
        "default",
        "-f",
        str(empty),
        "examples/trainer.py:trainer",
    )
    assert done.returncode == 0, done.stderr
    assert f"{empty}:1: EmptyOverlayWarning: the overlay holds no step" in done.stderr


def _fifo_with(tmp_path: Path, name: str, text: str) -> tuple[Path, threading.Thread]:
    """A named pipe that gives ``text`` to its first reader, once (as ``<(cat f)`` does)."""
    fifo = tmp_path / name
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w") as handle:  # waits for the reader
            handle.write(text)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return fifo, writer


@pytest.mark.skipif(not TORCHX_CLI.exists(), reason="the torchx command is not installed")
def test_overlays_from_pipes_are_read_once_and_their_lines_named(tmp_path: Path) -> None:
    # a pipe gives its text once: the conflict's lines come from the text the fold applied;
    # reading it again to name them waited for a writer for ever
    first, _ = _fifo_with(tmp_path, "a.fifo", "# the pool\nspec:\n  nodeSelector:\n    pool: a\n")
    second, _ = _fifo_with(
        tmp_path, "b.fifo", "- {op: upsert, path: spec.nodeSelector.pool, value: b}\n"
    )
    done = subprocess.run(
        [
            str(TORCHX_CLI),
            "run",
            "--scheduler",
            "kubernetes_overlay",
            "--dryrun",
            "--workspace",
            "",
            "-cfg",
            f"queue=default,conflicts=error,overlays={first};{second}",
            "examples/trainer.py:trainer",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert (
        f"conflict at spec.nodeSelector.pool: {first}:4 wrote 'a', then {second}:1 wrote "
        "'b'" in done.stderr
    ), done.stderr
