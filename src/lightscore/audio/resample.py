"""The one resampler: `resample`, torchaudio's band-limited sinc interpolation with its default settings.

Every rate change in lightscore goes through it: reading a WAV at a metric's
rate (`lightscore.audio.files.read_audio`), PESQ's 16 or 8 kHz
(`lightscore.audio.pesq_stoi`) and a ``dataset:`` audio column written at its
``dataset_artifacts`` rate (`lightscore.offline.dataset_columns`). So a number
never depends on which road a file took. pystoi's own 10 kHz resampling is
left to pystoi, since that is part of its published measure.

torch and torchaudio are imported on the first call that changes the rate.
"""

from __future__ import annotations

from typing import Any

__all__ = ["resample"]


def resample(wave: Any, rate: int, target: int) -> Any:
    """``wave`` resampled from ``rate`` to ``target`` Hz along its last axis, as the same type it came in.

    ``torchaudio.functional.resample`` with torchaudio's defaults (Hann-windowed
    sinc, 6 zero crossings, roll-off 0.99). A numpy array comes back as a numpy
    array of its dtype, a torch tensor as a tensor; at ``target`` already,
    ``wave`` itself comes back.

    Args:
        wave: A float numpy array or torch tensor, time on the last axis.
        rate: Its rate in Hz.
        target: The rate to return, in Hz.

    Returns:
        The resampled signal, ``ceil(time * target / rate)`` samples long.

    Raises:
        ValueError: a rate that is not a positive int.

    >>> import numpy as np, torch
    >>> resample(np.zeros(800, dtype=np.float32), 8000, 16000).shape
    (1600,)
    >>> resample(torch.zeros(2, 16000, dtype=torch.float64), 16000, 8000).shape
    torch.Size([2, 8000])
    >>> x = np.ones(3)
    >>> resample(x, 16000, 16000) is x
    True
    >>> resample(x, 16000, 0)
    Traceback (most recent call last):
    ...
    ValueError: resample: rates must be positive ints (Hz), got 16000 -> 0
    """
    for value in (rate, target):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"resample: rates must be positive ints (Hz), got {rate!r} -> {target!r}")
    if rate == target:
        return wave
    import torch
    import torchaudio.functional

    if isinstance(wave, torch.Tensor):
        return torchaudio.functional.resample(wave, rate, target)
    import numpy as np

    tensor = torch.from_numpy(np.ascontiguousarray(wave))
    return torchaudio.functional.resample(tensor, rate, target).numpy()
