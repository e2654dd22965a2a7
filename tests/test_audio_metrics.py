"""SignalMetrics on real WAV files written here with soundfile: values, the TTS measures, silence, merged shards.

The signals are built so that the right answer is known in advance: noise scaled
to an exact power ratio, tones at known pitches, identical files. Reading files and the
errors are in ``test_audio_metrics_inputs.py``; SpeakerSimilarity in ``test_audio_speaker.py``.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
import soundfile
import torch
from audio_signals import (
    RATE,
    glide,
    harmonic,
    merged_result,
    noise_at_snr,
    one_torch_thread,  # noqa: F401  (autouse: the fixture applies to this module)
    score,
    times,
    write_scp,
    write_wav,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from lightscore.audio import speech_quality as sq
from lightscore.audio import world_pitch
from lightscore.audio.signal import MAX_DB
from lightscore.metrics.audio import MEASURES, SignalMetrics

# -- SignalMetrics: values ---------------------------------------------------------


@pytest.mark.parametrize("snr_db", [0.0, 10.0, 25.0])
def test_snr_and_si_snr_of_a_sine_plus_white_noise_are_the_snr_set(tmp_path, snr_db):
    clean = 0.5 * np.sin(2 * np.pi * 220 * times(2.0))
    noisy = clean + noise_at_snr(clean, snr_db, seed=int(snr_db))
    result = score(SignalMetrics(["snr", "si_snr", "sdr"]), tmp_path, hyp=[noisy], ref=[clean])
    assert result["snr"] == pytest.approx(snr_db, abs=0.1)
    assert result["si_snr"] == pytest.approx(snr_db, abs=0.1)
    # The 512-tap distortion filter absorbs a little of white noise: 512 / 32000 of its power.
    assert snr_db <= result["sdr"] < snr_db + 0.2


def test_si_snr_ignores_gain_and_snr_does_not(tmp_path):
    clean = 0.25 * np.sin(2 * np.pi * 300 * times(1.0))
    noisy = 2 * (clean + noise_at_snr(clean, 15.0, seed=3))
    result = score(SignalMetrics(["snr", "si_snr"]), tmp_path, hyp=[noisy], ref=[clean])
    assert result["si_snr"] == pytest.approx(15.0, abs=0.1)
    assert result["snr"] < 1.0


def test_sdr_equals_torchmetrics_signal_distortion_ratio(tmp_path):
    torchmetrics_audio = pytest.importorskip("torchmetrics.functional.audio")
    rng = np.random.default_rng(7)
    ref = rng.standard_normal(8000) * 0.1
    hyp = np.convolve(ref, [0.9, 0.3, -0.2])[:8000] + rng.standard_normal(8000) * 0.01
    result = score(SignalMetrics(["sdr"]), tmp_path, hyp=[hyp], ref=[ref])
    hyp32, ref32 = (torch.from_numpy(x.astype(np.float32)).double() for x in (hyp, ref))
    expected = torchmetrics_audio.signal_distortion_ratio(hyp32, ref32).item()
    assert result["sdr"] == pytest.approx(expected, abs=1e-4)


def test_identical_files_give_zero_mcd_and_lsd_and_the_clamped_ratios(tmp_path):
    speech_like = harmonic(130, seconds=1.0) + noise_at_snr(harmonic(130, seconds=1.0), 30.0, seed=1)
    result = score(SignalMetrics(list(MEASURES)[:5]), tmp_path, hyp=[speech_like], ref=[speech_like])
    assert result == {"si_snr": MAX_DB, "snr": MAX_DB, "sdr": MAX_DB, "lsd": 0.0, "mcd": 0.0}


def test_mcd_and_lsd_grow_with_distortion(tmp_path):
    clean = harmonic(150, seconds=1.0)
    slightly, badly = (clean + noise_at_snr(clean, snr_db, seed=2) for snr_db in (30.0, 5.0))
    metric = SignalMetrics(["mcd", "lsd"])
    small = score(metric, tmp_path / "a", hyp=[slightly], ref=[clean])
    large = score(metric, tmp_path / "b", hyp=[badly], ref=[clean])
    assert 0 < small["mcd"] < large["mcd"] and 0 < small["lsd"] < large["lsd"]


def test_pitch_shifted_tone_gives_the_expected_f0_rmse(tmp_path):
    # 200 Hz shifted up a major third to 250 Hz: every frame voiced in both is 50 Hz off.
    # The voiced stretches overlap only in part; unvoiced (silent) frames must not count.
    ref = harmonic(200, seconds=1.5) * ((times(1.5) > 0.2) & (times(1.5) < 1.2))
    hyp = harmonic(250, seconds=1.5) * ((times(1.5) > 0.5) & (times(1.5) < 1.4))
    result = score(SignalMetrics(["f0_rmse"]), tmp_path, hyp=[hyp], ref=[ref])
    assert result["f0_rmse"] == pytest.approx(50.0, rel=0.05)


def test_a_scaled_pitch_glide_gives_f0_rmse_of_the_scale_and_f0_corr_near_one(tmp_path):
    ref = glide(150, 350, seconds=2.0)
    hyp = glide(150 * 1.25, 350 * 1.25, seconds=2.0)
    result = score(SignalMetrics(["f0_rmse", "f0_corr"]), tmp_path, hyp=[hyp], ref=[ref])
    # RMS of 0.25 f(t) for f rising linearly from 150 to 350 Hz.
    expected = 0.25 * math.sqrt((150**2 + 150 * 350 + 350**2) / 3)
    assert result["f0_rmse"] == pytest.approx(expected, rel=0.05)
    assert result["f0_corr"] > 0.99


def test_f0_corr_of_flat_pitch_is_undefined_and_says_why(tmp_path):
    with pytest.raises(ValueError, match="f0_corr is undefined in all 1 utterance.*does not vary"):
        score(SignalMetrics(["f0_corr"]), tmp_path, hyp=[harmonic(250)], ref=[harmonic(200)])


# -- SignalMetrics: the measures a TTS paper cites -------------------------------------


def voice(seconds: float, f0: float, seed: int, rate: int = RATE) -> np.ndarray:
    """A harmonic voice with vibrato, two pauses and a little noise: voiced and unvoiced frames, speech-like."""
    t = times(seconds, rate)
    pitch = f0 * (1 + 0.06 * np.sin(2 * np.pi * 4.0 * t))
    phase = 2 * np.pi * np.cumsum(pitch) / rate
    gate = (np.sin(2 * np.pi * t / seconds * 2 + 0.3) > -0.5).astype(float)
    harmonics = sum(np.sin(k * phase) / k for k in range(1, 12))
    return 0.25 * harmonics * gate + 0.003 * np.random.default_rng(seed).standard_normal(t.size)


@pytest.fixture(scope="module")
def tts_pairs(tmp_path_factory) -> dict[str, list[str]]:
    """Two PCM_16 pairs: hyp a little higher, and 15% shorter or longer, than its ref (free-running TTS)."""
    d = tmp_path_factory.mktemp("tts")
    hyps = [voice(1.3, 138.0, seed=1), voice(1.7, 118.0, seed=3)]
    refs = [voice(1.5, 125.0, seed=2), voice(1.5, 110.0, seed=4)]
    return {
        "hyp": [write_wav(d / f"hyp{i}.wav", w, subtype="PCM_16") for i, w in enumerate(hyps)],
        "ref": [write_wav(d / f"ref{i}.wav", w, subtype="PCM_16") for i, w in enumerate(refs)],
    }


def test_dtw_measures_equal_speech_quality_on_unequal_lengths(tts_pairs, tmp_path):
    names = ["mcd_dtw", "f0_rmse_dtw", "f0_corr_dtw", "log_f0_rmse_dtw", "vde"]
    rows = dict(enumerate(zip(tts_pairs["hyp"], tts_pairs["ref"])))
    data = {
        name: write_scp(tmp_path / f"{name}.scp", {f"u{i}": pair[k] for i, pair in rows.items()})
        for k, name in enumerate(("hyp", "ref"))
    }
    result = SignalMetrics(names, f0_method="dio")(data, "test")
    waves = [(soundfile.read(h)[0], soundfile.read(r)[0]) for h, r in rows.values()]
    world = [sq.world_f0_measures(h, r, RATE, "dio") for h, r in waves]
    expected = {
        "mcd_dtw": np.mean([sq.mcd_dtw(h, r, RATE) for h, r in waves]),
        **{f"{key}_dtw": np.mean([w[key] for w in world]) for key in ("f0_rmse", "f0_corr", "log_f0_rmse")},
        "vde": np.mean([w["vde"] for w in world]),
    }
    assert result == pytest.approx(expected, abs=1e-9)
    assert 3 < result["f0_rmse_dtw"] < 30 and result["mcd_dtw"] > 1  # real differences, not a degenerate 0


def test_the_world_measures_share_one_extraction_per_utterance(tts_pairs, monkeypatch):
    calls = []
    real = world_pitch.world_f0_measures
    monkeypatch.setattr(world_pitch, "world_f0_measures", lambda *args: calls.append(args[3]) or real(*args))
    metric = SignalMetrics(["vde", "mcd_dtw", "f0_rmse_dtw", "f0_corr_dtw", "log_f0_rmse_dtw"], f0_method="dio")
    metric.update(hyp=tts_pairs["hyp"][:1], ref=tts_pairs["ref"][:1])
    assert calls == ["dio"]
    assert metric.vde_count == metric.f0_rmse_dtw_count == metric.mcd_dtw_count == 1


def test_harvest_is_the_default_f0_method(tts_pairs):
    metric = SignalMetrics(["log_f0_rmse_dtw"])
    assert metric.f0_method == "harvest"
    metric.update(hyp=tts_pairs["hyp"][:1], ref=tts_pairs["ref"][:1])
    hyp, ref = (soundfile.read(paths[0])[0] for paths in (tts_pairs["hyp"], tts_pairs["ref"]))
    expected = sq.world_f0_measures(hyp, ref, RATE, "harvest")["log_f0_rmse"]
    assert metric.compute()["log_f0_rmse_dtw"] == pytest.approx(expected, abs=1e-9)


def test_pesq_and_stoi_equal_the_packages_on_the_trimmed_pair(tmp_path):
    ref = voice(2.0, 130.0, seed=5)
    hyp = ref + 0.02 * np.random.default_rng(6).standard_normal(ref.size)
    result = score(SignalMetrics(["pesq_wb", "pesq_nb", "stoi", "estoi"]), tmp_path, hyp=[hyp[:-800]], ref=[ref])
    hyp32, ref32 = (x.astype(np.float32).astype(np.float64)[: ref.size - 800] for x in (hyp, ref))
    assert result["pesq_wb"] == sq.pesq_wb(hyp32, ref32, RATE)
    assert result["pesq_nb"] == sq.pesq_nb(hyp32, ref32, RATE)
    assert result["stoi"] == pytest.approx(sq.stoi(hyp32, ref32, RATE), rel=1e-9)
    assert result["estoi"] == pytest.approx(sq.estoi(hyp32, ref32, RATE), rel=1e-9)
    assert 1.0 < result["pesq_wb"] < 4.6 and 0.5 < result["stoi"] < 1.0


def test_sample_aligned_measures_refuse_a_length_mismatch_the_dtw_ones_take(tts_pairs, tmp_path):
    data = {
        "hyp": write_scp(tmp_path / "hyp.scp", {"long": tts_pairs["hyp"][1]}),
        "ref": write_scp(tmp_path / "ref.scp", {"long": tts_pairs["ref"][1]}),
    }
    assert SignalMetrics(["mcd_dtw"])(data, "test")["mcd_dtw"] > 0
    with pytest.raises(ValueError, match=r"utterance 'long' .*hyp has 27200 samples and ref 24000"):
        SignalMetrics(["mcd_dtw", "stoi"])(data, "test")


def test_options_are_checked_when_the_metric_is_built():
    with pytest.raises(ValueError, match="f0_method must be 'harvest' or 'dio', got 'crepe'"):
        SignalMetrics(["vde"], f0_method="crepe")
    with pytest.raises(ValueError, match=r"f0_rmse_dtw needs sample_rate in \(16000, 22050, 24000, 44100, 48000\)"):
        SignalMetrics(["snr", "f0_rmse_dtw"], sample_rate=8000)
    assert SignalMetrics(["pesq_nb", "stoi"], sample_rate=8000).sample_rate == 8000


# -- SignalMetrics: silent and non-finite audio ------------------------------------


@pytest.fixture(scope="module")
def noisy_and_silent(tmp_path_factory) -> dict[str, Path]:
    """SCP files: a ref, a noisy hyp (5 dB SNR) and an all-zero hyp, one utterance each."""
    d = tmp_path_factory.mktemp("silence")
    ref = voice(1.5, 125.0, seed=7)
    noisy = ref + noise_at_snr(ref, 5.0, seed=8)
    return {
        name: write_scp(d / f"{name}.scp", {"utt0": write_wav(d / name / "utt0.wav", wave)})
        for name, wave in (("ref", ref), ("noisy", noisy), ("silent", np.zeros_like(ref)))
    }


@pytest.mark.parametrize("name", list(MEASURES))
def test_a_silent_hyp_never_scores_better_than_a_noisy_one(noisy_and_silent, name):
    metric = SignalMetrics([name], f0_method="dio")
    noisy = metric({"hyp": noisy_and_silent["noisy"], "ref": noisy_and_silent["ref"]}, "test")[name]
    try:
        silent = metric({"hyp": noisy_and_silent["silent"], "ref": noisy_and_silent["ref"]}, "test")[name]
    except ValueError as e:
        # the measure, or the one computation it shares (world_f0_measures), names the silent signal
        assert re.search(r"utterance 'utt0' .*hyp .*silent/utt0\.wav.*: \w+: hyp is silent", str(e)), str(e)
        return
    assert (silent < noisy) if MEASURES[name].higher_is_better else (silent > noisy), (silent, noisy)


def test_a_nan_sample_names_the_utterance_and_the_file(tmp_path):
    wave = voice(0.5, 125.0, seed=9)
    broken = wave.copy()
    broken[100] = np.nan
    with pytest.raises(ValueError, match=r"utterance 'utt0' .*hyp/utt0\.wav holds 1 non-finite sample"):
        score(SignalMetrics(["mcd_dtw", "pesq_wb"]), tmp_path, hyp=[broken], ref=[wave])


# -- merging shards ----------------------------------------------------------------


@pytest.fixture(scope="module")
def signal_files(tmp_path_factory) -> dict[str, list[str]]:
    d = tmp_path_factory.mktemp("signal")
    hyps = []
    refs = []
    for i in range(6):
        # Three pairs too short for STOI (29 STFT frames of the 30 pystoi needs): the counts merge too.
        seconds = 0.4 if i < 3 else 0.5
        ref = glide(120 + 15 * i, 220 + 10 * i, seconds=seconds)
        hyp = glide((120 + 15 * i) * 1.03, (220 + 10 * i) * 1.03, seconds=seconds) if i % 2 else ref
        hyp = hyp + noise_at_snr(ref, 5.0 + 3 * i, seed=i)
        hyps.append(write_wav(d / f"hyp{i}.wav", hyp, subtype="PCM_16"))
        refs.append(write_wav(d / f"ref{i}.wav", ref, subtype="PCM_16"))
    return {"hyp": hyps, "ref": refs}


def every_measure() -> SignalMetrics:
    return SignalMetrics(list(MEASURES), f0_method="dio")


@pytest.fixture(scope="module")
def signal_single(signal_files) -> dict:
    metric = every_measure()
    metric.update(**signal_files)
    return metric.compute()


@settings(max_examples=5, deadline=None)
@given(assignment=st.lists(st.integers(0, 3), min_size=6, max_size=6), reverse=st.booleans())
def test_signal_metrics_merged_shards_equal_one_run_exactly(signal_files, signal_single, assignment, reverse):
    result = merged_result(every_measure, signal_files, assignment, reverse)
    assert set(result) == set(MEASURES) | {"stoi_undefined", "estoi_undefined"}
    assert result["stoi_undefined"] == result["estoi_undefined"] == 3
    assert result == signal_single
