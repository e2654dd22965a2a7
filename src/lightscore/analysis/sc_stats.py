"""NIST sc_stats' four matched-pair tests as pure functions: MAPSSWE, McNemar, sign and Wilcoxon.

Inputs are plain per-utterance (or per-speaker) arrays and alignments, never metric
objects, so the same numbers come out of a training run, a test run or an offline
re-scoring. Every test returns a dict with the statistics sc_stats prints, an exact
``p``, ``p_sctk`` (the p-value sc_stats itself would report), ``better`` (``"a"``,
``"b"`` or None: the side the data lean to, significant or not) and ``reason``: None,
or why the test could not measure a difference (then ``p`` is 1).
`lightscore.analysis.verdict.verdict` turns one of them into a sentence.

- `lightscore.analysis.mapsswe.mapsswe`: the Matched Pair Sentence Segment Word Error test (``MP``).
- `mcnemar`: McNemar's test on utterances right or wrong (``MN``).
- `sign_test`, `wilcoxon_test`: over per-speaker error rates (``SI``, ``WI``).

Where sc_stats' p differs from the exact one: it looks the normal CDF up in a table at
steps of 0.01, truncating |z|; and above 20 trials its binomial tail is a normal
approximation with the count *halved* (McNemar, the sign test), far too small: on the
sclite reference corpus it prints p < 0.001 for 31 against 49 discordant utterances,
where the exact binomial p is 0.0567.

>>> r = mcnemar([True, False, False, False, True], [True, True, True, True, True])
>>> r["a_only"], r["b_only"], r["p"]
(0, 3, 0.25)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import stats

from lightscore.analysis.bootstrap import side_with_fewer

__all__ = ["mcnemar", "p_sctk_normal", "sign_test", "wilcoxon_test"]

# sc_stats counts per-speaker rates within this many percentage points as equal.
_EQUAL_RATES = 0.005
# The exact Wilcoxon distribution costs about n**3 operations; above this many speakers, a normal approximation.
_WILCOXON_EXACT_MAX = 200


# ----------------------------------------------------------------------------- McNemar, sign, Wilcoxon


def mcnemar(correct_a: Sequence[bool], correct_b: Sequence[bool]) -> dict[str, Any]:
    """McNemar's test on utterances recognised without any error (sc_stats ``MN``).

    ``p`` is the exact two-sided binomial p of the discordant utterances
    (``scipy.stats.binomtest``, k = the smaller count, n = both, 1/2). sc_stats agrees up
    to 20 discordant utterances; above that it halves the count in a normal
    approximation (``p_sctk``), which declares differences the exact test does not.

    Args:
        correct_a, correct_b: per utterance, whether each system got it entirely right.

    Returns:
        ``both_correct``, ``a_only`` (A right, B wrong), ``b_only``, ``both_wrong``,
        ``p``, ``p_sctk`` and ``better`` (the system right alone more often).

    Raises:
        ValueError: arrays of different lengths.

    >>> r = mcnemar([True] * 31 + [False] * 49, [False] * 31 + [True] * 49)
    >>> round(r["p"], 4), r["p_sctk"] < 0.001, r["better"]
    (0.0567, True, 'b')
    """
    a, b = np.asarray(correct_a, dtype=bool), np.asarray(correct_b, dtype=bool)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"correct_a and correct_b must be one flag per utterance, got {a.shape} and {b.shape}")
    a_only, b_only = int(np.sum(a & ~b)), int(np.sum(~a & b))
    return {
        "test": "McNemar",
        "both_correct": int(np.sum(a & b)),
        "a_only": a_only,
        "b_only": b_only,
        "both_wrong": int(np.sum(~a & ~b)),
        "p": _p_binomial(min(a_only, b_only), a_only + b_only),
        "p_sctk": _p_sctk_binomial(min(a_only, b_only), a_only + b_only),
        "better": side_with_fewer("b", "a", a_only - b_only),
        "reason": None,
    }


def sign_test(rates_a: Sequence[float], rates_b: Sequence[float]) -> dict[str, Any]:
    """sc_stats' sign test over per-speaker error rates (``SI``).

    As sc_stats: the system with the larger sum of rates is listed first (B on a tie)
    and the sign is of (first - second); rates within 0.005 points count as equal.
    Equal speakers are split, half to N(+) and half to N(-), the odd one to N(-),
    which makes a difference harder to declare. ``p`` is the exact two-sided binomial p
    of the split counts (``scipy.stats.binomtest``); sc_stats' ``p_sctk`` agrees up to
    20 speakers. Pass speakers in a fixed order (sorted ids, as sclite does).

    Args:
        rates_a, rates_b: error rate (percent) per speaker of each system, same speaker order.

    Returns:
        ``difference`` (``"a - b"`` or ``"b - a"``), ``n_plus``, ``n_minus``, ``n_zero``
        (sc_stats' printed counts), ``n_plus_split``, ``n_minus_split``, ``p``, ``p_sctk``
        and ``better`` (the system with the lower mean speaker rate).

    Raises:
        ValueError: arrays of different lengths or no speaker.

    >>> r = sign_test([15.8, 20.6, 18.2, 13.9], [11.3, 20.6, 16.7, 15.7])
    >>> r["difference"], r["n_plus"], r["n_minus"], r["n_zero"], r["p"]
    ('a - b', 2, 1, 1, 1.0)
    """
    first, second, order = _ordered(rates_a, rates_b)
    diff = first - second
    zero = np.abs(diff) <= _EQUAL_RATES
    n_plus = int(np.sum(~zero & (diff > 0)))
    n_minus = int(np.sum(~zero & (diff < 0)))
    n_zero = int(np.sum(zero))
    plus, minus = n_plus + n_zero // 2, n_minus + n_zero - n_zero // 2
    equal = plus == minus
    return {
        "test": "sign",
        "difference": order,
        "n_plus": n_plus,
        "n_minus": n_minus,
        "n_zero": n_zero,
        "n_plus_split": plus,
        "n_minus_split": minus,
        "p": 1.0 if equal else _p_binomial(min(plus, minus), plus + minus),
        "p_sctk": 1.0 if equal else _p_sctk_binomial(min(plus, minus), plus + minus),
        "better": side_with_fewer("a", "b", float(np.sum(rates_a) - np.sum(rates_b)) if len(first) else 0.0),
        "reason": None,
    }


def wilcoxon_test(rates_a: Sequence[float], rates_b: Sequence[float]) -> dict[str, Any]:
    """sc_stats' Wilcoxon signed-rank test over per-speaker error rates (``WI``).

    As sc_stats: the same order as `sign_test`; |first - second| ranked with mean ranks
    for exact ties (``scipy.stats.rankdata``); a difference within 0.005 points keeps its
    rank and counts alternately as positive, then negative (the first as positive).
    W is the rank sum of the side with fewer speakers (the negative side on a tie) and
    Z = (W - n(n+1)/4) / sqrt(n(n+1)(2n+1)/24).

    ``p`` is exact: the two-sided tail of W over all 2**n equally likely sign patterns of
    these ranks (zeros included, as sc_stats counts them), by dynamic programming, since
    ``scipy.stats.wilcoxon`` has no option for sc_stats' zero rule; for more than 200
    speakers, the normal tail of Z. ``p_sctk`` is sc_stats' table lookup of Z.

    Args:
        rates_a, rates_b: error rate (percent) per speaker of each system, same speaker order.

    Returns:
        ``difference``, ``ranks`` (signed ranks per speaker, as sc_stats prints them),
        ``n_plus``, ``w_plus``, ``n_minus``, ``w_minus``, ``w``, ``z``, ``p``, ``p_sctk``
        and ``better`` (the side with the larger rank sum of its wins).

    Raises:
        ValueError: arrays of different lengths or no speaker.

    >>> r = wilcoxon_test([15.75, 20.55, 18.17, 13.90], [11.28, 20.55, 16.72, 15.73])
    >>> r["ranks"], r["w_plus"], r["w_minus"], round(r["z"], 2)
    ([4.0, 1.0, 2.0, -3.0], 7.0, 3.0, -0.73)
    """
    first, second, order = _ordered(rates_a, rates_b)
    diff = first - second
    ranks = stats.rankdata(np.abs(diff), method="average")
    signs = np.sign(diff)
    zero = np.abs(diff) <= _EQUAL_RATES
    signs[zero] = np.resize([1.0, -1.0], int(zero.sum()))  # alternate: +, -, +, ...
    n_plus, n_minus = int(np.sum(signs > 0)), int(np.sum(signs < 0))
    w_plus, w_minus = float(ranks[signs > 0].sum()), float(ranks[signs < 0].sum())
    n = len(ranks)
    w = w_plus if n_plus < n_minus else w_minus
    z = (w - n * (n + 1) / 4) / math.sqrt(n * (n + 1) * (2 * n + 1) / 24)
    p = _p_signed_rank_exact(ranks, w_plus) if n <= _WILCOXON_EXACT_MAX else float(2 * stats.norm.sf(abs(z)))
    first_name, second_name = order.split(" - ")
    return {
        "test": "Wilcoxon",
        "difference": order,
        "ranks": [float(r) for r in ranks * signs],
        "n_plus": n_plus,
        "w_plus": w_plus,
        "n_minus": n_minus,
        "w_minus": w_minus,
        "w": w,
        "z": z,
        "p": p,
        "p_sctk": p_sctk_normal(z),
        # w_plus is the rank sum where the first system has the higher rate: the second is better.
        "better": second_name if w_plus > w_minus else first_name if w_minus > w_plus else None,
        "reason": None,
    }


def _ordered(rates_a: Sequence[float], rates_b: Sequence[float]) -> tuple[np.ndarray, np.ndarray, str]:
    """sc_stats' order: the system with the larger sum of rates first (B on a tie)."""
    a, b = np.asarray(rates_a, dtype=np.float64), np.asarray(rates_b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"rates_a and rates_b must be one rate per speaker, got shapes {a.shape} and {b.shape}")
    if len(a) == 0:
        raise ValueError("no speakers")
    return (a, b, "a - b") if a.sum() > b.sum() else (b, a, "b - a")


def _p_signed_rank_exact(ranks: np.ndarray, w_plus: float) -> float:
    """Two-sided P(|W+ - E| >= |w_plus - E|) when each rank's sign is + or - with probability 1/2."""
    doubled = np.rint(2 * ranks).astype(int)  # mean ranks are multiples of 1/2
    dist = np.zeros(int(doubled.sum()) + 1)
    dist[0] = 1.0
    for r in doubled:
        # Probabilities, not counts: 2**n overflows a float64 beyond about 1000 speakers.
        dist[r:] = 0.5 * (dist[r:] + dist[: len(dist) - r])
        dist[:r] *= 0.5
    centre = doubled.sum() / 2
    far = np.abs(np.arange(len(dist)) - centre) >= abs(2 * w_plus - centre) - 1e-9
    return float(min(1.0, dist[far].sum()))


def _p_binomial(k: int, n: int) -> float:
    """Exact two-sided binomial p of k successes in n fair trials; 1 with no trial."""
    return 1.0 if n == 0 else float(stats.binomtest(k, n, 0.5).pvalue)


def _phi_sctk(z: float) -> float:
    """sc_stats' normal CDF: a table at steps of 0.01, read at |z| rounded down."""
    return float(stats.norm.cdf(math.floor(abs(z) * 100 + 1e-9) / 100)) if math.isfinite(z) else 1.0


def p_sctk_normal(z: float) -> float:
    """sc_stats' two-sided normal p of ``z``, from its table (`_phi_sctk`).

    >>> round(p_sctk_normal(1.96), 4), p_sctk_normal(math.inf)
    (0.05, 0.0)
    """
    return 2 * (1 - _phi_sctk(z))


def _p_sctk_binomial(k: int, n: int) -> float:
    """sc_stats' 2 P(X <= k), X ~ Binomial(n, 1/2): exact while n/4 <= 5, else z = (k/2 - n/2) / sqrt(n/4)."""
    if n == 0 or 2 * k == n:
        return 1.0
    if n / 4 <= 5:
        return float(2 * stats.binom.cdf(k, n, 0.5))
    return p_sctk_normal((k / 2 - n / 2) / math.sqrt(n / 4))
