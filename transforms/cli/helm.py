"""``podfold helm``: podfold as Helm's post-renderer, for Helm 3 and, as a plugin, Helm 4.

``podfold helm post-render [APPLY OPTIONS]`` is ``podfold apply`` of the manifests Helm
writes on stdin (the same overlays, checks, findings and exit codes: the command runs
``apply`` itself, whose run makes every decision), with the chart's own text kept: the
changes are spliced into what Helm rendered (:func:`~transforms.io.splicing.splice`), so
its ``# Source:`` lines, comments and layout survive, and every annotation Helm 4 adds
(``postrenderer.helm.sh/postrender-filename``) comes back as it was.

``podfold helm plugin DIR`` writes a Helm 4 ``postrenderer/v1`` plugin that runs it. Helm 4
drops a plugin's stderr (and says only that the plugin "exited with error"): the plugin runs
the post-renderer with ``--errors``, which writes apply's messages into the plugin's
``podfold-errors.log`` and on the terminal Helm runs in, where there is one.

Every message that names a document of Helm's stream names the chart template it came from
too, as its ``# Source:`` line says (:func:`chart_templates`): ``<stdin>: document 3
(demo/templates/deployment.yaml): Deployment/r-demo ...``.
"""

from __future__ import annotations

import io
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from combinators import TransformError
from transforms.cli.options import debug_option

__all__ = ("helm_group", "post_render", "chart_templates", "plugin_files", "PLUGIN_NAME")

PLUGIN_NAME = "podfold"
_ERRORS = "podfold-errors.log"


@click.group("helm")
def helm_group() -> None:
    """Helm's post-renderer: Helm 3's --post-renderer, and a Helm 4 plugin.

    \b
    Helm 3:
      helm install REL CHART --post-renderer podfold \\
        --post-renderer-args helm --post-renderer-args post-render \\
        --post-renderer-args -f --post-renderer-args gpu.yaml
    Helm 4:
      podfold helm plugin ./podfold-plugin && helm plugin install ./podfold-plugin
      helm install REL CHART --post-renderer podfold \\
        --post-renderer-args -f --post-renderer-args gpu.yaml
    """


@helm_group.command(
    "post-render",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@debug_option
@click.option(
    "--errors",
    "errors",
    metavar="FILE",
    default=None,
    help="Also write apply's messages (errors and warnings) into FILE, and on the "
    "terminal where stderr is not it: Helm 4 drops a plugin's stderr.",
)
@click.argument("apply_args", nargs=-1, type=click.UNPROCESSED)
def post_render_command(errors: str | None, apply_args: tuple[str, ...]) -> None:
    """Apply overlays to the manifests Helm writes on stdin; print them for Helm.

    Takes the options of podfold apply (-f OVERLAY, --select, --policy,
    --allow, --deny, --conflicts, --kinds, ...) and runs it on stdin, with
    its checks and exit codes. The changes are spliced into Helm's own text:
    its '# Source:' lines, comments and layout are kept, and so is every
    annotation, Helm 4's postrenderer.helm.sh/postrender-filename too.
    """
    from transforms.cli.documents import read_input

    text, _ = read_input(sys.stdin)  # within the bounds apply keeps, as UTF-8
    code, written, said, failure = post_render(text, apply_args)
    if said:
        click.echo(said, err=True, nl=False)
    if errors is not None:  # as a Helm 4 plugin, whose stderr Helm drops
        logged = said + (f"podfold: error: {failure}\n" if failure is not None else "")
        Path(errors).write_text(logged, encoding="utf-8")
        if logged:
            _tell_terminal(f"{logged}(podfold's messages are also in {errors})\n")
    if failure is not None:
        raise failure  # said by podfold's main, as any command's error is
    if code != 0:
        click.get_current_context().exit(code)
    from transforms.cli.output import echo

    echo(written, nl=False)


def _tell_terminal(said: str) -> None:
    """Write ``said`` on the terminal the user runs Helm in, where stderr is not it and there
    is one (Helm 4 drops a plugin's stderr); nothing where there is none (CI)."""
    import contextlib

    if os.isatty(2):
        return
    with contextlib.suppress(OSError), open("/dev/tty", "w", encoding="utf-8") as terminal:
        terminal.write(said)


def post_render(
    text: str, apply_args: Sequence[str]
) -> tuple[int, str, str, TransformError | None]:
    """``podfold apply APPLY_ARGS -`` of the stream ``text``: its exit code, the stream it
    printed spliced into ``text`` (where the splice cannot be exact, what it printed), what
    it said on stderr, and the :class:`~combinators.TransformError` it ended with, if any
    (an overlay that fails: exit code 1)."""
    from transforms.cli.apply import apply_command

    given = [*apply_args, "-"]
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")
    stderr = io.StringIO()
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8")
    sys.stdout, sys.stderr = stdout, stderr
    failure = None
    try:
        code = _invoke(apply_command, given)
    except TransformError as err:
        code, failure = 1, err
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    stdout.flush()
    printed = stdout.buffer.getvalue().decode("utf-8")
    said = stderr.getvalue()
    if said or failure is not None:
        said, failure = _with_templates(text, said, failure)
    if code != 0:
        return code, "", said, failure
    return 0, _kept(text, printed), said, None


_SOURCE = re.compile(r"^# Source: (\S.*?)\s*$", re.MULTILINE)
_DOCUMENT = re.compile(r"(?<![\w-])document (\d+)(?=: | >|\]|$)")


def chart_templates(text: str) -> dict[int, str]:
    """The chart template each document of Helm's stream ``text`` was rendered from, as
    the ``# Source:`` line before it says, by the document's number as podfold counts
    them (from 1; an empty document, a template that rendered nothing, is not counted).

    >>> chart_templates("---\\n# Source: c/templates/none.yaml\\n---\\n"
    ...                 "# Source: c/templates/job.yaml\\nkind: Job\\n")
    {1: 'c/templates/job.yaml'}
    """
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    sources: list[tuple[int, str]] = []  # (line, template), in order: lines counted once
    line, at = 0, 0
    for found in _SOURCE.finditer(text):
        line += text.count("\n", at, found.start())
        at = found.start()
        sources.append((line, found.group(1)))
    named: dict[int, str] = {}
    number = 0  # documents counted
    after = -1  # the line the document before ended on
    next_source = 0  # the first of the sources not yet passed
    try:
        for node in yaml.compose_all(text, Loader=loader):
            if node is None or (isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null")):
                continue
            number += 1
            start = node.start_mark.line
            above = None
            while next_source < len(sources) and sources[next_source][0] < start:
                if sources[next_source][0] > after:
                    above = sources[next_source][1]
                next_source += 1
            if above is not None:
                named[number] = above
            after = node.end_mark.line
    except yaml.YAMLError:  # said by apply already; the documents before it are named
        pass
    return named


def _with_templates(
    text: str, said: str, failure: TransformError | None
) -> tuple[str, TransformError | None]:
    """``said`` and ``failure`` with each document they name followed by its chart
    template (:func:`chart_templates`)."""
    named = chart_templates(text)
    if not named:
        return said, failure

    def name(found: re.Match[str]) -> str:
        template = named.get(int(found.group(1)))
        return found.group(0) if template is None else f"{found.group(0)} ({template})"

    if failure is not None:  # where it was, as an error travelling up records its steps
        for err in (failure, getattr(failure, "error", None)):
            if isinstance(err, TransformError):
                err.steps = tuple(_DOCUMENT.sub(name, step) for step in err.steps)
    return _DOCUMENT.sub(name, said), failure


def _invoke(command: click.Command, args: list[str]) -> int:
    """Run ``command`` with ``args`` in this process; its exit code (a usage error: 2, said
    as click says it); a :class:`~combinators.TransformError` is raised."""

    try:
        code = command.main(args=args, prog_name="podfold apply", standalone_mode=False)
    except click.exceptions.Exit as done:
        return done.exit_code
    except click.ClickException as err:
        err.show()
        return err.exit_code
    return code if isinstance(code, int) else 0


def _kept(text: str, printed: str) -> str:
    """``printed`` (apply's documents) spliced into Helm's ``text``, every comment kept;
    ``printed`` itself where the splice cannot be exact."""
    from transforms.io.safe_yaml import load_manifest
    from transforms.io.splicing import Composed, SpliceError, splice

    nodes: list[Any] = []  # Helm's text edited by the nodes it was read with
    before, _ = load_manifest(text, "<stdin>", nodes)
    after, _ = load_manifest(printed, "<stdout>")
    if len(before) != len(after):
        return printed
    pairs = list(zip(before, after, strict=True))
    try:
        return splice(text, pairs, "<stdin>", composed=Composed.of(text, nodes))
    except SpliceError:
        return printed


def plugin_files(command: str, version: str) -> dict[str, str]:
    """The files of the Helm 4 plugin that runs ``command helm post-render``, by name.

    >>> print(plugin_files("podfold", "1.0")["plugin.yaml"], end="")
    apiVersion: v1
    type: postrenderer/v1
    name: podfold
    version: "1.0"
    runtime: subprocess
    runtimeConfig:
      platformCommand:
        - command: "podfold"
          args: ["helm", "post-render", "--errors", "$HELM_PLUGIN_DIR/podfold-errors.log"]
    """
    import json

    return {
        "plugin.yaml": (
            "apiVersion: v1\n"
            "type: postrenderer/v1\n"
            f"name: {PLUGIN_NAME}\n"
            f"version: {json.dumps(version)}\n"
            "runtime: subprocess\n"
            "runtimeConfig:\n"
            "  platformCommand:\n"
            f"    - command: {json.dumps(command)}\n"
            f'      args: ["helm", "post-render", "--errors", "$HELM_PLUGIN_DIR/{_ERRORS}"]\n'
        )
    }


@helm_group.command("plugin")
@debug_option
@click.option(
    "--command",
    "command",
    default=None,
    metavar="PATH",
    help="The podfold program the plugin runs (default: this one, by its full path).",
)
@click.argument("directory", type=click.Path(file_okay=False))
def plugin_command(command: str | None, directory: str) -> None:
    """Write a Helm 4 post-renderer plugin into DIRECTORY; install it with
    'helm plugin install DIRECTORY'.

    \b
    Then: helm install REL CHART --post-renderer podfold \\
            --post-renderer-args -f --post-renderer-args /abs/gpu.yaml
    Helm 4 drops a plugin's stderr and says only that it "exited with
    error": the plugin writes podfold's messages on the terminal Helm runs
    in, where there is one, and always into podfold-errors.log in the
    plugin's directory ('helm env HELM_DATA_HOME'/plugins/podfold).
    """
    from combinators import __version__

    program = command or _this_program()
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    for name, text in plugin_files(program, __version__).items():
        (target / name).write_text(text, encoding="utf-8")
    click.echo(f"podfold: {target}: a Helm 4 post-renderer plugin, running {program}", err=True)


def _this_program() -> str:
    """The ``podfold`` script beside this interpreter, else the name on PATH."""
    beside = Path(sys.executable).with_name("podfold")
    return str(beside) if beside.is_file() else "podfold"
