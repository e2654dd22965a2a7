"""A session's scoring region for the word error rates (meeteval's ``uem=``): segments outside it are dropped.

meeteval keeps a segment when it touches the session's region, ends included
(``begin <= segment end and segment start <= end``), whole, even when it reaches
past the region: words are never cut. A session the UEM does not list keeps all
its segments. meeteval allows one region per session; a UEM with several (md-eval
allows them, `lightscore.segments.read_uem` reads them) keeps a segment that
touches any of them, which is meeteval's rule whenever there is one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

__all__ = ["in_regions"]

S = TypeVar("S")


def in_regions(segments: Sequence[S], regions: Sequence[tuple[float, float]] | None) -> list[S]:
    """The segments that touch one of ``regions`` (all of them when ``regions`` is None), in their order.

    Args:
        segments: Objects with ``start`` and ``end`` (`lightscore.segments.Segment`).
        regions: The session's ``(begin, end)`` scoring regions in seconds, or None (the UEM does not list it).

    Returns:
        The kept segments.

    >>> from lightscore.segments import Segment
    >>> segs = [Segment("A", 2, 6, "a"), Segment("A", 8, 12, "b"), Segment("B", 20, 22, "c"), Segment("A", 24, 28)]
    >>> [s.words for s in in_regions(segs, [(10.0, 20.0)])]
    ['b', 'c']
    >>> len(in_regions(segs, None))
    4
    """
    if regions is None:
        return list(segments)
    return [s for s in segments if any(_touches(s, begin, end) for begin, end in regions)]


def _touches(segment: Any, begin: float, end: float) -> bool:
    return begin <= segment.end and segment.start <= end
