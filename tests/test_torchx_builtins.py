"""TorchX's own schedulers, which podfold registers again beside its own.

TorchX 0.7.0 lists its built-in schedulers only while no package registers one under
``torchx.schedulers``; podfold registers ``kubernetes_overlay``, so it registers TorchX
0.7.0's ten built-ins too. Each must be TorchX's own scheduler, with TorchX's own run
options, wherever this TorchX has it and can import it; where it cannot (a newer TorchX
that removed it, a package the scheduler needs that is not installed) ``torchx runopts``
and ``torchx run`` say so in one short line, never in a traceback.

The tests hold on any TorchX: what each name should be is asked of TorchX's own module.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import torchx
from torchx import specs
from torchx.runner import Runner
from torchx.schedulers import get_default_scheduler_name, get_scheduler_factories
from torchx.schedulers.api import Scheduler

from combinators import TransformError
from transforms.torchx.errors import LaunchError

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

REPO = Path(__file__).resolve().parent.parent
TORCHX_CLI = Path(sys.executable).with_name("torchx")

TORCHX_070 = {
    "local_docker": "torchx.schedulers.docker_scheduler",
    "local_cwd": "torchx.schedulers.local_scheduler",
    "slurm": "torchx.schedulers.slurm_scheduler",
    "kubernetes": "torchx.schedulers.kubernetes_scheduler",
    "kubernetes_mcad": "torchx.schedulers.kubernetes_mcad_scheduler",
    "aws_batch": "torchx.schedulers.aws_batch_scheduler",
    "aws_sagemaker": "torchx.schedulers.aws_sagemaker_scheduler",
    "gcp_batch": "torchx.schedulers.gcp_batch_scheduler",
    "ray": "torchx.schedulers.ray_scheduler",
    "lsf": "torchx.schedulers.lsf_scheduler",
}
"""TorchX 0.7.0's built-in schedulers (its ``DEFAULT_SCHEDULER_MODULES``): the names a
package registering a scheduler hides there, and where TorchX keeps each."""
PODFOLDS_OWN = ("kubernetes_overlay", "kubernetes_mcad_overlay")


def torchx_own(name: str) -> Any:
    """What TorchX's own factory for ``name`` gives, or what importing its module raises."""
    try:
        module = importlib.import_module(TORCHX_070[name])
    except Exception as err:  # removed from this TorchX, or needs a package not installed
        return err
    return module.create_scheduler("test")


OWN = {name: torchx_own(name) for name in TORCHX_070}
WORKING = tuple(name for name, own in OWN.items() if isinstance(own, Scheduler))
BROKEN = tuple(name for name in TORCHX_070 if name not in WORKING)


def torchx_cli(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    command = (
        [str(TORCHX_CLI)] if TORCHX_CLI.exists() else [sys.executable, "-m", "torchx.cli.main"]
    )
    return subprocess.run(
        [*command, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def echo_app() -> specs.AppDef:
    return specs.AppDef(
        "echo", roles=[specs.Role(name="echo", image="/tmp", entrypoint="echo", args=["hi"])]
    )


def test_podfold_registers_torchx_070s_builtins_beside_its_own() -> None:
    found = {
        entry.name
        for entry in importlib.metadata.distribution("podfold").entry_points
        if entry.group == "torchx.schedulers"
    }
    assert found == {*TORCHX_070, *PODFOLDS_OWN}
    assert set(get_scheduler_factories()) >= found


@pytest.mark.parametrize("name", WORKING)
def test_a_builtin_this_torchx_has_is_torchxs_own_with_its_own_options(name: str) -> None:
    ours = get_scheduler_factories()[name]("test")
    assert type(ours) is type(OWN[name])
    assert repr(ours.run_opts()) == repr(OWN[name].run_opts())


@pytest.mark.parametrize("name", BROKEN)
def test_a_builtin_this_torchx_cannot_import_says_why_when_used(name: str) -> None:
    scheduler = get_scheduler_factories()[name]("test")
    assert isinstance(scheduler, Scheduler)  # what TorchX's config reader asks of a factory
    factories = {name: get_scheduler_factories()[name]}
    with (
        Runner("test", scheduler_factories=factories) as runner,
        pytest.raises(LaunchError) as caught,
    ):
        runner.dryrun(echo_app(), name)
    assert isinstance(caught.value, TransformError) and isinstance(caught.value, LookupError)
    assert caught.value.scheduler == name
    assert caught.value.torchx_version == torchx.__version__
    assert f" {name} scheduler" in str(caught.value) and "\n" not in str(caught.value)
    assert "No module named" not in str(caught.value)
    assert isinstance(caught.value.__cause__, type(OWN[name]))  # the import's own error


def test_runopts_lists_every_scheduler_as_torchx_does_or_why_it_cannot() -> None:
    done = torchx_cli("runopts")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "No module named" not in done.stdout
    for name in WORKING:  # cmd_runopts prints NAME:, then the options' repr
        assert f"\n{name}:\n{OWN[name].run_opts()!r}\n" in f"\n{done.stdout}", name
    lines = done.stdout.splitlines()
    for name in BROKEN:  # NAME:, then one line saying why
        reason = lines[lines.index(f"{name}:") + 1]
        assert reason.startswith("    ") and f" {name} scheduler" in reason, reason
        assert lines[lines.index(f"{name}:") + 2] == "", name


def test_runopts_of_kubernetes_prints_torchxs_own_options() -> None:
    done = torchx_cli("runopts", "kubernetes")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"kubernetes:\n{OWN['kubernetes'].run_opts()!r}\n\n"


def test_the_default_scheduler_is_the_first_name_in_alphabetical_order() -> None:
    # what the README tells users to pin in .torchxconfig: entry points are listed sorted
    assert get_default_scheduler_name() == sorted(get_scheduler_factories())[0]


def test_local_cwd_still_runs(tmp_path: Path) -> None:
    done = torchx_cli(
        "run",
        "--scheduler",
        "local_cwd",
        "--workspace",
        "",
        "-cfg",
        f"log_dir={tmp_path}",
        "utils.echo",
        "--msg",
        "hi-from-local-cwd",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    (log,) = tmp_path.glob("torchx/echo-*/echo/0/stdout.log")
    assert log.read_text().strip() == "hi-from-local-cwd"


def test_the_entry_points_module_loads_nothing_until_a_factory_is_called() -> None:
    # what torchx run --scheduler local_cwd loads of podfold (combinators alone costs tens of
    # milliseconds, against a few hundred for the whole command)
    code = (
        "import json, sys; before = set(sys.modules); import transforms.torchx.builtins; "
        "print(json.dumps(sorted(set(sys.modules) - before)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    ours = [
        name
        for name in json.loads(done.stdout)
        if name.split(".")[0] in ("transforms", "combinators", "recipes", "torchx")
    ]
    assert ours == [
        "transforms",
        "transforms._lazy",
        "transforms.torchx",
        "transforms.torchx.builtins",
    ]


def test_the_table_is_torchx_070_s_own() -> None:
    # the expectation above is written out; on TorchX 0.7.0 it must be TorchX's own table,
    # and podfold registers exactly it again
    import torchx
    from torchx import schedulers

    from transforms.torchx.builtins import BUILTIN_SCHEDULERS

    assert dict(BUILTIN_SCHEDULERS) == TORCHX_070
    if torchx.__version__ != "0.7.0":
        pytest.skip(f"TorchX {torchx.__version__}: its own table is not 0.7.0's")
    assert schedulers.DEFAULT_SCHEDULER_MODULES == TORCHX_070
