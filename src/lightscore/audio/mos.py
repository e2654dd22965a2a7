"""Non-intrusive quality (no reference): DNSMOS P.835 / P.808 and PLCMOS, from the ONNX models in ``speechmos``.

The ``speechmos`` wheel ships Microsoft's models (DNS and PLC challenges), so
nothing is downloaded at run time. Each ONNX session is made once per process
and thread count (`session`), not per utterance. The features and the
calibration polynomials are speechmos' own functions, called on its classes
without their sessions, so `dnsmos` and `plcmos` give ``speechmos.dnsmos.run``'s
and ``speechmos.plcmos.run``'s numbers on the same 16 kHz audio. Each 9.01 s
window of a clip, and each of PLCMOS' 15 rater embeddings, goes through the
model in a call of its own, as in speechmos: a batch of all of them held every
window's activations at once (about 90 MB per second of audio for DNSMOS, 15
copies of the clip's for PLCMOS), and a 10-minute clip ran out of memory.
DNSMOS' peak memory is one window's, whatever the clip's length; PLCMOS' model
reads the whole clip in one input, so its memory grows with the clip as
speechmos' does (benchmarks/bench_mos_memory.py measures both). A model call
that fails, out of memory or otherwise, is a ValueError naming the clip's
length (`QualityMetric` adds the utterance and the file).

- `dnsmos`: the clip is repeated up to 9.01 s (the model's fixed input), cut
  into 9.01 s windows every ``hop_seconds`` (1 s, as speechmos), and the
  window scores are averaged: ``sig``, ``bak``, ``ovrl`` (P.835) and ``p808``.
  ``personalized=True`` uses the personalized DNSMOS model (speechmos'
  ``model_type="dnsmos_personalized"``).
- `plcmos`: PLCMOS v2, the mean over 15 random rater embeddings. speechmos
  draws them from numpy's global generator, so its value changes from call to
  call; here they come from ``numpy.random.RandomState(seed)`` per clip (the
  draws of ``numpy.random.seed(seed)`` then ``speechmos.plcmos.run``), so a
  clip scores the same on any rank and in any order.

Both take audio in [-1, 1] at 16 kHz, at least `MIN_SECONDS` long and not
silent; anything else is a ValueError (speechmos loops forever on an empty
array and scores silence as good audio). `load_16k` reads a file for them.

>>> t = np.arange(80000) / 16000  # 5 s: repeated to 10 s, one 9.01 s window
>>> tone = (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)
>>> sorted(dnsmos(tone))
['bak', 'ovrl', 'p808', 'sig']
>>> 1 <= plcmos(tone) <= 5
True
"""

from __future__ import annotations

import importlib.resources
from collections.abc import Iterator
from typing import Any

import numpy as np

__all__ = [
    "DNSMOS_KEYS",
    "MIN_SECONDS",
    "RATE",
    "RESAMPLERS",
    "WINDOW_SECONDS",
    "check_clip",
    "dnsmos",
    "load_16k",
    "model_file",
    "plcmos",
    "session",
]

RATE = 16000
"""The models' rate (Hz)."""
WINDOW_SECONDS = 9.01
"""DNSMOS' input: 144160 samples, fixed by the ONNX model."""
MIN_SECONDS = 0.5
"""Shorter clips are refused: DNSMOS would repeat them dozens of times to fill one window."""
PLCMOS_RATERS = 15
DNSMOS_KEYS = ("sig", "bak", "ovrl", "p808")
RESAMPLERS = ("torchaudio", "librosa", "none")

_SESSIONS: dict[tuple[str, int], Any] = {}


def model_file(folder: str, name: str) -> str:
    """The path of one ONNX model inside the installed ``speechmos`` package.

    >>> model_file("dnsmos_models", "model_v8.onnx").endswith("speechmos/dnsmos_models/model_v8.onnx")
    True
    """
    return str(importlib.resources.files("speechmos") / folder / name)


def session(path: str, threads: int = 1) -> Any:
    """The ONNX Runtime CPU session of ``path`` with ``threads`` threads, made once per process.

    Args:
        path: The ONNX model.
        threads: Intra-op threads; 0 lets onnxruntime choose (all cores, speechmos' default).

    Returns:
        An ``onnxruntime.InferenceSession`` (the same object on every call with the same arguments).

    Raises:
        ValueError: ``threads`` is not an int >= 0.

    >>> path = model_file("plcmos_models", "plcmos_v2.onnx")
    >>> session(path) is session(path), session(path) is session(path, 2)
    (True, False)
    """
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
        raise ValueError(f"threads must be an int >= 0 (0: onnxruntime's choice), got {threads!r}")
    key = (path, threads)
    if key not in _SESSIONS:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1 if threads else 0
        _SESSIONS[key] = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    return _SESSIONS[key]


def check_clip(audio: Any, measure: str) -> np.ndarray:
    """``audio`` as a float32 1-D array the models can score.

    Args:
        audio: Samples at 16 kHz.
        measure: ``"dnsmos"`` or ``"plcmos"``, first in the message.

    Returns:
        The clip as float32.

    Raises:
        ValueError: not 1-D, shorter than `MIN_SECONDS`, non-finite, silent, or outside [-1, 1].

    >>> check_clip(np.zeros(16000), "dnsmos")
    Traceback (most recent call last):
    ...
    ValueError: dnsmos: hyp is silent (all 16000 samples are zero); the measure is undefined for silence
    >>> check_clip(np.full(16000, 1.5), "dnsmos")
    Traceback (most recent call last):
    ...
    ValueError: dnsmos: 16000 sample(s) are outside [-1, 1] (largest magnitude 1.5); the models expect audio in [-1, 1]
    """
    from lightscore.audio.checks import check_signal

    wave = check_signal(audio, "hyp", measure)
    if wave.size < MIN_SECONDS * RATE:
        raise ValueError(
            f"{measure}: hyp has {wave.size} samples ({wave.size / RATE:.3f} s at 16 kHz), "
            f"under the {MIN_SECONDS} s a clip needs"
        )
    outside = np.abs(wave) > 1
    if outside.any():
        raise ValueError(
            f"{measure}: {int(outside.sum())} sample(s) are outside [-1, 1] (largest magnitude "
            f"{np.abs(wave).max():.3g}); the models expect audio in [-1, 1]"
        )
    return np.asarray(audio, dtype=np.float32).reshape(-1)


def _windows(audio: np.ndarray, hop_seconds: float) -> Iterator[np.ndarray]:
    """The 9.01 s windows DNSMOS scores, one at a time (views of ``audio``), cut exactly as speechmos cuts them."""
    window = int(WINDOW_SECONDS * RATE)
    while len(audio) < window:
        audio = np.append(audio, audio)
    count = int((np.floor(len(audio) / RATE) - WINDOW_SECONDS) / hop_seconds) + 1
    for index in range(count):
        # speechmos' float arithmetic: a window it computes a sample short is skipped, as there
        segment = audio[int(index * hop_seconds * RATE) : int((index * hop_seconds + WINDOW_SECONDS) * RATE)]
        if len(segment) >= window:
            yield segment


def _run(model: Any, inputs: dict[str, np.ndarray], measure: str, clip: np.ndarray) -> np.ndarray:
    """The first output of one ONNX call; an onnxruntime failure (an allocation, most often) is a ValueError.

    onnxruntime's errors name neither the clip nor the utterance; this one names the clip's length,
    and `lightscore.metrics.quality.QualityMetric` puts the utterance and the file before it.
    """
    from onnxruntime.capi.onnxruntime_pybind11_state import Fail, RuntimeException

    try:
        return model.run(None, inputs)[0]
    except (Fail, RuntimeException, MemoryError) as e:
        # onnxruntime reports an allocation failure as a FAIL whose text says "allocate" or "bad_alloc"
        failed = "ran out of memory" if isinstance(e, MemoryError) or "alloc" in str(e) else "failed"
        raise ValueError(f"{measure}: the model {failed} on a {clip.size / RATE:.1f} s clip: {e}") from e


def dnsmos(audio: Any, personalized: bool = False, threads: int = 1, hop_seconds: float = 1.0) -> dict[str, float]:
    """DNSMOS of one 16 kHz clip: P.835 ``sig``, ``bak``, ``ovrl`` and P.808 ``p808``, means over the windows.

    Args:
        audio: Samples in [-1, 1] at 16 kHz (1-D).
        personalized: The personalized DNSMOS model (speechmos' ``model_type="dnsmos_personalized"``).
        threads: ONNX Runtime threads (`session`).
        hop_seconds: Seconds between window starts (1.0: speechmos').

    Returns:
        ``{"sig", "bak", "ovrl", "p808"}`` -> MOS (about 1 to 5).

    Raises:
        ValueError: as `check_clip`, a ``hop_seconds`` that is not positive, or a model call that fails
            (out of memory, most often), naming the clip's length.

    >>> noise = np.random.default_rng(0).uniform(-0.5, 0.5, 80000).astype(np.float32)
    >>> round(dnsmos(noise)["bak"], 2) < 2.5
    True
    """
    from speechmos.dnsmos import DNSMOS  # imports librosa: only when DNSMOS runs
    from threadpoolctl import threadpool_limits

    if not hop_seconds > 0:
        raise ValueError(f"dnsmos: hop_seconds must be > 0, got {hop_seconds!r}")
    clip = check_clip(audio, "dnsmos")
    folder = "pdnsmos_models" if personalized else "dnsmos_models"
    primary = session(model_file(folder, "sig_bak_ovr.onnx"), threads)
    p808 = session(model_file("dnsmos_models", "model_v8.onnx"), threads)
    # audio_melspec and get_polyfit_val do not use the instance: called on the class, speechmos' code is the code.
    raws = []
    p808_scores = []
    # One BLAS thread: the float32 mel product then sums in one order in every process, so ranks agree bit for bit.
    with threadpool_limits(limits=1, user_api="blas"):
        for window in _windows(clip, hop_seconds):
            mel = DNSMOS.audio_melspec(None, audio=window[:-160]).astype(np.float32)
            raws.append(_run(primary, {"input_1": window[np.newaxis]}, "dnsmos", clip)[0])
            p808_scores.append(_run(p808, {"input_1": mel[np.newaxis]}, "dnsmos", clip)[0, 0])
    raw = np.stack(raws)
    sig, bak, ovrl = DNSMOS.get_polyfit_val(None, raw[:, 0], raw[:, 1], raw[:, 2], personalized)
    return {
        "sig": float(np.mean(sig)),
        "bak": float(np.mean(bak)),
        "ovrl": float(np.mean(ovrl)),
        "p808": float(np.mean(p808_scores)),
    }


def plcmos(audio: Any, seed: int = 0, threads: int = 1) -> float:
    """PLCMOS v2 of one 16 kHz clip: the mean over 15 rater embeddings drawn with ``seed``.

    Args:
        audio: Samples in [-1, 1] at 16 kHz (1-D).
        seed: Seed of ``numpy.random.RandomState`` for the rater embeddings.
        threads: ONNX Runtime threads (`session`).

    Returns:
        The MOS (about 1 to 5).

    Raises:
        ValueError: as `check_clip`, or a model call that fails (out of memory, most often), naming the
            clip's length.

    >>> t = np.arange(16000) / 16000
    >>> tone = (0.3 * np.sin(2 * np.pi * 200 * t)).astype(np.float32)
    >>> plcmos(tone) == plcmos(tone), plcmos(tone) == plcmos(tone, seed=1)
    (True, False)
    """
    from speechmos.plcmos import PLCMOS

    clip = check_clip(audio, "plcmos")
    # stft_transform needs an instance for its helper methods, not the session __init__ builds
    features = np.float32(PLCMOS.stft_transform(object.__new__(PLCMOS), clip))[np.newaxis, np.newaxis, ...]
    raters = np.random.RandomState(seed).normal(size=(PLCMOS_RATERS, 64)).astype(np.float32)
    model = session(model_file("plcmos_models", "plcmos_v2.onnx"), threads)
    total = 0.0
    for rater in raters:
        inputs = {"degraded_audio": features, "rater_embed": rater[np.newaxis]}
        total += float(_run(model, inputs, "plcmos", clip).reshape(-1)[0])
    return total / PLCMOS_RATERS


def load_16k(path: str, resample: str = "torchaudio", where: str = "") -> np.ndarray:
    """The first channel of the WAV at ``path`` at 16 kHz, as float32, for `dnsmos` and `plcmos`.

    Args:
        path: The WAV file.
        resample: How another rate becomes 16 kHz: ``"torchaudio"`` (lightscore's
            `lightscore.audio.files.read_wave`, as the other audio metrics),
            ``"librosa"`` (``librosa.load``'s soxr_hq: what ``speechmos.dnsmos.run``
            does with a file path) or ``"none"`` (another rate is an error, as
            speechmos' arrays).
        where: Put before an error.

    Returns:
        The samples.

    Raises:
        ValueError: an unreadable, empty or non-finite file, an unknown ``resample``, or
            (``"none"``) a rate other than 16 kHz.

    >>> import pathlib, tempfile, soundfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.wav"
    >>> soundfile.write(p, np.full(8000, 0.25), 8000)
    >>> load_16k(str(p)).shape, load_16k(str(p), "librosa").shape
    ((16000,), (16000,))
    >>> load_16k(str(p), "none", "utterance 'u1'")
    Traceback (most recent call last):
    ...
    ValueError: utterance 'u1': .../a.wav is at 8000 Hz; resample='none' takes only 16000 Hz files
    """
    import soundfile

    from lightscore.audio.files import read_wave

    prefix = f"{where}: " if where else ""
    if resample not in RESAMPLERS:
        raise ValueError(f"{prefix}resample must be one of {', '.join(RESAMPLERS)}, got {resample!r}")
    if resample == "torchaudio":
        return read_wave(path, 1, RATE, where)
    try:
        rate = soundfile.info(str(path)).samplerate
    except (RuntimeError, OSError) as e:
        raise ValueError(f"{prefix}cannot read {path}: {e}") from None
    if rate != RATE and resample == "none":
        raise ValueError(f"{prefix}{path} is at {rate} Hz; resample='none' takes only {RATE} Hz files")
    wave = read_wave(path, 1, rate, where)
    if rate != RATE:
        import librosa

        wave = librosa.resample(wave, orig_sr=rate, target_sr=RATE, res_type="soxr_hq")
    return wave
