"""Whether a changed place lies under a path that may select (``[*]``, ``[name=x]``).

A change is found at a concrete path (``spec.containers[1].image``); a rule
names places with selectors (``spec.containers[*]``,
``spec.containers[name=trainer]``). :func:`covers` says whether the first lies
at or under the second, looking the selected elements up in the document
before and after the change (an element a change added is only in the
after, one it removed only in the before).

>>> from combinators import path
>>> pod = {"spec": {"containers": [{"name": "trainer"}, {"name": "proxy"}]}}
>>> covers(path("spec.containers[name=proxy]"), path("spec.containers[1].image"), pod, pod)
True
>>> covers(path("spec.containers[name=proxy]"), path("spec.containers[0].image"), pod, pod)
False
>>> covers(path("spec.containers[*]"), path("spec.containers[0]"), pod, pod)
True
"""

from __future__ import annotations

from combinators._typing import TYPE_CHECKING
from combinators.data import MISSING, is_map, is_seq
from combinators.paths import All, Index, Key, Match, Part, Path

if TYPE_CHECKING:
    from typing import Any

__all__ = ("covers",)


def covers(prefix: Path, changed: Path, before: Any, after: Any) -> bool:
    """Whether ``changed`` is ``prefix`` or lies under what it selects (in ``before`` or ``after``).

    The documents are stepped into only where a part of ``prefix`` must look at what
    ``changed`` reached (an index or a ``[name=x]`` against another part): a ``[*]`` or an
    equal part needs no look, so a rule such as ``spec.containers[*].securityContext``
    costs the length of the path, not a scan of the list for each change.
    """
    if len(prefix) > len(changed):
        return False
    olds, news = before, after
    reached = 0  # how many parts of ``changed`` olds and news have stepped through
    parts = changed.parts
    for at, (wanted, part) in enumerate(zip(prefix.parts, parts, strict=False)):
        if wanted == part or (isinstance(wanted, All) and not isinstance(part, Key)):
            continue
        if isinstance(wanted, Key) or isinstance(part, Key):
            return False
        for passed in parts[reached:at]:
            olds, news = _step(olds, passed), _step(news, passed)
        old, new = _step(olds, part), _step(news, part)
        if not _selects(wanted, part, ((olds, old), (news, new))):
            return False
        olds, news, reached = old, new, at + 1
    return True


def _step(doc: Any, part: Part) -> Any:
    if isinstance(part, Key):
        return doc.get(part.name, MISSING) if is_map(doc) else MISSING
    if isinstance(part, Index):
        return doc[part.index] if is_seq(doc) and -len(doc) <= part.index < len(doc) else MISSING
    if isinstance(part, Match) and is_seq(doc):
        return next((element for element in doc if part.matches(element)), MISSING)
    return MISSING


def _selects(wanted: Part, part: Part, sides: tuple[tuple[Any, Any], ...]) -> bool:
    """Whether the prefix's ``wanted`` selects what the changed path's ``part`` reached."""
    if wanted == part:
        return True
    if isinstance(wanted, Key) or isinstance(part, Key):
        return False
    if isinstance(wanted, All):
        return True
    for parent, element in sides:
        if element is MISSING or not is_seq(parent):
            continue
        if isinstance(wanted, Match) and wanted.matches(element):
            return True
        if (
            isinstance(wanted, Index)
            and -len(parent) <= wanted.index < len(parent)
            and parent[wanted.index] is element
        ):
            return True
    return False
