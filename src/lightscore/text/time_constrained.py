"""Time-constrained word error counts of one session: tcpWER, meeteval's definition and tie-breaking.

Each segment's words get pseudo word-level times (`PSEUDO_WORD_TIMINGS`, meeteval's
strategies; the hypothesis' are widened by the collar), a reference and a
hypothesis word may be paired (correct or substituted) only when their times
overlap, and the speaker assignment is the Hungarian one on the matrix of these
time-constrained distances (`lightscore.text.multispeaker.assign`). The
Levenshtein matrix is filled as meeteval's C++ fills it, pruned to the band of
overlapping words when the start times are sorted, and traced back with its
preference (pair, then deletion, then insertion), so the S/D/I breakdown
matches too. Times are floats and every formula keeps meeteval's order of
operations, so the same float inputs give the same boundaries bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from lightscore.text.multispeaker import SessionCounts, assign

__all__ = ["PSEUDO_WORD_TIMINGS", "pseudo_word_times", "tc_levenshtein", "tcp_counts"]

Interval = tuple[float, float]


def _character_based(start: float, end: float, words: Sequence[str]) -> list[Interval]:
    if len(words) == 1:
        return [(start, end)]
    ends = np.cumsum([len(w) for w in words])
    step = (end - start) / ends[-1]
    return [(float(start + step * a), float(start + step * b)) for a, b in zip([0, *ends[:-1]], ends)]


def _character_based_points(start: float, end: float, words: Sequence[str]) -> list[Interval]:
    return [((a + b) / 2,) * 2 for a, b in _character_based(start, end, words)]


def _equidistant_intervals(start: float, end: float, words: Sequence[str]) -> list[Interval]:
    if len(words) == 1:
        return [(start, end)]
    step = (end - start) / len(words)
    return [(start + i * step, start + (i + 1) * step) for i in range(len(words))]


def _equidistant_points(start: float, end: float, words: Sequence[str]) -> list[Interval]:
    if len(words) == 1:
        return [((start + end) / 2,) * 2]
    step = (end - start) / len(words)
    return [(start + i * step + step / 2,) * 2 for i in range(len(words))]


def _full_segment(start: float, end: float, words: Sequence[str]) -> list[Interval]:
    return [(start, end)] * len(words)


def _none(start: float, end: float, words: Sequence[str]) -> list[Interval]:
    if len(words) != 1 or not words[0]:
        raise ValueError(
            f"pseudo-word-level timing 'none' needs one word per segment, the segment {start:g}..{end:g} "
            f"holds {len([w for w in words if w])}"
        )
    return [(start, end)]


PSEUDO_WORD_TIMINGS: dict[str, Callable[[float, float, Sequence[str]], list[Interval]]] = {
    "character_based": _character_based,
    "character_based_points": _character_based_points,
    "equidistant_intervals": _equidistant_intervals,
    "equidistant_points": _equidistant_points,
    "full_segment": _full_segment,
    "none": _none,
}
"""meeteval's pseudo-word-level timing strategies by name (``--ref/hyp-pseudo-word-timing``)."""


def pseudo_word_times(segments: Sequence[Any], strategy: str, collar: float = 0.0) -> dict[str, list[tuple]]:
    """Each speaker's ``(word, start, end)`` with pseudo word times, segments sorted by start (stable).

    An empty segment keeps its speaker (one ``""`` word, as meeteval's dummy word), so a speaker
    who only has empty segments still counts in the assignment.

    Args:
        segments: Objects with ``speaker``, ``start``, ``end`` and ``words``.
        strategy: One of `PSEUDO_WORD_TIMINGS`.
        collar: Seconds added before and after every word (the hypothesis' collar).

    Raises:
        ValueError: strategy ``"none"`` and a segment that does not hold exactly one word.

    >>> from lightscore.segments import Segment
    >>> pseudo_word_times([Segment("A", 0, 4, "abc b")], "character_based")
    {'A': [('abc', 0.0, 3.0), ('b', 3.0, 4.0)]}
    >>> pseudo_word_times([Segment("A", 0, 4, "abc b")], "character_based_points", collar=1)
    {'A': [('abc', 0.5, 2.5), ('b', 2.5, 4.5)]}
    """
    split = PSEUDO_WORD_TIMINGS[strategy]
    streams: dict[str, list[tuple]] = {}
    for seg in sorted(segments, key=lambda s: s.start):
        words = seg.words.split() or [""]
        stream = streams.setdefault(seg.speaker, [])
        for word, (start, end) in zip(words, split(seg.start, seg.end, words)):
            if collar > 0:
                start, end = start - collar, end + collar
            stream.append((word, start, end))
    return streams


def _starts_sorted(starts: np.ndarray) -> bool:
    """meeteval's test for pruning: starts never decrease, beginning from 0 (a negative start is unsorted)."""
    return bool(starts.size == 0 or (starts[0] >= 0 and np.all(starts[1:] >= starts[:-1])))


_UNSEEN = 2**32 - 2  # meeteval's max_value (UINT_MAX - 1): the cells the pruned fill never reaches


def _fill(ref: np.ndarray, rt: np.ndarray, hyp: np.ndarray, ht: np.ndarray, prune: bool) -> np.ndarray:
    """The time-constrained Levenshtein matrix, cell for cell as meeteval's ``..._with_alignment_`` fills it."""
    n, m = len(ref), len(hyp)
    matrix = np.full((n + 1, m + 1), _UNSEEN, dtype=np.int64)
    matrix[0] = np.arange(m + 1)
    hs, he = ht[:, 0], ht[:, 1]
    start, ref_end = 1, rt[0, 1]
    for i in range(n):
        prev, row = matrix[i], matrix[i + 1]
        ref_end = max(rt[i, 1], ref_end)
        stop = m + 1
        if prune:
            while start < m + 1 and not he[start - 1] > rt[i, 0]:
                start += 1
            stop = max(start, int(np.searchsorted(hs, ref_end, side="right")) + 1)
        row[start - 1] = prev[start - 1] + 1
        if stop > start:
            h = np.arange(start, stop)
            overlap = (rt[i, 0] < he[h - 1]) & (rt[i, 1] > hs[h - 1])
            pair = prev[h - 1] + (hyp[h - 1] != ref[i])
            v = np.where(overlap, np.minimum(prev[h] + 1, pair), prev[h] + 1)
            seq = np.concatenate(([row[start - 1]], v))
            k = np.arange(seq.size)  # row[h] = min(v[h], row[h-1] + 1): a running minimum of v - k
            row[start - 1 : stop] = np.minimum.accumulate(seq - k) + k
        if prune and stop <= m:
            last = m if i == n - 1 else min(m, max(stop, int(np.searchsorted(hs, rt[i + 1, 1], side="right")) + 1))
            row[stop : last + 1] = row[stop - 1] + np.arange(1, last - stop + 2)
    return matrix


def tc_levenshtein(ref: Sequence[tuple], hyp: Sequence[tuple]) -> tuple[int, int, int, int]:
    """``(errors, substitutions, deletions, insertions)`` of two ``(word, start, end)`` lists, time-constrained.

    A pair (correct or substituted) needs overlapping times (``a.start < b.end and a.end > b.start``);
    empty words are skipped. Equal to meeteval's ``time_constrained_levenshtein_distance_with_alignment``.

    >>> tc_levenshtein([("a", 0, 1), ("b", 1, 2)], [("a", 0.5, 0.5), ("b", 3, 3)])
    (2, 0, 1, 1)
    >>> tc_levenshtein([("a", 0, 1)], [])
    (1, 0, 1, 0)
    """
    ref = [w for w in ref if w[0]]
    hyp = [w for w in hyp if w[0]]
    if not ref or not hyp:
        return len(ref) + len(hyp), 0, len(ref), len(hyp)
    vocab: dict[str, int] = {}
    r = np.array([vocab.setdefault(w, len(vocab)) for w, _, _ in ref])
    h = np.array([vocab.setdefault(w, len(vocab)) for w, _, _ in hyp])
    rt = np.array([(s, e) for _, s, e in ref], dtype=np.float64)
    ht = np.array([(s, e) for _, s, e in hyp], dtype=np.float64)
    matrix = _fill(r, rt, h, ht, _starts_sorted(rt[:, 0]) and _starts_sorted(ht[:, 0]))
    return (int(matrix[-1, -1]), *_trace(matrix, r, rt, h, ht))


def _trace(matrix: np.ndarray, r: np.ndarray, rt: np.ndarray, h: np.ndarray, ht: np.ndarray) -> tuple[int, int, int]:
    """Walk back from the last cell with meeteval's preference: pair if strictly cheapest, then deletion."""
    cells = matrix.tolist()  # Python ints: the walk reads one cell at a time
    i, j, sub, dele, ins = len(r), len(h), 0, 0, 0
    while i > 0 or j > 0:
        if i == 0 or j == 0:
            ins, dele, i, j = ins + j, dele + i, 0, 0
            break
        insertion, deletion = cells[i][j - 1] + 1, cells[i - 1][j] + 1
        if ht[j - 1, 0] < rt[i - 1, 1] and ht[j - 1, 1] > rt[i - 1, 0]:
            differ = int(r[i - 1] != h[j - 1])
            if cells[i - 1][j - 1] + differ < min(deletion, insertion):
                sub, i, j = sub + differ, i - 1, j - 1
                continue
        if deletion < insertion:
            dele, i = dele + 1, i - 1
        else:
            ins, j = ins + 1, j - 1
    return sub, dele, ins


def tcp_counts(
    ref_segments: Sequence[Any],
    hyp_segments: Sequence[Any],
    collar: float,
    reference_pseudo_word_level_timing: str = "character_based",
    hypothesis_pseudo_word_level_timing: str = "character_based_points",
) -> SessionCounts:
    """tcpWER counts of one session, equal to meeteval's ``tcp_word_error_rate`` (errors, S/D/I, assignment).

    Args:
        ref_segments: The reference segments (``speaker``, ``start``, ``end``, ``words``).
        hyp_segments: The hypothesis segments.
        collar: Seconds each hypothesis word may stray from the reference word it pairs with.
        reference_pseudo_word_level_timing: How reference segments' times are split among their words.
        hypothesis_pseudo_word_level_timing: The same for the hypothesis.

    Returns:
        The session's `SessionCounts` (``length``: reference words).

    >>> from lightscore.segments import Segment
    >>> ref = [Segment("A", 0, 2, "hello world"), Segment("B", 10, 12, "good morning")]
    >>> hyp = [Segment("x", 10, 12, "good morning"), Segment("y", 5, 7, "hello world")]
    >>> c = tcp_counts(ref, hyp, collar=1)
    >>> c.errors, c.insertions, c.deletions, c.assignment
    (4, 2, 2, (('A', 'y'), ('B', 'x')))
    >>> tcp_counts(ref, hyp, collar=5).errors
    0
    """
    ref = pseudo_word_times(ref_segments, reference_pseudo_word_level_timing)
    hyp = pseudo_word_times(hyp_segments, hypothesis_pseudo_word_level_timing, collar)
    ref_words, hyp_words = list(ref.values()), list(hyp.values())
    table: dict[tuple[int | None, int | None], tuple[int, int, int, int]] = {}

    def counts(r: int | None, h: int | None) -> tuple[int, int, int, int]:
        if (r, h) not in table:
            table[r, h] = tc_levenshtein(ref_words[r] if r is not None else [], hyp_words[h] if h is not None else [])
        return table[r, h]

    pairs = assign(list(range(len(ref))), list(range(len(hyp))), lambda r, h: counts(r, h)[0], None)
    sub = dele = ins = 0
    for r, h in pairs:
        _, s, d, i = counts(r, h)
        sub, dele, ins = sub + s, dele + d, ins + i
    names_r, names_h = list(ref), list(hyp)
    return SessionCounts(
        errors=sub + dele + ins,
        length=sum(1 for words in ref_words for w in words if w[0]),
        substitutions=sub,
        deletions=dele,
        insertions=ins,
        missed_speaker=max(0, len(ref) - len(hyp)),
        falarm_speaker=max(0, len(hyp) - len(ref)),
        scored_speaker=len(ref),
        assignment=tuple(
            (names_r[r] if r is not None else None, names_h[h] if h is not None else None) for r, h in pairs
        ),
    )
