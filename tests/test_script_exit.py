"""The console script ends the process at once once ``main`` is done
(:func:`transforms.cli.main.script`): the same output, the same exit codes, the
functions registered with :mod:`atexit` run, a running thread waited for, and
Python's own exit wherever it cannot be done so.

How much time it saves is measured by ``benchmarks/bench_streams.py``, never here.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

PODFOLD = Path(sys.executable).with_name("podfold")
OVERLAY = "spec:\n  nodeSelector:\n    pool: a100\n"


def jobs(count: int) -> str:
    return yaml.safe_dump_all(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": f"train-{number}"},
            "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}},
        }
        for number in range(count)
    )


def in_python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "o.yaml").write_text(OVERLAY)
    (tmp_path / "jobs.yaml").write_text(jobs(600))  # long enough for the worker process
    (tmp_path / "bad.yaml").write_text("spec: [\n")
    return tmp_path


def test_the_script_prints_what_main_prints_with_the_same_exit_codes(work: Path) -> None:
    for args, code in (
        (["apply", "-f", "o.yaml", "jobs.yaml"], 0),
        (["apply", "-f", "bad.yaml", "jobs.yaml"], 1),
        (["apply", "--no-such-flag"], 2),
    ):
        script = subprocess.run(
            [str(PODFOLD), *args], cwd=work, capture_output=True, text=True, timeout=120
        )
        function = in_python(f"from transforms.cli import main\nmain({args!r})", work)
        assert script.returncode == function.returncode == code, (args, script.stderr)
        assert script.stdout == function.stdout
        assert script.stderr == function.stderr


def test_the_whole_output_is_written_before_the_process_ends(work: Path) -> None:
    done = subprocess.run(
        [str(PODFOLD), "apply", "-f", "o.yaml", "jobs.yaml"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    folded = list(yaml.safe_load_all(done.stdout))
    assert len(folded) == 600
    assert all(
        job["spec"]["template"]["spec"]["nodeSelector"] == {"pool": "a100"} for job in folded
    )


def test_functions_registered_with_atexit_still_run(work: Path) -> None:
    done = in_python(
        """
        import atexit, sys
        atexit.register(lambda: sys.stderr.write("atexit ran\\n"))
        from transforms.cli import script
        sys.argv = ["podfold", "apply", "-f", "o.yaml", "jobs.yaml"]
        script()
        """,
        work,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.endswith("atexit ran\n")
    assert done.stdout.count("pool: a100") == 600


def test_a_thread_still_running_is_waited_for(work: Path) -> None:
    done = in_python(
        """
        import sys, threading
        def late():
            threading.main_thread().join()  # until the main thread's work is done
            sys.stderr.write("thread done\\n")
        threading.Thread(target=late).start()
        from transforms.cli import script
        sys.argv = ["podfold", "apply", "-f", "o.yaml", "bad.yaml"]
        script()
        """,
        work,
    )
    assert done.returncode == 1
    assert "bad.yaml" in done.stderr
    assert done.stderr.endswith("thread done\n")


def test_a_code_that_is_no_number_is_said_as_python_says_it(work: Path) -> None:
    done = in_python(
        """
        import sys
        import transforms.cli
        def failing(args=None):
            raise SystemExit("stopped: a message")
        sys.modules["transforms.cli.main"].main = failing
        sys.modules["transforms.cli.main"].script()
        """,
        work,
    )
    assert done.returncode == 1
    assert done.stderr == "stopped: a message\n"


def test_a_closed_stdout_still_ends_as_a_writer_head_leaves(work: Path) -> None:
    done = subprocess.run(
        f"'{PODFOLD}' apply -f o.yaml jobs.yaml | head -c 10 >/dev/null; "
        'echo "${PIPESTATUS[0]}"',
        cwd=work,
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.strip() == "141", done.stderr
    assert done.stderr == ""
