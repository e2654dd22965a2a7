"""Time-constrained ORC-WER, exact and greedy: ORC-WER where a word pairs only with a hypothesis word it overlaps.

Words get tcpWER's pseudo word times (`lightscore.text.meeting.time_constrained.pseudo_word_times`,
the hypothesis' widened by the collar). The exact search (`search`) is meeteval's
``time_constrained_orc_levenshtein_distance``: reference segments are read in start order, and the
state after each segment covers only the hypothesis words whose times can reach it (per stream, a
window that slides forward). Each new state is filled from the one before, stream by stream: the
window's line along a stream starts from the nearest cell of the old state (words skipped in
between are insertions), runs a time-constrained Levenshtein row over the segment's words (pruned
to the overlapping band, meeteval's rules, tie for tie), and a cell keeps the lowest cost, the
first stream on a tie. A stream the segment does not reach is skipped, unless no stream is. Words
after the last window are insertions. Walking the kept links back names each segment's stream.

The greedy variant (`greedy_tc_orc_counts`) is `lightscore.text.meeting.greedy_orc`'s sweeps with
times, started from tcpWER's distances.

`search` is plain loops compiled with numba (``@njit(cache=True)``); ``search.py_func`` is its
plain twin, held equal in tests/test_meeting_orc.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit

from lightscore.text.meeting.assignment import OrcCounts, word_ids
from lightscore.text.meeting.greedy_orc import greedy_matching, initial_streams
from lightscore.text.meeting.orc_search import flatten, grid_strides
from lightscore.text.meeting.tc_pair import pair_breakdown
from lightscore.text.meeting.time_constrained import pseudo_word_times

__all__ = ["greedy_tc_orc_counts", "search", "tc_orc_counts", "tc_orc_matching"]

TimedWord = tuple[Any, float, float]


@njit(cache=True)
def _reach(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each word: the earliest start from it on (no later than the last end) and the latest end up to it
    (from 0). meeteval bounds its windows with these, so that words out of time order are still reached."""
    n = len(starts)
    latest_end = np.empty(n)
    earliest_start = np.empty(n)
    t = 0.0
    for i in range(n):
        t = max(t, ends[i])
        latest_end[i] = t
    for i in range(n - 1, -1, -1):
        t = min(t, starts[i])
        earliest_start[i] = t
    return earliest_start, latest_end


@njit(cache=True)
def _tc_row(
    cost: np.ndarray,
    origin: np.ndarray,
    ref: np.ndarray,
    ref_start: np.ndarray,
    ref_end: np.ndarray,
    ref_first: np.ndarray,
    ref_last: np.ndarray,
    hyp: np.ndarray,
    hyp_start: np.ndarray,
    hyp_end: np.ndarray,
    hyp_first: np.ndarray,
    hyp_last: np.ndarray,
    begin: int,
    steps: int,
) -> None:
    """One window line (``steps + 1`` cells from stream word ``begin``) after reading a segment, in place.

    meeteval's pruned time-constrained row: cells left of the band a reference word can reach are
    final once passed (the remaining reference words added as deletions), cells right of the
    band not yet reached are their start value plus the words read (or the diagonal plus one).
    """
    n_ref = len(ref)
    band_start = 0
    band_end = 0
    for r in range(n_ref):
        diagonal_cost = cost[band_start]
        diagonal_origin = origin[band_start]
        cost[band_start] += 1
        left_cost = cost[band_start]
        left_origin = origin[band_start]
        j = band_start + 1
        shifting = True
        while j < steps + 1:
            h = begin + j - 1
            if shifting:
                if ref_first[r] > hyp_last[h]:
                    band_start += 1
                else:
                    shifting = False
            up_cost = cost[j]
            up_origin = origin[j]
            if j > band_end:  # not reached by an earlier word of this segment
                up_cost += r
                if diagonal_cost < up_cost:
                    up_cost = diagonal_cost + 1
                    up_origin = diagonal_origin
            if hyp_start[h] >= ref_end[r] or ref_start[r] >= hyp_end[h]:  # no overlap: no pair
                if up_cost < left_cost:
                    left_cost = up_cost
                    left_origin = up_origin
                left_cost += 1
            elif ref[r] == hyp[h]:
                left_cost = diagonal_cost
                left_origin = diagonal_origin
            else:
                if up_cost < left_cost:
                    left_cost = up_cost
                    left_origin = up_origin
                if diagonal_cost < left_cost:
                    left_cost = diagonal_cost
                    left_origin = diagonal_origin
                left_cost += 1
            cost[j] = left_cost
            origin[j] = left_origin
            diagonal_cost = up_cost
            diagonal_origin = up_origin
            if shifting:  # the cell left behind is final: only deletions of the words still to read follow
                cost[j - 1] += n_ref - r - 1
            if ref_last[r] < hyp_first[h]:
                break
            j += 1
        band_end = j
    while band_end < steps:
        up_cost = cost[band_end + 1] + n_ref
        left_cost = cost[band_end] + 1
        left_origin = origin[band_end]
        if up_cost < left_cost:
            left_cost = up_cost
            left_origin = origin[band_end + 1]
        cost[band_end + 1] = left_cost
        origin[band_end + 1] = left_origin
        band_end += 1


@njit(cache=True)
def search(
    words: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    bounds: np.ndarray,
    hyp: np.ndarray,
    hyp_starts: np.ndarray,
    hyp_ends: np.ndarray,
    hyp_bounds: np.ndarray,
) -> tuple[int, np.ndarray]:
    """The fewest time-constrained errors and each segment's stream: meeteval's tcORC search.

    Plain twin: ``search.py_func`` (the same loops run by Python).

    Args:
        words: The reference segments' word ids, one after another (every segment holds a word);
            ``starts``, ``ends`` their times.
        bounds: Where each segment starts in ``words`` (and where the last ends).
        hyp: The streams' word ids, one after another; ``hyp_starts``, ``hyp_ends`` their times.
        hyp_bounds: Where each stream starts in ``hyp`` (and where the last ends); at least one stream.

    Returns:
        ``(errors, streams)``.

    >>> w, b = flatten([[1], [2]]); h, hb = flatten([[1], [2]]); start = np.array([0.0, 5]); end = start + 1
    >>> errors, chosen = search(w, start, end, b, h, start, end, hb)
    >>> int(errors), chosen.tolist()
    (0, [0, 1])
    """
    n_streams = len(hyp_bounds) - 1
    n_segments = len(bounds) - 1
    hyp_first = np.empty(len(hyp))
    hyp_last = np.empty(len(hyp))
    for s in range(n_streams):
        lo = hyp_bounds[s]
        hi = hyp_bounds[s + 1]
        hyp_first[lo:hi], hyp_last[lo:hi] = _reach(hyp_starts[lo:hi], hyp_ends[lo:hi])
    # Each segment's time span: its earliest start from it on, its latest end up to it.
    seg_first = np.empty(n_segments)
    seg_last = np.empty(n_segments)
    for k in range(n_segments):
        seg_first[k] = starts[bounds[k] : bounds[k + 1]].min()
        seg_last[k] = ends[bounds[k] : bounds[k + 1]].max()
    seg_first, seg_last = _reach(seg_first, seg_last)
    word_first = np.empty(len(words))
    word_last = np.empty(len(words))
    for k in range(n_segments):
        word_first[bounds[k] : bounds[k + 1]], word_last[bounds[k] : bounds[k + 1]] = _reach(
            starts[bounds[k] : bounds[k + 1]], ends[bounds[k] : bounds[k + 1]]
        )
    # Each segment's window: per stream its first word and its length plus one.
    window_start = np.zeros((n_segments, n_streams), dtype=np.int64)
    window_dims = np.ones((n_segments, n_streams), dtype=np.int64)
    sizes = np.ones(n_segments + 1, dtype=np.int64)  # sizes[k + 1]: the state after segment k
    position = hyp_bounds[:-1].copy()
    for k in range(n_segments):
        for s in range(n_streams):
            while position[s] < hyp_bounds[s + 1] and hyp_last[position[s]] < seg_first[k]:
                position[s] += 1
            stop = position[s]
            while stop < hyp_bounds[s + 1] and hyp_first[stop] < seg_last[k]:
                stop += 1
            window_start[k, s] = position[s] - hyp_bounds[s]
            window_dims[k, s] = stop - position[s] + 1
            sizes[k + 1] *= window_dims[k, s]
    first_link = np.zeros(n_segments + 1, dtype=np.int64)
    for k in range(n_segments):
        first_link[k + 1] = first_link[k] + sizes[k + 1]
    link_stream = np.empty(first_link[-1], dtype=np.int64)
    link_cell = np.empty(first_link[-1], dtype=np.int64)
    old_cost = np.zeros(1, dtype=np.int64)
    old_start = np.zeros(n_streams, dtype=np.int64)
    old_dims = np.ones(n_streams, dtype=np.int64)
    old_strides = np.ones(n_streams, dtype=np.int64)
    row_cost = np.empty(int(window_dims.max()) if n_segments else 1, dtype=np.int64)
    row_origin = np.empty(len(row_cost), dtype=np.int64)
    nearest = np.empty(n_streams, dtype=np.int64)
    for k in range(n_segments):
        dims = window_dims[k]
        strides = grid_strides(dims)[0]
        size = sizes[k + 1]
        cost = np.empty(size, dtype=np.int64)
        lo_w = bounds[k]
        hi_w = bounds[k + 1]
        first_update = True
        updated = False
        for s in range(n_streams):
            if dims[s] == 1 and (updated or s < n_streams - 1):
                continue  # the segment reaches no word of this stream: placing it there cannot be cheaper
            updated = True
            lo = hyp_bounds[s]
            for block in range(0, size, strides[s] * dims[s]):
                for first in range(block, block + strides[s]):
                    # The old state's cell nearest to this line's start; the words between are insertions.
                    gap = 0
                    base = 0
                    for d in range(n_streams):
                        old = (first // strides[d]) % dims[d] + window_start[k, d] - old_start[d]
                        nearest[d] = min(old, old_dims[d] - 1)
                        gap += old - nearest[d]
                        base += nearest[d] * old_strides[d]
                    for j in range(dims[s]):
                        if nearest[s] + j < old_dims[s]:
                            cell = base + j * old_strides[s]
                            row_origin[j] = cell
                            row_cost[j] = old_cost[cell] + gap
                        else:  # past the old window: one more insertion
                            row_origin[j] = row_origin[j - 1]
                            row_cost[j] = row_cost[j - 1] + 1
                    _tc_row(
                        row_cost,
                        row_origin,
                        words[lo_w:hi_w],
                        starts[lo_w:hi_w],
                        ends[lo_w:hi_w],
                        word_first[lo_w:hi_w],
                        word_last[lo_w:hi_w],
                        hyp[lo:],
                        hyp_starts[lo:],
                        hyp_ends[lo:],
                        hyp_first[lo:],
                        hyp_last[lo:],
                        window_start[k, s],
                        dims[s] - 1,
                    )
                    for j in range(dims[s]):
                        cell = first + j * strides[s]
                        if first_update or row_cost[j] < cost[cell]:  # the first stream keeps a tie
                            cost[cell] = row_cost[j]
                            link_stream[first_link[k] + cell] = s
                            link_cell[first_link[k] + cell] = row_origin[j]
            first_update = False
        old_cost = cost
        old_start = window_start[k].copy()
        old_dims = dims.copy()
        old_strides = strides
    errors = old_cost[-1]
    for s in range(n_streams):  # words after the last window
        left = hyp_bounds[s + 1] - hyp_bounds[s] - (old_start[s] + old_dims[s] - 1)
        if left > 0:
            errors += left
    chosen = np.empty(n_segments, dtype=np.int64)
    cell = sizes[n_segments] - 1
    for k in range(n_segments - 1, -1, -1):
        chosen[k] = link_stream[first_link[k] + cell]
        cell = link_cell[first_link[k] + cell]
    return errors, chosen


def _arrays(lists: Sequence[Sequence[TimedWord]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    ids, bounds = flatten([[w for w, _, _ in x] for x in lists])
    starts = np.array([t for x in lists for _, t, _ in x], dtype=np.float64)
    ends = np.array([t for x in lists for _, _, t in x], dtype=np.float64)
    return ids, starts, ends, bounds


def tc_orc_matching(
    segments: Sequence[Sequence[TimedWord]], streams: Sequence[Sequence[TimedWord]], compiled: bool = True
) -> tuple[int, list[int]]:
    """The fewest time-constrained errors and each segment's stream: `search` on lists.

    Plain twin: ``compiled=False`` runs ``search.py_func``.

    Args:
        segments: Each reference segment's ``(word id, start, end)`` (each holds a word), in start order.
        streams: Each hypothesis stream's ``(word id, start, end)`` (at least one stream).
        compiled: False runs the same loops in Python.

    Returns:
        ``(errors, streams)``.

    >>> tc_orc_matching([[(1, 0, 1)], [(2, 5, 6)]], [[(2, 5, 6)], [(1, 0, 1)]])
    (0, [1, 0])
    """
    if not segments:
        return sum(map(len, streams)), []
    run = search if compiled else search.py_func
    errors, chosen = run(*_arrays(segments), *_arrays(streams))
    return int(errors), [int(c) for c in chosen]


def _timed_session(
    ref_segments: Sequence[Any],
    hyp_segments: Sequence[Any],
    collar: float,
    timings: tuple[str, str],
    sorts: tuple[str | bool, str | bool],
    speaking_streams: bool,
) -> tuple[list[int], list[list[TimedWord]], dict[Any, list[TimedWord]]]:
    """The reference segments' order (``sorts[0]``: by start, or as given when False), each one's timed words,
    and each hypothesis speaker's timed words (in ``sorts[1]``'s order, `pseudo_word_times`); words as ids,
    empty words dropped. ``speaking_streams``: only the speakers with a word, ordered by their first word
    (meeteval's word-level grouping); else every speaker, in order of first segment.

    Raises:
        ValueError: a sort of True and word times that run backwards (meeteval's check), naming the side.
    """
    ref_sort, hyp_sort = sorts
    if ref_sort is True:  # only meeteval's check: the order is the segments' by start
        pseudo_word_times(ref_segments, timings[0], sort=True, side="reference")
    indices = range(len(ref_segments))
    order = list(indices) if ref_sort is False else sorted(indices, key=lambda i: ref_segments[i].start)
    vocab: dict[str, int] = {}
    segments = []
    for i in order:
        seg = ref_segments[i]
        segments.append(_as_ids(pseudo_word_times([seg], timings[0])[seg.speaker], vocab))
    if speaking_streams:
        if hyp_sort is True:
            pseudo_word_times(hyp_segments, timings[1], collar, sort=True, side="hypothesis")
            hyp_sort = "segment"
        hyp_segments = [seg for seg in hyp_segments if seg.words.split()]
    timed = pseudo_word_times(hyp_segments, timings[1], collar, sort=hyp_sort, side="hypothesis")
    return order, segments, {name: _as_ids(words, vocab) for name, words in timed.items()}


def _as_ids(words: Sequence[TimedWord], vocab: dict[str, int]) -> list[TimedWord]:
    """``(word, start, end)`` as ``(word id, start, end)``, empty words dropped."""
    kept = [w for w in words if w[0]]
    return [(i, start, end) for i, (_, start, end) in zip(word_ids([w for w, _, _ in kept], vocab), kept)]


def _tc_result(
    order: Sequence[int],
    segments: Sequence[Sequence[TimedWord]],
    hyp: dict[Any, Sequence[TimedWord]],
    chosen: Any,
    compiled: bool,
) -> OrcCounts:
    """`OrcCounts` from each segment's stream index (None for a segment that went nowhere): each stream's
    assigned words against its own (word ids), meeteval's time-constrained traceback (`pair_breakdown`)."""
    names = list(hyp)
    assigned: list[list[TimedWord]] = [[] for _ in names]
    for stream, words in zip(chosen, segments):
        if stream is not None:
            assigned[stream].extend(words)
    sub = dele = ins = 0
    for words, hyp_words in zip(assigned, hyp.values()):
        _, s, d, i = pair_breakdown(words, hyp_words, compiled)
        sub, dele, ins = sub + s, dele + d, ins + i
    length = sum(map(len, segments))
    dele += length - sum(map(len, assigned))  # no stream at all: every word deleted
    assignment: list[Any] = [None] * len(order)
    for index, stream in zip(order, chosen):
        assignment[index] = names[stream] if stream is not None else None
    return OrcCounts(sub + dele + ins, length, sub, dele, ins, tuple(assignment))


def tc_orc_counts(
    ref_segments: Sequence[Any],
    hyp_segments: Sequence[Any],
    collar: float,
    reference_pseudo_word_level_timing: str = "character_based",
    hypothesis_pseudo_word_level_timing: str = "character_based_points",
    reference_sort: str | bool = "segment",
    hypothesis_sort: str | bool = "segment",
    compiled: bool = True,
) -> OrcCounts:
    """tcORC-WER counts of one session: equal to meeteval's ``time_constrained_orc_wer``.

    Segments without words take no part in the search and are given the first hypothesis speaker
    by name (meeteval's rule); with no hypothesis word at all every segment's stream is None.
    Plain twin: ``compiled=False``.

    Args:
        ref_segments: The reference segments (``speaker``, ``start``, ``end``, ``words``).
        hyp_segments: The hypothesis segments.
        collar: Seconds added before and after every hypothesis word.
        reference_pseudo_word_level_timing: How reference segments' times are split among their words.
        hypothesis_pseudo_word_level_timing: The same for the hypothesis.
        reference_sort: ``"segment"`` (by start time), True (the same, and an error when word times run
            backwards) or False (as given); meeteval refuses ``"word"``, as ORC keeps a segment whole.
        hypothesis_sort: One of `lightscore.text.meeting.time_constrained.SORTS`.
        compiled: False runs the search's plain twin.

    Raises:
        ValueError: ``reference_sort="word"``; a sort of True and word times that run backwards.

    Returns:
        The session's `OrcCounts`; the assignment names each segment's stream, in input order.

    >>> from lightscore.segments import Segment
    >>> ref = [Segment("A", 0, 1, "a"), Segment("A", 10, 11, "b")]
    >>> tc_orc_counts(ref, [Segment("x", 10, 11, "b"), Segment("y", 0, 1, "a")], collar=0.5)
    OrcCounts(errors=0, length=2, substitutions=0, deletions=0, insertions=0, assignment=('y', 'x'))
    """
    if reference_sort == "word":
        raise ValueError("reference_sort 'word' is not supported by tcORC-WER (meeteval's): a segment stays whole")
    timings = (reference_pseudo_word_level_timing, hypothesis_pseudo_word_level_timing)
    # meeteval scores the words one by one here: streams without a word drop out.
    order, segments, hyp = _timed_session(
        ref_segments, hyp_segments, collar, timings, (reference_sort, hypothesis_sort), speaking_streams=True
    )
    spoken = [k for k, words in enumerate(segments) if words]
    chosen: list[Any] = [None] * len(segments)
    if hyp:
        found = tc_orc_matching([segments[k] for k in spoken], list(hyp.values()), compiled)[1]
        for k, stream in zip(spoken, found):
            chosen[k] = stream
        silent = list(hyp).index(min(hyp))
        chosen = [silent if not segments[k] else c for k, c in enumerate(chosen)]
    return _tc_result(order, segments, hyp, chosen, compiled)


def greedy_tc_orc_counts(
    ref_segments: Sequence[Any],
    hyp_segments: Sequence[Any],
    collar: float,
    reference_pseudo_word_level_timing: str = "character_based",
    hypothesis_pseudo_word_level_timing: str = "character_based_points",
    reference_sort: str | bool = "segment",
    hypothesis_sort: str | bool = "segment",
    compiled: bool = True,
) -> OrcCounts:
    """Greedy tcORC-WER counts of one session: equal to meeteval's ``greedy_time_constrained_orc_wer``.

    The greedy sweeps (`lightscore.text.meeting.greedy_orc.greedy_matching`) with word times,
    started from each reference speaker's tcpWER stream. Plain twin: ``compiled=False``.

    Args:
        ref_segments: The reference segments (``speaker``, ``start``, ``end``, ``words``).
        hyp_segments: The hypothesis segments.
        collar: Seconds added before and after every hypothesis word.
        reference_pseudo_word_level_timing: How reference segments' times are split among their words.
        hypothesis_pseudo_word_level_timing: The same for the hypothesis.
        reference_sort: ``"segment"`` (by start time), True (the same, and an error when word times run
            backwards) or False (as given); meeteval refuses ``"word"`` on both sides here.
        hypothesis_sort: The same for the hypothesis.
        compiled: False runs the sweeps' plain twin.

    Raises:
        ValueError: a sort of ``"word"``; a sort of True and word times that run backwards.

    Returns:
        The session's `OrcCounts`; the assignment names each segment's stream, in input order.

    >>> from lightscore.segments import Segment
    >>> ref = [Segment("A", 0, 1, "a"), Segment("A", 10, 11, "b")]
    >>> greedy_tc_orc_counts(ref, [Segment("x", 10, 11, "b"), Segment("y", 0, 1, "a")], collar=0.5)
    OrcCounts(errors=0, length=2, substitutions=0, deletions=0, insertions=0, assignment=('y', 'x'))
    """
    for option, value in (("reference_sort", reference_sort), ("hypothesis_sort", hypothesis_sort)):
        if value == "word":
            raise ValueError(f"{option} 'word' is not supported by greedy tcORC-WER (meeteval's): segments stay whole")
    timings = (reference_pseudo_word_level_timing, hypothesis_pseudo_word_level_timing)
    order, segments, hyp = _timed_session(
        ref_segments, hyp_segments, collar, timings, (reference_sort, hypothesis_sort), speaking_streams=False
    )
    if not hyp:
        return _tc_result(order, segments, hyp, [None] * len(segments), compiled)
    speakers: dict[Any, int] = {}
    speaker_of = [speakers.setdefault(ref_segments[i].speaker, len(speakers)) for i in order]
    spoken: list[list[TimedWord]] = [[] for _ in speakers]
    for speaker, words in zip(speaker_of, segments):
        spoken[speaker].extend(words)
    streams = list(hyp.values())
    distances = [[pair_breakdown(words, s, compiled)[0] for s in streams] + [len(words)] for words in spoken]
    distances.append([len(s) for s in streams] + [0])
    chosen = greedy_matching(segments, streams, initial_streams(speaker_of, distances), compiled)[1]
    return _tc_result(order, segments, hyp, chosen, compiled)
