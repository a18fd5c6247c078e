"""``podfold render``'s errors and help, the installed script run in a subprocess.

The examples in ``podfold render --help`` run as written; every mistake a
user can make (a missing queue, a malformed ``-c``, a component refusing its
arguments, a broken ``.torchxconfig``, an overlay URI that cannot be read)
is one short line and an exit code, never ``internal error``. Overlay URIs
that fail offline: a ``memory://`` path that does not exist, an ``https``
host that does not resolve (``.invalid`` never does), ``s3://`` with no
credentials where s3fs is installed. Nothing is mocked.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests import warm
from transforms.analysis.blame import load_steps
from transforms.errors import OverlayError
from transforms.io.loading import load_overlay

REPO = Path(__file__).resolve().parent.parent
PODFOLD = Path(sys.executable).with_name("podfold")
COMPONENT = "examples/trainer.py:trainer"
A100 = {"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"}


def run(
    *args: str, cwd: Path = REPO, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return warm.run("podfold", args, cwd=cwd, env=env)


def usage_error(result: subprocess.CompletedProcess[str]) -> str:
    """click's message of a usage error: exit 2, no traceback, nothing on stdout."""
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert result.stdout == ""
    return result.stderr.split("Error: ", 1)[1].strip()


def failure(result: subprocess.CompletedProcess[str]) -> str:
    """podfold's one line for a failure: exit 1, ``podfold: error: ...``."""
    assert result.returncode == 1, result.stdout + result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("podfold: error: "), line
    return line.removeprefix("podfold: error: ")


def tasks(stdout: str) -> list[dict[str, object]]:
    job = yaml.safe_load(stdout)
    assert job["kind"] == "Job"
    found: list[dict[str, object]] = job["spec"]["tasks"]
    return found


# --- the help's examples ---------------------------------------------------------------------


def help_examples() -> list[list[str]]:
    result = run("render", "--help")
    assert result.returncode == 0, result.stderr
    lines = [line.strip() for line in result.stdout.splitlines()]
    examples = [shlex.split(line)[1:] for line in lines if line.startswith("podfold render ")]
    assert len(examples) == 2, result.stdout
    return examples


def test_the_help_s_examples_run_as_written() -> None:
    every_role, one_role = help_examples()
    first = run(*every_role)
    assert first.returncode == 0, first.stderr
    rendered = tasks(first.stdout)
    assert [task["name"] for task in rendered] == [*(f"trainer-{n}" for n in range(4)), "ps-0"]
    assert all(
        task["template"]["spec"]["nodeSelector"] == A100  # type: ignore[index]
        for task in rendered
    )
    second = run(*one_role)
    assert second.returncode == 0, second.stderr
    selectors = {
        task["name"]: task["template"]["spec"]["nodeSelector"]  # type: ignore[index]
        for task in tasks(second.stdout)
    }
    assert selectors == {"trainer-0": {}, "trainer-1": {}, "ps-0": A100}


# --- usage errors ----------------------------------------------------------------------------


def test_a_missing_queue_names_render_s_queue_flag() -> None:
    message = usage_error(run("render", "-f", "examples/a100.yaml", COMPONENT))
    assert message == (
        "kubernetes_overlay needs the run option queue: give --queue QUEUE (or -c queue=...)"
    )


def test_a_component_refusing_its_arguments_is_a_usage_error_naming_it() -> None:
    message = usage_error(run("render", "--queue", "q", "dist.ddp"))
    assert message.startswith(
        "component dist.ddp failed: ValueError: exactly one of --script and -m must be specified"
    )
    assert "podfold render [OPTIONS] dist.ddp [ARGS]..." in message
    assert "'podfold render dist.ddp --help' lists them" in message
    # the arguments go after the component, as the message says
    given = run("render", "--queue", "q", "dist.ddp", "--script", "train.py")
    assert given.returncode == 0, given.stderr
    assert [task["name"] for task in tasks(given.stdout)] == ["train-0"]  # the script's name


def test_an_argument_the_component_s_parser_refuses_exits_2() -> None:
    result = run("render", "--queue", "q", COMPONENT, "--replicas", "two")
    assert result.returncode == 2
    assert "argument --replicas: invalid int value: 'two'" in result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr


COMPONENTS = {
    "syntax": ("def app(:\n", "cannot be loaded: SyntaxError: "),
    "import": (
        "import podfold_no_such_module\n",
        "cannot be loaded: ModuleNotFoundError: No module named 'podfold_no_such_module'",
    ),
    "not-an-app": (
        "import torchx.specs as specs\n\n\ndef app() -> specs.AppDef:\n"
        '    """An app."""\n    return 1\n',
        "returned int, not a torchx.specs.AppDef",
    ),
}


@pytest.mark.parametrize("case", COMPONENTS)
def test_a_component_file_that_fails_is_a_usage_error(tmp_path: Path, case: str) -> None:
    source, words = COMPONENTS[case]
    (tmp_path / "component.py").write_text(source)
    component = f"{tmp_path / 'component.py'}:app"
    message = usage_error(run("render", "--queue", "q", component))
    assert message.startswith(f"Invalid value for 'COMPONENT': {component} "), message
    assert words in message


def test_an_app_torchx_cannot_render_is_a_failure_naming_it(tmp_path: Path) -> None:
    (tmp_path / "component.py").write_text(
        'import torchx.specs as specs\n\n\ndef app() -> specs.AppDef:\n    """No resource."""\n'
        '    return specs.AppDef("job", roles=[specs.Role("r", image="i", entrypoint="e", '
        "resource=None)])\n"
    )
    line = failure(run("render", "--queue", "q", f"{tmp_path / 'component.py'}:app"))
    assert line == (
        "TorchX cannot render the app 'job': AttributeError: 'NoneType' object "
        "has no attribute 'cpu'"
    )


@pytest.mark.parametrize(
    ("cfg", "words"),
    [
        (
            "role_overlays=trainer=examples/a100.yaml",
            "run option role_overlays: an item is ROLE:URI (trainer:gpu.yaml), got "
            "'trainer=examples/a100.yaml'; did you mean trainer:examples/a100.yaml?",
        ),
        ("validate=maybe", "run option validate: expected true or false, got 'maybe'"),
        (
            "policy=strict",
            "run option policy is one of baseline, restricted, got 'strict'; "
            "did you mean restricted?",
        ),
        (
            "overlay=examples/a100.yaml",
            "no run option 'overlay'; did you mean overlays or role_overlays?",
        ),
    ],
)
def test_a_malformed_cfg_is_a_usage_error_naming_the_option(cfg: str, words: str) -> None:
    assert words in usage_error(run("render", "--queue", "q", "-c", cfg, COMPONENT))


def test_a_torchxconfig_that_cannot_be_read_is_named(tmp_path: Path) -> None:
    config = tmp_path / ".torchxconfig"
    config.write_text("[kubernetes_overlay]\nvalidate = maybe\nqueue = default\n")
    env = {**os.environ, "HOME": str(tmp_path)}
    env.pop("TORCHXCONFIG", None)
    line = failure(run("render", f"{REPO}/{COMPONENT}", cwd=tmp_path, env=env))
    # TorchX's own words follow (0.7.0: "Not a boolean: maybe"; newer: "`maybe` is not a
    # valid bool literal, ...")
    assert line.startswith(f"{config}: cannot read TorchX's configuration: ValueError: ")
    assert "maybe" in line and "\n" not in line
    config.write_text("[kubernetes_overlay]\nqueue = default\n")
    read = run("render", f"{REPO}/{COMPONENT}", cwd=tmp_path, env=env)
    assert read.returncode == 0, read.stderr
    assert yaml.safe_load(read.stdout)["spec"]["queue"] == "default"


# --- overlays from URIs that cannot be read --------------------------------------------------

ABSENT = "memory://podfold-render-tests/absent.yaml"
NO_HOST = "https://example.invalid/podfold/a100.yaml"


def test_an_absent_memory_uri_says_why() -> None:
    line = failure(run("render", "--queue", "q", "-f", ABSENT, COMPONENT))
    assert line == (
        f"{ABSENT}: cannot read the overlay: FileNotFoundError [in run option overlays]"
    )
    with pytest.raises(OverlayError) as caught:
        load_overlay(ABSENT)
    assert caught.value.source == ABSENT
    assert isinstance(caught.value.__cause__, FileNotFoundError)


def test_an_unresolvable_https_host_says_why() -> None:
    pytest.importorskip("aiohttp")  # fsspec's https driver
    line = failure(run("render", "--queue", "q", "--overlay", f"ps={NO_HOST}", COMPONENT))
    assert line.startswith(f"{NO_HOST}: cannot read the overlay: FileNotFoundError; from ")
    assert "Cannot connect to host example.invalid:443" in line  # aiohttp's cause, kept
    assert line.endswith("[in run option role_overlays]")


def test_explain_blame_reads_uris_the_same_way() -> None:
    with pytest.raises(OverlayError, match=r"cannot read the overlay: FileNotFoundError$"):
        load_steps(ABSENT)
    manifest = REPO / "tests" / "manifests" / "kubernetes" / "nginx-deployment.yaml"
    line = failure(run("explain", "--blame", "-f", ABSENT, str(manifest)))
    assert line == f"{ABSENT}: cannot read the overlay: FileNotFoundError"


def test_s3_without_credentials_is_a_user_error(tmp_path: Path) -> None:
    pytest.importorskip("s3fs")
    # no credentials anywhere, and no instance metadata service to ask: offline
    env = {key: value for key, value in os.environ.items() if not key.startswith("AWS_")}
    env.update(
        AWS_EC2_METADATA_DISABLED="true",
        AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "no"),
        AWS_CONFIG_FILE=str(tmp_path / "no"),
    )
    line = failure(
        run("render", "--queue", "q", "-f", "s3://podfold-nobucket/x.yaml", COMPONENT, env=env)
    )
    assert line == (
        "s3://podfold-nobucket/x.yaml: cannot read the overlay: NoCredentialsError: "
        "Unable to locate credentials [in run option overlays]"
    )
