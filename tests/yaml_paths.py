"""Both ways podfold reads and writes YAML: on libyaml (PyYAML's C extension) and pure Python.

``yaml_path`` is a fixture with two parameters, ``libyaml`` and ``pure``: a
test that uses it runs once on each, with
:data:`transforms.io.safe_yaml.LIBYAML` set to match (so
:func:`~transforms.io.safe_yaml.strict_loader`,
:func:`~transforms.io.loading.overlay_loader` and the dumpers pick the C or
the pure-Python classes). Children forked by ``tests.budget.within`` inherit
the setting. A module whose every test reads or writes YAML takes it for all::

    from tests.yaml_paths import yaml_path  # noqa: F401  (the fixture)
    pytestmark = pytest.mark.usefixtures("yaml_path")

Where PyYAML has no libyaml, the ``libyaml`` runs are skipped, saying so.
"""

from __future__ import annotations

import pytest
import yaml

from transforms.io import safe_yaml

__all__ = ("PATHS", "yaml_path")

PATHS = ("libyaml", "pure")


@pytest.fixture(params=PATHS)
def yaml_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """``"libyaml"`` or ``"pure"``: the YAML path this run of the test reads and writes on."""
    path: str = request.param
    if path == "libyaml" and not hasattr(yaml, "CSafeLoader"):
        pytest.skip("PyYAML is built without libyaml here: only the pure-Python path runs")
    monkeypatch.setattr(safe_yaml, "LIBYAML", path == "libyaml")
    return path
