"""Is system B really better than A? NIST sc_stats' four matched-pair tests and a verdict, as pure functions.

Inputs are plain per-utterance (or per-speaker) arrays and alignments, never metric
objects, so the same numbers come out of a training run, a test run or an offline
re-scoring. Every test returns a dict with the statistics sc_stats prints, an exact
``p`` and ``p_sctk`` (the p-value sc_stats itself would report), and ``better``:
``"a"``, ``"b"`` or None, the side the data lean to, significant or not.
`verdict` turns one of them into a sentence.

- `bootstrap_ci`, `paired_bootstrap`: percentile bootstrap of the corpus error rate,
  defined in `lightscore.analysis.bootstrap` and importable from here too (their documented home).
- `mapsswe`: the Matched Pair Sentence Segment Word Error test (sc_stats ``MP``).
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
>>> verdict(r)
'no significant difference (p = 0.250 >= 0.05)'
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import stats

from lightscore.analysis.bootstrap import bootstrap_ci, paired_bootstrap, side_with_fewer

if TYPE_CHECKING:
    from lightscore.text.alignment import Pair

# bootstrap_ci and paired_bootstrap are re-exported: docs and users call them lightscore.analysis.significance.*.
__all__ = ["bootstrap_ci", "mapsswe", "mcnemar", "paired_bootstrap", "sign_test", "verdict", "wilcoxon_test"]

# sc_stats counts per-speaker rates within this many percentage points as equal.
_EQUAL_RATES = 0.005
# The exact Wilcoxon distribution costs about n**3 operations; above this many speakers, a normal approximation.
_WILCOXON_EXACT_MAX = 200


# ----------------------------------------------------------------------------- MAPSSWE


def mapsswe(
    alignments_a: Sequence[Sequence[Pair]] | Mapping[str, Sequence[Pair]],
    alignments_b: Sequence[Sequence[Pair]] | Mapping[str, Sequence[Pair]],
    *,
    min_correct: int = 2,
) -> dict[str, Any]:
    """sc_stats' Matched Pair Sentence Segment Word Error test (``MP``).

    Both systems' alignments of an utterance are walked along the reference; a segment
    ends where ``min_correct`` consecutive reference tokens are correct in both (with no
    insertion between them), and takes those boundary tokens in. Segments where both
    systems are right are dropped, so an utterance both got right adds none. Per segment
    d = errors of A - errors of B; Z = mean(d) / (s / sqrt(n)), s the sample standard
    deviation. Every error of either system falls in exactly one segment.

    Args:
        alignments_a, alignments_b: per utterance, a list of ``(ref, hyp, mark)`` pairs
            (marks C, S, D, I) in reference order, as `lightscore.text.alignment.align`
            gives; either two sequences in the same utterance order or two mappings
            ``utt_id -> pairs`` with the same keys.
        min_correct: correct tokens that close a segment (sc_stats: 2).

    Returns:
        ``segments``, ``errors_a``, ``errors_b`` (errors in the segments: every error),
        ``ref_tokens`` (sc_stats' "# Ref wrds": per segment the mean of both systems'
        reference tokens, rounded down), ``mean``, ``sd``, ``z``, ``p`` (two-sided, exact
        normal tail), ``p_sctk`` and ``better``. With fewer than 2 segments or no spread,
        ``z`` is 0 (no difference) or +-inf.

    Raises:
        ValueError: different utterances, a mark outside C/S/D/I, or an utterance whose two
            alignments hold different numbers of reference tokens (named by id or index).

    >>> a = [[("x", "x", "C"), ("y", "z", "S"), ("w", "w", "C"), ("v", "v", "C")]]
    >>> b = [[("x", "x", "C"), ("y", "y", "C"), ("w", "w", "C"), ("v", "v", "C")]]
    >>> r = mapsswe(a, b)
    >>> r["segments"], r["errors_a"], r["errors_b"], r["better"]
    (1, 1, 0, 'b')
    """
    diffs, ref_tokens, errors_a, errors_b = [], 0, 0, 0
    for _where, marks_a, marks_b in _paired_marks(alignments_a, alignments_b):
        for ref, err_a, err_b in _segments(marks_a, marks_b, min_correct):
            diffs.append(err_a - err_b)
            ref_tokens += ref
            errors_a += err_a
            errors_b += err_b
    d = np.asarray(diffs, dtype=np.float64)
    mean = float(d.mean()) if len(d) else 0.0
    sd = float(d.std(ddof=1)) if len(d) > 1 else 0.0
    if sd > 0:
        z = mean / (sd / math.sqrt(len(d)))
    else:
        z = 0.0 if mean == 0 else math.copysign(math.inf, mean)
    return {
        "test": "MAPSSWE",
        "segments": len(d),
        "errors_a": errors_a,
        "errors_b": errors_b,
        "ref_tokens": ref_tokens,
        "mean": mean,
        "sd": sd,
        "z": z,
        "p": float(2 * stats.norm.sf(abs(z))),
        "p_sctk": _p_sctk_normal(z),
        "better": side_with_fewer("a", "b", mean),
    }


def _paired_marks(alignments_a, alignments_b):
    """Yield ``(where, marks_a, marks_b)`` per utterance, checking both alignments share the reference."""
    if isinstance(alignments_a, Mapping) != isinstance(alignments_b, Mapping):
        raise ValueError("give both alignments as mappings utt_id -> pairs, or both as sequences")
    if isinstance(alignments_a, Mapping):
        if alignments_a.keys() != alignments_b.keys():
            only = sorted(alignments_a.keys() ^ alignments_b.keys())[:3]
            raise ValueError(f"the systems' utterances differ, e.g. {only}")
        items = [(f"utterance {key!r}", alignments_a[key], alignments_b[key]) for key in alignments_a]
    else:
        if len(alignments_a) != len(alignments_b):
            raise ValueError(f"{len(alignments_a)} alignments for system a, {len(alignments_b)} for b")
        items = [(f"utterance #{i}", a, b) for i, (a, b) in enumerate(zip(alignments_a, alignments_b))]
    for where, pairs_a, pairs_b in items:
        marks_a, marks_b = _marks(pairs_a, where), _marks(pairs_b, where)
        ref_a, ref_b = len(marks_a) - marks_a.count("I"), len(marks_b) - marks_b.count("I")
        if ref_a != ref_b:
            raise ValueError(f"{where}: system a aligns {ref_a} reference tokens, system b {ref_b}")
        yield where, marks_a, marks_b


def _marks(pairs: Sequence[Pair], where: str) -> str:
    marks = "".join(pair[2] for pair in pairs)
    if marks.strip("CSDI"):
        bad = next(m for m in marks if m not in "CSDI")
        raise ValueError(f"{where}: alignment mark {bad!r} is not one of C, S, D, I")
    return marks


def _segments(a: str, b: str, min_correct: int):
    """Yield ``(ref_tokens, errors_a, errors_b)`` per segment of one utterance (sc_stats' state machine).

    ``i`` and ``j`` walk the two mark strings in step over reference tokens;
    insertions are stepped over and put the walk in the error state. ``clean``: no
    error since the last boundary, ``start_*`` follows the last correct token;
    ``error``: inside a segment; ``good``: counting correct tokens towards a boundary.
    """

    def segment(lo_a: int, hi_a: int, lo_b: int, hi_b: int):
        part_a, part_b = a[max(lo_a, 0) : hi_a + 1], b[max(lo_b, 0) : hi_b + 1]
        ref = (len(part_a) - part_a.count("I") + len(part_b) - part_b.count("I")) // 2
        return ref, len(part_a) - part_a.count("C"), len(part_b) - part_b.count("C")

    i = j = start_a = start_b = run = 0
    state = "clean"
    back = min_correct - 1  # a segment starts this many tokens before the last boundary token
    found = []
    while i < len(a):
        while i < len(a) and a[i] == "I":
            i, state = i + 1, "error"
        while j < len(b) and b[j] == "I":
            j, state = j + 1, "error"
        both_correct = i < len(a) and a[i] == "C" and j < len(b) and b[j] == "C"
        if state == "clean":
            if both_correct:
                start_a, start_b = i, j
            else:
                state = "error"
        elif both_correct:
            run = 1 if state == "error" else run + 1
            if run == min_correct:
                found.append(segment(start_a - back, i, start_b - back, j))
                start_a, start_b, state = i, j, "clean"
            else:
                state = "good"
        else:
            state = "error"
        i, j = min(i + 1, len(a)), min(j + 1, len(b))
    # The last segment runs to the end of both alignments, taking B's trailing insertions too.
    if state != "clean" or j < len(b):
        found.append(segment(start_a - back, len(a) - 1, start_b - back, len(b) - 1))
    return [s for s in found if s[1] or s[2]]


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
    n_plus, n_minus, n_zero = int(np.sum(~zero & (diff > 0))), int(np.sum(~zero & (diff < 0))), int(np.sum(zero))
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
        "p_sctk": _p_sctk_normal(z),
        # w_plus is the rank sum where the first system has the higher rate: the second is better.
        "better": second_name if w_plus > w_minus else first_name if w_minus > w_plus else None,
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


def _p_sctk_normal(z: float) -> float:
    return 2 * (1 - _phi_sctk(z))


def _p_sctk_binomial(k: int, n: int) -> float:
    """sc_stats' 2 P(X <= k), X ~ Binomial(n, 1/2): exact while n/4 <= 5, else z = (k/2 - n/2) / sqrt(n/4)."""
    if n == 0 or 2 * k == n:
        return 1.0
    if n / 4 <= 5:
        return float(2 * stats.binom.cdf(k, n, 0.5))
    return _p_sctk_normal((k / 2 - n / 2) / math.sqrt(n / 4))


# ----------------------------------------------------------------------------- verdict


def verdict(
    result: Mapping[str, Any], level: float = 0.05, names: tuple[str, str] = ("A", "B"), p_key: str = "p"
) -> str:
    """One line saying whether a test found a difference at ``level``.

    Args:
        result: what `mapsswe`, `mcnemar`, `sign_test`, `wilcoxon_test` or
            `lightscore.analysis.bootstrap.paired_bootstrap` returned.
        level: the significance level.
        names: how to call systems a and b.
        p_key: ``"p"`` (exact) or ``"p_sctk"`` (what sc_stats would decide).

    Returns:
        e.g. ``"B is better (p = 0.003 < 0.05)"`` or ``"no significant difference (p = 0.109 >= 0.05)"``.

    >>> verdict({"p": 0.0031, "better": "b"})
    'B is better (p = 0.003 < 0.05)'
    >>> verdict({"p": 1.7e-4, "better": "a"}, names=("hyp_a", "hyp_b"))
    'hyp_a is better (p = 1.7e-04 < 0.05)'
    """
    p = float(result[p_key])
    shown = f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"
    if p < level and result["better"] in ("a", "b"):
        return f"{names[0] if result['better'] == 'a' else names[1]} is better (p = {shown} < {level:g})"
    return f"no significant difference (p = {shown} >= {level:g})"
