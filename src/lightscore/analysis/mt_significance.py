"""sacrebleu 2.6's paired significance tests over per-segment sufficient statistics: same seed, same p-values.

`paired_bootstrap_test` is sacrebleu's ``--paired-bs`` (Koehn 2004, as Moses'
``bootstrap-hypothesis-difference-significance.pl``) and
`paired_ar_test` its ``--paired-ar`` (approximate randomization, as multeval).
Both take the two systems' per-segment statistics (sacrebleu's lists: BLEU's
or chrF's integers, TER's ``[edits, average reference length]``) and a
function that scores summed statistics. They draw the same random numbers in
the same order as sacrebleu and sum in the same number types (float32 for the
bootstrap, as sacrebleu), so for the same seed the p-values, means and
intervals are sacrebleu's. sacrebleu's default seed is 12345 (``SACREBLEU_SEED``).

>>> from lightscore.text.mt.chrf import chrf_score
>>> a = [[3, 3, 2], [2, 4, 1], [5, 5, 5]] * 5
>>> b = [[3, 3, 3], [2, 4, 2], [5, 5, 5]] * 5
>>> r = paired_bootstrap_test(a, b, lambda s: chrf_score(s, 1, 0), n_samples=200)
>>> 0 < r["p_value"] <= 1, round(r["score"] - r["baseline_score"], 2)
(True, 17.24)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["SACREBLEU_SEED", "bootstrap_mean_ci", "estimate_ci", "paired_ar_test", "paired_bootstrap_test"]

SACREBLEU_SEED = 12345
Score = Callable[[Sequence[Any]], float]
_BLOCK = 1 << 24  # float32 values gathered at once while resampling (about 64 MB)


def estimate_ci(scores: np.ndarray) -> tuple[float, float]:
    """sacrebleu's mean and 95% half-interval of bootstrap scores (the 1/40th from each end).

    >>> estimate_ci(np.arange(80.0))
    (39.5, 37.5)
    """
    scores = np.sort(scores)
    lower_idx = len(scores) // 40
    lower = scores[lower_idx]
    upper = scores[len(scores) - lower_idx - 1]
    return float(scores.mean()), float(0.5 * (upper - lower))


def _summed(stats: Sequence[Sequence[Any]]) -> list:
    """sacrebleu's ``sum_of_lists``: a running sum keeping the first value's type."""
    if len(stats) == 1:
        return list(stats[0])
    total = [type(stats[0][0])(0.0)] * len(stats[0])
    for row in stats:
        for i, value in enumerate(row):
            total[i] += value
    return total


def _resampled_scores(stats32: np.ndarray, picks: np.ndarray, score: Score) -> np.ndarray:
    """``score(stats32[p].sum(0))`` for every row p of ``picks``, as sacrebleu sums them (float32, per resample)."""
    step = max(1, _BLOCK // max(1, stats32.size))
    out = []
    for start in range(0, len(picks), step):
        out += [score(rows.sum(0)) for rows in stats32[picks[start : start + step]]]
    return np.array(out)


def bootstrap_mean_ci(
    stats: Sequence[Sequence[Any]], score: Score, n_samples: int = 1000, seed: int | None = SACREBLEU_SEED
) -> tuple[float, float]:
    """sacrebleu's bootstrap of one system (``corpus_score(n_bootstrap=...)``): mean and 95% half-interval.

    >>> from lightscore.text.mt.chrf import chrf_score
    >>> mean, ci = bootstrap_mean_ci([[3, 3, 2], [2, 4, 1]] * 4, lambda s: chrf_score(s, 1, 0), 100)
    >>> 0 < mean < 100 and ci >= 0
    True
    """
    rng = np.random.default_rng(seed)
    picks = rng.choice(len(stats), size=(n_samples, len(stats)), replace=True)
    return estimate_ci(_resampled_scores(np.array(stats, dtype="float32"), picks, score))


def _p_value(samples: np.ndarray, real_difference: float) -> float:
    # multeval's rule: strictly greater, and +1 on both sides
    return (np.sum(samples > real_difference).item() + 1) / (len(samples) + 1)


def paired_bootstrap_test(
    baseline: Sequence[Sequence[Any]],
    system: Sequence[Sequence[Any]],
    score: Score,
    n_samples: int = 1000,
    seed: int | None = SACREBLEU_SEED,
) -> dict[str, float]:
    """sacrebleu's paired bootstrap resampling test of ``system`` against ``baseline``.

    Args:
        baseline, system: Per-segment statistics of the two systems, the same segments in the same order.
        score: The metric's score of summed statistics (e.g. `lightscore.text.mt.bleu.bleu_score`).
        n_samples: Resamples (sacrebleu's default 1000).
        seed: The RNG seed (sacrebleu's ``SACREBLEU_SEED``, default 12345); None draws fresh entropy.

    Returns:
        ``score``, ``baseline_score``, ``p_value``, ``mean`` and ``ci`` (the system's bootstrap mean and
        95% half-interval), ``baseline_mean`` and ``baseline_ci`` (sacrebleu's separate bootstrap of the
        baseline, seeded with ``seed``).

    Raises:
        ValueError: the systems have different numbers of segments, or none.
    """
    _check(baseline, system)
    rng = np.random.default_rng(seed)
    picks = rng.choice(len(system), size=(n_samples, len(system)), replace=True)
    sys_score = score(_summed(system))
    bl_score = score(_summed(baseline))
    scores_bl = _resampled_scores(np.array(baseline, dtype="float32"), picks, score)
    scores_sys = _resampled_scores(np.array(system, dtype="float32"), picks, score)
    mean, ci = estimate_ci(scores_sys)
    diffs = np.abs(scores_sys - scores_bl)
    p = _p_value(diffs - diffs.mean(), abs(bl_score - sys_score))
    bl_mean, bl_ci = bootstrap_mean_ci(baseline, score, n_samples, seed)
    return {
        "score": sys_score,
        "baseline_score": bl_score,
        "p_value": p,
        "mean": mean,
        "ci": ci,
        "baseline_mean": bl_mean,
        "baseline_ci": bl_ci,
    }


def paired_ar_test(
    baseline: Sequence[Sequence[Any]],
    system: Sequence[Sequence[Any]],
    score: Score,
    n_samples: int = 10000,
    n_ar_confidence: int = -1,
    seed: int | None = SACREBLEU_SEED,
) -> dict[str, float | None]:
    """sacrebleu's paired approximate randomization test of ``system`` against ``baseline``.

    Args:
        baseline, system, score, seed: As `paired_bootstrap_test`.
        n_samples: Trials (sacrebleu's default 10000).
        n_ar_confidence: Bootstrap resamples for the system's interval (-1: none, sacrebleu's default).

    Returns:
        ``score``, ``baseline_score``, ``p_value``, and ``mean`` and ``ci`` (None without ``n_ar_confidence``).

    Raises:
        ValueError: as `paired_bootstrap_test`.

    >>> from lightscore.text.mt.chrf import chrf_score
    >>> r = paired_ar_test([[3, 3, 2]] * 6, [[3, 3, 2]] * 6, lambda s: chrf_score(s, 1, 0), n_samples=99)
    >>> r["p_value"]
    0.01
    """
    _check(baseline, system)
    n = len(system)
    rng = np.random.default_rng(seed)
    pos_sel = rng.integers(2, size=(n_samples, n), dtype=bool)
    neg_sel = ~pos_sel
    picks = rng.choice(n, size=(n_ar_confidence, n), replace=True) if n_ar_confidence > 0 else None
    sys_score = score(_summed(system))
    bl_score = score(_summed(baseline))
    bl = np.asarray(baseline)
    sy = np.asarray(system)
    shuf_a = pos_sel @ bl + neg_sel @ sy
    shuf_b = neg_sel @ bl + pos_sel @ sy
    scores_a = np.array([score(row) for row in shuf_a])
    scores_b = np.array([score(row) for row in shuf_b])
    p = _p_value(np.abs(scores_a - scores_b), abs(bl_score - sys_score))
    result: dict[str, float | None] = {"score": sys_score, "baseline_score": bl_score, "p_value": p}
    result["mean"] = result["ci"] = None
    if picks is not None:
        result["mean"], result["ci"] = estimate_ci(_resampled_scores(np.array(system, dtype="float32"), picks, score))
    return result


def _check(baseline: Sequence, system: Sequence) -> None:
    if len(baseline) != len(system):
        raise ValueError(f"the systems have different numbers of segments: {len(baseline)} and {len(system)}")
    if len(system) == 0:
        raise ValueError("no segments to compare")
