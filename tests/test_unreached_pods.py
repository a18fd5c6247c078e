"""Never silent about what was not reached.

A document of a kind podfold does not know that holds containers, image or
not (shaped as a Spark operator SparkApplication, whose pods take the
application's image; an Apache Flink FlinkDeployment, whose main container the
operator fills in; a KServe LLMInferenceService, a bare pod spec as its
template), is warned about by ``podfold apply``, ``explain`` and ``validate``;
ordinary documents (a ConfigMap, a Service, a CRD, a PVC) are not. The Spark
operator's and KServe's kinds are built in now: their pods are reached. Overlays that reach no pod template in the whole stream are warned
about. A pod-level overlay given a document of a kind podfold does not know
says what works instead, and the way it names works.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

import recipes
from combinators import for_each
from tests import warm
from transforms import merge_patch
from transforms.cli import main
from transforms.kube import WorkloadKindError, apply_to_workload, pod_templates
from transforms.kube.table import a_kind
from transforms.kube.unreached import unreached_pods

REPO = Path(__file__).resolve().parent.parent

# the Spark operator's spark-pi, with the driver's and executors' settings as its
# examples write them (no image: the application's spec.image is every pod's)
SPARK_PI = """\
apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata:
  name: spark-pi
  namespace: default
spec:
  type: Scala
  mode: cluster
  image: spark:3.5.3
  mainClass: org.apache.spark.examples.SparkPi
  mainApplicationFile: local:///opt/spark/examples/jars/spark-examples_2.12-3.5.3.jar
  arguments: ["5000"]
  sparkVersion: 3.5.3
  driver:
    cores: 1
    memory: 512m
    serviceAccount: spark-operator-spark
    env:
    - name: SPARK_DRIVER_LOG_LEVEL
      value: INFO
  executor:
    instances: 2
    cores: 1
    memory: 512m
    env:
    - name: SPARK_EXECUTOR_LOG_LEVEL
      value: INFO
"""

# spark-pi as the Spark operator's examples publish it: no env, no pull policy
SPARK_PI_AS_PUBLISHED = """\
apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata:
  name: spark-pi
  namespace: default
spec:
  type: Scala
  mode: cluster
  image: spark:3.5.3
  mainClass: org.apache.spark.examples.SparkPi
  mainApplicationFile: local:///opt/spark/examples/jars/spark-examples_2.12-3.5.3.jar
  arguments: ["5000"]
  sparkVersion: 3.5.3
  driver:
    labels:
      version: 3.5.3
    cores: 1
    memory: 512m
    serviceAccount: spark-operator-spark
  executor:
    labels:
      version: 3.5.3
    instances: 1
    cores: 1
    memory: 512m
"""

# the same with pod templates (spark operator 2.1 and later): containers with no image
SPARK_TEMPLATES = """\
apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata:
  name: spark-pi-templates
spec:
  type: Scala
  mode: cluster
  image: spark:3.5.3
  mainApplicationFile: local:///opt/spark/examples/jars/spark-examples_2.12-3.5.3.jar
  sparkVersion: 3.5.3
  driver:
    template:
      spec:
        containers:
        - name: spark-kubernetes-driver
          resources:
            limits:
              cpu: "1"
  executor:
    instances: 1
    template:
      spec:
        containers:
        - name: spark-kubernetes-executor
          resources:
            limits:
              cpu: "1"
"""

# KServe's LLMInferenceService: the controller fills in the image of the main container
LLM_SERVICE = """\
apiVersion: serving.kserve.io/v1alpha1
kind: LLMInferenceService
metadata:
  name: facebook-opt-125m-single
spec:
  model:
    uri: hf://facebook/opt-125m
    name: facebook/opt-125m
  replicas: 1
  router:
    scheduler: {}
    route: {}
    gateway: {}
  template:
    containers:
    - name: main
      env:
      - name: VLLM_LOGGING_LEVEL
        value: DEBUG
"""

# Apache Flink's kubernetes operator, its pod-template example trimmed: the main container
# (named so that the operator finds it) takes the deployment's image
FLINK_POD_TEMPLATE = """\
apiVersion: flink.apache.org/v1beta1
kind: FlinkDeployment
metadata:
  name: pod-template-example
spec:
  image: flink:1.20
  flinkVersion: v1_20
  serviceAccount: flink
  podTemplate:
    spec:
      containers:
        - name: flink-main-container
          volumeMounts:
            - mountPath: /opt/flink/log
              name: flink-logs
      volumes:
        - name: flink-logs
          emptyDir: {}
  jobManager:
    resource:
      memory: "2048m"
      cpu: 1
  taskManager:
    resource:
      memory: "2048m"
      cpu: 1
  job:
    jarURI: local:///opt/flink/examples/streaming/StateMachineExample.jar
    parallelism: 2
"""


def of_another_group(text: str, api_version: str) -> Any:
    """The one document of ``text``, of a group no project has: a kind podfold does not know,
    of the shape of one it knows."""
    return {**documents(text)[0], "apiVersion": api_version}


ORDINARY = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: trainer-config
data:
  image: ghcr.io/example/trainer:1.0
  imagePullPolicy: Always
  command: python train.py
  env: "NCCL_DEBUG=INFO"
---
apiVersion: v1
kind: Service
metadata:
  name: trainer
spec:
  selector:
    app: trainer
  ports:
  - name: http
    port: 80
    targetPort: 8080
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 10Gi
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: trainjobs.example.com
spec:
  group: example.com
  names:
    kind: TrainJob
    plural: trainjobs
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              image:
                type: string
              env:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
                    value: {type: string}
              containers:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
                    image: {type: string}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: guestbook
spec:
  project: default
  source:
    repoURL: https://github.com/argoproj/argocd-example-apps.git
    path: guestbook
    plugin:
      name: kustomized-helm
      env:
      - name: HELM_ARGS
        value: --set replicas=2
  destination:
    server: https://kubernetes.default.svc
    namespace: guestbook
"""


def documents(text: str) -> list[Any]:
    return [document for document in yaml.safe_load_all(text) if document is not None]


def podfold(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return warm.run("podfold", args, input=stdin)


# ---------------------------------------------------------------- what is found


def test_a_spark_application_s_driver_and_executors_are_found() -> None:
    # the walk tells a driver and executors by their cores, memory and env
    [found] = unreached_pods(of_another_group(SPARK_PI, "spark.example.com/v1"))
    assert (found.kind, found.name, found.reason) == (
        "SparkApplication",
        "spark-pi",
        "unknown-kind",
    )
    assert set(found.places) == {"spec.driver", "spec.executor"}
    # the Spark operator's own, a known kind now: its pods are not where podfold looks
    [known] = unreached_pods(documents(SPARK_PI)[0])
    assert (known.reason, set(known.places)) == ("elsewhere", {"spec.driver", "spec.executor"})


def test_spark_pi_as_published_is_found_by_its_driver() -> None:
    # the executor has its size only (cores, memory): no field of a container to tell it by
    [found] = unreached_pods(documents(SPARK_PI_AS_PUBLISHED)[0])
    assert (found.kind, found.places) == ("SparkApplication", ("spec.driver",))


def test_pod_templates_without_an_image_are_found() -> None:
    [found] = unreached_pods(documents(FLINK_POD_TEMPLATE)[0])
    assert (found.kind, found.reason, found.places) == (
        "FlinkDeployment",
        "unknown-kind",
        ("spec.podTemplate.spec.containers",),
    )
    # Spark's, of a group no project has
    [spark] = unreached_pods(of_another_group(SPARK_TEMPLATES, "spark.example.com/v1"))
    assert spark.places == (
        "spec.driver.template.spec.containers",
        "spec.executor.template.spec.containers",
    )


def test_spark_pod_templates_are_reached() -> None:
    # the Spark operator's kinds are built in: its pod templates are the pods podfold reaches
    spark = documents(SPARK_TEMPLATES)[0]
    assert unreached_pods(spark) == ()
    assert [(str(template.path), template.role) for template in pod_templates(spark)] == [
        ("spec.driver.template", "driver"),
        ("spec.executor.template", "executor"),
    ]


def test_a_bare_pod_spec_template_without_an_image_is_found() -> None:
    # an LLMInferenceService's shape (a template that is a pod spec, whose main container the
    # controller gives its image), of a group no project has
    [found] = unreached_pods(of_another_group(LLM_SERVICE, "serving.example.com/v1alpha1"))
    assert (found.kind, found.places) == ("LLMInferenceService", ("spec.template.containers",))
    assert str(found).startswith(
        "LLMInferenceService/facebook-opt-125m-single (serving.example.com/v1alpha1) holds "
        "containers at spec.template.containers, but "
        "podfold knows no kind LLMInferenceService of serving.example.com"
    )


def test_an_llm_inference_service_s_template_is_reached() -> None:
    # KServe's kinds are built in: the template is its main pod
    service = documents(LLM_SERVICE)[0]
    assert unreached_pods(service) == ()
    assert [(str(template.path), template.role) for template in pod_templates(service)] == [
        ("spec.template", "main")
    ]


@pytest.mark.parametrize("document", documents(ORDINARY), ids=lambda doc: doc["kind"])
def test_ordinary_documents_are_not_warned_about(document: Any) -> None:
    assert unreached_pods(document) == ()


# ---------------------------------------------------------------- the command line


def test_validate_warns_of_pods_it_does_not_check(tmp_path: Path) -> None:
    manifest = tmp_path / "serving.yaml"
    other = yaml.safe_dump(of_another_group(LLM_SERVICE, "serving.example.com/v1alpha1"))
    manifest.write_text(FLINK_POD_TEMPLATE + "---\n" + other)
    result = podfold("validate", str(manifest))
    assert result.returncode == 0, result.stderr
    warnings = [
        line for line in result.stderr.splitlines() if line.startswith("podfold: warning: ")
    ]
    assert len(warnings) == 2
    assert (
        "document 1: FlinkDeployment/pod-template-example (flink.apache.org/v1beta1) holds"
        in warnings[0]
    )
    assert (
        "document 2: LLMInferenceService/facebook-opt-125m-single (serving.example.com/v1alpha1) "
        "holds" in warnings[1]
    )
    assert result.stderr.splitlines()[-1] == (
        "podfold: 0 pod templates in 2 documents: valid; 2 documents hold pods podfold does "
        "not reach, not checked (named above)"
    )


def test_validate_takes_the_image_the_controller_gives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = tmp_path / "serving.yaml"
    manifest.write_text(SPARK_TEMPLATES + "---\n" + LLM_SERVICE)
    with pytest.raises(SystemExit) as done:
        main(["validate", str(manifest)])
    assert (done.value.code, capsys.readouterr().err.splitlines()[-1]) == (
        0,
        "podfold: 3 pod templates in 2 documents: valid",
    )


def test_apply_warns_of_each_document_whose_pods_it_does_not_reach(tmp_path: Path) -> None:
    manifest = tmp_path / "serving.yaml"
    other = yaml.safe_dump(of_another_group(SPARK_PI, "spark.example.com/v1"), sort_keys=False)
    manifest.write_text(other + "---\n" + FLINK_POD_TEMPLATE)
    overlay = tmp_path / "gpu.yaml"
    overlay.write_text("- {recipe: node_selector, labels: {gpu: a100}}\n")
    result = podfold("apply", "-f", str(overlay), str(manifest))
    assert result.returncode == 0, result.stderr
    assert documents(result.stdout) == documents(manifest.read_text())
    *said, last = result.stderr.splitlines()
    # a record that reaches the containers follows where one can, on lines of its own
    lines = [line for line in said if line.startswith("podfold: warning: ")]
    assert [line.split(": ")[4].split()[0] for line in lines] == [
        "SparkApplication/spark-pi",
        "FlinkDeployment/pod-template-example",
    ]
    assert all("does not know where its pods are" in line for line in lines)
    assert last == (  # and what it comes to
        f"podfold: warning: {manifest}: the overlays reach no pod template: podfold reaches "
        f"the pods of none of the 2 documents that hold some (named above), so nothing changed"
    )


def test_apply_to_documents_with_no_pod_says_the_overlays_reached_none(tmp_path: Path) -> None:
    manifest = tmp_path / "config.yaml"
    manifest.write_text(ORDINARY)
    overlay = tmp_path / "gpu.yaml"
    overlay.write_text("- {recipe: node_selector, labels: {gpu: a100}}\n")
    result = podfold("apply", "-f", str(overlay), str(manifest))
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        f"podfold: warning: {manifest}: the overlays reach no pod template: none of the 5 "
        f"documents holds one podfold knows of, so nothing changed"
    ]


def test_apply_reaching_templates_says_nothing(tmp_path: Path) -> None:
    overlay = tmp_path / "gpu.yaml"
    overlay.write_text("- {recipe: node_selector, labels: {gpu: a100}}\n")
    result = podfold(
        "apply", "-f", str(overlay), str(REPO / "tests" / "manifests" / "kubernetes" / "job.yaml")
    )
    assert (result.returncode, result.stderr) == (0, "")


# ---------------------------------------------------------------- the guard's advice


def test_an_unknown_kind_is_refused_saying_what_works() -> None:
    # a kind podfold does not know (the Spark operator's it knows now), shaped as Spark's
    spark = {**documents(SPARK_TEMPLATES)[0], "apiVersion": "example.com/v1", "kind": "Widget"}
    overlay = recipes.node_selector(gpu="a100")
    with pytest.raises(WorkloadKindError) as caught:
        overlay(spark)
    message = str(caught.value)
    assert "podfold does not know where a Widget keeps its pods" in message
    assert "apply_to_workload" not in message and "`podfold apply`" not in message
    assert "for_each('spec.driver.template', overlay)" in message
    assert "merge_patch" in message
    # and what it names works
    done = for_each("spec.driver.template", overlay)(spark)
    assert done["spec"]["driver"]["template"]["spec"]["nodeSelector"] == {"gpu": "a100"}
    patched = merge_patch(
        {"spec": {"driver": {"template": {"spec": {"nodeSelector": {"gpu": "a100"}}}}}}
    )(spark)
    assert patched == done
    # where it said apply_to_workload would do, it would have left the document as it was
    assert apply_to_workload(overlay, spark) is spark


def test_a_known_kind_is_refused_naming_the_workload_api() -> None:
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "pi"},
        "spec": {"template": {"spec": {"containers": []}}},
    }
    with pytest.raises(WorkloadKindError, match=r"apply_to_workload\(overlay, document\)"):
        recipes.node_selector(gpu="a100")(job)


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("InferenceService", "an InferenceService"),
        ("AppWrapper", "an AppWrapper"),
        ("MPIJob", "an MPIJob"),
        ("LLMInferenceService", "an LLMInferenceService"),
        ("XGBoostJob", "an XGBoostJob"),
        ("RayJob", "a RayJob"),
        ("TFJob", "a TFJob"),
        ("JAXJob", "a JAXJob"),
        ("Deployment", "a Deployment"),
        ("UnknownThing", "an UnknownThing"),
    ],
)
def test_a_kind_is_named_with_its_article(kind: str, said: str) -> None:
    assert a_kind(kind) == said
    with pytest.raises(WorkloadKindError) as caught:
        recipes.host_ipc(True)({"apiVersion": "x/v1", "kind": kind, "metadata": {"name": "n"}})
    assert f"given {said} document" in str(caught.value)
