"""Diarization error counts of one session in integer time units: DER components and JER per speaker.

Times are rounded once to ticks (``ticks_per_second``, 10**6 by default), so
every duration is an integer and sums over sessions, shards and ranks are
exact. Two conventions fix the regions:

- ``"md-eval"`` (NIST md-eval, the number papers cite): the scored region is
  the UEM (default: from the first to the last reference boundary) less
  ``collar`` seconds on *each side* of every reference boundary, less
  reference overlap with ``skip_overlap`` (md-eval ``-1``); the speaker
  mapping maximizes overlap over the whole UEM, collars included.
- ``"pyannote"`` (pyannote.metrics): the UEM defaults to the span of
  reference and hypothesis, ``collar`` is the *total* width centred on each
  reference boundary (half each side), and the mapping is computed in the
  scored region itself.

The mapping is the Hungarian assignment (scipy) that maximizes the time a
reference and its hypothesis speaker talk together; only pairs that overlap
are mapped. Miss, false alarm and confusion follow both tools: per piece of
time with ``n_ref`` reference and ``n_hyp`` hypothesis speakers, miss is
``max(0, n_ref - n_hyp)``, false alarm ``max(0, n_hyp - n_ref)`` and confusion
``min(n_ref, n_hyp)`` less the mapped pairs, each times the duration.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

__all__ = ["CONVENTIONS", "DiarizationCounts", "diarization_counts", "to_ticks"]

CONVENTIONS = ("md-eval", "pyannote")
Interval = tuple[int, int]


class DiarizationCounts(NamedTuple):
    """One session's DER components in ticks, its mapping, and ``(ref speaker, error, union)`` per speaker for JER."""

    scored: int
    missed: int
    falarm: int
    confusion: int
    mapping: tuple[tuple[str, str], ...]
    jer_speakers: tuple[tuple[str, int, int], ...]


def to_ticks(seconds: float, ticks_per_second: int) -> int:
    """Seconds to the nearest tick.

    Raises:
        ValueError: the time is too large for a whole number of ticks (1e308 s), or not a number.

    >>> to_ticks(1.2345, 1000), to_ticks(0.1 + 0.2, 10)
    (1234, 3)
    >>> to_ticks(1e308, 1000)
    Traceback (most recent call last):
    ...
    ValueError: time 1e+308 s is not a finite number of ticks (1000 a second)
    """
    ticks = seconds * ticks_per_second
    if not math.isfinite(ticks):  # round() would raise OverflowError, naming neither the time nor the session
        raise ValueError(f"time {seconds!r} s is not a finite number of ticks ({ticks_per_second} a second)")
    return round(ticks)


def _by_speaker(segments: Iterable[Any], tps: int, what: str) -> tuple[dict[str, list[Interval]], list[Interval]]:
    """Speaker -> sorted intervals of positive length, and every interval (zero-length ones too, md-eval's extent)."""
    speakers: dict[str, list[Interval]] = {}
    every: list[Interval] = []
    for seg in segments:
        try:
            interval = (to_ticks(seg.start, tps), to_ticks(seg.end, tps))
        except ValueError as e:
            raise ValueError(f"{what} speaker {seg.speaker!r}: {e}") from None
        every.append(interval)
        speakers.setdefault(seg.speaker, [])
        if interval[1] > interval[0]:
            speakers[seg.speaker].append(interval)
    for speaker, intervals in speakers.items():
        intervals.sort()
        for (s0, e0), (s1, e1) in zip(intervals, intervals[1:]):
            if s1 < e0:
                raise ValueError(
                    f"{what} speaker {speaker!r} overlaps itself: {s1 / tps:g}..{e1 / tps:g} starts before "
                    f"{s0 / tps:g}..{e0 / tps:g} ends"
                )
    return speakers, every


def _union(intervals: Iterable[Interval]) -> list[Interval]:
    merged: list[list[int]] = []
    for start, end in sorted(intervals):
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(s, e) for s, e in merged]


def _subtract(region: list[Interval], zones: Iterable[Interval]) -> list[Interval]:
    """``region`` (sorted, disjoint) less the union of ``zones``."""
    out: list[Interval] = []
    cut = _union(zones)
    j = 0
    for start, end in region:
        while j < len(cut) and cut[j][1] <= start:
            j += 1
        k = j
        position = start
        while k < len(cut) and cut[k][0] < end:
            if cut[k][0] > position:
                out.append((position, cut[k][0]))
            position = max(position, cut[k][1])
            k += 1
        if position < end:
            out.append((position, end))
    return out


def _overlap_zones(ref: Mapping[str, list[Interval]]) -> list[Interval]:
    """Where two reference speakers or more talk at once."""
    events = sorted((t, step) for intervals in ref.values() for s, e in intervals for t, step in ((s, 1), (e, -1)))
    zones: list[Interval] = []
    active = 0
    since = 0
    for time, step in events:
        if active >= 2 and time > since:
            zones.append((since, time))
        active += step
        since = time
    return _union(zones)


def _pieces(ref: Mapping[str, list[Interval]], hyp: Mapping[str, list[Interval]], region: list[Interval]):
    """Yield ``(duration, ref speakers, hyp speakers)`` for each stretch of ``region`` where nobody starts or stops."""
    events: list[tuple[int, int, int, str]] = []
    for side, speakers in ((0, ref), (1, hyp)):
        for speaker, intervals in speakers.items():
            for s, e in intervals:
                events += [(s, 1, side, speaker), (e, -1, side, speaker)]
    events += [(s, 2, 2, "") for s, _ in region] + [(e, -2, 2, "") for _, e in region]
    events.sort(key=lambda ev: (ev[0], ev[1]))  # at one time a region's end before the next one's start
    active: tuple[set[str], set[str]] = (set(), set())
    inside = False
    since = None
    for time, step, side, speaker in events:
        if inside and since is not None and time > since:
            yield time - since, tuple(sorted(active[0])), tuple(sorted(active[1]))
        since = time
        if side == 2:
            inside = step > 0 if step == 2 else False
        elif step > 0:
            active[side].add(speaker)
        else:
            active[side].discard(speaker)


def _mapping(ref: Mapping[str, list[Interval]], hyp: Mapping[str, list[Interval]], region: list[Interval]):
    """Reference -> hypothesis speaker that maximizes the total time they talk together in ``region``."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    refs, hyps = sorted(ref), sorted(hyp)
    if not refs or not hyps:
        return {}
    together = np.zeros((len(refs), len(hyps)), dtype=np.int64)
    r_index, h_index = {s: i for i, s in enumerate(refs)}, {s: i for i, s in enumerate(hyps)}
    for duration, rs, hs in _pieces(ref, hyp, region):
        for r in rs:
            for h in hs:
                together[r_index[r], h_index[h]] += duration
    rows, cols = linear_sum_assignment(together, maximize=True)
    return {refs[r]: hyps[c] for r, c in zip(rows, cols) if together[r, c] > 0}


def _regions(
    ref: Mapping[str, list[Interval]],
    hyp: Mapping[str, list[Interval]],
    ref_every: list[Interval],
    uem: list[Interval] | None,
    collar: int,
    skip_overlap: bool,
    convention: str,
) -> tuple[list[Interval], list[Interval]]:
    """The mapping region and the scored region of one session, per ``convention``."""
    hyp_every = [i for intervals in hyp.values() for i in intervals]
    if uem is None:
        if convention == "md-eval":
            span = ref_every
        else:
            span = [i for intervals in ref.values() for i in intervals] + hyp_every
        uem = [(min(s for s, _ in span), max(e for _, e in span))] if span else []
    uem = _union(uem)
    if convention == "md-eval":
        zones = [(t - collar, t + collar) for s, e in ref_every for t in (s, e)] if collar > 0 else []
    else:
        half = collar // 2
        zones = [(t - half, t + half) for intervals in ref.values() for s, e in intervals for t in (s, e)]
    if skip_overlap:
        zones += _overlap_zones(ref)
    scored = _subtract(uem, zones) if zones else uem
    return (uem if convention == "md-eval" else scored), scored


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
) -> DiarizationCounts:
    """DER components (ticks), the mapping and per-speaker JER terms of one session.

    Args:
        ref_segments: Reference segments (objects with ``speaker``, ``start``, ``end`` in seconds).
        hyp_segments: Hypothesis segments.
        uem: Scoring regions in seconds; None uses the convention's default.
        collar: Seconds not scored around reference boundaries: each side (``"md-eval"``) or in
            total, centred (``"pyannote"``).
        skip_overlap: Leave out the time where reference speakers overlap.
        convention: ``"md-eval"`` or ``"pyannote"`` (see the module).
        ticks_per_second: The time unit.
        mapping: Score this reference -> hypothesis mapping instead of the optimal one (a known
            assignment, or another tool's pick among equally good ones).

    Returns:
        A `DiarizationCounts`; ``scored`` is the scored speaker time, DER's denominator.

    Raises:
        ValueError: an unknown convention, or a speaker overlapping itself.

    >>> from lightscore.segments import Segment
    >>> ref = [Segment("A", 0, 10), Segment("B", 10, 20)]
    >>> hyp = [Segment("x", 0, 12), Segment("y", 12, 20)]
    >>> c = diarization_counts(ref, hyp, ticks_per_second=100)
    >>> c.scored, c.missed, c.falarm, c.confusion, c.mapping
    (2000, 0, 0, 200, (('A', 'x'), ('B', 'y')))
    >>> diarization_counts(ref, hyp, collar=0.25, ticks_per_second=100).confusion
    175
    """
    if convention not in CONVENTIONS:
        raise ValueError(f"convention {convention!r} is not one of {', '.join(CONVENTIONS)}")
    tps = ticks_per_second
    ref, ref_every = _by_speaker(ref_segments, tps, "reference")
    if convention == "md-eval" and not ref_every:
        return DiarizationCounts(0, 0, 0, 0, (), ())  # md-eval scores only sessions its reference names
    hyp, _ = _by_speaker(hyp_segments, tps, "hypothesis")
    ref = {s: i for s, i in ref.items() if i}
    hyp = {s: i for s, i in hyp.items() if i}
    uem_ticks = None if uem is None else [(to_ticks(s, tps), to_ticks(e, tps)) for s, e in uem]
    map_region, scored_region = _regions(
        ref, hyp, ref_every, uem_ticks, to_ticks(collar, tps), skip_overlap, convention
    )
    mapping = _mapping(ref, hyp, map_region) if mapping is None else dict(mapping)
    scored = missed = falarm = confusion = 0
    ref_time: dict[str, int] = {}
    hyp_time: dict[str, int] = {}
    together: dict[str, int] = {}
    for duration, rs, hs in _pieces(ref, hyp, scored_region):
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
