"""chrF and chrF++ statistics per segment, and the score from summed statistics, equal to sacrebleu 2.6.

A segment's statistics are sacrebleu's: for each character order 1..nc, then
each word order 1..nw, the triple (hypothesis n-grams, reference n-grams,
matches), taken from the reference with the best sentence chrF (the first on a
tie). They are integers, so a corpus is their sum. The n-grams are counted
with numpy (`lightscore.text.mt.ngram_counts`); `chrf_score` is sacrebleu's
``CHRF._compute_f_score`` line for line.

>>> stats = chrf_segment_stats(["a cat"], [["the cat"]], char_order=2, word_order=0)
>>> stats.tolist()
[[4, 6, 3, 3, 5, 2]]
>>> round(chrf_score(stats[0].tolist(), 2, 0), 4)
48.5406
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lightscore.text.mt.ngram_counts import (
    Sides,
    char_ids,
    clipped_matches,
    ngram_tables,
    pack,
    segment_slices,
    segment_sums,
    word_ids,
)
from lightscore.text.mt.reference import CHRF_EPSILON, chrf_score, chrf_words, match_triple, ngrams
from lightscore.text.mt.tokenizers import SEPARATOR, join_stream

__all__ = ["chrf_score", "chrf_segment_stats", "chrf_signature"]

_CHUNK = 256  # segments counted together: few enough for 32-bit keys up to 4-grams of characters


def chrf_segment_stats(
    hyps: Sequence[str],
    refs: Sequence[Sequence[str]],
    present: np.ndarray | None = None,
    char_order: int = 6,
    word_order: int = 0,
    beta: int = 2,
    whitespace: bool = False,
    eps_smoothing: bool = False,
) -> np.ndarray:
    """sacrebleu's chrF statistics of each segment (texts already lower-cased if asked).

    Plain twin: `lightscore.text.mt.reference.chrf_stats` per segment.

    Args:
        hyps: The hypotheses.
        refs: One sequence of references per reference stream, aligned with ``hyps``.
        present: bool ``(len(refs), segments)``: False where a segment lacks that reference. None: all present.
        char_order, word_order, beta, whitespace, eps_smoothing: sacrebleu's CHRF options.

    Returns:
        int64 ``(segments, 3 * (char_order + word_order))``: per order hyp, ref, match.

    >>> chrf_segment_stats(["ab"], [["b"], ["ab"]], char_order=1).tolist()
    [[2, 2, 2]]
    """
    present = np.ones((len(refs), len(hyps)), bool) if present is None else np.asarray(present, bool)
    if whitespace:
        chars = [list(hyps), *(list(r) for r in refs)]
    else:
        chars = [["".join(line.split()) for line in side] for side in (hyps, *refs)]
    triples = [_order_triples(char_ids(chars), char_order)]
    if word_order > 0:
        # chrF++'s words per line, in plain Python: a stream-wide split paid 1.45x on bench_mt_fast_paths (2026-12-06),
        # under the 1.5x a fast path must earn
        streams = [join_stream(map(chrf_words, side)) for side in (hyps, *refs)]
        triples.append(_order_triples(word_ids(streams, SEPARATOR), word_order))
    per_ref = np.concatenate(triples, axis=2)  # (refs, segments, orders, 3)
    scores = _f_scores(per_ref, beta, eps_smoothing)
    best = np.argmax(np.where(present, scores, -1.0), axis=0)  # the first of equal best, as sacrebleu's strict >
    chosen = per_ref[best, np.arange(len(hyps))]
    return chosen.reshape(len(hyps), -1)


def _order_triples(sides: Sides, max_order: int) -> np.ndarray:
    """(hyp, ref, match) per reference, segment and order 1..max_order: int64 ``(refs, segments, orders, 3)``."""
    n_refs = len(sides[0]) - 1
    n_segments = len(sides[1][0])
    out = np.zeros((n_refs, n_segments, max_order, 3), np.int64)
    for first, stop, part in segment_slices(sides, _CHUNK):
        out[:, first:stop] = _chunk_triples(part, max_order)
    return out


def _chunk_triples(sides: Sides, max_order: int) -> np.ndarray:
    n_refs = len(sides[0]) - 1
    n_segments = len(sides[1][0])
    enc = pack(sides, max_order)
    if enc is None:  # halve until it packs; one segment is counted with Counters
        if n_segments == 1:
            return _counter_triples(sides, max_order)
        low, high = segment_slices(sides, (n_segments + 1) // 2)  # two parts exactly, also for an odd count
        return np.concatenate([_chunk_triples(low[2], max_order), _chunk_triples(high[2], max_order)], axis=1)
    out = np.zeros((n_refs, n_segments, max_order, 3), np.int64)
    hyp_len = enc.lengths[0]
    hyp_tables = ngram_tables(enc.ids[0], hyp_len, max_order, enc.bits)
    for r, (ids, lengths) in enumerate(zip(enc.ids[1:], enc.lengths[1:])):
        ref_tables = ngram_tables(ids, lengths, max_order, enc.bits)
        for n in range(1, max_order + 1):
            keys, counts = hyp_tables[n - 1]
            ref_total = np.maximum(lengths - n + 1, 0)
            matches = clipped_matches(keys, counts, *ref_tables[n - 1])
            # sacrebleu counts no hypothesis n-grams against a reference without any of this order
            out[r, :, n - 1, 0] = np.where(ref_total > 0, np.maximum(hyp_len - n + 1, 0), 0)
            out[r, :, n - 1, 1] = ref_total
            out[r, :, n - 1, 2] = segment_sums(keys, matches, n, enc.bits, n_segments)
    return out


def _counter_triples(sides: Sides, max_order: int) -> np.ndarray:
    """One segment's triples counted plainly (a segment whose n-grams cannot be packed); ids stand for the tokens."""
    hyp, *refs = (ids.tolist() for ids in sides[0])
    out = np.zeros((len(refs), 1, max_order, 3), np.int64)
    for n in range(1, max_order + 1):
        for r, ref in enumerate(refs):
            out[r, 0, n - 1] = match_triple(ngrams(hyp, n), ngrams(ref, n))
    return out


def _f_scores(triples: np.ndarray, beta: int, eps_smoothing: bool) -> np.ndarray:
    """`chrf_score` of every ``triples[..., orders, 3]`` at once, with the same float operations in the same order.

    Plain twin: `lightscore.text.mt.reference.chrf_score` per reference and segment.
    """
    factor = beta**2
    shape = triples.shape[:-2]
    score = np.zeros(shape)
    avg_prec = np.zeros(shape)
    avg_rec = np.zeros(shape)
    effective = np.zeros(shape, np.int64)
    order = triples.shape[-2]
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(order):
            n_hyp = triples[..., i, 0]
            n_ref = triples[..., i, 1]
            n_match = triples[..., i, 2]
            prec = np.where(n_hyp > 0, n_match / n_hyp, CHRF_EPSILON)
            rec = np.where(n_ref > 0, n_match / n_ref, CHRF_EPSILON)
            denom = factor * prec + rec
            score += np.where(denom > 0, (1 + factor) * prec * rec / denom, CHRF_EPSILON)
            both = (n_hyp > 0) & (n_ref > 0)
            avg_prec = np.where(both, avg_prec + prec, avg_prec)
            avg_rec = np.where(both, avg_rec + rec, avg_rec)
            effective += both
        if eps_smoothing:
            return 100 * score / order
        avg_prec = np.where(effective == 0, 0.0, avg_prec / effective)
        avg_rec = np.where(effective == 0, 0.0, avg_rec / effective)
        f = (1 + factor) * avg_prec * avg_rec / ((factor * avg_prec) + avg_rec)
        return np.where(avg_prec + avg_rec != 0, 100 * f, 0.0)


def chrf_signature(
    nrefs: int | str, lowercase: bool, char_order: int, word_order: int, whitespace: bool, eps_smoothing: bool
) -> str:
    """sacrebleu's chrF signature string (built by sacrebleu's own ``CHRFSignature``).

    >>> chrf_signature(1, False, 6, 2, False, False)
    'nrefs:1|case:mixed|eff:yes|nc:6|nw:2|space:no|version:2.6.0'
    """
    from sacrebleu.metrics.chrf import CHRFSignature

    args = {"num_refs": -1 if nrefs == "var" else nrefs, "lowercase": lowercase, "char_order": char_order}
    args |= {"word_order": word_order, "whitespace": whitespace, "eps_smoothing": eps_smoothing}
    return CHRFSignature(args).format()
