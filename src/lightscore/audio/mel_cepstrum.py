"""ESPnet2's mel-cepstral distortion: SPTK mel-cepstra, frames aligned by DTW, `mcd_dtw`.

`mcd_dtw` equals ESPnet2's ``evaluate_mcd.py`` with its default arguments:
`sptk_mcep` frames (SPTK's mcep, `lightscore.audio.sptk`) of both signals at int16 scale, aligned by fastdtw
(`dtw_pairs`). The mel-cepstrum settings per rate (`ESPNET_MCEP_PARAMS`), the
frame sizes and the DTW are shared with the WORLD F0 measures of
`lightscore.audio.world_pitch`.

>>> import numpy as np
>>> rate = 16000
>>> t = np.arange(2 * rate) / rate
>>> ref = 0.3 * np.sin(2 * np.pi * (150 * t + 10 * np.sin(2 * np.pi * 2 * t)))
>>> hyp = ref + 0.01 * np.random.default_rng(0).standard_normal(t.size)
>>> mcd_dtw(ref, ref, rate), mcd_dtw(hyp, ref, rate) > 1.0
(0.0, True)
"""

from __future__ import annotations

import math

import numpy as np
from fastdtw import fastdtw

from lightscore.audio.checks import check_pair
from lightscore.audio.sptk import hamming, mcep

__all__ = [
    "ESPNET_MCEP_PARAMS",
    "INT16_SCALE",
    "MCD_SCALE",
    "N_FFT",
    "N_SHIFT",
    "dtw_pairs",
    "euclidean",
    "mcd_dtw",
    "mcep_params",
    "sptk_mcep",
]

ESPNET_MCEP_PARAMS: dict[int, tuple[int, float]] = {
    16000: (23, 0.42),
    22050: (34, 0.45),
    24000: (34, 0.46),
    44100: (39, 0.53),
    48000: (39, 0.55),
}
"""ESPnet's ``_get_best_mcep_params``: mel-cepstrum order and all-pass constant per sample rate."""
N_FFT = 1024
N_SHIFT = 256
"""ESPnet's command-line defaults (the recipes' ``--n_fft`` and ``--n_shift``), in samples."""
INT16_SCALE = 32768
"""ESPnet reads WAVs as int16: float samples are scaled by this so that gain-dependent steps agree."""
MCD_SCALE = 10.0 / math.log(10.0)


def mcep_params(sample_rate: int) -> tuple[int, float]:
    """ESPnet's mel-cepstrum (order, all-pass constant) for ``sample_rate``.

    Args:
        sample_rate: A rate of `ESPNET_MCEP_PARAMS`.

    Returns:
        ``(order, alpha)``.

    Raises:
        ValueError: another rate.

    >>> mcep_params(22050)
    (34, 0.45)
    >>> mcep_params(8000)
    Traceback (most recent call last):
    ...
    ValueError: no ESPnet mel-cepstrum setting for 8000 Hz; known rates: 16000, 22050, 24000, 44100, 48000
    """
    if sample_rate not in ESPNET_MCEP_PARAMS:
        known = ", ".join(map(str, ESPNET_MCEP_PARAMS))
        raise ValueError(f"no ESPnet mel-cepstrum setting for {sample_rate} Hz; known rates: {known}")
    return ESPNET_MCEP_PARAMS[sample_rate]


def euclidean(a: np.ndarray, b: np.ndarray) -> float:
    """``scipy.spatial.distance.euclidean`` without its input checks, which cost 10x the distance itself.

    fastdtw calls it for every cell it visits (about 20,000 per 4 s pair), so
    this halves the time of a dio F0 measure. The value agrees with scipy's to
    the last bit or two.

    >>> euclidean(np.array([0.0, 3.0]), np.array([4.0, 0.0]))
    5.0
    """
    difference = a - b
    return math.sqrt(difference @ difference)


def dtw_pairs(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Frame indices of ``a`` and ``b`` along the fastdtw path (radius 1, Euclidean), as ESPnet aligns.

    Args:
        a, b: Frames, one row each.

    Returns:
        ``(a_index, b_index)``: the frames paired along the path.

    >>> a_index, b_index = dtw_pairs(np.array([[0.0], [1.0], [2.0]]), np.array([[0.0], [2.0]]))
    >>> a_index.tolist(), b_index.tolist()
    ([0, 1, 2], [0, 1, 1])
    """
    _, path = fastdtw(a, b, dist=euclidean)
    pairs = np.array(path).T
    return pairs[0], pairs[1]


def sptk_mcep(
    wave: np.ndarray,
    sample_rate: int,
    n_fft: int = N_FFT,
    n_shift: int = N_SHIFT,
    order: int | None = None,
    alpha: float | None = None,
) -> np.ndarray:
    """SPTK mel-cepstra ``(frames, order + 1)`` of ``wave`` as ESPnet's ``sptk_extract``.

    Hamming-windowed frames of ``n_fft`` samples every ``n_shift``, no padding,
    ``pysptk.mcep(frame, order, alpha, eps=1e-6, etype=1)`` (`lightscore.audio.sptk.mcep`, every
    frame at once; pysptk needs ``pkg_resources``); ``order`` and
    ``alpha`` default to `mcep_params`. ``wave`` is used as given (ESPnet passes int16-scale samples).

    Args:
        wave: A 1-D float array.
        sample_rate: Its rate, for the default order and alpha.
        n_fft, n_shift: Frame length and shift in samples.
        order, alpha: The mel-cepstrum order and all-pass constant.

    Returns:
        One row of ``order + 1`` coefficients per frame.

    Raises:
        ValueError: ``wave`` is shorter than one frame, or the rate has no default.

    >>> sptk_mcep(np.random.default_rng(0).standard_normal(2048), 16000).shape
    (5, 24)
    """
    if order is None or alpha is None:
        order, alpha = mcep_params(sample_rate)
    if wave.size < n_fft:
        raise ValueError(f"the signal has {wave.size} samples, fewer than one {n_fft}-sample analysis frame")
    frames = np.lib.stride_tricks.sliding_window_view(wave, n_fft)[::n_shift] * hamming(n_fft)
    return mcep(frames, order, alpha, eps=1e-6)


def mcd_dtw(
    hyp: np.ndarray,
    ref: np.ndarray,
    sample_rate: int,
    *,
    n_fft: int = N_FFT,
    n_shift: int = N_SHIFT,
    mcep_dim: int | None = None,
    mcep_alpha: float | None = None,
) -> float:
    """Mel-cepstral distortion in dB after DTW, as ESPnet2's ``evaluate_mcd.py`` with its default arguments.

    Both signals are scaled to int16 range (ESPnet reads WAVs as int16), turned
    into `sptk_mcep` frames (1024-point frames every 256 samples, order and
    all-pass constant from ESPnet's table per rate: 23 and 0.42 at 16 kHz),
    aligned with fastdtw, and
    ``mcd = mean over the path of (10 / ln 10) sqrt(2 sum_d (c_hyp[d] - c_ref[d])^2)``.
    As in ESPnet the sum includes c0, so the level of hyp against ref counts.

    Args:
        hyp, ref: 1-D float signals at ``sample_rate``, any lengths of at least ``n_fft``.
        sample_rate: one of `ESPNET_MCEP_PARAMS` unless ``mcep_dim`` and ``mcep_alpha`` are given.
        n_fft, n_shift, mcep_dim, mcep_alpha: ESPnet's command-line options of the same names.

    Returns:
        MCD in dB (0 for identical signals).

    Raises:
        ValueError: bad or silent input (see the module docstring), a signal shorter than ``n_fft``,
            or a rate ESPnet has no setting for.

    >>> x = np.random.default_rng(0).standard_normal(16000) * 0.1
    >>> round(mcd_dtw(0.5 * x, x, 16000), 2)  # half the gain moves c0 only, by ln 2: (10 / ln 10) sqrt(2) ln 2
    4.26
    """
    hyp, ref = check_pair(hyp, ref, "mcd_dtw")
    options = (n_fft, n_shift, mcep_dim, mcep_alpha)
    try:
        hyp_mcep = sptk_mcep(hyp * INT16_SCALE, sample_rate, *options)
        ref_mcep = sptk_mcep(ref * INT16_SCALE, sample_rate, *options)
    except ValueError as e:
        raise ValueError(f"mcd_dtw: {e}") from None
    hyp_index, ref_index = dtw_pairs(hyp_mcep, ref_mcep)
    squared = np.sum((hyp_mcep[hyp_index] - ref_mcep[ref_index]) ** 2, axis=1)
    return float(np.mean(MCD_SCALE * np.sqrt(2 * squared)))
