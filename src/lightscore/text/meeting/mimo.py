"""MIMO-WER of one session: meeteval's ``mimower``, its search a loop compiled by numba.

MIMO-WER (multiple input speakers, multiple output channels) lets every reference
utterance go to any hypothesis stream, while each reference speaker's utterances keep
their order: the assignment is a path through the grid of positions in every
reference speaker's utterance list. Each grid point holds a search state over the
hypothesis streams' positions, as ORC-WER's (`lightscore.text.meeting.orc_search`),
which is the one-reference-speaker case. The tie rules are meeteval's ``mimo_matching_``
(C++), so the same assignment comes out:

- in a Levenshtein row, a matching word takes the diagonal; otherwise the cell to the
  left wins a tie, then the one above, then the diagonal;
- a state keeps the lowest cost from the first (reference speaker, hypothesis stream)
  pair that reaches it, speakers and streams in order (ties keep the first);
- the very first state is meeteval's (`lightscore.text.meeting.orc_search.start_costs`).

`search` is plain loops compiled with numba (``@njit(cache=True)``, the ``meeting``
extra); ``search.py_func`` runs the same code in Python, its plain twin in the tests.
`mimo_counts` turns a session's segments into meeteval's result: errors, S/D/I (each
stream against its assigned reference words, with kaldialign, as meeteval reports them)
and the assignment.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from lightscore.text.meeting.assignment import speaker_streams, word_breakdown, word_ids
from lightscore.text.meeting.orc_search import flatten, grid_strides, list_positions, read_utterance, start_costs

__all__ = ["MAX_SPEAKERS", "MAX_STATES", "MimoCounts", "mimo_counts", "mimo_matching", "search"]

MAX_SPEAKERS = 10
"""meeteval refuses sessions with more speakers on either side (doc/num_speaker_limits.md)."""

MAX_STATES = 20_000_000
"""The largest search (reference grid points times hypothesis grid points) MIMO-WER accepts: 20 bytes each."""


@njit(cache=True)
def search(
    words: np.ndarray,
    word_bounds: np.ndarray,
    speaker_bounds: np.ndarray,
    hyp: np.ndarray,
    hyp_bounds: np.ndarray,
) -> tuple[int, np.ndarray]:
    """The fewest errors and the path: meeteval's ``mimo_matching_``.

    Plain twin: ``search.py_func`` (the same loops run by Python).

    Args:
        words: Every reference utterance's word ids, one after another (speaker by speaker).
        word_bounds: Where each utterance starts in ``words`` (and where the last ends).
        speaker_bounds: Where each reference speaker's utterances start among the utterances (and the end).
        hyp: The hypothesis streams' word ids, one after another.
        hyp_bounds: Where each stream starts in ``hyp`` (and where the last ends); at least one stream.

    Returns:
        ``(errors, path)``: the distance and, per utterance in the order the path reads them, the row
        ``(reference speaker, hypothesis stream)``.

    >>> w, wb = flatten([[1, 2], [3, 4], [5, 6]]); h, hb = flatten([[1, 2], [5, 6, 3, 4]])
    >>> errors, path = search(w, wb, np.array([0, 2, 3]), h, hb)
    >>> int(errors), path.tolist()
    (0, [[1, 1], [0, 0], [0, 1]])
    """
    n_speakers = len(speaker_bounds) - 1
    n_streams = len(hyp_bounds) - 1
    dims = list_positions(hyp_bounds)
    strides, total = grid_strides(dims)
    ref_dims = list_positions(speaker_bounds)
    ref_strides, ref_total = grid_strides(ref_dims)
    # One search state per reference grid point, with each cell's way back: the cell it came from in the
    # previous state and the (speaker, stream) pair that led there, packed as speaker * n_streams + stream.
    cost = np.empty((ref_total, total), dtype=np.int64)
    came_from = np.zeros((ref_total, total), dtype=np.int64)
    pair_of = np.zeros((ref_total, total), dtype=np.int32)
    cost[0] = start_costs(dims)
    position = np.zeros(n_speakers, dtype=np.int64)  # how many utterances of each speaker are read
    row_cost = np.empty(dims.max(), dtype=np.int64)
    row_origin = np.empty(dims.max(), dtype=np.int64)
    for point in range(1, ref_total):
        for r in range(n_speakers):  # the next grid point, speaker 0 varying fastest
            position[r] += 1
            if position[r] < ref_dims[r]:
                break
            position[r] = 0
        first_update = True
        for r in range(n_speakers):
            if position[r] == 0:
                continue
            previous = point - ref_strides[r]
            u = speaker_bounds[r] + position[r] - 1
            utterance = words[word_bounds[u] : word_bounds[u + 1]]
            for a in range(n_streams):
                stride = strides[a]
                dim = dims[a]
                stream = hyp[hyp_bounds[a] : hyp_bounds[a + 1]]
                for block in range(0, total, stride * dim):
                    for first in range(block, block + stride):
                        for j in range(dim):  # the grid line through `first` along stream a
                            row_cost[j] = cost[previous, first + j * stride]
                            row_origin[j] = first + j * stride
                        read_utterance(row_cost[:dim], row_origin[:dim], utterance, stream)
                        for j in range(dim):
                            cell = first + j * stride
                            if first_update or row_cost[j] < cost[point, cell]:
                                cost[point, cell] = row_cost[j]
                                came_from[point, cell] = row_origin[j]
                                pair_of[point, cell] = r * n_streams + a
                first_update = False
    steps = 0
    for r in range(n_speakers):
        steps += ref_dims[r] - 1
    path = np.empty((steps, 2), dtype=np.int64)
    point = ref_total - 1
    cell = total - 1
    for k in range(steps - 1, -1, -1):
        r = pair_of[point, cell] // n_streams
        path[k, 0] = r
        path[k, 1] = pair_of[point, cell] % n_streams
        cell = came_from[point, cell]
        point -= ref_strides[r]
    return cost[ref_total - 1, total - 1], path


def mimo_matching(
    references: Sequence[Sequence[Sequence[int]]], streams: Sequence[Sequence[int]], compiled: bool = True
) -> tuple[int, list[tuple[int, int]]]:
    """The fewest errors and the path of ``(reference speaker, stream)`` index pairs: `search` on lists.

    Plain twin: ``compiled=False`` runs ``search.py_func``.

    Args:
        references: Each reference speaker's utterances, each a list of word ids, in order.
        streams: The hypothesis streams' word ids (at least one stream).
        compiled: False runs the same loops in Python (the plain twin).

    Returns:
        ``(errors, path)``: one pair per utterance, in the order the path reads them.

    Raises:
        ValueError: the search is too large (more than `MAX_STATES` states).

    >>> mimo_matching([[[1, 2], [3, 4]], [[5, 6]]], [[1, 2], [5, 6, 3, 4]])
    (0, [(1, 1), (0, 0), (0, 1)])
    >>> mimo_matching([[[1, 2], [3, 4]], [[5, 6]]], [[1, 2], [3, 4, 5, 6]], compiled=False)
    (0, [(0, 0), (0, 1), (1, 1)])
    """
    states = math.prod(len(s) + 1 for s in streams) * math.prod(len(r) + 1 for r in references)
    if states > MAX_STATES:
        raise ValueError(
            f"MIMO-WER would search {states:,} states ({[len(r) for r in references]} reference utterances, "
            f"hypothesis streams of {[len(s) for s in streams]} words)"
        )
    utterances = [u for speaker in references for u in speaker]
    speaker_bounds = np.zeros(len(references) + 1, dtype=np.int64)
    speaker_bounds[1:] = np.cumsum([len(r) for r in references])
    run = search if compiled else search.py_func
    errors, path = run(*flatten(utterances), speaker_bounds, *flatten(streams))
    return int(errors), [(int(r), int(h)) for r, h in path]


class MimoCounts(NamedTuple):
    """One session's MIMO-WER counts; ``assignment`` is meeteval's: ``(reference speaker, hypothesis speaker)``
    per reference utterance, in the order the search read them (None: no hypothesis stream to go to)."""

    errors: int
    length: int
    substitutions: int
    deletions: int
    insertions: int
    assignment: tuple[tuple[Any, Any], ...]


def _utterances(segments: Sequence[Any]) -> dict[str, list[list[str]]]:
    """Each reference speaker's utterances (one per segment, empty ones kept), segments sorted by start (stable)."""
    speakers: dict[str, list[list[str]]] = {}
    for seg in sorted(segments, key=lambda s: s.start):
        speakers.setdefault(seg.speaker, []).append(seg.words.split())
    return speakers


def mimo_counts(ref_segments: Sequence[Any], hyp_segments: Sequence[Any], compiled: bool = True) -> MimoCounts:
    """MIMO-WER counts of one session, equal to meeteval's ``mimo_word_error_rate`` (errors, S/D/I, assignment).

    Segments are sorted by start time (stable), meeteval's default when times are given; each reference
    segment is one utterance, each hypothesis speaker one stream.

    Args:
        ref_segments: The reference segments (``speaker``, ``start``, ``words``).
        hyp_segments: The hypothesis segments.
        compiled: False runs the plain twin of the search.

    Returns:
        The session's `MimoCounts` (``length``: reference words).

    Raises:
        ValueError: more than `MAX_SPEAKERS` speakers on a side (meeteval's limit), or a search too large.

    >>> from lightscore.segments import Segment
    >>> ref = [Segment("A", 0, 1, "a b"), Segment("A", 1, 2, "c d"), Segment("B", 0, 2, "e f")]
    >>> hyp = [Segment("1", 0, 2, "c d"), Segment("0", 0, 2, "a b e f")]
    >>> mimo_counts(ref, hyp)
    MimoCounts(errors=0, length=6, substitutions=0, deletions=0, insertions=0, \
assignment=(('A', '0'), ('B', '0'), ('A', '1')))
    """
    ref = _utterances(ref_segments)
    hyp = speaker_streams(hyp_segments)
    most = max(len(ref), len(hyp))
    if most > MAX_SPEAKERS:
        raise ValueError(
            f"MIMO-WER scores at most {MAX_SPEAKERS} speakers per side (meeteval's limit), this session has {most}"
        )
    length = sum(len(u) for speaker in ref.values() for u in speaker)
    if not hyp:  # nothing to assign to (meeteval fails here): every word is deleted
        unassigned = tuple((name, None) for name, speaker in ref.items() for _ in speaker)
        return MimoCounts(length, length, 0, length, 0, unassigned)
    vocab: dict[str, int] = {}
    as_ids = [[word_ids(u, vocab) for u in speaker] for speaker in ref.values()]
    _, path = mimo_matching(as_ids, [word_ids(words, vocab) for words in hyp.values()], compiled)
    ref_names, hyp_names = list(ref), list(hyp)
    assigned: list[list[str]] = [[] for _ in hyp_names]
    read = [0] * len(ref_names)  # each speaker's utterances go out in order
    for r, h in path:
        assigned[h].extend(ref[ref_names[r]][read[r]])
        read[r] += 1
    breakdowns = [word_breakdown(words, hyp_words) for words, hyp_words in zip(assigned, hyp.values())]
    sub = sum(s for s, _, _ in breakdowns)
    dele = sum(d for _, d, _ in breakdowns)
    ins = sum(i for _, _, i in breakdowns)
    assignment = tuple((ref_names[r], hyp_names[h]) for r, h in path)
    return MimoCounts(sub + dele + ins, length, sub, dele, ins, assignment)
