"""The API server's own checks of a pod that the OpenAPI schema cannot express, as reference rules.

The reference is Kubernetes' ``pkg/apis/core/validation/validation.go`` (``ValidatePodSpec``,
``validateContainers``, ``ValidateVolumeMounts``, ``validateContainerPorts``, ``ValidateEnv``,
``validateProbe``, ``ValidateTolerations``, ...), its name formats in apimachinery's
``util/validation``, and the warnings of ``pkg/api/pod/warnings.go``: what it refuses is an
error here, what it accepts with a warning is a warning, and what it accepts (sometimes after
defaulting: a volume without a source becomes an emptyDir, a successThreshold of 0 becomes 1)
is no problem. For each rule: pods it passes, and pods it fails, each problem at its path.
Then the same through ``podfold validate`` and ``podfold apply`` (a problem an overlay
brings, named by its line), and through ``kubectl patch``, Kubernetes' own merge, which is
how overlays bring most of them (a second volume source, a second probe handler).
"""

from __future__ import annotations

import copy
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests import warm
from tests.kubectl import kubectl_patch, needs_kubectl
from transforms.checks import rules
from transforms.checks.validation import PodValidationError, Problem, problems, validate_pod

Pod = dict[str, Any]
Change = Callable[[Pod], Any]

REPO = Path(__file__).resolve().parent.parent
PODFOLD = Path(sys.executable).with_name("podfold")
TRAINER = "spec.containers[name=trainer]"


def base_pod() -> Pod:
    """A pod that uses what the rules look at, every part as the API server accepts it."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "trainer-0",
            "labels": {"app": "trainer", "tier": ""},
            "annotations": {"example.com/owner": "ml"},
        },
        "spec": {
            "containers": [
                {
                    "name": "trainer",
                    "image": "pytorch/pytorch:2.3",
                    "env": [
                        {"name": "NCCL_DEBUG", "value": "INFO"},
                        {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                    ],
                    "envFrom": [{"configMapRef": {"name": "settings"}, "prefix": "CFG_"}],
                    "ports": [
                        {"containerPort": 29500, "name": "c10d"},
                        {"containerPort": 8080, "name": "http"},
                    ],
                    "resources": {
                        "limits": {"cpu": "4", "memory": "8Gi", "nvidia.com/gpu": 1},
                        "requests": {"cpu": "2", "memory": "8Gi"},
                    },
                    "volumeMounts": [
                        {"name": "dshm", "mountPath": "/dev/shm"},
                        {
                            "name": "data",
                            "mountPath": "/data",
                            "subPath": "train",
                            "readOnly": True,
                        },
                    ],
                    "livenessProbe": {"httpGet": {"port": "http", "path": "/healthz"}},
                    "readinessProbe": {"tcpSocket": {"port": 8080}, "periodSeconds": 5},
                    "lifecycle": {"preStop": {"sleep": {"seconds": 5}}},
                }
            ],
            "initContainers": [{"name": "fetch", "image": "busybox", "command": ["true"]}],
            "volumes": [
                {"name": "dshm", "emptyDir": {"medium": "Memory"}},
                {"name": "data", "persistentVolumeClaim": {"claimName": "datasets"}},
            ],
            "tolerations": [
                {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                {
                    "key": "spot",
                    "operator": "Equal",
                    "value": "true",
                    "effect": "NoExecute",
                    "tolerationSeconds": 60,
                },
            ],
            "nodeSelector": {"node.kubernetes.io/instance-type": "p4d.24xlarge"},
            "hostname": "trainer-0",
            "subdomain": "workers",
            "dnsPolicy": "ClusterFirst",
            "activeDeadlineSeconds": 3600,
            "terminationGracePeriodSeconds": 30,
        },
    }


def _with(change: Change) -> Pod:
    pod = base_pod()
    change(pod)
    return pod


def _trainer(pod: Pod) -> dict[str, Any]:
    found: dict[str, Any] = pod["spec"]["containers"][0]
    return found


def _sidecar(pod: Pod, **fields: Any) -> None:
    pod["spec"]["containers"].append({"name": "sidecar", "image": "envoy:1", **fields})


def _mount(pod: Pod, volume: str, path: str, **fields: Any) -> None:
    """Mount a new emptyDir volume ``volume`` at ``path`` in the trainer."""
    pod["spec"]["volumes"].append({"name": volume, "emptyDir": {}})
    _trainer(pod)["volumeMounts"].append({"name": volume, "mountPath": path, **fields})


def _mount_only(pod: Pod, volume: str, path: str) -> None:
    _trainer(pod)["volumeMounts"].append({"name": volume, "mountPath": path})


def test_the_base_pod_is_valid_for_every_version() -> None:
    from transforms.kube.schema import SUPPORTED_VERSIONS

    for version in SUPPORTED_VERSIONS:
        assert problems(base_pod(), k8s_version=version) == [], version


def test_every_rule_has_failing_cases_here() -> None:
    tested = {case[1] for case in FAILING}
    assert {module.ID for module in rules.RULES} - tested <= {
        "container-images",
        "volume-mounts",
        "requests-within-limits",
        "containers-required",
    }  # tested elsewhere (containers-required: below)


# ---------------------------------------------------------------- pods the API server refuses

# (case id, rule, change, path, what the message says, severity)
FAILING: list[tuple[str, str, Change, str, str, str]] = [
    # container-names: a DNS-1123 label
    (
        "container name with capitals",
        "container-names",
        lambda p: _trainer(p).update(name="Trainer_0"),
        "spec.containers[name=Trainer_0].name",
        "container name 'Trainer_0' must consist of lower-case letters, digits and '-'",
        "error",
    ),
    (
        "container name too long",
        "container-names",
        lambda p: p["spec"]["initContainers"][0].update(name="a" * 64),
        f"spec.initContainers[name={'a' * 64}].name",
        "must be at most 63 characters",
        "error",
    ),
    (
        "container name with a dot",
        "container-names",
        lambda p: _sidecar(p, name="log.agent"),
        "spec.containers[name=log.agent].name",
        "container name 'log.agent' must not contain dots",
        "error",
    ),
    # volume-names
    (
        "volume name with capitals",
        "volume-names",
        lambda p: (
            p["spec"]["volumes"][1].update(name="Data"),
            _trainer(p)["volumeMounts"][1].update(name="Data"),
        ),
        "spec.volumes[name=Data].name",
        "volume name 'Data' must consist of lower-case",
        "error",
    ),
    # volume-sources
    (
        "two sources in one volume",
        "volume-sources",
        lambda p: p["spec"]["volumes"][0].update(hostPath={"path": "/dev/shm"}),
        "spec.volumes[name=dshm].hostPath",
        "volume 'dshm' has more than one source: emptyDir and hostPath; a volume takes one",
        "error",
    ),
    # mount-paths
    (
        "two mounts at one path",
        "mount-paths",
        lambda p: _mount(p, "cache", "/dev/shm"),
        f"{TRAINER}.volumeMounts[name=cache].mountPath",
        "mountPath '/dev/shm' is already where volumeMounts[0] (volume 'dshm') is mounted",
        "error",
    ),
    (
        "an empty mount path",
        "mount-paths",
        lambda p: _mount(p, "cache", ""),
        f"{TRAINER}.volumeMounts[name=cache].mountPath",
        "a volumeMount needs a mountPath",
        "error",
    ),
    (
        "subPath and subPathExpr",
        "mount-paths",
        lambda p: _trainer(p)["volumeMounts"][1].update(subPathExpr="$(POD)"),
        f"{TRAINER}.volumeMounts[name=data].subPathExpr",
        "subPathExpr and subPath are mutually exclusive; subPath is 'train'",
        "error",
    ),
    (
        "an absolute subPath",
        "mount-paths",
        lambda p: _trainer(p)["volumeMounts"][1].update(subPath="/train"),
        f"{TRAINER}.volumeMounts[name=data].subPath",
        "subPath '/train' must be a relative path",
        "error",
    ),
    (
        "a subPathExpr climbing out",
        "mount-paths",
        lambda p: _trainer(p)["volumeMounts"][1].update(subPath=None, subPathExpr="a/../../etc"),
        f"{TRAINER}.volumeMounts[name=data].subPathExpr",
        "must not contain '..'",
        "error",
    ),
    (
        "bidirectional propagation, unprivileged",
        "mount-paths",
        lambda p: _trainer(p)["volumeMounts"][0].update(mountPropagation="Bidirectional"),
        f"{TRAINER}.volumeMounts[name=dshm].mountPropagation",
        "Bidirectional mount propagation is for privileged containers only",
        "error",
    ),
    (
        "recursiveReadOnly on a writable mount",
        "mount-paths",
        lambda p: _trainer(p)["volumeMounts"][0].update(recursiveReadOnly="Enabled"),
        f"{TRAINER}.volumeMounts[name=dshm].recursiveReadOnly",
        "recursiveReadOnly Enabled needs readOnly: true",
        "error",
    ),
    (
        "a device at a mount's path",
        "mount-paths",
        lambda p: (
            p["spec"]["volumes"].append(
                {"name": "raw", "persistentVolumeClaim": {"claimName": "raw"}}
            ),
            _trainer(p).update(volumeDevices=[{"name": "raw", "devicePath": "/data"}]),
        ),
        f"{TRAINER}.volumeDevices[name=raw].devicePath",
        "devicePath '/data' is also where volumeMounts[1] is mounted",
        "error",
    ),
    (
        "a device of no claim",
        "mount-paths",
        lambda p: (
            p["spec"]["volumes"].append({"name": "scratch", "emptyDir": {}}),
            _trainer(p).update(volumeDevices=[{"name": "scratch", "devicePath": "/dev/xvda"}]),
        ),
        f"{TRAINER}.volumeDevices[name=scratch].name",
        "volume 'scratch' is no persistentVolumeClaim nor ephemeral volume",
        "error",
    ),
    (
        "a volume both mounted and a device",
        "mount-paths",
        lambda p: (
            p["spec"]["volumes"].append(
                {"name": "raw", "persistentVolumeClaim": {"claimName": "raw"}}
            ),
            _mount_only(p, "raw", "/raw"),
            _trainer(p).update(volumeDevices=[{"name": "raw", "devicePath": "/dev/xvda"}]),
        ),
        f"{TRAINER}.volumeDevices[name=raw].name",
        "volume 'raw' is also mounted by volumeMounts; a volume is a mount or a device",
        "error",
    ),
    # container-ports
    (
        "two ports of one name",
        "container-ports",
        lambda p: _trainer(p)["ports"].append({"containerPort": 8081, "name": "http"}),
        f"{TRAINER}.ports[2].name",
        "port name 'http' is already the name of ports[1] of this container",
        "error",
    ),
    (
        "port name with capitals",
        "container-ports",
        lambda p: _trainer(p)["ports"][1].update(name="HTTP"),
        f"{TRAINER}.ports[name=HTTP].name",
        "port name 'HTTP' must contain only lower-case letters, digits and '-'",
        "error",
    ),
    (
        "port name too long",
        "container-ports",
        lambda p: _trainer(p)["ports"][1].update(name="metrics-port-9090"),
        f"{TRAINER}.ports[name=metrics-port-9090].name",
        "must be at most 15 characters",
        "error",
    ),
    (
        "port name without a letter",
        "container-ports",
        lambda p: _trainer(p)["ports"][1].update(name="8080"),
        f'{TRAINER}.ports[name="8080"].name',
        "must contain at least one letter (a-z)",
        "error",
    ),
    (
        "port name with two hyphens",
        "container-ports",
        lambda p: _trainer(p)["ports"][1].update(name="my--port"),
        f"{TRAINER}.ports[name=my--port].name",
        "must not contain two '-' in a row",
        "error",
    ),
    (
        "containerPort 0",
        "container-ports",
        lambda p: _trainer(p)["ports"][0].update(containerPort=0),
        f"{TRAINER}.ports[name=c10d].containerPort",
        "containerPort must be between 1 and 65535, inclusive; found 0",
        "error",
    ),
    (
        "containerPort above 65535",
        "container-ports",
        lambda p: _trainer(p)["ports"][0].update(containerPort=70000),
        f"{TRAINER}.ports[name=c10d].containerPort",
        "found 70000",
        "error",
    ),
    (
        "hostPort above 65535",
        "container-ports",
        lambda p: _trainer(p)["ports"][0].update(hostPort=65536),
        f"{TRAINER}.ports[name=c10d].hostPort",
        "hostPort must be between 1 and 65535, inclusive; found 65536",
        "error",
    ),
    (
        "a hostPort two containers take",
        "container-ports",
        lambda p: (
            _trainer(p)["ports"][1].update(hostPort=80),
            _sidecar(p, ports=[{"containerPort": 9000, "hostPort": 80}]),
        ),
        "spec.containers[name=sidecar].ports[0].hostPort",
        "hostPort 80/TCP is already taken by containers[name=trainer].ports[1]",
        "error",
    ),
    (
        "hostNetwork with another hostPort",
        "container-ports",
        lambda p: (p["spec"].update(hostNetwork=True), _trainer(p)["ports"][1].update(hostPort=80)),
        f"{TRAINER}.ports[name=http].hostPort",
        "hostPort must match containerPort (8080) when hostNetwork is true; found 80",
        "error",
    ),
    (
        "a containerPort declared twice",
        "container-ports",
        lambda p: _sidecar(p, ports=[{"containerPort": 8080, "name": "proxy"}]),
        "spec.containers[name=sidecar].ports[name=proxy].containerPort",
        "duplicate port definition with containers[name=trainer].ports[1]",
        "warning",
    ),
    (
        "a containerPort declared twice, once with a hostPort",
        "container-ports",
        lambda p: _sidecar(p, ports=[{"containerPort": 8080, "hostPort": 8080}]),
        "spec.containers[name=sidecar].ports[0].containerPort",
        "overlapping port definition with containers[name=trainer].ports[1]",
        "warning",
    ),
    # env-names
    (
        "env name with '='",
        "env-names",
        lambda p: _trainer(p)["env"].append({"name": "A=B"}),
        f'{TRAINER}.env[name="A=B"].name',
        "env name 'A=B' must consist of printable ASCII characters other than '='",
        "error",
    ),
    (
        "empty env name",
        "env-names",
        lambda p: _trainer(p)["env"].append({"name": ""}),
        f'{TRAINER}.env[name=""].name',
        "env name '' must not be empty",
        "error",
    ),
    (
        "env name not ASCII",
        "env-names",
        lambda p: _trainer(p)["env"].append({"name": "CAFÉ"}),
        f"{TRAINER}.env[name=CAFÉ].name",
        "printable ASCII",
        "error",
    ),
    # env-sources
    (
        "value beside valueFrom",
        "env-sources",
        lambda p: _trainer(p)["env"][1].update(value="x"),
        f"{TRAINER}.env[name=POD].value",
        "env 'POD' has a value and a valueFrom (fieldRef); "
        "valueFrom may not be given when value is not empty",
        "error",
    ),
    (
        "two valueFrom sources",
        "env-sources",
        lambda p: _trainer(p)["env"][1]["valueFrom"].update(secretKeyRef={"name": "s", "key": "k"}),
        f"{TRAINER}.env[name=POD].valueFrom.secretKeyRef",
        "the valueFrom of env 'POD' has more than one source: fieldRef and secretKeyRef",
        "error",
    ),
    (
        "valueFrom without a source",
        "env-sources",
        lambda p: _trainer(p)["env"][1].update(valueFrom={}),
        f"{TRAINER}.env[name=POD].valueFrom",
        "the valueFrom of env 'POD' names no source",
        "error",
    ),
    (
        "envFrom with two sources",
        "env-sources",
        lambda p: _trainer(p)["envFrom"][0].update(secretRef={"name": "s"}),
        f"{TRAINER}.envFrom[0].secretRef",
        "an envFrom entry has more than one source: configMapRef and secretRef",
        "error",
    ),
    (
        "envFrom without a source",
        "env-sources",
        lambda p: _trainer(p)["envFrom"].append({"prefix": "X_"}),
        f"{TRAINER}.envFrom[1]",
        "an envFrom entry names no source",
        "error",
    ),
    (
        "envFrom prefix with '='",
        "env-sources",
        lambda p: _trainer(p)["envFrom"][0].update(prefix="A="),
        f"{TRAINER}.envFrom[0].prefix",
        "envFrom prefix 'A=' must consist of printable ASCII",
        "error",
    ),
    # probes
    (
        "two handlers in a probe",
        "probes",
        lambda p: _trainer(p)["livenessProbe"].update(exec={"command": ["true"]}),
        f"{TRAINER}.livenessProbe.httpGet",
        "livenessProbe has more than one handler: exec and httpGet; a probe takes one",
        "error",
    ),
    (
        "a probe without a handler",
        "probes",
        lambda p: _trainer(p).update(readinessProbe={"periodSeconds": 5}),
        f"{TRAINER}.readinessProbe",
        "readinessProbe needs a handler, one of: exec, httpGet, tcpSocket, grpc",
        "error",
    ),
    (
        "successThreshold of a liveness probe",
        "probes",
        lambda p: _trainer(p)["livenessProbe"].update(successThreshold=3),
        f"{TRAINER}.livenessProbe.successThreshold",
        "successThreshold of a livenessProbe must be 1; found 3",
        "error",
    ),
    (
        "successThreshold of a startup probe",
        "probes",
        lambda p: _trainer(p).update(
            startupProbe={"exec": {"command": ["true"]}, "successThreshold": 2}
        ),
        f"{TRAINER}.startupProbe.successThreshold",
        "must be 1; found 2",
        "error",
    ),
    (
        "a negative period",
        "probes",
        lambda p: _trainer(p)["readinessProbe"].update(periodSeconds=-5),
        f"{TRAINER}.readinessProbe.periodSeconds",
        "periodSeconds must not be negative; found -5",
        "error",
    ),
    (
        "a grace period on a readiness probe",
        "probes",
        lambda p: _trainer(p)["readinessProbe"].update(terminationGracePeriodSeconds=10),
        f"{TRAINER}.readinessProbe.terminationGracePeriodSeconds",
        "a readinessProbe has no terminationGracePeriodSeconds",
        "error",
    ),
    (
        "a zero grace period on a liveness probe",
        "probes",
        lambda p: _trainer(p)["livenessProbe"].update(terminationGracePeriodSeconds=0),
        f"{TRAINER}.livenessProbe.terminationGracePeriodSeconds",
        "must be greater than 0; found 0",
        "error",
    ),
    (
        "a probe port out of range",
        "probes",
        lambda p: _trainer(p)["readinessProbe"]["tcpSocket"].update(port=0),
        f"{TRAINER}.readinessProbe.tcpSocket.port",
        "port must be between 1 and 65535, inclusive; found 0",
        "error",
    ),
    (
        "a probe port name with capitals",
        "probes",
        lambda p: _trainer(p)["livenessProbe"]["httpGet"].update(port="HTTP"),
        f"{TRAINER}.livenessProbe.httpGet.port",
        "port 'HTTP' is no port number, and as a port name it must contain only lower-case",
        "error",
    ),
    (
        "a probe on an init container",
        "probes",
        lambda p: p["spec"]["initContainers"][0].update(
            readinessProbe={"exec": {"command": ["true"]}}
        ),
        "spec.initContainers[name=fetch].readinessProbe",
        "an init container has no readinessProbe unless it is a sidecar (restartPolicy: Always)",
        "error",
    ),
    (
        "a lifecycle on an init container",
        "probes",
        lambda p: p["spec"]["initContainers"][0].update(
            lifecycle={"preStop": {"exec": {"command": ["true"]}}}
        ),
        "spec.initContainers[name=fetch].lifecycle",
        "an init container has no lifecycle",
        "error",
    ),
    (
        "two handlers in a hook",
        "probes",
        lambda p: _trainer(p)["lifecycle"]["preStop"].update(exec={"command": ["true"]}),
        f"{TRAINER}.lifecycle.preStop.sleep",
        "preStop has more than one handler: exec and sleep; a lifecycle hook takes one",
        "error",
    ),
    (
        "a sleep longer than the grace period",
        "probes",
        lambda p: _trainer(p)["lifecycle"]["preStop"]["sleep"].update(seconds=60),
        f"{TRAINER}.lifecycle.preStop.sleep.seconds",
        "sleep seconds must be at least 0 and at most terminationGracePeriodSeconds (30); found 60",
        "error",
    ),
    # resource-names
    (
        "a resource without a domain",
        "resource-names",
        lambda p: _trainer(p)["resources"]["limits"].update(gpu=1),
        f"{TRAINER}.resources.limits.gpu",
        "'gpu' is no standard resource of a container (cpu, "
        "memory, ephemeral-storage, hugepages-<size>); other resources have a domain, such as "
        "nvidia.com/gpu",
        "error",
    ),
    (
        "a resource name that is no qualified name",
        "resource-names",
        lambda p: _trainer(p)["resources"]["limits"].update({"example.com/a b": 1}),
        f'{TRAINER}.resources.limits["example.com/a b"]',
        "resource name 'example.com/a b' its name part must consist of",
        "error",
    ),
    (
        "a negative request",
        "resource-names",
        lambda p: _trainer(p)["resources"]["requests"].update(memory="-1Gi"),
        f"{TRAINER}.resources.requests.memory",
        "memory -1Gi must not be negative",
        "error",
    ),
    (
        "a negative pod-level limit",
        "resource-names",
        lambda p: p["spec"].update(resources={"limits": {"cpu": -1}}),
        "spec.resources.limits.cpu",
        "cpu -1 must not be negative",
        "error",
    ),
    (
        "huge pages alone",
        "resource-names",
        lambda p: _trainer(p).update(resources={"limits": {"hugepages-2Mi": "100Mi"}}),
        f"{TRAINER}.resources",
        "huge pages need a cpu or memory request or limit",
        "error",
    ),
    # tolerations
    (
        "tolerationSeconds without NoExecute",
        "tolerations",
        lambda p: p["spec"]["tolerations"][1].update(effect="NoSchedule"),
        "spec.tolerations[1].effect",
        "effect must be NoExecute when tolerationSeconds is set; found 'NoSchedule'",
        "error",
    ),
    (
        "tolerationSeconds without an effect",
        "tolerations",
        lambda p: p["spec"]["tolerations"][1].pop("effect"),
        "spec.tolerations[1].effect",
        "effect must be NoExecute when tolerationSeconds is set; found none",
        "error",
    ),
    (
        "no key, operator Equal",
        "tolerations",
        lambda p: p["spec"]["tolerations"].append({"operator": "Equal", "value": "x"}),
        "spec.tolerations[2].operator",
        "operator must be Exists when key is empty (a toleration of every taint); found 'Equal'",
        "error",
    ),
    (
        "Exists with a value",
        "tolerations",
        lambda p: p["spec"]["tolerations"][0].update(value="true"),
        "spec.tolerations[0].value",
        "value must be empty when operator is Exists; found 'true'",
        "error",
    ),
    (
        "a toleration key that is no qualified name",
        "tolerations",
        lambda p: p["spec"]["tolerations"][0].update(key="nvidia.com/gpu type"),
        "spec.tolerations[0].key",
        "toleration key 'nvidia.com/gpu type' its name part",
        "error",
    ),
    (
        "a toleration value that is no label value",
        "tolerations",
        lambda p: p["spec"]["tolerations"][1].update(value="yes please"),
        "spec.tolerations[1].value",
        "toleration value 'yes please' must be empty or consist of",
        "error",
    ),
    # labels
    (
        "a label value with a space",
        "labels",
        lambda p: p["metadata"]["labels"].update(team="ml ops"),
        "metadata.labels.team",
        "label value 'ml ops' must be empty or consist of letters, digits, '-', '_' or '.'",
        "error",
    ),
    (
        "a label value too long",
        "labels",
        lambda p: p["metadata"]["labels"].update(run="r" * 64),
        "metadata.labels.run",
        "must be at most 63 characters",
        "error",
    ),
    (
        "a label key with two slashes",
        "labels",
        lambda p: p["metadata"]["labels"].update({"a/b/c": "x"}),
        "metadata.labels.a/b/c",
        "label key 'a/b/c' must be a name with an optional DNS subdomain prefix",
        "error",
    ),
    (
        "a label key with a bad prefix",
        "labels",
        lambda p: p["metadata"]["labels"].update({"Example.com/team": "x"}),
        'metadata.labels["Example.com/team"]',
        "its prefix (before '/') must consist of lower-case",
        "error",
    ),
    (
        "a node selector value with a macro",
        "labels",
        lambda p: p["spec"]["nodeSelector"].update(job="${app_id}"),
        "spec.nodeSelector.job",
        "node selector value '${app_id}' must be empty or consist of",
        "error",
    ),
    (
        "an annotation key with a space",
        "labels",
        lambda p: p["metadata"]["annotations"].update({"owner team": "ml"}),
        'metadata.annotations["owner team"]',
        "annotation key 'owner team' its name part",
        "error",
    ),
    (
        "annotations over 256 KiB",
        "labels",
        lambda p: p["metadata"]["annotations"].update(blob="x" * 262144),
        "metadata.annotations",
        "they may take at most 262144 (256 KiB)",
        "error",
    ),
    # hostname
    (
        "a hostname with dots",
        "hostname",
        lambda p: p["spec"].update(hostname="trainer.0"),
        "spec.hostname",
        "hostname 'trainer.0' must not contain dots",
        "error",
    ),
    (
        "a subdomain with capitals",
        "hostname",
        lambda p: p["spec"].update(subdomain="Workers"),
        "spec.subdomain",
        "subdomain 'Workers' must consist of lower-case letters",
        "error",
    ),
    # dns-config
    (
        "dnsPolicy None without dnsConfig",
        "dns-config",
        lambda p: p["spec"].update(dnsPolicy="None"),
        "spec.dnsConfig",
        "dnsPolicy None needs a dnsConfig with at least one nameserver; found none",
        "error",
    ),
    (
        "dnsPolicy None without nameservers",
        "dns-config",
        lambda p: p["spec"].update(dnsPolicy="None", dnsConfig={"searches": ["example.com"]}),
        "spec.dnsConfig.nameservers",
        "dnsPolicy None needs at least one nameserver",
        "error",
    ),
    (
        "four nameservers",
        "dns-config",
        lambda p: p["spec"].update(
            dnsConfig={"nameservers": ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"]}
        ),
        "spec.dnsConfig.nameservers",
        "a pod has at most 3 nameservers; found 4",
        "error",
    ),
    (
        "a nameserver that is no IP",
        "dns-config",
        lambda p: p["spec"].update(dnsConfig={"nameservers": ["dns.example.com"]}),
        "spec.dnsConfig.nameservers[0]",
        "nameserver 'dns.example.com' must be an IP address",
        "error",
    ),
    (
        "a search domain that is no subdomain",
        "dns-config",
        lambda p: p["spec"].update(dnsConfig={"searches": ["Example.com"]}),
        "spec.dnsConfig.searches[0]",
        "search domain 'Example.com' must consist of lower-case",
        "error",
    ),
    (
        "33 search domains",
        "dns-config",
        lambda p: p["spec"].update(
            dnsConfig={"searches": [f"s{i}.example.com" for i in range(33)]}
        ),
        "spec.dnsConfig.searches",
        "a pod has at most 32 search domains; found 33",
        "error",
    ),
    (
        "a DNS option without a name",
        "dns-config",
        lambda p: p["spec"].update(dnsConfig={"options": [{"value": "2"}]}),
        "spec.dnsConfig.options[0]",
        "a DNS option needs a name",
        "error",
    ),
    # pod-timing
    (
        "activeDeadlineSeconds 0",
        "pod-timing",
        lambda p: p["spec"].update(activeDeadlineSeconds=0),
        "spec.activeDeadlineSeconds",
        "activeDeadlineSeconds must be between 1 and 2147483647, inclusive; found 0",
        "error",
    ),
    (
        "activeDeadlineSeconds over int32",
        "pod-timing",
        lambda p: p["spec"].update(activeDeadlineSeconds=2**31),
        "spec.activeDeadlineSeconds",
        "found 2147483648",
        "error",
    ),
    (
        "a negative grace period",
        "pod-timing",
        lambda p: (
            p["spec"].update(terminationGracePeriodSeconds=-1),
            _trainer(p).pop("lifecycle"),
        ),
        "spec.terminationGracePeriodSeconds",
        "terminationGracePeriodSeconds must be >= 0; the API server treats -1 as 1",
        "warning",
    ),
]


@pytest.mark.parametrize(
    ("rule", "change", "path", "message", "severity"),
    [case[1:] for case in FAILING],
    ids=[case[0] for case in FAILING],
)
def test_what_the_api_server_refuses_is_a_problem_at_its_path(
    rule: str, change: Change, path: str, message: str, severity: str
) -> None:
    pod = _with(change)
    found = problems(pod)
    assert [(p.rule, p.path, p.severity) for p in found] == [(rule, path, severity)], [
        str(p) for p in found
    ]
    assert message in found[0].message
    assert found[0].check == "reference"
    if severity == "error":
        with pytest.raises(PodValidationError) as caught:
            validate_pod(pod)
        assert f"{path}: {found[0].message}" in str(caught.value)
    else:  # the API server accepts it and warns: so does podfold
        assert validate_pod(pod) is pod


def test_a_warning_says_so_where_it_prints() -> None:
    [found] = problems(
        _with(
            lambda p: (
                p["spec"].update(terminationGracePeriodSeconds=-5),
                _trainer(p).pop("lifecycle"),
            )
        )
    )
    assert str(found) == (
        "spec.terminationGracePeriodSeconds: warning: terminationGracePeriod"
        "Seconds must be >= 0; the API server treats -5 as 1"
    )


# ---------------------------------------------------------------- what changed with the version


@pytest.mark.parametrize(
    ("change", "path", "refused_before", "accepted_from"),
    [
        # env names: printable ASCII but '=' from 1.32 (RelaxedEnvironmentVariableValidation)
        (
            lambda p: _trainer(p)["env"].append({"name": "1ST_RANK"}),
            f"{TRAINER}.env[name=1ST_RANK].name",
            "1.31",
            "1.32",
        ),
        (
            lambda p: _trainer(p)["env"].append({"name": "MY VAR"}),
            f'{TRAINER}.env[name="MY VAR"].name',
            "1.31",
            "1.32",
        ),
        (
            lambda p: _trainer(p)["envFrom"][0].update(prefix="1_"),
            f"{TRAINER}.envFrom[0].prefix",
            "1.31",
            "1.32",
        ),
        # search domains with '_' from 1.33 (RelaxedDNSSearchValidation)
        (
            lambda p: p["spec"].update(dnsConfig={"searches": ["_grpc.example.com"]}),
            "spec.dnsConfig.searches[0]",
            "1.32",
            "1.33",
        ),
        (
            lambda p: p["spec"].update(dnsConfig={"searches": ["example.com", "."]}),
            "spec.dnsConfig.searches[1]",
            "1.32",
            "1.33",
        ),
        # a zero sleep from 1.33 (PodLifecycleSleepActionAllowZero)
        (
            lambda p: _trainer(p)["lifecycle"]["preStop"]["sleep"].update(seconds=0),
            f"{TRAINER}.lifecycle.preStop.sleep.seconds",
            "1.32",
            "1.33",
        ),
    ],
)
def test_rules_the_api_server_relaxed_follow_the_version(
    change: Change, path: str, refused_before: str, accepted_from: str
) -> None:
    pod = _with(change)
    assert [p.path for p in problems(pod, k8s_version=refused_before)] == [path]
    assert problems(pod, k8s_version=accepted_from) == []
    assert problems(pod) == []  # the newest bundled


def test_the_old_env_name_rule_refuses_dots_alone() -> None:
    for name, message in ((".", "must not be '.'"), ("..x", "must not start with '..'")):
        pod = _with(lambda p, name=name: _trainer(p)["env"].append({"name": name}))
        [found] = problems(pod, k8s_version="1.29")
        assert message in found.message, found


# ---------------------------------------------------------------- pods the API server accepts

PASSING: dict[str, Change] = {
    # a volume without a source: the API server makes it an emptyDir
    "a volume without a source": lambda p: (
        p["spec"]["volumes"].append({"name": "scratch"}),
        _trainer(p)["volumeMounts"].append({"name": "scratch", "mountPath": "/scratch"}),
    ),
    "a source set to null beside another": lambda p: p["spec"]["volumes"][0].update(hostPath=None),
    "one mount path in two containers": lambda p: _sidecar(
        p, volumeMounts=[{"name": "dshm", "mountPath": "/dev/shm"}]
    ),
    "one volume mounted twice at two paths": lambda p: _trainer(p)["volumeMounts"].append(
        {"name": "data", "mountPath": "/eval", "subPath": "eval", "readOnly": True}
    ),
    "a subPathExpr alone": lambda p: _trainer(p)["volumeMounts"][1].update(
        subPath=None, subPathExpr="$(POD)/out"
    ),
    "bidirectional propagation, privileged": lambda p: (
        _trainer(p)["volumeMounts"][0].update(mountPropagation="Bidirectional"),
        _trainer(p).update(securityContext={"privileged": True}),
    ),
    "recursiveReadOnly on a read-only mount": lambda p: _trainer(p)["volumeMounts"][1].update(
        recursiveReadOnly="IfPossible"
    ),
    "a block device of a claim": lambda p: (
        p["spec"]["volumes"].append({"name": "raw", "persistentVolumeClaim": {"claimName": "r"}}),
        _trainer(p).update(volumeDevices=[{"name": "raw", "devicePath": "/dev/xvda"}]),
    ),
    "one port name in two containers": lambda p: _sidecar(
        p, ports=[{"containerPort": 9901, "name": "http"}]
    ),
    "an empty port name": lambda p: _trainer(p)["ports"].append(
        {"containerPort": 9000, "name": ""}
    ),
    "one containerPort over two protocols": lambda p: _trainer(p)["ports"].append(
        {"containerPort": 8080, "name": "http-udp", "protocol": "UDP"}
    ),
    "hostNetwork with hostPort unset or equal": lambda p: (
        p["spec"].update(hostNetwork=True),
        _trainer(p)["ports"][1].update(hostPort=8080),
    ),
    "an init container on a regular container's hostPort": lambda p: (
        _trainer(p)["ports"][1].update(hostPort=80),
        p["spec"]["initContainers"][0].update(ports=[{"containerPort": 80, "hostPort": 80}]),
    ),
    "one hostPort on two host IPs": lambda p: (
        _trainer(p)["ports"][1].update(hostPort=80, hostIP="10.0.0.1"),
        _sidecar(p, ports=[{"containerPort": 9000, "hostPort": 80, "hostIP": "10.0.0.2"}]),
    ),
    "env names of any printable ASCII": lambda p: _trainer(p)["env"].extend(
        [{"name": "1ST"}, {"name": "my.env-name"}, {"name": "A B:C"}]
    ),
    "a valueFrom with an empty value": lambda p: _trainer(p)["env"][1].update(value=""),
    "a successThreshold of 0 (defaulted to 1)": lambda p: _trainer(p)["livenessProbe"].update(
        successThreshold=0
    ),
    "a readiness probe's successThreshold above 1": lambda p: _trainer(p)["readinessProbe"].update(
        successThreshold=3
    ),
    "a sidecar's probes and lifecycle": lambda p: p["spec"]["initContainers"].append(
        {
            "name": "proxy",
            "image": "envoy:1",
            "restartPolicy": "Always",
            "livenessProbe": {"grpc": {"port": 9901}},
            "lifecycle": {"preStop": {"exec": {"command": ["true"]}}},
        }
    ),
    "a sleep as long as the grace period": lambda p: (
        p["spec"].update(terminationGracePeriodSeconds=120),
        _trainer(p)["lifecycle"]["preStop"]["sleep"].update(seconds=120),
    ),
    "extended, native and huge-page resources": lambda p: _trainer(p)["resources"].update(
        limits={
            "cpu": "4",
            "memory": "8Gi",
            "example.com/foo": 1,
            "kubernetes.io/bar": 1,
            "hugepages-2Mi": "100Mi",
            "ephemeral-storage": "10Gi",
        },
        requests={"example.com/foo": 1, "hugepages-2Mi": "100Mi"},
    ),
    "a quantity with a negative exponent": lambda p: _trainer(p)["resources"]["requests"].update(
        cpu="1e-1"
    ),
    "a toleration of every taint": lambda p: p["spec"]["tolerations"].append(
        {"operator": "Exists"}
    ),
    "a toleration with an empty value": lambda p: p["spec"]["tolerations"].append(
        {"key": "pool", "operator": "Equal", "value": "", "effect": "NoSchedule"}
    ),
    "labels as the API server allows them": lambda p: p["metadata"]["labels"].update(
        {"example.com/Team_A.b": "Value-1.x_y", "a": "", "x" * 63: "y" * 63}
    ),
    "annotation keys read in lower case": lambda p: p["metadata"]["annotations"].update(
        {"Example.com/Owner": "any text at all: spaces, $macros"}
    ),
    "dnsPolicy None with a nameserver": lambda p: p["spec"].update(
        dnsPolicy="None",
        dnsConfig={
            "nameservers": ["10.0.0.10", "2001:db8::10", "010.0.0.1"],
            "searches": ["svc.cluster.local.", "example.com"],
            "options": [{"name": "ndots", "value": "2"}],
        },
    ),
    "no deadline, a zero grace period (and no sleep to outlast it)": lambda p: (
        p["spec"].pop("activeDeadlineSeconds"),
        _trainer(p).pop("lifecycle"),
        p["spec"].update(terminationGracePeriodSeconds=0),
    ),
    "an empty hostname": lambda p: p["spec"].update(hostname=""),
}


@pytest.mark.parametrize("change", list(PASSING.values()), ids=list(PASSING))
def test_what_the_api_server_accepts_passes(change: Change) -> None:
    pod = _with(change)
    assert problems(pod) == []
    assert validate_pod(pod) is pod


def test_a_pod_template_s_labels_are_checked_and_a_pod_spec_has_none() -> None:
    pod = _with(lambda p: p["metadata"]["labels"].update(team="ml ops"))
    template = {"metadata": pod["metadata"], "spec": pod["spec"]}
    [found] = problems(template, kind="PodTemplateSpec")
    assert (found.path, found.rule) == ("metadata.labels.team", "labels")
    assert problems(pod["spec"], kind="PodSpec") == []


def test_a_pod_spec_s_paths_start_at_its_fields() -> None:
    spec = _with(lambda p: _mount(p, "cache", "/data"))["spec"]
    [found] = problems(spec, kind="PodSpec")
    assert found.path == "containers[name=trainer].volumeMounts[name=cache].mountPath"


def test_what_the_schema_check_reports_is_not_reported_twice() -> None:
    # a port beyond int32 is the schema check's; a name that is no string too
    pod = _with(
        lambda p: (
            _trainer(p)["ports"][0].update(containerPort=2**31),
            _trainer(p)["env"].append({"name": 7}),
        )
    )
    assert [p.check for p in problems(pod)] == ["schema", "schema"]


def test_shapes_the_schema_refuses_do_not_break_the_rules() -> None:
    # each rule skips what is no map or list where it looks: the schema check reports it
    odd: list[Change] = [
        lambda p: _trainer(p).update(
            env=[None, 3, {"name": None}], envFrom=[7], ports=["x", None], volumeMounts=[1]
        ),
        lambda p: _trainer(p).update(
            volumeDevices=[None], livenessProbe=[], lifecycle={"preStop": []}
        ),
        lambda p: _trainer(p)["resources"].update(limits=[1], requests={"cpu": None}),
        lambda p: (
            p["spec"].update(tolerations=[None, 1], nodeSelector=[], dnsConfig=[]),
            p["spec"]["volumes"].append(None),
        ),
        lambda p: p.update(metadata=[]),
        # values the rules compare or look up, of no hashable kind
        lambda p: (
            _trainer(p)["volumeMounts"].append({"name": {}, "mountPath": {}}),
            _trainer(p).update(volumeDevices=[{"name": [], "devicePath": {}}]),
        ),
        lambda p: _trainer(p)["ports"].append(
            {"containerPort": 81, "protocol": [], "hostIP": {}, "hostPort": 81, "name": []}
        ),
        lambda p: (
            _trainer(p)["env"][1].update(valueFrom=[]),
            _trainer(p)["envFrom"].append({"prefix": {}, "secretRef": []}),
        ),
        lambda p: (
            p["metadata"]["labels"].update(team=[]),
            p["spec"]["tolerations"].append({"key": {}, "operator": [], "value": {}}),
        ),
        lambda p: _trainer(p)["resources"].update(limits={"cpu": {}}, requests={"cpu": []}),
    ]
    for change in odd:
        found = problems(_with(change))
        assert found and all(p.check == "schema" for p in found), [str(p) for p in found]


def test_problems_are_values_with_what_was_found() -> None:
    [found] = problems(_with(lambda p: _mount(p, "cache", "/dev/shm")))
    assert found == Problem(
        f"{TRAINER}.volumeMounts[name=cache].mountPath",
        found.message,
        "/dev/shm",
        "error",
        "reference",
        "mount-paths",
    )


def test_inputs_are_not_modified() -> None:
    pod = _with(lambda p: (_mount(p, "cache", "/dev/shm"), p["spec"].update(dnsPolicy="None")))
    before = copy.deepcopy(pod)
    assert len(problems(pod)) == 2
    assert pod == before


# ---------------------------------------------------------------- merges bring them


@needs_kubectl
@pytest.mark.parametrize(
    ("patch", "path", "rule"),
    [
        # a strategic merge meets the volume by name and keeps both sources
        (
            {"spec": {"volumes": [{"name": "dshm", "hostPath": {"path": "/dev/shm"}}]}},
            "spec.volumes[name=dshm].hostPath",
            "volume-sources",
        ),
        # a merge of a probe keeps the handler already there
        (
            {
                "spec": {
                    "containers": [
                        {"name": "trainer", "livenessProbe": {"tcpSocket": {"port": 8080}}}
                    ]
                }
            },
            f"{TRAINER}.livenessProbe.tcpSocket",
            "probes",
        ),
        # a value set by a merge beside the valueFrom already there
        (
            {"spec": {"containers": [{"name": "trainer", "env": [{"name": "POD", "value": "x"}]}]}},
            f"{TRAINER}.env[name=POD].value",
            "env-sources",
        ),
        # ports merge by containerPort: a second port of the same name is kept
        (
            {
                "spec": {
                    "containers": [
                        {"name": "trainer", "ports": [{"containerPort": 8081, "name": "http"}]}
                    ]
                }
            },
            f"{TRAINER}.ports[2].name",
            "container-ports",
        ),
    ],
)
def test_what_kubectl_s_own_merge_brings_is_found(patch: Any, path: str, rule: str) -> None:
    code, merged = kubectl_patch(base_pod(), patch, "strategic")
    assert code == 0, merged
    found = problems(merged)
    assert [(p.path, p.rule) for p in found] == [(path, rule)], [str(p) for p in found]


# ---------------------------------------------------------------- the command line


def _podfold(*args: str) -> subprocess.CompletedProcess[str]:
    return warm.run("podfold", [*args], cwd=REPO, timeout=120)


DEPLOYMENT = """\
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
        ports: [{containerPort: 80, name: http}]
        volumeMounts: [{name: data, mountPath: /data}]
      volumes: [{name: data, emptyDir: {}}]
"""
LABEL = "document 1: Deployment/web template (spec.template)"
WEB = "spec.template.spec.containers[name=web]"


def _manifest(tmp_path: Path, change: Callable[[dict[str, Any]], Any] | None = None) -> Path:
    document = yaml.safe_load(DEPLOYMENT)
    if change is not None:
        change(document["spec"]["template"]["spec"])
    target = tmp_path / "web.yaml"
    target.write_text(yaml.safe_dump(document, sort_keys=False))
    return target


def test_validate_refuses_two_mounts_at_one_path_and_two_ports_of_one_name(tmp_path: Path) -> None:
    def break_it(spec: dict[str, Any]) -> None:
        spec["volumes"].append({"name": "cache", "emptyDir": {}})
        spec["containers"][0]["volumeMounts"].append({"name": "cache", "mountPath": "/data"})
        spec["containers"][0]["ports"].append({"containerPort": 8080, "name": "http"})

    manifest = _manifest(tmp_path, break_it)
    assert _podfold("validate", str(_manifest(tmp_path / "..", None))).returncode == 0
    result = _podfold("validate", str(manifest))
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines() == [
        f"{manifest}: {LABEL}: {WEB}.volumeMounts[name=cache].mountPath: mountPath '/data' is "
        "already where volumeMounts[0] (volume 'data') is mounted; a container mounts one "
        "volume at a path",
        f"{manifest}: {LABEL}: {WEB}.ports[1].name: port name 'http' is already the name of "
        "ports[0] of this container",
    ]
    assert "2 errors in 1 pod template" in result.stderr


def test_apply_names_the_overlay_line_that_brought_the_clash(tmp_path: Path) -> None:
    manifest = _manifest(tmp_path)
    overlay = tmp_path / "cache.yaml"
    overlay.write_text(
        "- {op: append, path: spec.volumes, value: {name: cache, emptyDir: {}}}\n"
        "- {op: append, path: 'spec.containers[name=web].volumeMounts',\n"
        "   value: {name: cache, mountPath: /data}}\n"
    )
    result = _podfold("apply", "-f", str(overlay), str(manifest))
    assert result.returncode == 1 and result.stdout == "", result.stderr
    *lines, summary = result.stderr.splitlines()
    assert lines == [
        f"{manifest}: {LABEL}: {WEB}.volumeMounts[name=cache].mountPath: mountPath '/data' is "
        "already where volumeMounts[0] (volume 'data') is mounted; a container mounts one "
        f"volume at a path (written by {overlay}:2)"
    ]
    assert summary.startswith("podfold: error: 1 problem")
    # at a path of its own, the same overlay is fine
    overlay.write_text(overlay.read_text().replace("mountPath: /data", "mountPath: /cache"))
    fine = _podfold("apply", "-f", str(overlay), str(manifest))
    assert fine.returncode == 0, fine.stderr
    mounts = yaml.safe_load(fine.stdout)["spec"]["template"]["spec"]["containers"][0][
        "volumeMounts"
    ]
    assert [mount["mountPath"] for mount in mounts] == ["/data", "/cache"]


def test_apply_reports_only_what_the_overlays_brought(tmp_path: Path) -> None:
    # the manifest has two ports of one name already; an overlay that adds a label is fine,
    # one that adds a second source to its volume is not
    manifest = _manifest(
        tmp_path,
        lambda spec: spec["containers"][0]["ports"].append({"containerPort": 8080, "name": "http"}),
    )
    assert _podfold("validate", str(manifest)).returncode == 1
    labels = tmp_path / "labels.yaml"
    labels.write_text("metadata: {labels: {team: ml}}\n")
    fine = _podfold("apply", "-f", str(labels), str(manifest))
    assert fine.returncode == 0, fine.stderr
    # a strategic merge meets the volume by its name, and keeps the source it had
    sources = tmp_path / "sources.yaml"
    sources.write_text(
        "- strategic:\n    spec: {volumes: [{name: data, hostPath: {path: /mnt/data}}]}\n"
    )
    result = _podfold("apply", "-f", str(sources), str(manifest))
    assert result.returncode == 1
    [line] = [line for line in result.stderr.splitlines() if "spec.template" in line]
    assert line == (
        f"{manifest}: {LABEL}: spec.template.spec.volumes[name=data].hostPath: "
        "volume 'data' has more than one source: emptyDir and hostPath; a volume "
        f"takes one (written by {sources}:1)"
    )


def test_apply_prints_a_warning_and_succeeds(tmp_path: Path) -> None:
    manifest = _manifest(tmp_path)
    overlay = tmp_path / "sidecar.yaml"
    overlay.write_text(
        "spec:\n  containers:\n  - {name: proxy, image: 'envoy:1', ports: [{containerPort: 80}]}\n"
    )
    result = _podfold("apply", "-f", str(overlay), str(manifest))
    assert result.returncode == 0, result.stderr
    assert [
        c["name"] for c in yaml.safe_load(result.stdout)["spec"]["template"]["spec"]["containers"]
    ] == ["web", "proxy"]
    [warning] = result.stderr.splitlines()
    assert warning.startswith(
        f"podfold: warning: {manifest}: {LABEL}: "
        "spec.template.spec.containers[name=proxy].ports[0].containerPort"
    )
    assert "duplicate port definition with containers[name=web].ports[0]" in warning


# ---------------------------------------------------------------- containers-required


@pytest.mark.parametrize(
    ("spec", "fails"),
    [
        ({"containers": []}, True),
        ({"containers": [{"name": "c", "image": "x"}]}, False),
        ({"containers": [{"name": "c", "image": "x"}], "initContainers": []}, False),
    ],
)
def test_a_pod_needs_at_least_one_container(spec: dict[str, Any], fails: bool) -> None:
    found = [(p.path, p.rule) for p in problems({"spec": spec}) if p.severity == "error"]
    assert found == ([("spec.containers", "containers-required")] if fails else [])


def test_an_overlay_that_removes_the_last_container_is_refused_at_its_line(tmp_path: Path) -> None:
    # the schema passes an empty list; the API server refuses it (Required value)
    manifest, overlay = tmp_path / "web.yaml", tmp_path / "rm.yaml"
    manifest.write_text(DEPLOYMENT)
    overlay.write_text('- {op: remove_at, path: "spec.containers[name=web]"}\n')
    done = _podfold("apply", "-f", str(overlay), str(manifest))
    assert done.returncode == 1 and done.stdout == ""
    assert (
        "spec.template.spec.containers: a pod needs at least one container; the list is "
        f"empty (written by {overlay}:1)" in done.stderr
    )
