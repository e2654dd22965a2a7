"""Diarization-invariant cpWER and tcpWER of one session: meeteval's ``greedy_dicpwer`` and ``greedy_ditcpwer``.

DI-cpWER scores the words regardless of the hypothesis stream they sit in: each
hypothesis segment may go to any reference speaker, and the assignment with the
fewest errors is kept. That is greedy ORC-WER with the two sides swapped (the
hypothesis segments are assigned to the reference speakers' streams), so the counts
come from `lightscore.text.meeting.greedy_orc` (and the time-constrained one from
`lightscore.text.meeting.tc_orc`) as meeteval computes them: the errors are the
same, insertions and deletions trade places, and the length is the reference's words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

__all__ = ["DICounts", "dicp_counts", "ditcp_counts"]


class DICounts(NamedTuple):
    """One session's DI-cpWER counts (meeteval's ``DICPErrorRate``).

    ``assignment`` names the reference speaker each hypothesis segment went to, in the session's input
    order of the hypothesis segments (None: there was no reference speaker to go to).
    """

    errors: int
    length: int
    substitutions: int
    deletions: int
    insertions: int
    assignment: tuple[Any, ...]


def _swapped(orc: Any, ref_segments: Sequence[Any]) -> DICounts:
    """The DI counts of the ORC counts computed with the sides swapped: insertions and deletions trade places."""
    length = sum(len(seg.words.split()) for seg in ref_segments)
    return DICounts(orc.errors, length, orc.substitutions, orc.insertions, orc.deletions, tuple(orc.assignment))


def dicp_counts(ref_segments: Sequence[Any], hyp_segments: Sequence[Any], compiled: bool = True) -> DICounts:
    """DI-cpWER counts of one session, equal to meeteval's ``greedy_di_cp_word_error_rate``.

    Plain twin: ``compiled=False`` (the greedy sweeps run by Python).

    Args:
        ref_segments: The reference segments (``speaker``, ``start``, ``words``).
        hyp_segments: The hypothesis segments.
        compiled: False runs the plain twin of the greedy sweeps.

    Returns:
        The session's `DICounts`.

    >>> from lightscore.segments import Segment
    >>> ref = [Segment("A", 0, 1, "a"), Segment("A", 1, 2, "b"), Segment("B", 2, 3, "c"), Segment("B", 3, 4, "d")]
    >>> dicp_counts(ref, [Segment("A", 0, 2, "a b"), Segment("A", 2, 4, "b c d")])
    DICounts(errors=1, length=4, substitutions=0, deletions=0, insertions=1, assignment=('A', 'B'))
    """
    from lightscore.text.meeting.greedy_orc import greedy_orc_counts

    return _swapped(greedy_orc_counts(hyp_segments, ref_segments, compiled), ref_segments)


def ditcp_counts(
    ref_segments: Sequence[Any],
    hyp_segments: Sequence[Any],
    collar: float,
    reference_pseudo_word_level_timing: str = "character_based",
    hypothesis_pseudo_word_level_timing: str = "character_based_points",
    reference_sort: str | bool = "segment",
    hypothesis_sort: str | bool = "segment",
    compiled: bool = True,
) -> DICounts:
    """DI-tcpWER counts of one session, equal to meeteval's ``greedy_di_tcp_word_error_rate``.

    As meeteval does, the greedy time-constrained ORC-WER runs with every option swapped with its side
    (the collar then widens the reference words: the overlap test is the same either way).
    Plain twin: ``compiled=False``.

    Args:
        ref_segments: The reference segments (``speaker``, ``start``, ``end``, ``words``).
        hyp_segments: The hypothesis segments.
        collar: Seconds a hypothesis word may stray from the reference word it pairs with.
        reference_pseudo_word_level_timing: How reference segments' times are split among their words.
        hypothesis_pseudo_word_level_timing: The same for the hypothesis.
        reference_sort: ``"segment"`` (default: by start time), True (the same, and an error when a speaker's
            word times then run backwards) or False (as given); meeteval refuses ``"word"`` here.
        hypothesis_sort: The same for the hypothesis.
        compiled: False runs the plain twin of the greedy sweeps.

    Returns:
        The session's `DICounts`.

    Raises:
        ValueError: a sort of ``"word"``; a sort of True and word times that run backwards.

    >>> from lightscore.segments import Segment
    >>> ref = [Segment("A", 0, 1, "a"), Segment("A", 1, 2, "b"), Segment("B", 2, 3, "c"), Segment("B", 3, 4, "d")]
    >>> ditcp_counts(ref, [Segment("A", 0, 2, "a b"), Segment("A", 1, 4, "b c d")], collar=0)
    DICounts(errors=1, length=4, substitutions=0, deletions=0, insertions=1, assignment=('A', 'B'))
    """
    from lightscore.text.meeting.tc_orc import greedy_tc_orc_counts

    orc = greedy_tc_orc_counts(
        hyp_segments,
        ref_segments,
        collar,
        reference_pseudo_word_level_timing=hypothesis_pseudo_word_level_timing,
        hypothesis_pseudo_word_level_timing=reference_pseudo_word_level_timing,
        reference_sort=hypothesis_sort,
        hypothesis_sort=reference_sort,
        compiled=compiled,
    )
    return _swapped(orc, ref_segments)
