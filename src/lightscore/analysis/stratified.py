"""The paired bootstrap across several test sets: the pooled and the macro difference, resampled set by set.

A stratified bootstrap: each replicate resamples every test set's utterances (or, with
``groups``, its speakers) on their own, with as many draws as the set has, so each set
keeps its size and the sets' mix is the one being reported. Test set ``k`` is drawn with
the seed ``seed + k`` of `lightscore.analysis.bootstrap`, the same draws as
``paired_bootstrap(..., seed=seed + k)`` on that set alone: the per-set rows of a
comparison and its pooled and macro rows come from the same replicates, and the sets are
resampled independently (one seed for all would draw the same indices for sets of one size).

- **pooled**: the corpus rate over all the sets' utterances, ``100 * sum(errors) / sum(ref_lens)``;
- **macro**: the mean over the sets of each set's corpus rate.

>>> sets = [([3, 2, 4, 3], [1, 1, 2, 2], [10, 10, 10, 10]), ([1, 0, 2], [1, 0, 1], [5, 5, 5])]
>>> r = stratified_paired_bootstrap(sets, replicates=500)
>>> r["pooled"]["difference"], r["macro"]["difference"], r["pooled"]["better"]
(-12.727272727272728, -10.833333333333332, 'b')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

# One bootstrap: the draws, the resample filter, the percentile interval and the p-value are bootstrap.py's own.
from lightscore.analysis.bootstrap import (
    bootstrap_p_value,
    check_replicates,
    defined_replicates,
    percentile_interval,
    rate_percent,
    resampled_sums,
    side_with_fewer,
    stack_columns,
)

__all__ = ["Stratum", "stratified_paired_bootstrap"]

Stratum = tuple[Sequence[float], Sequence[float], Sequence[float]]
"""One test set: errors per utterance of system A, of system B, and reference tokens per utterance."""


def stratified_paired_bootstrap(
    strata: Sequence[Stratum],
    *,
    ci: float = 0.95,
    replicates: int = 1000,
    seed: int = 0,
    groups: Sequence[Sequence | None] | None = None,
) -> dict[str, dict[str, Any]]:
    """Paired bootstrap of B - A over several test sets, each resampled on its own (stratified).

    Args:
        strata: per test set ``(errors_a, errors_b, ref_lens)``, one value per utterance.
        ci: the intervals' coverage.
        replicates: bootstrap replicates, at least `lightscore.analysis.bootstrap.min_replicates` of ``ci``.
        seed: test set ``k`` is resampled with ``seed + k``.
        groups: per test set, a label per utterance (e.g. its speaker) to resample whole groups, or None.

    Returns:
        ``{"pooled": ..., "macro": ...}``, each with the keys of
        `lightscore.analysis.bootstrap.paired_bootstrap` (``rate_a``, ``rate_b``, ``difference``, ``ci``,
        ``ci_a``, ``ci_b``, ``p_b_better``, ``p``, ``better``, ``reason``, ``replicates``, ``resamples``)
        and ``stratified: True``. A macro replicate needs a reference token in every set; a pooled one in any.

    Raises:
        ValueError: no test set, a set as `lightscore.analysis.bootstrap.paired_bootstrap` refuses it
            (message prefixed with ``test set <k>``), ``groups`` not one entry per set, or too few
            replicates left.

    >>> sets = [([1, 0], [0, 0], [4, 4]), ([2, 2], [1, 2], [8, 8])]
    >>> r = stratified_paired_bootstrap(sets, replicates=200)
    >>> r["pooled"]["rate_a"], r["pooled"]["rate_b"], r["macro"]["rate_a"]
    (20.833333333333332, 12.5, 18.75)
    >>> stratified_paired_bootstrap([])
    Traceback (most recent call last):
    ...
    ValueError: a stratified bootstrap needs one test set at least
    """
    if not strata:
        raise ValueError("a stratified bootstrap needs one test set at least")
    if groups is not None and len(groups) != len(strata):
        raise ValueError(f"groups must hold one entry per test set ({len(strata)}), got {len(groups)}")
    check_replicates(replicates, ci)
    totals = []
    sums = []
    units = 0
    for k, (errors_a, errors_b, ref_lens) in enumerate(strata):
        labels = None if groups is None else groups[k]
        try:
            columns = stack_columns(errors_a=errors_a, errors_b=errors_b, ref_lens=ref_lens)
            sums.append(resampled_sums(columns, labels, ci, replicates, seed + k))
        except ValueError as e:
            raise ValueError(f"test set {k}: {e}") from e
        totals.append(columns.sum(axis=1))
        units += columns.shape[1] if labels is None else len(np.unique(np.asarray(labels)))
    by_set = np.stack(sums)  # (sets, 3, replicates)
    total = np.stack(totals)  # (sets, 3)
    by_utterance = groups is None or all(labels is None for labels in groups)
    pooled_sums = defined_replicates(by_set.sum(axis=0), ci)
    pooled = _paired(
        rate_percent(pooled_sums[0], pooled_sums[2]),
        rate_percent(pooled_sums[1], pooled_sums[2]),
        (rate_percent(total[:, 0].sum(), total[:, 2].sum()), rate_percent(total[:, 1].sum(), total[:, 2].sum())),
        ci,
        (units, by_utterance, replicates),
    )
    # defined_replicates keeps the columns whose last row is positive: here, those where every set holds a token.
    flat = np.concatenate([by_set.reshape(-1, replicates), by_set[:, 2].min(axis=0, keepdims=True)])
    kept = defined_replicates(flat, ci)[:-1].reshape(len(strata), 3, -1)
    macro = _paired(
        rate_percent(kept[:, 0], kept[:, 2]).mean(axis=0),
        rate_percent(kept[:, 1], kept[:, 2]).mean(axis=0),
        (rate_percent(total[:, 0], total[:, 2]).mean(), rate_percent(total[:, 1], total[:, 2]).mean()),
        ci,
        (units, by_utterance, replicates),
    )
    return {"pooled": pooled, "macro": macro}


def _paired(
    rates_a: np.ndarray, rates_b: np.ndarray, observed: tuple[float, float], ci: float, about: tuple[int, bool, int]
) -> dict[str, Any]:
    """A paired bootstrap result (`lightscore.analysis.bootstrap.paired_bootstrap`'s keys) from replicated rates."""
    units, by_utterance, replicates = about
    rate_a, rate_b = float(observed[0]), float(observed[1])
    diff = rates_b - rates_a
    difference = rate_b - rate_a
    p, reason = bootstrap_p_value(diff, difference, units, by_utterance)
    return {
        "rate_a": rate_a,
        "rate_b": rate_b,
        "difference": difference,
        "ci": percentile_interval(diff, ci),
        "ci_a": percentile_interval(rates_a, ci),
        "ci_b": percentile_interval(rates_b, ci),
        "p_b_better": float(np.mean(diff < 0)),
        "p": p,
        "better": side_with_fewer("b", "a", difference),
        "reason": reason,
        "replicates": replicates,
        "resamples": len(diff),
        "stratified": True,
    }
