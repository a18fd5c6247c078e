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
configuration. A ``-cfg`` text TorchX cannot split into pairs
(``role_overlays=trainer=a.yaml``) or a value its option cannot take
(``validate=maybe``, which TorchX would read as false) is refused there too,
as a :class:`~transforms.torchx.errors.RunOptionError` naming the option, the
value and what was expected. A key written twice is never dropped (TorchX
keeps the last one): a list option (``overlays``, ``role_overlays``, ``allow``,
``deny``) takes every value, in order, and any other option given twice with
different values is refused, naming it. Every other value is checked once, when
:func:`fold_settings` reads the configuration, before anything is rendered.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from typing import Any, Dict, List  # noqa: UP035 - torchx compares option types with typing.List[str]

from torchx.specs import runopts

from combinators import ArgumentError, Transform, TransformError, identity
from combinators.limits import short_repr
from transforms.checks.paths import PathPolicy
from transforms.checks.policies import PROFILES
from transforms.io.loading import loads_overlay, read_overlay_text
from transforms.kube.schema import DEFAULT_VERSION, UnsupportedVersionError, check_version
from transforms.run import CONFLICT_MODES
from transforms.torchx.errors import EmptyOverlayWarning, RunOptionError, UnknownRunOptionError
from transforms.torchx.folding import FoldSettings

__all__ = ("CheckedRunopts", "add_options", "fold_settings")

_DEFERRED = "-cfg"
"""The key (no option can have it) under which :meth:`CheckedRunopts.cfg_from_str`
keeps a ``-cfg`` text it cannot read, for :meth:`CheckedRunopts.resolve` to refuse."""


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

    def parse(self, cfg_str: str) -> dict[str, Any]:
        """The run configuration written in ``cfg_str``, split into pairs as TorchX
        splits it, each value cast to its option's type; a key no option has is
        kept as text. A text TorchX cannot split, or a value its option cannot
        take, is a :class:`~transforms.torchx.errors.RunOptionError`.

        >>> opts = add_options(runopts(), "kubernetes_overlay")
        >>> opts.parse("validate=False,overlays=a.yaml;b.yaml")
        {'validate': False, 'overlays': ['a.yaml', 'b.yaml']}
        >>> opts.parse("role_overlays=trainer=a100.yaml")
        Traceback (most recent call last):
          ...
        transforms.torchx.errors.RunOptionError: run option role_overlays: an item is ROLE:URI (trainer:gpu.yaml), got 'trainer=a100.yaml'; did you mean trainer:a100.yaml?
        >>> opts.parse("validate=maybe")
        Traceback (most recent call last):
          ...
        transforms.torchx.errors.RunOptionError: run option validate: expected true or false, got 'maybe'
        """
        try:
            pairs = _pairs(cfg_str or "")
        except ValueError as err:
            raise _unsplittable(cfg_str, err) from err
        cfg: dict[str, Any] = {}
        written: dict[str, str] = {}
        for key, value in pairs:
            option = self.get(key)
            cast = value if option is None else _cast(key, value, option.opt_type)
            if key not in cfg:
                cfg[key], written[key] = cast, value
            elif option is not None and option.opt_type == List[str]:  # noqa: UP006
                cfg[key] = [*cfg[key], *cast]  # a list option given twice takes both
            elif value != written[key]:
                raise RunOptionError(
                    f"run option {_bare(key)} is given twice, as {short_repr(written[key])} and "
                    f"{short_repr(value)}: give it once (only list options, such as overlays, "
                    f"take every value given)",
                    key=key,
                    value=value,
                )
        return cfg

    def cfg_from_str(self, cfg_str: str) -> dict[str, Any]:
        """:meth:`parse`, except that a text it refuses is kept (under a key no
        option has) and refused by :meth:`resolve`: ``torchx run`` calls this
        method where an error prints as a traceback, and ``resolve`` where it
        prints as one short message."""
        try:
            return self.parse(cfg_str)
        except RunOptionError:
            return {_DEFERRED: cfg_str}

    def resolve(self, cfg: Mapping[str, Any], **kwargs: Any) -> dict[str, Any]:
        if _DEFERRED in cfg:
            self.parse(str(cfg[_DEFERRED]))  # raises the error cfg_from_str kept back
        if not kwargs.get("ignore_unknown"):
            for key, value in cfg.items():
                if self.get(key) is None:
                    raise UnknownRunOptionError(
                        key,
                        scheduler=self.scheduler,
                        options=[name for name, _ in self],
                        value=value,
                        hint=_role_hint(key, value, cfg),
                    )
        resolved: dict[str, Any] = super().resolve(cfg, **kwargs)
        return resolved


def _role_hint(key: str, value: Any, cfg: Mapping[str, Any]) -> str:
    """A guess for an unknown key after ``role_overlays``: ``role_overlays=trainer:a.yaml;ps=b.yaml``
    splits into ``role_overlays`` and a key ``ps``."""
    if "role_overlays" not in cfg or not isinstance(value, str):
        return ""
    return (
        f"if {_bare(key)} is a role, a role_overlays item is ROLE:URI: {_bare(key)}:{_bare(value)}"
    )


def _pairs(cfg_str: str) -> list[tuple[str, str]]:
    """The ``KEY=VALUE`` pairs of ``cfg_str`` in the order written, split as TorchX's
    ``to_dict`` splits them (a list value ends at the last ``,`` or ``;`` before the
    next key), except that a key given twice is kept twice: ``to_dict`` keeps the
    last value only, silently.

    >>> _pairs("overlays=a.yaml;b.yaml,validate=false,overlays=c.yaml")
    [('overlays', 'a.yaml;b.yaml'), ('validate', 'false'), ('overlays', 'c.yaml')]
    """
    pairs: list[tuple[str, str]] = []
    if not cfg_str:
        return pairs
    parts = [part.strip() for part in cfg_str.split("=") if part.strip()]
    if len(parts) < 2:
        raise ValueError(f"`{cfg_str}` does not have at least one `key=value` pair")
    key = parts[0]
    for value_key in parts[1:-1]:
        cut = max(value_key.rfind(","), value_key.rfind(";"))
        if cut <= 0 or cut == len(value_key) - 1:
            raise ValueError(f"`{value_key}` cannot be split into `val<delim>key`")
        pairs.append((key, _unquoted(value_key[:cut].strip())))
        key = value_key[cut + 1 :].strip()
    pairs.append((key, _unquoted(parts[-1])))
    return pairs


def _unquoted(value: str) -> str:
    return "" if value in ('""', "''") else value


def _bare(text: str) -> str:
    """``text`` as a message writes it unquoted (a run option's key), short."""
    return short_repr(text, quoted=False)


_TYPE_NAMES = {bool: "true or false", int: "an integer", float: "a number"}


def _cast(key: str, value: str, opt_type: Any) -> Any:
    """``value`` as TorchX casts it to ``opt_type``, except that a bool is ``true``
    or ``false`` (TorchX reads any other word as false) and a failed cast names
    the option."""
    if opt_type is bool:
        word = value.strip().lower()
        if word in ("true", "false"):
            return word == "true"
    elif opt_type == List[str]:  # noqa: UP006
        return [item for item in value.replace(";", ",").split(",") if item]
    elif opt_type == Dict[str, str]:  # noqa: UP006
        items = value.replace(";", ",").split(",")
        if all(":" in item for item in items):
            return dict(item.split(":", 1) for item in items)
        return _refuse(key, value, "KEY:VALUE items (a:1,b:2)")
    else:
        try:
            return opt_type(value)
        except (TypeError, ValueError):
            pass
    return _refuse(
        key, value, _TYPE_NAMES.get(opt_type, getattr(opt_type, "__name__", str(opt_type)))
    )


def _refuse(key: str, value: str, expected: str) -> Any:
    raise RunOptionError(
        f"run option {_bare(key)}: expected {expected}, got {short_repr(value)}",
        key=key,
        value=value,
    )


_KEY = re.compile(r"(?:^|(?<=[,;]))\s*([^=,;]*?)\s*=")
"""Where a pair starts: at the start or after ``,``/``;``, a key and ``=``."""


def _unsplittable(cfg_str: str, err: ValueError) -> RunOptionError:
    """Why TorchX cannot split ``cfg_str`` into ``KEY=VALUE`` pairs (``err``), said
    of the pair at fault: a value holding ``=``, a pair with no key or no value."""
    starts = list(_KEY.finditer(cfg_str))
    if not starts:
        return RunOptionError(
            f"-cfg: expected KEY=VALUE pairs separated by ',' or ';' "
            f"(queue=default,overlays=a.yaml), got {short_repr(cfg_str)}",
            key="",
            value=cfg_str,
        )
    for start, after in zip(starts, [*starts[1:], None], strict=True):
        key = start.group(1)
        end = len(cfg_str) if after is None else after.start() - 1
        value = cfg_str[start.end() : end].strip()
        if not key:
            return RunOptionError(
                f"-cfg: a pair has no key: {short_repr(cfg_str[start.start() : end])} (KEY=VALUE)",
                key="",
                value=value,
            )
        if "=" in value:
            return _holds_equals(key, value)
        if not value and after is None:
            return RunOptionError(
                f"run option {_bare(key)}: no value after '=' "
                f"(write {_bare(key)}='' for an empty one)",
                key=key,
                value=value,
            )
    return RunOptionError(
        f"-cfg: cannot split {short_repr(cfg_str)} into KEY=VALUE pairs: {err}",
        key="",
        value=cfg_str,
    )


def _holds_equals(key: str, value: str) -> RunOptionError:
    if key == "role_overlays":
        for item in _items(value):
            role, equals, _ = item.partition("=")
            if equals and ":" not in role:
                return RunOptionError(
                    f"run option role_overlays: {_role_item_error(item)}", key=key, value=value
                )
    return RunOptionError(
        f"run option {_bare(key)}: {short_repr(value)} holds '=', which "
        f"-cfg cannot carry (it splits KEY=VALUE pairs at '=')",
        key=key,
        value=value,
    )


def _role_item_error(item: str) -> str:
    """What is wrong with a ``role_overlays`` item, with a guess where it has ``=``."""
    role, equals, uri = item.partition("=")
    from combinators.near import did_you_mean

    hint = did_you_mean((f"{role}:{uri}",)) if equals and role and uri and ":" not in role else ""
    return f"an item is ROLE:URI (trainer:gpu.yaml), got {short_repr(item)}{hint}"


def add_options(opts: runopts, scheduler: str) -> CheckedRunopts:
    """TorchX's options ``opts`` and podfold's, as :class:`CheckedRunopts` for ``scheduler``."""
    checked = CheckedRunopts(scheduler)
    checked.update(opts)
    checked.add(
        "overlays",
        type_=List[str],  # noqa: UP006
        help="YAML overlays (paths or URIs, ';'-separated) applied to every role's "
        "pods after the role's own",
    )
    checked.add(
        "role_overlays",
        type_=List[str],  # noqa: UP006
        help="YAML overlays for one role each, as ROLE:URI items (';'-separated), "
        "applied after the ones for every role",
    )
    checked.add(
        "validate",
        type_=bool,
        default=True,
        help="check every pod against the official Kubernetes schema and its references",
    )
    checked.add(
        "k8s_version",
        type_=str,
        default=DEFAULT_VERSION,
        help="the Kubernetes version whose schema pods are checked against",
    )
    checked.add(
        "policy",
        type_=str,
        help=f"a Pod Security Standards profile every pod must meet: {' or '.join(PROFILES)}",
    )
    checked.add(
        "allow",
        type_=List[str],  # noqa: UP006
        help="the only paths the overlays may change (';'-separated, e.g. "
        "'spec.nodeSelector;spec.tolerations')",
    )
    checked.add(
        "deny",
        type_=List[str],  # noqa: UP006
        help="paths the overlays may not change (';'-separated, e.g. "
        "'spec.containers[*].securityContext;spec.hostNetwork')",
    )
    checked.add(
        "conflicts",
        type_=str,
        default="last-wins",
        help=f"when two overlays write different values at one path: {', '.join(CONFLICT_MODES)}",
    )
    return checked


def _items(value: Any, separators: str = ";,") -> list[str]:
    if isinstance(value, str):
        for separator in separators[1:]:
            value = value.replace(separator, separators[0])
        return [item for item in value.split(separators[0]) if item]
    return list(value or [])


def _per_role(
    items: list[str], texts: dict[str, str]
) -> tuple[tuple[tuple[str, tuple[Transform, ...]], ...], tuple[str, ...]]:
    """``ROLE:URI`` items as (role, overlays) pairs, roles in the order first named,
    and the overlays' files in that order; each file's text goes into ``texts``."""
    found: dict[str, list[tuple[str, Transform]]] = {}
    for item in items:
        role, colon, uri = item.partition(":")
        if not (colon and role and uri) or "=" in role:
            raise ArgumentError(_role_item_error(item), argument="role_overlays", value=item)
        found.setdefault(role, []).append((uri, _load(uri, "role_overlays", texts)))
    pairs = tuple((role, tuple(overlay for _, overlay in loaded)) for role, loaded in found.items())
    return pairs, tuple(uri for loaded in found.values() for uri, _ in loaded)


def _load(uri: str, key: str, texts: dict[str, str]) -> Transform:
    """The overlay at ``uri``, read once: its text is kept in ``texts``, so that the
    lines of a conflict are named from what was applied, not from a second read (a
    pipe gives its text once, a server may answer anew). An error names the run
    option that listed it."""
    try:
        text = texts[uri] if uri in texts else read_overlay_text(uri)
        texts[uri] = text
        overlay = loads_overlay(text, source=uri)
    except TransformError as err:
        err.with_step(f"run option {_bare(key)}")
        raise
    if overlay is identity:
        warnings.warn_explicit(
            EmptyOverlayWarning(
                f"the overlay holds no step (the file is empty or only comments); it changes "
                f"nothing [in run option {_bare(key)}]"
            ),
            EmptyOverlayWarning,
            uri,
            1,
            module="podfold",
        )
    return overlay


def _choice(
    cfg: Mapping[str, Any], key: str, choices: tuple[str, ...], default: str | None
) -> str | None:
    value = cfg.get(key)
    if value is None or value == "":
        return default
    if value not in choices:
        from combinators.near import did_you_mean, near_misses

        hint = did_you_mean(near_misses(str(value), choices, n=1))
        raise ArgumentError(
            f"{key} is one of {', '.join(choices)}, got {short_repr(value)}{hint}",
            argument=key,
            value=value,
        )
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
    texts: dict[str, str] = {}
    extra = tuple(_load(uri, "overlays", texts) for uri in uris)
    per_role, per_role_uris = _per_role(_items(cfg.get("role_overlays")), texts)
    return FoldSettings(
        extra=extra,
        texts=tuple(texts.items()),
        validate=True if validate is None else bool(validate),
        k8s_version=_version(cfg.get("k8s_version")),
        per_role=per_role,
        policy=_choice(cfg, "policy", PROFILES, None),
        allow=allow,
        deny=deny,
        conflicts=_choice(cfg, "conflicts", CONFLICT_MODES, "last-wins") or "last-wins",
        labels=(*uris, *per_role_uris),
    )
