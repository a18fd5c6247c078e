"""Overlays folded into a flytekit ``PodTemplate``: ``@task(pod_template=pod_template(...))``.

Needs the ``flyte`` extra (``pip install 'podfold[flyte]'``); flytekit is
imported on the first call, not on import.
"""

from transforms.flyte.template import DEFAULT_PRIMARY, FlyteTemplateError, pod_template

__all__ = ("pod_template", "FlyteTemplateError", "DEFAULT_PRIMARY")
