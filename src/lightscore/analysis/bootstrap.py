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

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "bootstrap_ci",
    "bootstrap_p_value",
    "check_fraction",
    "check_replicates",
    "defined_replicates",
    "min_replicates",
    "paired_bootstrap",
    "percentile_interval",
    "rate_percent",
    "resampled_sums",
    "side_with_fewer",
    "stack_columns",
]

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
    order, and ``seed``: sort utterances by id first and every process agrees. A
    resample holding no reference token has no rate and is left out (many references
    are empty); the interval is undefined, and a ValueError says so, when fewer than
    `min_replicates` resamples are left.

    Args:
        errors: errors (S + D + I) per utterance.
        ref_lens: reference tokens per utterance.
        ci: the interval's coverage, e.g. 0.95.
        replicates: bootstrap resamples, at least `min_replicates` of ``ci``.
        seed: seed of ``numpy.random.default_rng``.
        groups: a label per utterance (e.g. its speaker); resample whole groups (block bootstrap).

    Returns:
        ``(low, high)`` in percent.

    Raises:
        ValueError: arrays of different lengths, negative or non-finite counts, no reference
            token at all, ``ci`` outside (0, 1), too few ``replicates`` for ``ci``, or too few
            resamples holding a reference token.

    >>> low, high = bootstrap_ci([1, 0, 2, 1, 0, 3], [10, 8, 12, 9, 7, 11], replicates=2000)
    >>> round(low, 1) < 100 * 7 / 57 < round(high, 1)
    True
    >>> bootstrap_ci([1, 0, 2], [10, 8, 12], seed=3) == bootstrap_ci([1, 0, 2], [10, 8, 12], seed=3)
    True
    >>> bootstrap_ci([1, 0], [10, 8], replicates=10)
    Traceback (most recent call last):
    ...
    ValueError: bootstrap 10: too few replicates for a 95% interval, which needs at least 40 (one in each tail)
    """
    columns = stack_columns(errors=errors, ref_lens=ref_lens)
    sums = defined_replicates(resampled_sums(columns, groups, ci, replicates, seed), ci)
    return percentile_interval(rate_percent(sums[0], sums[1]), ci)


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
    """Paired bootstrap of the difference B - A in error rate (percentage points), with a p-value.

    Both systems are scored on the same resampled utterances (or groups), so the
    utterances' shared difficulty cancels out. ``ci_a`` and ``ci_b`` equal
    `bootstrap_ci` of each system with the same arguments (the same resamples are
    left out). The p-value is the percentile test's, two-sided, with ties counted
    against significance and the +1 of sacrebleu's and multeval's tests:
    ``p = min(1, 2 (k + 1) / (m + 1))``, where ``k`` counts the ``m`` resamples whose
    difference is *not* strictly on the side the corpus difference leans to (a resample
    with no difference counts against). Equal corpus rates give ``p = 1``. When every
    resample gives the same difference (one utterance, say), the bootstrap measures no
    spread: ``p`` is 1 and ``reason`` says why.

    Args:
        errors_a, errors_b: errors per utterance of systems A and B.
        ref_lens: reference tokens per utterance.
        ci, replicates, seed, groups: as in `bootstrap_ci`.

    Returns:
        ``rate_a``, ``rate_b``, ``difference`` (B - A), ``ci`` (interval of the difference),
        ``ci_a``, ``ci_b``, ``p_b_better`` (share of resamples where B's rate is below A's;
        Bisani & Ney's probability of improvement), ``p`` (smallest possible: ``2 / (m + 1)``),
        ``better`` (the side with fewer errors, significant or not), ``reason`` (why no test
        could be made, or None), ``replicates`` and ``resamples`` (``m``: those holding a
        reference token).

    Raises:
        ValueError: as `bootstrap_ci`.

    >>> r = paired_bootstrap([3, 2, 4, 3], [1, 1, 2, 2], [10, 10, 10, 10], replicates=500)
    >>> r["difference"], r["p_b_better"], r["better"], round(r["p"], 4)
    (-15.0, 1.0, 'b', 0.004)
    >>> same = paired_bootstrap([3, 2], [3, 2], [10, 10])
    >>> same["p"], same["better"], same["ci"]
    (1.0, None, (0.0, 0.0))
    """
    columns = stack_columns(errors_a=errors_a, errors_b=errors_b, ref_lens=ref_lens)
    sums = defined_replicates(resampled_sums(columns, groups, ci, replicates, seed), ci)
    rates_a, rates_b = rate_percent(sums[0], sums[2]), rate_percent(sums[1], sums[2])
    diff = rates_b - rates_a
    rate_a = rate_percent(columns[0].sum(), columns[2].sum())
    rate_b = rate_percent(columns[1].sum(), columns[2].sum())
    observed = float(rate_b - rate_a)
    units = columns.shape[1] if groups is None else len(np.unique(np.asarray(groups)))
    p, reason = bootstrap_p_value(diff, observed, units, groups is None)
    return {
        "rate_a": float(rate_a),
        "rate_b": float(rate_b),
        "difference": observed,
        "ci": percentile_interval(diff, ci),
        "ci_a": percentile_interval(rates_a, ci),
        "ci_b": percentile_interval(rates_b, ci),
        "p_b_better": float(np.mean(diff < 0)),
        "p": p,
        "better": side_with_fewer("b", "a", observed),
        "reason": reason,
        "replicates": replicates,
        "resamples": len(diff),
    }


def min_replicates(ci: float, level: float | None = None) -> int:
    """The fewest bootstrap replicates for a ``ci`` percentile interval (and a p-value below ``level``).

    Each tail of the interval needs one replicate at least (``n >= 2 / (1 - ci)``), and the
    paired bootstrap's smallest p, ``2 / (n + 1)``, must be below ``level``.

    Args:
        ci: The interval's coverage, in (0, 1).
        level: The significance level of a paired test, in (0, 1), or None.

    Returns:
        The smallest number of replicates.

    Raises:
        ValueError: ``ci`` or ``level`` outside (0, 1) (NaN included).

    >>> min_replicates(0.95), min_replicates(0.9), min_replicates(0.95, level=0.01)
    (40, 20, 200)
    """
    check_fraction("ci", ci, "0.95")
    need = math.ceil(round(2 / (1 - ci), 9))
    if level is not None:
        check_fraction("level", level, "0.05")
        need = max(need, math.ceil(round(2 / level - 1, 9) + 1e-9))
    return need


def check_fraction(name: str, value: float, example: str) -> float:
    """Return ``value`` if it is a number strictly between 0 and 1, else raise ValueError naming ``name``.

    >>> check_fraction("level", 1.5, "0.05")
    Traceback (most recent call last):
    ...
    ValueError: level must be between 0 and 1 (e.g. 0.05), got 1.5
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) or not 0 < value < 1:
        raise ValueError(f"{name} must be between 0 and 1 (e.g. {example}), got {value!r}")
    return value


def check_replicates(replicates: int, ci: float, level: float | None = None) -> int:
    """Return ``replicates`` if there are at least `min_replicates`; else a ValueError saying how many are needed.

    >>> check_replicates(1, 0.95)
    Traceback (most recent call last):
    ...
    ValueError: bootstrap 1: too few replicates for a 95% interval, which needs at least 40 (one in each tail)
    """
    need = min_replicates(ci, level)
    if isinstance(replicates, bool) or not isinstance(replicates, (int, np.integer)) or replicates < need:
        why = "one in each tail" if level is None or need == min_replicates(ci) else f"for a p below {level:g}"
        raise ValueError(
            f"bootstrap {replicates!r}: too few replicates for a {ci:.0%} interval, which needs at least {need} ({why})"
        )
    return replicates


def bootstrap_p_value(diff: np.ndarray, observed: float, units: int, by_utterance: bool) -> tuple[float, str | None]:
    """The paired bootstrap's two-sided p (ties against significance) and why it could not test, or None."""
    if observed == 0:
        return 1.0, None
    if np.all(diff == diff[0]):
        shown = f"{units} {'utterance' if by_utterance else 'speaker'}{'s' if units != 1 else ''}"
        return 1.0, f"every resample of the {shown} gives the same difference: the bootstrap measures no spread"
    against = int(np.sum(diff >= 0)) if observed < 0 else int(np.sum(diff <= 0))
    return min(1.0, 2 * (against + 1) / (len(diff) + 1)), None


def stack_columns(**arrays: Sequence[float]) -> np.ndarray:
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


def resampled_sums(columns: np.ndarray, groups: Sequence | None, ci: float, replicates: int, seed: int) -> np.ndarray:
    """Column sums over ``replicates`` resamples of the rows (of whole groups with ``groups``): (k, replicates)."""
    check_replicates(replicates, ci)
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


def defined_replicates(sums: np.ndarray, ci: float) -> np.ndarray:
    """The resamples (columns of ``sums``, reference tokens last) that hold a reference token: they have a rate."""
    defined = sums[-1] > 0
    kept = int(defined.sum())
    if kept < min_replicates(ci):
        raise ValueError(
            f"the {ci:.0%} bootstrap interval is undefined: {len(defined) - kept} of {len(defined)} resamples hold "
            f"no reference token (the references are mostly empty), leaving {kept}, fewer than the "
            f"{min_replicates(ci)} it needs; raise the replicates or score more non-empty references"
        )
    return sums if kept == len(defined) else sums[:, defined]


def rate_percent(errors: np.ndarray | float, ref_lens: np.ndarray | float) -> np.ndarray:
    """100 * errors / reference tokens, elementwise.

    >>> float(rate_percent(3, 12))
    25.0
    """
    # Never a zero denominator: stack_columns refuses a corpus without reference tokens,
    # defined_replicates such resamples.
    return 100.0 * np.asarray(errors) / np.asarray(ref_lens)


def percentile_interval(values: np.ndarray, ci: float) -> tuple[float, float]:
    """The central ``ci`` percentile interval of the replicates' ``values``.

    >>> percentile_interval(np.arange(101.0), 0.5)
    (25.0, 75.0)
    """
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
