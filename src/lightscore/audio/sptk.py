"""The SPTK 3 routines the ESPnet measures use, in numpy: `hamming`, `freqt`, `frqtr` and `mcep`.

ESPnet2's ``evaluate_mcd.py`` calls them through pysptk, but pysptk 1.0.1 cannot be imported where
``pkg_resources`` is missing (setuptools 82+, a Python 3.12 venv): every one of its modules, the
compiled one included, imports its ``util.py``, which imports ``pkg_resources``. These are SPTK's
algorithms as its C code runs them (``_mcep.c``, ``freqt.c``, ``window.c``), step for step, with
numpy's FFT for SPTK's. tests/test_audio_sptk.py holds them to pysptk on espeak-ng speech:
`hamming` and `freqt` bit for bit, `mcep` within 1e-12 relative (FFT rounding).

`mcep` fits every frame at once: each Newton step is one batched FFT and one batched linear solve
for the frames still iterating, and the all-pass warps are matrices (both transforms are linear),
made once per shape. On 10 s of speech it takes about a sixth of pysptk's per-frame loop.

>>> frames = np.random.default_rng(0).standard_normal((3, 512)) * hamming(512)
>>> mcep(frames, 12, 0.42).shape
(3, 13)
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["freqt", "freqt_matrix", "frqtr", "hamming", "mcep"]


def hamming(length: int) -> np.ndarray:
    """SPTK's Hamming window, power-normalized (``pysptk.sptk.hamming(length)``, ``normalize=1``).

    >>> round(float(np.sum(hamming(1024) ** 2)), 12)
    1.0
    """
    window = 0.54 - 0.46 * np.cos(np.arange(length) * (2 * np.pi / (length - 1)))
    # SPTK's running sum (cumsum adds in order; np.sum pairs), so the window is pysptk's to the bit
    return window / np.sqrt(np.cumsum(window * window)[-1])


def freqt(cepstrum: np.ndarray, order: int, alpha: float) -> np.ndarray:
    """SPTK's ``freqt`` (``pysptk.freqt``): cepstra warped by the all-pass constant ``alpha``, to ``order + 1`` values.

    SPTK's recursion, run on every row of ``cepstrum`` at once.

    Args:
        cepstrum: Cepstra on the last axis.
        order: The order of the warped cepstra.
        alpha: The all-pass constant.

    Returns:
        ``(..., order + 1)`` warped cepstra.

    >>> freqt(np.array([1.0, 0.5]), 2, 0.0).tolist()  # alpha 0 warps nothing
    [1.0, 0.5, 0.0]
    """
    beta = 1 - alpha * alpha
    warped = np.zeros((*cepstrum.shape[:-1], order + 1))
    for coefficient in np.moveaxis(cepstrum, -1, 0)[::-1]:  # the last coefficient first, as SPTK
        last = warped.copy()
        warped[..., 0] = coefficient + alpha * last[..., 0]
        if order >= 1:
            warped[..., 1] = beta * last[..., 0] + alpha * last[..., 1]
        for j in range(2, order + 1):
            # warped[..., j - 1] is already this step's value: SPTK's in-place update
            warped[..., j] = last[..., j - 1] + alpha * (last[..., j] - warped[..., j - 1])
    return warped


def frqtr(sequence: np.ndarray, order: int, alpha: float) -> np.ndarray:
    """SPTK's ``frqtr`` (in ``_mcep.c``): the warp `mcep` applies to its autocorrelation, to ``order + 1`` values.

    >>> frqtr(np.array([1.0, 0.5]), 2, 0.0).tolist()
    [1.0, 0.5, 0.0]
    """
    warped = np.zeros((*sequence.shape[:-1], order + 1))
    for value in np.moveaxis(sequence, -1, 0)[::-1]:
        last = warped.copy()
        warped[..., 0] = value
        for j in range(1, order + 1):
            warped[..., j] = last[..., j - 1] + alpha * (last[..., j] - warped[..., j - 1])
    return warped


@functools.lru_cache(maxsize=8)
def freqt_matrix(length: int, order: int, alpha: float) -> np.ndarray:
    """`freqt` as a ``(length, order + 1)`` matrix: freqt is linear, so one matmul does every frame."""
    return freqt(np.eye(length), order, alpha)


@functools.lru_cache(maxsize=8)
def _frqtr_matrix(length: int, order: int, alpha: float) -> np.ndarray:
    return frqtr(np.eye(length), order, alpha)


def mcep(
    frames: np.ndarray,
    order: int,
    alpha: float,
    eps: float = 1e-6,
    min_iterations: int = 2,
    max_iterations: int = 30,
    threshold: float = 0.001,
) -> np.ndarray:
    """SPTK's mel-cepstral analysis of windowed frames (``pysptk.mcep(frame, order, alpha, eps=eps, etype=1)``).

    SPTK's ``_mcep.c`` with ``etype=1`` (``eps`` added to the periodogram) and ``itype=0`` (windowed
    samples): the log periodogram's cepstrum warped to a first guess, then Newton steps, each solving
    SPTK's Toeplitz-plus-Hankel system, until the relative change of the warped autocorrelation's
    first value is under ``threshold`` (after ``min_iterations``) or ``max_iterations`` are done. A
    frame stops at its own step, as in SPTK's per-frame loop.

    Args:
        frames: ``(frames, length)`` windowed samples (or one frame, 1-D).
        order: The mel-cepstrum order (``order + 1`` coefficients).
        alpha: The all-pass constant.
        eps: Added to the periodogram (SPTK's ``-e``).
        min_iterations, max_iterations, threshold: SPTK's ``-i``, ``-j`` and ``-d``.

    Returns:
        ``(frames, order + 1)`` mel-cepstra (``(order + 1,)`` for one frame).

    Raises:
        ValueError: a frame whose normal equations are singular (SPTK's ``theq`` failure).
    """
    single = frames.ndim == 1
    frames = np.atleast_2d(np.asarray(frames, dtype=np.float64))
    length = frames.shape[1]
    half = length // 2
    warp = freqt_matrix(half + 1, order, alpha)
    unwarp = freqt_matrix(order + 1, half, -alpha)
    autocorrelation = _frqtr_matrix(half + 1, 2 * order, alpha)
    spectrum = np.fft.rfft(frames, axis=1)
    periodogram = spectrum.real * spectrum.real + spectrum.imag * spectrum.imag + eps
    cepstrum = np.fft.irfft(np.log(periodogram), n=length, axis=1)[:, : half + 1]
    cepstrum[:, 0] /= 2.0
    cepstrum[:, half] /= 2.0
    mc = cepstrum @ warp
    previous = cepstrum[:, 0].copy()
    powers = (-alpha) ** np.arange(order + 1)
    index = np.arange(order + 1)
    toeplitz = np.abs(index[:, None] - index[None, :])
    hankel = index[:, None] + index[None, :]
    rows = np.arange(len(frames))
    for step in range(1, max_iterations + 1):
        padded = np.zeros((rows.size, length))
        padded[:, : half + 1] = mc[rows] @ unwarp
        log_amplitude = np.fft.rfft(padded, axis=1).real
        ratio = periodogram[rows] / np.exp(log_amplitude + log_amplitude)
        r = np.fft.irfft(ratio, n=length, axis=1)[:, : half + 1] @ autocorrelation
        if step >= min_iterations:
            done = np.abs((r[:, 0] - previous[rows]) / r[:, 0]) < threshold
            previous[rows] = r[:, 0]
            rows = rows[~done]
            r = r[~done]
            if rows.size == 0:
                break
        # SPTK's system: Toeplitz of r[0..order] (even lags and lag 0 raised by r0), Hankel of r[0..2 order]
        # (even lags lowered by r0), right-hand side r[0..order] - (-alpha)^k
        first = r[:, :1]
        hankel_values = r.copy()
        hankel_values[:, 0::2] -= first
        toeplitz_values = r[:, : order + 1].copy()
        toeplitz_values[:, 2::2] += first
        toeplitz_values[:, 0] += first[:, 0]
        system = toeplitz_values[:, toeplitz] + hankel_values[:, hankel]
        try:
            mc[rows] += np.linalg.solve(system, (r[:, : order + 1] - powers)[..., None])[..., 0]
        except np.linalg.LinAlgError:
            raise ValueError(f"mcep: the normal equations are singular at step {step} (SPTK's theq fails)") from None
    return mc[0] if single else mc
