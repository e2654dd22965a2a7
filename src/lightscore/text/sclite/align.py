"""NIST sclite's weighted alignment, tie-breaking included, so S/D/I equal sclite's ``.pra`` counts.

sclite (SCTK ``wwd_WORD``) aligns with costs correct 0, substitution 4,
insertion 3, deletion 3. Its dynamic programme keeps, per cell, the first
cheapest move in the order diagonal (correct or substitution), deletion,
insertion, except that a deletion as cheap as an insertion loses to it; the
backtrace from the last cell then prefers, among the moves that reach a cell
at its optimal cost, a diagonal, then an insertion, then a deletion. So
``x x x y`` against ``x y y`` deletes the *first* ``x``.

Counting is fast without building that backtrace for most pairs. With ``W``
the optimal weighted cost, every optimal alignment has ``4S + 3(D + I) = W``
and ``D - I = len(ref) - len(hyp)``, so its substitution count ``S`` fixes
``D`` and ``I``. Two rapidfuzz distances in C with perturbed weights give the
least and the greatest ``S`` over all optimal alignments (and a unit-cost
distance often proves them equal at once); when they are equal, every optimal
alignment, sclite's among them, has the same counts. Only the other pairs
(ties that split errors differently, rare between words, common between
characters) run the exact programme (`lightscore.text.sclite.traceback`),
vectorised with numpy over a batch, or for a long pair alone in bounded memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np
from rapidfuzz.distance import Levenshtein

from lightscore.text.alignment import Pair
from lightscore.text.counting import Counts, sum_edits
from lightscore.text.sclite.traceback import (
    BLOCK_CELLS,
    CORRECT,
    DEL,
    DELETION,
    INS,
    INSERTION,
    SUB,
    SUBSTITUTION,
    batch_backtrace,
    bounded_backtrace,
    token_ids,
)

__all__ = ["sclite_align", "sclite_counts", "sum_sclite_edits"]

_MARKS = {CORRECT: "C", SUBSTITUTION: "S"}


def sclite_align(ref: Sequence, hyp: Sequence) -> list[Pair]:
    """Align two token sequences as sclite does: ``(ref token, hyp token, mark)`` in reference order.

    Plain twin: `lightscore.text.sclite.reference.align_words`.

    Tokens compare with ``==``; fold case before calling for sclite's default
    (case-insensitive) scoring. Runs the exact programme on every call: for
    reports, not for counting (`sclite_counts` is faster). Memory stays about
    ``2 sqrt(len(ref))`` rows of costs (`lightscore.text.sclite.traceback.bounded_backtrace`),
    not the whole table: a 20,000-word pair needs tens of MB.

    Args:
        ref: reference tokens (a list of words, or a string of characters).
        hyp: hypothesis tokens.

    Returns:
        One ``(ref_token | None, hyp_token | None, mark)`` per aligned position, mark in C, S, D, I.

    >>> sclite_align("x x x y".split(), "x y y".split())
    [('x', None, 'D'), ('x', 'x', 'C'), ('x', 'y', 'S'), ('y', 'y', 'C')]
    >>> sclite_align([], ["a"])
    [(None, 'a', 'I')]
    """
    pairs: list[Pair] = []
    a = b = 0  # the next reference and hypothesis tokens
    for move in reversed(bounded_backtrace(ref, hyp)):
        if move == DELETION:
            pairs.append((ref[a], None, "D"))
            a += 1
        elif move == INSERTION:
            pairs.append((None, hyp[b], "I"))
            b += 1
        else:
            pairs.append((ref[a], hyp[b], _MARKS[move]))
            a, b = a + 1, b + 1
    return pairs


def sclite_counts(ref: Sequence, hyp: Sequence) -> Counts:
    """Return ``(substitutions, deletions, insertions)`` of sclite's alignment of ``ref`` to ``hyp``.

    Plain twin: `lightscore.text.sclite.reference.count_words`.

    Args:
        ref: reference tokens (a list of words, or a string of characters).
        hyp: hypothesis tokens.

    Returns:
        The counts sclite's ``.pra`` ``Scores:`` line gives (its ``#C`` is ``len(ref) - S - D``).

    >>> sclite_counts("x y x y".split(), "y x y x".split())
    (0, 1, 1)
    >>> sclite_counts("abc", ""), sclite_counts("", "ab")
    ((0, 3, 0), (0, 0, 2))
    """
    counts = _unique_counts(ref, hyp)
    return counts if counts is not None else _exact_counts([ref], [hyp])[0]


def sum_sclite_edits(
    refs: Iterable[str], hyps: Iterable[str], tokenize: Callable[[str], Sequence]
) -> tuple[int, int, int, int, int]:
    """Sum ``(substitutions, deletions, insertions, reference tokens, pairs with an error)`` with sclite's alignment.

    Plain twin: `lightscore.text.sclite.reference.count_words`, summed.

    `lightscore.text.counting.sum_edits` with sclite's weighted alignment and
    tie-breaking instead of unit costs: identical texts cost one tokenize, most
    others three rapidfuzz calls in C, and the pairs whose optimal alignments
    disagree on the counts (every such pair has an error) are aligned exactly at
    the end, in numpy batches.

    Args:
        refs: reference texts.
        hyps: hypothesis texts, one per reference.
        tokenize: turns a text into its tokens (a list of words, or a string of characters).

    Returns:
        ``(S, D, I, reference tokens, pairs with at least one error)``.

    >>> sum_sclite_edits(["x x x y", "a dog"], ["x y y", "a dog"], str.split)
    (1, 1, 0, 6, 1)
    """
    return sum_edits(refs, hyps, tokenize, count=_unique_counts, settle=_exact_counts)


def _unique_counts(ref: Sequence, hyp: Sequence) -> Counts | None:
    """``(S, D, I)`` when all optimal sclite alignments share them, else None (sclite's tie-breaking decides).

    With weights ``3M, 3M, 4M + 1`` (M above any possible S) an alignment costs
    ``M * W + S``, so the optimum gives ``W`` and the least ``S``; ``4M - 1``
    gives the greatest. An optimal alignment's unit cost is ``(W - S) / 3``, at
    least the unit distance L, so ``W - 3L`` bounds ``S`` from above: equal to
    the least ``S``, it proves uniqueness with the cheap bit-parallel L.

    >>> _unique_counts("a b".split(), "b".split()), _unique_counts("x a b".split(), "c d x".split())
    ((0, 1, 0), None)
    """
    n, m = len(ref), len(hyp)
    if n == 0 or m == 0:
        return 0, n, m
    scale = min(n, m) + 1
    distance = Levenshtein.distance
    weighted, least = divmod(distance(ref, hyp, weights=(INS * scale, DEL * scale, SUB * scale + 1)), scale)
    if least != weighted - 3 * distance(ref, hyp):
        greatest = scale * weighted - distance(ref, hyp, weights=(INS * scale, DEL * scale, SUB * scale - 1))
        if greatest != least:
            return None
    insertions = (weighted - SUB * least - DEL * (n - m)) // (INS + DEL)
    return least, insertions + n - m, insertions


def _exact_counts(refs: Sequence[Sequence], hyps: Sequence[Sequence]) -> list[Counts]:
    """``(S, D, I)`` of sclite's own backtrace for every pair: short pairs in batches of similar size, long ones alone.

    A pair whose cost table would pass `BLOCK_CELLS` takes the bounded-memory backtrace by itself.
    """
    counts: list[Counts] = [(0, 0, 0)] * len(refs)
    short = []
    for k, (ref, hyp) in enumerate(zip(refs, hyps)):
        if _cells(ref, hyp) > BLOCK_CELLS:
            moves = bounded_backtrace(ref, hyp)
            counts[k] = moves.count(SUBSTITUTION), moves.count(DELETION), moves.count(INSERTION)
        else:
            short.append(k)
    order = sorted(short, key=lambda k: (len(refs[k]), len(hyps[k])))
    start = 0
    while start < len(order):
        stop = start + 1
        # Sorted by size, the batch's last pair is its largest; padding to it wastes little.
        while stop < len(order) and (stop - start + 1) * _cells(refs[order[stop]], hyps[order[stop]]) <= BLOCK_CELLS:
            stop += 1
        batch = order[start:stop]
        ref_ids, hyp_ids = token_ids([refs[k] for k in batch], [hyps[k] for k in batch])
        lengths = [len(refs[k]) for k in batch], [len(hyps[k]) for k in batch]
        path = batch_backtrace(ref_ids, hyp_ids, *lengths)
        tally = [np.count_nonzero(path == code, axis=0).tolist() for code in (SUBSTITUTION, DELETION, INSERTION)]
        for k, s, d, i in zip(batch, *tally):
            counts[k] = s, d, i
        start = stop
    return counts


def _cells(ref: Sequence, hyp: Sequence) -> int:
    return (len(ref) + 1) * (len(hyp) + 1)
