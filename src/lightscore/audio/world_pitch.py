"""ESPnet2's WORLD F0 measures: log-F0 RMSE, F0 RMSE, F0 correlation and VDE after DTW.

`world_f0_measures` gives all four from one `world_f0` extraction per signal
(pyworld: harvest as ESPnet2's ``evaluate_f0.py``, or the faster dio +
stonemask) and one DTW on WORLD mel-cepstra (`lightscore.audio.mel_cepstrum`);
`log_f0_rmse_dtw`, `f0_rmse_dtw`, `f0_corr_dtw` and `vde` each return one of its
values. Signals are checked by `lightscore.audio.checks`.

>>> import numpy as np
>>> t = np.arange(16000) / 16000
>>> tone = 0.3 * np.sin(2 * np.pi * 200 * t)
>>> world_f0_measures(tone, tone, 16000, "dio")["vde"]
0.0
"""

from __future__ import annotations

import numpy as np

from lightscore.audio.checks import check_pair
from lightscore.audio.mel_cepstrum import INT16_SCALE, N_FFT, N_SHIFT, dtw_pairs, mcep_params
from lightscore.audio.sptk import freqt_matrix
from lightscore.audio.third_party import pyworld_module

__all__ = [
    "F0_MAX_HZ",
    "F0_METHODS",
    "F0_MIN_HZ",
    "UNDEFINED_F0",
    "f0_corr_dtw",
    "f0_rmse_dtw",
    "log_f0_rmse_dtw",
    "vde",
    "world_f0",
    "world_f0_measures",
]

F0_MIN_HZ = 40
F0_MAX_HZ = 800
"""ESPnet's ``evaluate_f0.py`` F0 search range."""
F0_METHODS = ("harvest", "dio")
"""The WORLD F0 extractors: harvest (ESPnet's) and dio + stonemask."""


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
    pyworld = pyworld_module()  # pyworld's compiled API, without the __init__ that imports pkg_resources
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
    hyp_f0 = hyp_f0[hyp_index]
    ref_f0 = ref_f0[ref_index]
    voiced = (hyp_f0 != 0) & (ref_f0 != 0)
    measures: dict[str, float | None] = {
        "log_f0_rmse": None,
        "f0_rmse": None,
        "f0_corr": None,
        "vde": float(np.mean((hyp_f0 != 0) != (ref_f0 != 0))),
    }
    hyp_voiced = hyp_f0[voiced]
    ref_voiced = ref_f0[voiced]
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

    Args, Returns and Raises: as `log_f0_rmse_dtw`.

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

    Args, Returns and Raises: as `log_f0_rmse_dtw`.

    >>> t = np.arange(16000) / 16000
    >>> glide = 0.3 * np.sin(2 * np.pi * (150 * t + 50 * t**2))
    >>> f0_corr_dtw(glide, glide, 16000, "dio") > 0.99
    True
    """
    return one_f0_measure("f0_corr", hyp, ref, sample_rate, method)


def vde(hyp: np.ndarray, ref: np.ndarray, sample_rate: int, method: str = "harvest") -> float:
    """Voicing decision error: the fraction of DTW-aligned frames voiced in one signal only; see `world_f0_measures`.

    Args, Returns and Raises: as `log_f0_rmse_dtw`.

    >>> t = np.arange(16000) / 16000
    >>> tone = 0.3 * np.sin(2 * np.pi * 200 * t)
    >>> vde(tone, tone, 16000, "dio")
    0.0
    """
    return one_f0_measure("vde", hyp, ref, sample_rate, method)
