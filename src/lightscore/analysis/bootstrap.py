"""Bootstrap intervals of a corpus error rate, and the paired bootstrap of two systems' difference.

Percentile bootstrap (Bisani & Ney 2004): utterances, or with ``groups`` whole
groups such as speakers (a block bootstrap), are drawn with replacement and the
corpus rate ``100 * sum(errors) / sum(ref_lens)`` recomputed per replicate. The
inputs are plain per-utterance arrays, never metric objects, so a training run,
a test run and an offline re-scoring get the same interval from the same
numbers and seed. The matched-pair tests of NIST sc_stats are in
`lightscore.analysis.significance`.

>>> r = paired_bootstrap([3, 2, 4, 3], [1, 1, 2, 2], [10, 10, 10, 10], replicates=200)
>>> r["better"], r["ci"][1] < 0
('b', True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["bootstrap_ci", "paired_bootstrap", "side_with_fewer"]

# Bootstrap index blocks hold about this many entries, so memory stays near 100 MB at any corpus size.
_BLOCK_ELEMENTS = 1 << 22


def bootstrap_ci(
    errors: Sequence[float],
    ref_lens: Sequence[float],
    *,
    ci: float = 0.95,
    replicates: int = 1000,
    seed: int = 0,
    groups: Sequence | None = None,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the corpus error rate ``100 * sum(errors) / sum(ref_lens)``.

    Utterances (or, with ``groups``, whole groups such as speakers) are drawn with
    replacement ``replicates`` times. The result depends only on the inputs, in their
    order, and ``seed``: sort utterances by id first and every process agrees.

    Args:
        errors: errors (S + D + I) per utterance.
        ref_lens: reference tokens per utterance.
        ci: the interval's coverage, e.g. 0.95.
        replicates: bootstrap resamples.
        seed: seed of ``numpy.random.default_rng``.
        groups: a label per utterance (e.g. its speaker); resample whole groups (block bootstrap).

    Returns:
        ``(low, high)`` in percent.

    Raises:
        ValueError: arrays of different lengths, negative or non-finite counts, no reference
            token at all, ``ci`` outside (0, 1) or ``replicates`` < 1.

    >>> low, high = bootstrap_ci([1, 0, 2, 1, 0, 3], [10, 8, 12, 9, 7, 11], replicates=2000)
    >>> round(low, 1) < 100 * 7 / 57 < round(high, 1)
    True
    >>> bootstrap_ci([1, 0, 2], [10, 8, 12], seed=3) == bootstrap_ci([1, 0, 2], [10, 8, 12], seed=3)
    True
    """
    columns = _columns(errors=errors, ref_lens=ref_lens)
    sums = _resampled_sums(columns, groups, ci, replicates, seed)
    return _interval(_rate(sums[0], sums[1]), ci)


def paired_bootstrap(
    errors_a: Sequence[float],
    errors_b: Sequence[float],
    ref_lens: Sequence[float],
    *,
    ci: float = 0.95,
    replicates: int = 1000,
    seed: int = 0,
    groups: Sequence | None = None,
) -> dict[str, Any]:
    """Paired bootstrap of the difference B - A in error rate (percentage points).

    Both systems are scored on the same resampled utterances (or groups), so the
    utterances' shared difficulty cancels out. ``ci_a`` and ``ci_b`` equal
    `bootstrap_ci` of each system with the same arguments.

    Args:
        errors_a, errors_b: errors per utterance of systems A and B.
        ref_lens: reference tokens per utterance.
        ci, replicates, seed, groups: as in `bootstrap_ci`.

    Returns:
        ``rate_a``, ``rate_b``, ``difference`` (B - A), ``ci`` (interval of the difference),
        ``ci_a``, ``ci_b``, ``p_b_better`` (share of replicates where B's rate is below A's;
        Bisani & Ney's probability of improvement), ``p`` (two-sided bootstrap p,
        ``2 * min(share B < A, share B > A)``, capped at 1; resolution 1 / replicates),
        ``better`` and ``replicates``.

    Raises:
        ValueError: as `bootstrap_ci`.

    >>> r = paired_bootstrap([3, 2, 4, 3], [1, 1, 2, 2], [10, 10, 10, 10], replicates=500)
    >>> r["difference"], r["p_b_better"], r["better"]
    (-15.0, 1.0, 'b')
    """
    columns = _columns(errors_a=errors_a, errors_b=errors_b, ref_lens=ref_lens)
    sums = _resampled_sums(columns, groups, ci, replicates, seed)
    rates_a, rates_b = _rate(sums[0], sums[2]), _rate(sums[1], sums[2])
    diff = rates_b - rates_a
    rate_a, rate_b = _rate(columns[0].sum(), columns[2].sum()), _rate(columns[1].sum(), columns[2].sum())
    below, above = float(np.mean(diff < 0)), float(np.mean(diff > 0))
    return {
        "rate_a": float(rate_a),
        "rate_b": float(rate_b),
        "difference": float(rate_b - rate_a),
        "ci": _interval(diff, ci),
        "ci_a": _interval(rates_a, ci),
        "ci_b": _interval(rates_b, ci),
        "p_b_better": below,
        "p": min(1.0, 2 * min(below, above)),
        "better": side_with_fewer("b", "a", rate_b - rate_a),
        "replicates": replicates,
    }


def _columns(**arrays: Sequence[float]) -> np.ndarray:
    """Stack per-utterance count arrays into one float array, checking them."""
    stacked = []
    for name, values in arrays.items():
        array = np.asarray(values, dtype=np.float64)
        if array.ndim != 1:
            raise ValueError(f"{name} must be one value per utterance, got shape {array.shape}")
        if not np.all(np.isfinite(array)) or np.any(array < 0):
            raise ValueError(f"{name} must hold finite counts >= 0")
        stacked.append(array)
    lengths = {name: len(a) for name, a in zip(arrays, stacked)}
    if len(set(lengths.values())) != 1:
        raise ValueError(f"per-utterance arrays differ in length: {lengths}")
    if len(stacked[0]) == 0:
        raise ValueError("no utterances")
    if stacked[-1].sum() == 0:
        raise ValueError("ref_lens sum to 0: the error rate is undefined")
    return np.stack(stacked)


def _resampled_sums(columns: np.ndarray, groups: Sequence | None, ci: float, replicates: int, seed: int) -> np.ndarray:
    """Column sums over ``replicates`` resamples of the rows (of whole groups with ``groups``): (k, replicates)."""
    if not 0 < ci < 1:
        raise ValueError(f"ci must be between 0 and 1, got {ci}")
    if replicates < 1:
        raise ValueError(f"replicates must be >= 1, got {replicates}")
    if groups is not None:
        labels = np.asarray(groups)
        if labels.shape != (columns.shape[1],):
            raise ValueError(f"groups must be one label per utterance ({columns.shape[1]}), got shape {labels.shape}")
        # Sorted unique labels, so the order of first appearance does not matter.
        _, unit = np.unique(labels, return_inverse=True)
        columns = np.stack([np.bincount(unit, weights=column) for column in columns])
    n = columns.shape[1]
    rng = np.random.default_rng(seed)
    sums = np.empty((columns.shape[0], replicates))
    step = max(1, _BLOCK_ELEMENTS // n)  # a function of n only: the stream of draws never depends on memory
    for start in range(0, replicates, step):
        stop = min(start + step, replicates)
        picks = rng.integers(0, n, size=(stop - start, n))
        for k, column in enumerate(columns):
            sums[k, start:stop] = column[picks].sum(axis=1)
    return sums


def _rate(errors: np.ndarray | float, ref_lens: np.ndarray | float) -> np.ndarray:
    # A resample of only empty references has no rate: inf with errors, nan without; quantiles keep them.
    with np.errstate(divide="ignore", invalid="ignore"):
        return 100.0 * np.asarray(errors) / np.asarray(ref_lens)


def _interval(values: np.ndarray, ci: float) -> tuple[float, float]:
    low, high = np.quantile(values, [(1 - ci) / 2, (1 + ci) / 2])
    return float(low), float(high)


def side_with_fewer(name: str, other: str, amount: float) -> str | None:
    """``name`` when ``amount`` < 0 (it has fewer errors), ``other`` when > 0, None on a tie.

    Args:
        name: The side ``amount`` favours when negative.
        other: The side it favours when positive.
        amount: A difference, ``name``'s errors minus ``other``'s.

    Returns:
        The side with fewer errors, or None.

    >>> side_with_fewer("b", "a", -2.5), side_with_fewer("b", "a", 0)
    ('b', None)
    """
    return name if amount < 0 else other if amount > 0 else None
