"""Permutation-invariant separation measures: SI-SDR and SDR over the best speaker order, and their improvements.

A separation system returns its sources in an order of its own, so each
estimate is scored against each reference (the pairwise matrix) and the order
with the best mean is kept. That order is found by scipy's
``linear_sum_assignment`` on the matrix (polynomial in the number of sources,
where trying every permutation is factorial), and it is the order
``torchmetrics.functional.audio.permutation_invariant_training`` finds.

- ``si_sdr``: scale-invariant SDR, ``10 log10(|a t|^2 / |a t - e|^2)`` with
  ``a = <e, t> / <t, t>`` (torchmetrics' ``scale_invariant_signal_distortion_ratio``,
  ``zero_mean=False`` by default; ``zero_mean=True`` gives SI-SNR).
- ``sdr``: BSS-eval SDR for one source, the estimate projected on the reference
  through a 512-tap filter (torchmetrics' ``signal_distortion_ratio``; the
  one-pair `lightscore.audio.signal.sdr` with all pairs of a reference in one solve).
- ``si_sdri`` / ``sdri``: the measure of the estimates minus that of the
  mixture against each reference, over the same best order.

Sources are arrays ``(sources, time)``. Every ratio is clamped to
±`lightscore.audio.signal.MAX_DB`; a silent estimate scores the worst value
(-100 dB) against every reference, never the 0 dB the formula gives; a silent
reference or mixture, a non-finite sample or unequal shapes are a ValueError.

>>> rng = np.random.default_rng(0)
>>> ref = rng.standard_normal((2, 8000))
>>> hyp = ref[::-1] + 0.1 * rng.standard_normal((2, 8000))  # the sources come back swapped
>>> result = pit(si_sdr_matrix(hyp, ref))
>>> result.permutation, round(result.value, 1)
((1, 0), 20.0)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import scipy.linalg
from scipy.optimize import linear_sum_assignment

from lightscore.audio.signal import MAX_DB, SDR_FILTER_TAPS

__all__ = [
    "MAX_SOURCES",
    "MIN_SOURCES",
    "PitResult",
    "SEPARATION_MEASURES",
    "check_sources",
    "pit",
    "sdr_matrix",
    "separation_scores",
    "si_sdr_matrix",
]

MIN_SOURCES = 2
MAX_SOURCES = 6
EPS = 1e-8
"""torchmetrics' ``eps`` in SI-SDR: it keeps the ratio finite and changes nothing measurable otherwise."""

SEPARATION_MEASURES = ("si_sdr", "sdr", "si_sdri", "sdri")
"""The names a separation metric may compute; an ``i`` name needs the mixture."""


class PitResult(NamedTuple):
    """The best order of the estimates and its scores.

    ``permutation[j]`` is the estimate assigned to reference ``j``
    (torchmetrics' ``best_perm``: ``hyp[permutation]`` lines up with ``ref``);
    ``values[j]`` is its score and ``value`` their mean.
    """

    value: float
    values: tuple[float, ...]
    permutation: tuple[int, ...]


def check_sources(waves: Any, name: str, *, allow_silent: bool = False) -> np.ndarray:
    """``waves`` as a float64 ``(sources, time)`` array, checked.

    Args:
        waves: The sources (array-like), 2-D.
        name: ``"hyp"``, ``"ref"`` or ``"mix"``, for the message.
        allow_silent: Whether an all-zero source is accepted (an estimate may be silent: it then scores -100 dB).

    Returns:
        The array.

    Raises:
        ValueError: not 2-D, no samples, a non-finite sample, or a silent source when that is not allowed.

    >>> check_sources(np.zeros((2, 4)), "ref")
    Traceback (most recent call last):
    ...
    ValueError: ref source 0 is silent (all 4 samples are zero); a separation measure is undefined for it
    """
    waves = np.asarray(waves, dtype=np.float64)
    if waves.ndim != 2 or waves.shape[1] == 0:
        raise ValueError(f"{name} must be (sources, time) with samples, got shape {waves.shape}")
    if not np.isfinite(waves).all():
        raise ValueError(f"{name} holds {int((~np.isfinite(waves)).sum())} non-finite sample(s)")
    if not allow_silent:
        for index, wave in enumerate(waves):
            if not wave.any():
                label = "the mixture" if name == "mix" else f"{name} source {index}"
                raise ValueError(
                    f"{label} is silent (all {wave.size} samples are zero); a separation measure is undefined for it"
                )
    return waves


def _check_pair(hyp: Any, ref: Any) -> tuple[np.ndarray, np.ndarray]:
    hyp = check_sources(hyp, "hyp", allow_silent=True)
    ref = check_sources(ref, "ref")
    if hyp.shape != ref.shape:
        raise ValueError(f"hyp is {hyp.shape} and ref {ref.shape} (sources, time); they must be equal")
    return hyp, ref


def si_sdr_matrix(hyp: Any, ref: Any, zero_mean: bool = False) -> np.ndarray:
    """SI-SDR of every estimate against every reference, in dB.

    Args:
        hyp: Estimates ``(sources, time)``.
        ref: References, the same shape.
        zero_mean: Remove each signal's mean first (SI-SNR).

    Returns:
        ``m[i, j]`` = SI-SDR of ``hyp[i]`` against ``ref[j]``, clamped to ±100 dB; a silent estimate is -100
        (an exact copy is about 92 dB, as in torchmetrics: its ``eps`` bounds the ratio).

    Raises:
        ValueError: as `check_sources`, or different shapes.

    >>> ref = np.array([[1.0, -1.0, 1.0, -1.0], [1.0, 1.0, -1.0, -1.0]])
    >>> si_sdr_matrix(ref * 2 + [[0.0, 0.1, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]], ref).round(1)
    array([[ 33.2, -38. ],
           [-92. ,  92. ]])
    """
    hyp, ref = _check_pair(hyp, ref)
    if zero_mean:
        hyp = hyp - hyp.mean(axis=1, keepdims=True)
        ref = ref - ref.mean(axis=1, keepdims=True)
    dots = hyp @ ref.T  # [i, j] = <hyp_i, ref_j>
    ref_energy = (ref**2).sum(axis=1)
    hyp_energy = (hyp**2).sum(axis=1)
    alpha = (dots + EPS) / (ref_energy[None, :] + EPS)
    target = alpha**2 * ref_energy[None, :]
    # |a t - e|^2 expanded, so no (sources, sources, time) array is built
    noise = target - 2 * alpha * dots + hyp_energy[:, None]
    matrix = 10 * np.log10((target + EPS) / (np.maximum(noise, 0) + EPS))
    matrix[hyp_energy == 0, :] = -MAX_DB
    return np.clip(matrix, -MAX_DB, MAX_DB)


def sdr_matrix(hyp: Any, ref: Any, filter_length: int = SDR_FILTER_TAPS) -> np.ndarray:
    """SDR of every estimate against every reference: the estimate projected on the reference by a FIR filter.

    torchmetrics' ``signal_distortion_ratio`` (512 taps, no zero mean, no
    diagonal load), computed per reference for all estimates at once: one
    Levinson solve (scipy's ``solve_toeplitz``) of the reference's
    autocorrelation with one right-hand side per estimate, where a dense solve
    per pair costs about 100 times more.

    Args:
        hyp: Estimates ``(sources, time)``.
        ref: References, the same shape.
        filter_length: Taps of the projection filter.

    Returns:
        ``m[i, j]`` = SDR of ``hyp[i]`` against ``ref[j]`` in dB, clamped to ±100; a silent estimate is -100.

    Raises:
        ValueError: as `check_sources`, or different shapes.

    >>> rng = np.random.default_rng(1)
    >>> ref = rng.standard_normal((2, 2000))
    >>> m = sdr_matrix(ref + 0.01 * rng.standard_normal((2, 2000)), ref)
    >>> bool(m[0, 0] > 35 and m[0, 1] < 0)
    True
    """
    hyp, ref = _check_pair(hyp, ref)
    silent = ~hyp.any(axis=1)
    hyp = hyp / np.maximum(np.linalg.norm(hyp, axis=1, keepdims=True), 1e-6)
    ref = ref / np.maximum(np.linalg.norm(ref, axis=1, keepdims=True), 1e-6)
    size = 2 ** math.ceil(math.log2(2 * ref.shape[1] - 1))
    taps = min(filter_length, ref.shape[1])
    ref_fft = np.fft.rfft(ref, n=size)
    hyp_fft = np.fft.rfft(hyp, n=size)
    matrix = np.empty((hyp.shape[0], ref.shape[0]))
    for j in range(ref.shape[0]):
        autocorr = np.fft.irfft(np.abs(ref_fft[j]) ** 2, n=size)[:taps]
        crosscorr = np.fft.irfft(np.conj(ref_fft[j]) * hyp_fft, n=size)[:, :taps].T  # (taps, estimates)
        solution = scipy.linalg.solve_toeplitz(autocorr, crosscorr)
        if not np.isfinite(solution).all():  # Levinson breaks down on a near-singular matrix; LU does not
            solution = scipy.linalg.solve(scipy.linalg.toeplitz(autocorr), crosscorr, assume_a="sym")
        coherence = (crosscorr * solution).sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            matrix[:, j] = 10 * np.log10(coherence / (1 - coherence))
    matrix = np.nan_to_num(matrix, nan=-MAX_DB, posinf=MAX_DB, neginf=-MAX_DB)
    matrix[silent, :] = -MAX_DB
    return np.clip(matrix, -MAX_DB, MAX_DB)


def pit(matrix: Any) -> PitResult:
    """The order of estimates with the highest mean score (scipy's assignment on the pairwise matrix).

    Args:
        matrix: ``m[i, j]`` = score of estimate ``i`` against reference ``j`` (square).

    Returns:
        The `PitResult`: the mean of the best order, each reference's score, and the order.

    Raises:
        ValueError: the matrix is not square.

    >>> pit([[1.0, 5.0], [4.0, 2.0]])
    PitResult(value=4.5, values=(4.0, 5.0), permutation=(1, 0))
    """
    matrix = np.asarray(matrix, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"the pairwise matrix must be square, got shape {matrix.shape}")
    rows, cols = linear_sum_assignment(matrix, maximize=True)
    permutation = np.empty(len(cols), dtype=int)
    permutation[cols] = rows  # reference cols[k] is matched with estimate rows[k]
    values = matrix[permutation, np.arange(len(cols))]
    return PitResult(float(values.mean()), tuple(float(v) for v in values), tuple(int(p) for p in permutation))


def _mixture_scores(mix: np.ndarray, ref: np.ndarray, pairwise: Callable[..., np.ndarray]) -> np.ndarray:
    """The measure of the mixture against each reference, one 1 x 1 matrix each."""
    return np.array([pairwise(mix[None, :], ref[j : j + 1])[0, 0] for j in range(ref.shape[0])])


def separation_scores(
    hyp: Any, ref: Any, names: tuple[str, ...] | list[str], mix: Any = None, zero_mean: bool = False
) -> dict[str, tuple[float, tuple[int, ...]]]:
    """The configured measures of one utterance, each with the order it chose.

    ``si_sdri`` uses the order of ``si_sdr`` and ``sdri`` that of ``sdr`` (the
    mixture's term does not depend on the order).

    Args:
        hyp: Estimates ``(sources, time)``.
        ref: References, the same shape.
        names: Names of `SEPARATION_MEASURES`.
        mix: The mixture ``(time,)``, needed by ``si_sdri`` and ``sdri``.
        zero_mean: ``si_sdr``'s option (SI-SNR when true).

    Returns:
        name -> (mean over the sources, permutation).

    Raises:
        ValueError: bad signals (`check_sources`), fewer than 2 or more than 6 sources, an unknown name,
            or an improvement without a mixture.

    >>> rng = np.random.default_rng(0)
    >>> ref = rng.standard_normal((2, 4000))
    >>> mix = ref.sum(axis=0)
    >>> scores = separation_scores(ref[::-1] + 0.1 * rng.standard_normal((2, 4000)), ref, ["si_sdr", "si_sdri"], mix)
    >>> {name: (round(value, 1), perm) for name, (value, perm) in scores.items()}
    {'si_sdr': (20.1, (1, 0)), 'si_sdri': (20.1, (1, 0))}
    """
    unknown = [name for name in names if name not in SEPARATION_MEASURES]
    if unknown:
        raise ValueError(f"unknown separation measure(s) {unknown}; known: {', '.join(SEPARATION_MEASURES)}")
    sources = np.shape(ref)[0] if np.ndim(ref) == 2 else 0
    if not MIN_SOURCES <= sources <= MAX_SOURCES:
        raise ValueError(f"ref has {sources} source(s); {MIN_SOURCES} to {MAX_SOURCES} are supported")
    pairwise = {"si_sdr": lambda h, r: si_sdr_matrix(h, r, zero_mean), "sdr": sdr_matrix}
    results: dict[str, tuple[float, tuple[int, ...]]] = {}
    for base, function in pairwise.items():
        wanted = [name for name in names if name in (base, base + "i")]
        if not wanted:
            continue
        best = pit(function(hyp, ref))
        results[base] = (best.value, best.permutation)
        if base + "i" in wanted:
            if mix is None:
                raise ValueError(f"{base}i needs the mixture")
            mixture = check_sources(np.asarray(mix, dtype=np.float64).reshape(1, -1), "mix")[0]
            if mixture.shape[0] != np.shape(ref)[1]:
                raise ValueError(f"the mixture has {mixture.shape[0]} samples and ref {np.shape(ref)[1]}")
            baseline = _mixture_scores(mixture, np.asarray(ref, dtype=np.float64), function)
            results[base + "i"] = (best.value - float(baseline.mean()), best.permutation)
    return {name: results[name] for name in names}
