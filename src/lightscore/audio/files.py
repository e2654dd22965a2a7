"""The WAV files of the audio metrics: `read_wave`, `read_audio`, `write_wav`, and `trim_to_common_length`.

Files are read with soundfile (torchaudio 2.9 needs torchcodec for files) as
float32 and resampled with `lightscore.audio.resample.resample` to the metric's
rate. A file that cannot be scored (unreadable, truncated, empty, non-finite,
the wrong channel count) is a ValueError naming it; the caller puts the
utterance's files first. `read_wave` gives a numpy array and imports torch only
to resample, so DNSMOS, PLCMOS and intelligibility on 16 kHz files never load it
(importing torch alone peaks at about 650 MB, more than speechmos' whole DNSMOS
run); `read_audio` is the same samples as a tensor.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import soundfile

from lightscore.audio.resample import resample
from lightscore.scp.files import shown

if TYPE_CHECKING:
    import torch

__all__ = [
    "LENGTH_TOLERANCE",
    "check_file_name",
    "check_wav_length",
    "read_audio",
    "read_wave",
    "trim_to_common_length",
    "write_wav",
]

LENGTH_TOLERANCE = 0.1
"""hyp and ref may differ by at most this fraction of the longer one; the longer is trimmed."""


def read_wave(path: str, channels: int | None = 1, sample_rate: int = 16000, where: str = "") -> np.ndarray:
    """Read a WAV file as float32 at ``sample_rate``, keeping the channels ``channels`` asks for.

    ``channels=1``: the first channel, 1-D ``(time,)``; ``None``: every channel,
    ``(channels, time)``; ``N``: exactly N channels ``(N, time)``, else a
    ValueError naming the file. Another rate is resampled with `lightscore.audio.resample.resample`.

    Args:
        path: The WAV file.
        channels: 1, None or N, as above.
        sample_rate: The rate to return.
        where: Put before an error (the row's files).

    Returns:
        A float32 array, ``(time,)`` or ``(channels, time)``.

    Raises:
        ValueError: an empty path, an unreadable or truncated file (see
            `check_wav_length`), the wrong channel count, no samples, or a NaN
            or infinite sample (counted, naming the file).

    >>> import pathlib, tempfile
    >>> import numpy as np, soundfile as sf
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "stereo.wav"
    >>> sf.write(p, np.zeros((8000, 2)), 8000)
    >>> read_wave(p).shape, read_wave(p, None).shape, read_wave(p, 2, sample_rate=8000).shape
    ((16000,), (2, 16000), (2, 8000))
    >>> read_wave(p, 3, where="utterance 'u1'")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: utterance 'u1': .../stereo.wav has 2 channel(s), but 3 are declared
    """
    prefix = f"{where}: " if where else ""
    if not str(path):
        raise ValueError(f"{prefix}the SCP value is empty, not a WAV path")
    try:
        check_wav_length(str(path))
        with soundfile.SoundFile(str(path)) as f:
            rate = f.samplerate
            frames = f.frames
            data = f.read(dtype="float32", always_2d=True)
    except (RuntimeError, OSError) as e:
        raise ValueError(f"{prefix}cannot read {path}: {e}") from None
    except ValueError as e:
        raise ValueError(f"{prefix}{e}") from None
    if data.shape[0] < frames:
        raise ValueError(f"{prefix}{path}: read {data.shape[0]} of the {frames} frames it declares; it is truncated")
    found = data.shape[1]
    if channels is not None and channels > 1 and found != channels:
        raise ValueError(f"{prefix}{path} has {found} channel(s), but {channels} are declared")
    if data.shape[0] == 0:
        raise ValueError(f"{prefix}{path} holds no samples")
    if not np.isfinite(data).all():
        bad = int((~np.isfinite(data)).sum())
        raise ValueError(f"{prefix}{path} holds {bad} non-finite sample(s) (NaN or inf); it cannot be scored")
    wave = data.T.copy()
    if channels == 1:
        wave = wave[0]
    return resample(wave, rate, sample_rate)


def read_audio(path: str, channels: int | None = 1, sample_rate: int = 16000, where: str = "") -> torch.Tensor:
    """`read_wave` as a float32 tensor (the same samples), for the torch measures.

    >>> import pathlib, tempfile
    >>> import numpy as np, soundfile as sf
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "stereo.wav"
    >>> sf.write(p, np.zeros((8000, 2)), 8000)
    >>> read_audio(p).shape, read_audio(p, None).shape
    (torch.Size([16000]), torch.Size([2, 16000]))
    """
    import torch

    return torch.from_numpy(read_wave(path, channels, sample_rate, where))


def check_wav_length(path: str) -> None:
    """Raise ValueError if the RIFF/WAVE file at ``path`` holds fewer sample bytes than its header declares.

    libsndfile reads such a file without an error, as far as its bytes go, so a
    copy cut short would be scored as a shorter utterance. A size of 0 or
    0xFFFFFFFF (what a writer to a pipe puts, not knowing the length) declares
    nothing and is accepted; files that are not RIFF/WAVE are left to soundfile.

    Args:
        path: The file.

    Raises:
        ValueError: the ``data`` chunk is shorter than declared, naming the file and both sizes.
        OSError: the file cannot be opened.

    >>> import pathlib, tempfile
    >>> import soundfile as sf
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "cut.wav"
    >>> sf.write(p, np.zeros(1000), 8000, subtype="PCM_16")
    >>> check_wav_length(str(p))
    >>> _ = p.write_bytes(p.read_bytes()[:1000])
    >>> check_wav_length(str(p))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: .../cut.wav is truncated: its header declares 2000 bytes of samples, the file holds 956; ...
    """
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        header = f.read(12)
        if header[:4] != b"RIFF" or header[8:] != b"WAVE":
            return
        offset = 12
        while offset + 8 <= size:
            f.seek(offset)
            chunk, length = struct.unpack("<4sI", f.read(8))
            if chunk == b"data":
                held = size - offset - 8
                if length not in (0, 0xFFFFFFFF) and held < length:
                    raise ValueError(
                        f"{path} is truncated: its header declares {length} bytes of samples, the file holds "
                        f"{held}; it was cut short (an interrupted copy or write?), so it cannot be scored"
                    )
                return
            offset += 8 + length + (length & 1)  # chunks are padded to an even length


def trim_to_common_length(hyp: torch.Tensor, ref: torch.Tensor, where: str = "") -> tuple[torch.Tensor, torch.Tensor]:
    """Trim both signals to the shorter length; a mismatch over 10% of the longer is a ValueError.

    Args:
        hyp, ref: Signals whose last axis is time.
        where: Put before an error.

    Returns:
        Both, cut to the shorter length.

    Raises:
        ValueError: they differ by more than `LENGTH_TOLERANCE` of the longer.

    >>> import torch
    >>> h, r = trim_to_common_length(torch.zeros(100), torch.zeros(95))
    >>> h.shape, r.shape
    (torch.Size([95]), torch.Size([95]))
    >>> trim_to_common_length(torch.zeros(100), torch.zeros(80), "utterance 'u1'")
    Traceback (most recent call last):
    ...
    ValueError: utterance 'u1': hyp has 100 samples and ref 80; they differ by 20.0% of the longer, over the 10% allowed
    """
    n = hyp.shape[-1]
    m = ref.shape[-1]
    longer = max(n, m)
    shorter = min(n, m)
    if longer - shorter > LENGTH_TOLERANCE * longer:
        prefix = f"{where}: " if where else ""
        raise ValueError(
            f"{prefix}hyp has {n} samples and ref {m}; they differ by {(longer - shorter) / longer:.1%} "
            f"of the longer, over the {LENGTH_TOLERANCE:.0%} allowed"
        )
    return hyp[..., :shorter], ref[..., :shorter]


def write_wav(path: Path, wave: np.ndarray, rate: int, options: Mapping[str, Any], where: str = "") -> None:
    """Write one WAV at ``options["sample_rate"]`` (or ``rate``), resampling when they differ.

    Resampled with `lightscore.audio.resample.resample`, as `read_audio` does;
    a ``dataset:`` audio column (`lightscore.offline.dataset_columns`) is written with it.

    Args:
        path: The file; its stem is the utterance id.
        wave: ``(time,)`` or ``(channels, time)`` float samples.
        rate: Their rate in Hz.
        options: The checked ``dataset_artifacts`` block (`lightscore.offline.dataset_columns.audio_options`).
        where: Put before an error (the dataset item and utterance).

    Raises:
        ValueError: NaN or inf samples, samples PCM would clip, a file name too
            long for the file system, or a file soundfile cannot write; naming the file.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "u1.wav"
    >>> write_wav(p, np.zeros((2, 800), dtype=np.float32), 8000, {"sample_rate": None, "subtype": "PCM_16"})
    >>> info = soundfile.info(p); info.samplerate, info.channels, info.frames
    (8000, 2, 800)
    >>> write_wav(p, np.full(4, 1.5, dtype=np.float32), 8000, {"sample_rate": None, "subtype": "PCM_16"})
    Traceback (most recent call last):
    ...
    ValueError: u1.wav: samples reach 1.5, outside [-1, 1], which PCM_16 would clip; set ...
    >>> write_wav(p.with_name("u" * 300 + ".wav"), np.zeros(4, dtype=np.float32), 8000,
    ...           {"sample_rate": None, "subtype": "PCM_16"}, "dataset item 0 (list)")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: dataset item 0 (list): utterance id 'uuu...… (300 characters) is too long for a WAV file name: ...
    """
    prefix = f"{where}: " if where else f"{path.name}: "
    if not np.isfinite(wave).all():
        raise ValueError(f"{prefix}the waveform holds NaN or inf samples; they cannot be written or scored")
    check_file_name(path, prefix)
    target = options["sample_rate"] or rate
    wave = resample(wave, rate, target)
    peak = float(np.abs(wave).max(initial=0.0))
    if peak > 1.0 and options["subtype"] not in ("FLOAT", "DOUBLE"):
        raise ValueError(
            f"{prefix}samples reach {peak:.3g}, outside [-1, 1], which {options['subtype']} would clip; "
            "set the column's dataset_artifacts subtype to FLOAT to keep them"
        )
    try:
        # soundfile wants (time, channels); the waveform is channels first like torchaudio's.
        soundfile.write(path, wave.T if wave.ndim == 2 else wave, target, subtype=options["subtype"], format="WAV")
    except (RuntimeError, OSError) as e:  # soundfile's LibsndfileError is a RuntimeError and says "System error."
        reason = e.strerror if isinstance(e, OSError) else str(e)
        raise ValueError(f"{prefix}cannot write the WAV file {path}: {reason}") from None


def check_file_name(path: Path, prefix: str = "") -> None:
    """Raise ValueError if ``path``'s name is longer than its folder's file system allows (usually 255 bytes).

    >>> check_file_name(Path("/tmp/u1.wav"))
    >>> check_file_name(Path("/tmp") / ("x" * 252 + ".wav"), "item 3: ")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: item 3: utterance id 'xxx...… (252 characters) is too long for a WAV file name: ... 256 bytes, ...
    """
    try:
        limit = os.pathconf(path.parent, "PC_NAME_MAX")
    except (OSError, ValueError):
        limit = 255  # the limit of every common Linux and macOS file system
    size = len(os.fsencode(path.name))
    if size > limit:
        raise ValueError(
            f"{prefix}utterance id {shown(path.stem)} is too long for a WAV file name: with {path.suffix!r} it is "
            f"{size} bytes, over the {limit} a file name may have in {path.parent}; shorten the ids"
        )
