"""Diarization purity and coverage of one session in integer time units, as pyannote.metrics defines them.

Purity asks of each hypothesis speaker (cluster) how much of its time the
reference speaker it talks with most fills; coverage asks the same of each
reference speaker. Over the scored region (pyannote's convention,
`lightscore.analysis.diarization.scored_session`)::

    purity   = sum over hyp speakers h of max over ref r of |h and r| / sum over h of |h|
    coverage = sum over ref speakers r of max over hyp h of |r and h| / sum over r of |r|

A speaker's time is that of its merged turns (pyannote's ``label_timeline``), so
turns of one speaker that overlap each other count once. With no UEM, collar or
overlap skipped this is pyannote.metrics 4's ``DiarizationPurity`` and
``DiarizationCoverage``, whose speaker time includes the time nobody of the other
side talks; the options restrict both to the scored region as pyannote's
``uemify`` does. The counts are ticks, so sums over sessions and ranks are exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from lightscore.analysis.diarization import scored_session, talk_times

__all__ = ["PurityCounts", "f_measure", "purity_coverage_counts"]


class PurityCounts(NamedTuple):
    """One session's purity and coverage terms in ticks, and its merged self-overlapping turns per side."""

    purity_correct: int
    purity_total: int
    coverage_correct: int
    coverage_total: int
    ref_self_overlaps: int = 0
    hyp_self_overlaps: int = 0


def purity_coverage_counts(
    ref_segments: Sequence[Any],
    hyp_segments: Sequence[Any],
    *,
    uem: Sequence[tuple[float, float]] | None = None,
    collar: float = 0.0,
    overlap: str = "score",
    ticks_per_second: int = 1_000_000,
) -> PurityCounts:
    """Purity and coverage numerators and denominators (ticks) of one session.

    Args:
        ref_segments: Reference segments (objects with ``speaker``, ``start``, ``end`` in seconds).
        hyp_segments: Hypothesis segments.
        uem: Scoring regions in seconds; None scores the span of both sides (pyannote's default).
        collar: Seconds, the total width centred on each reference boundary, left out (pyannote's).
        overlap: ``"score"`` or ``"skip"`` the time two reference speakers or more talk.
        ticks_per_second: The time unit.

    Returns:
        A `PurityCounts`.

    Raises:
        ValueError: an unknown overlap choice, or a time that is no finite number of ticks.

    >>> from lightscore.segments import Segment
    >>> ref = [Segment("A", 0, 10), Segment("B", 10, 20)]
    >>> hyp = [Segment("x", 0, 15), Segment("y", 15, 20)]
    >>> purity_coverage_counts(ref, hyp, ticks_per_second=1)
    PurityCounts(purity_correct=15, purity_total=20, coverage_correct=15, coverage_total=20, \
ref_self_overlaps=0, hyp_self_overlaps=0)
    """
    session = scored_session(
        ref_segments,
        hyp_segments,
        uem=uem,
        collar=collar,
        overlap=overlap,
        convention="pyannote",
        ticks_per_second=ticks_per_second,
    )
    times = talk_times(session.ref, session.hyp, session.scored_region)
    best_ref: dict[str, int] = {}  # hyp speaker -> the most time one reference speaker talks with it
    best_hyp: dict[str, int] = {}
    for (r, h), ticks in times.together.items():
        best_ref[h] = max(best_ref.get(h, 0), ticks)
        best_hyp[r] = max(best_hyp.get(r, 0), ticks)
    return PurityCounts(
        sum(best_ref.values()),
        sum(times.hyp.values()),
        sum(best_hyp.values()),
        sum(times.ref.values()),
        session.ref_self_overlaps,
        session.hyp_self_overlaps,
    )


def f_measure(purity: float, coverage: float, beta: float = 1.0) -> float:
    """The weighted harmonic mean of purity and coverage, ``(1 + b²) P C / (b² P + C)``; 0 when both are 0.

    A ``beta`` above 1 weighs coverage more, below 1 purity (pyannote.metrics' ``f_measure``).

    >>> f_measure(0.75, 1.0), f_measure(0.0, 0.0)
    (0.8571428571428571, 0.0)
    """
    if purity + coverage == 0:
        return 0.0
    return (1 + beta * beta) * purity * coverage / (beta * beta * purity + coverage)
