"""Multi-speaker word error counts of one session: cpWER (and tcpWER), meeteval's definitions.

cpWER concatenates each speaker's words (segments sorted by start time, speakers
in order of first appearance), finds the reference-to-hypothesis speaker
assignment with the fewest word errors (the Hungarian algorithm, scipy's
``linear_sum_assignment`` on the padded matrix of Levenshtein distances, as
meeteval builds it, so ties resolve the same way), and counts substitutions,
deletions and insertions of each assigned pair with Kaldi's tie-breaking
(kaldialign, the breakdown meeteval reports). The distances come from
rapidfuzz, in C. Only the types here are pure Python; nothing imports torch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

__all__ = ["SessionCounts", "cp_counts", "speaker_streams", "word_breakdown"]

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


def _ids(ref: dict[str, list[str]], hyp: dict[str, list[str]]) -> tuple[list[list[int]], list[list[int]]]:
    """Words as ints shared by both sides: rapidfuzz compares ints faster than strings."""
    vocab: dict[str, int] = {}
    as_ids = [[vocab.setdefault(w, len(vocab)) for w in words] for words in ref.values()]
    return as_ids, [[vocab.setdefault(w, len(vocab)) for w in words] for words in hyp.values()]


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

    ref, hyp = speaker_streams(ref_segments), speaker_streams(hyp_segments)
    ref_ids, hyp_ids = _ids(ref, hyp)
    pairs = assign(ref_ids, hyp_ids, Levenshtein.distance, [])
    ref_words, hyp_words = list(ref.values()), list(hyp.values())
    ref_names, hyp_names = list(ref), list(hyp)
    sub = dele = ins = 0
    for r, h in pairs:
        s, d, i = word_breakdown(ref_words[r] if r is not None else [], hyp_words[h] if h is not None else [])
        sub, dele, ins = sub + s, dele + d, ins + i
    return SessionCounts(
        errors=sub + dele + ins,
        length=sum(len(words) for words in ref_words),
        substitutions=sub,
        deletions=dele,
        insertions=ins,
        missed_speaker=max(0, len(ref) - len(hyp)),
        falarm_speaker=max(0, len(hyp) - len(ref)),
        scored_speaker=len(ref),
        assignment=tuple(
            (ref_names[r] if r is not None else None, hyp_names[h] if h is not None else None) for r, h in pairs
        ),
    )
