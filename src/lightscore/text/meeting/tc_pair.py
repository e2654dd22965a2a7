"""One time-constrained word pair of streams, distance and S/D/I, compiled: what tcORC-WER's streams are scored by.

tcORC-WER (exact and greedy, `lightscore.text.meeting.tc_orc`) scores each hypothesis stream
against the reference words given to it, and the greedy search starts from the distances of every
reference speaker against every stream. Each is meeteval's
``time_constrained_levenshtein_distance_with_alignment`` on one pair: the matrix filled as
`lightscore.text.meeting.tc_bands.tc_matrix` fills it (pruned to the band of overlapping words
when both streams' starts are sorted from 0, whole otherwise) and walked back as
`lightscore.text.meeting.tc_bands.walk` walks it. Those two are the plain twins; `breakdown` is
the same loops over arrays, compiled with numba (``@njit(cache=True)``), and ``breakdown.py_func``
runs them in Python. tests/test_meeting_orc.py holds all three equal.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from lightscore.text.meeting.tc_bands import UNSEEN

__all__ = ["breakdown", "pair_breakdown"]


@njit(cache=True)
def _sorted_from_zero(starts: np.ndarray) -> bool:
    previous = 0.0
    for start in starts:
        if not previous <= start:
            return False
        previous = start
    return True


@njit(cache=True)
def breakdown(
    ref: np.ndarray,
    ref_start: np.ndarray,
    ref_end: np.ndarray,
    hyp: np.ndarray,
    hyp_start: np.ndarray,
    hyp_end: np.ndarray,
) -> tuple[int, int, int, int]:
    """``(distance, substitutions, deletions, insertions)`` of two timed word streams, meeteval's.

    Plain twins: `lightscore.text.meeting.tc_bands.tc_matrix` then `walk` (and ``breakdown.py_func``).

    Args:
        ref: The reference's word ids (no empty words); ``ref_start``, ``ref_end`` their times.
        hyp: The hypothesis' word ids; ``hyp_start``, ``hyp_end`` their times.

    Returns:
        The distance and its breakdown.

    >>> breakdown(np.array([1, 2]), np.array([0.0, 1]), np.array([1.0, 2]), np.array([1, 2]), np.array([0.5, 3]),
    ...           np.array([0.5, 3]))
    (2, 0, 1, 1)
    """
    n = len(ref)
    m = len(hyp)
    if n == 0 or m == 0:
        return n + m, 0, n, m
    prune = _sorted_from_zero(ref_start) and _sorted_from_zero(hyp_start)
    matrix = np.full((n + 1, m + 1), UNSEEN, dtype=np.int64)
    for j in range(m + 1):
        matrix[0, j] = j
    first = 1  # the band's first column
    latest_end = ref_end[0]
    for i in range(1, n + 1):
        start = ref_start[i - 1]
        end = ref_end[i - 1]
        latest_end = max(latest_end, end)
        if prune:
            while first <= m and hyp_end[first - 1] <= start:
                first += 1
        matrix[i, first - 1] = matrix[i - 1, first - 1] + 1
        j = first
        while j <= m and not (prune and hyp_start[j - 1] > latest_end):
            value = min(matrix[i, j - 1] + 1, matrix[i - 1, j] + 1)
            if start < hyp_end[j - 1] and end > hyp_start[j - 1]:  # the times overlap: a pair is allowed
                value = min(value, matrix[i - 1, j - 1] + (ref[i - 1] != hyp[j - 1]))
            matrix[i, j] = value
            j += 1
        while prune and j <= m:  # insertions up to what the next reference word can reach
            matrix[i, j] = matrix[i, j - 1] + 1
            if i < n and hyp_start[j - 1] > ref_end[i]:
                break
            j += 1
    i = n
    j = m
    substitutions = deletions = insertions = 0
    while i > 0 and j > 0:
        insertion = matrix[i, j - 1] + 1
        deletion = matrix[i - 1, j] + 1
        if ref_start[i - 1] < hyp_end[j - 1] and ref_end[i - 1] > hyp_start[j - 1]:
            differ = 1 if ref[i - 1] != hyp[j - 1] else 0
            if matrix[i - 1, j - 1] + differ < min(deletion, insertion):
                substitutions += differ
                i -= 1
                j -= 1
                continue
        if deletion < insertion:
            deletions += 1
            i -= 1
        else:
            insertions += 1
            j -= 1
    return matrix[n, m], substitutions, deletions + i, insertions + j


def pair_breakdown(
    ref: Sequence[tuple[int, float, float]], hyp: Sequence[tuple[int, float, float]], compiled: bool = True
) -> tuple[int, int, int, int]:
    """`breakdown` of two lists of ``(word id, start, end)`` (no empty words).

    Plain twin: ``compiled=False`` runs ``breakdown.py_func``.

    >>> pair_breakdown([(1, 0.0, 1.0), (2, 1.0, 2.0)], [(1, 0.5, 0.5), (2, 3.0, 3.0)])
    (2, 0, 1, 1)
    """
    run = breakdown if compiled else breakdown.py_func
    ref_ids = np.array([w for w, _, _ in ref], dtype=np.int64)
    hyp_ids = np.array([w for w, _, _ in hyp], dtype=np.int64)
    ref_times = np.array([(s, e) for _, s, e in ref], dtype=np.float64).reshape(-1, 2)
    hyp_times = np.array([(s, e) for _, s, e in hyp], dtype=np.float64).reshape(-1, 2)
    found = run(
        ref_ids, ref_times[:, 0].copy(), ref_times[:, 1].copy(), hyp_ids, hyp_times[:, 0].copy(), hyp_times[:, 1].copy()
    )
    return int(found[0]), int(found[1]), int(found[2]), int(found[3])
