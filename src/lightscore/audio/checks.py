"""The input checks every numpy speech-quality measure runs first: one signal, a pair, equal lengths; a metric's rate.

A non-finite sample, a signal that is not 1-D, or a silent (all-zero) hyp or
ref is a ValueError naming the measure, so that a silent hypothesis never scores
better than a noisy one (the caller names the utterance).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["check_pair", "check_rate", "check_same_length", "check_signal"]


def check_signal(wave: Any, name: str, measure: str) -> np.ndarray:
    """``wave`` as a 1-D float64 array; a non-finite, empty, multi-dimensional or all-zero one is a ValueError.

    Args:
        wave: The signal (array-like).
        name: ``"hyp"`` or ``"ref"``, for the message.
        measure: The measure asking, first in the message.

    Returns:
        The signal as a 1-D float64 array.

    Raises:
        ValueError: as above, naming the measure and the signal.

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
    """Both signals checked by `check_signal`.

    >>> [x.dtype for x in check_pair([1, 2], [3], "stoi")]
    [dtype('float64'), dtype('float64')]
    """
    return check_signal(hyp, "hyp", measure), check_signal(ref, "ref", measure)


def check_same_length(hyp: np.ndarray, ref: np.ndarray, measure: str) -> None:
    """Sample-aligned measures need equal lengths: trimming is the caller's choice, not ours.

    >>> check_same_length(np.ones(3), np.ones(2), "stoi")
    Traceback (most recent call last):
    ...
    ValueError: stoi: hyp has 3 samples and ref 2; they must be equal
    """
    if hyp.size != ref.size:
        raise ValueError(f"{measure}: hyp has {hyp.size} samples and ref {ref.size}; they must be equal")


def check_rate(sample_rate: Any) -> int:
    """Return ``sample_rate`` if it is a positive int, else raise ValueError.

    Args:
        sample_rate: A rate in Hz.

    Returns:
        The rate.

    Raises:
        ValueError: not a positive int.

    >>> check_rate(16000)
    16000
    >>> check_rate(16000.0)
    Traceback (most recent call last):
    ...
    ValueError: sample_rate must be a positive int (Hz), got 16000.0
    """
    if isinstance(sample_rate, bool) or not isinstance(sample_rate, int) or sample_rate <= 0:
        raise ValueError(f"sample_rate must be a positive int (Hz), got {sample_rate!r}")
    return sample_rate
