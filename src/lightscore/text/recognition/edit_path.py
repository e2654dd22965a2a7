"""One least-cost edit path between two token lists, with the pair cost given and the ties broken in a fixed order.

Punctuation and case scoring needs the *path*, not just the distance: which reference token was paired with
which hypothesis token decides whether a mark counts as correct, substituted, deleted or inserted. rapidfuzz
(`lightscore.text.alignment.align`) picks its own path among equal-cost ones and takes unit costs only; this
takes any pair cost and breaks ties as NeMo's punctuation error rate does (a diagonal step first, then an
insertion, then a deletion, walking back from the end), so the counts are the ones its definition gives.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["edit_path"]


def edit_path(n_ref: int, n_hyp: int, pair_cost: Callable[[int, int], int], gap: int = 1) -> list[tuple[int, int]]:
    """The ``(ref index, hyp index)`` pairs of a least-cost path; an index of -1 marks a gap.

    Args:
        n_ref: The number of reference tokens.
        n_hyp: The number of hypothesis tokens.
        pair_cost: The cost of pairing reference token ``i`` with hypothesis token ``j`` (0 for a match).
        gap: The cost of a deletion or an insertion.

    Returns:
        The path in reading order: ``(i, j)`` a pair, ``(i, -1)`` a deletion, ``(-1, j)`` an insertion.

    Walking back from the end, a step is taken diagonally when that is optimal, else as an insertion,
    else as a deletion (NeMo's ``OccurancePunctuationErrorRate`` order).

    >>> ref, hyp = "a b c".split(), "a c d".split()
    >>> edit_path(3, 3, lambda i, j: int(ref[i] != hyp[j]))
    [(0, 0), (1, 1), (2, 2)]
    >>> edit_path(2, 1, lambda i, j: 0)
    [(0, -1), (1, 0)]
    """
    width = n_hyp + 1
    cost = [[j * gap for j in range(width)]]
    for i in range(1, n_ref + 1):
        above = cost[-1]
        row = [i * gap] + [0] * n_hyp
        for j in range(1, width):
            row[j] = min(above[j - 1] + pair_cost(i - 1, j - 1), row[j - 1] + gap, above[j] + gap)
        cost.append(row)
    path: list[tuple[int, int]] = []
    i, j = n_ref, n_hyp
    while i > 0 or j > 0:
        here = cost[i][j]
        if i > 0 and j > 0 and here == cost[i - 1][j - 1] + pair_cost(i - 1, j - 1):
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
