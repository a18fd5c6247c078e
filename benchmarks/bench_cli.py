"""``podfold apply`` on a stream of 1,000 Jobs, against ``kubectl patch --local`` and ``kubectl kustomize``.

Each tool applies the same edit (a node selector and a toleration on every
Job's pod template) to the same 1,000 Jobs, as a whole process run from the
shell, 5 times; the minimum and median wall times are printed side by side
with podfold's ratio to each. Run: ``python benchmarks/bench_cli.py``.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

JOBS = 1000
RUNS = 5
PATCH = {"spec": {"nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-tesla-a100"},
                  "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists",
                                   "effect": "NoSchedule"}]}}


def job(number: int) -> dict[str, object]:
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": f"train-{number}", "labels": {"team": "ml"}},
            "spec": {"backoffLimit": 2, "template": {
                "metadata": {"labels": {"app": "train"}},
                "spec": {"restartPolicy": "Never", "containers": [{
                    "name": "trainer", "image": "ghcr.io/example/trainer:1.4.2",
                    "command": ["python", "-m", "train", f"--shard={number}"],
                    "env": [{"name": "LOGLEVEL", "value": "INFO"}],
                    "resources": {"limits": {"nvidia.com/gpu": 1, "memory": "32Gi"}}}]}}}}


def timed(command: list[str], cwd: Path) -> list[float]:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        done = subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, check=False)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed: {done.stderr}")
    return times


def main() -> None:
    podfold = str(Path(sys.executable).with_name("podfold"))
    kubectl = shutil.which("kubectl")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        jobs = work / "jobs.yaml"
        jobs.write_text(yaml.safe_dump_all([job(n) for n in range(JOBS)], sort_keys=False))
        (work / "overlay.yaml").write_text(yaml.safe_dump(PATCH, sort_keys=False))
        rows = {"podfold apply": timed([podfold, "apply", "-f", "overlay.yaml", "jobs.yaml"],
                                       work)}
        if kubectl is not None:
            rows["kubectl patch --local"] = timed(
                [kubectl, "patch", "--local", "-f", "jobs.yaml", "--type", "strategic", "-p",
                 json.dumps({"spec": {"template": PATCH}}), "-o", "yaml"], work)
            kustomize = work / "kustomize"
            kustomize.mkdir()
            (kustomize / "jobs.yaml").write_text(jobs.read_text())
            (kustomize / "kustomization.yaml").write_text(yaml.safe_dump({
                "resources": ["jobs.yaml"],
                "patches": [{"target": {"kind": "Job"},
                             "patch": yaml.safe_dump({"apiVersion": "batch/v1", "kind": "Job",
                                                      "metadata": {"name": "any"},
                                                      "spec": {"template": PATCH}})}]}))
            rows["kubectl kustomize"] = timed([kubectl, "kustomize", "kustomize"], work)
    ours = statistics.median(rows["podfold apply"])
    print(f"{JOBS} Jobs, {RUNS} runs each (seconds)")
    print(f"{'tool':<24}{'min':>8}{'median':>8}{'podfold is':>16}")
    for name, times in rows.items():
        median = statistics.median(times)
        ratio = "" if name == "podfold apply" else f"{median / ours:.2f}x faster" \
            if median >= ours else f"{ours / median:.2f}x slower"
        print(f"{name:<24}{min(times):>8.3f}{median:>8.3f}{ratio:>16}")
    if kubectl is None:
        print("kubectl is not on PATH: no comparison")


if __name__ == "__main__":
    main()
