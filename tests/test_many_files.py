"""``podfold apply/explain/validate`` of many files and directories, as ``kubectl apply -f``
reads them: each file a stream of its own, every message naming its file."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests import warm

REPO = Path(__file__).resolve().parent.parent
MANIFESTS = REPO / "tests" / "manifests"
A100 = REPO / "examples" / "a100.yaml"


def podfold(
    *args: str, stdin: str | None = None, cwd: Path = REPO
) -> subprocess.CompletedProcess[str]:
    return warm.run("podfold", args, input=stdin, cwd=cwd)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """job.yaml, cm.yml and notes.txt at the top, a PyTorchJob and a JSON Pod below."""
    shutil.copy(MANIFESTS / "kubernetes" / "job.yaml", tmp_path / "job.yaml")
    (tmp_path / "cm.yml").write_text("kind: ConfigMap\nmetadata: {name: c}\n")
    (tmp_path / "notes.txt").write_text("not a manifest: {\n")
    sub = tmp_path / "sub"
    sub.mkdir()
    shutil.copy(MANIFESTS / "kubeflow" / "pytorchjob-simple.yaml", sub / "a-job.yaml")
    (sub / "pod.json").write_text(
        '{"kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}}\n'
    )
    return tmp_path


def kinds(text: str) -> list[str]:
    return [line.split(": ", 1)[1] for line in text.splitlines() if line.startswith("kind: ")]


def test_a_directory_is_its_manifest_files_in_name_order_and_r_recurses(tree: Path) -> None:
    flat = podfold("apply", "-f", str(A100), ".", cwd=tree)
    assert flat.returncode == 0, flat.stderr
    assert kinds(flat.stdout) == ["ConfigMap", "Job"]  # cm.yml, job.yaml; notes.txt is no manifest
    deep = podfold("apply", "-f", str(A100), "-R", ".", cwd=tree)
    assert deep.returncode == 0, deep.stderr
    assert kinds(deep.stdout) == ["ConfigMap", "Job", "PyTorchJob", "Pod"]
    assert deep.stdout.count("nvidia-tesla-a100") == 4  # the Job, two PyTorchJob roles, the Pod
    # files and directories mixed, in the order given; a file named twice is read once
    mixed = podfold("apply", "-f", str(A100), "sub/pod.json", "-R", ".", cwd=tree)
    assert kinds(mixed.stdout) == ["Pod", "ConfigMap", "Job", "PyTorchJob"]


def test_every_message_names_its_file(tree: Path) -> None:
    (tree / "bad.yaml").write_text("kind: Pod\nspec: {a: [1}\n")
    done = podfold("apply", "-f", str(A100), ".", cwd=tree)
    assert done.returncode == 1
    assert done.stderr.startswith("podfold: error: ./bad.yaml:2:")
    (tree / "bad.yaml").unlink()
    (tree / "empty.yaml").write_text("# nothing here\n")
    empty = podfold("validate", ".", cwd=tree)  # one of several with none: said, not failed
    assert empty.returncode == 0, empty.stderr
    assert "./empty.yaml: no documents" in empty.stderr and "<stdin>" not in empty.stderr
    (tree / "nothing").mkdir()
    (tree / "nothing" / "a.yaml").write_text("# no document\n")
    (tree / "nothing" / "b.yaml").write_text("---\n")
    none_at_all = podfold("validate", "nothing", cwd=tree)
    assert none_at_all.returncode == 1
    assert "podfold: error: the 2 files: no documents" in none_at_all.stderr
    (tree / "empty.yaml").unlink()
    for name in ("a.yaml", "b.yaml"):
        (tree / "nothing" / name).unlink()
    none = podfold("apply", "-f", str(A100), "nothing", cwd=tree)
    assert (
        none.returncode == 1
        and "holds no file whose name ends in .yaml, .yml, .json" in none.stderr
    )
    for command in ("validate", "explain"):  # as before: a FILE, or '-' for stdin, is asked for
        bare = podfold(command, *(["-f", str(A100)] if command == "explain" else []), cwd=tree)
        assert bare.returncode == 2 and "Missing argument 'FILE|DIR|-...'" in bare.stderr
    absent = podfold("apply", "-f", str(A100), "absent.yaml", cwd=tree)
    assert absent.returncode == 2 and "'absent.yaml': No such file or directory" in absent.stderr


def test_a_select_may_pick_templates_of_one_file_only(tree: Path) -> None:
    picked = podfold("apply", "-f", str(A100), "--select", "kind=PyTorchJob", "-R", ".", cwd=tree)
    assert picked.returncode == 0, picked.stderr
    assert picked.stdout.count("nvidia-tesla-a100") == 2
    nothing = podfold("apply", "-f", str(A100), "--select", "kind=TFJob", "-R", ".", cwd=tree)
    assert nothing.returncode == 1 and "no pod template matches" in nothing.stderr


def test_explain_and_validate_name_each_file(tree: Path) -> None:
    explained = podfold("explain", "-f", str(A100), "job.yaml", "sub", cwd=tree)
    assert explained.returncode == 0, explained.stderr
    headers = [line for line in explained.stdout.splitlines() if line.startswith("# ")]
    assert headers[0].startswith("# job.yaml: document 1: Job/pi template")
    assert headers[-1] == "# 4 of 4 pod templates in 3 documents change"
    validated = podfold("validate", "-R", ".", cwd=tree)
    assert validated.returncode == 1  # the JSON Pod has no container
    assert validated.stdout.startswith(
        "./sub/pod.json: document 1: Pod/p template (the document itself): "
        "spec.containers[name=c].image: a container of a pod needs an image"
    )
    assert validated.stderr == "podfold: 1 error in 4 pod templates\n"


def test_files_joined_without_a_separator_say_so_where_they_meet(tree: Path) -> None:
    joined = (tree / "cm.yml").read_text() + (tree / "job.yaml").read_text()
    done = podfold("apply", "-f", str(A100), "-", stdin=joined, cwd=tree)
    assert done.returncode == 1
    assert done.stderr == (
        "podfold: error: <stdin>:4:1: duplicate key 'kind' (first at line 1, column 1); "
        "a document begins here without the '---' that ends the one before (files joined, "
        "as by 'cat a.yaml b.yaml', need '---' between them; or give podfold the files, or "
        "their directory, themselves)\n"
    )
    separated = podfold(
        "apply",
        "-f",
        str(A100),
        "-",
        stdin=joined.replace("\napiVersion", "\n---\napiVersion", 1),
        cwd=tree,
    )
    assert separated.returncode == 0, separated.stderr


def test_an_overlay_kept_beside_its_manifests_is_left_out_of_them(tree: Path) -> None:
    # a directory's file that is given with -f is an overlay, not a manifest: left out, said
    shutil.copy(A100, tree / "gpu.yaml")
    done = podfold("apply", "-f", "gpu.yaml", ".", cwd=tree)
    assert done.returncode == 0, done.stderr
    assert kinds(done.stdout) == ["ConfigMap", "Job"]
    assert "podfold: warning: ./gpu.yaml: given as an overlay (-f), so left out of the " in (
        done.stderr
    )
    # the same file named as a manifest is read as one, as asked (and refused: it is none)
    named = podfold("apply", "-f", "gpu.yaml", "gpu.yaml", cwd=tree)
    assert named.returncode != 0 and "gpu.yaml:9:16" in named.stderr, named.stderr
    # explain leaves it out too
    explained = podfold("explain", "-f", "gpu.yaml", ".", cwd=tree)
    assert explained.returncode == 0 and "left out of the manifests" in explained.stderr
