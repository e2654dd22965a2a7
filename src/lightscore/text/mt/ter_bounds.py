"""Exact shortcuts for sacrebleu's TER search: where the plain edit distance settles it, and bounds that prune shifts.

sacrebleu's beam edit distance is the Levenshtein distance restricted to a band
of cells around the (pseudo) diagonal. Three facts make it cheap to skip work,
each keeping sacrebleu's number exactly:

- When the reference is shorter than the band's half width (`band_covers`), the
  band holds every cell: the beam distance *is* the Levenshtein distance, which
  rapidfuzz computes in C.
- Everywhere else the Levenshtein distance is a lower bound of the beam distance
  (the band only removes paths), and equals it when it is small (`plain_is_beam`).
- A shift reorders the hypothesis and keeps its words, so no shifted hypothesis
  can do better than `bag_bound`: the longer length minus the words the two
  sides share (as multisets). When the current distance already equals it, no
  shift lowers it, and sacrebleu's search stops without shifting.

Plain twin: `lightscore.text.mt.reference.ter_edits`, which takes none of these shortcuts (the property
tests hold `lightscore.text.mt.ter_beam.edit_counts`, which takes them, equal to it).

>>> plain_distance([1, 2, 3], [1, 3]), bag_bound([1, 2, 3], [3, 2, 1]), band_covers(10, 24)
(1, 0, True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rapidfuzz.distance import Indel, Levenshtein

from lightscore.text.mt.reference import BEAM_WIDTH

__all__ = ["BEAM_WIDTH", "bag_bound", "band_covers", "beam_width", "plain_distance", "plain_is_beam"]


def beam_width(n_hyp: int, n_ref: int) -> int:
    """sacrebleu's beam half width for a hypothesis of ``n_hyp`` words (> 0) and a reference of ``n_ref``.

    >>> beam_width(4, 10), beam_width(1, 120)
    (25, 85)
    """
    ratio = n_ref / n_hyp
    return math.ceil(ratio / 2 + BEAM_WIDTH) if BEAM_WIDTH < ratio / 2 else BEAM_WIDTH


def band_covers(n_hyp: int, n_ref: int) -> bool:
    """Whether sacrebleu's band holds every cell of the matrix, so its distance is the Levenshtein distance.

    Row i's band is ``[diag - beam, diag + beam)`` with ``0 <= diag <= n_ref``: a reference shorter
    than the beam puts columns 0..n_ref inside it on every row.

    >>> band_covers(30, 24), band_covers(30, 25)
    (True, False)
    """
    return n_ref < BEAM_WIDTH or n_ref < beam_width(n_hyp, n_ref)


def plain_is_beam(n_hyp: int, n_ref: int, distance: int) -> bool:
    """Whether a Levenshtein ``distance`` of sides this long is sacrebleu's beam distance too.

    True when the band covers the matrix, or when ``distance + |n_hyp - n_ref| + 1 < BEAM_WIDTH``:
    along an optimal path, cell (i, j) has ``|j - i|`` at most the insertions and deletions so far
    (at most ``distance``), and the band's diagonal ``floor(i * n_ref / n_hyp)`` is within the
    length difference of i (plus one for the rounding of the float product), so the path stays
    less than `BEAM_WIDTH` from the diagonal: inside the band.

    >>> plain_is_beam(40, 40, 23), plain_is_beam(40, 40, 24), plain_is_beam(40, 30, 13)
    (True, False, True)
    """
    return distance + abs(n_hyp - n_ref) + 1 < BEAM_WIDTH or band_covers(n_hyp, n_ref)


def plain_distance(hyp: Sequence[int], ref: Sequence[int]) -> int:
    """The unit-cost Levenshtein distance of two word-id sequences (rapidfuzz, in C).

    Ids, not words: rapidfuzz compares the hashes of its elements, and a small int's hash is itself.

    >>> plain_distance([5, 6], [6])
    1
    """
    return Levenshtein.distance(hyp, ref)


def bag_bound(hyp: Sequence[int], ref: Sequence[int]) -> int:
    """The fewest edits any reordering of ``hyp`` can reach against ``ref``: the longer length minus shared words.

    >>> bag_bound([1, 1, 2], [1, 2, 2, 3])
    2
    """
    # the longest common subsequence of the two sorted sides is their multiset intersection (Indel in C)
    shared = (len(hyp) + len(ref) - Indel.distance(sorted(hyp), sorted(ref))) // 2
    return max(len(hyp), len(ref)) - shared
