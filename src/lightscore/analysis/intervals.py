"""Time as integer ticks, and the interval arithmetic diarization scoring needs.

Every duration of `lightscore.analysis.diarization` and `lightscore.analysis.purity` is a whole number of
ticks, so sums over sessions, shards and ranks are exact. An interval is ``(start, end)`` in ticks.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

__all__ = ["Interval", "overlap_zones", "pieces", "subtract", "to_ticks", "union"]

Interval = tuple[int, int]


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


def union(intervals: Iterable[Interval]) -> list[Interval]:
    """The sorted, disjoint union of ``intervals`` (empty ones dropped; touching ones joined).

    >>> union([(5, 7), (0, 2), (2, 3), (6, 9), (4, 4)])
    [(0, 3), (5, 9)]
    """
    merged: list[list[int]] = []
    for start, end in sorted(intervals):
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(s, e) for s, e in merged]


def subtract(region: list[Interval], zones: Iterable[Interval]) -> list[Interval]:
    """``region`` (sorted, disjoint) less the union of ``zones``.

    >>> subtract([(0, 10)], [(2, 3), (8, 12)])
    [(0, 2), (3, 8)]
    """
    out: list[Interval] = []
    cut = union(zones)
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


def overlap_zones(intervals: Iterable[Interval]) -> list[Interval]:
    """Where two of ``intervals`` or more are active at once (touching ones do not overlap).

    >>> overlap_zones([(0, 5), (3, 8), (8, 9), (4, 6)])
    [(3, 6)]
    """
    events = sorted((t, step) for s, e in intervals for t, step in ((s, 1), (e, -1)))
    zones: list[Interval] = []
    active = 0
    since = 0
    for time, step in events:
        if active >= 2 and time > since:
            zones.append((since, time))
        active += step
        since = time
    return union(zones)


def pieces(ref: Mapping[str, list[Interval]], hyp: Mapping[str, list[Interval]], region: list[Interval]):
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
