"""SpeakerSimilarity on real WAV files, and measure() scoring it with SignalMetrics from a metrics.yaml.

The speaker embedder is a real (tiny, deterministic) one: the mean MFCC vector.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile
import torch
import torchaudio
from audio_signals import (
    RATE,
    harmonic,
    merged_result,
    noise_at_snr,
    one_torch_thread,  # noqa: F401  (autouse: the fixture applies to this module)
    times,
    write_scp,
    write_wav,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from lightscore.metrics.audio import SpeakerSimilarity

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
