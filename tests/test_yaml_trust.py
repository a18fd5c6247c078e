"""YAML read as kubectl reads it, or refused saying why: no silent wrong output.

Three ways podfold read YAML text untrustworthily, each checked here against
what it must be:

* **YAML 1.1's booleans written plain** (``y``, ``n``, ``yes``, ``off``, ...).
  kubectl reads every one as a boolean; podfold (on PyYAML) read ``y``, ``Y``,
  ``n`` and ``N`` as strings, so ``podfold validate`` passed an env var's
  ``value: y``, which the API server refuses, and ``podfold apply`` wrote it
  back quoted (``'y'``), which kubectl reads as another value than the file's.
  A manifest is now read as kubectl reads it (checked against kubectl itself,
  and against go-yaml v2's resolver written out in ``tests/test_yaml_quoting.py``),
  and validate names the file, line and column where one stands for a string.
* **An implicit key of megabytes** took seconds to refuse (the pure-Python
  parser, which words every refusal, read it all again); it is refused at
  once, naming where the key begins. Each such case runs in a child process
  with a CPU budget of one second (``tests.budget.within``).
* **An unrendered Helm template** (``{{ .Values.x }}``, ``{{- if ... }}``) or a
  ``{username}`` placeholder was refused in the parser's words only; the
  template is named, where it is, with the parser's words after it.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.budget import within
from tests.yaml_paths import yaml_path  # noqa: F401  (the fixture: libyaml, then pure Python)
from transforms.cli.documents import (
    ManifestError,
    boolean_warnings,
    dump_documents,
    read_documents,
    read_manifest,
)
from transforms.cli.main import main
from transforms.errors import OverlayError
from transforms.io import safe_yaml
from transforms.io.loading import loads_overlay

from .kubectl import KUBECTL, needs_kubectl, run_kubectl
from .test_yaml_quoting import go_yaml

# ---------------------------------------------------------------- helpers

TRUE_WORDS = ["y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE"]
FALSE_WORDS = ["n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE"]
YAML11_WORDS = [word for word in TRUE_WORDS + FALSE_WORDS if word.lower() not in ("true", "false")]


def _kubectl(text: str) -> tuple[int, str]:
    """kubectl on a one-object manifest: ``kubectl patch --local`` with an empty merge patch
    prints the object it read, as JSON, or says why it cannot read it."""
    with tempfile.TemporaryDirectory() as tmp:
        manifest = Path(tmp) / "pod.yaml"
        manifest.write_text(text)
        done = run_kubectl(
            "patch", "--local", "-f", str(manifest), "--type", "merge", "-p", "{}", "-o", "json"
        )
    return done.returncode, (
        done.stdout if done.returncode == 0 else done.stderr.replace(str(manifest), "pod.yaml")
    )


def _kubectl_reads(text: str) -> Any:
    """What kubectl makes of a one-object manifest (:func:`_kubectl`), as data."""
    code, said = _kubectl(text)
    assert code == 0, said
    return json.loads(said)


def _podfold(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the command line in this process: exit code, stdout, stderr."""
    with pytest.raises(SystemExit) as done:
        main(list(args))
    out, err = capsys.readouterr()
    code = done.value.code
    return code if isinstance(code, int) else 0, out, err


def _where(text: str, needle: str, occurrence: int = 1) -> tuple[int, int]:
    """The line and column (from 1) of the ``occurrence``-th ``needle`` in ``text``, found
    in the text itself (as the tests' expectation, independent of any parser)."""
    index = -1
    for _ in range(occurrence):
        index = text.index(needle, index + 1)
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _pod(env: str = "", labels: str = "", spec: str = "") -> str:
    return (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n"
        + (f"  labels:\n{labels}" if labels else "")
        + f"spec:\n{spec}  containers:\n  - name: c\n    image: busybox\n"
        + (f"    env:\n{env}" if env else "")
    )


# ---------------------------------------------------------------- booleans as kubectl reads them


@needs_kubectl
def test_a_manifest_is_read_as_kubectl_reads_it() -> None:
    # What kubectl (v1.32 here) does, run: with `value: y` in an env var,
    # `kubectl patch --local -f pod.yaml --type merge -p {} -o json` prints "value": true,
    # and with `a: Y` as an annotation `kubectl create --dry-run=client --validate=false -f
    # pod.yaml` refuses the file: "json: cannot unmarshal bool into Go struct field
    # ObjectMeta.metadata.annotations of type string". sigs.k8s.io/yaml reads YAML on go-yaml
    # v2, whose resolver takes YAML 1.1's booleans, y and n among them (PyYAML leaves y, Y, n
    # and N strings). podfold read those four as strings; every word must read as kubectl
    # reads it, plain or quoted.
    words = TRUE_WORDS + FALSE_WORDS + ["ya", "nay", "yes!", "0", "1.0", "~"]
    env = "".join(
        f"    - {{name: P{number}, value: {word}}}\n    - {{name: Q{number}, value: '{word}'}}\n"
        for number, word in enumerate(words)
    )
    text = _pod(env=env)
    assert read_documents(text, "pod.yaml") == [_kubectl_reads(text)]


@settings(max_examples=settings.default.max_examples * 3, deadline=None, database=None)
@given(
    st.sampled_from(TRUE_WORDS + FALSE_WORDS)
    | st.text(alphabet="yYnNoOeEsSfFtTrRuUlLaA", min_size=1, max_size=5)
)
def test_a_plain_scalar_is_a_boolean_where_go_yaml_v2_reads_one(word: str) -> None:
    # go-yaml v2's resolver (kubectl's), written out independently in test_yaml_quoting,
    # reads a plain scalar as a boolean exactly where podfold reads a manifest's as one,
    # and as true exactly for y, yes, on, true in the cases it takes
    [document] = read_documents(f"value: {word}\n", "m.yaml")
    value = document["value"]
    assert isinstance(value, bool) == (go_yaml(word, 2) == "bool"), (word, value)
    if isinstance(value, bool):
        assert value is (word.lower() in ("y", "yes", "on", "true"))


@pytest.mark.usefixtures("yaml_path")
@pytest.mark.parametrize("word", YAML11_WORDS)
@pytest.mark.parametrize(
    ("where", "path"),
    [
        ("env", "spec.containers[name=c].env[name=DEBUG].value"),
        ("label", "metadata.labels.enabled"),
        ("annotation", "metadata.annotations.sidecar"),
    ],
)
def test_validate_reports_a_plain_boolean_where_a_string_is_wanted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, word: str, where: str, path: str
) -> None:
    # kubectl reads the word as a boolean (above), which the API server refuses as an env
    # value, a label or an annotation: the file is invalid, and validate says where it is
    # written and how to quote it (before, y and n passed, and yes, on, ... named no line)
    if where == "env":
        text = _pod(env=f"    - name: DEBUG\n      value: {word}\n")
        needle = f"value: {word}"
        skip = len("value: ")
    elif where == "label":
        text = _pod(labels=f"    enabled: {word}\n")
        needle, skip = f"enabled: {word}", len("enabled: ")
    else:
        text = _pod().replace("  name: p\n", f"  name: p\n  annotations:\n    sidecar: {word}\n")
        needle, skip = f"sidecar: {word}", len("sidecar: ")
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(text)
    line, column = _where(text, needle)
    code, out, err = _podfold(capsys, "validate", str(manifest))
    assert code == 1, (out, err)
    truth = "true" if word in TRUE_WORDS else "false"
    assert out.splitlines() == [
        f"{manifest}:{line}:{column + skip}: document 1: Pod/p template (the document itself): "
        f"{path}: expected string, found boolean {truth.title()}; {word}, written plain, is "
        f"the boolean {truth} to kubectl (YAML 1.1): quote it ('{word}') if a string is meant"
    ]


@pytest.mark.parametrize("word", ["y", "N", "yes", "off"])
def test_a_plain_boolean_where_a_boolean_is_wanted_is_valid(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, word: str
) -> None:
    # kubectl reads `hostNetwork: y` as true: valid (before: "expected boolean, found string 'y'")
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(_pod(spec=f"  hostNetwork: {word}\n"))
    code, out, err = _podfold(capsys, "validate", str(manifest))
    assert (code, out) == (0, ""), err


@pytest.mark.usefixtures("yaml_path")
def test_a_key_kubectl_reads_as_a_boolean_is_the_text_kubectl_makes_of_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # kubectl makes JSON of what it reads, whose keys are strings: the label y is the label
    # "true", which the API server accepts (validate refused it: "the keys of a map must be
    # strings, found boolean True"); where it is written is still found, with a note
    text = _pod(labels="    team: ml\n    y: x\n")
    documents, found = read_manifest(text, "pod.yaml")
    assert documents[0]["metadata"]["labels"] == {"team": "ml", "true": "x"}
    line, column = _where(text, "y: x")
    assert [
        (boolean.keys, boolean.is_key, boolean.line, boolean.column, boolean.note())
        for boolean in found
    ] == [
        (
            ("metadata", "labels"),
            True,
            line,
            column,
            "y, a key written plain, is the boolean true to kubectl (YAML 1.1), so the key "
            "'true': quote it ('y') if the key 'y' is meant",
        )
    ]
    if KUBECTL is not None:
        assert _kubectl_reads(text)["metadata"]["labels"] == {"team": "ml", "true": "x"}
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(text)
    code, out, err = _podfold(capsys, "validate", str(manifest))
    assert (code, out) == (0, ""), err


@pytest.mark.usefixtures("yaml_path")
def test_an_alias_and_a_merge_key_name_where_the_boolean_is_written() -> None:
    # an anchored value is named at its anchor, once for each place it stands; a merge
    # key's value at the map it comes from (where kubectl reads it from too)
    text = (
        "kind: Pod\nmetadata:\n  name: p\n  labels: &common {debug: n}\n"
        "  annotations: *common\nspec:\n  containers:\n  - name: c\n    image: x\n"
        "    env:\n    - &flag {name: A, value: Off}\n    - {<<: *flag, name: B}\n"
    )
    documents, found = read_manifest(text, "pod.yaml")
    assert documents[0]["metadata"]["annotations"] == {"debug": False}
    debug, off = _where(text, "debug: n"), _where(text, "value: Off")
    assert [(boolean.keys, boolean.line, boolean.column) for boolean in found] == [
        (("metadata", "labels", "debug"), debug[0], debug[1] + 7),
        (("metadata", "annotations", "debug"), debug[0], debug[1] + 7),
        (("spec", "containers", 0, "env", 0, "value"), off[0], off[1] + 7),
        (("spec", "containers", 0, "env", 1, "value"), off[0], off[1] + 7),
    ]
    lines = boolean_warnings(documents, found, "pod.yaml")
    assert [line.split(": document")[0] for line in lines] == [
        f"pod.yaml:{debug[0]}:{debug[1] + 7}"
    ] * 2 + [f"pod.yaml:{off[0]}:{off[1] + 7}"] * 2


def test_json_and_quoted_text_stay_strings() -> None:
    pod = {
        "kind": "Pod",
        "metadata": {"name": "p", "labels": {"a": "y", "b": "off"}},
        "spec": {"containers": [{"name": "c", "image": "x", "env": [{"name": "A", "value": "n"}]}]},
    }
    assert read_manifest(json.dumps(pod), "pod.json") == ([pod], [])
    text = "kind: Pod\nmetadata:\n  labels: {a: 'y', b: \"off\", c: !!str n}\n"
    assert read_manifest(text, "pod.yaml") == (
        [{"kind": "Pod", "metadata": {"labels": {"a": "y", "b": "off", "c": "n"}}}],
        [],
    )


def test_two_keys_that_are_one_boolean_are_refused_saying_how_each_was_written() -> None:
    # kubectl reads both as the key "true" and keeps the last, silently (podfold reads
    # keys as the text kubectl makes of them)
    with pytest.raises(ManifestError) as caught:
        read_documents("metadata:\n  labels:\n    on: a\n    y: b\n", "pod.yaml")
    assert str(caught.value) == (
        "pod.yaml:4:5: duplicate key 'true' (first at line 3, "
        "column 5, written 'on': both are read as 'true')"
    )


@needs_kubectl
def test_apply_writes_what_kubectl_read(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # the output means to kubectl what the input meant, but for what the overlay changed:
    # before, `hostNetwork: y` (true to kubectl) came out as 'y', a string, which the API
    # server refuses, and `value: n` (false) as 'n', which it accepts: both changed; and a
    # label kubectl cannot read (a boolean) came out as one it reads
    text = _pod(env="    - {name: A, value: n}\n", spec="  hostNetwork: y\n")
    manifest, overlay = tmp_path / "pod.yaml", tmp_path / "pool.yaml"
    manifest.write_text(text)
    overlay.write_text("spec:\n  nodeSelector: {pool: a100}\n")
    code, out, err = _podfold(capsys, "apply", "-f", str(overlay), "--no-validate", str(manifest))
    assert code == 0, err
    expected = _kubectl_reads(text)
    expected["spec"]["nodeSelector"] = {"pool": "a100"}
    assert _kubectl_reads(out) == expected

    labelled = _pod(labels="    enabled: Off\n")
    manifest.write_text(labelled)
    code, out, err = _podfold(capsys, "apply", "-f", str(overlay), "--no-validate", str(manifest))
    assert code == 0, err
    refused = _kubectl(labelled)
    assert refused[0] != 0 and "cannot unmarshal bool" in refused[1]
    assert _kubectl(out) == refused


def test_boolean_warnings_name_only_what_the_schema_wants_no_boolean_for() -> None:
    # for apply, which does not check a manifest's own problems: a plain boolean where a
    # string is wanted, with its place; none where a boolean is wanted (kubectl reads it so)
    text = _pod(
        env="    - {name: A, value: y}\n    - {name: B, value: 'n'}\n",
        spec="  hostNetwork: yes\n  enableServiceLinks: N\n",
    )
    documents, found = read_manifest(text, "pod.yaml")
    assert [boolean.text for boolean in found] == ["yes", "N", "y"]
    line, column = _where(text, "value: y")
    assert boolean_warnings(documents, found, "pod.yaml") == [
        f"pod.yaml:{line}:{column + 7}: document 1: Pod/p template (the document itself): "
        "spec.containers[name=c].env[name=A].value: expected string, found boolean True; y, "
        "written plain, is the boolean true to kubectl (YAML 1.1): quote it ('y') if a string "
        "is meant"
    ]


def test_a_template_inside_a_workload_is_named_from_the_document_top() -> None:
    text = (
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n"
        "    spec:\n      restartPolicy: Never\n      containers:\n      - name: c\n"
        "        image: x\n        env: [{name: A, value: N}]\n"
    )
    documents, found = read_manifest(text, "job.yaml")
    line, column = _where(text, "value: N")
    [warning] = boolean_warnings(documents, found, "job.yaml")
    assert warning.startswith(
        f"job.yaml:{line}:{column + 7}: document 1: Job/j template (spec.template): "
        "spec.template.spec.containers[name=c].env[name=A].value: expected string, found "
        "boolean False; N, written plain"
    )


def test_a_manifest_of_plain_booleans_round_trips_as_kubectl_reads_it() -> None:
    # what apply writes reads back as the same documents: booleans stay booleans
    text = _pod(env="    - {name: A, value: n}\n", spec="  hostNetwork: y\n")
    documents = read_documents(text, "pod.yaml")
    assert read_documents(dump_documents(documents), "out.yaml") == documents
    assert "hostNetwork: true" in dump_documents(documents)


# ---------------------------------------------------------------- implicit keys too long

BIG = 5_000_000
#: each case's text as a function of the long key (5 MB of text, made in the test's child:
#: kept at module level, six of them would swell every process that imports this module,
#: and so the cost of each fork of it)
LONG_KEYS: dict[str, tuple[Callable[[str], str], int, int, int]] = {
    "top-level": (lambda key: key + ": 1\n", 1, 1, BIG),
    "nested": (lambda key: "spec:\n  nodeSelector:\n    " + key + ": a\n", 3, 5, BIG),
    "list-item": (lambda key: "spec:\n  tolerations:\n  - " + key + ": a\n", 3, 5, BIG),
    "required": (
        lambda key: "metadata:\n  labels:\n    a: b\n    " + "w " * (BIG // 2) + ": c\n",
        4,
        5,
        len(("w " * (BIG // 2)).rstrip()),
    ),
    "flow-map": (lambda key: "spec: {nodeSelector: {" + key + ": a}}\n", 1, 23, BIG),
    "quoted": (lambda key: 'spec:\n  nodeSelector:\n    "' + key + '": a\n', 3, 5, BIG + 2),
}


def _refusal(read: str, text: str | Callable[[str], str]) -> str:
    if callable(text):
        text = text("k" * BIG)
    try:
        if read == "manifest":
            read_documents(text, "big.yaml")
        else:
            loads_overlay(text, "big.yaml")
    except (ManifestError, OverlayError) as err:
        return str(err)
    raise AssertionError("accepted")


@pytest.mark.skipif(not safe_yaml.LIBYAML, reason="without libyaml every parse is PyYAML's")
@pytest.mark.parametrize("read", ["manifest", "overlay"])
@pytest.mark.parametrize("case", list(LONG_KEYS))
def test_a_key_of_megabytes_is_refused_at_once(read: str, case: str) -> None:
    # in a child with one second of CPU: before, the pure-Python parser read the 5 MB again
    # to word the refusal (2 s here on an idle machine, 9 s on a busy one)
    text, line, column, length = LONG_KEYS[case]
    outcome = within(_refusal, read, text, seconds=1)
    assert outcome.status == "returned", (outcome.status, outcome.error_text)
    step = "step 1: " if read == "overlay" else ""
    assert outcome.value == (
        f"big.yaml:{line}:{column}: {step}an implicit key ('key: value') may be at most 1,024 "
        f"characters long, as YAML (and kubectl) allow; this one is {length:,}: shorten it, or "
        f"write it as an explicit key ('? ' before it)"
    )


@pytest.mark.usefixtures("yaml_path")
@pytest.mark.parametrize("read", ["manifest", "overlay"])
def test_a_key_of_1024_characters_is_read_and_one_more_is_refused(read: str) -> None:
    # YAML's limit, from the key's first character to its ':' (libyaml and PyYAML alike),
    # refused in the same words on both parsers
    def text(length: int) -> str:
        return "spec:\n  nodeSelector:\n    " + "k" * length + ": a\n"

    if read == "manifest":
        [document] = read_documents(text(1024), "m.yaml")
        assert list(document["spec"]["nodeSelector"]) == ["k" * 1024]
    else:
        assert loads_overlay(text(1024), "m.yaml")({})["spec"]["nodeSelector"] == {"k" * 1024: "a"}
    assert "may be at most 1,024 characters long" in _refusal(read, text(1025))
    assert "this one is 1,025:" in _refusal(read, text(1025))


@pytest.mark.usefixtures("yaml_path")
def test_a_long_line_refused_for_another_cause_keeps_the_parsers_words() -> None:
    # the key's length is confirmed as the cause (the text read again with it shortened
    # gets past it), not guessed: here the line continues a plain scalar, which no length fixes
    text = "a: foo\n  " + "b" * 1100 + ": 1\n"
    assert _refusal("manifest", text) == "big.yaml:2:1103: mapping values are not allowed here"


# ---------------------------------------------------------------- unrendered templates

# A chart template in the style `helm create` scaffolds (written for this test)
CHART = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "trainer.fullname" . }}
  labels:
    {{- include "trainer.labels" . | nindent 4 }}
spec:
  {{- if not .Values.autoscaling.enabled }}
  replicas: {{ .Values.replicaCount }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "trainer.selectorLabels" . | nindent 6 }}
  template:
    spec:
      containers:
        - name: {{ .Chart.Name }}
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
          {{- with .Values.resources }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
"""

TEMPLATES = {
    # (text, the template named, the parser's words)
    "chart": (
        CHART,
        '{{- include "trainer.labels" . | nindent 4 }}',
        "expected the node content, but found '-'",
    ),
    "if-first": (
        "{{- if .Values.enabled }}\napiVersion: v1\nkind: Pod\n{{- end }}\n",
        "{{- if .Values.enabled }}",
        "expected the node content, but found '-'",
    ),
    "value": (
        "kind: Pod\nspec:\n  replicas: {{ .Values.replicas }}\n",
        "{{ .Values.replicas }}",
        "found unhashable key",
    ),
    "whole-line": (
        "kind: Pod\nspec:\n  containers:\n  - name: c\n    env:\n"
        "{{ toYaml .Values.env | indent 4 }}\n",
        "{{ toYaml .Values.env | indent 4 }}",
        "could not find expected ':'",
    ),
    "no-dash": (
        "kind: Pod\nspec:\n  {{ if .Values.hostNetwork }}\n  hostNetwork: true\n  {{ end }}\n",
        "{{ if .Values.hostNetwork }}",
        "expected <block end>, but found '<block mapping start>'",
    ),
    "in-a-list": (
        "kind: Pod\nspec:\n  containers:\n  - name: c\n    args:\n    - --lr=0.1\n"
        "    - {{ .Values.extraArg }}\n",
        "{{ .Values.extraArg }}",
        "found unhashable key",
    ),
}


@pytest.mark.usefixtures("yaml_path")
@pytest.mark.parametrize("case", list(TEMPLATES))
def test_an_unrendered_helm_template_is_named_as_the_cause(case: str) -> None:
    text, template, parser_said = TEMPLATES[case]
    line, column = _where(text, template)
    with pytest.raises(ManifestError) as caught:
        read_documents(text, "chart.yaml")
    message = str(caught.value)
    assert message.startswith(
        f"chart.yaml:{line}:{column}: looks like an unrendered Helm template ({template!r}): "
        f"render it with `helm template` first (YAML refused it at line "
    )
    assert message.endswith(f": {parser_said})")
    assert "\n" not in message


@pytest.mark.usefixtures("yaml_path")
@pytest.mark.parametrize(
    ("text", "placeholder"),
    [
        ("kind: Job\nmetadata:\n  name: {username}-train\n", "{username}"),
        (
            "kind: Pod\nspec:\n  containers:\n  - name: c\n    image: {registry}/trainer:{tag}\n",
            "{registry}",
        ),
    ],
)
def test_a_placeholder_left_unfilled_is_named_as_the_cause(text: str, placeholder: str) -> None:
    line, column = _where(text, placeholder)
    with pytest.raises(ManifestError) as caught:
        read_documents(text, "job.yaml")
    assert str(caught.value).startswith(
        f"job.yaml:{line}:{column}: looks like a placeholder left unfilled ({placeholder!r}): "
        f"fill it in first, or quote the value if the braces are meant (YAML refused it at "
    )


@pytest.mark.usefixtures("yaml_path")
@pytest.mark.parametrize(
    ("text", "template", "step"),
    [
        (
            "spec:\n  nodeSelector:\n    {{- toYaml .Values.nodeSelector | nindent 4 }}\n",
            "{{- toYaml .Values.nodeSelector | nindent 4 }}",
            1,
        ),
        (
            "- op: upsert\n  path: spec.hostNetwork\n  value: true\n- op: upsert\n"
            "  path: spec.nodeSelector\n  value: {{ .Values.pool }}\n",
            "{{ .Values.pool }}",
            2,
        ),
        (
            "spec:\n  tolerations:\n  {% for taint in taints %}\n  - key: {{ taint }}\n  {% endfor %}\n",
            "{% for taint in taints %}",
            1,
        ),
    ],
)
def test_an_unrendered_template_in_an_overlay_is_named_as_the_cause(
    text: str, template: str, step: int
) -> None:
    line, column = _where(text, template)
    with pytest.raises(OverlayError) as caught:
        loads_overlay(text, "team.yaml")
    kind = "Helm" if template.startswith("{{") else "Jinja"
    assert str(caught.value).startswith(
        f"team.yaml:{line}:{column}: step {step}: looks like an unrendered {kind} template "
        f"({template!r}): render it"
    )


def test_apply_names_the_template_on_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    chart, overlay = tmp_path / "deployment.yaml", tmp_path / "pool.yaml"
    chart.write_text(CHART)
    overlay.write_text("spec:\n  nodeSelector: {pool: a100}\n")
    code, out, err = _podfold(capsys, "apply", "-f", str(overlay), str(chart))
    line, column = _where(CHART, '{{- include "trainer.labels"')
    assert (code, out) == (1, "")
    assert err.startswith(
        f"podfold: error: {chart}:{line}:{column}: looks like an unrendered Helm template"
    )
    assert err.count("\n") == 1


def test_a_template_quoted_or_within_text_is_read_as_the_text() -> None:
    # Argo and others keep "{{...}}" in strings: valid YAML, read as written, and an error
    # elsewhere in such a file keeps the parser's own words
    text = (
        'kind: Pod\nspec:\n  containers:\n  - name: c\n    image: "{{ .Values.image }}"\n'
        "    args:\n    - --lr={{inputs.parameters.lr}}\n"
    )
    [pod] = read_documents(text, "argo.yaml")
    assert pod["spec"]["containers"][0]["args"] == ["--lr={{inputs.parameters.lr}}"]
    broken = text + "  volumes: [{name: a}\n"
    with pytest.raises(ManifestError) as caught:
        read_documents(broken, "argo.yaml")
    assert "template" not in str(caught.value)


def test_apply_warns_of_a_plain_boolean_where_a_string_is_wanted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # the manifest's own problem: apply does not fail for it, but says it, at file:line
    text = _pod(env="    - {name: A, value: y}\n", spec="  hostNetwork: y\n")
    manifest, overlay = tmp_path / "pod.yaml", tmp_path / "pool.yaml"
    manifest.write_text(text)
    overlay.write_text("spec:\n  nodeSelector: {pool: a100}\n")
    code, _, err = _podfold(capsys, "apply", "-f", str(overlay), str(manifest))
    assert code == 0, err
    line, column = _where(text, "y}")
    [warning] = err.strip().splitlines()
    assert warning.startswith(f"podfold: warning: {manifest}:{line}:{column}: ")
    assert "spec.containers[name=c].env[name=A].value" in warning and "quote it ('y')" in warning
