"""sacrebleu 2.6's translation edit rate (``sacrebleu.metrics.lib_ter``), exact, for many segments at once.

sacrebleu scores one segment at a time: a greedy search that shifts word
blocks while a shift lowers a beam-limited edit distance, each distance a
Python loop over the cells of the matrix. Here the same search runs in rounds
over all segments of a batch: in each round one numpy pass computes the
matrix of every segment's current hypothesis (a Python backtrace reads
sacrebleu's trace from it), Python lists each segment's shift candidates
exactly as sacrebleu does (same order, same filters, same 1,000-candidate
budget), and the candidates are scored by rapidfuzz where its plain distance is
the beam's and by a second numpy pass where it is not. sacrebleu's cache of
matrix rows changes no number (every hypothesis of one segment has the same
length, so a cached row is the row it would compute), so leaving it out is
exact. The plain search's list of candidates, ``shift_candidates``
(`lightscore.text.mt.reference`), is used as it is.

Shortcuts that are exact too (`lightscore.text.mt.ter_bounds` proves the bounds):
a hypothesis equal to its reference costs 0; a pair whose distance already
equals the best any reordering can reach stops without a search (no shift can
lower it), which covers a shorter side that is a subsequence of the longer
inside the beam (the edits are the length difference); when every word of one
side is matched unchanged (the trace has no substitution, and only deletions or
only insertions) no shift can pass sacrebleu's filters; and a candidate whose
plain distance (a lower bound) cannot lower the score is never given to the beam.

>>> edit_counts([(["a", "b", "c"], ["a", "c", "b"]), (["x"], [])])
[1, 1]
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterator, Sequence

import numpy as np

from lightscore.text.dp_rows import close_row
from lightscore.text.mt.reference import (
    BEAM_WIDTH,
    INFINITY,
    MAX_SHIFT_CANDIDATES,
    MAX_SHIFT_DISTANCE,
    MAX_SHIFT_SIZE,
    shift_candidates,
)
from lightscore.text.mt.ter_bounds import bag_bound, band_covers, plain_distance, plain_is_beam

__all__ = ["beam_distances", "edit_counts", "shifted_pairs"]

_MAX_CELLS = 1 << 22  # matrix cells per numpy pass: bounds memory for long segments


def edit_counts(pairs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[int]:
    """sacrebleu's ``translation_edit_rate(hyp, ref)[0]`` (shifts plus edits) for each ``(hyp, ref)`` word pair.

    Plain twin: `lightscore.text.mt.reference.ter_edits` per pair.

    Args:
        pairs: Tokenized hypothesis and reference of each problem.

    Returns:
        The number of edits of each pair.

    >>> edit_counts([(["a", "b"], ["a", "b"]), ([], ["a", "b"]), (["b", "a", "c"], ["a", "b"])])
    [0, 2, 2]
    """
    result = [0] * len(pairs)
    word_id = defaultdict(itertools.count().__next__).__getitem__  # a new word gets the next id, in C
    embedded = []  # (index, hyp, ref, cut): the shorter side is a subsequence of the longer, the band partial
    todo = []  # [index, hyp ids, ref ids, shifts, checked candidates, bag bound, band covers all]
    for k, (hyp, ref) in enumerate(pairs):
        if not ref or not hyp:
            result[k] = len(hyp) or len(ref)
            continue
        hyp = list(map(word_id, hyp))
        ref = list(map(word_id, ref))
        if hyp == ref:
            continue
        distance = plain_distance(hyp, ref)
        gap = abs(len(hyp) - len(ref))
        if distance == gap:  # one side is a subsequence of the other: no shift can pass sacrebleu's filters
            # its embedding strays from the band's diagonal by at most the length difference (+1: rounding)
            if gap + 1 < BEAM_WIDTH or plain_is_beam(len(hyp), len(ref), distance):
                result[k] = gap
            else:
                cut = _subsequence(hyp, ref) if len(hyp) < len(ref) else _subsequence(ref, hyp)
                embedded.append((k, hyp, ref, cut))
            continue
        bound = bag_bound(hyp, ref)
        if distance == bound and plain_is_beam(len(hyp), len(ref), distance):  # as low as any shift can make it
            result[k] = distance
        else:
            todo.append([k, hyp, ref, 0, 0, bound, band_covers(len(hyp), len(ref))])
    inside = _in_beam([(len(h), len(r), cut) for _, h, r, cut in embedded])
    for k, hyp, ref, _ in embedded:
        if next(inside):
            result[k] = abs(len(hyp) - len(ref))
        else:
            todo.append([k, hyp, ref, 0, 0, abs(len(hyp) - len(ref)), False])
    while todo:
        todo = _round(todo, result)
    return result


def _round(todo: list[list], result: list[int]) -> list[list]:
    """One step of sacrebleu's ``while True`` shift loop for every unfinished pair; returns those still shifting."""
    scores, traces = beam_distances([(t[1], t[2]) for t in todo], traces=True)
    listed = []  # (problem, pre_score, candidates, their distances: None until the beam computes them)
    exact = []  # (candidate ids, ref ids) whose beam distance is still needed
    for t, pre_score, trace in zip(todo, scores, traces):
        if pre_score == t[5]:  # no reordering does better: every candidate has delta <= 0
            result[t[0]] = t[3] + pre_score
            continue
        candidates, t[4] = _candidates(t[1], t[2], trace, t[4])
        if not candidates:  # no candidate: sacrebleu's _shift returns delta 0 and the loop ends
            result[t[0]] = t[3] + pre_score
            continue
        distances = [plain_distance(c[3], t[2]) for c in candidates]
        if not t[6]:
            # the plain distance bounds the beam distance from below: a candidate that cannot lower the
            # score cannot be chosen (a chosen shift has delta > 0); a small one is the beam's (plain_is_beam)
            n_h = len(t[1])
            n_r = len(t[2])
            distances = [INFINITY if d >= pre_score else d if plain_is_beam(n_h, n_r, d) else None for d in distances]
            exact.extend((c[3], t[2]) for c, d in zip(candidates, distances) if d is None)
        listed.append((t, pre_score, candidates, distances))
    computed = iter(beam_distances(exact)[0])
    going = []
    for t, pre_score, candidates, distances in listed:
        # sacrebleu keeps the largest (score, length, -start_h, -idx, words): the first of equal keys
        best = None
        best_key = None
        for (length, start_h, idx, words), distance in zip(candidates, distances):
            key = (pre_score - (next(computed) if distance is None else distance), length, -start_h, -idx)
            if best_key is None or key > best_key:
                best = words
                best_key = key
        if t[4] >= MAX_SHIFT_CANDIDATES or best_key[0] <= 0:
            result[t[0]] = t[3] + pre_score
        else:
            t[1] = best
            t[3] += 1
            going.append(t)
    return going


def _subsequence(short: list[str], long: list[str]) -> list[int] | None:
    """The 1-based positions in ``long`` of the leftmost embedding of ``short``, None if it is not a subsequence."""
    at = -1
    cut = []
    try:
        for word in short:
            at = long.index(word, at + 1)
            cut.append(at + 1)
    except ValueError:
        return None
    return cut


def _in_beam(items: list[tuple[int, int, list[int]]]) -> Iterator[bool]:
    """For each ``(hypothesis length, reference length, embedding)``: whether its path stays inside sacrebleu's beam.

    On such a path every word of the shorter side is matched unchanged, so the beam distance is the
    length difference and no shift passes sacrebleu's filters: the edits are the length difference.
    (When the leftmost embedding leaves the beam, the caller runs the full search.) One numpy pass
    checks every matrix row the paths cross.
    """
    if not items:
        return iter(())
    n_h = np.array([h for h, _, _ in items], np.int64)
    n_r = np.array([r for _, r, _ in items], np.int64)
    owner = np.repeat(np.arange(len(items)), n_h)
    row = np.arange(len(owner)) - np.repeat(np.cumsum(n_h) - n_h, n_h) + 1  # 1..n_h per item
    first = np.empty(len(owner), np.int64)
    last = np.empty(len(owner), np.int64)
    start = 0
    for (h, r, cut), stop in zip(items, np.cumsum(n_h).tolist()):
        if h < r:  # the hypothesis is embedded: row i runs along the reference from cut[i-1] to cut[i] - 1
            first[start:stop] = cut
            last[start:stop] = cut[1:] + [r + 1]
            last[start:stop] -= 1
        else:  # the reference is embedded: one cell per row, the reference words matched so far
            column = np.zeros(h + 1, np.int64)
            column[cut] = 1
            first[start:stop] = last[start:stop] = np.cumsum(column)[1:]
        start = stop
    ratio = (n_r / n_h)[owner]
    beam = np.where(BEAM_WIDTH < ratio / 2, np.ceil(ratio / 2 + BEAM_WIDTH), BEAM_WIDTH).astype(np.int64)
    diag = np.floor(row * ratio).astype(np.int64)
    ends = n_r[owner] + 1
    high = np.where(row == n_h[owner], ends, np.minimum(ends, diag + beam))
    outside = (first < np.maximum(0, diag - beam)) | (last >= high)
    return iter((np.bincount(owner, weights=outside, minlength=len(items)) == 0).tolist())


def _candidates(hyp: list[int], ref: list[int], trace: str, checked: int) -> tuple[list[tuple], int]:
    """sacrebleu's ``_shift`` up to scoring: its candidates ``(length, start_h, idx, shifted words)``, in order.

    `lightscore.text.mt.reference.shift_candidates` over this module's `shifted_pairs`, after a shortcut
    that lists no candidate where none could pass sacrebleu's filters.
    """
    if "s" not in trace and ("i" not in trace or "d" not in trace):
        return [], checked  # one side is matched word for word: every candidate fails a filter
    return shift_candidates(hyp, trace, shifted_pairs(hyp, ref), checked)


def shifted_pairs(hyp: Sequence, ref: Sequence) -> Iterator[tuple[int, int, int]]:
    """sacrebleu's ``_find_shifted_pairs``, in its order, visiting only the reference positions of equal words.

    Plain twin: `lightscore.text.mt.reference.shifted_pairs`.

    >>> list(shifted_pairs("abc", "bcx"))
    [(1, 0, 1), (1, 0, 2), (2, 1, 1)]
    """
    where: dict = {}
    for j, word in enumerate(ref):
        where.setdefault(word, []).append(j)
    n_h = len(hyp)
    n_r = len(ref)
    for start_h, word in enumerate(hyp):
        for start_r in where.get(word, ()):
            if abs(start_r - start_h) > MAX_SHIFT_DISTANCE:
                continue
            length = 0
            while hyp[start_h + length] == ref[start_r + length] and length < MAX_SHIFT_SIZE:
                length += 1
                yield start_h, start_r, length
                if n_h == start_h + length or n_r == start_r + length:
                    break


def beam_distances(pairs: Sequence[tuple[Sequence[int], Sequence[int]]], traces: bool = False) -> tuple[list, list]:
    """sacrebleu's ``BeamEditDistance(ref)(hyp)`` of each ``(hyp ids, ref ids)`` pair (both non-empty).

    Plain twin: `lightscore.text.mt.reference.beam_edit_distance` per pair.

    Args:
        pairs: Integer word ids of the hypothesis and the reference.
        traces: Also return each pair's trace of edit operations (sacrebleu's string).

    Returns:
        The distances, and the traces (empty list unless ``traces``).

    >>> beam_distances([([1, 2, 3], [1, 3]), ([5], [6, 5])], traces=True)
    ([1, 1], [' d ', 'i '])
    """
    order = sorted(range(len(pairs)), key=lambda k: (len(pairs[k][0]), len(pairs[k][1])))
    distances = [0] * len(pairs)
    out_traces = [""] * len(pairs) if traces else []
    start = 0
    while start < len(order):
        stop = start + 1
        rows = len(pairs[order[start]][0])
        cols = len(pairs[order[start]][1])
        while stop < len(order) and stop - start < 1024:
            h = max(rows, len(pairs[order[stop]][0]))
            r = max(cols, len(pairs[order[stop]][1]))
            if (stop - start + 1) * (h + 1) * (r + 1) > _MAX_CELLS:
                break
            rows = h
            cols = r
            stop = stop + 1
        group = order[start:stop]
        dist = _beam_group([pairs[k] for k in group], rows, cols)
        for n, k in enumerate(group):
            hyp, ref = pairs[k]
            distances[k] = dist.item(len(hyp), n, len(ref))
            if traces:
                out_traces[k] = _trace(dist[: len(hyp) + 1, n, : len(ref) + 1].tolist(), hyp, ref)
        start = stop
    return distances, out_traces


def _beam_group(pairs: list, rows: int, cols: int) -> np.ndarray:
    """The beam edit-distance matrices of pairs padded to ``rows`` x ``cols``, row by row, every pair at once.

    Returns:
        int64 ``(rows + 1, pairs, cols + 1)``: sacrebleu's cell values, `INFINITY` outside the band
        (rows past a pair's hypothesis and columns past its reference hold no meaning).
    """
    n = len(pairs)
    hyp = np.full((n, rows), -1, np.int64)
    ref = np.full((n, cols), -2, np.int64)
    for k, (h, r) in enumerate(pairs):
        hyp[k, : len(h)] = h
        ref[k, : len(r)] = r
    n_h = np.array([len(h) for h, _ in pairs], np.int64)[:, None]
    n_r = np.array([len(r) for _, r in pairs], np.int64)[:, None]
    ratio = n_r / n_h
    beam = np.where(BEAM_WIDTH < ratio / 2, np.ceil(ratio / 2 + BEAM_WIDTH), BEAM_WIDTH).astype(np.int64)
    i = np.arange(1, rows + 1)
    diag = np.floor(i * ratio).astype(np.int64)  # sacrebleu's pseudo-diagonal of every row at once
    high = np.where(i == n_h, n_r + 1, np.minimum(n_r + 1, diag + beam))
    j = np.arange(cols + 1)
    # row-major (row, pair, column) so that each step reads and writes contiguous blocks
    outside = ((j < np.maximum(0, diag - beam)[:, :, None]) | (j >= high[:, :, None])).transpose(1, 0, 2).copy()
    differ = (hyp.T[:, :, None] != ref[None, :, :]).astype(np.int64)
    dist = np.empty((rows + 1, n, cols + 1), np.int64)
    dist[0] = prev = np.where(j <= n_r, j, INFINITY)  # row 0: j insertions
    first = np.empty_like(prev)
    for r in range(rows):
        first[:, 0] = prev[:, 0] + 1  # column 0 can only delete
        np.minimum(np.minimum(prev[:, :-1] + differ[r], prev[:, 1:] + 1), INFINITY, out=first[:, 1:])
        np.copyto(first, INFINITY, where=outside[r])
        prev = close_row(first, j, out=dist[r + 1])  # insertions chain along the row, one unit each
        np.copyto(prev, INFINITY, where=outside[r])
    return dist


def _trace(dist: list[list[int]], hyp: Sequence[int], ref: Sequence[int]) -> str:
    """sacrebleu's backtrace from the bottom-right cell (its trace string, first operation first).

    A cell's operation is the first of sacrebleu's order (match or substitution, deletion,
    insertion) whose cost gives the cell's value: it replaces a candidate only when strictly cheaper.
    """
    out = []
    i = len(hyp)
    j = len(ref)
    while i > 0 or j > 0:
        here = dist[i][j]
        if i > 0 and j > 0 and dist[i - 1][j - 1] + (hyp[i - 1] != ref[j - 1]) == here:
            op = "s" if hyp[i - 1] != ref[j - 1] else " "
        elif i > 0 and (j == 0 or dist[i - 1][j] + 1 == here):
            op = "d"
        elif j > 0 and (i == 0 or dist[i][j - 1] + 1 == here):
            op = "i"
        else:
            raise AssertionError(f"TransTER: no edit operation at cell ({i}, {j})")
        out.append(op)
        i -= op != "i"
        j -= op != "d"
    return "".join(reversed(out))
