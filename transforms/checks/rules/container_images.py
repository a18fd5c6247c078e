"""Rule ``container-images``: every container of a pod has an image.

The schema leaves ``image`` optional (controllers fill it in from a
template); a pod's containers must have one. A phantom container, made by an
overlay that addressed a container by a name the pod does not have, has none.

>>> out = []
>>> check(Spec({"containers": [{"name": "c", "image": "x"}, {"name": "d"}]}, None), out)
>>> [(key, message) for _, key, message, _, _ in out]
[('image', 'a container of a pod needs an image')]
"""

from __future__ import annotations

from transforms.checks.problems import Raw
from transforms.checks.rules._spec import Spec

__all__ = ("ID", "DESCRIPTION", "check")

ID = "container-images"
DESCRIPTION = "every container has a non-empty image"


def check(pod: Spec, out: list[Raw]) -> None:
    """Report every container without a non-empty string ``image``."""
    for here, _, container in pod.containers:
        image = container.get("image")
        if not (type(image) is str and image):
            out.append((here, "image", "a container of a pod needs an image", image, "error"))
