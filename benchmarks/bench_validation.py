"""Per-pod validation cost: podfold's compiled validator vs the official schema's validators.

Run ``python benchmarks/bench_validation.py [--quick]``. For one realistic pod
(3 containers x 10 env vars, 5 volumes, 2 tolerations, nodeSelector,
resources; about 4 KB as JSON) it times, in the same run and as medians of
many repetitions:

* ``podfold``: :func:`transforms.checks.validation.problems` (schema + references);
* ``jsonschema (reused)``: one ``Draft202012Validator`` built once from the
  official schema that ``kubernetes-validate`` ships, plain and ``-strict``;
* ``kubernetes_validate.validate``: which rebuilds its validator on each call.

It exits with status 1 unless podfold is at least 3x faster than the faster
of the reused jsonschema validators.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from importlib import resources
from typing import Any

import jsonschema
import kubernetes_validate
from referencing import Registry, Resource

from transforms.checks.validation import problems
from transforms.kube.schema import DEFAULT_VERSION

REQUIRED_SPEEDUP = 3.0


def realistic_pod(replica: int = 0) -> dict[str, Any]:
    """A training pod of the kind torchx renders, with sidecars and volumes."""

    def container(name: str, cpu: str, memory: str, port: int) -> dict[str, Any]:
        return {
            "name": name,
            "image": "ghcr.io/example/trainer:2024.06",
            "command": ["bash", "-c"],
            "args": ["torchrun --nnodes 4 --nproc_per_node 8 -m train --epochs 10"],
            "env": [{"name": f"VAR_{i}", "value": f"value-{i}"} for i in range(9)]
            + [{"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
            "ports": [{"containerPort": port, "name": f"{name[:6]}-port", "protocol": "TCP"}],
            "resources": {
                "limits": {"cpu": cpu, "memory": memory, "nvidia.com/gpu": 8},
                "requests": {"cpu": cpu, "memory": memory, "nvidia.com/gpu": 8},
            },
            "volumeMounts": [
                {"name": "dshm", "mountPath": "/dev/shm"},
                {"name": "data", "mountPath": "/data", "readOnly": True},
                {"name": "ckpt", "mountPath": "/ckpt"},
            ],
            "securityContext": {"runAsUser": 1000, "allowPrivilegeEscalation": False},
            "imagePullPolicy": "IfNotPresent",
        }

    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"trainer-{replica}",
            "namespace": "ml",
            "labels": {
                "app.kubernetes.io/name": "trainer",
                "torchx.pytorch.org/replica-id": str(replica),
                "kueue.x-k8s.io/queue-name": "gpu",
            },
            "annotations": {"sidecar.istio.io/inject": "false"},
        },
        "spec": {
            # one port each: the API server warns of a port two containers declare
            "containers": [
                container("trainer", "32", "240Gi", 29500),
                container("logger", "500m", "512Mi", 9000),
                container("metrics", "250m", "256Mi", 9100),
            ],
            "volumes": [
                {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "64Gi"}},
                {
                    "name": "data",
                    "persistentVolumeClaim": {"claimName": "datasets", "readOnly": True},
                },
                {"name": "ckpt", "hostPath": {"path": "/mnt/ckpt", "type": "DirectoryOrCreate"}},
                {"name": "creds", "secret": {"secretName": "s3-creds", "defaultMode": 420}},
                {
                    "name": "config",
                    "configMap": {
                        "name": "train-config",
                        "items": [{"key": "a", "path": "a.yaml"}],
                    },
                },
            ],
            "tolerations": [
                {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                {
                    "key": "spot",
                    "operator": "Equal",
                    "value": "true",
                    "effect": "NoExecute",
                    "tolerationSeconds": 300,
                },
            ],
            "nodeSelector": {"node.kubernetes.io/instance-type": "p4d.24xlarge"},
            "restartPolicy": "Never",
            "serviceAccountName": "trainer",
            "schedulerName": "volcano",
            "priorityClassName": "high",
            "subdomain": "trainer",
            "hostname": f"trainer-{replica}",
        },
    }


def _median_us(run: Callable[[], Any], repeats: int, inner: int) -> float:
    run()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            run()
        samples.append((time.perf_counter() - start) / inner * 1e6)
    return statistics.median(samples)


def _reused_validator(strict: bool) -> jsonschema.protocols.Validator:
    directory = f"v{DEFAULT_VERSION}.0-local" + ("-strict" if strict else "")
    base = resources.files("kubernetes_validate") / "kubernetes-json-schema" / directory
    pod_schema = json.loads((base / "pod-v1.json").read_text())
    definitions = json.loads((base / "_definitions.json").read_text())
    registry: Registry[Any] = Resource.from_contents(pod_schema) @ Registry()
    registry = Resource.from_contents(definitions) @ registry
    return jsonschema.Draft202012Validator(pod_schema, registry=registry)


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    pod = realistic_pod()
    size = len(json.dumps(pod))
    assert not problems(pod), problems(pod)
    plain, strict = _reused_validator(False), _reused_validator(True)
    assert plain.is_valid(pod) and strict.is_valid(pod)
    kubernetes_validate.validate(pod, DEFAULT_VERSION, strict=True)
    scale = 1 if quick else 5
    ours = _median_us(lambda: problems(pod), 15 * scale, 40)
    reused_plain = _median_us(lambda: plain.is_valid(pod), 5 * scale, 5)
    reused_strict = _median_us(lambda: strict.is_valid(pod), 5 * scale, 5)
    rebuilt = _median_us(
        lambda: kubernetes_validate.validate(pod, DEFAULT_VERSION, strict=True), 3 * scale, 1
    )
    best_reused = min(reused_plain, reused_strict)
    print(f"pod: {size} bytes of JSON, Kubernetes {DEFAULT_VERSION} schema")
    rows = [
        ("podfold problems()", ours),
        ("jsonschema, reused validator", reused_plain),
        ("jsonschema, reused, -strict", reused_strict),
        ("kubernetes_validate.validate", rebuilt),
    ]
    for name, micros in rows:
        print(f"{name:32s} {micros:10.1f} us/pod  {micros / ours:7.1f}x podfold")
    speedup = best_reused / ours
    verdict = "ok" if speedup >= REQUIRED_SPEEDUP else "TOO SLOW"
    print(
        f"podfold vs the faster reused jsonschema validator: {speedup:.1f}x "
        f"(required {REQUIRED_SPEEDUP:.0f}x): {verdict}"
    )
    return 0 if speedup >= REQUIRED_SPEEDUP else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
