"""RFC 6902 JSON Patch as a pure transform.

All six operations (``add``, ``remove``, ``replace``, ``move``, ``copy``,
``test``), JSON Pointers (RFC 6901) with the ``~0``/``~1`` escapes and the
``-`` index (the end of a list, for ``add``). Operations are checked when
the patch is built; an operation that cannot apply raises a podfold error
naming its index, the operation, its pointer and what was there instead.
The input is never changed, so a failing patch leaves nothing half done.

A patch applied again is compiled: each ``add``, ``remove``, ``replace`` and
``test`` becomes a path step (a :class:`~combinators.editing.PathEdit`, whose
path compiles as the combinators' do), and the chain of them is the patch's
plan; ``move`` and ``copy``, which read another place, stay steps of the
general walk. The first application walks every operation: a patch built for
one call is applied once, and compiling it would cost more than it saves.
Both ways give the same document and the same errors.

>>> pod = {"spec": {"tolerations": [{"key": "a"}]}}
>>> patch = json_patch([{"op": "add", "path": "/spec/tolerations/-", "value": {"key": "b"}},
...                     {"op": "test", "path": "/spec/tolerations/0/key", "value": "a"}])
>>> patch(pod)
{'spec': {'tolerations': [{'key': 'a'}, {'key': 'b'}]}}
>>> pod
{'spec': {'tolerations': [{'key': 'a'}]}}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pyrsistent import PMap, PVector, freeze

from combinators.data import (
    MISSING,
    Owned,
    Template,
    copy_plain,
    delete_key,
    extend_seq,
    is_map,
    is_seq,
    kind_name,
    rebuild_seq,
    set_key,
    strict_equal,
)
from combinators.editing import ERROR, PathEdit
from combinators.errors import ArgumentError, PathError, TransformError, TypeClashError
from combinators.fusion import APPEND, FALL_BACK, SET, Op
from combinators.limits import MAX_DEPTH, short_repr
from combinators.paths import Index, Key, Part, Path
from combinators.shape import problem_text, value_problem
from combinators.transform import Transform, chain
from transforms.forms.patches._errors import InvalidPatchError, PatchTestFailed

__all__ = ("json_patch", "parse_pointer", "json_equal")

_FIELDS = {
    "add": ("path", "value"),
    "remove": ("path",),
    "replace": ("path", "value"),
    "move": ("from", "path"),
    "copy": ("from", "path"),
    "test": ("path", "value"),
}


def parse_pointer(pointer: str) -> tuple[str, ...]:
    """The reference tokens of a JSON Pointer, unescaped.

    >>> parse_pointer("/metadata/annotations/a~1b~0c")
    ('metadata', 'annotations', 'a/b~c')
    >>> parse_pointer("")
    ()
    """
    if pointer == "":
        return ()
    if not pointer.startswith("/"):
        raise ArgumentError(
            f"pointer: a JSON Pointer starts with '/', got {short_repr(pointer)}",
            argument="pointer",
            factory="parse_pointer",
            value=pointer,
        )
    tokens = pointer[1:].split("/")
    for token in tokens:
        rest = token.replace("~0", "").replace("~1", "")
        if "~" in rest:
            raise ArgumentError(
                f"pointer: bad escape in {short_repr(pointer)}: '~' must be followed by 0 or 1",
                argument="pointer",
                factory="parse_pointer",
                value=pointer,
            )
    return tuple(token.replace("~1", "/").replace("~0", "~") for token in tokens)


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values: numbers by value, booleans apart from numbers.

    >>> json_equal({"a": [1, 2.0]}, {"a": [1.0, 2]}), json_equal(1, True)
    (True, False)
    """
    if is_map(a):
        return (
            is_map(b)
            and len(a) == len(b)
            and all(key in b and json_equal(value, b[key]) for key, value in a.items())
        )
    if is_seq(a):
        return (
            is_seq(b)
            and len(a) == len(b)
            and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and bool(a == b)


def _invalid(message: str, index: int) -> InvalidPatchError:
    """The error for operation ``index`` of the ``ops`` given to :func:`json_patch`."""
    return InvalidPatchError(message, index=index, argument="ops", factory="json_patch")


class _Op:
    """One checked operation: its index, name, pointers and value."""

    __slots__ = ("index", "op", "pointer", "path", "source", "value")

    def __init__(self, index: int, raw: Any) -> None:
        self.index = index
        if not isinstance(raw, Mapping):
            raise _invalid(f"op {index}: an operation is a map, got {kind_name(raw)}", index)
        op = raw.get("op", MISSING)
        if not isinstance(op, str) or op not in _FIELDS:
            known = ", ".join(_FIELDS)
            shown = "no 'op' field" if op is MISSING else f"unknown op {short_repr(op, 60)}"
            raise _invalid(f"op {index}: {shown}; ops are: {known}", index)
        self.op: str = op
        for field in _FIELDS[op]:
            if field not in raw:
                raise _invalid(f"op {index} ({op}): missing field {field!r}", index)
        self.pointer: str = raw["path"]
        self.path = self._parse(raw["path"], "path")
        self.source = self._parse(raw["from"], "from") if "from" in raw else ()
        if "value" in raw:
            problem = value_problem(raw["value"])
            if problem is not None:
                raise _invalid(
                    f"op {index} ({op}): {problem_text(problem, 'value', raw['value'])}", index
                )
        self.value = copy_plain(raw.get("value"))
        if (
            op == "move"
            and self.path[: len(self.source)] == self.source
            and len(self.path) > len(self.source)
        ):
            raise _invalid(
                f"op {index} (move {short_repr(self.pointer, quoted=False)}): "
                f"cannot move "
                f"{short_repr(raw['from'])} into one of its own children",
                index,
            )

    def _parse(self, pointer: Any, field: str) -> tuple[str, ...]:
        if not isinstance(pointer, str):
            raise _invalid(
                f"op {self.index} ({self.op}): {field!r} must be "
                f"a JSON Pointer string, got {kind_name(pointer)}",
                self.index,
            )
        try:
            return parse_pointer(pointer)
        except ArgumentError as err:
            raise _invalid(
                f"op {self.index} ({self.op}): {field}: {err.message}", self.index
            ) from None

    def label(self) -> str:
        return f"json_patch op {self.index} ({self.op} {short_repr(self.pointer)})"


def _list_index(op: _Op, tokens: tuple[str, ...], seq: Any, at: int, *, insert: bool) -> int:
    """The position ``token`` names in ``seq``; ``insert`` allows ``-`` and ``len(seq)``."""
    token = tokens[at]
    if token == "-":
        if insert:
            return len(seq)
        raise PathError(
            f"{op.label()}: '-' names no element{_where(tokens, at)}; the list "
            f"has {_elements(len(seq))}"
        )
    if not token.isdigit() or (token != "0" and token.startswith("0")) or not token.isascii():
        raise TypeClashError(
            f"{op.label()}: {short_repr(token)} is not a list index{_where(tokens, at)}",
            expected="a list index",
            found=short_repr(token),
        )
    # no list holds 10**18 elements: a longer index is out of range unread (int() of
    # 5,000 digits would raise Python's ValueError)
    index = int(token) if len(token) <= 18 else None
    if index is None or index > len(seq) or (index == len(seq) and not insert):
        shown = index if index is not None else short_repr(token, 40, quoted=False)
        raise PathError(
            f"{op.label()}: index {shown} is out of range{_where(tokens, at)}; "
            f"the list has {_elements(len(seq))}"
        )
    return index


def _elements(count: int) -> str:
    return "1 element" if count == 1 else f"{count} elements"


def _where(tokens: tuple[str, ...], at: int) -> str:
    tokens = tokens[:at]
    pointer = "/" + "/".join(t.replace("~", "~0").replace("/", "~1") for t in tokens)
    return f" at {short_repr(pointer, quoted=False)}" if tokens else " at the document's root"


def _child(op: _Op, tokens: tuple[str, ...], node: Any, at: int) -> Any:
    token = tokens[at]
    if is_map(node):
        if token not in node:
            keys = tuple(str(key) for key in node)
            raise PathError(
                f"{op.label()}: no key {short_repr(token)}{_where(tokens, at)}",
                present=keys,
                present_label="keys present",
            )
        return node[token]
    if is_seq(node):
        return node[_list_index(op, tokens, node, at, insert=False)]
    raise TypeClashError(
        f"{op.label()}: cannot look up {short_repr(token)} in "
        f"{kind_name(node)}"
        f"{_where(tokens, at)}",
        expected="a map or a list",
        found=kind_name(node),
    )


def _get(op: _Op, doc: Any, tokens: tuple[str, ...]) -> Any:
    node = doc
    for at in range(len(tokens)):
        node = _child(op, tokens, node, at)
    return node


def _edit(op: _Op, node: Any, tokens: tuple[str, ...], at: int, value: Any, owned: Owned) -> Any:
    """``node`` with ``op`` applied at ``tokens[at:]``, copying only along the way."""
    token = tokens[at]
    if at < len(tokens) - 1:
        child = _child(op, tokens, node, at)
        new = _edit(op, child, tokens, at + 1, value, owned)
        if new is child:
            return node
        if is_map(node):
            return set_key(node, token, new, owned)
        return rebuild_seq(node, {int(token): new}, (), owned)
    if is_map(node):
        old = node.get(token, MISSING)
        if op.op == "remove" or value is MISSING:
            if old is MISSING:
                _child(op, tokens, node, at)  # raises, naming the keys present
            return delete_key(node, token, owned)
        if op.op == "replace" and old is MISSING:
            try:
                _child(op, tokens, node, at)
            except PathError as err:  # RFC 6902: replace needs the key; kubectl adds it
                err.message += " ('replace' needs the key to be there: 'add' creates it)"
                raise
        if old is not MISSING and strict_equal(old, value):
            return node
        return set_key(node, token, value, owned)
    if is_seq(node):
        insert = op.op in ("add", "copy", "move") and value is not MISSING
        index = _list_index(op, tokens, node, at, insert=insert)
        if value is MISSING:
            return rebuild_seq(node, {}, (index,), owned)
        if insert:
            return extend_seq(node, [value], index, owned)
        if strict_equal(node[index], value):
            return node
        return rebuild_seq(node, {index: value}, (), owned)
    raise TypeClashError(
        f"{op.label()}: cannot {op.op} {short_repr(token)} in "
        f"{kind_name(node)}"
        f"{_where(tokens, at)}",
        expected="a map or a list",
        found=kind_name(node),
    )


def _test_failed(op: _Op, found: Any) -> PatchTestFailed:
    return PatchTestFailed(
        f"{op.label()}: expected {short_repr(op.value)}, found {short_repr(found)}",
        index=op.index,
        pointer=op.pointer,
        expected=op.value,
        found=copy_plain(found),
    )


def _run(op: _Op, doc: Any, owned: Owned) -> Any:
    """``op`` applied to ``doc`` by the general walk: any document, every case and error."""
    persistent = isinstance(doc, (PMap, PVector))
    if op.op == "test":
        found = _get(op, doc, op.path)
        if not json_equal(found, op.value):
            raise _test_failed(op, found)
        return doc
    if op.op in ("add", "replace"):
        value = freeze(op.value) if persistent else copy_plain(op.value)
    elif op.op == "copy":
        found = _get(op, doc, op.source)
        value = found if persistent else copy_plain(found)
    elif op.op == "move":
        if op.source == op.path:
            _get(op, doc, op.source)
            return doc
        value = _get(op, doc, op.source)
        doc = _remove(op, doc, op.source, owned)
    else:
        value = MISSING
    if not op.path:
        if value is MISSING:
            raise PathError(f"{op.label()}: cannot remove the whole document")
        return doc if strict_equal(doc, value) else value
    return _edit(op, doc, op.path, 0, value, owned)


def _remove(op: _Op, doc: Any, tokens: tuple[str, ...], owned: Owned) -> Any:
    if not tokens:
        raise PathError(f"{op.label()}: cannot move the whole document")
    return _edit(op, doc, tokens, 0, MISSING, owned)


# --- operations compiled into path steps --------------------------------------------------
#
# An add, remove or replace is a PathEdit whose path leads to the container the
# pointer's last token is in, and whose leaf changes that container as the RFC
# says; a test is a PathEdit whose path leads to the value it compares. Their
# paths are compiled like any combinator's, so a chain of them is one plan.
# Where a path does not lead through plain containers (a missing parent, a
# persistent document, a token that is no index where a list is), the
# operation runs through the general walk above, which names what went wrong;
# no error text is built while nothing fails.

_END = -1
"""The position of ``-``: the end of the list."""


def _part(token: str) -> Part:
    """The part a token is where it leads through plain data: a list index, else a key."""
    if token.isdigit() and token.isascii() and (token == "0" or not token.startswith("0")):
        return Index(int(token))
    return Key(token)


def _position(token: str) -> int | None:
    """The list position ``token`` names (``_END`` for ``-``), or ``None`` for none."""
    if token == "-":
        return _END
    part = _part(token)
    return part.index if isinstance(part, Index) else None


class _Step(PathEdit):
    """One operation as a path step (see above); ``op`` is the checked operation."""

    __slots__ = ("op", "token", "position", "value")
    name = "json_patch"

    def __init__(self, op: _Op, path: Path) -> None:
        self.op = op
        self.token = op.path[-1]
        self.position = _position(self.token)
        self.value = Template(op.value, private=True)
        self._init_path(path, ERROR, ERROR)
        self._init_params(op.index, op.op, op.pointer)

    def __repr__(self) -> str:
        return self.op.label()

    def _annotate(self, err: TransformError) -> None:
        """Nothing to add: the error names the operation, its pointer and the place."""

    def _apply_slow(self, doc: Any, owned: Owned) -> Any:
        if not self._parts and type(doc) is dict:  # a token at the top: its leaf, on the pod
            return self.leaf(doc, False, owned)
        return _run(self.op, doc, owned)

    def _how(self) -> str:
        """How a fused function makes a new copy of the value (see combinators.fusion)."""
        value = self.value
        return "copy" if value.flat else "deep" if value.is_container else "share"

    def _fusion_ops(self) -> tuple[Op, ...] | None:
        general = super()._fusion_ops()
        if general is None or not self._parts:
            return general
        # The token is read as what it looks like (a key, or "-" of a list); the
        # fused function checks the container is that kind, else falls back.
        return self._fusion_guess() or general

    def _fusion_guess(self) -> tuple[Op, ...] | None:
        return None

    def _general(self, node: Any, persistent: bool, owned: Owned) -> Any:
        """The operation on ``node``, its pointer's last container, by the general walk."""
        op = self.op
        value = MISSING if op.op == "remove" else self.value.fresh(persistent)
        return _edit(op, node, op.path, len(op.path) - 1, value, owned)


class _Add(_Step):
    __slots__ = ()

    def _fusion_guess(self) -> tuple[Op, ...] | None:
        parts, value = self._parts, (self.value.plain, self._how())
        if self.position == _END:  # the parent must be there, a list
            return (Op(APPEND, parts, (value,), exists=len(parts)),)
        if self.position is None:  # a key set in a map that must be there
            return (Op(SET, (*parts, Key(self.token)), value, exists=len(parts)),)
        return None

    def _append_items(self) -> tuple[Any, ...] | None:
        # ``-`` and a map or list of scalars: the append compiled into the path
        value = self.value
        return (value.plain,) if self.position == _END and value.flat else None

    def leaf(self, old: Any, persistent: bool, owned: Owned) -> Any:
        if type(old) is dict:
            present = old.get(self.token, MISSING)
            if present is not MISSING and strict_equal(present, self.value.plain):
                return old
            new = owned.writable_map(old)
            new[self.token] = self.value.fresh(persistent)
            return new
        if type(old) is list:
            position = self.position
            if position == _END:
                position = len(old)
            if position is not None and position <= len(old):
                new_list = owned.writable_list(old)
                new_list.insert(position, self.value.fresh(persistent))
                return new_list
        return self._general(old, persistent, owned)


class _Replace(_Step):
    __slots__ = ()

    def _fusion_guess(self) -> tuple[Op, ...] | None:
        if self.position is not None:
            return None
        # a key that must be there, in a map that must be there
        return (
            Op(
                SET,
                (*self._parts, Key(self.token)),
                (self.value.plain, self._how()),
                exists=len(self._parts),
                missing=FALL_BACK,
            ),
        )

    def leaf(self, old: Any, persistent: bool, owned: Owned) -> Any:
        if type(old) is dict:
            present = old.get(self.token, MISSING)
            if present is not MISSING:
                if strict_equal(present, self.value.plain):
                    return old
                new = owned.writable_map(old)
                new[self.token] = self.value.fresh(persistent)
                return new
        elif type(old) is list:
            position = self.position
            if position is not None and 0 <= position < len(old):
                if strict_equal(old[position], self.value.plain):
                    return old
                new_list = owned.writable_list(old)
                new_list[position] = self.value.fresh(persistent)
                return new_list
        return self._general(old, persistent, owned)


class _Remove(_Step):
    __slots__ = ()

    def leaf(self, old: Any, persistent: bool, owned: Owned) -> Any:
        if type(old) is dict:
            if self.token in old:
                new = owned.writable_map(old)
                del new[self.token]
                return new
        elif type(old) is list:
            position = self.position
            if position is not None and 0 <= position < len(old):
                new_list = owned.writable_list(old)
                del new_list[position]
                return new_list
        return self._general(old, persistent, owned)


class _Test(_Step):
    """A test: its path leads to the value compared, which its leaf gives back unchanged."""

    __slots__ = ()

    def leaf(self, old: Any, persistent: bool, owned: Owned) -> Any:
        if json_equal(old, self.op.value):
            return old
        raise _test_failed(self.op, old)


class _Walk(Transform):
    """An operation the general walk applies: move, copy, and pointers too deep to compile."""

    __slots__ = ("op",)
    name = "json_patch"

    def __init__(self, op: _Op) -> None:
        self.op = op
        self._init_params(op.index, op.op, op.pointer)

    def __repr__(self) -> str:
        return self.op.label()

    def _apply(self, doc: Any, owned: Owned) -> Any:
        return _run(self.op, doc, owned)


_STEPS: dict[str, type[_Step]] = {
    "add": _Add,
    "replace": _Replace,
    "remove": _Remove,
    "test": _Test,
}


def _step(op: _Op, paths: dict[tuple[str, ...], Path]) -> Transform:
    """``op`` as a step; ``paths`` shares the paths of pointers seen before."""
    kind = _STEPS.get(op.op)
    tokens = op.path if op.op == "test" else op.path[:-1]
    if kind is None or not op.path or len(tokens) > MAX_DEPTH:
        return _Walk(op)
    found = paths.get(tokens)
    if found is None:
        found = paths[tokens] = Path(_part(token) for token in tokens)
    return kind(op, found)


class _JsonPatch(Transform):
    __slots__ = ("ops", "_plan", "_applied")
    name = "json_patch"

    def __init__(self, ops: Sequence[Mapping[str, Any]]) -> None:
        if isinstance(ops, (str, bytes)) or not isinstance(ops, Sequence):
            raise InvalidPatchError(
                f"ops must be a list of operations, got {kind_name(ops)}",
                argument="ops",
                factory="json_patch",
                value=ops,
            )
        self.ops = tuple(_Op(index, raw) for index, raw in enumerate(ops))
        self._init_params([copy_plain(dict(raw)) for raw in ops])
        self._plan: Transform | None = None
        self._applied = False

    def __reduce__(self) -> tuple[Any, ...]:
        # the plan holds compiled code: rebuilt from the operations, not pickled
        return json_patch, (self._args[0],)

    def compiled(self) -> Transform:
        """The plan: the operations in order, as one chain of path steps (made on first use)."""
        plan = self._plan
        if plan is None:
            paths: dict[tuple[str, ...], Path] = {}
            plan = self._plan = chain(*(_step(op, paths) for op in self.ops))
        return plan

    def _fusion_ops(self) -> tuple[Op, ...] | None:
        # in a composition, the operations fuse with the steps around them
        return self.compiled()._fusion_ops()

    def __call__(self, doc: Any) -> Any:
        plan = self._plan
        if plan is None or type(doc) is not dict:
            return super().__call__(doc)
        try:
            return plan(doc)  # its own fused function, the shortest way
        except TransformError as err:
            err.steps = ()  # as _apply: the message names the operation
            raise

    def _fast_parts(self) -> tuple[Any, Any, Any]:
        # one compiled operation: its own fast path, called by an enclosing composition
        plan = self.compiled()
        if isinstance(plan, _Step):
            return plan._fast_parts()
        return None, None, self._apply

    def _apply(self, doc: Any, owned: Owned) -> Any:
        plan = self._plan
        if plan is None:
            if not self._applied:
                # The first application walks: a patch built for one call is applied
                # once, and compiling would cost it more than it saves. One applied
                # again is compiled.
                self._applied = True
                for op in self.ops:
                    doc = _run(op, doc, owned)
                return doc
            plan = self.compiled()
        try:
            return plan._apply(doc, owned)
        except TransformError as err:
            # what the plan's chain added names its own steps; the message names the operation
            err.steps = ()
            raise


def json_patch(ops: Sequence[Mapping[str, Any]]) -> Transform:
    """An RFC 6902 JSON Patch: apply ``ops`` in order, all of them or none.

    - ``add`` sets a map's key (replacing it) or inserts into a list at an
      index (``-``: at the end); the parent must exist;
    - ``remove`` and ``replace`` need the target to exist;
    - ``move`` and ``copy`` take the value at ``from``; ``test`` compares
      (numbers by value) and raises :class:`PatchTestFailed` when it differs;
    - maps and lists are copied only along the pointers that change; a patch
      that changes nothing returns the very same document.

    >>> pod = {"metadata": {"labels": {"app": "x"}}}
    >>> json_patch([{"op": "replace", "path": "/metadata/labels/app", "value": "y"}])(pod)
    {'metadata': {'labels': {'app': 'y'}}}
    >>> json_patch([{"op": "move", "from": "/metadata/labels", "path": "/metadata/tags"}])(pod)
    {'metadata': {'tags': {'app': 'x'}}}
    >>> json_patch([{"op": "test", "path": "/metadata/labels/app", "value": "x"}])(pod) is pod
    True
    >>> json_patch([{"op": "remove", "path": "/metadata/labls"}])(pod)
    Traceback (most recent call last):
    ...
    combinators.errors.PathError: json_patch op 0 (remove '/metadata/labls'): no key 'labls' at /metadata; keys present: labels
    >>> json_patch([{"op": "ad", "path": "/a"}])
    Traceback (most recent call last):
    ...
    transforms.forms.patches._errors.InvalidPatchError: json_patch(): ops: op 0: unknown op 'ad'; ops are: add, remove, replace, move, copy, test
    """
    return _JsonPatch(ops)
