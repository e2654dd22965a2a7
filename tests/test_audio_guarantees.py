"""Audio inputs, round 3 (issue 19): undefined STOI left out and counted, truncated WAVs, long ids, one resampler.

Every test writes real WAV files with soundfile and checks against the
reference packages (pystoi, pesq) called here, or against torchaudio directly.
"""

from __future__ import annotations

import json
import struct
import warnings
from pathlib import Path

import numpy as np
import pesq
import pystoi
import pytest
import soundfile
import torch
import torchaudio
from hypothesis import given, settings
from hypothesis import strategies as st

from lightscore import measure
from lightscore.audio import speech_quality as sq
from lightscore.audio.files import read_audio
from lightscore.metrics.audio import SignalMetrics
from lightscore.offline.dataset_columns import write_column

RATE = 16000


def voice(seconds: float, f0: float, seed: int, rate: int = RATE) -> np.ndarray:
    """A harmonic voice with vibrato and a little noise, about 0.25 peak."""
    t = np.arange(int(seconds * rate)) / rate
    phase = 2 * np.pi * np.cumsum(f0 * (1 + 0.06 * np.sin(2 * np.pi * 4.0 * t))) / rate
    harmonics = sum(np.sin(k * phase) / k for k in range(1, 12))
    return 0.25 * harmonics / 3 + 0.003 * np.random.default_rng(seed).standard_normal(t.size)


def noisy(wave: np.ndarray, seed: int) -> np.ndarray:
    return wave + 0.01 * np.random.default_rng(seed).standard_normal(wave.size)


def write_pairs(root: Path, pairs: dict[str, tuple[np.ndarray, np.ndarray]], rate: int = RATE) -> dict[str, Path]:
    """Write each utterance's (hyp, ref) as FLOAT WAVs and the two SCP files; return the metric's data."""
    data = {}
    for k, name in enumerate(("hyp", "ref")):
        lines = []
        for utt_id, pair in pairs.items():
            path = root / name / f"{utt_id}.wav"
            path.parent.mkdir(parents=True, exist_ok=True)
            soundfile.write(path, pair[k], rate, subtype="FLOAT")
            lines.append(f"{utt_id} {path}\n")
        data[name] = root / f"{name}.scp"
        data[name].write_text("".join(lines))
    return data


def as_read(wave: np.ndarray) -> np.ndarray:
    """What the metric gets from a FLOAT WAV: float32 samples as float64."""
    return wave.astype(np.float32).astype(np.float64)


# -- STOI and ESTOI: an undefined pair is left out of the mean and counted ------------------------


def test_a_too_short_pair_is_left_out_of_stoi_and_counted(tmp_path):
    long_ref = voice(1.5, 120.0, seed=1)
    short_ref = voice(0.2, 140.0, seed=2)
    pairs = {"long": (noisy(long_ref, 3), long_ref), "short": (noisy(short_ref, 4), short_ref)}
    result = SignalMetrics(["stoi", "estoi", "snr"])(write_pairs(tmp_path, pairs), "test")
    hyp, ref = (as_read(x) for x in pairs["long"])
    assert result["stoi"] == pytest.approx(pystoi.stoi(ref, hyp, RATE), rel=1e-9)
    assert result["estoi"] == pytest.approx(pystoi.stoi(ref, hyp, RATE, extended=True), rel=1e-9)
    assert result["stoi_undefined"] == result["estoi_undefined"] == 1
    assert "snr_undefined" not in result  # snr is defined everywhere: both pairs are in its mean
    # What the old mean was: the 1e-5 sentinel averaged in, about half the real value.
    with pytest.warns(RuntimeWarning, match="Not enough STFT frames"):
        sentinel = pystoi.stoi(*(as_read(x) for x in reversed(pairs["short"])), RATE)
    assert sentinel == 1e-5 and result["stoi"] > 0.6


def test_no_count_when_every_pair_defines_stoi(tmp_path):
    ref = voice(1.0, 120.0, seed=1)
    result = SignalMetrics(["stoi"])(write_pairs(tmp_path, {"u1": (noisy(ref, 2), ref)}), "test")
    assert set(result) == {"stoi"}


@pytest.mark.parametrize("samples", [1, 100])
def test_stoi_on_1_or_100_samples_is_undefined_not_an_axis_error(tmp_path, samples):
    ref = voice(1.0, 120.0, seed=1)[:samples] + 0.1
    assert sq.stoi(ref, ref, RATE) is None and sq.estoi(ref, ref, RATE) is None
    with pytest.raises(ValueError, match=r"axis 1 is out of bounds"):
        pystoi.stoi(ref, ref, RATE)  # what pystoi itself does
    data = write_pairs(tmp_path, {"tiny": (ref, ref)})
    with pytest.raises(ValueError, match=r"stoi is undefined in all 1 utterance\(s\): fewer than 30 STFT frames"):
        SignalMetrics(["stoi"])(data, "test")
    long_ref = voice(1.0, 120.0, seed=2)
    data = write_pairs(tmp_path / "mixed", {"tiny": (ref, ref), "long": (noisy(long_ref, 3), long_ref)})
    result = SignalMetrics(["stoi", "snr"])(data, "test")
    assert result["stoi_undefined"] == 1 and result["stoi"] > 0.5


def pystoi_outcome(ref: np.ndarray, hyp: np.ndarray, rate: int, extended: bool) -> float | None:
    """pystoi's own answer: None where it warns and returns 1e-5 or fails on a signal under one frame."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = pystoi.stoi(ref, hyp, rate, extended=extended)
        except ValueError as e:  # numpy's AxisError: not one 256-sample frame at 10 kHz
            assert "axis 1 is out of bounds" in str(e)
            return None
    sentinel = any("Not enough STFT frames" in str(w.message) for w in caught)
    assert sentinel == (value == 1e-5)
    return None if sentinel else value


@settings(max_examples=40, deadline=None)
@given(
    seconds=st.floats(0.0001, 0.9),
    rate=st.sampled_from([8000, 10000, 16000, 22050]),
    fade=st.floats(0.0, 1.0),
    extended=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_stoi_is_undefined_exactly_where_pystoi_gives_its_sentinel(seconds, rate, fade, extended, seed):
    # A fading ref: its quiet tail is dropped by pystoi's silence removal, so the kept frames, not
    # the length, decide; the lengths cover the 30-frame boundary at every rate.
    n = max(1, int(seconds * rate))
    rng = np.random.default_rng(seed)
    ref = rng.standard_normal(n) * np.exp(-fade * 12 * np.arange(n) / n)
    hyp = ref + 0.3 * rng.standard_normal(n)
    expected = pystoi_outcome(ref, hyp, rate, extended)
    got = (sq.estoi if extended else sq.stoi)(hyp, ref, rate)
    if expected is None:
        assert got is None
    else:
        assert got == pytest.approx(expected, rel=1e-12)


def test_the_frame_minimum_is_pystois():
    from pystoi.stoi import N

    from lightscore.audio.pesq_stoi import STOI_MIN_FRAMES

    assert STOI_MIN_FRAMES == N


# -- the one WAV reader refuses a truncated file -------------------------------------------------


def truncated_copy(source: Path, target: Path) -> Path:
    """``source`` cut to half its length: the header still declares every sample."""
    data = source.read_bytes()
    target.write_bytes(data[: len(data) // 2])
    return target


def test_a_wav_truncated_to_half_is_refused_by_the_dtw_measures(tmp_path):
    ref = voice(1.0, 120.0, seed=1)
    data = write_pairs(tmp_path, {"spk1-u7": (noisy(ref, 2), ref)})
    hyp_path = Path(data["hyp"].read_text().split()[1])
    full = soundfile.info(hyp_path).frames
    whole = hyp_path.rename(hyp_path.with_name("whole.wav"))
    truncated_copy(whole, hyp_path)
    assert 0 < soundfile.read(hyp_path)[0].shape[0] < full  # libsndfile itself reads the half silently
    with pytest.raises(ValueError, match=rf"utterance 'spk1-u7'.*{hyp_path} is truncated: its header declares"):
        SignalMetrics(["mcd_dtw", "f0_rmse_dtw"], f0_method="dio")(data, "test")


@pytest.mark.parametrize("subtype", ["PCM_16", "FLOAT"])
def test_read_audio_refuses_any_cut_and_names_the_file(tmp_path, subtype):
    whole = tmp_path / "whole.wav"
    soundfile.write(whole, voice(0.5, 120.0, seed=1), RATE, subtype=subtype)
    for cut in (len(whole.read_bytes()) // 2, len(whole.read_bytes()) - 1):
        part = tmp_path / f"cut{cut}.wav"
        part.write_bytes(whole.read_bytes()[:cut])
        with pytest.raises(ValueError, match=rf"utterance 'u1': {part} is truncated"):
            read_audio(str(part), where="utterance 'u1'")
    assert read_audio(str(whole)).shape == (RATE // 2,)


def test_a_wav_written_to_a_pipe_declares_no_length_and_is_read(tmp_path):
    path = tmp_path / "piped.wav"
    soundfile.write(path, voice(0.5, 120.0, seed=1), RATE, subtype="PCM_16")
    data = bytearray(path.read_bytes())
    at = data.find(b"data")
    data[at + 4 : at + 8] = struct.pack("<I", 0xFFFFFFFF)  # what a writer that cannot seek back leaves
    path.write_bytes(bytes(data))
    assert read_audio(str(path)).shape == (RATE // 2,)


# -- a dataset audio column with an id too long for a file name ----------------------------------


def test_a_300_character_id_is_a_clear_error_naming_it(tmp_path):
    long_id = "spk1-" + "x" * 295
    rows = [{"utt_id": "u1", "speech": (np.zeros(800, dtype=np.float32), 8000)}]
    rows.append({"utt_id": long_id, "speech": (np.zeros(800, dtype=np.float32), 8000)})
    with pytest.raises(ValueError, match=r"dataset item 1 .*utterance id 'spk1-xxx.*\(300 characters\) is too long"):
        write_column(rows, "speech", tmp_path / "speech.scp")
    assert not (tmp_path / "speech.scp").exists() and not (tmp_path / "speech").exists()


# -- one resampler: the same samples on every road -------------------------------------------------


def torchaudio_resample(wave: np.ndarray, rate: int, target: int) -> np.ndarray:
    return torchaudio.functional.resample(torch.from_numpy(wave), rate, target).numpy()


def test_pesq_of_a_22khz_file_equals_the_package_on_torchaudio_resampled_input(tmp_path):
    ref = voice(2.0, 130.0, seed=4, rate=22050)
    hyp = ref + 0.02 * np.random.default_rng(5).standard_normal(ref.size)
    data = write_pairs(tmp_path, {"u1": (hyp, ref)}, rate=22050)
    result = SignalMetrics(["pesq_wb", "pesq_nb"])(data, "test")
    # The metric reads at 16 kHz, then PESQ narrow-band takes 8 kHz: both steps are torchaudio's.
    at16 = [torchaudio_resample(x.astype(np.float32), 22050, RATE).astype(np.float64) for x in (ref, hyp)]
    at8 = [torchaudio_resample(x, RATE, 8000) for x in at16]
    assert result["pesq_wb"] == pesq.pesq(RATE, at16[0], at16[1], "wb")
    assert result["pesq_nb"] == pesq.pesq(8000, at8[0], at8[1], "nb")


def test_a_dataset_column_is_resampled_as_a_metric_reads_a_file(tmp_path):
    wave = voice(0.5, 150.0, seed=1, rate=8000).astype(np.float32)
    written = tmp_path / "written.scp"
    write_column(
        [{"utt_id": "u1", "speech": (wave, 8000)}], "speech", written, options={"subtype": "FLOAT", "sample_rate": RATE}
    )
    as_column = soundfile.read(tmp_path / "written" / "u1.wav", dtype="float32")[0]
    soundfile.write(tmp_path / "raw.wav", wave, 8000, subtype="FLOAT")
    as_read_file = read_audio(str(tmp_path / "raw.wav"), sample_rate=RATE).numpy()
    np.testing.assert_array_equal(as_column, torchaudio_resample(wave, 8000, RATE))
    np.testing.assert_array_equal(as_read_file, as_column)


def test_measure_reports_the_count_in_metrics_json(tmp_path):
    long_ref = voice(1.2, 120.0, seed=1)
    short_ref = voice(0.1, 140.0, seed=2)
    test_dir = tmp_path / "decode" / "test"
    data = write_pairs(test_dir, {"a": (noisy(long_ref, 3), long_ref), "b": (noisy(short_ref, 4), short_ref)})
    config = {
        "inference_dir": str(tmp_path / "decode"),
        "metrics": [
            {
                "metric": {"_target_": "lightscore.metrics.audio.SignalMetrics", "score_config": ["stoi"]},
                "inputs": {"hyp": data["hyp"].stem, "ref": data["ref"].stem},
            }
        ],
    }
    measure(config)
    written = json.loads((tmp_path / "decode" / "metrics.json").read_text())
    scores = written["lightscore.metrics.audio.SignalMetrics"]["test"]
    assert scores["stoi_undefined"] == 1 and scores["stoi"] > 0.6
