"""Time-constrained Levenshtein matrices of many stream pairs at once, cell for cell as meeteval fills them.

meeteval's ``time_constrained_levenshtein_distance_with_alignment`` fills, for each
reference word, only the band of hypothesis words its time can reach (when both
streams' start times are sorted): the cell left of the band, the band, and a run
of insertions up to the words the next reference word can reach. Every other
cell keeps its initial value (`UNSEEN`), and the traceback reads those values
too, so the breakdown depends on them. `fill_bands` stores each row as a window
of ``width`` cells starting at the band's left edge, and fills one row of every
pair of a group with a few whole-array numpy operations. Streams meeteval does
not prune (starts unsorted, or below 0 once the collar is applied: the usual
tcpWER case) get whole matrices from `whole_matrices`: every reference stream
against all hypothesis streams side by side. Either way a session costs about
``max(reference words)`` numpy steps, not one Python step per cell.

Plain twin of both fills: `lightscore.text.meeting.reference.tc_matrix`. The word-overlap test
(`overlaps`) and the traceback (`walk`) are written once, here, and read by both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from lightscore.text.dp_rows import close_row
from lightscore.text.meeting.assignment import word_ids

__all__ = [
    "UNSEEN",
    "Bands",
    "Stream",
    "band_width",
    "fill_bands",
    "keeps_rows",
    "overlaps",
    "starts_sorted",
    "stream",
    "trace",
    "walk",
    "whole_matrices",
]

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

    ``ordered``: meeteval prunes its matrices (starts sorted, from 0); ``monotone``: starts sorted.
    """

    ids: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    ordered: bool
    monotone: bool


def stream(words: Sequence[tuple], vocab: dict[str, int]) -> Stream:
    """A `Stream` of ``(word, start, end)`` tuples, empty words dropped; ``vocab`` gives (and grows) word ids.

    ``ordered`` is meeteval's test for pruning: starts never decrease, beginning from 0.

    >>> s = stream([("a", 0.0, 1.0), ("", 1.0, 1.0), ("b", 0.5, 2.0)], {})
    >>> s.ids.tolist(), s.starts.tolist(), s.ordered
    ([0, 1], [0.0, 0.5], True)
    >>> s = stream([("a", -1.0, 1.0), ("b", 0.5, 2.0)], {})
    >>> s.ordered, s.monotone
    (False, True)
    """
    kept = [w for w in words if w[0]]
    ids = np.array(word_ids([w for w, _, _ in kept], vocab), dtype=np.int64)
    times = np.array([(s, e) for _, s, e in kept], dtype=np.float64).reshape(-1, 2)
    starts = [s for _, s, _ in kept]
    ordered = starts_sorted(starts, floor=0.0)
    return Stream(ids, times[:, 0].copy(), times[:, 1].copy(), ordered, ordered or starts_sorted(starts))


def _windows(ref: Stream, hyp: Stream) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per reference word: the first filled column, the band's end (exclusive) and the last filled column.

    Closed forms of meeteval's loops: its band start only moves right past hypothesis words that
    end before the reference word starts, which (starts sorted) is a search in the running maximum
    of the end times; the band stops at the first word starting after the running maximum of the
    reference end times; the insertions run on to the first word starting after the next reference
    word's end.
    """
    n, m = len(ref.ids), len(hyp.ids)
    if not (ref.ordered and hyp.ordered):  # meeteval fills the whole matrix
        return np.zeros(n, np.int64), np.full(n, m + 1, np.int64), np.full(n, m, np.int64)
    start = np.searchsorted(np.maximum.accumulate(hyp.ends), ref.starts, side="right") + 1
    stop = np.maximum(start, np.searchsorted(hyp.starts, np.maximum.accumulate(ref.ends), side="right") + 1)
    reach = np.searchsorted(hyp.starts, ref.ends[1:], side="right") + 1
    last = np.append(np.minimum(m, np.maximum(stop[:-1], reach)), m)
    return start - 1, stop, np.where(stop > m, m, last)


def band_width(ref: Stream, hyp: Stream) -> int:
    """The cells a row window of the pair needs: the widest filled stretch of any row.

    >>> a = stream([("x", 0.0, 1.0), ("y", 1.0, 2.0)], {})
    >>> band_width(a, a)
    3
    """
    lo, _, hi = _windows(ref, hyp)
    return int((hi - lo).max()) + 1


class Bands(NamedTuple):
    """Filled matrices of a group of pairs: ``rows[i - 1, p, k]`` is row ``i``'s cell ``lo[i - 1, p] + k``."""

    rows: np.ndarray
    lo: np.ndarray
    sizes: list[tuple[int, int]]

    def distance(self, p: int) -> int:
        """The last cell of pair ``p``: its time-constrained distance."""
        n, m = self.sizes[p]
        return int(self.rows[n - 1, p, m - self.lo[n - 1, p]])


def _by_column(hyps: Sequence[Stream], pad: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each pair's hypothesis starts, ends and ids by column (column ``c`` holds word ``c - 1``), flat.

    Column 0 and the padding hold no word: times that overlap nothing and an id no word has.
    """
    size = max(len(h.ids) for h in hyps) + 1 + pad
    starts, ends = np.full((len(hyps), size), np.inf), np.full((len(hyps), size), -np.inf)
    ids = np.full((len(hyps), size), -1, dtype=np.int64)
    for p, h in enumerate(hyps):
        starts[p, 1 : len(h.ids) + 1], ends[p, 1 : len(h.ids) + 1], ids[p, 1 : len(h.ids) + 1] = h.starts, h.ends, h.ids
    return starts.ravel(), ends.ravel(), ids.ravel()


def _by_row(refs: Sequence[Stream], rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each pair's reference starts, ends and ids by row, ``(rows, pairs, 1)``; a stream repeats its last word."""
    index = np.minimum(np.arange(rows)[:, None], np.array([len(r.ids) - 1 for r in refs]))
    columns = [np.stack([getattr(r, x)[index[:, p]] for p, r in enumerate(refs)], 1) for x in ("starts", "ends", "ids")]
    return columns[0][:, :, None], columns[1][:, :, None], columns[2][:, :, None]


def _fill_whole(pairs: Sequence[tuple[Stream, Stream]], width: int) -> np.ndarray:
    """Whole matrices (meeteval's unpruned fill), one pair per row of the array, padded to ``width``."""
    overlaps = _Overlaps([(p, ref, hyp, 0) for p, (ref, hyp) in enumerate(pairs)], (len(pairs), width))
    rows = np.empty((overlaps.rows, len(pairs), width), dtype=np.int64)
    position = np.arange(width)
    for _ in _whole_rows(overlaps, position, position, rows):
        pass
    return rows


def _fill_windows(hs: np.ndarray, he: np.ndarray, hid: np.ndarray, ref: tuple, windows: tuple) -> np.ndarray:
    """Banded matrices (meeteval's pruned fill): each row's window starts at its band's left cell."""
    rs, re, rid = ref
    lo, stop, hi = windows
    n_max, pairs = lo.shape
    width = int((hi - lo).max()) + 1
    k = np.arange(width)
    base = (np.arange(pairs) * (len(hs) // pairs))[:, None]
    rows = np.empty((n_max, pairs, width), dtype=np.int64)
    prev = np.full((pairs, width + 1), UNSEEN, dtype=np.int64)  # the row above, padded by one UNSEEN cell
    pad = (np.arange(pairs) * (width + 1))[:, None]
    for i in range(n_max):
        cols = lo[i][:, None] + k
        at = base + cols
        # The diagonal step needs overlapping words; the step from above stays in the band or its left cell.
        overlap = overlaps(rs[i], re[i], hs[at], he[at]) & (cols < stop[i][:, None])
        pair_cost = np.where(overlap, rid[i] != hid[at], _FAR)
        pair_cost[:, 0] = _FAR
        up_cost = np.where(cols < stop[i][:, None], 1, _FAR)
        if i == 0:  # row 0 is 0, 1, 2, ... (insertions only)
            up, diagonal = cols, cols - 1
        else:
            prev[:, :width] = rows[i - 1]
            shift = (lo[i] - lo[i - 1])[:, None]
            up = prev.ravel()[pad + np.minimum(k + shift, width)]
            diagonal = prev.ravel()[pad + np.clip(k + shift - 1, 0, width)]
        row = close_row(np.minimum(up + up_cost, diagonal + pair_cost), k)  # then insertions, one per step
        row[cols > hi[i][:, None]] = UNSEEN
        rows[i] = row
    return rows


def fill_bands(pairs: Sequence[tuple[Stream, Stream]]) -> Bands:
    """The time-constrained Levenshtein matrices of ``pairs`` (non-empty streams), as meeteval fills them.

    Args:
        pairs: ``(reference, hypothesis)`` streams; neither may be empty.

    Returns:
        `Bands`, one window of cells per pair and row.

    >>> a = stream([("x", 0.0, 1.0), ("y", 1.0, 2.0)], vocab := {})
    >>> b = stream([("x", 0.5, 0.5), ("y", 3.0, 3.0)], vocab)
    >>> bands = fill_bands([(a, b), (a, a)])
    >>> bands.distance(0), bands.distance(1)
    (2, 0)
    """
    sizes = [(len(r.ids), len(h.ids)) for r, h in pairs]
    windows = [_windows(r, h) for r, h in pairs]
    n_max = max(n for n, _ in sizes)
    # Rows past a pair's last reference word repeat its last window: computed, never read.
    lo, stop, hi = (np.stack([np.pad(w[x], (0, n_max - len(w[x])), mode="edge") for w in windows], 1) for x in range(3))
    width = int((hi - lo).max()) + 1
    if not lo.any() and all((stop[:, p] > m).all() for p, (_, m) in enumerate(sizes)):
        rows = _fill_whole(pairs, width)
    else:
        hs, he, hid = _by_column([h for _, h in pairs], width)
        rs, re, rid = _by_row([r for r, _ in pairs], n_max)
        rows = _fill_windows(hs, he, hid, (rs, re, rid), (lo, stop, hi))
    return Bands(rows, lo, sizes)


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
        self.slots, self.shape = slots, shape
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
        rs, re = ref.starts[rows.start : rows.stop], ref.ends[rows.start : rows.stop]
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


def _whole_rows(overlaps: _Overlaps, position: np.ndarray, restart: np.ndarray, out: np.ndarray) -> Iterator[int]:
    """Fill whole matrices side by side row after row, into ``out`` (all rows, or two that alternate).

    ``position`` is each column's place in its stream (row 0: insertions only); ``restart`` adds a
    large offset per stream so that no stream continues an earlier one's insertions. Yields the
    index in ``out`` of each row as it is made.
    """
    shape = overlaps.shape
    row = np.broadcast_to(position, shape)
    v = np.empty(shape, dtype=np.int64)
    block = max(1, _BLOCK_CELLS // (shape[0] * shape[1]))
    rows = overlaps.rows
    for i in range(rows):
        if i % block == 0:
            costs = overlaps.block(range(i, min(i + block, rows)))
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

    def bands(self, r: int, h: int, sizes: tuple[int, int]) -> Bands | None:
        """Pair ``(r, h)``'s whole matrix as one-pair `Bands` (a view), None when the rows were not kept."""
        if self.rows is None:
            return None
        n, m = sizes
        rows = self.rows[:n, r : r + 1, self.first[h] : self.first[h] + m + 1]
        return Bands(rows, np.zeros((n, 1), dtype=np.int64), [sizes])


def keeps_rows(refs: Sequence[Stream], hyps: Sequence[Stream]) -> bool:
    """Whether `whole_matrices` keeps every row of these streams (at most `KEEP_CELLS` cells)."""
    return max(len(r.ids) for r in refs) * len(refs) * sum(len(h.ids) + 1 for h in hyps) <= KEEP_CELLS


def whole_matrices(refs: Sequence[Stream], hyps: Sequence[Stream]) -> Whole:
    """The time-constrained distance of every reference and hypothesis stream (non-empty), whole matrices.

    Every reference stream against all hypothesis streams side by side in one row (each stream
    restarts the running minimum), one numpy step per reference word: meeteval's unpruned fill
    (streams whose starts are not sorted), whose cells are all reached.

    Returns:
        `Whole`: ``(len(refs), len(hyps))`` distances, and the rows when they fit.

    >>> a = stream([("x", 0.0, 1.0), ("y", 1.0, 2.0)], vocab := {})
    >>> b = stream([("x", 0.5, 0.5), ("y", 3.0, 3.0)], vocab)
    >>> whole = whole_matrices([a, b], [b, a])
    >>> whole.distances.tolist()
    [[2, 0], [4, 2]]
    >>> trace(whole.bands(0, 0, (2, 2)), 0, a, b)
    (0, 1, 1)
    """
    stream_of = np.repeat(np.arange(len(hyps)), [len(h.ids) + 1 for h in hyps])
    first = np.flatnonzero(np.diff(stream_of, prepend=-1))  # each stream's column 0
    position = np.arange(len(stream_of)) - first[stream_of]
    restart = position + stream_of * 2**36  # a later stream never continues an earlier one's insertions
    ends = np.append(first[1:], len(stream_of)) - 1  # each stream's last column
    n = np.array([len(r.ids) for r in refs])
    n_max = int(n.max())
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


def trace(bands: Bands, p: int, ref: Stream, hyp: Stream) -> tuple[int, int, int]:
    """``(substitutions, deletions, insertions)`` of pair ``p``: `walk` over its filled windows.

    >>> a = stream([("x", 0.0, 1.0), ("y", 1.0, 2.0)], vocab := {})
    >>> b = stream([("x", 0.5, 0.5), ("y", 3.0, 3.0)], vocab)
    >>> trace(fill_bands([(a, b)]), 0, a, b)
    (0, 1, 1)
    """
    n, _ = bands.sizes[p]
    window = bands.rows[:n, p]  # .item: Python ints, read one cell at a time (the walk reads few)
    lo = bands.lo[:n, p].tolist()
    width = bands.rows.shape[2]

    def cell(i: int, j: int) -> int:
        if i == 0:
            return j
        k = j - lo[i - 1]
        return window.item(i - 1, k) if 0 <= k < width else UNSEEN

    return walk(cell, _timed(ref), _timed(hyp))


def _timed(s: Stream) -> list[tuple]:
    """A stream's words as ``(id, start, end)``, Python numbers."""
    return list(zip(s.ids.tolist(), s.starts.tolist(), s.ends.tolist()))
