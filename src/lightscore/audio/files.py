"""Reading the audio metrics' WAV files: `read_audio`, and `trim_to_common_length` for sample-aligned measures.

Files are read with soundfile (torchaudio 2.9 needs torchcodec for files) as
float32 and resampled with torchaudio to the metric's rate. A file that cannot
be scored (unreadable, empty, non-finite, the wrong channel count) is a
ValueError naming it; the caller puts the utterance's files first.
"""

from __future__ import annotations

import numpy as np
import soundfile
import torch
import torchaudio

__all__ = ["LENGTH_TOLERANCE", "read_audio", "trim_to_common_length"]

LENGTH_TOLERANCE = 0.1
"""hyp and ref may differ by at most this fraction of the longer one; the longer is trimmed."""


def read_audio(path: str, channels: int | None = 1, sample_rate: int = 16000, where: str = "") -> torch.Tensor:
    """Read a WAV file as float32 at ``sample_rate``, keeping the channels ``channels`` asks for.

    ``channels=1``: the first channel, 1-D ``(time,)``; ``None``: every channel,
    ``(channels, time)``; ``N``: exactly N channels ``(N, time)``, else a
    ValueError naming the file. Another rate is resampled with torchaudio.

    Args:
        path: The WAV file.
        channels: 1, None or N, as above.
        sample_rate: The rate to return.
        where: Put before an error (the row's files).

    Returns:
        A float32 tensor, ``(time,)`` or ``(channels, time)``.

    Raises:
        ValueError: an empty path, an unreadable file, the wrong channel count,
            no samples, or a NaN or infinite sample (counted, naming the file).

    >>> import pathlib, tempfile
    >>> import numpy as np, soundfile as sf
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "stereo.wav"
    >>> sf.write(p, np.zeros((8000, 2)), 8000)
    >>> read_audio(p).shape, read_audio(p, None).shape, read_audio(p, 2, sample_rate=8000).shape
    (torch.Size([16000]), torch.Size([2, 16000]), torch.Size([2, 8000]))
    >>> read_audio(p, 3, where="utterance 'u1'")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: utterance 'u1': .../stereo.wav has 2 channel(s), but 3 are declared
    """
    prefix = f"{where}: " if where else ""
    if not str(path):
        raise ValueError(f"{prefix}the SCP value is empty, not a WAV path")
    try:
        data, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    except (RuntimeError, OSError) as e:
        raise ValueError(f"{prefix}cannot read {path}: {e}") from None
    found = data.shape[1]
    if channels is not None and channels > 1 and found != channels:
        raise ValueError(f"{prefix}{path} has {found} channel(s), but {channels} are declared")
    if data.shape[0] == 0:
        raise ValueError(f"{prefix}{path} holds no samples")
    if not np.isfinite(data).all():
        bad = int((~np.isfinite(data)).sum())
        raise ValueError(f"{prefix}{path} holds {bad} non-finite sample(s) (NaN or inf); it cannot be scored")
    wave = torch.from_numpy(data.T.copy())
    if channels == 1:
        wave = wave[0]
    if rate != sample_rate:
        wave = torchaudio.functional.resample(wave, rate, sample_rate)
    return wave


def trim_to_common_length(hyp: torch.Tensor, ref: torch.Tensor, where: str = "") -> tuple[torch.Tensor, torch.Tensor]:
    """Trim both signals to the shorter length; a mismatch over 10% of the longer is a ValueError.

    Args:
        hyp, ref: Signals whose last axis is time.
        where: Put before an error.

    Returns:
        Both, cut to the shorter length.

    Raises:
        ValueError: they differ by more than `LENGTH_TOLERANCE` of the longer.

    >>> h, r = trim_to_common_length(torch.zeros(100), torch.zeros(95))
    >>> h.shape, r.shape
    (torch.Size([95]), torch.Size([95]))
    >>> trim_to_common_length(torch.zeros(100), torch.zeros(80), "utterance 'u1'")
    Traceback (most recent call last):
    ...
    ValueError: utterance 'u1': hyp has 100 samples and ref 80; they differ by 20.0% of the longer, over the 10% allowed
    """
    n, m = hyp.shape[-1], ref.shape[-1]
    longer, shorter = max(n, m), min(n, m)
    if longer - shorter > LENGTH_TOLERANCE * longer:
        prefix = f"{where}: " if where else ""
        raise ValueError(
            f"{prefix}hyp has {n} samples and ref {m}; they differ by {(longer - shorter) / longer:.1%} "
            f"of the longer, over the {LENGTH_TOLERANCE:.0%} allowed"
        )
    return hyp[..., :shorter], ref[..., :shorter]
