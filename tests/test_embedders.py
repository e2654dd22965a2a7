"""The Resemblyzer embedder on real speech from espeak-ng: same voice scores higher than another voice.

Directly, and as ``SpeakerSimilarity()``'s default embedder reading SCP files.
"""

from __future__ import annotations

import pickle
import shutil
import subprocess

import numpy as np
import pytest
import soundfile as sf
import torch

from lightscore.audio.embedders import EMBEDDERS, ResemblyzerEmbedder, resemblyzer_embedder
from lightscore.metrics.audio import SpeakerSimilarity

SENTENCES = (
    "The quick brown fox jumps over the lazy dog near the quiet river bank.",
    "Please call Stella and ask her to bring these things with her from the store.",
)
VOICES = ("en-us+m3", "en-us+f4")


@pytest.fixture(scope="module")
def speech_files(tmp_path_factory) -> dict[tuple[str, int], str]:
    """Each voice speaking each sentence, as the WAV espeak-ng wrote (22050 Hz): (voice, sentence) -> path."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (Debian: apt-get install espeak-ng); it makes the test speech")
    folder = tmp_path_factory.mktemp("espeak")
    paths = {}
    for voice in VOICES:
        for index, sentence in enumerate(SENTENCES):
            path = folder / f"{voice}_{index}.wav"
            subprocess.run(["espeak-ng", "-v", voice, "-w", str(path), sentence], check=True, capture_output=True)
            paths[voice, index] = str(path)
    return paths


@pytest.fixture(scope="module")
def speech(speech_files) -> dict[tuple[str, int], tuple[torch.Tensor, int]]:
    """The same speech read back: (voice, sentence) -> (wave, rate)."""
    waves = {}
    for key, path in speech_files.items():
        data, rate = sf.read(path, dtype="float32")
        waves[key] = (torch.from_numpy(data), rate)
    return waves


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_same_speaker_scores_higher_than_another(speech):
    embed = resemblyzer_embedder()
    embeddings = {key: embed(wave, rate) for key, (wave, rate) in speech.items()}
    male, female = VOICES
    for voice, other in ((male, female), (female, male)):
        same = cosine(embeddings[voice, 0], embeddings[voice, 1])
        different = cosine(embeddings[voice, 0], embeddings[other, 1])
        assert same > different + 0.05, (voice, same, different)
    assert embeddings[male, 0].shape == (256,)


def test_resampling_and_stereo_keep_the_embedding(speech):
    wave, rate = speech[VOICES[0], 0]
    assert rate != 16000  # espeak-ng writes 22050 Hz: the embedder resamples
    embed = resemblyzer_embedder()
    mono = embed(wave, rate)
    stereo = embed(torch.stack([wave, wave]), rate)
    np.testing.assert_allclose(stereo, mono, atol=1e-6)


def test_pickles_small_and_rebuilds_the_same_encoder(speech):
    wave, rate = speech[VOICES[1], 0]
    embed = resemblyzer_embedder()
    before = embed(wave, rate)
    copy = pickle.loads(pickle.dumps(embed))
    assert isinstance(copy, ResemblyzerEmbedder) and copy._encoder is None
    np.testing.assert_allclose(copy(wave, rate), before, atol=1e-6)
    assert EMBEDDERS["resemblyzer"] is resemblyzer_embedder


@pytest.mark.parametrize(
    ("wave", "message"),
    [
        (torch.zeros(16000), "silent"),
        (torch.full((16000,), float("nan")), "non-finite"),
        (torch.zeros(2, 3, 4), "must be 1-D or \\(channels, time\\)"),
    ],
)
def test_bad_waveform_is_a_value_error(wave, message):
    with pytest.raises(ValueError, match=message):
        resemblyzer_embedder()(wave, 16000)


def test_speaker_similarity_defaults_to_resemblyzer_and_ranks_the_same_voice_higher(speech_files, tmp_path):
    male, female = VOICES
    target = {"same": speech_files[male, 0], "other": speech_files[male, 0]}
    hyp = {"same": speech_files[male, 1], "other": speech_files[female, 1]}
    scp = {}
    for name, rows in (("target", target), ("hyp", hyp)):
        scp[name] = tmp_path / f"{name}.scp"
        scp[name].write_text("".join(f"{utt} {path}\n" for utt, path in rows.items()))
    metric = SpeakerSimilarity()
    assert type(metric.embedder) is ResemblyzerEmbedder
    both = metric(scp, "test")["spk_sim"]

    def one(utt: str) -> float:
        lines = {name: tmp_path / f"{name}_{utt}.scp" for name in scp}
        for name, rows in (("target", target), ("hyp", hyp)):
            lines[name].write_text(f"{utt} {rows[utt]}\n")
        return SpeakerSimilarity()(lines, "test")["spk_sim"]

    same, other = one("same"), one("other")
    assert same > other + 0.05 and 0.5 < same < 1.0, (same, other)
    assert both == pytest.approx((same + other) / 2, abs=1e-9)  # the mean over utterances, read at 16 kHz


# -- a _target_ embedder goes through the checked resolution (core/targets.build_target) ----------


def test_a_target_that_is_no_embedder_is_refused_before_it_is_called(tmp_path):
    victim = tmp_path / "keep.wav"
    victim.write_bytes(b"a file the config must not touch")
    with pytest.raises(
        TypeError, match=r"embedder: _target_ os.remove is not a class with __call__ .*refused, not called"
    ):
        SpeakerSimilarity({"_target_": "os.remove", "path": str(victim)})
    assert victim.read_bytes() == b"a file the config must not touch"


def test_an_embedder_target_that_cannot_be_imported_is_one_clear_line():
    with pytest.raises(
        ValueError, match=r"^embedder: cannot import _target_ my_recipe.NoSuchEmbedder: \w+Error: [^\n]*$"
    ):
        SpeakerSimilarity({"_target_": "my_recipe.NoSuchEmbedder"})


def test_an_embedder_class_from_a_target_is_built_with_its_arguments():
    embedder = SpeakerSimilarity({"_target_": "lightscore.audio.embedders.ResemblyzerEmbedder", "device": "cpu"})
    assert isinstance(embedder.embedder, ResemblyzerEmbedder) and embedder.embedder.device == "cpu"
