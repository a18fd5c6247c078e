"""A problem the manifest had already is not the overlays' to report, however its
message changes with what the overlays add elsewhere."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests import warm

PODFOLD = [sys.executable, "-c", "from transforms.cli import main; main()"]

MISSING_VOLUME = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        volumeMounts: [{name: data, mountPath: /data}]
"""


def _apply(tmp_path: Path, overlay: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "web.yaml").write_text(MISSING_VOLUME)
    (tmp_path / "o.yaml").write_text(overlay)
    return warm.run("podfold", ["apply", "-f", "o.yaml", "web.yaml"], cwd=tmp_path, timeout=60)


def test_an_unrelated_volume_an_overlay_adds_does_not_make_the_old_problem_its_own(
    tmp_path: Path,
) -> None:
    # the mount of a volume the pod never had: "volumes are: (none)" before shm_size,
    # "volumes are: dshm" after; the same problem, the manifest's
    done = _apply(tmp_path, "- {recipe: shm_size, size: 1Gi}\n")
    assert done.returncode == 0, done.stderr
    assert "dshm" in done.stdout


def test_a_problem_the_overlay_brings_at_the_same_rule_is_still_reported(tmp_path: Path) -> None:
    # a second mount of another missing volume is the overlay's, and named as such
    done = _apply(
        tmp_path,
        "spec:\n  containers: !merge-by\n  - name: web\n"
        "    volumeMounts: [{name: cache, mountPath: /cache}]\n",
    )
    assert done.returncode == 1
    assert (
        "volumeMounts[mountPath=/cache].name: no volume named 'cache'" in done.stderr
        or "volumeMounts[name=cache].name: no volume named 'cache'" in done.stderr
    ), done.stderr
    assert "'data'" not in done.stderr
