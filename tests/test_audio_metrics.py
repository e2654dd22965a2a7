"""SignalMetrics and SpeakerSimilarity on real WAV files written here with soundfile.

The signals are built so that the right answer is known in advance: noise scaled
to an exact power ratio, tones at known pitches, identical files. The speaker
embedder is a real (tiny, deterministic) one: the mean MFCC vector.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
import soundfile
import torch
import torchaudio
from hypothesis import given, settings
from hypothesis import strategies as st

from lightscore.audio import speech_quality as sq
from lightscore.audio import world_pitch
from lightscore.audio.files import read_audio
from lightscore.audio.signal import MAX_DB
from lightscore.metrics.audio import MEASURES, SignalMetrics, SpeakerSimilarity

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


# -- SignalMetrics: reading --------------------------------------------------------


def test_an_8khz_hyp_beside_16khz_refs_is_resampled(tmp_path):
    ref = 0.5 * np.sin(2 * np.pi * 440 * times(1.0, 16000))
    hyp = 0.5 * np.sin(2 * np.pi * 440 * times(1.0, 8000))
    data = {
        "hyp": write_scp(tmp_path / "hyp.scp", {"u1": write_wav(tmp_path / "hyp.wav", hyp, 8000)}),
        "ref": write_scp(tmp_path / "ref.scp", {"u1": write_wav(tmp_path / "ref.wav", ref, 16000)}),
    }
    # Read as is, hyp would be half as long as ref: a 50% mismatch, an error.
    assert read_audio(tmp_path / "hyp.wav", 1, 16000).shape == (16000,)
    assert SignalMetrics(["snr"])(data, "test")["snr"] > 40
    assert SignalMetrics(["snr"], sample_rate=8000)(data, "test")["snr"] > 40


def test_stereo_under_channels_1_reads_the_first_channel(tmp_path):
    left = 0.5 * np.sin(2 * np.pi * 220 * times(1.0))
    right = np.random.default_rng(0).standard_normal(left.shape) * 0.3
    result = score(SignalMetrics(["snr"]), tmp_path, hyp=[np.stack([left, right])], ref=[left])
    assert result["snr"] == MAX_DB


def test_stereo_under_channels_none_scores_each_channel_and_averages(tmp_path):
    left = 0.5 * np.sin(2 * np.pi * 220 * times(1.0))
    right = 0.5 * np.sin(2 * np.pi * 330 * times(1.0))
    hyp = np.stack([left + noise_at_snr(left, 20.0, seed=1), right + noise_at_snr(right, 10.0, seed=2)])
    result = score(SignalMetrics(["snr"], channels=None), tmp_path, hyp=[hyp], ref=[np.stack([left, right])])
    assert result["snr"] == pytest.approx(15.0, abs=0.1)
    assert SignalMetrics(["snr"], channels=None).inputs[0].channels is None


def test_channels_none_with_a_mono_ref_is_an_error_naming_the_utterance(tmp_path):
    left = 0.5 * np.sin(2 * np.pi * 220 * times(0.5))
    with pytest.raises(ValueError, match=r"utterance 'utt0' .*hyp has 2 channel\(s\) and ref 1"):
        score(SignalMetrics(["snr"], channels=None), tmp_path, hyp=[np.stack([left, left])], ref=[left])


def test_channels_2_with_a_mono_file_is_an_error_naming_the_file_and_utterance(tmp_path):
    left = 0.5 * np.sin(2 * np.pi * 220 * times(0.5))
    with pytest.raises(ValueError, match=r"utterance 'utt0'.*ref/utt0.wav has 1 channel\(s\), but 2 are declared"):
        score(SignalMetrics(["snr"], channels=2), tmp_path, hyp=[np.stack([left, left])], ref=[left])


# -- SignalMetrics: errors ---------------------------------------------------------


def test_unknown_measure_lists_the_known_ones():
    known = "known: si_snr, snr, sdr, lsd, mcd, f0_rmse, f0_corr"
    with pytest.raises(ValueError, match=f"unknown measure.*'pesq'.*{known}"):
        SignalMetrics(["snr", "pesq"])


@pytest.mark.parametrize("bad", ["snr", [], ["snr", "snr"]])
def test_score_config_must_be_a_list_of_distinct_names(bad):
    with pytest.raises((TypeError, ValueError), match="score_config"):
        SignalMetrics(bad)


def test_ref_is_required_by_reference_measures(tmp_path):
    metric = SignalMetrics(["snr"])
    assert [(f.name, f.optional) for f in metric.inputs] == [("hyp", False), ("ref", False)]
    with pytest.raises(ValueError, match="required input 'ref' is missing"):
        metric.update(hyp=[write_wav(tmp_path / "a.wav", np.zeros(1600))])


def test_a_length_mismatch_over_10_percent_names_the_utterance(tmp_path):
    wave = 0.5 * np.sin(2 * np.pi * 220 * times(1.0))
    trimmed = score(SignalMetrics(["snr"]), tmp_path / "ok", hyp=[wave[:15000]], ref=[wave])
    assert trimmed["snr"] == MAX_DB  # 6% shorter: trimmed, not an error
    with pytest.raises(ValueError, match=r"utterance 'utt0' .*hyp has 12000 samples and ref 16000.*25\.0%"):
        score(SignalMetrics(["snr"]), tmp_path / "bad", hyp=[wave[:12000]], ref=[wave])


def test_an_unreadable_wav_names_the_file_and_the_utterance(tmp_path):
    ref = write_scp(tmp_path / "ref.scp", {"u7": write_wav(tmp_path / "ref.wav", np.zeros(1600))})
    hyp = write_scp(tmp_path / "hyp.scp", {"u7": str(tmp_path / "missing.wav")})
    with pytest.raises(ValueError, match=r"utterance 'u7' .*cannot read .*missing\.wav"):
        SignalMetrics(["snr"])({"hyp": hyp, "ref": ref}, "test")


def test_outside_call_errors_name_the_row_and_files(tmp_path):
    ref = write_wav(tmp_path / "ref.wav", np.zeros(1600))
    with pytest.raises(ValueError, match=r"row 0 of the batch: hyp .*nowhere\.wav, ref .*ref\.wav"):
        SignalMetrics(["snr"]).update(hyp=[str(tmp_path / "nowhere.wav")], ref=[ref])


def test_compute_with_nothing_scored_is_an_error():
    with pytest.raises(ValueError, match="no utterance was scored"):
        SignalMetrics(["snr"]).compute()


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


@pytest.fixture(scope="module")
def signal_files(tmp_path_factory) -> dict[str, list[str]]:
    d = tmp_path_factory.mktemp("signal")
    hyps, refs = [], []
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


# -- SpeakerSimilarity -------------------------------------------------------------


class MeanMfcc:
    """A tiny deterministic speaker embedder: the mean over time of ``n_mfcc`` MFCCs.

    Mel bands stop at 3.8 kHz, so an 8 kHz file embeds like the same sound at 16 kHz.
    """

    def __init__(self, n_mfcc: int = 20) -> None:
        self.n_mfcc = n_mfcc

    def __call__(self, wave: torch.Tensor, rate: int) -> torch.Tensor:
        melkwargs = {"n_fft": 512, "hop_length": rate // 100, "n_mels": 40, "f_max": 3800}
        return torchaudio.transforms.MFCC(rate, n_mfcc=self.n_mfcc, melkwargs=melkwargs)(wave).mean(dim=-1)


def mean_mfcc(wave: torch.Tensor, rate: int) -> torch.Tensor:
    """The same embedder as a plain function (for ``_target_`` with ``_partial_: true``)."""
    return MeanMfcc()(wave, rate)


def expected_similarity(hyp: str, other: str) -> float:
    """Cosine of the embeddings of two 16 kHz files, computed here without the metric."""
    a, b = (mean_mfcc(torch.from_numpy(soundfile.read(p, dtype="float32")[0]), RATE) for p in (hyp, other))
    return torch.nn.functional.cosine_similarity(a.double(), b.double(), dim=0).item()


@pytest.fixture(scope="module")
def voices(tmp_path_factory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("voices")
    return {
        "a": write_wav(d / "a.wav", harmonic(120, tilt=1.0)),
        "a_again": write_wav(d / "a_again.wav", harmonic(126, tilt=1.0)),
        "a_8k": write_wav(d / "a_8k.wav", harmonic(120, rate=8000, tilt=1.0), rate=8000),
        "b": write_wav(d / "b.wav", harmonic(230, tilt=0.2)),
    }


def test_speaker_similarity_is_the_mean_cosine_of_the_embeddings(voices):
    metric = SpeakerSimilarity(MeanMfcc())
    metric.update(target=[voices["a"], voices["a"]], hyp=[voices["a_again"], voices["b"]])
    expected = (expected_similarity(voices["a_again"], voices["a"]) + expected_similarity(voices["b"], voices["a"])) / 2
    assert metric.compute() == {"spk_sim": pytest.approx(expected, abs=1e-9)}


def test_the_same_voice_is_more_similar_than_another(voices):
    def spk_sim(hyp: str) -> float:
        metric = SpeakerSimilarity(mean_mfcc)
        metric.update(target=[voices["a"]], hyp=[hyp])
        return metric.compute()["spk_sim"]

    assert spk_sim(voices["a"]) == pytest.approx(1.0, abs=1e-12)
    assert spk_sim(voices["b"]) < spk_sim(voices["a_again"]) < 1.0


def test_spk_sim_ref_only_when_ref_is_bound_and_8khz_is_resampled(voices):
    metric = SpeakerSimilarity(MeanMfcc())
    metric.update(target=[voices["b"]], hyp=[voices["a"]], ref=[voices["a_8k"]])
    result = metric.compute()
    assert set(result) == {"spk_sim", "spk_sim_ref"}
    # The 8 kHz file holds the same tone below 3.5 kHz: once resampled it embeds almost like the 16 kHz one.
    assert result["spk_sim_ref"] > 0.99 > result["spk_sim"]


@pytest.mark.parametrize(
    "config",
    [
        {"_target_": f"{__name__}.MeanMfcc", "n_mfcc": 20},
        {"_target_": f"{__name__}.mean_mfcc", "_partial_": True},
    ],
    ids=["class", "function"],
)
def test_embedder_from_a_target_config(voices, config):
    metric = SpeakerSimilarity(config)
    metric.update(target=[voices["a"]], hyp=[voices["b"]])
    assert metric.compute()["spk_sim"] == pytest.approx(expected_similarity(voices["b"], voices["a"]), abs=1e-9)


def test_embedder_errors():
    with pytest.raises(TypeError, match="unknown embedder 'ecapa'; known names: resemblyzer"):
        SpeakerSimilarity("ecapa")
    with pytest.raises(TypeError, match="embedder must be a name, a callable"):
        SpeakerSimilarity(42)
    with pytest.raises(TypeError, match="has no _target_"):
        SpeakerSimilarity({"n_mfcc": 20})


def test_a_bad_embedding_names_the_utterance(voices, tmp_path):
    target = write_scp(tmp_path / "target.scp", {"spk1-u3": voices["a"]})
    hyp = write_scp(tmp_path / "hyp.scp", {"spk1-u3": voices["b"]})
    metric = SpeakerSimilarity(lambda wave, rate: torch.zeros(3, 4))
    with pytest.raises(ValueError, match=r"utterance 'spk1-u3' .*returned \(3, 4\) for target"):
        metric({"target": target, "hyp": hyp}, "test")


@settings(max_examples=10, deadline=None)
@given(assignment=st.lists(st.integers(0, 2), min_size=5, max_size=5), reverse=st.booleans())
def test_speaker_similarity_merged_shards_equal_one_run_exactly(voices, assignment, reverse):
    names = ["a", "a_again", "b", "a_8k", "b"]
    inputs = {"target": [voices["a"]] * 5, "hyp": [voices[n] for n in names], "ref": [voices["b"]] * 5}
    single = SpeakerSimilarity(MeanMfcc())
    single.update(**inputs)
    assert merged_result(lambda: SpeakerSimilarity(MeanMfcc()), inputs, assignment, reverse) == single.compute()


# -- measure() with a metrics.yaml -----------------------------------------------


def test_measure_scores_signal_metrics_against_a_dataset_audio_column(tmp_path):
    from lightscore import measure

    exp = tmp_path / "exp"
    clean = {u: 0.5 * np.sin(2 * np.pi * 440 * times(0.5)) for u in ("u1", "u2")}
    hyp_rows = {
        u: write_wav(exp / "dev" / "wav" / f"{u}.wav", wave + noise_at_snr(wave, snr_db, seed=i))
        for i, ((u, wave), snr_db) in enumerate(zip(clean.items(), (10.0, 20.0)))
    }
    write_scp(exp / "dev" / "hyp.scp", hyp_rows)
    config = tmp_path / "metrics.yaml"
    config.write_text(
        f"inference_dir: {exp}\n"
        "dataset:\n"
        "  test:\n"
        "    - name: dev\n"
        "      dataset:\n"
        "        _target_: fixtures_datasets.ToneDataset\n"
        "        ids: [u1, u2]\n"
        "        rate: 8000\n"
        "        freq: 440\n"
        "dataset_artifacts:\n"
        "  speech:\n"
        "    sample_rate: 16000\n"
        "metrics:\n"
        "  - metric:\n"
        "      _target_: lightscore.metrics.audio.SignalMetrics\n"
        "      score_config: [snr, si_snr, lsd]\n"
        "    inputs:\n"
        "      hyp: hyp\n"
        "      ref: dataset:speech\n"
        "  - metric:\n"
        "      _target_: lightscore.metrics.audio.SpeakerSimilarity\n"
        f"      embedder: {{_target_: {__name__}.MeanMfcc}}\n"
        "    inputs:\n"
        "      target: dataset:speech\n"
        "      hyp: hyp\n"
    )
    measure(config)
    written = json.loads((exp / "metrics.json").read_text())
    # The 8 kHz dataset tone was written at 16 kHz; the hyps hold the same tone at 10 and 20 dB SNR.
    signal = written["lightscore.metrics.audio.SignalMetrics"]["dev"]
    assert set(signal) == {"snr", "si_snr", "lsd"}
    assert signal["snr"] == pytest.approx(15.0, abs=0.1)
    assert signal["si_snr"] == pytest.approx(15.0, abs=0.1)
    assert signal["lsd"] > 0
    targets = dict(line.split(None, 1) for line in (exp / "dev" / "dataset" / "speech.scp").read_text().splitlines())
    expected = sum(expected_similarity(hyp_rows[u], targets[u].strip()) for u in ("u1", "u2")) / 2
    speaker = written["lightscore.metrics.audio.SpeakerSimilarity"]["dev"]
    assert speaker == {"spk_sim": pytest.approx(expected, abs=1e-9)}
