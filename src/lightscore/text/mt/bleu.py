"""BLEU's sufficient statistics per segment, and the score from summed statistics, equal to sacrebleu 2.6.

A segment's statistics are sacrebleu's list: hypothesis length, closest
reference length, then the clipped n-gram matches and the hypothesis n-gram
totals for orders 1..N. They are integers, so a corpus is their sum and merging
ranks is exact. `bleu_segment_stats` counts a batch with numpy
(`lightscore.text.mt.ngram_match`); `bleu_score` is sacrebleu's ``compute_bleu``
line for line, so the same statistics (of the same number types) give the same
float.

>>> stats = bleu_segment_stats(["the", "cat", "sat"], [["the", "cat", "sat"]], max_order=4)
>>> stats.tolist()
[[3, 3, 3, 2, 1, 0, 3, 2, 1, 0]]
>>> round(bleu_score(stats.sum(0).tolist(), 4, "exp")["score"], 4)
0.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from lightscore.text.mt.ngram_counts import Sides, segment_slices, word_ids
from lightscore.text.mt.ngram_match import clipped_match_sums, fits, relabel
from lightscore.text.mt.reference import bleu_stats
from lightscore.text.mt.tokenizers import SEPARATOR

__all__ = ["SMOOTH_DEFAULTS", "bleu_score", "bleu_segment_stats", "bleu_side_stats", "bleu_signature"]

SMOOTH_DEFAULTS: dict[str, float | None] = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}
"""sacrebleu's smoothing methods and the default value of each (None: takes no value)."""

_CHUNK = 4096  # segments counted together: bounds memory, keeps the packed keys small


def bleu_segment_stats(
    hyps: list[str], refs: Sequence[list[str]], present: np.ndarray | None = None, max_order: int = 4
) -> np.ndarray:
    """sacrebleu's BLEU statistics of each segment, from token streams.

    Plain twin: `lightscore.text.mt.reference.bleu_stats` per segment.

    Args:
        hyps: The hypotheses' tokens, one stream with `lightscore.text.mt.tokenizers.SEPARATOR`
            between segments (`lightscore.text.mt.tokenizers.token_stream`).
        refs: One such stream per reference, aligned with ``hyps``.
        present: bool ``(len(refs), segments)``: False where a segment has no such reference
            (sacrebleu's None: it is neither matched nor a candidate length). None: all present.
        max_order: The largest n-gram order N.

    Returns:
        int64 array ``(segments, 2 + 2N)``: hyp_len, ref_len, matches 1..N, totals 1..N.

    >>> bleu_segment_stats(["a", "b"], [["a"], ["a", "b", "c"]], max_order=2).tolist()
    [[2, 1, 2, 1, 2, 1]]
    """
    return bleu_side_stats(word_ids([hyps, *refs], SEPARATOR), present, max_order)


def bleu_side_stats(sides: Sides, present: np.ndarray | None = None, max_order: int = 4) -> np.ndarray:
    """`bleu_segment_stats` from token ids (`lightscore.text.mt.token_ids.TokenIds`): side 0 the hypotheses.

    Plain twin: `lightscore.text.mt.reference.bleu_stats` per segment.

    >>> ids = [np.array([0, 1], np.uint64), np.array([0], np.uint64)]
    >>> bleu_side_stats((ids, [np.array([2]), np.array([1])]), max_order=1).tolist()
    [[2, 1, 1, 2]]
    """
    n_segments = len(sides[1][0])
    present = np.ones((len(sides[0]) - 1, n_segments), bool) if present is None else np.asarray(present, bool)
    sides = _without_absent(sides, present)
    stats = np.zeros((n_segments, 2 + 2 * max_order), np.int64)
    for first, stop, part in segment_slices(sides, _CHUNK):
        stats[first:stop] = _chunk_stats(part, present[:, first:stop], max_order)
    return stats


def _without_absent(sides: Sides, present: np.ndarray) -> Sides:
    """The sides with the tokens of absent references removed: an absent reference matches no n-gram."""
    ids, lengths = list(sides[0]), list(sides[1])
    for r, here in enumerate(present, 1):
        if not here.all():
            ids[r] = ids[r][np.repeat(here, lengths[r])]
            lengths[r] = np.where(here, lengths[r], 0)
    return ids, lengths


def _chunk_stats(sides: Sides, present: np.ndarray, max_order: int) -> np.ndarray:
    """Statistics of some segments; halved while their keys do not fit 64 bits, one segment counted like sacrebleu."""
    sides, bits = relabel(sides)
    n_segments = len(sides[1][0])
    if not fits(len(sides[0]), n_segments, max_order, bits):
        if n_segments == 1:  # too many distinct words to pack: the plain count, ids standing for the words
            hyp, *refs = (ids.tolist() for ids in sides[0])
            return np.array([bleu_stats(hyp, [ref for ref, here in zip(refs, present[:, 0]) if here], max_order)])
        half = (n_segments + 1) // 2  # two parts exactly, also for an odd count
        low, high = segment_slices(sides, half)
        low_stats = _chunk_stats(low[2], present[:, :half], max_order)
        return np.concatenate([low_stats, _chunk_stats(high[2], present[:, half:], max_order)])
    hyp_len = sides[1][0]
    stats = np.zeros((n_segments, 2 + 2 * max_order), np.int64)
    stats[:, 0] = hyp_len
    stats[:, 1] = _closest_ref_len(hyp_len, sides[1][1:], present)
    stats[:, 2 : 2 + max_order] = clipped_match_sums(sides, max_order, bits)
    for n in range(1, max_order + 1):
        stats[:, 1 + max_order + n] = np.maximum(hyp_len - n + 1, 0)
    return stats


def _closest_ref_len(hyp_len: np.ndarray, ref_lens: Sequence[np.ndarray], present: np.ndarray) -> np.ndarray:
    """sacrebleu's closest reference length: the smallest difference, on a tie the shorter reference."""
    best_diff = np.full(len(hyp_len), -1, np.int64)
    best_len = np.full(len(hyp_len), -1, np.int64)
    for lengths, here in zip(ref_lens, present):
        diff = np.abs(hyp_len - lengths)
        better = here & ((best_diff == -1) | (diff < best_diff) | ((diff == best_diff) & (lengths < best_len)))
        best_diff = np.where(better, diff, best_diff)
        best_len = np.where(better, lengths, best_len)
    return best_len


def bleu_score(
    stats: Sequence[Any],
    max_order: int = 4,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
) -> dict[str, Any]:
    """BLEU from summed statistics: sacrebleu's ``BLEU.compute_bleu``, step for step.

    Args:
        stats: hyp_len, ref_len, matches 1..N, totals 1..N (summed over segments); ints,
            or the numpy numbers sacrebleu's significance tests sum them into.
        max_order: N.
        smooth_method: ``"exp"``, ``"floor"``, ``"add-k"`` or ``"none"``.
        smooth_value: For floor and add-k; None takes `SMOOTH_DEFAULTS`.
        effective_order: Stop at the first order without n-grams (sentence BLEU).

    Returns:
        ``score``, ``bp``, ``precisions`` (percent per order), ``sys_len``, ``ref_len``, ``ratio``.

    >>> r = bleu_score([4, 5, 3, 1, 0, 0, 4, 3, 2, 1], smooth_method="floor")
    >>> round(r["score"], 4), round(r["bp"], 4), r["ratio"]
    (14.6438, 0.7788, 0.8)
    """
    correct = list(stats[2 : 2 + max_order])
    total = list(stats[2 + max_order : 2 + 2 * max_order])
    sys_len = int(stats[0])
    ref_len = int(stats[1])
    if smooth_value is None:
        smooth_value = SMOOTH_DEFAULTS[smooth_method]
    bp = 1.0
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    precisions = [0.0] * max_order
    result = {"bp": bp, "precisions": precisions, "sys_len": sys_len, "ref_len": ref_len}
    result["ratio"] = sys_len / ref_len if ref_len else 0
    if not any(correct):  # sacrebleu's early stop (its issue 141)
        return {"score": 0.0, **result}
    smooth_mteval = 1.0
    eff_order = max_order
    for n in range(1, max_order + 1):
        if smooth_method == "add-k" and n > 1:
            correct[n - 1] += smooth_value
            total[n - 1] += smooth_value
        if total[n - 1] == 0:
            break
        if effective_order:
            eff_order = n
        if correct[n - 1] == 0:
            if smooth_method == "exp":
                smooth_mteval *= 2
                precisions[n - 1] = 100.0 / (smooth_mteval * total[n - 1])
            elif smooth_method == "floor":
                precisions[n - 1] = 100.0 * smooth_value / total[n - 1]
        else:
            precisions[n - 1] = 100.0 * correct[n - 1] / total[n - 1]
    score = bp * math.exp(sum([_log(p) for p in precisions[:eff_order]]) / eff_order)
    return {"score": score, **result}


def _log(p: float) -> float:
    # sacrebleu's my_log: log(0) is taken as -9999999999
    return -9999999999 if p == 0.0 else math.log(p)


def bleu_signature(
    nrefs: int | str, lowercase: bool, tokenizer: str, smooth_method: str, smooth_value: float | None, effective: bool
) -> str:
    """sacrebleu's BLEU signature string (built by sacrebleu's own ``BLEUSignature``).

    >>> bleu_signature(1, False, "13a", "exp", None, False)
    'nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0'
    """
    from sacrebleu.metrics.bleu import BLEUSignature

    args = {"num_refs": -1 if nrefs == "var" else nrefs, "lowercase": lowercase, "tokenizer_signature": tokenizer}
    args |= {"smooth_method": smooth_method, "smooth_value": smooth_value, "effective_order": effective}
    return BLEUSignature(args).format()
