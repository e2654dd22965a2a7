"""Diarization error counts of one session in integer time units: DER components and JER per speaker.

Times are rounded once to ticks (``ticks_per_second``, 10**6 by default), so
every duration is an integer and sums over sessions, shards and ranks are
exact. Two conventions fix the regions:

- ``"md-eval"`` (NIST md-eval, the number papers cite): the scored region is
  the UEM (default: from the first to the last reference boundary) less
  ``collar`` seconds on *each side* of every reference boundary, less
  reference overlap with ``overlap="skip"`` (md-eval ``-1``); the speaker
  mapping maximizes overlap over the whole UEM, collars included.
- ``"pyannote"`` (pyannote.metrics): the UEM defaults to the span of
  reference and hypothesis, ``collar`` is the *total* width centred on each
  reference boundary (half each side), ``overlap="skip"`` is its
  ``skip_overlap=True``, and the mapping is computed in the scored region itself.

A speaker's own overlapping turns are merged: the speaker talks once wherever
one of its turns is active (md-eval; pyannote on its ``Annotation.support()``).
Collars and overlap still come from the reference turns as given, in both
tools: a collar around each turn's ends, and overlap wherever two turns are
active, a speaker's own included.

The mapping is the Hungarian assignment (scipy) that maximizes the time a
reference and its hypothesis speaker talk together; only pairs that overlap
are mapped. Miss, false alarm and confusion follow both tools: per piece of
time with ``n_ref`` reference and ``n_hyp`` hypothesis speakers, miss is
``max(0, n_ref - n_hyp)``, false alarm ``max(0, n_hyp - n_ref)`` and confusion
``min(n_ref, n_hyp)`` less the mapped pairs, each times the duration.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from lightscore.analysis.intervals import Interval, overlap_zones, pieces, subtract, to_ticks, union

__all__ = [
    "CONVENTIONS",
    "OVERLAP_CHOICES",
    "DiarizationCounts",
    "ScoredSession",
    "TalkTimes",
    "diarization_counts",
    "overlap_choice",
    "scored_session",
    "talk_times",
    "to_ticks",
]

CONVENTIONS = ("md-eval", "pyannote")
OVERLAP_CHOICES = ("score", "skip")


class DiarizationCounts(NamedTuple):
    """One session's DER components in ticks, its mapping, ``(ref speaker, error, union)`` per speaker for JER.

    ``ref_self_overlaps`` and ``hyp_self_overlaps`` count the turns merged into a turn of the same
    speaker they overlap.
    """

    scored: int
    missed: int
    falarm: int
    confusion: int
    mapping: tuple[tuple[str, str], ...]
    jer_speakers: tuple[tuple[str, int, int], ...]
    ref_self_overlaps: int = 0
    hyp_self_overlaps: int = 0


class _Side(NamedTuple):
    """One side of a session in ticks: each speaker's merged turns, its own turns as given, and every interval."""

    merged: dict[str, list[Interval]]
    turns: dict[str, list[Interval]]
    every: list[Interval]
    self_overlaps: int


def _by_speaker(segments: Iterable[Any], tps: int, what: str) -> _Side:
    """Speaker -> merged and given intervals of positive length, every interval (zero-length too: md-eval's extent).

    A speaker's turns that overlap each other are merged into one (md-eval counts a speaker once
    wherever it talks); ``self_overlaps`` counts the turns that started before the speaker's
    earlier turns had ended.
    """
    turns: dict[str, list[Interval]] = {}
    every: list[Interval] = []
    for seg in segments:
        try:
            interval = (to_ticks(seg.start, tps), to_ticks(seg.end, tps))
        except ValueError as e:
            raise ValueError(f"{what} speaker {seg.speaker!r}: {e}") from None
        every.append(interval)
        turns.setdefault(seg.speaker, [])
        if interval[1] > interval[0]:
            turns[seg.speaker].append(interval)
    self_overlaps = 0
    for intervals in turns.values():
        intervals.sort()
        reach = None
        for start, end in intervals:
            if reach is not None and start < reach:
                self_overlaps += 1
            reach = end if reach is None else max(reach, end)
    merged = {speaker: union(intervals) for speaker, intervals in turns.items()}
    return _Side(merged, turns, every, self_overlaps)


class TalkTimes(NamedTuple):
    """Ticks each reference speaker, each hypothesis speaker and each pair of them talk in a region."""

    ref: dict[str, int]
    hyp: dict[str, int]
    together: dict[tuple[str, str], int]


def talk_times(
    ref: Mapping[str, list[Interval]], hyp: Mapping[str, list[Interval]], region: list[Interval]
) -> TalkTimes:
    """How long each speaker, and each reference and hypothesis pair together, talks in ``region``.

    Args:
        ref: Reference speaker -> merged turns (ticks), as `scored_session` gives them.
        hyp: Hypothesis speaker -> merged turns.
        region: Sorted, disjoint intervals.

    Returns:
        A `TalkTimes`; speakers and pairs that never talk in ``region`` are left out.

    >>> talk_times({"A": [(0, 10)]}, {"x": [(5, 20)], "y": [(30, 40)]}, [(0, 8)])
    TalkTimes(ref={'A': 8}, hyp={'x': 3}, together={('A', 'x'): 3})
    """
    times = TalkTimes({}, {}, {})
    for duration, rs, hs in pieces(ref, hyp, region):
        for r in rs:
            times.ref[r] = times.ref.get(r, 0) + duration
            for h in hs:
                times.together[r, h] = times.together.get((r, h), 0) + duration
        for h in hs:
            times.hyp[h] = times.hyp.get(h, 0) + duration
    return times


def _mapping(ref: Mapping[str, list[Interval]], hyp: Mapping[str, list[Interval]], region: list[Interval]):
    """Reference -> hypothesis speaker that maximizes the total time they talk together in ``region``."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    refs, hyps = sorted(ref), sorted(hyp)
    if not refs or not hyps:
        return {}
    together = np.zeros((len(refs), len(hyps)), dtype=np.int64)
    r_index, h_index = {s: i for i, s in enumerate(refs)}, {s: i for i, s in enumerate(hyps)}
    for (r, h), ticks in talk_times(ref, hyp, region).together.items():
        together[r_index[r], h_index[h]] = ticks
    rows, cols = linear_sum_assignment(together, maximize=True)
    return {refs[r]: hyps[c] for r, c in zip(rows, cols) if together[r, c] > 0}


def _regions(ref: _Side, hyp: _Side, uem: list[Interval] | None, collar: int, overlap: str, convention: str):
    """The mapping region and the scored region of one session, per ``convention``.

    Both tools place their collars around every reference turn as given (touching turns and a
    speaker's own overlapping turns too), and both skip overlap wherever two reference turns
    overlap, a speaker's own among them (md-eval's ``-1`` and pyannote's ``skip_overlap`` count
    turns, not speakers).
    """
    if uem is None:
        if convention == "md-eval":
            span = ref.every
        else:
            span = [i for side in (ref, hyp) for intervals in side.merged.values() for i in intervals]
        uem = [(min(s for s, _ in span), max(e for _, e in span))] if span else []
    uem = union(uem)
    if convention == "md-eval":
        zones = [(t - collar, t + collar) for s, e in ref.every for t in (s, e)] if collar > 0 else []
    else:
        half = collar // 2
        zones = [(t - half, t + half) for intervals in ref.turns.values() for s, e in intervals for t in (s, e)]
    if overlap == "skip":
        zones += overlap_zones(i for intervals in ref.turns.values() for i in intervals)
    scored = subtract(uem, zones) if zones else uem
    return (uem if convention == "md-eval" else scored), scored


class ScoredSession(NamedTuple):
    """One session in ticks: each side's speakers with their turns merged, the two regions, the merged self-overlaps."""

    ref: dict[str, list[Interval]]
    hyp: dict[str, list[Interval]]
    mapping_region: list[Interval]
    scored_region: list[Interval]
    ref_self_overlaps: int
    hyp_self_overlaps: int


def overlap_choice(overlap: str | None, skip_overlap: bool) -> str:
    """The overlap option, ``"score"`` or ``"skip"``, from ``overlap`` and the older ``skip_overlap`` flag.

    Raises:
        ValueError: an unknown value, or the two options disagreeing.

    >>> overlap_choice(None, True), overlap_choice("score", False)
    ('skip', 'score')
    >>> overlap_choice("score", True)
    Traceback (most recent call last):
    ...
    ValueError: overlap='score' contradicts skip_overlap=True (overlap='skip' is the same as skip_overlap=True)
    """
    if overlap is None:
        return "skip" if skip_overlap else "score"
    if overlap not in OVERLAP_CHOICES:
        raise ValueError(f"overlap {overlap!r} is not one of {', '.join(OVERLAP_CHOICES)}")
    if skip_overlap and overlap != "skip":
        raise ValueError(
            f"overlap={overlap!r} contradicts skip_overlap=True (overlap='skip' is the same as skip_overlap=True)"
        )
    return overlap


def scored_session(
    ref_segments: Sequence[Any],
    hyp_segments: Sequence[Any],
    *,
    uem: Sequence[tuple[float, float]] | None = None,
    collar: float = 0.0,
    overlap: str = "score",
    convention: str = "md-eval",
    ticks_per_second: int = 1_000_000,
) -> ScoredSession:
    """One session's speakers (turns merged) and regions in ticks, per ``convention``.

    Args:
        ref_segments: Reference segments (objects with ``speaker``, ``start``, ``end`` in seconds).
        hyp_segments: Hypothesis segments.
        uem: Scoring regions in seconds; None uses the convention's default.
        collar: Seconds not scored around reference boundaries: each side (``"md-eval"``) or in
            total, centred (``"pyannote"``).
        overlap: ``"score"`` or ``"skip"`` the time where reference speakers overlap.
        convention: ``"md-eval"`` or ``"pyannote"`` (see the module).
        ticks_per_second: The time unit.

    Raises:
        ValueError: an unknown convention or overlap choice, or a time that is no finite number of ticks.

    >>> from lightscore.segments import Segment
    >>> s = scored_session([Segment("A", 0, 2), Segment("A", 1, 3)], [], ticks_per_second=10)
    >>> s.ref, s.scored_region, s.ref_self_overlaps
    ({'A': [(0, 30)]}, [(0, 30)], 1)
    """
    if convention not in CONVENTIONS:
        raise ValueError(f"convention {convention!r} is not one of {', '.join(CONVENTIONS)}")
    if overlap not in OVERLAP_CHOICES:
        raise ValueError(f"overlap {overlap!r} is not one of {', '.join(OVERLAP_CHOICES)}")
    tps = ticks_per_second
    ref = _by_speaker(ref_segments, tps, "reference")
    hyp = _by_speaker(hyp_segments, tps, "hypothesis")
    uem_ticks = None if uem is None else [(to_ticks(s, tps), to_ticks(e, tps)) for s, e in uem]
    map_region, scored_region = _regions(ref, hyp, uem_ticks, to_ticks(collar, tps), overlap, convention)
    return ScoredSession(
        {s: i for s, i in ref.merged.items() if i},
        {s: i for s, i in hyp.merged.items() if i},
        map_region,
        scored_region,
        ref.self_overlaps,
        hyp.self_overlaps,
    )


def diarization_counts(
    ref_segments: Sequence[Any],
    hyp_segments: Sequence[Any],
    *,
    uem: Sequence[tuple[float, float]] | None = None,
    collar: float = 0.0,
    skip_overlap: bool = False,
    convention: str = "md-eval",
    ticks_per_second: int = 1_000_000,
    mapping: Mapping[str, str] | None = None,
    overlap: str | None = None,
) -> DiarizationCounts:
    """DER components (ticks), the mapping and per-speaker JER terms of one session.

    A speaker's own overlapping turns are merged (`scored_session`) and counted in
    ``ref_self_overlaps`` and ``hyp_self_overlaps``.

    Args:
        ref_segments: Reference segments (objects with ``speaker``, ``start``, ``end`` in seconds).
        hyp_segments: Hypothesis segments.
        uem: Scoring regions in seconds; None uses the convention's default.
        collar: Seconds not scored around reference boundaries: each side (``"md-eval"``) or in
            total, centred (``"pyannote"``).
        skip_overlap: Leave out the time where reference speakers overlap (``overlap="skip"``).
        convention: ``"md-eval"`` or ``"pyannote"`` (see the module).
        ticks_per_second: The time unit.
        mapping: Score this reference -> hypothesis mapping instead of the optimal one (a known
            assignment, or another tool's pick among equally good ones).
        overlap: ``"score"`` or ``"skip"`` the reference overlap; None follows ``skip_overlap``.

    Returns:
        A `DiarizationCounts`; ``scored`` is the scored speaker time, DER's denominator.

    Raises:
        ValueError: an unknown convention or overlap choice, ``overlap`` contradicting ``skip_overlap``.

    >>> from lightscore.segments import Segment
    >>> ref = [Segment("A", 0, 10), Segment("B", 10, 20)]
    >>> hyp = [Segment("x", 0, 12), Segment("y", 12, 20)]
    >>> c = diarization_counts(ref, hyp, ticks_per_second=100)
    >>> c.scored, c.missed, c.falarm, c.confusion, c.mapping
    (2000, 0, 0, 200, (('A', 'x'), ('B', 'y')))
    >>> diarization_counts(ref, hyp, collar=0.25, ticks_per_second=100).confusion
    175
    >>> c = diarization_counts([*ref, Segment("A", 5, 12)], hyp, ticks_per_second=100)
    >>> c.scored, c.missed, c.confusion, c.ref_self_overlaps  # A's 5..12 merged into its 0..10: A talks 0..12
    (2200, 200, 0, 1)
    """
    overlap = overlap_choice(overlap, skip_overlap)
    if convention == "md-eval" and not ref_segments:
        return DiarizationCounts(0, 0, 0, 0, (), ())  # md-eval scores only sessions its reference names
    session = scored_session(
        ref_segments,
        hyp_segments,
        uem=uem,
        collar=collar,
        overlap=overlap,
        convention=convention,
        ticks_per_second=ticks_per_second,
    )
    ref, hyp = session.ref, session.hyp
    mapping = _mapping(ref, hyp, session.mapping_region) if mapping is None else dict(mapping)
    scored = missed = falarm = confusion = 0
    ref_time: dict[str, int] = {}
    hyp_time: dict[str, int] = {}
    together: dict[str, int] = {}
    for duration, rs, hs in pieces(ref, hyp, session.scored_region):
        n_ref, n_hyp = len(rs), len(hs)
        mapped = sum(1 for r in rs if mapping.get(r) in hs)
        scored += duration * n_ref
        missed += duration * max(0, n_ref - n_hyp)
        falarm += duration * max(0, n_hyp - n_ref)
        confusion += duration * (min(n_ref, n_hyp) - mapped)
        for r in rs:
            ref_time[r] = ref_time.get(r, 0) + duration
            if mapping.get(r) in hs:
                together[r] = together.get(r, 0) + duration
        for h in hs:
            hyp_time[h] = hyp_time.get(h, 0) + duration
    return DiarizationCounts(
        scored,
        missed,
        falarm,
        confusion,
        tuple(sorted(mapping.items())),
        _jer_terms(ref_time, hyp_time, together, mapping),
        session.ref_self_overlaps,
        session.hyp_self_overlaps,
    )


def _jer_terms(ref_time, hyp_time, together, mapping) -> tuple[tuple[str, int, int], ...]:
    """``(speaker, fa + miss, union)`` per reference speaker that talks in the scored region (pyannote's JER)."""
    terms = []
    for r in sorted(ref_time):
        h = mapping.get(r)
        if h is None or h not in hyp_time:
            terms.append((r, ref_time[r], ref_time[r]))  # unmapped: an error of 1
            continue
        both = together.get(r, 0)
        terms.append((r, ref_time[r] + hyp_time[h] - 2 * both, ref_time[r] + hyp_time[h] - both))
    return tuple(terms)
