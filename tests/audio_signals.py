"""Signals with known answers, WAV/SCP writers and the shard-merging helper the audio metric tests share.

Importable as ``audio_signals`` (pytest puts ``tests/`` on sys.path). ``one_torch_thread`` is an
autouse, module-scoped fixture: a test module that imports it runs on one torch thread.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import soundfile
import torch

RATE = 16000


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    # These tensors are tiny: thread hand-offs cost more than they save, and far more on a busy machine.
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


# -- signals and files ---------------------------------------------------------------


def write_wav(path: Path, wave: np.ndarray, rate: int = RATE, subtype: str = "FLOAT") -> str:
    """Write ``wave`` (time,) or (channels, time) as a WAV; return its path as an SCP value."""
    path.parent.mkdir(parents=True, exist_ok=True)
    soundfile.write(path, np.asarray(wave).T, rate, subtype=subtype)
    return str(path)


def write_scp(path: Path, rows: dict[str, str]) -> Path:
    path.write_text("".join(f"{utt_id} {value}\n" for utt_id, value in rows.items()))
    return path


def times(seconds: float, rate: int = RATE) -> np.ndarray:
    return np.arange(int(seconds * rate)) / rate


def harmonic(f0: float, seconds: float = 1.0, rate: int = RATE, tilt: float = 1.0) -> np.ndarray:
    """A voice-like tone: harmonics k * f0 below 3.5 kHz with amplitude 1 / k**tilt, peak about 0.5."""
    t = times(seconds, rate)
    ks = range(1, int(3500 // f0) + 1)
    wave = sum(np.sin(2 * np.pi * k * f0 * t) / k**tilt for k in ks)
    return 0.5 * wave / np.abs(wave).max()


def glide(start: float, end: float, seconds: float = 1.0, rate: int = RATE) -> np.ndarray:
    """A sine whose frequency moves linearly from ``start`` to ``end`` Hz."""
    t = times(seconds, rate)
    return 0.5 * np.sin(2 * np.pi * (start * t + (end - start) * t**2 / (2 * seconds)))


def noise_at_snr(signal: np.ndarray, snr_db: float, seed: int) -> np.ndarray:
    """White noise, zero-mean and orthogonal to ``signal``, whose power is exactly ``snr_db`` below it."""
    noise = np.random.default_rng(seed).standard_normal(signal.shape[-1])
    noise -= noise.mean()
    centred = signal - signal.mean()
    noise -= (noise @ centred) / (centred @ centred) * centred
    return noise * math.sqrt((signal @ signal) / (noise @ noise) / 10 ** (snr_db / 10))


def score(metric, tmp_path: Path, **inputs: list[np.ndarray]) -> dict[str, float]:
    """Write each input's waves as WAVs and SCPs under ``tmp_path`` and score them with ``metric(data, ...)``."""
    data = {}
    for name, waves in inputs.items():
        rows = {f"utt{i}": write_wav(tmp_path / name / f"utt{i}.wav", wave) for i, wave in enumerate(waves)}
        data[name] = write_scp(tmp_path / f"{name}.scp", rows)
    return metric(data, "test")


# -- merging shards ----------------------------------------------------------------


def shard_of(assignment: list[int]) -> list[list[int]]:
    """Rows grouped by shard number, in row order; empty shards dropped."""
    return [[row for row, s in enumerate(assignment) if s == shard] for shard in sorted(set(assignment))]


def merged_result(make_metric, inputs: dict[str, list[str]], assignment: list[int], reverse: bool) -> dict:
    """Feed each shard to its own metric in batches of two, merge the states, compute."""
    states = []
    for rows in shard_of(assignment):
        metric = make_metric()
        for start in range(0, len(rows), 2):
            metric.update(**{name: [paths[r] for r in rows[start : start + 2]] for name, paths in inputs.items()})
        states.append(metric.state())
    target = make_metric()
    target.load_state(target.merge_states(states[::-1] if reverse else states))
    return target.compute()
