"""Time-constrained Levenshtein matrices, cell for cell as meeteval fills them: pruned plainly, whole with numpy.

meeteval's ``time_constrained_levenshtein_distance_with_alignment`` fills, for each reference
word, only the band of hypothesis words its time can reach when both streams' start times are
sorted from 0 (`starts_sorted`): the cell left of the band, the band, and a run of insertions up
to the words the next reference word can reach. Every other cell keeps its initial value
(`UNSEEN`), and the traceback reads those values too, so the breakdown depends on them.
`tc_matrix` is that fill as the textbook loop, pruned or whole; pruned bands are narrow, and a
banded numpy fill of them paid 0.4x of this loop on bench_meeting's sessions, so the loop is
the one pruned fill (benchmarks/results/fast_paths_meeting.md).

Streams meeteval does not prune (starts unsorted, or below 0 once the collar is applied: the
usual tcpWER case) get whole matrices from `whole_matrices`: every reference stream against all
hypothesis streams side by side, one numpy step per reference word instead of one Python step per
cell. Plain twin: `tc_matrix` with ``prune=False`` (also `lightscore.text.meeting.reference.tc_matrix`).

The word-overlap test (`overlaps`) and the traceback (`walk`) are written once, here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from lightscore.text.dp_rows import close_row
from lightscore.text.meeting.assignment import word_ids

__all__ = [
    "UNSEEN",
    "KEEP_CELLS",
    "Stream",
    "Whole",
    "keeps_rows",
    "overlaps",
    "starts_sorted",
    "stream",
    "tc_matrix",
    "timed",
    "walk",
    "whole_matrices",
]

TimedWord = tuple[Any, float, float]

UNSEEN = 2**32 - 2  # meeteval's max_value (UINT_MAX - 1): the cells its pruned fill never reaches
_FAR = 2**40  # a step that is not allowed: dearer than any reachable cell, UNSEEN ones included


def overlaps(start: Any, end: Any, other_start: Any, other_end: Any) -> Any:
    """Whether two words' times overlap, so that they may be paired: meeteval's test (touching is not enough).

    Works on floats and on numpy arrays (elementwise).

    Args:
        start: One word's start.
        end: Its end.
        other_start: The other word's start.
        other_end: Its end.

    Returns:
        ``start < other_end and end > other_start``.

    >>> overlaps(0.0, 1.0, 1.0, 2.0), overlaps(0.0, 1.0, 0.5, 0.5)
    (False, True)
    >>> overlaps(np.array([0.0, 3.0]), np.array([1.0, 4.0]), 0.5, 3.5).tolist()
    [True, True]
    """
    return (start < other_end) & (end > other_start)


def starts_sorted(starts: Sequence[float], floor: float = -np.inf) -> bool:
    """Whether ``starts`` never decrease, beginning at ``floor`` or later.

    With ``floor=0`` it is meeteval's test for pruning a time-constrained matrix.

    Args:
        starts: The words' start times, in stream order.
        floor: The smallest first start allowed.

    Returns:
        True when sorted.

    >>> starts_sorted([0.0, 1.0, 1.0]), starts_sorted([-1.0, 0.0], floor=0.0), starts_sorted([1.0, 0.5])
    (True, False, False)
    """
    return all(a <= b for a, b in zip([floor, *starts], starts))


class Stream(NamedTuple):
    """One speaker's non-empty words as arrays: word ids, start and end times.

    ``ordered``: meeteval prunes its matrices (starts sorted, from 0: `starts_sorted`).
    """

    ids: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    ordered: bool


def stream(words: Sequence[tuple], vocab: dict[str, int]) -> Stream:
    """A `Stream` of ``(word, start, end)`` tuples, empty words dropped; ``vocab`` gives (and grows) word ids.

    >>> s = stream([("a", 0.0, 1.0), ("", 1.0, 1.0), ("b", 0.5, 2.0)], {})
    >>> s.ids.tolist(), s.starts.tolist(), s.ordered
    ([0, 1], [0.0, 0.5], True)
    >>> stream([("a", -1.0, 1.0), ("b", 0.5, 2.0)], {}).ordered
    False
    """
    kept = [w for w in words if w[0]]
    ids = np.array(word_ids([w for w, _, _ in kept], vocab), dtype=np.int64)
    times = np.array([(s, e) for _, s, e in kept], dtype=np.float64).reshape(-1, 2)
    ordered = starts_sorted([s for _, s, _ in kept], floor=0.0)
    return Stream(ids, times[:, 0].copy(), times[:, 1].copy(), ordered)


def timed(s: Stream) -> list[TimedWord]:
    """A stream's words as ``(id, start, end)`` with Python numbers, as `tc_matrix` and `walk` read them.

    >>> timed(stream([("a", 0.0, 1.0)], {}))
    [(0, 0.0, 1.0)]
    """
    return list(zip(s.ids.tolist(), s.starts.tolist(), s.ends.tolist()))


def tc_matrix(ref: Sequence[TimedWord], hyp: Sequence[TimedWord], prune: bool) -> list[list[int]]:
    """The time-constrained Levenshtein matrix, cell by cell as meeteval fills it.

    A reference and a hypothesis word may be paired (correct or substituted) only when their times
    `overlaps`. Whole (``prune=False``), every cell is the textbook minimum. Pruned (meeteval's
    choice when both streams' starts are sorted from 0), row ``i`` fills only: the cell left of the
    band; the band, from the first hypothesis word ending after the reference word starts (the
    band start never moves left) to the last word starting by the latest reference end so far; then
    insertions on to the first word that starts after the next reference word ends (to the end on
    the last row). Every other cell keeps `UNSEEN`, which the traceback reads too.

    Args:
        ref: The reference's non-empty words as ``(word, start, end)``.
        hyp: The hypothesis' non-empty words as ``(word, start, end)``.
        prune: Fill only the band, as meeteval does for sorted streams.

    Returns:
        ``len(ref) + 1`` rows of ``len(hyp) + 1`` costs; the last cell is the distance.

    >>> tc_matrix([("a", 0, 1), ("b", 1, 2)], [("a", 0.5, 0.5), ("b", 3, 3)], prune=False)
    [[0, 1, 2], [1, 0, 1], [2, 1, 2]]
    """
    n = len(ref)
    m = len(hyp)
    matrix = [list(range(m + 1))] + [[UNSEEN] * (m + 1) for _ in range(n)]
    first = 1  # the band's first column
    latest_end = ref[0][2] if ref else 0.0
    for i in range(1, n + 1):
        word, start, end = ref[i - 1]
        latest_end = max(latest_end, end)
        if prune:
            while first <= m and hyp[first - 1][2] <= start:
                first += 1
        above = matrix[i - 1]
        row = matrix[i]
        row[first - 1] = above[first - 1] + 1
        j = first
        while j <= m and not (prune and hyp[j - 1][1] > latest_end):
            hyp_word, hyp_start, hyp_end = hyp[j - 1]
            row[j] = min(row[j - 1] + 1, above[j] + 1)
            if overlaps(start, end, hyp_start, hyp_end):
                row[j] = min(row[j], above[j - 1] + (word != hyp_word))
            j += 1
        while prune and j <= m:  # insertions up to what the next reference word can reach
            row[j] = row[j - 1] + 1
            if i < n and hyp[j - 1][1] > ref[i][2]:
                break
            j += 1
    return matrix


_BLOCK_CELLS = 4_000_000  # the diagonal costs of this many cells are made at once (8 bytes each)


class _Overlaps:
    """The cost of the diagonal step in whole matrices: 0 or 1 between overlapping words, else _FAR.

    ``slots`` are ``(row, reference, hypothesis, column)``: in row ``row`` of the filled array,
    the reference stream's words meet the hypothesis stream's, whose column 0 sits at ``column``.
    Only overlapping words are looked for: in start order, a word that ends after the reference
    word starts began at most the longest word's duration before (two searches), so the cost is
    the band's, not the whole matrix's.
    """

    def __init__(self, slots: Sequence[tuple[int, Stream, Stream, int]], shape: tuple[int, int]) -> None:
        self.slots = slots
        self.shape = shape
        self.rows = max(len(ref.ids) for _, ref, _, _ in slots)
        self.sorted: dict[int, tuple[np.ndarray, np.ndarray, float]] = {}
        for _, _, hyp, _ in slots:
            if id(hyp) not in self.sorted:
                order = np.argsort(hyp.starts, kind="stable")
                longest = max(float((hyp.ends - hyp.starts).max()), 0.0)
                # Rounding in ``end - start`` must not drop a word: widen the search by a hair.
                scale = max(float(np.abs(hyp.starts).max()), float(np.abs(hyp.ends).max()), 1.0)
                self.sorted[id(hyp)] = order, hyp.starts[order], longest + 1e-6 * scale

    def _pairs(self, ref: Stream, rows: range, hyp: Stream) -> tuple[np.ndarray, np.ndarray]:
        """``(row, word)`` of every reference word in ``rows`` and hypothesis word whose times overlap."""
        order, starts, longest = self.sorted[id(hyp)]
        rs = ref.starts[rows.start : rows.stop]
        re = ref.ends[rows.start : rows.stop]
        lo = np.searchsorted(starts, rs - longest - 1e-6 * np.maximum(np.abs(rs), 1.0), side="left")
        count = np.maximum(np.searchsorted(starts, re, side="left") - lo, 0)  # words starting before its end
        row = np.repeat(np.arange(len(rs)), count)
        word = order[lo[row] + np.arange(len(row)) - np.repeat(np.cumsum(count) - count, count)]
        # The search found the words starting before the reference word ends; keep the ones that overlap it.
        kept = overlaps(rs[row], re[row], hyp.starts[word], hyp.ends[word])
        return row[kept], word[kept]

    def block(self, rows: range) -> np.ndarray:
        """The costs of reference words ``rows``: ``(row, slot row, column)``."""
        costs = np.full((len(rows), *self.shape), _FAR, dtype=np.int64)
        for q, ref, hyp, column in self.slots:
            kept = range(rows.start, min(rows.stop, len(ref.ids)))
            row, word = self._pairs(ref, kept, hyp)
            costs[row, q, column + 1 + word] = ref.ids[kept.start + row] != hyp.ids[word]
        return costs


def _whole_rows(pair_costs: _Overlaps, position: np.ndarray, restart: np.ndarray, out: np.ndarray) -> Iterator[int]:
    """Fill whole matrices side by side row after row, into ``out`` (all rows, or two that alternate).

    ``position`` is each column's place in its stream (row 0: insertions only); ``restart`` adds a
    large offset per stream so that no stream continues an earlier one's insertions. Yields the
    index in ``out`` of each row as it is made.
    """
    shape = pair_costs.shape
    row = np.broadcast_to(position, shape)
    v = np.empty(shape, dtype=np.int64)
    block = max(1, _BLOCK_CELLS // (shape[0] * shape[1]))
    rows = pair_costs.rows
    for i in range(rows):
        if i % block == 0:
            costs = pair_costs.block(range(i, min(i + block, rows)))
        pair_cost = costs[i % block]
        v[:, 0] = row[:, 0] + 1
        np.add(row[:, :-1], pair_cost[:, 1:], out=pair_cost[:, 1:])
        np.minimum(row[:, 1:] + 1, pair_cost[:, 1:], out=v[:, 1:])
        at = i % len(out)
        row = close_row(v, restart, out=out[at])
        yield at


KEEP_CELLS = 16_000_000
"""`whole_matrices` keeps every row (for the traceback) up to this many cells, 8 bytes each."""


class Whole(NamedTuple):
    """`whole_matrices`' result: the distances, and every row when they fit in `KEEP_CELLS`."""

    distances: np.ndarray
    rows: np.ndarray | None
    first: np.ndarray

    def cell(self, r: int, h: int, sizes: tuple[int, int]) -> Callable[[int, int], int] | None:
        """Pair ``(r, h)``'s matrix as `walk` reads it, ``cell(i, j)`` (row 0 included), None when not kept.

        Args:
            r: The reference stream's index.
            h: The hypothesis stream's index.
            sizes: The two streams' word counts.
        """
        if self.rows is None:
            return None
        n, m = sizes
        rows = self.rows[:n, r, self.first[h] : self.first[h] + m + 1]
        return lambda i, j: j if i == 0 else rows.item(i - 1, j)  # .item: a Python int, one cell at a time


def keeps_rows(refs: Sequence[Stream], hyps: Sequence[Stream]) -> bool:
    """Whether `whole_matrices` keeps every row of these streams (at most `KEEP_CELLS` cells)."""
    return max(len(r.ids) for r in refs) * len(refs) * sum(len(h.ids) + 1 for h in hyps) <= KEEP_CELLS


def whole_matrices(refs: Sequence[Stream], hyps: Sequence[Stream], keep: bool | None = None) -> Whole:
    """The time-constrained distance of every reference and hypothesis stream (non-empty), whole matrices.

    Every reference stream against all hypothesis streams side by side in one row (each stream
    restarts the running minimum), one numpy step per reference word: meeteval's unpruned fill
    (streams whose starts are not sorted), whose cells are all reached.
    Plain twin: `tc_matrix` with ``prune=False``.

    Args:
        refs: The reference streams.
        hyps: The hypothesis streams.
        keep: Keep every row for the traceback; by default when they fit (`keeps_rows`).

    Returns:
        `Whole`: ``(len(refs), len(hyps))`` distances, and the rows when they fit.

    >>> a = stream([("x", 0.0, 1.0), ("y", 1.0, 2.0)], vocab := {})
    >>> b = stream([("x", 0.5, 0.5), ("y", 3.0, 3.0)], vocab)
    >>> whole = whole_matrices([a, b], [b, a])
    >>> whole.distances.tolist()
    [[2, 0], [4, 2]]
    >>> walk(whole.cell(0, 0, (2, 2)), timed(a), timed(b))
    (0, 1, 1)
    """
    stream_of = np.repeat(np.arange(len(hyps)), [len(h.ids) + 1 for h in hyps])
    first = np.flatnonzero(np.diff(stream_of, prepend=-1))  # each stream's column 0
    position = np.arange(len(stream_of)) - first[stream_of]
    restart = position + stream_of * 2**36  # a later stream never continues an earlier one's insertions
    ends = np.append(first[1:], len(stream_of)) - 1  # each stream's last column
    n = np.array([len(r.ids) for r in refs])
    n_max = int(n.max())
    if keep is None:
        keep = keeps_rows(refs, hyps)
    slots = [(r, ref, hyp, int(first[h])) for r, ref in enumerate(refs) for h, hyp in enumerate(hyps)]
    overlaps = _Overlaps(slots, (len(refs), len(position)))
    rows = np.empty((n_max if keep else 2, len(refs), len(position)), dtype=np.int64)
    distances = np.empty((len(refs), len(hyps)), dtype=np.int64)
    last_row = {i: np.flatnonzero(n == i + 1) for i in set((n - 1).tolist())}
    for i, at in enumerate(_whole_rows(overlaps, position, restart, rows)):
        if i in last_row:
            distances[last_row[i]] = rows[at][last_row[i]][:, ends]
    return Whole(distances, rows if keep else None, first)


def walk(cell: Callable[[int, int], int], ref: Sequence[tuple], hyp: Sequence[tuple]) -> tuple[int, int, int]:
    """``(substitutions, deletions, insertions)`` walked back from the last cell with meeteval's preference.

    From cell ``(i, j)``: the pair of words ``i`` and ``j`` (correct or substituted) when their times
    overlap and it is strictly cheapest, else a deletion when strictly cheaper than an insertion,
    else an insertion. Once one side is used up, the rest of the other are deletions or insertions.

    Args:
        cell: The filled matrix, ``cell(i, j)`` (row 0 included; cells never filled read `UNSEEN`).
        ref: The reference's ``(word, start, end)``.
        hyp: The hypothesis' ``(word, start, end)``.

    Returns:
        The breakdown.

    >>> matrix = [[0, 1, 2], [1, 0, 1], [2, 1, 2]]
    >>> walk(lambda i, j: matrix[i][j], [("a", 0, 1), ("b", 1, 2)], [("a", 0.5, 0.5), ("b", 3, 3)])
    (0, 1, 1)
    """
    i = len(ref)
    j = len(hyp)
    counts = {"sub": 0, "del": 0, "ins": 0}
    while i > 0 and j > 0:
        insertion = cell(i, j - 1) + 1
        deletion = cell(i - 1, j) + 1
        word, start, end = ref[i - 1]
        hyp_word, hyp_start, hyp_end = hyp[j - 1]
        if overlaps(start, end, hyp_start, hyp_end):
            differ = int(word != hyp_word)
            if cell(i - 1, j - 1) + differ < min(deletion, insertion):
                counts["sub"] += differ
                i -= 1
                j -= 1
                continue
        if deletion < insertion:
            counts["del"] += 1
            i -= 1
        else:
            counts["ins"] += 1
            j -= 1
    return counts["sub"], counts["del"] + i, counts["ins"] + j
