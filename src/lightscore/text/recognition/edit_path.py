"""One least-cost edit path between two token lists, with the pair cost given and the ties broken in a fixed order.

Punctuation and case scoring needs the *path*, not just the distance: which reference token was paired with
which hypothesis token decides whether a mark counts as correct, substituted, deleted or inserted. rapidfuzz
(`lightscore.text.alignment.align`) picks its own path among equal-cost ones and takes unit costs only; this
takes any pair costs and breaks ties as NeMo's punctuation error rate does (a diagonal step first, then an
insertion, then a deletion, walking back from the end), so the counts are the ones its definition gives.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from lightscore.text.dp_rows import close_row

__all__ = ["edit_path", "edit_paths", "walk_back"]


def edit_path(pair: Sequence[Sequence[int]], n_hyp: int, gap: int = 1) -> list[tuple[int, int]]:
    """The ``(ref index, hyp index)`` pairs of a least-cost path; an index of -1 marks a gap.

    The plain twin of `edit_paths` (the table filled cell by cell).

    Args:
        pair: ``pair[i][j]``, the cost of pairing reference token ``i`` with hypothesis token ``j`` (0: a match).
        n_hyp: The number of hypothesis tokens (``pair`` has no row to tell when there is no reference token).
        gap: The cost of a deletion or an insertion.

    Returns:
        The path in reading order: ``(i, j)`` a pair, ``(i, -1)`` a deletion, ``(-1, j)`` an insertion.

    Walking back from the end, a step is taken diagonally when that is optimal, else as an insertion,
    else as a deletion (NeMo's ``OccurancePunctuationErrorRate`` order).

    >>> ref, hyp = "a b c".split(), "a c d".split()
    >>> edit_path([[int(r != h) for h in hyp] for r in ref], 3)
    [(0, 0), (1, 1), (2, 2)]
    >>> edit_path([[0], [0]], 1)
    [(0, -1), (1, 0)]
    """
    cost = [[j * gap for j in range(n_hyp + 1)]]
    for i, costs in enumerate(pair, 1):
        above = cost[-1]
        left = i * gap
        row = [left]
        for j in range(n_hyp):
            best = above[j] + costs[j]
            if left + gap < best:
                best = left + gap
            if above[j + 1] + gap < best:
                best = above[j + 1] + gap
            row.append(best)
            left = best
        cost.append(row)
    return walk_back(cost, pair, gap)


def walk_back(cost: Sequence[Sequence[int]], pair: Sequence[Sequence[int]], gap: int) -> list[tuple[int, int]]:
    """The path through a filled cost table, from its last cell back: diagonal, else insertion, else deletion.

    Args:
        cost: The ``(n_ref + 1) x (n_hyp + 1)`` table of least costs.
        pair: The pair costs the table was filled with.
        gap: The cost of a deletion or an insertion.

    >>> walk_back([[0, 1], [1, 0]], [[0]], 1)
    [(0, 0)]
    """
    path: list[tuple[int, int]] = []
    i, j = len(cost) - 1, len(cost[0]) - 1
    while i > 0 or j > 0:
        here = cost[i][j]
        if i > 0 and j > 0 and here == cost[i - 1][j - 1] + pair[i - 1][j - 1]:
            i, j = i - 1, j - 1
            path.append((i, j))
        elif j > 0 and here == cost[i][j - 1] + gap:
            j -= 1
            path.append((-1, j))
        else:
            i -= 1
            path.append((i, -1))
    path.reverse()
    return path


def _groups(order: list[int], pairs: Sequence[np.ndarray], group: int, cells: int) -> Iterator[list[int]]:
    """Runs of ``order`` of at most ``group`` utterances whose padded tables hold at most ``cells`` cells
    (one longer utterance alone), so memory stays bounded whatever the batch holds."""
    members: list[int] = []
    rows = cols = 0
    for k in order:
        n, m = pairs[k].shape
        wider_rows, wider_cols = max(rows, n), max(cols, m)
        if members and (len(members) >= group or (len(members) + 1) * (wider_rows + 1) * (wider_cols + 1) > cells):
            yield members
            members, wider_rows, wider_cols = [], n, m
        members.append(k)
        rows, cols = wider_rows, wider_cols
    if members:
        yield members


def edit_paths(
    pairs: Sequence[np.ndarray], gap: int = 1, group: int = 256, cells: int = 2_000_000
) -> list[list[tuple[int, int]]]:
    """`edit_path` of many utterances: the cost tables filled a row at a time for a group of utterances at once.

    Fast path; plain twin: `edit_path` (tests/test_punctuation_case.py holds them equal). The utterances are
    sorted by size and padded to their group's largest: a cell depends only on cells above and to its left,
    so the padding never changes a cell inside an utterance's own table.

    Args:
        pairs: Per utterance, its ``n_ref x n_hyp`` integer array of pair costs.
        gap: The cost of a deletion or an insertion.
        group: How many utterances share one padded table at most.
        cells: How many cells a group's padded table holds at most (about 16 bytes each).

    Returns:
        Each utterance's path, in the order given.

    >>> edit_paths([np.array([[0, 1], [1, 1]]), np.zeros((0, 2), dtype=int)])
    [[(0, 0), (1, 1)], [(-1, 0), (-1, 1)]]
    >>> edit_paths([np.array([[0, 1], [1, 1]]), np.zeros((0, 2), dtype=int)], cells=9)  # one table per group
    [[(0, 0), (1, 1)], [(-1, 0), (-1, 1)]]
    """
    paths: list[list[tuple[int, int]]] = [[] for _ in pairs]
    order = sorted(range(len(pairs)), key=lambda k: pairs[k].shape)
    for members in _groups(order, pairs, group, cells):
        rows = max(pairs[k].shape[0] for k in members)
        cols = max(pairs[k].shape[1] for k in members)
        padded = np.zeros((len(members), rows, cols), dtype=np.int64)
        for b, k in enumerate(members):
            padded[b, : pairs[k].shape[0], : pairs[k].shape[1]] = pairs[k]
        steps = np.arange(cols + 1, dtype=np.int64) * gap
        cost = np.empty((len(members), rows + 1, cols + 1), dtype=np.int64)
        cost[:, 0, :] = steps
        for i in range(1, rows + 1):
            above, row = cost[:, i - 1, :], cost[:, i, :]
            np.minimum(above[:, :-1] + padded[:, i - 1, :], above[:, 1:] + gap, out=row[:, 1:])
            row[:, 0] = i * gap
            close_row(row, steps, out=row)
        for b, k in enumerate(members):
            n, m = pairs[k].shape
            paths[k] = walk_back(cost[b, : n + 1, : m + 1].tolist(), pairs[k].tolist(), gap)
    return paths
