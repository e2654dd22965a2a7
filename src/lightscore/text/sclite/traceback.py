"""sclite's dynamic programme and backtrace: for a batch of small pairs, or one pair in bounded memory.

The costs are sclite's (SCTK ``wwd_WORD``): correct 0, substitution 4,
insertion 3, deletion 3. The backtrace from the last cell takes, among the
moves that reach a cell at its optimal cost, a diagonal, then an insertion,
then a deletion: the choice sclite's forward pass stores, read back from the
costs. Since a move depends only on the optimal costs of a cell and of its
neighbours, any programme that reproduces those costs exactly reproduces
sclite's alignment, tie-breaking included.

Two ways to walk it back:

- `batch_backtrace`: every pair of a batch at once, over whole cost tables
  (numpy, quadratic memory): for the many short pairs of a corpus.
- `bounded_backtrace`: one pair, keeping only every k-th row of its cost table
  (checkpoints, k about the square root of the reference length) and
  recomputing one block of k rows at a time, last block first, while the walk
  goes through it. Peak memory is about ``(2 sqrt(n) + 2) (m + 1)`` int32 costs
  (or one 16 MB block, whichever is larger) instead of ``(n + 1)(m + 1)``; the
  programme runs about one and a half times (the walk back recomputes only
  the columns left of the path).
"""

from __future__ import annotations

from collections.abc import Sequence
from math import isqrt

import numpy as np

from lightscore.text.dp_rows import close_row

__all__ = ["BLOCK_CELLS", "batch_backtrace", "bounded_backtrace", "cost_table", "token_ids"]

SUB, INS, DEL = 4, 3, 3  # sclite's wwd_WORD costs; a correct token costs 0
CORRECT, SUBSTITUTION, DELETION, INSERTION = 1, 2, 3, 4  # move codes; 0 = the path has ended
BLOCK_CELLS = 4_000_000  # cost cells held at once (a batch, or one block of a long pair): about 16 MB of int32


def token_ids(refs: Sequence[Sequence], hyps: Sequence[Sequence]) -> tuple[np.ndarray, np.ndarray]:
    """Tokens as integers, equal exactly where the tokens are ``==``, padded to one width with distinct values.

    Strings of characters become their code points without a Python loop per character.

    Args:
        refs: reference token sequences (lists of words, or strings of characters).
        hyps: hypothesis token sequences, one per reference.

    Returns:
        ``(ref_ids, hyp_ids)``, int32 arrays of shape ``(pairs, longest or 1)``; padding is -1 and -2.

    >>> token_ids([["a", "b"]], [["b"]])
    (array([[0, 1]], dtype=int32), array([[1]], dtype=int32))
    """
    vocabulary: dict = {}
    ids = vocabulary.setdefault
    characters = all(isinstance(text, str) for text in (*refs, *hyps))
    tables = []
    for texts, pad in ((refs, -1), (hyps, -2)):
        # At least one column, so the batch backtrace may look one token back from an empty side.
        table = np.full((len(texts), max([1, *map(len, texts)])), pad, dtype=np.int32)
        for row, tokens in zip(table, texts):
            if characters:
                row[: len(tokens)] = np.frombuffer(tokens.encode("utf-32-le"), dtype=np.int32)
            else:
                row[: len(tokens)] = [ids(token, len(vocabulary)) for token in tokens]
        tables.append(table)
    return tables[0], tables[1]


def cost_table(ref_ids: np.ndarray, hyp_ids: np.ndarray, top: np.ndarray | None = None, first: int = 0) -> np.ndarray:
    """sclite's cumulative costs ``D[pair, a, b]`` of aligning ``ref[:first + a]`` to ``hyp[:b]``.

    Within a row the insertion move chains, ``D[a, b] = min(X[b], D[a, b-1] + 3)``
    with X the better of substitution and deletion: `lightscore.text.dp_rows.close_row`
    closes it with one running minimum.

    Plain twin: `lightscore.text.sclite.reference.word_costs`.

    Args:
        ref_ids: ``(pairs, n)`` reference token ids: the tokens ``first`` to ``first + n``.
        hyp_ids: ``(pairs, m)`` hypothesis token ids.
        top: the cost row of ``ref[:first]``, ``(pairs, m + 1)`` (default: row 0, insertions only).
        first: how many reference tokens come before ``ref_ids``.

    Returns:
        ``(pairs, n + 1, m + 1)`` int32 costs, ``top`` as its first row.

    >>> cost_table(np.array([[0, 1]]), np.array([[1]]))[0].tolist()
    [[0, 3], [3, 4], [6, 3]]
    >>> cost_table(np.array([[1]]), np.array([[1]]), top=np.array([[3, 4]]), first=1)[0].tolist()
    [[3, 4], [6, 3]]
    """
    pairs, n = ref_ids.shape
    m = hyp_ids.shape[1]
    table = np.empty((pairs, n + 1, m + 1), dtype=np.int32)
    steps = INS * np.arange(m + 1, dtype=np.int32)
    table[:, 0, :] = steps if top is None else top
    for a in range(1, n + 1):
        above = table[:, a - 1]
        # int8 costs keep the sums in int32: no int64 temporaries in the hot loop.
        substitution = above[:, :-1] + (hyp_ids != ref_ids[:, a - 1 : a]).view(np.int8) * np.int8(SUB)
        row = table[:, a]
        row[:, 0] = DEL * (first + a)
        row[:, 1:] = np.minimum(substitution, above[:, 1:] + DEL)
        close_row(row, steps, out=row)
    return table


def _moves_at(
    table: np.ndarray, ref_ids: np.ndarray, hyp_ids: np.ndarray, pair: np.ndarray, a: np.ndarray, b: np.ndarray
) -> np.ndarray:
    """sclite's backtrace move out of cells ``[pair, a, b]``: a move code, 0 at the origin.

    The first move, in the order diagonal, insertion, deletion, that reaches the
    cell at its optimal cost. The first row can only insert, the first column delete.
    """
    a_before, b_before = np.maximum(a - 1, 0), np.maximum(b - 1, 0)
    here = table[pair, a, b]
    same = ref_ids[pair, a_before] == hyp_ids[pair, b_before]
    inner = (a > 0) & (b > 0)
    diagonal = inner & (table[pair, a_before, b_before] + np.where(same, 0, SUB) == here)
    insertion = (b > 0) & (table[pair, a, b_before] + INS == here)
    fallback = np.where(insertion, INSERTION, np.where(a > 0, DELETION, 0))
    return np.where(diagonal, np.where(same, CORRECT, SUBSTITUTION), fallback)


# How far each move code steps back in the reference and in the hypothesis.
_REF_STEP = np.array([0, 1, 1, 1, 0])
_HYP_STEP = np.array([0, 1, 1, 0, 1])


def batch_backtrace(
    ref_ids: np.ndarray, hyp_ids: np.ndarray, ref_lens: Sequence[int], hyp_lens: Sequence[int]
) -> np.ndarray:
    """Walk every pair of a batch back from its last cell at once, over whole cost tables.

    Plain twin: `lightscore.text.sclite.reference.align_words`.

    Args:
        ref_ids: ``(pairs, width)`` reference token ids from `token_ids`.
        hyp_ids: ``(pairs, width)`` hypothesis token ids.
        ref_lens: each pair's reference length.
        hyp_lens: each pair's hypothesis length.

    Returns:
        ``path[step, pair]`` move codes, last move first, 0 once a pair is done.

    >>> batch_backtrace(*token_ids([["x", "x", "x", "y"]], [["x", "y", "y"]]), [4], [3])[:, 0].tolist()
    [1, 2, 1, 3, 0, 0, 0]
    """
    table = cost_table(ref_ids, hyp_ids)
    pair = np.arange(table.shape[0])
    a, b = np.array(ref_lens, dtype=np.int64), np.array(hyp_lens, dtype=np.int64)
    path = np.zeros((max(a + b, default=0), len(pair)), dtype=np.int8)
    for step in range(path.shape[0]):
        path[step] = code = _moves_at(table, ref_ids, hyp_ids, pair, a, b)
        a -= _REF_STEP[code]
        b -= _HYP_STEP[code]
    return path


def bounded_backtrace(ref: Sequence, hyp: Sequence, block_rows: int | None = None) -> bytearray:
    """sclite's backtrace of one pair, last move first, holding a few rows of its cost table at a time.

    Plain twin: `lightscore.text.sclite.reference.align_words`.

    Args:
        ref: reference tokens (a list of words, or a string of characters).
        hyp: hypothesis tokens.
        block_rows: reference tokens per recomputed block (default: about ``sqrt(len(ref))``, more
            while a block stays under `BLOCK_CELLS`, so a short pair is one block).

    Returns:
        One move code per aligned position, last position first.

    >>> list(bounded_backtrace("x x x y".split(), "x y y".split(), block_rows=1))
    [1, 2, 1, 3]
    >>> list(bounded_backtrace([], ["a", "b"]))
    [4, 4]
    """
    ref_ids, hyp_ids = token_ids([ref], [hyp])
    n, m = len(ref), len(hyp)
    ref_ids, hyp_ids = ref_ids[:, :n], hyp_ids[:, :m]
    rows = block_rows or max(isqrt(n) + 1, BLOCK_CELLS // (m + 1))
    starts = range(0, max(n, 1), rows)
    tops = [None]  # the cost row above each block; row 0 needs none
    for start in starts[:-1]:
        tops.append(cost_table(ref_ids[:, start : start + rows], hyp_ids, tops[-1], start)[:, -1].copy())
    moves = bytearray()
    b = m
    ref_list, hyp_list = ref_ids[0].tolist(), hyp_ids[0].tolist()
    for start, top in zip(reversed(starts), reversed(tops)):
        # The walk only moves left: columns past b are not needed, and a cell depends on none to its right.
        top = None if top is None else top[:, : b + 1]
        block = cost_table(ref_ids[:, start : start + rows], hyp_ids[:, :b], top, start)[0]
        b = _walk_block(block, start, min(start + rows, n), b, ref_list, hyp_list, moves)
        del block  # freed before the next block is filled: one block at a time
    moves.extend(bytes([INSERTION]) * b)  # row 0: only insertions are left
    return moves


def _walk_block(block: np.ndarray, start: int, a: int, b: int, ref: list, hyp: list, moves: bytearray) -> int:
    """Walk from cell ``(a, b)`` up to row ``start`` of ``block`` (rows ``start..``); return the column reached.

    The same rule as `_moves_at`, one cell at a time: a long pair's path is too
    narrow to vectorise, and reading single costs keeps the block in numpy.
    """
    cost = block.item
    while a > start:
        row = a - start
        here = cost(row, b)
        if b:
            same = ref[a - 1] == hyp[b - 1]
            if cost(row - 1, b - 1) + (0 if same else SUB) == here:
                moves.append(CORRECT if same else SUBSTITUTION)
                a, b = a - 1, b - 1
                continue
            if cost(row, b - 1) + INS == here:
                moves.append(INSERTION)
                b -= 1
                continue
        moves.append(DELETION)
        a -= 1
    return b
