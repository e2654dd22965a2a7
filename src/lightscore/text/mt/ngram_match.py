"""BLEU's clipped n-gram matches of many segments with one sort per order, for any number of references.

An n-gram of side s (0 the hypothesis, 1.. the references) of segment k becomes
one exact ``uint64`` key: k, then the n token ids, then s in the lowest bits.
Sorting the keys of all sides together puts every segment's n-gram with its
count on each side next to each other (the hypothesis first), so a run-length
pass gives the counts and the clip ``min(hypothesis count, largest reference
count)`` needs no search. `relabel` makes the ids of a run of segments dense,
so that their keys fit 64 bits (`fits`); callers split the run when they do not.

>>> ids = [np.array([0, 1, 0, 1], np.uint64), np.array([0, 1, 2], np.uint64)]
>>> clipped_match_sums((ids, [np.array([4]), np.array([3])]), max_order=2, bits=2).tolist()
[[2, 1]]
"""

from __future__ import annotations

import numpy as np

from lightscore.text.mt.ngram_counts import Sides

__all__ = ["clipped_match_sums", "fits", "relabel"]


def relabel(sides: Sides) -> tuple[Sides, int]:
    """The sides with their ids replaced by dense ranks (a table over the ids present: no sort), and the bits of one.

    >>> (ids, _), bits = relabel(([np.array([7, 3], np.uint64)], [np.array([2])]))
    >>> ids[0].tolist(), bits
    ([1, 0], 1)
    """
    ids, lengths = sides
    top = max((int(i.max()) for i in ids if len(i)), default=0)
    present = np.zeros(top + 1, bool)
    for i in ids:
        present[i] = True
    rank = np.cumsum(present, dtype=np.int64).astype(np.uint64) - np.uint64(1)
    return ([rank[i] for i in ids], lengths), max(int(present.sum()) - 1, 1).bit_length()


def fits(n_sides: int, n_segments: int, max_order: int, bits: int) -> bool:
    """Whether segment index, ``max_order`` ids of ``bits`` and the side fit one 64-bit key.

    >>> fits(2, 1000, 4, 13), fits(2, 1000, 4, 14)
    (True, False)
    """
    return max(n_segments - 1, 0).bit_length() + max_order * bits + (n_sides - 1).bit_length() <= 64


def clipped_match_sums(sides: Sides, max_order: int, bits: int) -> np.ndarray:
    """Per segment and order, the hypothesis n-grams matched in the references, clipped as sacrebleu clips them.

    Plain twin: `lightscore.text.mt.reference.bleu_stats`' matches.

    Every side's tokens sit in one array, so each order's keys are built in a few whole-array steps (the batched
    road's cost is the number of numpy calls as much as the tokens). A token's body starts as its segment then its
    id; shifting the body of order n - 1 and adding the next id gives order n with the segment still on top.

    Args:
        sides: Ids and tokens per segment of the hypothesis (side 0) and each reference; the keys must `fits`.
        max_order: The largest n-gram order N.
        bits: Bits of one id.

    Returns:
        int64 ``(segments, N)``.
    """
    ids, lengths = sides
    n_segments = len(lengths[0])
    side_bits = np.uint64((len(ids) - 1).bit_length())
    tokens = np.concatenate(ids)
    segment_lengths = np.concatenate(lengths)  # side after side
    row = np.repeat(np.arange(len(segment_lengths)), segment_lengths)  # each token's (side, segment) row
    starts = np.cumsum(segment_lengths) - segment_lengths
    left = segment_lengths[row] - (np.arange(len(tokens)) - starts[row])  # tokens from here to the segment's end
    side = (row // max(n_segments, 1)).astype(np.uint64)
    body = ((row % max(n_segments, 1)).astype(np.uint64) << np.uint64(bits)) | tokens
    out = np.zeros((n_segments, max_order), np.int64)
    for n in range(1, max_order + 1):
        if n > 1:  # the n-gram at p: the (n-1)-gram at p, then token p + n - 1 (past a segment's end: dropped)
            body = (body[:-1] << np.uint64(bits)) | tokens[n - 1 :]
        key = np.sort(((body << side_bits) | side[: len(body)])[left[: len(body)] >= n])
        if len(key):
            segment, clipped = _clipped(key, int(side_bits), n * bits)
            out[:, n - 1] = np.bincount(segment, weights=clipped, minlength=n_segments)
    return out


def _clipped(key: np.ndarray, side_bits: int, ngram_bits: int) -> tuple[np.ndarray, np.ndarray]:
    """Each distinct n-gram's segment and ``min(hypothesis count, largest reference count)``, from the sorted keys."""
    firsts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    unique = key[firsts]
    counts = np.diff(np.append(firsts, len(key)))
    if side_bits == 1:  # one reference: a hypothesis n-gram (side 0) is matched when its reference key follows
        pair = np.flatnonzero((unique[1:] - unique[:-1] == 1) & ((unique[:-1] & np.uint64(1)) == 0))
        segment = unique[pair] >> np.uint64(ngram_bits + 1)
        return segment.astype(np.int64), np.minimum(counts[pair], counts[pair + 1])
    ngram = unique >> np.uint64(side_bits)
    starts = np.flatnonzero(np.concatenate(([True], ngram[1:] != ngram[:-1])))  # one per distinct n-gram
    is_hyp = (unique & np.uint64((1 << side_bits) - 1)) == 0
    hyp_count = np.where(is_hyp[starts], counts[starts], 0)
    ref_max = np.maximum.reduceat(np.where(is_hyp, 0, counts), starts)
    segment = ngram[starts] >> np.uint64(ngram_bits)
    return segment.astype(np.int64), np.minimum(hyp_count, ref_max)
