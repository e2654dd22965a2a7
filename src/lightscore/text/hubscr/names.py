"""What sclite makes of an stm/ctm pair's conversation names that no faithful number comes out of: refused.

sclite folds names as it folds text, so two conversations whose names differ only in case become
one (and get their words out of time order); and it stops at a ctm conversation the stm lacks.
Each refusal is an `lightscore.text.hubscr.stm_ctm.StmCtmError` naming the file, the line and the names.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from lightscore.text.hubscr.stm_ctm import CONVERSATION, Key, StmCtmError, StmSegment

__all__ = ["check_ctm_conversations", "check_ctm_names", "check_stm_names"]


def check_stm_names(segments: list[StmSegment], folded: dict[Key, Key], stm: str | os.PathLike) -> None:
    """Refuse two conversations of ``segments`` whose names fold alike (``folded``: each name, folded).

    Raises:
        StmCtmError: naming the first line of the second conversation (`_case_clash`).

    >>> a, b = StmSegment("sw1", "A", "s", 0, 1, "", "x", 1), StmSegment("SW1", "A", "s", 2, 3, "", "y", 2)
    >>> check_stm_names([a, b], {("sw1", "A"): ("sw1", "a"), ("SW1", "A"): ("sw1", "a")}, "ref.stm")
    Traceback (most recent call last):
    lightscore.text.hubscr.stm_ctm.StmCtmError: ref.stm line 2: conversation 'SW1 A' and 'sw1 A' differ ...
    """
    _refuse_clash(folded, segments, stm, lambda key: next(s.line for s in segments if CONVERSATION(s) == key))


def check_ctm_names(folded: dict[Key, Key], ctm: str | os.PathLike, encoding: str) -> None:
    """`check_stm_names` for the conversations of a ctm file (``folded``: each name, folded, in file order)."""
    _refuse_clash(folded, folded, ctm, lambda key: _first_ctm_line(ctm, encoding, key))


def check_ctm_conversations(
    folded: dict[Key, Key], references: Iterable[Key], ctm: str | os.PathLike, stm: str | os.PathLike, encoding: str
) -> None:
    """Refuse a ctm conversation the stm has no segment of: sclite stops there ("Hyp file has more data than ref
    file"), and scoring without it would lose its words.

    Args:
        folded: The ctm's conversations, each with its folded name, in file order.
        references: The stm's conversations, folded.
        ctm, stm: The files, for the message; encoding: the ctm's.

    Raises:
        StmCtmError: naming the ctm, the conversation's first line, the conversation and the stm.
    """
    known = set(references)
    for key, name in folded.items():
        if name not in known:
            raise StmCtmError(
                f"{os.fspath(ctm)} line {_first_ctm_line(ctm, encoding, key)}: conversation {' '.join(key)!r} has "
                f"hypothesis words but {os.fspath(stm)} has no segment of it (sclite stops here too)"
            )


def _first_ctm_line(ctm: str | os.PathLike, encoding: str, key: Key) -> int:
    """The number of the first line of conversation ``key`` in the ctm file (0: none)."""
    with open(ctm, encoding=encoding) as f:
        return next((number for number, text in enumerate(f, 1) if tuple(text.split()[:2]) == key), 0)


def _refuse_clash(
    folded: dict[Key, Key], order: Iterable, path: str | os.PathLike, line_of: Callable[[Key], int]
) -> None:
    """Raise `StmCtmError` at ``path``'s line ``line_of(key)`` when two names in ``folded`` fold alike."""
    if len(set(folded.values())) < len(folded):
        key, other = _case_clash(order, folded)
        raise StmCtmError(f"{os.fspath(path)} line {line_of(key)}: {_clash_message(key, other)}")


def _case_clash(order: Iterable, folded: dict[Key, Key]) -> tuple[Key, Key]:
    """The first conversation in ``order`` whose folded name an earlier one has, and that earlier one.

    sclite merges such conversations and then gives their words to segments in its sort order, not by
    time (checked against ``sctk hubscr``): no number equal to its own comes out, so they are refused.

    >>> _case_clash([("sw1", "A"), ("sw2", "A"), ("SW1", "A")], {k: (k[0].lower(), k[1]) for k in [("sw1", "A"),
    ...     ("sw2", "A"), ("SW1", "A")]})
    (('SW1', 'A'), ('sw1', 'A'))
    """
    first: dict[Key, Key] = {}
    for item in order:
        key = CONVERSATION(item)
        other = first.setdefault(folded[key], key)
        if other != key:
            return key, other
    raise ValueError("no two names fold alike")


def _clash_message(key: Key, other: Key) -> str:
    return (
        f"conversation {' '.join(key)!r} and {' '.join(other)!r} differ only in case; sclite folds them into one and "
        "gives its words to segments in its sort order, not by time: rename one"
    )
