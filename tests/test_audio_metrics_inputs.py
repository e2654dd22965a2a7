"""SignalMetrics on real WAV files: how it reads them (resampling, channels) and every error it raises."""

from __future__ import annotations

import numpy as np
import pytest
from audio_signals import (
    noise_at_snr,
    one_torch_thread,  # noqa: F401  (autouse: the fixture applies to this module)
    score,
    times,
    write_scp,
    write_wav,
)

from lightscore.audio.files import read_audio
from lightscore.audio.signal import MAX_DB
from lightscore.metrics.audio import SignalMetrics

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
