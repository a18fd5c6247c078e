"""``podfold fn``: podfold as a KRM function, for ``kpt fn eval/render`` and kustomize.

The function reads a ``ResourceList`` on stdin (:mod:`transforms.io.resource_list`), takes its
overlays and options from the list's ``functionConfig``, folds the overlays over every pod
template of its items as ``podfold apply`` does, and makes the same checks, through the one
run (:func:`transforms.run.run`); it writes the list back on stdout, its items overlaid and
every finding in ``results``. This module only translates in and out.

The ``functionConfig`` is a ``ConfigMap`` or a ``PodOverlay`` (``podfold.dev/v1alpha1``):

* ``ConfigMap``: each ``data`` key that ends in ``.yaml`` is the text of an overlay file,
  applied in the order of the keys' names; the other keys are options: ``select``
  (``;``-separated selectors), ``policy``, ``allow``, ``deny`` (``;``-separated paths),
  ``conflicts``, ``validate`` (``"true"``/``"false"``), ``k8s-version``, ``kinds`` (the text
  of a kinds file: the records of the kinds the items hold that podfold does not know);
* ``PodOverlay``: ``spec.overlays`` lists the overlays, each what an overlay file holds
  (a partial pod, or a list of steps), applied in order; ``spec.select``, ``spec.allow``
  and ``spec.deny`` are lists, ``spec.policy``, ``spec.conflicts``, ``spec.k8sVersion``
  strings, ``spec.validate`` a boolean and ``spec.kinds`` a list of kind records.

>>> settings = function_settings({"apiVersion": "v1", "kind": "ConfigMap",
...     "data": {"gpu.yaml": "spec: {hostIPC: true}", "policy": "baseline"}})
>>> settings.overlays[0].label, settings.checks.policy, settings.checks.validate
('functionConfig data[gpu.yaml]', 'baseline', True)
>>> function_settings({"apiVersion": "podfold.dev/v1alpha1", "kind": "PodOverlay",
...     "spec": {"overlay": []}})
Traceback (most recent call last):
  ...
transforms.errors.OverlayError: functionConfig: spec.overlay is no field of a PodOverlay's spec; did you mean overlays? (its fields: allow, conflicts, deny, k8sVersion, kinds, overlays, policy, select, validate)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import click

from transforms.cli.options import debug_option

__all__ = (
    "fn_command",
    "FunctionSettings",
    "function_settings",
    "krm_function",
    "TYPED_API_VERSION",
    "TYPED_KIND",
)

TYPED_API_VERSION = "podfold.dev/v1alpha1"
TYPED_KIND = "PodOverlay"
_WHERE = "functionConfig"
_DECLARE_HERE = (
    "in the functionConfig's kinds (a ConfigMap's data.kinds, a PodOverlay's spec.kinds)"
)
_OPTIONS = ("select", "policy", "allow", "deny", "conflicts", "validate", "k8sVersion", "kinds")
"""The options a function config may give, as a PodOverlay's spec names them; a ConfigMap's
data names each in kebab case (``k8s-version``)."""


def _kebab(name: str) -> str:
    """``name`` as a ConfigMap's key writes it: ``k8sVersion`` -> ``k8s-version``."""
    return "".join(f"-{char.lower()}" if char.isupper() else char for char in name)


_BY_KEY = {_kebab(name): name for name in _OPTIONS}  # a ConfigMap's key: the option
_MAP_OPTIONS = tuple(_BY_KEY)
_SPEC_FIELDS = ("overlays", *_OPTIONS)


@dataclass(frozen=True)
class FunctionSettings:
    """What a ``functionConfig`` asks for: the ``overlays`` (:class:`transforms.run.Loaded`,
    in order), the ``select`` conditions, the ``checks`` (:class:`transforms.run.Checks`) and
    the ``kinds`` it declares (:class:`transforms.kube.DeclaredKind`, none where it declares
    none)."""

    overlays: tuple[Any, ...]
    select: tuple[str, ...]
    checks: Any
    kinds: tuple[Any, ...] = ()


def _refuse(message: str) -> Any:
    from transforms.errors import OverlayError

    raise OverlayError(message, source=_WHERE)


def _near(name: str, names: Sequence[str]) -> str:
    from combinators.near import did_you_mean, near_misses

    return did_you_mean(near_misses(name, names, n=1))


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        from combinators.data import kind_name

        _refuse(f"{where} is {kind_name(value)}, not a string")
    return str(value)


def _texts(value: Any, where: str) -> tuple[str, ...]:
    """A list of strings (a typed field), or one string (a ConfigMap's), ``;``-separated."""
    if value is None:
        return ()
    given = value if isinstance(value, list) else [value]
    return tuple(
        part.strip()
        for number, item in enumerate(given)
        for part in _text(item, f"{where}[{number}]" if value is given else where).split(";")
        if part.strip()
    )


def _boolean(value: Any, where: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    from combinators.limits import short_repr

    return bool(_refuse(f"{where} is true or false, got {short_repr(value)}"))


def function_settings(config: Any) -> FunctionSettings:
    """The overlays and checks of a ``functionConfig`` (see the module), or an
    :class:`~transforms.errors.OverlayError` naming the field at fault and its near miss;
    an overlay's error names its key (``functionConfig data[gpu.yaml]:3``)."""
    from combinators.data import is_map
    from transforms.run import Checks, loads

    if not is_map(config):
        _refuse(
            f"the function needs a functionConfig: a ConfigMap whose data holds the overlays "
            f"(keys ending in .yaml), or a {TYPED_KIND} ({TYPED_API_VERSION})"
        )
    kind = config.get("kind")
    options: dict[str, Any] = {}
    overlays = []
    if kind == "ConfigMap":
        data = config.get("data") or {}
        if not is_map(data):
            _refuse("data is no map of keys to texts")
        for key in sorted(data):
            if key.endswith((".yaml", ".yml")):
                label = f"{_WHERE} data[{key}]"
                overlays.append(loads(_text(data[key], f"data[{key}]"), label))
            elif key in _BY_KEY:
                options[_BY_KEY[key]] = data[key]
            else:
                _refuse(
                    f"data[{key}] is no overlay (a key ending in .yaml) and no option"
                    f"{_near(key, _MAP_OPTIONS)} (options: {', '.join(_MAP_OPTIONS)})"
                )
    elif kind == TYPED_KIND:
        spec = config.get("spec") or {}
        if not is_map(spec):
            _refuse(f"spec of a {TYPED_KIND} is no map")
        for key in spec:
            if key not in _SPEC_FIELDS:
                _refuse(
                    f"spec.{key} is no field of a {TYPED_KIND}'s spec{_near(str(key), _SPEC_FIELDS)}"
                    f" (its fields: {', '.join(sorted(_SPEC_FIELDS))})"
                )
        given = spec.get("overlays") or []
        if not isinstance(given, list):
            _refuse("spec.overlays is a list of overlays, each what an overlay file holds")
        from transforms.io.streams import dump_stream

        for number, overlay in enumerate(given):
            label = f"{_WHERE} spec.overlays[{number}]"
            overlays.append(loads(dump_stream([overlay]), label))
        options = {key: value for key, value in spec.items() if key != "overlays"}
    else:
        _refuse(
            f"functionConfig is a ConfigMap or a {TYPED_KIND} ({TYPED_API_VERSION}), got "
            f"kind {kind}"
        )
    field = "data" if kind == "ConfigMap" else "spec"
    conflicts = options.get("conflicts", "last-wins")
    policy = options.get("policy")
    version = options.get("k8sVersion")
    from combinators import TransformError

    try:
        checks = Checks(
            validate=_boolean(options.get("validate", True), f"{field}.validate"),
            k8s_version=None if version is None else _text(version, f"{field}.k8sVersion"),
            policy=None if policy is None else _text(policy, f"{field}.policy"),
            allow=_texts(options.get("allow"), f"{field}.allow"),
            deny=_texts(options.get("deny"), f"{field}.deny"),
            conflicts=_text(conflicts, f"{field}.conflicts"),
        )
        checks.path_policy  # noqa: B018 - built now: a bad path is the config's fault
        if checks.validate and checks.k8s_version is not None:
            from transforms.kube.schema import schema_for

            schema_for(checks.k8s_version)  # an unknown version, before any item is folded
    except TransformError as err:
        if err.__class__.__name__ == "OverlayError":
            raise
        _refuse(f"{field}: {err}")
    if checks.policy is not None and checks.policy not in ("baseline", "restricted"):
        _refuse(f"{field}.policy is baseline or restricted, got {checks.policy!r}")
    return FunctionSettings(
        tuple(overlays),
        _texts(options.get("select"), f"{field}.select"),
        checks,
        _kinds(options.get("kinds"), field),
    )


def _kinds(value: Any, field: str) -> tuple[Any, ...]:
    """The kinds ``functionConfig`` declares at ``field``'s ``kinds``: a kinds file's text
    (a ConfigMap's data) or its list of records (a PodOverlay's spec); each error names
    ``functionConfig`` and the record's line."""
    if value is None:
        return ()
    from transforms.io.kind_files import loads_kinds
    from transforms.io.streams import dump_stream

    where = f"{_WHERE} {field}.kinds" if field == "spec" else f"{_WHERE} data[kinds]"
    if field == "spec":
        if not isinstance(value, list):
            _refuse("spec.kinds is a list of kind records, as a kinds file holds")
        value = dump_stream([value])
    return loads_kinds(_text(value, f"{field}[kinds]"), where)


def krm_function(text: str, source: str = "<stdin>") -> tuple[str, bool]:
    """The ``ResourceList`` of ``text`` made over by its ``functionConfig``'s overlays, as
    YAML, and whether a result is an error. A list that cannot be read raises (there is no
    list to say it in); everything else is said in ``results``."""
    from combinators import TransformError
    from transforms.io.resource_list import read_resource_list, result, write_resource_list

    listed = read_resource_list(text, source)
    items = list(listed.items)
    try:
        settings = function_settings(listed.function_config)
        items, results = _fold(settings, items, listed.booleans)
    except TransformError as err:
        results = [result(str(err), "error")]
    failed = any(found["severity"] == "error" for found in results)
    return write_resource_list(listed, items, results), failed


def _fold(
    settings: FunctionSettings, items: list[Any], booleans: Sequence[Any] = ()
) -> tuple[list[Any], list[dict[str, Any]]]:
    """The items overlaid, and the results: the run's findings of each template, each pod
    no overlay reaches, each plain YAML 1.1 boolean (``booleans``, of the items) where a
    template wants a string, overlays that reach none; within the kinds it declares."""
    if settings.kinds:
        from transforms.kube.registry import using_kinds

        with using_kinds(settings.kinds):
            return _fold_items(settings, items, booleans)
    return _fold_items(settings, items, booleans)


def _fold_items(
    settings: FunctionSettings, items: list[Any], booleans: Sequence[Any]
) -> tuple[list[Any], list[dict[str, Any]]]:
    from combinators import identity
    from transforms.cli.documents import document_path, plain_boolean_problems
    from transforms.cli.located import apply_located
    from transforms.io.resource_list import result
    from transforms.kube.selection import check_selection
    from transforms.kube.workloads import Selector, pod_templates, unreached_pods
    from transforms.run import Overlays, written_by
    from transforms.run.documents import run_documents

    overlays = Overlays(settings.overlays)
    selector = Selector.parse(",".join(settings.select)) if settings.select else None
    found = [pod_templates(item) for item in items]
    if selector is not None:
        check_selection(selector, [], found)
    texts = {item.label: item.text for item in settings.overlays}
    after = apply_located(
        overlays.transform,
        items,
        select=selector,
        overlays=[item.label for item in settings.overlays],
        templates=found,
        texts=texts,
    )
    results: list[dict[str, Any]] = []
    for item in items:
        for unreached in unreached_pods(item):
            # the function's kinds are declared in its config, not with a flag
            message = str(unreached).replace("in a --kinds file", _DECLARE_HERE)
            results.append(result(message, "warning", item))
    # the items' own problem, not the overlays': a warning, as podfold apply says it
    for plain in plain_boolean_problems(items, booleans, settings.checks.k8s_version):
        results.append(result(plain.message, "warning", items[plain.number - 1], plain.field))
    checked = run_documents(
        overlays, settings.checks, items, after, select=selector, templates=found
    )
    for index, template, done in checked:
        for finding in done.findings:
            field = document_path(str(template.path), finding.path)
            message = f"{finding.message}{written_by(finding.writers)}"
            if finding.kind == "conflict":
                message = f"conflict: {finding.message}"
            results.append(result(message, finding.severity, after[index], field))
    steps = overlays.transforms
    if (
        items
        and not all(step is identity for step in steps)
        and not any(found)
        and all(new is old for new, old in zip(after, items, strict=True))
    ):
        results.append(
            result(
                f"the overlays reach no pod template: none of the {len(items)} items holds one "
                f"podfold knows of, so nothing changed",
                "warning",
            )
        )
    return after, results


@click.command("fn")
@debug_option
def fn_command() -> None:
    """Run as a KRM function: a ResourceList on stdin, the same on stdout.

    For kpt and kustomize. The overlays and options come from the list's
    functionConfig: a ConfigMap (each data key ending in .yaml is an
    overlay file's text, applied in the order of the keys; the keys select,
    policy, allow, deny, conflicts, validate and k8s-version are options) or
    a PodOverlay of apiVersion podfold.dev/v1alpha1 (spec.overlays: a list
    of overlays, each what an overlay file holds; spec.select, allow, deny:
    lists; policy, conflicts, k8sVersion; validate: true or false).

    Every pod template of the items is overlaid and checked as podfold
    apply does (validation is on unless validate is false); each finding,
    each pod podfold does not reach and an overlay that reaches nothing is
    a result, with its severity, the item's resourceRef, the field and the
    file its config.kubernetes.io/path annotation names. Every annotation is
    kept, and the comments of the list. The exit code is 1 where a result is
    an error; the list, with its results, is printed all the same.

    \b
    kpt fn eval DIR --exec "podfold fn" --fn-config gpu-config.yaml
    kpt fn render DIR --allow-exec   (a Kptfile pipeline with exec: podfold fn)
    """
    import sys

    from transforms.cli.documents import read_input
    from transforms.cli.output import echo

    text, source = read_input(sys.stdin)
    written, failed = krm_function(text, source)
    echo(written, nl=False)
    if failed:
        click.get_current_context().exit(1)
