"""PESQ and STOI from their reference packages: `pesq_wb`, `pesq_nb` (``pesq``), `stoi`, `estoi` (``pystoi``).

Each is ``f(hyp, ref, sample_rate) -> float`` on 1-D float arrays of equal
length, checked by `lightscore.audio.checks`. PESQ runs at its mode's
rate (other rates resampled with `resample`); pystoi resamples to its 10 kHz
itself. The packages are imported on first use.

>>> import numpy as np
>>> x = np.random.default_rng(0).standard_normal(16000)
>>> round(stoi(x, x, 16000), 6), round(estoi(x, x, 16000), 6)
(1.0, 1.0)
"""

from __future__ import annotations

import math

import numpy as np
import scipy.signal

from lightscore.audio.checks import check_pair, check_same_length

__all__ = ["PESQ_RATES", "estoi", "pesq_nb", "pesq_wb", "resample", "stoi"]

PESQ_RATES = {"wb": 16000, "nb": 8000}


def resample(wave: np.ndarray, rate: int, target: int) -> np.ndarray:
    """``wave`` at ``target`` Hz (polyphase, ``scipy.signal.resample_poly``); unchanged at that rate already.

    Args:
        wave: A 1-D float array.
        rate: Its rate in Hz.
        target: The rate to return.

    Returns:
        The resampled signal.

    >>> resample(np.ones(16000), 16000, 8000).shape
    (8000,)
    """
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
