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
characters) run the exact programme, vectorised with numpy over a batch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np
from rapidfuzz.distance import Levenshtein

from lightscore.text.alignment import Pair
from lightscore.text.counting import Counts, sum_edits

__all__ = ["sclite_align", "sclite_counts", "sum_sclite_edits"]

SUB, INS, DEL = 4, 3, 3  # sclite's wwd_WORD costs; a correct token costs 0
_CORRECT, _SUBSTITUTION, _DELETION, _INSERTION = 1, 2, 3, 4  # move codes; 0 = the path has ended
_BATCH_CELLS = 4_000_000  # DP cells per numpy batch of tied pairs: about 16 MB of int32


def sclite_align(ref: Sequence, hyp: Sequence) -> list[Pair]:
    """Align two token sequences as sclite does: ``(ref token, hyp token, mark)`` in reference order.

    Tokens compare with ``==``; fold case before calling for sclite's default
    (case-insensitive) scoring. Runs the exact programme on every call: for
    reports, not for counting (`sclite_counts` is faster).

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
    ref_ids, hyp_ids = _token_ids([ref], [hyp])
    # Every cell's move at once (numpy), then a walk in Python: one pair's path is too short to vectorise.
    a_grid, b_grid = np.indices((len(ref) + 1, len(hyp) + 1))
    moves = _moves_at(_cost_table(ref_ids, hyp_ids), ref_ids, hyp_ids, 0, a_grid, b_grid).tolist()
    pairs: list[Pair] = []
    a, b = len(ref), len(hyp)
    while a or b:
        move = moves[a][b]
        if move == _DELETION:
            a -= 1
            pairs.append((ref[a], None, "D"))
        elif move == _INSERTION:
            b -= 1
            pairs.append((None, hyp[b], "I"))
        else:
            a, b = a - 1, b - 1
            pairs.append((ref[a], hyp[b], "C" if move == _CORRECT else "S"))
    pairs.reverse()
    return pairs


def sclite_counts(ref: Sequence, hyp: Sequence) -> Counts:
    """Return ``(substitutions, deletions, insertions)`` of sclite's alignment of ``ref`` to ``hyp``.

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
    """``(S, D, I)`` of sclite's own backtrace for every pair, in batches of pairs of similar size."""
    counts: list[Counts] = [(0, 0, 0)] * len(refs)
    order = sorted(range(len(refs)), key=lambda k: (len(refs[k]), len(hyps[k])))
    start = 0
    while start < len(order):
        stop = start + 1
        # Sorted by size, the batch's last pair is its largest; padding to it wastes little.
        while stop < len(order) and (stop - start + 1) * _cells(refs[order[stop]], hyps[order[stop]]) <= _BATCH_CELLS:
            stop += 1
        batch = order[start:stop]
        ref_ids, hyp_ids = _token_ids([refs[k] for k in batch], [hyps[k] for k in batch])
        lengths = [len(refs[k]) for k in batch], [len(hyps[k]) for k in batch]
        path = _backtrace(_cost_table(ref_ids, hyp_ids), ref_ids, hyp_ids, *lengths)
        tally = [np.count_nonzero(path == code, axis=0).tolist() for code in (_SUBSTITUTION, _DELETION, _INSERTION)]
        for k, s, d, i in zip(batch, *tally):
            counts[k] = s, d, i
        start = stop
    return counts


def _cells(ref: Sequence, hyp: Sequence) -> int:
    return (len(ref) + 1) * (len(hyp) + 1)


def _token_ids(refs: Sequence[Sequence], hyps: Sequence[Sequence]) -> tuple[np.ndarray, np.ndarray]:
    """Tokens as integers, equal exactly where the tokens are ``==``, padded to one width with distinct values.

    Strings of characters become their code points without a Python loop per character.
    """
    vocabulary: dict = {}
    ids = vocabulary.setdefault
    characters = all(isinstance(text, str) for text in (*refs, *hyps))
    tables = []
    for texts, pad in ((refs, -1), (hyps, -2)):
        # At least one column, so the backtrace may look one token back from an empty side.
        table = np.full((len(texts), max([1, *map(len, texts)])), pad, dtype=np.int32)
        for row, tokens in zip(table, texts):
            if characters:
                row[: len(tokens)] = np.frombuffer(tokens.encode("utf-32-le"), dtype=np.int32)
            else:
                row[: len(tokens)] = [ids(token, len(vocabulary)) for token in tokens]
        tables.append(table)
    return tables[0], tables[1]


def _cost_table(ref_ids: np.ndarray, hyp_ids: np.ndarray) -> np.ndarray:
    """sclite's cumulative cost ``D[pair, a, b]`` of aligning ``ref[:a]`` to ``hyp[:b]``, one reference token a step.

    Within a row the insertion move chains, ``D[a, b] = min(X[b], D[a, b-1] + 3)``
    with X the better of substitution and deletion; subtracting ``3b`` turns
    that chain into a running minimum, which numpy computes in one call.
    """
    pairs, n = ref_ids.shape
    m = hyp_ids.shape[1]
    table = np.empty((pairs, n + 1, m + 1), dtype=np.int32)
    steps = INS * np.arange(m + 1, dtype=np.int32)
    table[:, 0, :] = steps
    for a in range(1, n + 1):
        above = table[:, a - 1]
        # int8 costs keep the sums in int32: no int64 temporaries in the hot loop.
        substitution = above[:, :-1] + (hyp_ids != ref_ids[:, a - 1 : a]).view(np.int8) * np.int8(SUB)
        row = table[:, a]
        row[:, 0] = DEL * a
        row[:, 1:] = np.minimum(substitution, above[:, 1:] + DEL) - steps[1:]
        np.minimum.accumulate(row, axis=1, out=row)
        row += steps
    return table


def _moves_at(
    table: np.ndarray, ref_ids: np.ndarray, hyp_ids: np.ndarray, pair: np.ndarray, a: np.ndarray, b: np.ndarray
) -> np.ndarray:
    """sclite's backtrace move out of cells ``[pair, a, b]``: a move code, 0 at the origin.

    The first move, in the order diagonal, insertion, deletion, that reaches the
    cell at its optimal cost: the choice sclite's forward pass stored, read
    back from the costs. The first row can only insert, the first column delete.
    """
    a_before, b_before = np.maximum(a - 1, 0), np.maximum(b - 1, 0)
    here = table[pair, a, b]
    same = ref_ids[pair, a_before] == hyp_ids[pair, b_before]
    inner = (a > 0) & (b > 0)
    diagonal = inner & (table[pair, a_before, b_before] + np.where(same, 0, SUB) == here)
    insertion = (b > 0) & (table[pair, a, b_before] + INS == here)
    fallback = np.where(insertion, _INSERTION, np.where(a > 0, _DELETION, 0))
    return np.where(diagonal, np.where(same, _CORRECT, _SUBSTITUTION), fallback)


# How far each move code steps back in the reference and in the hypothesis.
_REF_STEP = np.array([0, 1, 1, 1, 0])
_HYP_STEP = np.array([0, 1, 1, 0, 1])


def _backtrace(
    table: np.ndarray, ref_ids: np.ndarray, hyp_ids: np.ndarray, ref_lens: Sequence[int], hyp_lens: Sequence[int]
) -> np.ndarray:
    """Walk every pair back from its last cell at once: ``path[step, pair]`` move codes, 0 once a pair is done."""
    pair = np.arange(table.shape[0])
    a, b = np.array(ref_lens, dtype=np.int64), np.array(hyp_lens, dtype=np.int64)
    path = np.zeros((max(a + b, default=0), len(pair)), dtype=np.int8)
    for step in range(path.shape[0]):
        path[step] = code = _moves_at(table, ref_ids, hyp_ids, pair, a, b)
        a -= _REF_STEP[code]
        b -= _HYP_STEP[code]
    return path
