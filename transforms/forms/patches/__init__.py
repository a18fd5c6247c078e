"""Kubernetes' three patch formats as pure podfold transforms.

- :func:`json_patch`: RFC 6902 JSON Patch (``add``, ``remove``, ``replace``,
  ``move``, ``copy``, ``test``);
- :func:`merge_patch`: RFC 7396 JSON Merge Patch (``null`` deletes, maps
  merge, everything else replaces);
- :func:`strategic_merge`: Kubernetes strategic merge patch on a Pod, a
  PodSpec or a PodTemplateSpec, with list merge keys from the official schema.

Each returns a :class:`~combinators.Transform`: an immutable value that
never changes its input, copies only what it changes and returns the very
same pod when nothing changes.

>>> pod = {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "c"}]}}
>>> merge_patch({"metadata": {"labels": {"app": None, "team": "ml"}}})(pod)["metadata"]
{'labels': {'team': 'ml'}}
>>> strategic_merge({"spec": {"containers": [{"name": "c", "image": "x"}]}})(pod)["spec"]
{'containers': [{'name': 'c', 'image': 'x'}]}
>>> json_patch([{"op": "add", "path": "/spec/hostIPC", "value": True}])(pod)["spec"]["hostIPC"]
True
"""

from transforms.forms.patches._errors import InvalidPatchError, PatchTestFailed
from transforms.forms.patches.json_patch import json_patch
from transforms.forms.patches.merge_patch import merge_patch
from transforms.forms.patches.strategic import strategic_merge

__all__ = (
    "json_patch",
    "merge_patch",
    "strategic_merge",
    "InvalidPatchError",
    "PatchTestFailed",
)
