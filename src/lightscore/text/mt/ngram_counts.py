"""Exact n-gram counting over a whole batch of segments with numpy, for chrF (BLEU: `lightscore.text.mt.ngram_match`).

sacrebleu counts each segment's n-grams in a Python ``Counter`` of tuples; here
every token (a word or a character) becomes a small integer, and an n-gram of a
segment becomes one ``uint64`` key: the segment's index in the high bits, then
the n token ids packed side by side. Packing is exact (no hashing), so two keys
are equal exactly when the segment and the n-gram are. Counting is then a sort
and a run-length pass, and matching a hypothesis against a reference a
``searchsorted``. A batch whose ids do not fit 64 bits is relabelled per segment
(ids local to a segment are few); `encode` returns None when even that does not
fit, and the callers split the batch (one segment at the end, counted like
sacrebleu). `word_ids` and `char_ids` turn text into ids for a whole batch.

>>> enc = pack(word_ids([["a", "b", "a", "b"], ["a", "b", "c"]], "|"), max_order=2)
>>> keys, counts = ngram_counts(enc.ids[0], enc.lengths[0], 2, enc.bits)
>>> counts.tolist(), clipped_matches(keys, counts, *ngram_counts(enc.ids[1], enc.lengths[1], 2, enc.bits)).tolist()
([2, 1], [1, 0])
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

__all__ = [
    "Encoded",
    "char_ids",
    "clipped_matches",
    "ngram_counts",
    "ngram_tables",
    "pack",
    "segment_slices",
    "segment_sums",
    "word_ids",
]


class Encoded(NamedTuple):
    """Token ids of several sides (hypothesis, references) of the same segments, packable in 64 bits."""

    ids: list[np.ndarray]  # per side: the ids of all its tokens, segment after segment (uint64)
    lengths: list[np.ndarray]  # per side: tokens per segment (int64)
    bits: int  # bits of one id
    segment_bits: int  # bits of a segment index


Sides = tuple[list[np.ndarray], list[np.ndarray]]  # per side: ids, and tokens per segment


def word_ids(streams: Sequence[list[str]], separator: str) -> Sides:
    """Integer ids for the tokens of every side; ``streams[k]`` holds side k's tokens, ``separator`` between segments.

    Returns:
        Per side, the ids of its tokens (separators dropped, uint64) and its tokens per segment.

    >>> ids, lengths = word_ids([["a", "b", "|", "|", "b"]], "|")
    >>> ids[0].tolist(), lengths[0].tolist()
    ([1, 2, 2], [2, 0, 1])
    """
    vocab: dict[str, int] = {separator: 0}
    ids = []
    lengths = []
    for tokens in streams:
        for token in dict.fromkeys(tokens):  # the distinct tokens, at C speed
            vocab.setdefault(token, len(vocab))
        every = np.array(_lookup(vocab, tokens), dtype=np.uint64).reshape(-1)
        cuts = np.flatnonzero(every == 0)
        lengths.append(np.diff(np.concatenate(([-1], cuts, [len(every)]))) - 1)
        ids.append(every[every != 0])
    return ids, lengths


def _lookup(vocab: dict[str, int], tokens: list[str]) -> tuple | int:
    # itemgetter looks all tokens up in one C loop (one token: a bare int, reshaped by the caller)
    return operator.itemgetter(*tokens)(vocab) if tokens else ()


def char_ids(sides: Sequence[Sequence[str]]) -> Sides:
    """Integer ids (dense code points) for the characters of every side: ``sides[k][s]`` is a string.

    >>> ids, lengths = char_ids([["ab", "b"]])
    >>> ids[0].tolist(), lengths[0].tolist()
    ([0, 1, 1], [2, 1])
    """
    points = []
    lengths = []
    for side in sides:
        points.append(np.frombuffer("".join(side).encode("utf-32-le"), dtype=np.uint32))
        lengths.append(np.fromiter(map(len, side), dtype=np.int64, count=len(side)))
    # A table up to the largest code point present ranks the characters without sorting them (not over all
    # of Unicode: a 1,000-segment batch of ASCII text would fill and sum a 1.1M-entry table for 128 entries).
    top = max((int(p.max()) for p in points if len(p)), default=0)
    present = np.zeros(top + 1, dtype=bool)
    for p in points:
        present[p] = True
    rank = np.cumsum(present, dtype=np.int64) - 1
    return [rank[p].astype(np.uint64) for p in points], lengths


def segment_slices(sides: Sides, size: int) -> list[tuple[int, int, Sides]]:
    """The sides cut into runs of ``size`` segments: ``(first, stop, sides of those segments)``."""
    ids, lengths = sides
    ends = [np.cumsum(length) for length in lengths]
    out = []
    for first in range(0, len(lengths[0]), size):
        stop = min(first + size, len(lengths[0]))
        lo = [int(e[first - 1]) if first else 0 for e in ends]
        hi = [int(e[stop - 1]) for e in ends]
        part = ([i[a:b] for i, a, b in zip(ids, lo, hi)], [length[first:stop] for length in lengths])
        out.append((first, stop, part))
    return out


def pack(sides: Sides, max_order: int) -> Encoded | None:
    """The sides as given when their n-gram keys fit 64 bits, else with ids local to each segment, else None.

    >>> pack(([np.array([0, 1], np.uint64)], [np.array([2])]), 4).bits
    1
    """
    ids, lengths = sides
    n_segments = len(lengths[0])
    segment_bits = max(n_segments - 1, 0).bit_length()
    bits = max(max((int(i.max(initial=0)) for i in ids), default=0), 1).bit_length()
    if max_order * bits + segment_bits <= 64:
        return Encoded(ids, lengths, bits, segment_bits)
    if bits + segment_bits > 64:
        return None
    segments = [np.repeat(np.arange(n_segments, dtype=np.uint64), length) for length in lengths]
    combined = np.concatenate([(s << np.uint64(bits)) | i for s, i in zip(segments, ids)])
    unique, inverse = np.unique(combined, return_inverse=True)
    first = np.searchsorted(unique, np.arange(n_segments, dtype=np.uint64) << np.uint64(bits))
    local = inverse.astype(np.int64) - first[np.concatenate(segments).astype(np.int64)]
    bits = max(int(local.max(initial=0)), 1).bit_length()
    if max_order * bits + segment_bits > 64:
        return None
    cuts = np.cumsum([len(i) for i in ids])[:-1]
    return Encoded([part.astype(np.uint64) for part in np.split(local, cuts)], lengths, bits, segment_bits)


def ngram_tables(
    ids: np.ndarray, lengths: np.ndarray, max_order: int, bits: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    """`ngram_counts` for the orders 1..max_order, each order's keys built from the last one's.

    Plain twin: `lightscore.text.mt.reference.ngrams` per segment and order.

    >>> [counts.tolist() for _, counts in ngram_tables(np.array([1, 1, 1], np.uint64), np.array([3]), 2, 1)]
    [[3], [2]]
    """
    starts = np.cumsum(lengths) - lengths
    segment = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    left = lengths[segment] - (np.arange(len(ids), dtype=np.int64) - starts[segment])  # tokens from here on
    segment = segment.astype(np.uint64)
    segment_bits = max(len(lengths) - 1, 0).bit_length()
    body = ids
    tables = []
    for n in range(1, max_order + 1):
        if n > 1:  # the n-gram at p: the (n-1)-gram at p, then token p + n - 1 (past a segment's end: unused)
            body = (body[:-1] << np.uint64(bits)) | ids[n - 1 :]
        keys = ((segment[: len(body)] << np.uint64(n * bits)) | body)[left[: len(body)] >= n]
        if n * bits + segment_bits <= 32:  # 32-bit keys sort twice as fast; equal keys stay equal
            keys = keys.astype(np.uint32)
        tables.append(_run_lengths(np.sort(keys)))
    return tables


def ngram_counts(ids: np.ndarray, lengths: np.ndarray, n: int, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct n-grams of every segment (sorted keys: segment index, then the n ids) and how often each occurs.

    >>> keys, counts = ngram_counts(np.array([1, 1, 1], np.uint64), np.array([3]), 1, 1)
    >>> keys.tolist(), counts.tolist()
    ([1], [3])
    """
    return ngram_tables(ids, lengths, n, bits)[-1]


def _run_lengths(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if len(keys) == 0:
        return keys, np.zeros(0, np.int64)
    firsts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    return keys[firsts], np.diff(np.append(firsts, len(keys)))


def clipped_matches(keys: np.ndarray, counts: np.ndarray, ref_keys: np.ndarray, ref_counts: np.ndarray) -> np.ndarray:
    """For each hypothesis n-gram, ``min(its count, the reference's count)`` (0 when the reference lacks it).

    Plain twin: `lightscore.text.mt.reference.match_triple`'s matches.
    """
    if len(ref_keys) == 0:
        return np.zeros(len(keys), np.int64)
    at = np.minimum(np.searchsorted(ref_keys, keys), len(ref_keys) - 1)
    return np.where(ref_keys[at] == keys, np.minimum(counts, ref_counts[at]), 0)


def segment_sums(keys: np.ndarray, values: np.ndarray, n: int, bits: int, n_segments: int) -> np.ndarray:
    """Sum ``values`` (one per key) by the segment each key belongs to (int64, exact)."""
    segment = (keys >> np.uint64(n * bits)).astype(np.int64)
    # float64 sums of counts are exact far beyond any corpus (2**53)
    return np.bincount(segment, weights=values, minlength=n_segments).astype(np.int64)
