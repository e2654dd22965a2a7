"""Greedy ORC-WER: each reference segment moved, one at a time, to the stream where it costs least (meeteval's).

The exact ORC search (`lightscore.text.meeting.orc_search`) grows with the product of the streams'
lengths; meeteval's greedy approximation (``greedy_orcwer``, arXiv 2508.02112) grows linearly:

1. Start from cpWER's assignment: each reference speaker's segments go to the stream the Hungarian
   assignment gives that speaker, or, for a speaker left over, to the stream nearest to its words.
2. Sweep the segments in order. For each, compare every stream's cost with the segment against its
   cost without it, from a forward column (the stream against the segments placed so far in this
   sweep) and a backward column (the stream against the segments still to come under the sweep's
   starting assignment). The segment goes where the difference is smallest, staying put on a tie.
3. Repeat sweeps until nothing moves (at most 49), first with substitutions costing 2, then 1.

With word times (greedy tcORC-WER, `lightscore.text.meeting.tc_orc`) a word may only pair with a
hypothesis word whose time overlaps it; without them every pair may (all times ``[0, 1]``).

`sweeps` is written as plain loops and compiled with numba (``@njit(cache=True)``);
``sweeps.py_func`` is its plain twin, held equal in tests/test_meeting_orc.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit

from lightscore.text.meeting.assignment import OrcCounts, assign, orc_result, speaker_streams, word_ids
from lightscore.text.meeting.orc_search import flatten

__all__ = ["forward_column", "greedy_matching", "greedy_orc_counts", "initial_streams", "sweeps"]

MAX_SWEEPS = 49  # meeteval's: sweeps 1..49, the assignment almost always settles in a few


@njit(cache=True)
def forward_column(
    column: np.ndarray,
    hyp: np.ndarray,
    hyp_start: np.ndarray,
    hyp_end: np.ndarray,
    ref: np.ndarray,
    ref_start: np.ndarray,
    ref_end: np.ndarray,
    substitution: int,
) -> np.ndarray:
    """A Levenshtein column along one stream after reading ``ref``'s words, meeteval's ``cy_forward_col``.

    A word pairs with a hypothesis word only when their times overlap; a matching pair always takes
    the diagonal. Plain twin: ``forward_column.py_func``.

    Args:
        column: The costs at every position of the stream (its length plus one).
        hyp: The stream's word ids; ``hyp_start``, ``hyp_end`` their times.
        ref: The words read; ``ref_start``, ``ref_end`` their times.
        substitution: The cost of a substitution (2 or 1).

    Returns:
        The new column.

    >>> t = np.zeros(2); e = np.ones(2)
    >>> forward_column(np.arange(3), np.array([1, 2]), t, e, np.array([2]), t[:1], e[:1], 1).tolist()
    [1, 1, 1]
    """
    current = column.copy()
    for j in range(len(ref)):
        previous = current.copy()
        current[0] = previous[0] + 1
        for i in range(1, len(hyp) + 1):
            if hyp_start[i - 1] >= ref_end[j] or ref_start[j] >= hyp_end[i - 1]:  # no overlap: no pair
                current[i] = min(current[i - 1] + 1, previous[i] + 1)
            elif hyp[i - 1] == ref[j]:
                current[i] = previous[i - 1]
            else:
                current[i] = min(previous[i - 1] + substitution, current[i - 1] + 1, previous[i] + 1)
    return current


@njit(cache=True)
def _backward_columns(
    hyp: np.ndarray,
    hyp_start: np.ndarray,
    hyp_end: np.ndarray,
    words: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    bounds: np.ndarray,
    segments: np.ndarray,
    substitution: int,
) -> np.ndarray:
    """Row k: the stream from each position on against ``segments[k:]`` (the sequences read backwards)."""
    n = len(hyp)
    out = np.empty((len(segments) + 1, n + 1), dtype=np.int64)
    column = np.arange(n + 1)
    out[len(segments)] = column[::-1]
    for k in range(len(segments) - 1, -1, -1):
        lo = bounds[segments[k]]
        hi = bounds[segments[k] + 1]
        column = forward_column(
            column,
            hyp[::-1],
            hyp_start[::-1],
            hyp_end[::-1],
            words[lo:hi][::-1],
            starts[lo:hi][::-1],
            ends[lo:hi][::-1],
            substitution,
        )
        out[k] = column[::-1]
    return out


@njit(cache=True)
def sweeps(
    words: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    bounds: np.ndarray,
    hyp: np.ndarray,
    hyp_starts: np.ndarray,
    hyp_ends: np.ndarray,
    hyp_bounds: np.ndarray,
    assignment: np.ndarray,
    substitution: int,
) -> tuple[int, np.ndarray]:
    """Greedy sweeps until the assignment settles: meeteval's ``_greedy_correct_assignment``.

    Plain twin: ``sweeps.py_func`` (the same loops run by Python).

    Args:
        words: The reference segments' word ids, one after another; ``starts``, ``ends`` their times.
        bounds: Where each segment starts in ``words`` (and where the last ends).
        hyp: The streams' word ids, one after another; ``hyp_starts``, ``hyp_ends`` their times.
        hyp_bounds: Where each stream starts in ``hyp`` (and where the last ends).
        assignment: The starting stream of each segment.
        substitution: The cost of a substitution.

    Returns:
        ``(cost, assignment)`` after the last sweep.

    >>> w, b = flatten([[1], [2, 3], [4]]); h, hb = flatten([[1, 2], [3, 4]])
    >>> cost, a = sweeps(w, w * 0.0, w * 0.0 + 1, b, h, h * 0.0, h * 0.0 + 1, hb, np.zeros(3, np.int64), 1)
    >>> int(cost), a.tolist()
    (2, [0, 1, 1])
    """
    n_streams = len(hyp_bounds) - 1
    n_segments = len(bounds) - 1
    width = 1
    for s in range(n_streams):
        width = max(width, hyp_bounds[s + 1] - hyp_bounds[s] + 1)
    assignment = assignment.copy()
    stream_costs = np.zeros(n_streams, dtype=np.int64)
    with_segment = np.zeros(n_streams, dtype=np.int64)
    without_segment = np.zeros(n_streams, dtype=np.int64)
    differences = np.zeros(n_streams, dtype=np.int64)
    forward = np.zeros((n_streams, width), dtype=np.int64)
    updated = np.zeros((n_streams, width), dtype=np.int64)
    for _ in range(MAX_SWEEPS):
        # Each stream's backward columns under the sweep's starting assignment, stacked: stream s from row first[s].
        first = np.zeros(n_streams + 1, dtype=np.int64)
        for s in range(n_streams):
            first[s + 1] = first[s] + np.sum(assignment == s) + 1
        backward = np.zeros((first[-1], width), dtype=np.int64)
        for s in range(n_streams):
            lo = hyp_bounds[s]
            hi = hyp_bounds[s + 1]
            placed = np.nonzero(assignment == s)[0]
            columns = _backward_columns(
                hyp[lo:hi], hyp_starts[lo:hi], hyp_ends[lo:hi], words, starts, ends, bounds, placed, substitution
            )
            backward[first[s] : first[s + 1], : hi - lo + 1] = columns
            stream_costs[s] = columns[0, 0]
            forward[s, : hi - lo + 1] = np.arange(hi - lo + 1)
        passed = np.zeros(n_streams, dtype=np.int64)  # segments of each stream the sweep has passed
        new = np.empty(n_segments, dtype=np.int64)
        for k in range(n_segments):
            current = assignment[k]
            lo_w = bounds[k]
            hi_w = bounds[k + 1]
            for s in range(n_streams):
                lo = hyp_bounds[s]
                n = hyp_bounds[s + 1] - lo + 1
                updated[s, :n] = forward_column(
                    forward[s, :n],
                    hyp[lo : lo + n - 1],
                    hyp_starts[lo : lo + n - 1],
                    hyp_ends[lo : lo + n - 1],
                    words[lo_w:hi_w],
                    starts[lo_w:hi_w],
                    ends[lo_w:hi_w],
                    substitution,
                )
                if s == current:
                    with_segment[s] = stream_costs[s]
                    without_segment[s] = np.min(forward[s, :n] + backward[first[s] + passed[s] + 1, :n])
                else:
                    without_segment[s] = stream_costs[s]
                    with_segment[s] = np.min(updated[s, :n] + backward[first[s] + passed[s], :n])
                differences[s] = with_segment[s] - without_segment[s]
            best = np.argmin(differences)
            if differences[best] == differences[current]:  # an equal move is no move
                best = current
            forward[best] = updated[best]
            passed[current] += 1
            new[k] = best
            if best != current:
                stream_costs[best] = with_segment[best]
                stream_costs[current] = without_segment[current]
        if np.all(new == assignment):
            break
        assignment = new
    return np.sum(stream_costs), assignment


def greedy_matching(
    segments: Sequence[Sequence[tuple[int, float, float]]],
    streams: Sequence[Sequence[tuple[int, float, float]]],
    initial: Sequence[int],
    compiled: bool = True,
) -> tuple[int, list[int]]:
    """meeteval's ``greedy_(time_constrained_)combination_matching``: sweeps with substitutions costing 2, then 1.

    Plain twin: ``compiled=False`` runs ``sweeps.py_func``.

    Args:
        segments: Each reference segment's ``(word id, start, end)``, in order.
        streams: Each hypothesis stream's ``(word id, start, end)`` (at least one stream).
        initial: The starting stream of each segment (`initial_streams`).
        compiled: False runs the same loops in Python.

    Returns:
        ``(errors, streams)``: the distance and each segment's stream.

    >>> untimed = lambda lists: [[(w, 0.0, 1.0) for w in x] for x in lists]
    >>> greedy_matching(untimed([[1], [2, 3, 4]]), untimed([[1, 2], [3, 4]]), [0, 0])
    (2, [0, 1])
    """
    if not segments:
        return sum(map(len, streams)), []
    words, bounds = flatten([[w for w, _, _ in seg] for seg in segments])
    starts = np.array([t for seg in segments for _, t, _ in seg], dtype=np.float64)
    ends = np.array([t for seg in segments for _, _, t in seg], dtype=np.float64)
    hyp, hyp_bounds = flatten([[w for w, _, _ in s] for s in streams])
    hyp_starts = np.array([t for s in streams for _, t, _ in s], dtype=np.float64)
    hyp_ends = np.array([t for s in streams for _, _, t in s], dtype=np.float64)
    run = sweeps if compiled else sweeps.py_func
    assignment = np.array(initial, dtype=np.int64)
    cost = 0
    for substitution in (2, 1):
        cost, assignment = run(
            words, starts, ends, bounds, hyp, hyp_starts, hyp_ends, hyp_bounds, assignment, substitution
        )
    return int(cost), [int(a) for a in assignment]


def initial_streams(speakers: Sequence[int], distances: Sequence[Sequence[int]]) -> list[int]:
    """Each segment's starting stream from cpWER's speaker assignment (meeteval's ``initialize_assignment``).

    Args:
        speakers: Each segment's reference speaker index (speakers numbered by first appearance).
        distances: ``distances[r][h]``: reference speaker r's words against stream h; one more column
            (each speaker against no stream) and one more row (each stream against no speaker), the
            padding of meeteval's square matrix.

    Returns:
        The stream of each segment: its speaker's assigned stream, or, for a speaker the Hungarian
        assignment leaves without a stream, the nearest stream (the first on a tie).

    >>> initial_streams([0, 1, 0, 2], [[3, 0, 3], [0, 2, 2], [1, 1, 1], [2, 2, 0]])
    [1, 0, 1, 0]
    """
    n_speakers = len(distances) - 1
    n_streams = len(distances[0]) - 1

    def distance(r: int | None, h: int | None) -> int:
        return distances[-1 if r is None else r][-1 if h is None else h]

    stream_of = {}
    for r, h in assign(list(range(n_speakers)), list(range(n_streams)), distance, None):
        if r is not None:
            row = distances[r][:n_streams]
            stream_of[r] = h if h is not None else row.index(min(row))
    return [stream_of[s] for s in speakers]


def greedy_orc_counts(ref_segments: Sequence[Any], hyp_segments: Sequence[Any], compiled: bool = True) -> OrcCounts:
    """Greedy ORC-WER counts of one session: equal to meeteval's ``greedy_orc_word_error_rate``.

    Reference segments are taken in start order (stable); the hypothesis is one word stream per
    speaker (`speaker_streams`). Plain twin: ``compiled=False``.

    Args:
        ref_segments: The reference segments (``speaker``, ``start``, ``words``).
        hyp_segments: The hypothesis segments.
        compiled: False runs the sweeps' plain twin.

    Returns:
        The session's `OrcCounts`; the assignment names each segment's stream, in input order.

    >>> from lightscore.segments import Segment
    >>> ref = [Segment("A", 0, 1, "a"), Segment("A", 1, 2, "c d e")]
    >>> greedy_orc_counts(ref, [Segment("x", 0, 2, "a c"), Segment("y", 1, 3, "d e")])
    OrcCounts(errors=2, length=4, substitutions=0, deletions=1, insertions=1, assignment=('x', 'y'))
    """
    order = sorted(range(len(ref_segments)), key=lambda i: ref_segments[i].start)
    utterances = [ref_segments[i].words.split() for i in order]
    hyp = speaker_streams(hyp_segments)
    if not hyp:
        return orc_result(order, utterances, {}, None)
    vocab: dict[str, int] = {}
    ids = [word_ids(words, vocab) for words in utterances]
    streams = [word_ids(words, vocab) for words in hyp.values()]
    speakers: dict[Any, int] = {}
    speaker_of = [speakers.setdefault(ref_segments[i].speaker, len(speakers)) for i in order]
    chosen = greedy_matching(
        [[(w, 0.0, 1.0) for w in seg] for seg in ids],
        [[(w, 0.0, 1.0) for w in s] for s in streams],
        initial_streams(speaker_of, _cp_distances(ids, speaker_of, len(speakers), streams)),
        compiled,
    )[1]
    return orc_result(order, utterances, hyp, chosen)


def _cp_distances(ids: list[list[int]], speaker_of: list[int], n_speakers: int, streams: list[list[int]]) -> list:
    """Each reference speaker's words against each stream and against nothing (the last column), rapidfuzz's
    Levenshtein; a last row holds each stream against nothing."""
    from rapidfuzz.distance import Levenshtein

    words: list[list[int]] = [[] for _ in range(n_speakers)]
    for speaker, seg in zip(speaker_of, ids):
        words[speaker].extend(seg)
    rows = [[Levenshtein.distance(w, s) for s in streams] + [len(w)] for w in words]
    return rows + [[len(s) for s in streams] + [0]]
