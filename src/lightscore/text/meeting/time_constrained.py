"""Time-constrained word error counts of one session: tcpWER, meeteval's definition and tie-breaking.

Each segment's words get pseudo word-level times (`PSEUDO_WORD_TIMINGS`, meeteval's
strategies; the hypothesis' are widened by the collar), a reference and a
hypothesis word may be paired (correct or substituted) only when their times
overlap, and the speaker assignment is the Hungarian one on the matrix of these
time-constrained distances (`lightscore.text.meeting.assignment.assign`). The
Levenshtein matrices are filled as meeteval's C++ fills them
(`lightscore.text.meeting.tc_bands`): pruned to the band of overlapping words when
the start times are sorted (a plain loop), whole otherwise (all such speaker pairs
of a session at once, with numpy), and only the assigned pairs are traced back, with meeteval's preference (pair, then
deletion, then insertion), so the S/D/I breakdown matches too. Times are floats
and every formula keeps meeteval's order of operations, so the same float inputs
give the same boundaries bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from lightscore.text.meeting.assignment import SessionCounts, assign, session_counts
from lightscore.text.meeting.tc_bands import Stream, stream, tc_matrix, timed, walk, whole_matrices

__all__ = ["PSEUDO_WORD_TIMINGS", "SORTS", "check_sort", "pseudo_word_times", "tc_levenshtein", "tcp_counts"]

Interval = tuple[float, float]


def _character_based(start: float, end: float, words: Sequence[str]) -> list[Interval]:
    if len(words) == 1:
        return [(start, end)]
    # meeteval's order of operations (numpy ints times a float step), in plain Python floats: the same bits.
    step = (end - start) / sum(len(w) for w in words)
    bounds = []
    total = 0
    for w in words:
        bounds.append((start + step * total, start + step * (total + len(w))))
        total += len(w)
    return bounds


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


SORTS: tuple[str | bool, ...] = ("segment", "word", True, False)
"""meeteval's ``reference_sort`` / ``hypothesis_sort`` values for the time-constrained metrics (default ``"segment"``).

``"segment"``: segments by start time (stable); ``"word"``: then every word by its pseudo start time (stable);
``True``: segments by start time, and an error when a speaker's word times then run backwards; ``False``: the
input order.
"""


def check_sort(option: str, value: Any) -> str | bool:
    """``value`` when it is one of `SORTS` (a bool is itself, not 0 or 1), else a ValueError naming ``option``.

    >>> check_sort("reference_sort", "word")
    'word'
    >>> check_sort("hypothesis_sort", "start")
    Traceback (most recent call last):
    ...
    ValueError: hypothesis_sort 'start' is not one of 'segment', 'word', True, False
    """
    if not (value is True or value is False or (isinstance(value, str) and value in SORTS)):
        raise ValueError(f"{option} {value!r} is not one of {', '.join(map(repr, SORTS))}")
    return value


def _check_word_order(words: Sequence[tuple], side: str) -> None:
    """meeteval's ``sort=True`` check: each speaker's word start times, in segment order, never decrease."""
    by_speaker: dict[str, list[float]] = {}
    for speaker, _, start, _ in words:
        by_speaker.setdefault(speaker, []).append(start)
    for speaker, starts in by_speaker.items():
        ordered = sorted(starts)
        wrong = sum(a != b for a, b in zip(ordered, starts))
        if wrong:
            raise ValueError(
                f"the order of word-level timings contradicts the segment-level order in the {side} for speaker "
                f"{speaker!r}: {wrong} of {len(starts)} times; set the sort to 'segment', 'word' or False"
            )


def pseudo_word_times(
    segments: Sequence[Any], strategy: str, collar: float = 0.0, sort: str | bool = "segment", side: str = "reference"
) -> dict[str, list[tuple]]:
    """Each speaker's ``(word, start, end)`` with pseudo word times, in the order ``sort`` asks (meeteval's).

    An empty segment keeps its speaker (one ``""`` word, as meeteval's dummy word), so a speaker
    who only has empty segments still counts in the assignment. Speakers come in order of first
    appearance after sorting, as meeteval groups them.

    Args:
        segments: Objects with ``speaker``, ``start``, ``end`` and ``words``.
        strategy: One of `PSEUDO_WORD_TIMINGS`.
        collar: Seconds added before and after every word (the hypothesis' collar), after sorting.
        sort: One of `SORTS`: ``"segment"`` (default), ``"word"``, True or False.
        side: ``"reference"`` or ``"hypothesis"``, naming the side in errors.

    Raises:
        ValueError: strategy ``"none"`` and a segment that does not hold exactly one word; ``sort=True``
            and a speaker whose word times run backwards.

    >>> from lightscore.segments import Segment
    >>> pseudo_word_times([Segment("A", 0, 4, "abc b")], "character_based")
    {'A': [('abc', 0.0, 3.0), ('b', 3.0, 4.0)]}
    >>> pseudo_word_times([Segment("A", 0, 4, "abc b")], "character_based_points", collar=1)
    {'A': [('abc', 0.5, 2.5), ('b', 2.5, 4.5)]}
    >>> two = [Segment("A", 0, 4, "a b"), Segment("A", 1, 2, "c")]
    >>> [w for w, _, _ in pseudo_word_times(two, "character_based", sort="word")["A"]]
    ['a', 'c', 'b']
    >>> pseudo_word_times(two, "character_based", sort=True)
    Traceback (most recent call last):
    ...
    ValueError: the order of word-level timings contradicts the segment-level order in the reference for speaker \
'A': 2 of 3 times; set the sort to 'segment', 'word' or False
    """
    split = PSEUDO_WORD_TIMINGS[strategy]
    ordered = list(segments) if sort is False else sorted(segments, key=lambda s: s.start)
    words = []  # (speaker, word, start, end)
    for seg in ordered:
        texts = seg.words.split() or [""]
        words.extend((seg.speaker, w, start, end) for w, (start, end) in zip(texts, split(seg.start, seg.end, texts)))
    if sort is True:
        _check_word_order(words, side)
    elif sort == "word":
        words.sort(key=lambda w: w[2])
    streams: dict[str, list[tuple]] = {}
    for speaker, word, start, end in words:
        if collar > 0:
            start -= collar
            end += collar
        streams.setdefault(speaker, []).append((word, start, end))
    return streams


def tc_levenshtein(ref: Sequence[tuple], hyp: Sequence[tuple]) -> tuple[int, int, int, int]:
    """``(errors, substitutions, deletions, insertions)`` of two ``(word, start, end)`` lists, time-constrained.

    A pair (correct or substituted) needs overlapping times (``a.start < b.end and a.end > b.start``);
    empty words are skipped. Equal to meeteval's ``time_constrained_levenshtein_distance_with_alignment``.
    Plain twin: `lightscore.text.meeting.reference.tc_levenshtein`.

    >>> tc_levenshtein([("a", 0, 1), ("b", 1, 2)], [("a", 0.5, 0.5), ("b", 3, 3)])
    (2, 0, 1, 1)
    >>> tc_levenshtein([("a", 0, 1)], [])
    (1, 0, 1, 0)
    """
    vocab: dict[str, int] = {}
    table = _PairTable([stream(ref, vocab)], [stream(hyp, vocab)])
    return (table.distance(0, 0), *table.breakdowns([(0, 0)])[0])


Cell = Callable[[int, int], int]


class _PairTable:
    """Every reference-hypothesis speaker pair of a session: all distances, the S/D/I of the assigned pairs.

    Pairs meeteval prunes (starts sorted, from 0) get their narrow pruned matrices (`tc_matrix`),
    kept for the traceback. The others (meeteval fills their whole matrices) come from
    `whole_matrices`, all at once, whose rows are kept for the traceback when they fit; an
    assigned pair without kept rows is filled again, whole and alone, for its traceback.
    """

    def __init__(self, refs: list[Stream], hyps: list[Stream]) -> None:
        self.refs = refs
        self.hyps = hyps
        self.distances: dict[tuple[int, int], int] = {}
        self.cells: dict[tuple[int, int], Cell] = {}  # the matrices the traceback reads
        pending = []
        for r, ref in enumerate(refs):
            for h, hyp in enumerate(hyps):
                if not len(ref.ids) or not len(hyp.ids):
                    continue
                if ref.ordered and hyp.ordered:
                    matrix = tc_matrix(timed(ref), timed(hyp), prune=True)
                    self.distances[r, h] = matrix[-1][-1]
                    self.cells[r, h] = lambda i, j, cells=matrix: cells[i][j]
                else:
                    pending.append((r, h))
        if pending:
            rows = sorted({r for r, _ in pending})
            cols = sorted({h for _, h in pending})
            whole = whole_matrices([refs[r] for r in rows], [hyps[h] for h in cols])
            for r, h in pending:
                self.distances[r, h] = int(whole.distances[rows.index(r), cols.index(h)])
                cell = whole.cell(rows.index(r), cols.index(h), (len(refs[r].ids), len(hyps[h].ids)))
                if cell is not None:
                    self.cells[r, h] = cell

    def distance(self, r: int | None, h: int | None) -> int:
        """The time-constrained distance of a pair (None: no speaker on that side, every word an error)."""
        if (r, h) in self.distances:
            return self.distances[r, h]
        return (len(self.refs[r].ids) if r is not None else 0) + (len(self.hyps[h].ids) if h is not None else 0)

    def breakdowns(self, pairs: Sequence[tuple[int | None, int | None]]) -> list[tuple[int, int, int]]:
        """``(substitutions, deletions, insertions)`` of each pair, meeteval's traceback (`walk`)."""
        out = []
        for r, h in pairs:
            if (r, h) not in self.distances:  # an empty side: every word of the other is an error
                missed = len(self.refs[r].ids) if r is not None else 0
                out.append((0, missed, len(self.hyps[h].ids) if h is not None else 0))
                continue
            ref = self.refs[r]
            hyp = self.hyps[h]
            cell = self.cells.get((r, h)) or whole_matrices([ref], [hyp], keep=True).cell(
                0, 0, (len(ref.ids), len(hyp.ids))
            )
            out.append(walk(cell, timed(ref), timed(hyp)))
        return out


def tcp_counts(
    ref_segments: Sequence[Any],
    hyp_segments: Sequence[Any],
    collar: float,
    reference_pseudo_word_level_timing: str = "character_based",
    hypothesis_pseudo_word_level_timing: str = "character_based_points",
    reference_sort: str | bool = "segment",
    hypothesis_sort: str | bool = "segment",
) -> SessionCounts:
    """tcpWER counts of one session, equal to meeteval's ``tcp_word_error_rate`` (errors, S/D/I, assignment).

    Plain twin: `lightscore.text.meeting.reference.tcp_counts`.

    Args:
        ref_segments: The reference segments (``speaker``, ``start``, ``end``, ``words``).
        hyp_segments: The hypothesis segments.
        collar: Seconds each hypothesis word may stray from the reference word it pairs with.
        reference_pseudo_word_level_timing: How reference segments' times are split among their words.
        hypothesis_pseudo_word_level_timing: The same for the hypothesis.
        reference_sort: How the reference's words are ordered (one of `SORTS`, meeteval's default ``"segment"``).
        hypothesis_sort: The same for the hypothesis.

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
    ref = pseudo_word_times(ref_segments, reference_pseudo_word_level_timing, sort=reference_sort)
    hyp = pseudo_word_times(hyp_segments, hypothesis_pseudo_word_level_timing, collar, hypothesis_sort, "hypothesis")
    vocab: dict[str, int] = {}
    refs = [stream(words, vocab) for words in ref.values()]
    table = _PairTable(refs, [stream(words, vocab) for words in hyp.values()])
    pairs = assign(list(range(len(ref))), list(range(len(hyp))), table.distance, None)
    return session_counts(list(ref), list(hyp), sum(len(r.ids) for r in refs), pairs, table.breakdowns(pairs))
