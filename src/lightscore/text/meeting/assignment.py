"""Multi-speaker word error counts of one session: cpWER and ORC-WER, meeteval's definitions.

cpWER concatenates each speaker's words (segments sorted by start time, speakers
in order of first appearance), finds the reference-to-hypothesis speaker
assignment with the fewest word errors (the Hungarian algorithm, scipy's
``linear_sum_assignment`` on the padded matrix of Levenshtein distances, as
meeteval builds it, so ties resolve the same way), and counts substitutions,
deletions and insertions of each assigned pair with Kaldi's tie-breaking
(kaldialign, the breakdown meeteval reports). The distances come from
rapidfuzz, in C. ORC-WER (`orc_counts`) gives each reference segment to the
hypothesis stream that makes the fewest errors overall: meeteval's multi-stream
Levenshtein search as plain loops compiled by numba (`lightscore.text.meeting.orc_search`),
walked back the way meeteval's C++ walks it, so ties pick the same streams.
tcpWER lives in `lightscore.text.meeting.time_constrained`. Nothing here imports torch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

__all__ = [
    "OrcCounts",
    "SessionCounts",
    "assign",
    "cp_counts",
    "orc_counts",
    "orc_matching",
    "orc_result",
    "pair_breakdowns",
    "session_counts",
    "speaker_streams",
    "word_breakdown",
    "word_ids",
]

Assignment = tuple[tuple[Any, Any], ...]


class SessionCounts(NamedTuple):
    """One session's counts after the speaker assignment (meeteval's ``CPErrorRate`` fields).

    ``assignment`` pairs each reference speaker with its hypothesis speaker; None on one side
    marks a missed or extra speaker.
    """

    errors: int
    length: int
    substitutions: int
    deletions: int
    insertions: int
    missed_speaker: int
    falarm_speaker: int
    scored_speaker: int
    assignment: Assignment


def speaker_streams(segments: Sequence[Any]) -> dict[str, list[str]]:
    """Each speaker's words, segments sorted by start time (stable), speakers in order of first appearance.

    Args:
        segments: Objects with ``speaker``, ``start`` and ``words`` (`lightscore.segments.Segment`).

    >>> from lightscore.segments import Segment
    >>> speaker_streams([Segment("B", 2, 3, "c"), Segment("A", 0, 1, "a b"), Segment("B", 1, 2, "")])
    {'A': ['a', 'b'], 'B': ['c']}
    """
    streams: dict[str, list[str]] = {}
    for seg in sorted(segments, key=lambda s: s.start):
        streams.setdefault(seg.speaker, []).extend(seg.words.split())
    return streams


def word_breakdown(ref: Sequence[str], hyp: Sequence[str]) -> tuple[int, int, int]:
    """``(substitutions, deletions, insertions)`` of one pair with Kaldi's tie-breaking (kaldialign), as meeteval.

    >>> word_breakdown("a b c".split(), "a x".split())
    (1, 1, 0)
    >>> word_breakdown([], ["a"])
    (0, 0, 1)
    """
    if not ref or not hyp:
        return 0, len(ref), len(hyp)
    import kaldialign  # imported on first use: only the meeting metrics need it

    counts = kaldialign.edit_distance(ref, hyp)
    return counts["sub"], counts["del"], counts["ins"]


def pair_breakdowns(
    ref: Sequence[Sequence[str]], hyp: Sequence[Sequence[str]], pairs: Sequence[tuple[int | None, int | None]]
) -> list[tuple[int, int, int]]:
    """Each assigned pair's `word_breakdown` (a missing side: no words).

    Args:
        ref: The reference speakers' words.
        hyp: The hypothesis speakers' words.
        pairs: Index pairs (None: no speaker on that side).

    Returns:
        Each pair's ``(substitutions, deletions, insertions)``.

    >>> pair_breakdowns([["a"]], [["b", "c"]], [(0, None), (None, 0)])
    [(0, 1, 0), (0, 0, 2)]
    """
    return [word_breakdown(ref[r] if r is not None else [], hyp[h] if h is not None else []) for r, h in pairs]


def word_ids(words: Iterable[str], vocab: dict[str, int]) -> list[int]:
    """Each word's id in ``vocab``, a new word taking the next id (``vocab`` grows): ints compare faster.

    Args:
        words: The words.
        vocab: The ids given so far, shared by every stream of a session.

    Returns:
        The ids, in order.

    >>> vocab = {}
    >>> word_ids(["a", "b", "a"], vocab), word_ids(["c", "b"], vocab)
    ([0, 1, 0], [2, 1])
    """
    return [vocab.setdefault(w, len(vocab)) for w in words]


def session_counts(
    ref_names: Sequence[Any],
    hyp_names: Sequence[Any],
    length: int,
    pairs: Sequence[tuple[int | None, int | None]],
    breakdowns: Sequence[tuple[int, int, int]],
) -> SessionCounts:
    """A session's `SessionCounts` from its speaker pairs and each pair's ``(substitutions, deletions, insertions)``.

    Args:
        ref_names: The reference speakers, in stream order.
        hyp_names: The hypothesis speakers, in stream order.
        length: The reference words.
        pairs: The assignment as index pairs (None: no speaker on that side).
        breakdowns: Each pair's S/D/I.

    Returns:
        The counts, speakers named in the assignment.

    >>> session_counts(["A"], ["x", "y"], 2, [(0, 1), (None, 0)], [(1, 0, 0), (0, 0, 3)])[:5]
    (4, 2, 1, 0, 3)
    """
    sub = sum(s for s, _, _ in breakdowns)
    dele = sum(d for _, d, _ in breakdowns)
    ins = sum(i for _, _, i in breakdowns)
    return SessionCounts(
        errors=sub + dele + ins,
        length=length,
        substitutions=sub,
        deletions=dele,
        insertions=ins,
        missed_speaker=max(0, len(ref_names) - len(hyp_names)),
        falarm_speaker=max(0, len(hyp_names) - len(ref_names)),
        scored_speaker=len(ref_names),
        assignment=tuple(
            (ref_names[r] if r is not None else None, hyp_names[h] if h is not None else None) for r, h in pairs
        ),
    )


def assign(
    ref: Sequence[Any], hyp: Sequence[Any], distance: Callable[[Any, Any], int], missing: Any
) -> list[tuple[int | None, int | None]]:
    """The minimum-distance assignment of ``ref`` to ``hyp`` items, as index pairs (None: padding).

    The matrix is padded to a square with ``missing`` on the shorter side, exactly as
    meeteval's ``_minimum_permutation_assignment``, so scipy breaks ties the same way.

    >>> assign([[1], [2]], [[2], [1], [3]], lambda a, b: len(set(a) ^ set(b)), [])
    [(0, 1), (1, 0), (None, 2)]
    """
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    size = max(len(ref), len(hyp))
    if size == 0:
        return []
    rows = list(ref) + [missing] * (size - len(ref))
    cols = list(hyp) + [missing] * (size - len(hyp))
    cost = np.array([[distance(r, h) for h in cols] for r in rows])
    row_ind, col_ind = linear_sum_assignment(cost)
    return [(int(r) if r < len(ref) else None, int(c) if c < len(hyp) else None) for r, c in zip(row_ind, col_ind)]


def cp_counts(ref_segments: Sequence[Any], hyp_segments: Sequence[Any]) -> SessionCounts:
    """cpWER counts of one session: equal to meeteval's ``cp_word_error_rate`` (errors, breakdown, assignment).

    The distances come from rapidfuzz (C) on word ids. Plain twin: `lightscore.text.meeting.reference.cp_counts`.

    Args:
        ref_segments: The reference segments (``speaker``, ``start``, ``words``).
        hyp_segments: The hypothesis segments.

    Returns:
        The session's `SessionCounts`.

    >>> from lightscore.segments import Segment
    >>> ref = [Segment("r0", 0, 1, "a"), Segment("r1", 0, 1, "b"), Segment("r2", 0, 1, "c")]
    >>> hyp = [Segment("h0", 0, 1, "b"), Segment("h1", 0, 1, "c"), Segment("h2", 0, 1, "d"), Segment("h3", 0, 1, "a")]
    >>> c = cp_counts(ref, hyp)
    >>> c.errors, c.length, c.insertions, c.falarm_speaker, c.assignment
    (1, 3, 1, 1, (('r0', 'h3'), ('r1', 'h0'), ('r2', 'h1'), (None, 'h2')))
    """
    from rapidfuzz.distance import Levenshtein

    ref = speaker_streams(ref_segments)
    hyp = speaker_streams(hyp_segments)
    ref_words = list(ref.values())
    hyp_words = list(hyp.values())
    vocab: dict[str, int] = {}
    ref_ids = [word_ids(words, vocab) for words in ref_words]
    pairs = assign(ref_ids, [word_ids(words, vocab) for words in hyp_words], Levenshtein.distance, [])
    breakdowns = pair_breakdowns(ref_words, hyp_words, pairs)
    return session_counts(list(ref), list(hyp), sum(map(len, ref_words)), pairs, breakdowns)


class OrcCounts(NamedTuple):
    """One session's ORC-WER counts; ``assignment`` names the hypothesis stream of each reference segment.

    The assignment follows the segments' input order (meeteval's); None marks a segment that had no
    stream to go to (an empty hypothesis).
    """

    errors: int
    length: int
    substitutions: int
    deletions: int
    insertions: int
    assignment: tuple[Any, ...]


def orc_matching(utterances: Sequence[Sequence[int]], streams: Sequence[Sequence[int]]) -> list[int]:
    """The stream index of each utterance (in order) under the fewest total errors: meeteval's ``mimo_matching``.

    The search is `lightscore.text.meeting.orc_search` (plain loops compiled by numba, loaded on
    first use). Plain twin: `lightscore.text.meeting.reference.orc_matching`.

    Args:
        utterances: The reference segments' word ids, in order.
        streams: The hypothesis streams' word ids (at least one stream).

    Returns:
        The chosen stream index of each utterance.

    Raises:
        ValueError: the grid is too large to search (more than 50 million cells).

    >>> orc_matching([[1], [2, 3], [4]], [[1, 2], [3, 4]])
    [0, 0, 1]
    """
    from lightscore.text.meeting.orc_search import orc_matching as search

    return search(utterances, streams)[1]


def orc_counts(ref_segments: Sequence[Any], hyp_segments: Sequence[Any]) -> OrcCounts:
    """ORC-WER counts of one session: equal to meeteval's ``orc_word_error_rate`` (errors, breakdown, assignment).

    Reference segments are taken in start order (stable); the hypothesis is one word stream per
    speaker (`speaker_streams`). Each stream's S/D/I come from its assigned reference words with
    kaldialign, as meeteval reports them.

    >>> from lightscore.segments import Segment
    >>> ref = [Segment("A", 0, 1, "a"), Segment("A", 1, 2, "c d"), Segment("B", 2, 3, "e")]
    >>> orc_counts(ref, [Segment("x", 0, 2, "a c"), Segment("y", 1, 3, "d e")])
    OrcCounts(errors=2, length=4, substitutions=0, deletions=1, insertions=1, assignment=('x', 'x', 'y'))
    """
    order = sorted(range(len(ref_segments)), key=lambda i: ref_segments[i].start)
    utterances = [ref_segments[i].words.split() for i in order]
    hyp = speaker_streams(hyp_segments)
    if not hyp:  # nothing to assign to (meeteval fails an assertion here): every word is deleted
        return orc_result(order, utterances, hyp, None)
    vocab: dict[str, int] = {}
    as_ids = [word_ids(words, vocab) for words in utterances]
    chosen = orc_matching(as_ids, [word_ids(words, vocab) for words in hyp.values()])
    return orc_result(order, utterances, hyp, chosen)


def orc_result(
    order: Sequence[int],
    utterances: Sequence[Sequence[Any]],
    hyp: dict[Any, Sequence[Any]],
    chosen: Sequence[int] | None,
) -> OrcCounts:
    """`OrcCounts` from each utterance's stream: each stream's assigned words against its own, Kaldi's S/D/I.

    Args:
        order: Each utterance's index in the session's input order.
        utterances: The utterances' words, in search order.
        hyp: Each stream's name and words.
        chosen: Each utterance's stream index; None when there is no stream (every word deleted,
            each segment's stream None).

    Returns:
        The counts; the assignment names each segment's stream, in input order.

    >>> orc_result([1, 0], [["a"], ["b", "c"]], {"x": ["a", "b"]}, [0, 0])
    OrcCounts(errors=1, length=3, substitutions=0, deletions=1, insertions=0, assignment=('x', 'x'))
    """
    length = sum(len(words) for words in utterances)
    if chosen is None:
        return OrcCounts(length, length, 0, length, 0, (None,) * len(order))
    names = list(hyp)
    assigned: list[list[Any]] = [[] for _ in names]
    for stream, words in zip(chosen, utterances):
        assigned[stream].extend(words)
    breakdowns = [word_breakdown(words, hyp_words) for words, hyp_words in zip(assigned, hyp.values())]
    sub = sum(s for s, _, _ in breakdowns)
    dele = sum(d for _, d, _ in breakdowns)
    ins = sum(i for _, _, i in breakdowns)
    assignment: list[Any] = [None] * len(order)
    for index, stream in zip(order, chosen):
        assignment[index] = names[stream]
    return OrcCounts(sub + dele + ins, length, sub, dele, ins, tuple(assignment))
