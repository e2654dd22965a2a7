"""Speech-quality measures a TTS paper can cite: numpy in, float out, equal to the reference tools.

Every measure is ``f(hyp, ref, sample_rate) -> float`` on 1-D float arrays at
``sample_rate`` (floats in [-1, 1], as ``soundfile.read`` returns them):

- `mcd_dtw`: mel-cepstral distortion as ESPnet2's ``evaluate_mcd.py`` (SPTK
  mel-cepstra from pysptk, frames aligned by fastdtw).
- `world_f0_measures`: the F0 measures of ESPnet2's ``evaluate_f0.py`` (WORLD F0
  from pyworld, frames aligned by fastdtw on WORLD mel-cepstra), one extraction
  per signal for all of them; `log_f0_rmse_dtw`, `f0_rmse_dtw`, `f0_corr_dtw`
  and `vde` each return one of its values.
- `pesq_wb`, `pesq_nb` (package ``pesq``), `stoi`, `estoi` (package ``pystoi``).

Bad input: a non-finite sample, a signal that is not 1-D, or a silent (all-zero)
hyp or ref is a ValueError in every measure, so that a silent hypothesis never
scores better than a noisy one (the caller names the utterance). A measure that
is undefined for the pair (no frame voiced in both, for example) is a
ValueError saying why.

>>> rate = 16000
>>> t = np.arange(2 * rate) / rate
>>> ref = 0.3 * np.sin(2 * np.pi * (150 * t + 10 * np.sin(2 * np.pi * 2 * t)))
>>> hyp = ref + 0.01 * np.random.default_rng(0).standard_normal(t.size)
>>> mcd_dtw(ref, ref, rate), mcd_dtw(hyp, ref, rate) > 1.0
(0.0, True)
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import pysptk
import pyworld
import scipy.signal
from fastdtw import fastdtw

__all__ = [
    "ESPNET_MCEP_PARAMS",
    "F0_METHODS",
    "UNDEFINED_F0",
    "estoi",
    "f0_corr_dtw",
    "f0_rmse_dtw",
    "log_f0_rmse_dtw",
    "mcd_dtw",
    "mcep_params",
    "pesq_nb",
    "pesq_wb",
    "sptk_mcep",
    "stoi",
    "vde",
    "world_f0",
    "world_f0_measures",
]

ESPNET_MCEP_PARAMS: dict[int, tuple[int, float]] = {
    16000: (23, 0.42),
    22050: (34, 0.45),
    24000: (34, 0.46),
    44100: (39, 0.53),
    48000: (39, 0.55),
}
"""ESPnet's ``_get_best_mcep_params``: mel-cepstrum order and all-pass constant per sample rate."""
N_FFT, N_SHIFT = 1024, 256
"""ESPnet's command-line defaults (the recipes' ``--n_fft`` and ``--n_shift``), in samples."""
F0_MIN_HZ, F0_MAX_HZ = 40, 800
"""ESPnet's ``evaluate_f0.py`` F0 search range."""
INT16_SCALE = 32768
"""ESPnet reads WAVs as int16: float samples are scaled by this so that gain-dependent steps agree."""
MCD_SCALE = 10.0 / math.log(10.0)
F0_METHODS = ("harvest", "dio")
"""The WORLD F0 extractors: harvest (ESPnet's) and dio + stonemask."""
PESQ_RATES = {"wb": 16000, "nb": 8000}


# -- checks ------------------------------------------------------------------------


def check_signal(wave: Any, name: str, measure: str) -> np.ndarray:
    """``wave`` as a 1-D float64 array; a non-finite, empty, multi-dimensional or all-zero one is a ValueError.

    >>> check_signal([0.0, 0.5], "hyp", "mcd_dtw")
    array([0. , 0.5])
    >>> check_signal([0.0, 0.0], "hyp", "mcd_dtw")
    Traceback (most recent call last):
    ...
    ValueError: mcd_dtw: hyp is silent (all 2 samples are zero); the measure is undefined for silence
    """
    wave = np.asarray(wave, dtype=np.float64)
    if wave.ndim != 1 or wave.size == 0:
        raise ValueError(f"{measure}: {name} must be a non-empty 1-D signal, got shape {wave.shape}")
    bad = np.flatnonzero(~np.isfinite(wave))
    if bad.size:
        raise ValueError(f"{measure}: {name} has {bad.size} non-finite sample(s), the first at index {bad[0]}")
    if not wave.any():
        raise ValueError(
            f"{measure}: {name} is silent (all {wave.size} samples are zero); the measure is undefined for silence"
        )
    return wave


def check_pair(hyp: Any, ref: Any, measure: str) -> tuple[np.ndarray, np.ndarray]:
    """Both signals checked by `check_signal`."""
    return check_signal(hyp, "hyp", measure), check_signal(ref, "ref", measure)


def check_same_length(hyp: np.ndarray, ref: np.ndarray, measure: str) -> None:
    """Sample-aligned measures need equal lengths: trimming is the caller's choice, not ours."""
    if hyp.size != ref.size:
        raise ValueError(f"{measure}: hyp has {hyp.size} samples and ref {ref.size}; they must be equal")


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
    """Frame indices of ``a`` and ``b`` along the fastdtw path (radius 1, Euclidean), as ESPnet aligns."""
    _, path = fastdtw(a, b, dist=euclidean)
    pairs = np.array(path).T
    return pairs[0], pairs[1]


# -- MCD ---------------------------------------------------------------------------


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
    ``pysptk.mcep(frame, order, alpha, eps=1e-6, etype=1)``; ``order`` and
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
    frames = np.lib.stride_tricks.sliding_window_view(wave, n_fft)[::n_shift] * pysptk.sptk.hamming(n_fft)
    return np.stack([pysptk.mcep(frame, order, alpha, eps=1e-6, etype=1) for frame in frames])


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


# -- WORLD F0 ----------------------------------------------------------------------


@functools.lru_cache(maxsize=8)
def freqt_matrix(length: int, order: int, alpha: float) -> np.ndarray:
    """``pysptk.freqt`` as a ``(length, order + 1)`` matrix: freqt is linear, so one matmul does every frame."""
    return np.stack([pysptk.freqt(row, order, alpha) for row in np.eye(length)])


def sp2mc(spectrum: np.ndarray, order: int, alpha: float) -> np.ndarray:
    """``pysptk.sp2mc`` of every frame at once (equal to it within 1e-12; its per-frame loop costs as much as dio)."""
    cepstrum = np.fft.irfft(np.log(spectrum))
    cepstrum[:, 0] /= 2.0
    return cepstrum @ freqt_matrix(cepstrum.shape[1], order, alpha)


def world_f0(
    wave: np.ndarray, sample_rate: int, method: str = "harvest", n_fft: int = N_FFT, n_shift: int = N_SHIFT
) -> tuple[np.ndarray, np.ndarray]:
    """``(f0, mcep)`` per ``n_shift``-sample frame as ESPnet's ``world_extract``: F0 in Hz (0 = unvoiced).

    ``method="harvest"`` is ESPnet's extractor (``pyworld.harvest``, 40-800 Hz);
    ``"dio"`` is ``pyworld.dio`` refined by ``pyworld.stonemask``, over 20 times
    faster. ``mcep`` are the mel-cepstra of the ``pyworld.cheaptrick``
    envelope (``fft_size=n_fft``) that the DTW aligns on. ``wave`` is used as given.

    Args:
        wave: A 1-D float64 array (int16-scale, as ESPnet reads it).
        sample_rate: A rate of `ESPNET_MCEP_PARAMS`.
        method: One of `F0_METHODS`.
        n_fft, n_shift: The envelope's FFT size and the frame shift in samples.

    Returns:
        ``(f0, mcep)``: one F0 and one mel-cepstrum row per frame.

    Raises:
        ValueError: an unknown method or rate.

    >>> t = np.arange(8000) / 16000
    >>> f0, mcep = world_f0(3000 * np.sin(2 * np.pi * 200 * t), 16000, "dio")
    >>> round(float(np.median(f0[f0 > 0]))), mcep.shape
    (200, (32, 24))
    """
    if method not in F0_METHODS:
        raise ValueError(f"unknown F0 method {method!r}; choose one of {', '.join(F0_METHODS)}")
    period_ms = n_shift / sample_rate * 1000
    extractor = pyworld.harvest if method == "harvest" else pyworld.dio
    f0, times = extractor(wave, sample_rate, f0_floor=F0_MIN_HZ, f0_ceil=F0_MAX_HZ, frame_period=period_ms)
    if method == "dio":
        f0 = pyworld.stonemask(wave, f0, times, sample_rate)
    spectrum = pyworld.cheaptrick(wave, f0, times, sample_rate, fft_size=n_fft)
    return f0, sp2mc(spectrum, *mcep_params(sample_rate))


def world_f0_measures(
    hyp: np.ndarray, ref: np.ndarray, sample_rate: int, method: str = "harvest"
) -> dict[str, float | None]:
    """Every WORLD F0 measure of one pair, from one `world_f0` extraction per signal and one DTW.

    Frames are aligned by fastdtw on the WORLD mel-cepstra, as ESPnet2's
    ``evaluate_f0.py`` does. Over the aligned pairs voiced in both:
    ``log_f0_rmse`` (RMSE of natural-log F0: ESPnet's reported number),
    ``f0_rmse`` (RMSE in Hz) and ``f0_corr`` (Pearson correlation of F0 in Hz).
    ``vde`` is the fraction of all aligned pairs whose voiced/unvoiced
    decisions differ. A value is None where undefined: no pair voiced in both
    (the RMSEs), or fewer than two such pairs or a constant F0 (``f0_corr``).

    Args:
        hyp, ref: 1-D float signals at ``sample_rate`` (floats in [-1, 1]), any lengths.
        sample_rate: A rate of `ESPNET_MCEP_PARAMS`.
        method: One of `F0_METHODS`.

    Returns:
        ``log_f0_rmse``, ``f0_rmse``, ``f0_corr`` and ``vde`` (see `UNDEFINED_F0` for the Nones).

    Raises:
        ValueError: bad or silent input (see the module docstring), or an unknown ``method``.

    >>> t = np.arange(16000) / 16000
    >>> ref = 0.3 * np.sin(2 * np.pi * (200 * t + 20 * np.sin(2 * np.pi * 2 * t)))
    >>> m = world_f0_measures(ref, ref, 16000, method="dio")
    >>> m["log_f0_rmse"], m["f0_rmse"], m["vde"], round(m["f0_corr"], 6)
    (0.0, 0.0, 0.0, 1.0)
    """
    hyp, ref = check_pair(hyp, ref, "world_f0_measures")
    hyp_f0, hyp_mcep = world_f0(hyp * INT16_SCALE, sample_rate, method)
    ref_f0, ref_mcep = world_f0(ref * INT16_SCALE, sample_rate, method)
    hyp_index, ref_index = dtw_pairs(hyp_mcep, ref_mcep)
    hyp_f0, ref_f0 = hyp_f0[hyp_index], ref_f0[ref_index]
    voiced = (hyp_f0 != 0) & (ref_f0 != 0)
    measures: dict[str, float | None] = {
        "log_f0_rmse": None,
        "f0_rmse": None,
        "f0_corr": None,
        "vde": float(np.mean((hyp_f0 != 0) != (ref_f0 != 0))),
    }
    hyp_voiced, ref_voiced = hyp_f0[voiced], ref_f0[voiced]
    if voiced.any():
        measures["log_f0_rmse"] = float(np.sqrt(np.mean((np.log(hyp_voiced) - np.log(ref_voiced)) ** 2)))
        measures["f0_rmse"] = float(np.sqrt(np.mean((hyp_voiced - ref_voiced) ** 2)))
    if voiced.sum() >= 2 and np.ptp(hyp_voiced) > 0 and np.ptp(ref_voiced) > 0:
        measures["f0_corr"] = float(np.corrcoef(hyp_voiced, ref_voiced)[0, 1])
    return measures


UNDEFINED_F0 = {
    "log_f0_rmse": "no aligned frame is voiced in both hyp and ref",
    "f0_rmse": "no aligned frame is voiced in both hyp and ref",
    "f0_corr": "F0 does not vary over two or more aligned frames voiced in both hyp and ref",
}
"""Why each F0 measure of `world_f0_measures` can be None."""


def one_f0_measure(name: str, hyp: np.ndarray, ref: np.ndarray, sample_rate: int, method: str) -> float:
    """One value of `world_f0_measures`; an undefined one is a ValueError saying why."""
    value = world_f0_measures(hyp, ref, sample_rate, method)[name]
    if value is None:
        raise ValueError(f"{name} is undefined for this pair: {UNDEFINED_F0[name]}")
    return value


def log_f0_rmse_dtw(hyp: np.ndarray, ref: np.ndarray, sample_rate: int, method: str = "harvest") -> float:
    """ESPnet2's log-F0 RMSE (``evaluate_f0.py``); see `world_f0_measures`. Use that to get several at once.

    Args:
        hyp, ref: 1-D float signals at ``sample_rate``, any lengths.
        sample_rate: A rate of `ESPNET_MCEP_PARAMS`.
        method: One of `F0_METHODS`.

    Returns:
        The value (see `world_f0_measures`).

    Raises:
        ValueError: bad or silent input, or the value is undefined for the pair (`UNDEFINED_F0`).

    >>> t = np.arange(16000) / 16000
    >>> tone = lambda hz: 0.3 * np.sin(2 * np.pi * hz * t)
    >>> round(log_f0_rmse_dtw(tone(220), tone(200), 16000, "dio"), 3), round(float(np.log(220 / 200)), 3)
    (0.096, 0.095)
    """
    return one_f0_measure("log_f0_rmse", hyp, ref, sample_rate, method)


def f0_rmse_dtw(hyp: np.ndarray, ref: np.ndarray, sample_rate: int, method: str = "harvest") -> float:
    """RMSE of F0 in Hz over DTW-aligned frames voiced in both; see `world_f0_measures`.

    Args:
        hyp, ref: 1-D float signals at ``sample_rate``, any lengths.
        sample_rate: A rate of `ESPNET_MCEP_PARAMS`.
        method: One of `F0_METHODS`.

    Returns:
        The value (see `world_f0_measures`).

    Raises:
        ValueError: bad or silent input, or the value is undefined for the pair (`UNDEFINED_F0`).

    >>> t = np.arange(16000) / 16000
    >>> tone = lambda hz: 0.3 * np.sin(2 * np.pi * hz * t)
    >>> round(f0_rmse_dtw(tone(220), tone(200), 16000, "dio"))
    20
    >>> f0_rmse_dtw(np.random.default_rng(0).standard_normal(16000), tone(200), 16000, "dio")
    Traceback (most recent call last):
    ...
    ValueError: f0_rmse is undefined for this pair: no aligned frame is voiced in both hyp and ref
    """
    return one_f0_measure("f0_rmse", hyp, ref, sample_rate, method)


def f0_corr_dtw(hyp: np.ndarray, ref: np.ndarray, sample_rate: int, method: str = "harvest") -> float:
    """Pearson correlation of F0 in Hz over DTW-aligned frames voiced in both; see `world_f0_measures`.

    Args:
        hyp, ref: 1-D float signals at ``sample_rate``, any lengths.
        sample_rate: A rate of `ESPNET_MCEP_PARAMS`.
        method: One of `F0_METHODS`.

    Returns:
        The value (see `world_f0_measures`).

    Raises:
        ValueError: bad or silent input, or the value is undefined for the pair (`UNDEFINED_F0`).

    >>> t = np.arange(16000) / 16000
    >>> glide = 0.3 * np.sin(2 * np.pi * (150 * t + 50 * t**2))
    >>> f0_corr_dtw(glide, glide, 16000, "dio") > 0.99
    True
    """
    return one_f0_measure("f0_corr", hyp, ref, sample_rate, method)


def vde(hyp: np.ndarray, ref: np.ndarray, sample_rate: int, method: str = "harvest") -> float:
    """Voicing decision error: the fraction of DTW-aligned frames voiced in one signal only; see `world_f0_measures`.

    Args:
        hyp, ref: 1-D float signals at ``sample_rate``, any lengths.
        sample_rate: A rate of `ESPNET_MCEP_PARAMS`.
        method: One of `F0_METHODS`.

    Returns:
        The value (see `world_f0_measures`).

    Raises:
        ValueError: bad or silent input, or the value is undefined for the pair (`UNDEFINED_F0`).

    >>> t = np.arange(16000) / 16000
    >>> tone = 0.3 * np.sin(2 * np.pi * 200 * t)
    >>> vde(tone, tone, 16000, "dio")
    0.0
    """
    return one_f0_measure("vde", hyp, ref, sample_rate, method)


# -- PESQ, STOI --------------------------------------------------------------------


def resample(wave: np.ndarray, rate: int, target: int) -> np.ndarray:
    """``wave`` at ``target`` Hz (polyphase, ``scipy.signal.resample_poly``); unchanged at that rate already."""
    if rate == target:
        return wave
    common = math.gcd(rate, target)
    return scipy.signal.resample_poly(wave, target // common, rate // common)


def pesq_score(hyp: np.ndarray, ref: np.ndarray, sample_rate: int, mode: str) -> float:
    """``pesq.pesq(rate, ref, hyp, mode)`` at the mode's rate, resampling both signals to it first."""
    from pesq import PesqError, pesq

    measure = f"pesq_{mode}"
    hyp, ref = check_pair(hyp, ref, measure)
    check_same_length(hyp, ref, measure)
    rate = PESQ_RATES[mode]
    try:
        return float(pesq(rate, resample(ref, sample_rate, rate), resample(hyp, sample_rate, rate), mode))
    except PesqError as e:
        raise ValueError(f"{measure}: {type(e).__name__}: {e}") from None


def pesq_wb(hyp: np.ndarray, ref: np.ndarray, sample_rate: int) -> float:
    """Wide-band PESQ (ITU-T P.862.2, MOS-LQO) from the ``pesq`` package, at 16 kHz.

    Other rates are resampled to 16 kHz with `resample`. hyp and ref must have
    equal lengths. The package's own errors (no utterance detected in ref, for
    one) become ValueErrors.

    Args:
        hyp, ref: 1-D float signals at ``sample_rate``, equal lengths.
        sample_rate: Their rate (resampled as needed).

    Returns:
        The score (MOS-LQO, -0.5 to 4.64; higher is better).

    Raises:
        ValueError: a silent, non-finite or not 1-D signal, or unequal lengths.

    >>> t = np.arange(32000) / 16000
    >>> ref = 0.3 * np.sin(2 * np.pi * (150 * t + 10 * np.sin(2 * np.pi * 3 * t))) * (np.sin(2 * np.pi * t) > 0)
    >>> round(pesq_wb(ref, ref, 16000), 2)
    4.64
    """
    return pesq_score(hyp, ref, sample_rate, "wb")


def pesq_nb(hyp: np.ndarray, ref: np.ndarray, sample_rate: int) -> float:
    """Narrow-band PESQ (ITU-T P.862, MOS-LQO) from the ``pesq`` package, at 8 kHz (others resampled).

    Args:
        hyp, ref: 1-D float signals at ``sample_rate``, equal lengths.
        sample_rate: Their rate (resampled as needed).

    Returns:
        The score (MOS-LQO, -0.5 to 4.55; higher is better).

    Raises:
        ValueError: a silent, non-finite or not 1-D signal, or unequal lengths.

    >>> t = np.arange(32000) / 16000
    >>> ref = 0.3 * np.sin(2 * np.pi * (150 * t + 10 * np.sin(2 * np.pi * 3 * t))) * (np.sin(2 * np.pi * t) > 0)
    >>> round(pesq_nb(ref, ref, 16000), 2)
    4.55
    """
    return pesq_score(hyp, ref, sample_rate, "nb")


def stoi_score(hyp: np.ndarray, ref: np.ndarray, sample_rate: int, extended: bool) -> float:
    """``pystoi.stoi(ref, hyp, sample_rate, extended)``; pystoi resamples to its 10 kHz itself."""
    from pystoi import stoi as pystoi_stoi

    measure = "estoi" if extended else "stoi"
    hyp, ref = check_pair(hyp, ref, measure)
    check_same_length(hyp, ref, measure)
    return float(pystoi_stoi(ref, hyp, sample_rate, extended=extended))


def stoi(hyp: np.ndarray, ref: np.ndarray, sample_rate: int) -> float:
    """Short-time objective intelligibility from ``pystoi`` (Taal et al. 2011); hyp and ref of equal length.

    Args:
        hyp, ref: 1-D float signals at ``sample_rate``, equal lengths.
        sample_rate: Their rate (resampled as needed).

    Returns:
        The score (0 to 1; higher is better).

    Raises:
        ValueError: a silent, non-finite or not 1-D signal, or unequal lengths.

    >>> x = np.random.default_rng(0).standard_normal(16000)
    >>> round(stoi(x, x, 16000), 6)
    1.0
    """
    return stoi_score(hyp, ref, sample_rate, extended=False)


def estoi(hyp: np.ndarray, ref: np.ndarray, sample_rate: int) -> float:
    """Extended STOI from ``pystoi`` (Jensen and Taal 2016); hyp and ref of equal length.

    Args:
        hyp, ref: 1-D float signals at ``sample_rate``, equal lengths.
        sample_rate: Their rate (resampled as needed).

    Returns:
        The score (0 to 1; higher is better).

    Raises:
        ValueError: a silent, non-finite or not 1-D signal, or unequal lengths.

    >>> x = np.random.default_rng(0).standard_normal(16000)
    >>> round(estoi(x, x, 16000), 6)
    1.0
    """
    return stoi_score(hyp, ref, sample_rate, extended=True)
