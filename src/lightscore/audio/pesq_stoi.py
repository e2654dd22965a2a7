"""PESQ and STOI from their reference packages: `pesq_wb`, `pesq_nb` (``pesq``), `stoi`, `estoi` (``pystoi``).

Each is ``f(hyp, ref, sample_rate) -> float`` on 1-D float arrays of equal
length, checked by `lightscore.audio.checks`. PESQ runs at its mode's
rate (other rates resampled with `lightscore.audio.resample.resample`, the one
resampler); pystoi resamples to its 10 kHz itself. STOI and ESTOI are None
(undefined) where pystoi would return its 1e-5 sentinel: too few STFT frames
left after its silent-frame removal (`stoi_frames`). The packages are imported
on first use.

>>> import numpy as np
>>> x = np.random.default_rng(0).standard_normal(16000)
>>> round(stoi(x, x, 16000), 6), round(estoi(x, x, 16000), 6), stoi(x[:3200], x[:3200], 16000)
(1.0, 1.0, None)
"""

from __future__ import annotations

import numpy as np

from lightscore.audio.checks import check_pair, check_same_length
from lightscore.audio.resample import resample

__all__ = ["PESQ_RATES", "STOI_MIN_FRAMES", "estoi", "pesq_nb", "pesq_wb", "stoi", "stoi_frames"]

PESQ_RATES = {"wb": 16000, "nb": 8000}
STOI_MIN_FRAMES = 30
"""pystoi's ``N``: STOI needs this many STFT frames (384 ms of speech at its 10 kHz) after silence removal."""


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

    Other rates are resampled to 16 kHz with `lightscore.audio.resample.resample`. hyp and ref must have
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
    """Narrow-band PESQ (ITU-T P.862, MOS-LQO, -0.5 to 4.55) from the ``pesq`` package, at 8 kHz.

    Args, Returns and Raises: as `pesq_wb` (other rates resampled to 8 kHz).

    >>> t = np.arange(32000) / 16000
    >>> tone = 0.3 * np.sin(2 * np.pi * (150 * t + 10 * np.sin(2 * np.pi * 3 * t))) * (np.sin(2 * np.pi * t) > 0)
    >>> round(pesq_nb(tone, tone, 16000), 2)
    4.55
    """
    return pesq_score(hyp, ref, sample_rate, "nb")


def stoi_frames(ref: np.ndarray, rate: int) -> tuple[int, np.ndarray]:
    """How many STFT frames pystoi keeps of ``ref``, by its own steps, and ``ref`` at its 10 kHz.

    pystoi resamples to 10 kHz (``resample_oct``), drops the 256-sample frames
    (hop 128) more than 40 dB below the loudest frame of ``ref`` (the clean
    signal decides for both) and takes the STFT of what is left, which has one
    frame fewer than the frames kept. Under `STOI_MIN_FRAMES` it warns and
    returns 1e-5; with no 256-sample frame at all it fails ("axis 1 is out of
    bounds").

    Args:
        ref: The clean signal, 1-D.
        rate: Its rate in Hz.

    Returns:
        ``(frames, ref at 10 kHz)``.

    >>> t = np.arange(16000) / 16000
    >>> [stoi_frames(np.sin(2 * np.pi * 200 * t[:n]), 16000)[0] for n in (1, 100, 3200, 16000)]
    [0, 0, 13, 76]
    """
    from pystoi.stoi import DYN_RANGE, FS, N_FRAME
    from pystoi.utils import remove_silent_frames, resample_oct

    if rate != FS:
        ref = resample_oct(ref, FS, rate)
    if len(ref) <= N_FRAME:  # no whole frame: pystoi's energy step would fail
        return 0, ref
    kept, _ = remove_silent_frames(ref, ref, DYN_RANGE, N_FRAME, N_FRAME // 2)
    return len(range(0, len(kept) - N_FRAME, N_FRAME // 2)), ref


def stoi_score(hyp: np.ndarray, ref: np.ndarray, sample_rate: int, extended: bool) -> float | None:
    """``pystoi.stoi(ref, hyp, sample_rate, extended)``, or None where pystoi would return its 1e-5 sentinel."""
    from pystoi import stoi as pystoi_stoi
    from pystoi.stoi import FS
    from pystoi.utils import resample_oct

    measure = "estoi" if extended else "stoi"
    hyp, ref = check_pair(hyp, ref, measure)
    check_same_length(hyp, ref, measure)
    frames, ref_10k = stoi_frames(ref, sample_rate)
    if frames < STOI_MIN_FRAMES:
        return None
    # Both at pystoi's rate already, resampled exactly as pystoi would: it does not resample again.
    hyp_10k = hyp if sample_rate == FS else resample_oct(hyp, FS, sample_rate)
    return float(pystoi_stoi(ref_10k, hyp_10k, FS, extended=extended))


def stoi(hyp: np.ndarray, ref: np.ndarray, sample_rate: int) -> float | None:
    """Short-time objective intelligibility from ``pystoi`` (Taal et al. 2011); hyp and ref of equal length.

    Args:
        hyp, ref: 1-D float signals at ``sample_rate``, equal lengths.
        sample_rate: Their rate (resampled as needed).

    Returns:
        The score (0 to 1; higher is better), or None where STOI is undefined:
        fewer than `STOI_MIN_FRAMES` STFT frames left after pystoi's
        silent-frame removal (`stoi_frames`; under about 0.4 s of speech).

    Raises:
        ValueError: a silent, non-finite or not 1-D signal, or unequal lengths.

    >>> x = np.random.default_rng(0).standard_normal(16000)
    >>> round(stoi(x, x, 16000), 6)
    1.0
    """
    return stoi_score(hyp, ref, sample_rate, extended=False)


def estoi(hyp: np.ndarray, ref: np.ndarray, sample_rate: int) -> float | None:
    """Extended STOI from ``pystoi`` (Jensen and Taal 2016); hyp and ref of equal length.

    Args:
        hyp, ref: 1-D float signals at ``sample_rate``, equal lengths.
        sample_rate: Their rate (resampled as needed).

    Returns:
        The score (0 to 1; higher is better), or None where undefined, as `stoi`.

    Raises:
        ValueError: a silent, non-finite or not 1-D signal, or unequal lengths.

    >>> x = np.random.default_rng(0).standard_normal(16000)
    >>> round(estoi(x, x, 16000), 6)
    1.0
    """
    return stoi_score(hyp, ref, sample_rate, extended=True)
