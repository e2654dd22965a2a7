"""The meeting family's algorithms written to be read: the plain twins of its fast paths.

Each function here is the textbook dynamic programme, one cell at a time in plain Python, and
computes exactly what its fast twin computes (the same counts, the same assignments, the same
tie-breaking), only slower. The property tests (tests/test_meeting_twins.py) hold each pair equal
on generated sessions; the fast modules name their twin in their docstrings:

- `levenshtein`: the distance cpWER's assignment reads (fast: rapidfuzz, in
  `lightscore.text.meeting.assignment.cp_counts`); `cp_counts` is cpWER with it.
- `orc_matching`: ORC-WER's stream of each reference segment, meeteval's multi-stream Levenshtein
  search (fast: `lightscore.text.meeting.orc_search.search`, compiled by numba, through
  `lightscore.text.meeting.assignment.orc_matching`). The ORC family's other compiled searches
  (greedy ORC, tcORC, one time-constrained pair) have their plain twins in their own modules, as
  ``.py_func`` (the same loops run by Python).
- `tc_matrix`: tcpWER's time-constrained Levenshtein matrix as meeteval fills it, pruned or whole;
  the fast twin of the whole fill is `lightscore.text.meeting.tc_bands.whole_matrices`. It lives in
  `tc_bands`, the pruned fill's one implementation (its numpy twin paid less than 1.5x and was
  removed), and is named here too. `tc_levenshtein` and `tcp_counts` are tcpWER with it, pair by pair.

What both twins share is imported, not written twice: the word-overlap test and the traceback
(`lightscore.text.meeting.tc_bands.overlaps`, `walk`), the Hungarian assignment with meeteval's
padding (`lightscore.text.meeting.assignment.assign`) and Kaldi's S/D/I breakdown
(`lightscore.text.meeting.assignment.pair_breakdowns`).

>>> levenshtein("a b c".split(), "a x c d".split())
2
>>> orc_matching([[1], [2, 3], [4]], [[1, 2], [3, 4]])
[0, 0, 1]
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any

from lightscore.text.meeting.assignment import SessionCounts, assign, pair_breakdowns, session_counts, speaker_streams
from lightscore.text.meeting.tc_bands import starts_sorted, tc_matrix, walk
from lightscore.text.meeting.time_constrained import pseudo_word_times

__all__ = ["cp_counts", "levenshtein", "orc_matching", "orc_start_costs", "tc_levenshtein", "tc_matrix", "tcp_counts"]

TimedWord = tuple[Hashable, float, float]  # (word, start, end)


def levenshtein(ref: Sequence[Hashable], hyp: Sequence[Hashable]) -> int:
    """The word-level Levenshtein distance: the fewest substitutions, deletions and insertions.

    Args:
        ref: The reference words (any hashable tokens).
        hyp: The hypothesis words.

    Returns:
        The distance.

    >>> levenshtein([], ["a", "b"]), levenshtein(["a", "b"], ["b"])
    (2, 1)
    """
    row = list(range(len(hyp) + 1))  # row 0: insertions only
    for i, word in enumerate(ref, start=1):
        above = row
        row = [i] + [0] * len(hyp)
        for j, hyp_word in enumerate(hyp, start=1):
            row[j] = min(above[j] + 1, row[j - 1] + 1, above[j - 1] + (word != hyp_word))
    return row[-1]


def cp_counts(ref_segments: Sequence[Any], hyp_segments: Sequence[Any]) -> SessionCounts:
    """cpWER counts of one session with plain distances: the twin of `assignment.cp_counts`.

    Each speaker's words are concatenated (`speaker_streams`), the speakers paired by the Hungarian
    assignment on the `levenshtein` distances, and each pair broken down with Kaldi's tie-breaking.

    Args:
        ref_segments: The reference segments (``speaker``, ``start``, ``words``).
        hyp_segments: The hypothesis segments.

    Returns:
        The session's `SessionCounts`.

    >>> from lightscore.segments import Segment
    >>> c = cp_counts([Segment("A", 0, 1, "a b")], [Segment("x", 0, 1, "a"), Segment("y", 0, 1, "b")])
    >>> c.errors, c.assignment
    (2, (('A', 'x'), (None, 'y')))
    """
    ref = speaker_streams(ref_segments)
    hyp = speaker_streams(hyp_segments)
    ref_words = list(ref.values())
    hyp_words = list(hyp.values())
    pairs = assign(ref_words, hyp_words, levenshtein, [])
    breakdowns = pair_breakdowns(ref_words, hyp_words, pairs)
    return session_counts(list(ref), list(hyp), sum(map(len, ref_words)), pairs, breakdowns)


def orc_start_costs(dims: Sequence[int]) -> list[int]:
    """The ORC search's first state (no reference word read yet), cell by cell as meeteval builds it.

    Cells are numbered with stream 0 varying fastest. Each cell costs one more than the cell one
    stride below, the stride being that of the highest stream whose first cell has been passed.
    After an empty stream (two equal strides) meeteval never passes the next stride, so the counts
    can exceed the true insertion counts; they are kept, so that the search ties as meeteval's.

    Args:
        dims: Each hypothesis stream's length plus one.

    Returns:
        The cost of every cell.

    >>> orc_start_costs([2, 3])
    [0, 1, 1, 2, 2, 3]
    >>> orc_start_costs([2, 1, 2])
    [0, 1, 1, 2]
    """
    strides = [math.prod(dims[:k]) for k in range(len(dims))]
    cost = [0] * math.prod(dims)
    level = 0  # the highest stream whose stride has been reached
    for cell in range(1, len(cost)):
        if level + 1 < len(strides) and cell == strides[level + 1]:
            level += 1
        cost[cell] = cost[cell - strides[level]] + 1
    return cost


def _read_words(row: list[tuple[int, int]], words: Sequence[int], stream: Sequence[int]) -> list[tuple[int, int]]:
    """One Levenshtein row of ``(cost, origin cell)`` after reading ``words`` against ``stream``.

    meeteval's tie rules: a matching word always takes the diagonal; otherwise the cell from the
    left wins a tie, then the one above, then the diagonal. The origin travels with the cost.
    """
    row = list(row)
    for word in words:
        diagonal = row[0]
        row[0] = (row[0][0] + 1, row[0][1])
        left = row[0]
        for j, hyp_word in enumerate(stream, start=1):
            up = row[j]
            if word == hyp_word:
                left = diagonal
            else:
                best = left
                if up[0] < best[0]:
                    best = up
                if diagonal[0] < best[0]:
                    best = diagonal
                left = (best[0] + 1, best[1])
            row[j] = left
            diagonal = up
    return row


def orc_matching(utterances: Sequence[Sequence[int]], streams: Sequence[Sequence[int]]) -> list[int]:
    """The stream of each utterance (in order) under the fewest total errors: ORC-WER's search, plainly.

    The state is a cost for every combination of positions in the streams (stream 0 varying
    fastest). Reading an utterance, every stream in turn runs its words along each line of the grid
    in that stream's direction; a cell keeps the lowest cost, the first stream on a tie, and
    remembers where it came from. The last cell's path names each utterance's stream.

    Args:
        utterances: The reference segments' word ids, in order.
        streams: The hypothesis streams' word ids (at least one stream).

    Returns:
        The chosen stream index of each utterance.

    >>> orc_matching([[1, 2], [3]], [[3], [1, 2]])
    [1, 0]
    """
    dims = [len(s) + 1 for s in streams]
    strides = [math.prod(dims[:k]) for k in range(len(dims))]
    total = math.prod(dims)
    cost = orc_start_costs(dims)
    links: list[list[tuple[int, int]]] = []  # per utterance and cell: (stream, cell before)
    for words in utterances:
        best: list[int | None] = [None] * total
        link = [(0, 0)] * total
        for a, stream in enumerate(streams):
            starts = [cell for cell in range(total) if (cell // strides[a]) % dims[a] == 0]
            for first in starts:
                line = [first + j * strides[a] for j in range(dims[a])]
                row = _read_words([(cost[cell], cell) for cell in line], words, stream)
                for cell, (value, origin) in zip(line, row):
                    if best[cell] is None or value < best[cell]:  # the first stream keeps a tie
                        best[cell] = value
                        link[cell] = (a, origin)
        cost = best  # type: ignore[assignment]
        links.append(link)
    chosen = []
    cell = total - 1
    for link in reversed(links):
        stream, cell = link[cell]
        chosen.append(stream)
    return chosen[::-1]


def _pruned(words: Sequence[TimedWord]) -> bool:
    return starts_sorted([start for _, start, _ in words], floor=0.0)


def tc_levenshtein(ref: Sequence[TimedWord], hyp: Sequence[TimedWord]) -> tuple[int, int, int, int]:
    """``(errors, substitutions, deletions, insertions)`` of two timed word lists: the twin of
    `lightscore.text.meeting.time_constrained.tc_levenshtein`.

    Empty words are dropped; the matrix is pruned when both streams' starts are sorted from 0.

    Args:
        ref: The reference's ``(word, start, end)``.
        hyp: The hypothesis' ``(word, start, end)``.

    Returns:
        The distance and its breakdown (meeteval's traceback).

    >>> tc_levenshtein([("a", 0, 1), ("b", 1, 2)], [("a", 0.5, 0.5), ("b", 3, 3)])
    (2, 0, 1, 1)
    """
    ref = [w for w in ref if w[0]]
    hyp = [w for w in hyp if w[0]]
    if not ref or not hyp:
        return len(ref) + len(hyp), 0, len(ref), len(hyp)
    matrix = tc_matrix(ref, hyp, prune=_pruned(ref) and _pruned(hyp))
    return (matrix[-1][-1], *walk(lambda i, j: matrix[i][j], ref, hyp))


def tcp_counts(
    ref_segments: Sequence[Any],
    hyp_segments: Sequence[Any],
    collar: float,
    reference_pseudo_word_level_timing: str = "character_based",
    hypothesis_pseudo_word_level_timing: str = "character_based_points",
) -> SessionCounts:
    """tcpWER counts of one session, pair by pair with `tc_matrix`: the twin of `time_constrained.tcp_counts`.

    Args:
        ref_segments: The reference segments (``speaker``, ``start``, ``end``, ``words``).
        hyp_segments: The hypothesis segments.
        collar: Seconds added before and after every hypothesis word.
        reference_pseudo_word_level_timing: How reference segments' times are split among their words.
        hypothesis_pseudo_word_level_timing: The same for the hypothesis.

    Returns:
        The session's `SessionCounts`.

    >>> from lightscore.segments import Segment
    >>> c = tcp_counts([Segment("A", 0, 2, "a b")], [Segment("x", 5, 7, "a b")], collar=1)
    >>> c.errors, c.deletions, c.insertions
    (4, 2, 2)
    """
    ref = pseudo_word_times(ref_segments, reference_pseudo_word_level_timing)
    hyp = pseudo_word_times(hyp_segments, hypothesis_pseudo_word_level_timing, collar)
    refs = [[w for w in words if w[0]] for words in ref.values()]
    hyps = [[w for w in words if w[0]] for words in hyp.values()]
    matrices: dict[tuple[int, int], list[list[int]]] = {}
    for r, ref_words in enumerate(refs):
        for h, hyp_words in enumerate(hyps):
            if ref_words and hyp_words:
                matrices[r, h] = tc_matrix(ref_words, hyp_words, prune=_pruned(ref_words) and _pruned(hyp_words))

    def distance(r: int | None, h: int | None) -> int:
        if (r, h) in matrices:
            return matrices[r, h][-1][-1]
        return (len(refs[r]) if r is not None else 0) + (len(hyps[h]) if h is not None else 0)

    pairs = assign(list(range(len(refs))), list(range(len(hyps))), distance, None)
    breakdowns = []
    for r, h in pairs:
        if (r, h) in matrices:
            breakdowns.append(walk(lambda i, j, cells=matrices[r, h]: cells[i][j], refs[r], hyps[h]))
        else:  # an empty side: every word of the other is an error
            breakdowns.append((0, len(refs[r]) if r is not None else 0, len(hyps[h]) if h is not None else 0))
    return session_counts(list(ref), list(hyp), sum(map(len, refs)), pairs, breakdowns)
