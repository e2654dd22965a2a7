"""speech_quality against references computed here the way ESPnet2's scripts and the packages compute them.

The references read the same PCM_16 WAV files as int16 (as ESPnet's
``evaluate_mcd.py`` and ``evaluate_f0.py`` do) and call pysptk, pyworld and
fastdtw directly; the measures get the float samples soundfile returns.
"""

from __future__ import annotations

import numpy as np
import pesq
import pysptk
import pystoi
import pytest
import pyworld
import scipy.stats
import soundfile as sf
import torch
import torchaudio
from fastdtw import fastdtw
from scipy import spatial

from lightscore.audio import speech_quality as sq

SIGNAL_MEASURES = [sq.mcd_dtw, sq.f0_rmse_dtw, sq.log_f0_rmse_dtw, sq.f0_corr_dtw, sq.vde]
PACKAGE_MEASURES = [sq.pesq_wb, sq.pesq_nb, sq.stoi, sq.estoi]


def voice(rate: int, seconds: float, f0: float, vibrato_hz: float, seed: int) -> np.ndarray:
    """A harmonic tone with vibrato, two pauses and a little noise: voiced and unvoiced frames, speech-like."""
    t = np.arange(int(seconds * rate)) / rate
    pitch = f0 * (1 + 0.06 * np.sin(2 * np.pi * vibrato_hz * t))
    phase = 2 * np.pi * np.cumsum(pitch) / rate
    harmonics = sum(np.sin(k * phase) / k for k in range(1, 12))
    gate = (np.sin(2 * np.pi * t / seconds * 2 + 0.3) > -0.5).astype(float)
    noise = np.random.default_rng(seed).standard_normal(t.size)
    return 0.25 * harmonics * gate + 0.003 * noise


def write_pair(tmp_path, rate: int) -> tuple:
    """hyp and ref WAVs (PCM_16) of different lengths and pitch contours; return both paths."""
    hyp_path = tmp_path / f"hyp{rate}.wav"
    ref_path = tmp_path / f"ref{rate}.wav"
    sf.write(hyp_path, voice(rate, 1.4, 135.0, 5.0, seed=1), rate, subtype="PCM_16")
    sf.write(ref_path, voice(rate, 1.6, 120.0, 4.0, seed=2), rate, subtype="PCM_16")
    return hyp_path, ref_path


def read_float(path) -> tuple[np.ndarray, int]:
    wave, rate = sf.read(path)
    return wave, rate


def espnet_mcep(x: np.ndarray, rate: int) -> np.ndarray:
    """ESPnet's sptk_extract with the recipes' defaults (n_fft 1024, n_shift 256, order and alpha per rate)."""
    order, alpha = {16000: (23, 0.42), 22050: (34, 0.45)}[rate]
    n_frame = (len(x) - 1024) // 256 + 1
    win = pysptk.sptk.hamming(1024)
    return np.stack(
        [pysptk.mcep(x[256 * i : 256 * i + 1024] * win, order, alpha, eps=1e-6, etype=1) for i in range(n_frame)]
    )


def espnet_world(x: np.ndarray, rate: int, method: str) -> tuple[np.ndarray, np.ndarray]:
    """ESPnet's world_extract (harvest, 40-800 Hz, 256-sample frames), with dio + stonemask as the other method."""
    order, alpha = {16000: (23, 0.42), 22050: (34, 0.45)}[rate]
    x = x.astype(np.float64)
    if method == "harvest":
        f0, times = pyworld.harvest(x, rate, f0_floor=40, f0_ceil=800, frame_period=256 / rate * 1000)
    else:
        f0, times = pyworld.dio(x, rate, f0_floor=40, f0_ceil=800, frame_period=256 / rate * 1000)
        f0 = pyworld.stonemask(x, f0, times, rate)
    sp = pyworld.cheaptrick(x, f0, times, rate, fft_size=1024)
    return pysptk.sp2mc(sp, order, alpha), f0


@pytest.mark.parametrize("rate", [16000, 22050])
def test_mcd_dtw_equals_espnet(tmp_path, rate):
    hyp_path, ref_path = write_pair(tmp_path, rate)
    gen_mcep = espnet_mcep(sf.read(hyp_path, dtype="int16")[0], rate)
    gt_mcep = espnet_mcep(sf.read(ref_path, dtype="int16")[0], rate)
    _, path = fastdtw(gen_mcep, gt_mcep, dist=spatial.distance.euclidean)
    twf = np.array(path).T
    diff2sum = np.sum((gen_mcep[twf[0]] - gt_mcep[twf[1]]) ** 2, 1)
    expected = np.mean(10.0 / np.log(10.0) * np.sqrt(2 * diff2sum), 0)

    value = sq.mcd_dtw(read_float(hyp_path)[0], read_float(ref_path)[0], rate)
    assert value == pytest.approx(expected, abs=1e-6)
    assert 2.0 < value < 30.0  # different pitch contours: a real distortion, not a degenerate 0 or inf


@pytest.mark.parametrize(("rate", "method"), [(16000, "harvest"), (22050, "dio")])
def test_world_f0_measures_equal_espnet(tmp_path, rate, method):
    hyp_path, ref_path = write_pair(tmp_path, rate)
    gen_mcep, gen_f0 = espnet_world(sf.read(hyp_path, dtype="int16")[0], rate, method)
    gt_mcep, gt_f0 = espnet_world(sf.read(ref_path, dtype="int16")[0], rate, method)
    _, path = fastdtw(gen_mcep, gt_mcep, dist=spatial.distance.euclidean)
    twf = np.array(path).T
    gen_f0_dtw = gen_f0[twf[0]]
    gt_f0_dtw = gt_f0[twf[1]]
    both = (gen_f0_dtw != 0) & (gt_f0_dtw != 0)
    expected_log_rmse = np.sqrt(np.mean((np.log(gen_f0_dtw[both]) - np.log(gt_f0_dtw[both])) ** 2))
    expected_rmse = np.sqrt(np.mean((gen_f0_dtw[both] - gt_f0_dtw[both]) ** 2))
    expected_corr = scipy.stats.pearsonr(gen_f0_dtw[both], gt_f0_dtw[both])[0]
    expected_vde = np.mean((gen_f0_dtw != 0) != (gt_f0_dtw != 0))

    hyp = read_float(hyp_path)[0]
    ref = read_float(ref_path)[0]
    measures = sq.world_f0_measures(hyp, ref, rate, method)
    assert measures["log_f0_rmse"] == pytest.approx(expected_log_rmse, abs=1e-6)
    assert measures["f0_rmse"] == pytest.approx(expected_rmse, abs=1e-6)
    assert measures["f0_corr"] == pytest.approx(expected_corr, abs=1e-6)
    assert measures["vde"] == pytest.approx(expected_vde, abs=1e-6)
    # The tones differ by 135 vs 120 Hz: about 15 Hz apart, a log ratio near ln(135/120) = 0.118.
    assert 5.0 < measures["f0_rmse"] < 30.0 and 0.04 < measures["log_f0_rmse"] < 0.25
    assert 0 < both.sum() < len(both)  # voiced and unvoiced frames were both there to compare


def test_single_f0_functions_return_the_shared_values(tmp_path):
    hyp_path, ref_path = write_pair(tmp_path, 16000)
    hyp = read_float(hyp_path)[0]
    ref = read_float(ref_path)[0]
    measures = sq.world_f0_measures(hyp, ref, 16000, "dio")
    assert sq.f0_rmse_dtw(hyp, ref, 16000, "dio") == measures["f0_rmse"]
    assert sq.log_f0_rmse_dtw(hyp, ref, 16000, "dio") == measures["log_f0_rmse"]
    assert sq.f0_corr_dtw(hyp, ref, 16000, "dio") == measures["f0_corr"]
    assert sq.vde(hyp, ref, 16000, "dio") == measures["vde"]


def test_world_mcep_equals_pysptk_sp2mc():
    wave = voice(16000, 0.5, 150.0, 5.0, seed=3) * 32768
    f0, mcep = sq.world_f0(wave, 16000, "dio")
    times = np.arange(f0.size) * 256 / 16000
    sp = pyworld.cheaptrick(wave, f0, times, 16000, fft_size=1024)
    np.testing.assert_allclose(mcep, pysptk.sp2mc(sp, 23, 0.42), rtol=0, atol=1e-9)


@pytest.mark.parametrize("rate", [16000, 22050])
def test_pesq_and_stoi_equal_the_packages(rate):
    ref = voice(rate, 2.0, 130.0, 4.0, seed=4)
    hyp = ref + 0.02 * np.random.default_rng(5).standard_normal(ref.size)

    def at(target: int) -> list[np.ndarray]:
        # lightscore's one resampler is torchaudio's sinc with its defaults, the same as for files it reads.
        if target == rate:
            return [ref, hyp]
        return [torchaudio.functional.resample(torch.from_numpy(x), rate, target).numpy() for x in (ref, hyp)]

    wb = at(16000)
    nb = at(8000)
    assert sq.pesq_wb(hyp, ref, rate) == pesq.pesq(16000, wb[0], wb[1], "wb")
    assert sq.pesq_nb(hyp, ref, rate) == pesq.pesq(8000, nb[0], nb[1], "nb")
    # pystoi itself varies in the last bit from call to call (its numpy sums depend on memory alignment).
    assert sq.stoi(hyp, ref, rate) == pytest.approx(pystoi.stoi(ref, hyp, rate), rel=1e-12)
    assert sq.estoi(hyp, ref, rate) == pytest.approx(pystoi.stoi(ref, hyp, rate, extended=True), rel=1e-12)
    assert 1.0 < sq.pesq_wb(hyp, ref, rate) < 4.6 and 0.3 < sq.stoi(hyp, ref, rate) < 1.0


def test_cleaner_hypothesis_scores_better():
    ref = voice(16000, 2.0, 130.0, 4.0, seed=6)
    noise = np.random.default_rng(7).standard_normal(ref.size)
    slight = ref + 0.005 * noise
    heavy = ref + 0.2 * noise
    assert sq.mcd_dtw(slight, ref, 16000) < sq.mcd_dtw(heavy, ref, 16000)
    assert sq.pesq_wb(slight, ref, 16000) > sq.pesq_wb(heavy, ref, 16000)
    assert sq.stoi(slight, ref, 16000) > sq.stoi(heavy, ref, 16000)


@pytest.mark.parametrize("measure", SIGNAL_MEASURES + PACKAGE_MEASURES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("which", ["hyp", "ref"])
def test_silent_signal_is_a_value_error(measure, which):
    ref = voice(16000, 1.0, 130.0, 4.0, seed=8)
    pair = {"hyp": ref.copy(), "ref": ref}
    pair[which] = np.zeros_like(ref)
    with pytest.raises(ValueError, match=f"{which} is silent \\(all 16000 samples are zero\\)"):
        measure(pair["hyp"], pair["ref"], 16000)


@pytest.mark.parametrize("measure", SIGNAL_MEASURES + PACKAGE_MEASURES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_sample_is_a_value_error(measure, bad):
    ref = voice(16000, 1.0, 130.0, 4.0, seed=9)
    hyp = ref.copy()
    hyp[123] = bad
    with pytest.raises(ValueError, match="hyp has 1 non-finite sample\\(s\\), the first at index 123"):
        measure(hyp, ref, 16000)


def test_other_bad_input():
    ref = voice(16000, 1.0, 130.0, 4.0, seed=10)
    with pytest.raises(ValueError, match="stoi: hyp has 15000 samples and ref 16000; they must be equal"):
        sq.stoi(ref[:15000], ref, 16000)
    with pytest.raises(ValueError, match="no ESPnet mel-cepstrum setting for 8000 Hz"):
        sq.mcd_dtw(ref, ref, 8000)
    with pytest.raises(ValueError, match="mcd_dtw: the signal has 500 samples, fewer than one 1024-sample"):
        sq.mcd_dtw(ref[:500], ref, 16000)
    with pytest.raises(ValueError, match="unknown F0 method 'crepe'"):
        sq.vde(ref, ref, 16000, "crepe")
    with pytest.raises(ValueError, match="must be a non-empty 1-D signal, got shape \\(2, 16000\\)"):
        sq.pesq_wb(np.stack([ref, ref]), ref, 16000)


def test_f0_undefined_without_voiced_frames_in_both():
    rate = 16000
    ref = voice(rate, 1.0, 130.0, 4.0, seed=11)
    hiss = 0.1 * np.random.default_rng(12).standard_normal(ref.size)
    measures = sq.world_f0_measures(hiss, ref, rate, "dio")
    assert measures["f0_rmse"] is None and measures["f0_corr"] is None
    assert measures["vde"] > 0.5  # the voiced frames of ref are unvoiced in the hiss
    with pytest.raises(ValueError, match="f0_rmse is undefined for this pair: no aligned frame is voiced in both"):
        sq.f0_rmse_dtw(hiss, ref, rate, "dio")
