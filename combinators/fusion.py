"""Fusing a composition into one function: each shared path walked, copied and matched once.

An eight-step overlay applied step by step walks down from the root eight
times, scans the same ``[name=trainer-0]`` selector four times and asks the
ownership record, at every level of every step, whether a container may be
changed in place. A careful programmer writing the same edits by hand does
none of that: one function that copies ``spec`` once, finds the container
once and appends the three env vars to one new list. This module writes
that function, once per composition (as :mod:`combinators.compiled` does
for a single path).

What it fuses are *ops*, which the transforms describe themselves (see
``Transform._fusion_ops``): the path edits whose walk has a compiled fast
path and whose leaf is pure, and checks that read the document (a recipe's
"is this a pod?"). A user's function, ``when``, ``for_each`` or a patch are
not ops: they split the composition, and run as they always do.

The function generated for ops ``o1 .. on`` keeps, as it goes, a variable
for every container it has reached (a *node*, named by the path prefix that
reached it) and a flag saying whether it is already this function's own
copy. A later op reuses the deepest node its path shares with earlier ones,
so each prefix is walked and each selector scanned once; the first write
below a node copies it (and every ancestor not yet copied) and links the
copy into its parent at once, so the document is whole after every op and a
later op (or a check) reads it as the step-by-step plan would. Where an op
may have replaced or reordered what a node stood for, the nodes below it are
dropped and walked again:

- an op that replaces the value at its path drops the nodes under that path;
- an op that may add, replace or remove elements of a list drops every node
  reached through a selector in that list (an appended element may match a
  selector that matched one element before);
- a write through one selector drops the nodes reached through the other
  selectors of the same list (``[0]`` and ``[name=a]`` may be one element).

The plan stays correct by construction: whatever the generated code is not
sure of (a missing or ambiguous match, a container of the wrong kind, a
leaf that removes), it returns :data:`~combinators.compiled.FALLBACK`
having changed only its own copies, and the caller runs the steps one by
one from the same input, as before. So every error is raised, and named, by
the step-by-step plan.

>>> from combinators import append_at, chain, upsert
>>> overlay = chain(upsert("spec.nodeSelector", {"gpu": "a100"}),
...                 append_at("spec.containers[name=main].env", {"name": "A", "value": "1"}),
...                 append_at("spec.containers[name=main].env", {"name": "B", "value": "2"}))
>>> fused = fuse(overlay._fusion_ops(), register=False)
>>> pod = {"spec": {"containers": [{"name": "main"}]}}
>>> new = fused(pod, Owned())
>>> new == overlay(pod), pod
(True, {'spec': {'containers': [{'name': 'main'}]}})
>>> print(source(overlay._fusion_ops(), register=False).count("for position"))
1
"""

from __future__ import annotations

from itertools import repeat

from combinators._typing import TYPE_CHECKING
from combinators.compiled import FALLBACK
from combinators.data import MISSING, REMOVE, copy_plain, strict_equal
from combinators.owned import Owned
from combinators.paths import End, Index, Key, Match, Part, Path

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    FusedFunction = Callable[[dict[str, Any], Owned], Any]
else:

    def __getattr__(name: str) -> object:
        # the type alias, for code that reads it at run time: built then, as
        # importing typing costs more than all of combinators
        if name == "FusedFunction":
            from collections.abc import Callable
            from typing import Any

            return Callable[[dict[str, Any], Owned], Any]
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = (
    "Op",
    "APPEND",
    "MERGE",
    "SET",
    "LEAF",
    "CHECK",
    "CALL",
    "LEAVE",
    "FALL_BACK",
    "plan",
    "fuse",
    "source",
    "FusedFunction",
)

APPEND, MERGE, SET, LEAF, CHECK = "append", "merge", "set", "leaf", "check"
# what a LEAF op does where its path's last part finds nothing
CALL, LEAVE, FALL_BACK = "call", "leave", "fall back"

# what a missing (or null) parent reads as: never written to, only copied
_EMPTY_MAP: dict[str, Any] = {}
_EMPTY_LIST: list[Any] = []


class Op:
    """One fusable edit, as its transform describes it.

    - ``APPEND``: append each of ``payload``, pairs ``(value, how)``, to the
      list at ``parts`` (created where missing or null): ``how`` is
      ``"copy"`` (a map or list of scalars: a shallow copy is a full copy),
      ``"deep"`` (a copy of every level) or ``"share"`` (a scalar);
    - ``MERGE``: set each key of ``payload`` (a map of scalars) in the map at
      ``parts`` (created where missing or null), where it differs;
    - ``SET``: ``payload`` is ``(value, how)`` (as for ``APPEND``): set a new
      copy of ``value`` at ``parts`` (ending in a key) where what is there
      differs (``missing``: ``FALL_BACK`` where nothing is there);
    - ``LEAF``: ``payload(old, False, owned)`` gives the value at ``parts``
      (``REMOVE`` deletes a key). Where the last part finds nothing,
      ``missing`` says what happens: ``CALL`` the leaf with ``old`` as
      ``MISSING``, ``LEAVE`` the document as it is, or ``FALL_BACK``;
      ``extra`` is what gives a new element for a match selector its fields
      (``None``: no new element, fall back);
    - ``CHECK``: ``payload(doc)`` reads the whole document and may raise.

    Missing parents are created, as the ``CREATE`` policy of
    :class:`~combinators.editing.PathEdit` does, except along the first
    ``exists`` parts, which must lead to something (``for_each`` reaches only
    what is there).
    """

    __slots__ = ("kind", "parts", "payload", "extra", "exists", "missing")

    def __init__(
        self,
        kind: str,
        parts: tuple[Part, ...],
        payload: Any,
        extra: Any = None,
        exists: int = 0,
        missing: str = CALL,
    ) -> None:
        self.kind, self.parts, self.payload, self.extra = kind, parts, payload, extra
        self.exists, self.missing = exists, missing

    def __repr__(self) -> str:
        return f"Op({self.kind!r}, {str(Path(self.parts))!r})"


def _selector(part: Part) -> bool:
    return type(part) is not Key


_NO, _YES, _MAYBE = "no", "yes", "maybe"
_LONG = 8  # lists longer than this are searched by _find
_AMBIGUOUS: Any = type("Ambiguous", (), {"__repr__": lambda self: "AMBIGUOUS"})()


def _find(
    seq: list[Any], get: Callable[[Any], Any], field: str, value: Any, kind: type, part: Match
) -> Any:
    """The one position where ``seq`` holds a map with ``field`` equal to ``value`` (and of
    ``kind``), ``None`` where none does, ``_AMBIGUOUS`` where several do (or may).

    ``get`` is ``operator.itemgetter(field)``, made when the function was written.
    """
    try:
        try:
            found = list(map(get, seq))
        except KeyError:  # an element without the field: read it as None, unless None is sought
            if value is None:
                raise TypeError from None
            found = list(map(dict.get, seq, repeat(field, len(seq))))
    except TypeError:  # an element that is not a dict
        matches = [position for position, element in enumerate(seq) if part.matches(element)]
        return matches[0] if len(matches) == 1 else None if not matches else _AMBIGUOUS
    count = found.count(value)  # == only: 1 and True count alike, the kind is checked next
    if count == 0:
        return None
    if count == 1:
        position = found.index(value)
        return position if type(found[position]) is kind else None
    strict = [
        position
        for position, present in enumerate(found)
        if present == value and type(present) is kind
    ]
    return strict[0] if len(strict) == 1 else None if not strict else _AMBIGUOUS


class _Node:
    """A container the function reaches: its variable, its flag, where its parent holds it.

    ``copied`` is what the writer knows, while writing, of whether the
    function has copied it yet: ``_NO``, ``_YES`` or ``_MAYBE`` (a write
    under a condition); only ``_MAYBE`` costs a test of the flag.
    """

    __slots__ = ("prefix", "var", "flag", "slot", "parent", "kind", "copied")

    def __init__(
        self,
        prefix: tuple[Part, ...],
        var: str,
        flag: str,
        slot: str | None,
        parent: _Node | None,
        kind: str,
    ) -> None:
        self.prefix, self.var, self.flag, self.slot = prefix, var, flag, slot
        self.parent, self.kind, self.copied = parent, kind, _NO


class _Writer:
    """Generates the fused function's source, op by op."""

    def __init__(self, register: bool) -> None:
        self.register = register
        self.names: dict[str, Any] = {
            "FALLBACK": FALLBACK,
            "MISSING": MISSING,
            "REMOVE": REMOVE,
            "EMPTY_MAP": _EMPTY_MAP,
            "EMPTY_LIST": _EMPTY_LIST,
            "COPY": copy_plain,
            "FIND": _find,
            "AMBIGUOUS": _AMBIGUOUS,
            "STRICT": strict_equal,
        }
        self.lines = ["def fused(v0, owned):", "    c0 = False"]
        if register:
            self.lines.append("    made = owned._made")
        self.count = 0
        self.uses_owned = register
        # appends not yet written, by list: batched, written when an op may read the list
        self.pending: dict[tuple[Part, ...], tuple[_Node, list[str]]] = {}
        root = _Node((), "v0", "c0", None, None, "dict")
        self.live: dict[tuple[Part, ...], _Node] = {(): root}

    def constant(self, value: Any, stem: str) -> str:
        self.count += 1
        name = f"{stem}{self.count}"
        self.names[name] = value
        return name

    def emit(self, line: str, indent: int = 1) -> None:
        self.lines.append("    " * indent + line)

    # -- reaching containers

    def node(self, prefix: tuple[Part, ...], kind: str) -> _Node:
        """The node for ``prefix``, a container of ``kind`` ("dict" or "list"), walked if needed."""
        found = self.live.get(prefix)
        if found is not None:
            if found.kind != kind:  # the step-by-step plan raises here: let it
                self.emit(f"if type({found.var}) is not {kind}: return FALLBACK")
            return found
        part = prefix[-1]
        parent = self.node(prefix[:-1], "list" if _selector(part) else "dict")
        self.count += 1
        var, flag = f"v{self.count}", f"c{self.count}"
        slot = self.select(parent, part, var)
        seed = "EMPTY_MAP" if kind == "dict" else "EMPTY_LIST"
        if type(part) is Key:
            # a missing or null parent is created (lazily: only a write copies it)
            self.emit(f"if {var} is None: {var} = {seed}")
        self.emit(f"if type({var}) is not {kind}: return FALLBACK")
        self.emit(f"{flag} = False")
        node = _Node(prefix, var, flag, slot, parent, kind)
        self.live[prefix] = node
        return node

    def select(self, parent: _Node, part: Part, var: str | None) -> str:
        """Lines finding ``part`` in ``parent``; sets ``var`` (if given); returns the slot's text.

        A key reads ``None`` where it is missing (``var`` given) or ``MISSING``
        (``var`` is ``None``: the caller reads ``old``).
        """
        target = var or "old"
        if type(part) is Key:
            key = self.constant(part.name, "K")
            if var is None:
                self.emit(f"old = {parent.var}.get({key}, MISSING)")
            else:
                self.emit(f"{var} = {parent.var}.get({key})")
            return key
        self.count += 1
        slot = f"s{self.count}"
        seq = parent.var
        if type(part) is Index:
            index = part.index
            self.emit(f"if not -len({seq}) <= {index} < len({seq}): return FALLBACK")
            self.emit(f"{slot} = {index if index >= 0 else f'len({seq}) + {index}'}")
        else:
            assert type(part) is Match
            self.scan(seq, part, slot)
            if var is not None:
                self.emit(f"if {slot} is None: return FALLBACK")
            else:
                self.emit(f"old = MISSING if {slot} is None else {seq}[{slot}]")
                return slot
        self.emit(f"{target} = {seq}[{slot}]")
        return slot

    def scan(self, seq: str, part: Match, slot: str) -> None:
        """Lines setting ``slot`` to the one position ``part`` matches, or ``None``; two fall back."""
        matcher = self.constant(part, "P")
        self.emit(f"{slot} = None")
        if not part.single:
            self.emit(f"for position, element in enumerate({seq}):")
            self.emit(f"if {matcher}.matches(element):", 2)
            self.emit(f"if {slot} is not None: return FALLBACK", 3)
            self.emit(f"{slot} = position", 3)
            return
        from operator import itemgetter  # not on import: the module is slow to load

        field, value = self.constant(part.field, "F"), self.constant(part.value, "V")
        kind = self.constant(type(part.value), "T")
        get = self.constant(itemgetter(part.field), "G")
        # a long list is searched by C loops (a pod may have hundreds of containers)
        self.emit(f"if len({seq}) > {_LONG}:")
        self.emit(f"{slot} = FIND({seq}, {get}, {field}, {value}, {kind}, {matcher})", 2)
        self.emit(f"if {slot} is AMBIGUOUS: return FALLBACK", 2)
        self.emit("else:")
        self.emit(f"for position, element in enumerate({seq}):", 2)
        self.emit("if type(element) is dict:", 3)
        self.emit(f"found = element.get({field}, MISSING)", 4)
        self.emit(f"if found is {value} or (found == {value} and type(found) is {kind}):", 4)
        self.emit(f"if {slot} is not None: return FALLBACK", 5)
        self.emit(f"{slot} = position", 5)
        self.emit(f"elif {matcher}.matches(element): return FALLBACK", 3)

    def writable(self, node: _Node, indent: int) -> None:
        """Lines making ``node`` this function's own copy, linked into its (own) parent.

        ``indent`` above 1 means the lines run under a condition.
        """
        if node.copied == _YES:
            return
        chain = []
        current: _Node | None = node
        while current is not None:
            chain.append(current)
            current = current.parent
        chain.reverse()
        wrapped = node.copied == _MAYBE
        if wrapped:
            self.emit(f"if not {node.flag}:", indent)
            indent += 1
        for member in chain:
            if member.copied == _YES:
                continue
            steps = [f"{member.var} = {member.var}.copy()", f"{member.flag} = True"]
            if self.register:
                steps.append(f"made[id({member.var})] = {member.var}")
            if member.parent is not None:
                steps.append(f"{member.parent.var}[{member.slot}] = {member.var}")
            if member.copied == _MAYBE and not (wrapped and member is node):
                self.emit(f"if not {member.flag}: " + "; ".join(steps), indent)
            else:
                self.emit("; ".join(steps), indent)
        for member in chain:
            if indent - wrapped == 1:
                member.copied = _YES
            elif member.copied == _NO:
                member.copied = _MAYBE

    def build(self, value: Any) -> str:
        """An expression building a new copy of ``value`` (plain JSON data), every level new."""
        kind = type(value)
        if kind is dict:
            return (
                "{"
                + ", ".join(f"{self.build(key)}: {self.build(item)}" for key, item in value.items())
                + "}"
            )
        if kind is list:
            return "[" + ", ".join(self.build(item) for item in value) + "]"
        if kind is str or kind is bool or value is None or kind is int:
            return repr(value)  # a literal: exact for these kinds
        return self.constant(value, "S")  # a float, say (nan has no literal)

    # -- forgetting what an op may have changed

    def drop(self, keep: Callable[[tuple[Part, ...]], bool]) -> None:
        dropped = [prefix for prefix in self.live if not keep(prefix)]
        for prefix in dropped:
            if prefix in self.pending:  # its appends were due before whatever comes next
                self.flush_one(prefix)
        for prefix in dropped:
            del self.live[prefix]

    def drop_under(self, prefix: tuple[Part, ...], itself: bool) -> None:
        size = len(prefix)
        self.drop(lambda other: not (other[:size] == prefix and (itself or len(other) > size)))

    def drop_selections(self, seq: tuple[Part, ...], but: Part | None = None) -> None:
        """Drop the nodes reached through a selector in the list at ``seq`` (but ``but``)."""
        size = len(seq)
        self.drop(
            lambda other: (
                not (
                    len(other) > size
                    and other[:size] == seq
                    and _selector(other[size])
                    and other[size] != but
                )
            )
        )

    def wrote_through(self, parts: tuple[Part, ...]) -> None:
        for index, part in enumerate(parts):
            if _selector(part):
                self.drop_selections(parts[:index], but=part)
            if type(part) is Match and index + 1 < len(parts):
                field = parts[index + 1]
                if type(field) is Key and any(name == field.name for name, _ in part.fields):
                    # a field the selector reads was written: it may match elsewhere now
                    self.drop_under(parts[: index + 1], itself=True)

    # -- the ops

    def flush(self, near: tuple[Part, ...] | None = None, append: bool = False) -> None:
        """Write the pending appends (those an op at ``near`` may read or drop; all for ``None``).

        ``append``: the op appends to the list at ``near``, so may join what is pending there.
        """
        for prefix in list(self.pending):
            if near is not None and ((append and prefix == near) or not _related(prefix, near)):
                continue
            self.flush_one(prefix)

    def flush_one(self, prefix: tuple[Part, ...]) -> None:
        """Write the appends pending for the list at ``prefix``."""
        node, items = self.pending.pop(prefix)
        if node.copied == _NO and node.parent is not None:
            # copy and append in one display: [*old, new...]
            self.writable(node.parent, 1)
            self.emit(
                f"{node.var} = [*{node.var}, {', '.join(items)}]; {node.flag} = True; "
                f"{node.parent.var}[{node.slot}] = {node.var}"
            )
            if self.register:
                self.emit(f"made[id({node.var})] = {node.var}")
            node.copied = _YES
            return
        self.writable(node, 1)
        if len(items) == 1:
            self.emit(f"{node.var}.append({items[0]})")
        else:
            self.emit(f"{node.var}.extend(({', '.join(items)},))")

    def op(self, op: Op) -> None:
        parts = op.parts
        if op.kind == CHECK:
            self.flush()
            check = self.constant(op.payload, "CHECK")
            self.emit(f"{check}(v0)")
            return
        self.flush(parts, append=op.kind == APPEND)
        for size in range(1, op.exists + 1):
            # this far, the path must reach what is there: not what a missing part reads as
            listed = _selector(parts[size]) if size < len(parts) else op.kind == APPEND
            node = self.node(parts[:size], "list" if listed else "dict")
            self.emit(f"if {node.var} is EMPTY_MAP or {node.var} is EMPTY_LIST: return FALLBACK")
        if op.kind == APPEND:
            node = self.node(parts, "list")
            if parts not in self.pending and node.copied != _YES:
                # a missing list is made now, empty, where the step would make it: a key
                # another op adds to the same map later comes after it (dict order is
                # YAML's); the appends themselves wait, to be written in one go
                self.emit(f"if {node.var} is EMPTY_LIST:")
                self.writable(node, 2)
            pending = self.pending.setdefault(parts, (node, []))[1]
            for item, how in op.payload:
                name = self.constant(item, "I")
                if how == "copy":
                    name = f"{name}.copy()"
                elif how == "deep":
                    name = self.build(item)
                pending.append(name)
            self.wrote_through(parts)
            self.drop_under(parts, itself=False)
            return
        if op.kind == MERGE:
            node = self.node(parts, "dict")
            for key, value in op.payload.items():
                self.set_if_different(node, self.constant(key, "K"), Op(MERGE, (), value))
            self.wrote_through(parts)
            self.drop_under(parts, itself=False)
            return
        parent = self.node(parts[:-1], "list" if _selector(parts[-1]) else "dict")
        if op.kind == SET:
            assert type(parts[-1]) is Key
            self.set_if_different(parent, self.constant(parts[-1].name, "K"), op)
        else:
            self.leaf(parent, parts[-1], op)
        self.wrote_through(parts)
        self.drop_under(parts, itself=True)
        if _selector(parts[-1]):
            self.drop_selections(parts[:-1])

    def set_if_different(self, node: _Node, key: str, op: Op) -> None:
        value, how = op.payload if op.kind == SET else (op.payload, "share")
        name, kind = self.constant(value, "V"), self.constant(type(value), "T")
        self.emit(f"old = {node.var}.get({key}, MISSING)")
        if op.missing == FALL_BACK:
            self.emit("if old is MISSING: return FALLBACK")
        if how == "share":  # a scalar
            self.emit(f"if old is not {name} and (type(old) is not {kind} or old != {name}):")
        else:
            self.emit(f"if old is MISSING or not STRICT(old, {name}):")
        self.writable(node, 2)
        new = {"share": name, "copy": f"{name}.copy()"}.get(how) or self.build(value)
        self.emit(f"{node.var}[{key}] = {new}", 2)

    def leaf(self, parent: _Node, part: Part, op: Op) -> None:
        self.uses_owned = True
        leaf = self.constant(op.payload, "LEAF")
        seq = parent.var
        if type(part) is End:
            self.emit("old = MISSING")
            slot = None
        else:
            slot = self.select(parent, part, None)
        call = f"{leaf}(old, False, owned)"
        if op.missing == FALL_BACK or (type(part) is Match and op.extra is None):
            self.emit("if old is MISSING: return FALLBACK")
            self.emit(f"new = {call}")
        elif op.missing == LEAVE:
            self.emit(f"new = old if old is MISSING else {call}")
        else:
            self.emit(f"new = {call}")
        self.emit("if new is not old:")
        if type(part) is Key:
            # a removed key: deleted where it was there
            self.emit("if new is REMOVE:", 2)
            self.emit("if old is not MISSING:", 3)
            self.writable(parent, 4)
            self.emit(f"del {seq}[{slot}]", 4)
            self.emit("elif new is MISSING: return FALLBACK", 2)
            self.emit("else:", 2)
            self.writable(parent, 3)
            self.emit(f"{seq}[{slot}] = new", 3)
            return
        self.emit("if new is REMOVE or new is MISSING: return FALLBACK", 2)
        if type(part) is Match:
            fields = self.constant(op.extra, "FIELDS")
            # no element matched: the new one carries the selector's fields
            self.emit(f"if {slot} is None:", 2)
            self.emit("if type(new) is not dict: return FALLBACK", 3)
            self.emit(f"new = {fields}(new, owned)", 3)
        self.writable(parent, 2)
        if slot is None:
            self.emit(f"{seq}.append(new)", 2)
        elif type(part) is Match:
            self.emit(f"if {slot} is None: {seq}.append(new)", 2)
            self.emit(f"else: {seq}[{slot}] = new", 2)
        else:
            self.emit(f"{seq}[{slot}] = new", 2)


def _related(a: tuple[Part, ...], b: tuple[Part, ...]) -> bool:
    """Whether an op at one path may read or replace what a node at the other stands for.

    So it is when one path leads into the other, or when they part in a list,
    each through its own selector (``[0]`` and ``[name=a]`` may be one element).
    """
    for part_a, part_b in zip(a, b, strict=False):  # the common prefix
        if part_a != part_b:
            return _selector(part_a) and _selector(part_b)
    return True


def plan(transform: Any) -> tuple[Op, ...] | None:
    """What ``transform`` does as fusable ops, or ``None`` where it cannot be fused.

    A composition's plan is its steps' plans in turn (a recipe's is its pod
    check, then its body's), so a chain of recipes fuses into one function:

    >>> from combinators import append_at, chain, expect, for_each, update_at, upsert
    >>> plan(chain(upsert("spec.nodeSelector", {"pool": "a"}), expect("spec.containers[0]"),
    ...            for_each("spec.containers[0]", append_at("args", "-v"))))
    (Op('merge', 'spec.nodeSelector'), Op('check', ''), Op('append', 'spec.containers[0].args'))
    >>> plan(update_at("spec.x", str, default=1)) is None  # a user's function
    True
    """
    describe = getattr(transform, "_fusion_ops", None)
    ops: tuple[Op, ...] | None = describe() if describe is not None else None
    return ops


def source(ops: Sequence[Op], *, register: bool) -> str:
    """The source of the function :func:`fuse` compiles (for reading and tests)."""
    return _write(ops, register)[0]


def _write(ops: Sequence[Op], register: bool) -> tuple[str, dict[str, Any], bool]:
    writer = _Writer(register)
    for op in ops:
        writer.op(op)
    writer.flush()
    writer.emit("return v0")
    return "\n".join(_strip_flags(writer.lines)), writer.names, writer.uses_owned


def _strip_flags(lines: list[str]) -> list[str]:
    """Drop the flags no line ever tests: the writer knew those nodes' state."""
    import re  # here, not on import: only compiling a composition needs it

    tested = set(re.findall(r"if not (c\d+):", "\n".join(lines)))
    setting = re.compile(r"(c\d+) = (?:True|False)")
    out = []
    for line in lines:
        body = line.lstrip()
        kept = [
            statement
            for statement in body.split("; ")
            if not (flag := setting.fullmatch(statement)) or flag.group(1) in tested
        ]
        if kept:
            out.append(line[: len(line) - len(body)] + "; ".join(kept))
    return out


_CODE: dict[tuple[str, int], Any] = {}
_CODE_SIZE = 256


def _compiled(text: str, count: int) -> Any:
    """The code of ``text``: compiled once for every composition of the same shape.

    The source names its values (``K2``, ``V6``...) rather than holding them,
    so compositions of the same edits with other keys and values share it.
    When 256 are kept, all are dropped (one atomic step, safe across threads).
    """
    key = (text, count)
    code = _CODE.get(key)
    if code is None:
        if len(_CODE) >= _CODE_SIZE:
            _CODE.clear()
        code = _CODE[key] = compile(text, f"<fused composition of {count} edits>", "exec")
    return code


MAX_LINES = 40_000
"""The longest source :func:`fuse` compiles (paths 100 parts deep make long lines of copies);
beyond it, the composition runs step by step."""


def fuse(ops: Sequence[Op], *, register: bool) -> FusedFunction | None:
    """Compile ``ops`` into one function ``(doc, owned) -> doc | FALLBACK``.

    The document must be a ``dict``. The function changes in place only the
    copies it makes; ``register`` records them in ``owned`` (so that steps
    run after it may change them in place too). It returns ``FALLBACK``
    where the step-by-step plan must do the work; and it may raise what an
    op's leaf or check raises, which the caller treats the same way. Its
    attribute ``uses_owned`` says whether it reads ``owned`` at all (else
    the caller may pass ``None``). ``None`` where the source would be longer
    than :data:`MAX_LINES`.
    """
    text, names, uses_owned = _write(ops, register)
    if text.count("\n") >= MAX_LINES:
        return None
    exec(_compiled(text, len(ops)), names)  # our source: names and values go through ``names``
    # out of its own globals: a function and its globals holding each other would be a
    # cycle, left for the garbage collector when the composition goes
    fused: FusedFunction = names.pop("fused")
    fused.uses_owned = uses_owned  # type: ignore[attr-defined]
    return fused
