"""The run below every front door: overlays loaded once, folded over a pod, checked.

A front door (``podfold apply``/``explain``/``validate``, the TorchX fold,
Flyte's ``pod_template``) decides how pods come in and how results and
findings go out; what the overlays do, what counts as a problem and who wrote
what are decided here, once.

* :mod:`~transforms.run.settings`: :class:`Checks`, what a run checks, and
  :data:`CONFLICT_MODES`;
* :mod:`~transforms.run.loaded`: :class:`Loaded` overlays (a transform and its
  finest steps, each with its origin), loaded once; :class:`Overlays`, those of a run;
* :mod:`~transforms.run.findings`: :class:`Finding`, one check's finding with its writers;
* :mod:`~transforms.run.running`: :func:`run` and the :class:`Run` it returns;
* :mod:`~transforms.run.documents`: :func:`run_documents`, the run of each pod template of a
  stream of documents the checks ask about (:func:`considered_templates`, which a front door
  that says its findings its own way walks itself).

Each name is imported from its module when first asked for: the command line's
``--help`` reads :data:`CONFLICT_MODES` and nothing else.
"""

from transforms._lazy import TYPE_CHECKING, lazy_exports

if TYPE_CHECKING:
    from transforms.run.documents import Considered, considered_templates, run_documents
    from transforms.run.findings import FINDING_KINDS, Finding, label_of, written_by
    from transforms.run.loaded import Loaded, Overlays, given, load_file, loads, unique_labels
    from transforms.run.running import Run, run
    from transforms.run.settings import CONFLICT_MODES, Checks, conflict_mode

_HOMES = {
    "CONFLICT_MODES": "transforms.run.settings",
    "Checks": "transforms.run.settings",
    "conflict_mode": "transforms.run.settings",
    "Loaded": "transforms.run.loaded",
    "Overlays": "transforms.run.loaded",
    "load_file": "transforms.run.loaded",
    "loads": "transforms.run.loaded",
    "given": "transforms.run.loaded",
    "unique_labels": "transforms.run.loaded",
    "FINDING_KINDS": "transforms.run.findings",
    "Finding": "transforms.run.findings",
    "written_by": "transforms.run.findings",
    "label_of": "transforms.run.findings",
    "Run": "transforms.run.running",
    "run": "transforms.run.running",
    "run_documents": "transforms.run.documents",
    "considered_templates": "transforms.run.documents",
    "Considered": "transforms.run.documents",
}

__all__ = (
    "CONFLICT_MODES",
    "Checks",
    "conflict_mode",
    "Loaded",
    "Overlays",
    "load_file",
    "loads",
    "given",
    "unique_labels",
    "FINDING_KINDS",
    "Finding",
    "written_by",
    "label_of",
    "Run",
    "run",
    "run_documents",
    "considered_templates",
    "Considered",
)

__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals())
