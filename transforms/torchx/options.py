"""The run options of podfold's schedulers (``-cfg KEY=VALUE``): registered, checked, read.

Beyond TorchX's own: ``overlays`` (YAML paths or URIs for every role),
``role_overlays`` (``ROLE:URI`` items), ``validate`` (default true),
``k8s_version`` (the schema's version), ``policy`` (a Pod Security profile:
``baseline`` or ``restricted``), ``allow`` and ``deny`` (paths the overlays
may change, or may not, ``;``-separated) and ``conflicts`` (``last-wins``,
``warn`` or ``error``).

TorchX 0.7.0 drops a ``-cfg`` key no option has, so a typo
(``overlay=a100.yaml``) would apply nothing: :class:`CheckedRunopts` keeps
such a key and refuses it, with a near miss, when TorchX resolves the
configuration. Every value is checked once, when :func:`fold_settings`
reads the configuration, before anything is rendered.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, List  # noqa: UP035 - torchx compares option types with typing.List[str]

from torchx.specs import runopts
from torchx.util.types import to_dict

from combinators import ArgumentError, Transform
from transforms.checks.paths import PathPolicy
from transforms.checks.policies import PROFILES
from transforms.io.loading import load_overlay
from transforms.kube.schema import DEFAULT_VERSION, UnsupportedVersionError, check_version
from transforms.torchx.errors import UnknownRunOptionError
from transforms.torchx.folding import CONFLICT_MODES, FoldSettings

__all__ = ("CheckedRunopts", "add_options", "fold_settings")


class CheckedRunopts(runopts):  # type: ignore[misc]
    """TorchX's run options that refuse a key none of them has.

    ``cfg_from_str`` keeps an unknown key (TorchX 0.7.0 would drop it) and
    ``resolve``, which TorchX calls inside its dry run and run, refuses it
    with an :class:`~transforms.torchx.errors.UnknownRunOptionError`: the
    ``torchx`` CLI prints it as one short message.

    >>> opts = CheckedRunopts("kubernetes_overlay")
    >>> opts.add("overlays", type_=List[str], help="overlays")
    >>> opts.cfg_from_str("overlay=a100.yaml")
    {'overlay': 'a100.yaml'}
    >>> opts.resolve({"overlay": "a100.yaml"})
    Traceback (most recent call last):
      ...
    transforms.torchx.errors.UnknownRunOptionError: kubernetes_overlay has no run option 'overlay'; did you mean overlays? (torchx runopts kubernetes_overlay lists them)
    """

    def __init__(self, scheduler: str) -> None:
        super().__init__()
        self.scheduler = scheduler

    def cfg_from_str(self, cfg_str: str) -> dict[str, Any]:
        pairs = to_dict(cfg_str or "")
        unknown = {key: value for key, value in pairs.items() if self.get(key) is None}
        if not unknown:
            parsed: dict[str, Any] = super().cfg_from_str(cfg_str)
            return parsed
        # parse the known pairs as TorchX does (newer releases refuse unknown
        # keys here, where the CLI prints a traceback); keep the others as text
        known = ",".join(f"{key}={value}" for key, value in pairs.items() if key not in unknown)
        return {**super().cfg_from_str(known), **unknown}

    def resolve(self, cfg: Mapping[str, Any], **kwargs: Any) -> dict[str, Any]:
        if not kwargs.get("ignore_unknown"):
            for key in cfg:
                if self.get(key) is None:
                    raise UnknownRunOptionError(key, scheduler=self.scheduler,
                                                options=[name for name, _ in self])
        resolved: dict[str, Any] = super().resolve(cfg, **kwargs)
        return resolved


def add_options(opts: runopts, scheduler: str) -> CheckedRunopts:
    """TorchX's options ``opts`` and podfold's, as :class:`CheckedRunopts` for ``scheduler``."""
    checked = CheckedRunopts(scheduler)
    checked.update(opts)
    checked.add("overlays", type_=List[str],  # noqa: UP006
                help="YAML overlays (paths or URIs, ';'-separated) applied to every role's "
                     "pods after the role's own")
    checked.add("role_overlays", type_=List[str],  # noqa: UP006
                help="YAML overlays for one role each, as ROLE:URI items (';'-separated), "
                     "applied after the ones for every role")
    checked.add("validate", type_=bool, default=True,
                help="check every pod against the official Kubernetes schema and its "
                     "references")
    checked.add("k8s_version", type_=str, default=DEFAULT_VERSION,
                help="the Kubernetes version whose schema pods are checked against")
    checked.add("policy", type_=str,
                help="a Pod Security Standards profile every pod must meet: "
                     f"{' or '.join(PROFILES)}")
    checked.add("allow", type_=List[str],  # noqa: UP006
                help="the only paths the overlays may change (';'-separated, e.g. "
                     "'spec.nodeSelector;spec.tolerations')")
    checked.add("deny", type_=List[str],  # noqa: UP006
                help="paths the overlays may not change (';'-separated, e.g. "
                     "'spec.containers[*].securityContext;spec.hostNetwork')")
    checked.add("conflicts", type_=str, default="last-wins",
                help="when two overlays write different values at one path: "
                     f"{', '.join(CONFLICT_MODES)}")
    return checked


def _items(value: Any, separators: str = ";,") -> list[str]:
    if isinstance(value, str):
        for separator in separators[1:]:
            value = value.replace(separator, separators[0])
        return [item for item in value.split(separators[0]) if item]
    return list(value or [])


def _per_role(items: list[str]) -> tuple[tuple[tuple[str, tuple[Transform, ...]], ...],
                                         tuple[str, ...]]:
    """``ROLE:URI`` items as (role, overlays) pairs, roles in the order first named,
    and the overlays' files in that order."""
    found: dict[str, list[tuple[str, Transform]]] = {}
    for item in items:
        role, colon, uri = item.partition(":")
        if not (colon and role and uri):
            raise ArgumentError(f"an item is ROLE:URI (trainer:gpu.yaml), got {item!r}",
                                argument="role_overlays", value=item)
        found.setdefault(role, []).append((uri, load_overlay(uri)))
    pairs = tuple((role, tuple(overlay for _, overlay in loaded))
                  for role, loaded in found.items())
    return pairs, tuple(uri for loaded in found.values() for uri, _ in loaded)


def _choice(cfg: Mapping[str, Any], key: str, choices: tuple[str, ...],
            default: str | None) -> str | None:
    value = cfg.get(key)
    if value is None or value == "":
        return default
    if value not in choices:
        from difflib import get_close_matches

        close = get_close_matches(str(value), choices, n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        raise ArgumentError(f"{key} is one of {', '.join(choices)}, got {value!r}{hint}",
                            argument=key, value=value)
    return str(value)


def _version(value: Any) -> str | None:
    """The Kubernetes version, checked here once (not once per replica)."""
    if value is None or value == "":
        return None
    try:
        return check_version(value)
    except UnsupportedVersionError as err:  # name the run option it came from
        err.with_step("run option k8s_version")
        raise


def _paths(cfg: Mapping[str, Any], key: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in _items(cfg.get(key), ";") if item.strip())


def fold_settings(cfg: Mapping[str, Any]) -> FoldSettings:
    """The fold's settings from a scheduler's run configuration, every value checked.

    >>> settings = fold_settings({"validate": False})
    >>> settings.extra, settings.per_role, settings.validate
    ((), (), False)
    >>> fold_settings({"role_overlays": "trainer"})
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: role_overlays: an item is ROLE:URI (trainer:gpu.yaml), got 'trainer'
    >>> fold_settings({"conflicts": "errors"})
    Traceback (most recent call last):
      ...
    combinators.errors.ArgumentError: conflicts is one of last-wins, warn, error, got 'errors'; did you mean error?
    """
    validate = cfg.get("validate")
    allow, deny = _paths(cfg, "allow"), _paths(cfg, "deny")
    PathPolicy(allow=allow, deny=deny)  # a path that does not parse is refused now
    uris = _items(cfg.get("overlays"))
    per_role, per_role_uris = _per_role(_items(cfg.get("role_overlays")))
    return FoldSettings(extra=tuple(load_overlay(uri) for uri in uris),
                        validate=True if validate is None else bool(validate),
                        k8s_version=_version(cfg.get("k8s_version")),
                        per_role=per_role,
                        policy=_choice(cfg, "policy", PROFILES, None),
                        allow=allow, deny=deny,
                        conflicts=_choice(cfg, "conflicts", CONFLICT_MODES, "last-wins")
                        or "last-wins",
                        labels=(*uris, *per_role_uris))
