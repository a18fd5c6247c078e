"""Near misses: the names a word most likely meant, and the one way a message offers them.

Every "did you mean" podfold writes comes from here: :func:`near_misses`
chooses the names by one policy, :func:`did_you_mean` writes them in one
spelling.

>>> near = near_misses("nodeSelectr", ["nodeSelector", "tolerations"])
>>> near, did_you_mean(near)
(('nodeSelector',), '; did you mean nodeSelector?')
>>> near_misses("GPU", ["gpu", "tpu"])
('gpu',)
"""

from __future__ import annotations

from combinators._typing import TYPE_CHECKING
from combinators.limits import MAX_LISTED, MAX_NAME, short_repr

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

__all__ = ("near_misses", "did_you_mean", "CUTOFF", "MAX_CLOSE")

CUTOFF = 0.6
"""How alike (:meth:`difflib.SequenceMatcher.ratio`, from 0 to 1) a candidate's
spelling and the word's must be, both case-folded, for the candidate to be a
near miss: difflib's own default."""

MAX_CLOSE = 256
"""The longest word :func:`near_misses` compares, in characters."""


def near_misses(word: str, candidates: Iterable[str], *, n: int = 3) -> tuple[str, ...]:
    """The ``candidates`` that ``word`` most likely meant, best first, at most ``n``.

    The one policy of every near miss:

    1. the same word in another case (``GPU`` for ``gpu``, ``A100`` for
       ``a100``) is always what was meant: where candidates are, they alone
       are the near misses, in the order of ``candidates``;
    2. otherwise the candidates spelled alike, case aside: those whose
       case-folded spelling is at least :data:`CUTOFF` alike the word's.
       First those that begin with the word or that it begins with (a name
       cut short, ``nvidia-a100`` for ``nvidia-a100-80gb``, or given a tail,
       ``errors`` for ``error``), then the others; in each, the most alike
       first, equally alike ones in the order of ``candidates``.

    A word or a candidate longer than :data:`MAX_CLOSE` characters is no typo
    of a name (Kubernetes' longest are 253): it is not compared, so a hostile
    name costs no quadratic matching. :mod:`difflib` is imported by the first
    word that needs it, not by ``import combinators``.

    >>> near_misses("A100", ["a100-40gb", "a100", "h100"])
    ('a100',)
    >>> near_misses("strict", ["baseline", "restricted"])
    ('restricted',)
    >>> near_misses("trainr", ["trainer-1", "trainer-0", "sidecar"])
    ('trainer-1', 'trainer-0')
    >>> near_misses("nvidia-a100", ["nvidia-b200", "nvidia-a100-80gb"])
    ('nvidia-a100-80gb', 'nvidia-b200')
    >>> near_misses("zzz", ["nodeSelector"])
    ()
    >>> near_misses("x" * 100_000, ["x" * 100_001])
    ()
    """
    if n < 1 or len(word) > MAX_CLOSE:
        return ()
    spellings: dict[str, list[str]] = {}  # case-folded spelling -> the candidates, in order
    for candidate in candidates:
        if len(candidate) <= MAX_CLOSE:
            spelled = spellings.setdefault(candidate.casefold(), [])
            if candidate not in spelled:
                spelled.append(candidate)
    folded = word.casefold()
    if folded in spellings:
        return tuple(spellings[folded][:n])
    import difflib

    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(folded)
    alike: list[tuple[bool, float, int, str]] = []
    for order, spelling in enumerate(spellings):
        matcher.set_seq1(spelling)
        # the cheap upper bounds first, as difflib.get_close_matches does
        if matcher.real_quick_ratio() >= CUTOFF and matcher.quick_ratio() >= CUTOFF:
            ratio = matcher.ratio()
            if ratio >= CUTOFF:
                cut = spelling.startswith(folded) or folded.startswith(spelling)
                alike.append((not cut, -ratio, order, spelling))
    alike.sort()
    return tuple(name for *_, spelling in alike for name in spellings[spelling])[:n]


def did_you_mean(near: Sequence[str]) -> str:
    """The clause a message ends a name with to offer the ``near`` misses;
    ``""`` for none.

    Each name is written at most :data:`~combinators.limits.MAX_NAME`
    characters long, and at most :data:`~combinators.limits.MAX_LISTED` of
    them, as :func:`~combinators.limits.short_names` lists names.

    >>> did_you_mean(("nodeSelector",))
    '; did you mean nodeSelector?'
    >>> did_you_mean(("warn", "error"))
    '; did you mean warn or error?'
    >>> did_you_mean(("host-ports", "host-probes", "host-process"))
    '; did you mean host-ports, host-probes or host-process?'
    >>> did_you_mean(())
    ''
    """
    names = [short_repr(name, MAX_NAME, quoted=False) for name in near[:MAX_LISTED]]
    if not names:
        return ""
    more = len(near) - len(names)
    last = f"one of {more:,} more" if more else names.pop()
    return "; did you mean " + ", ".join(names) + (" or " if names else "") + last + "?"
