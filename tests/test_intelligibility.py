"""Intelligibility: espeak-ng speech recognized by PocketSphinx, scored by lightscore's WER/CER."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf
from ddp_scripts.audio_quality_ddp import ESPEAK, NO_ESPEAK, SENTENCES, speak

from lightscore.audio.recognizers import PocketsphinxRecognizer, build_recognizer
from lightscore.metrics import CER, WER
from lightscore.metrics.intelligibility import Intelligibility

pocketsphinx = pytest.importorskip("pocketsphinx")
needs_espeak = pytest.mark.skipif(ESPEAK is None, reason=NO_ESPEAK)


def pocketsphinx_alone(path) -> str:
    """PocketSphinx's own transcript: a fresh decoder with its default model on the file's 16-bit samples."""
    samples, rate = sf.read(path, dtype="int16")
    decoder = pocketsphinx.Decoder(samprate=rate, loglevel="FATAL")
    decoder.start_utt()
    decoder.process_raw(samples.tobytes(), full_utt=True)
    decoder.end_utt()
    return decoder.hyp().hypstr if decoder.hyp() else ""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("speech")
    rows = {}
    for k, sentence in enumerate(SENTENCES):
        speak(sentence, root / f"u{k}.wav")
        if k < 2:  # noisy speech is slow to decode: two files show it
            speak(sentence, root / f"u{k}_noisy.wav", noise=0.5, seed=k)
        rows[f"spk{k % 2}-u{k}"] = (sentence, root / f"u{k}.wav", root / f"u{k}_noisy.wav")
    files = {"ref": root / "ref.scp", "hyp": root / "hyp.scp", "noisy": root / "noisy.scp"}
    files["ref"].write_text("".join(f"{utt} {text.upper()}\n" for utt, (text, _, _) in rows.items()))
    files["hyp"].write_text("".join(f"{utt} {clean}\n" for utt, (_, clean, _) in rows.items()))
    two = list(rows.items())[:2]
    files["noisy"].write_text("".join(f"{utt} {noisy}\n" for utt, (_, _, noisy) in two))
    files["ref2"] = root / "ref2.scp"
    files["ref2"].write_text("".join(f"{utt} {text}\n" for utt, (text, _, _) in two))
    return {"rows": rows, **files}


@pytest.fixture(scope="module")
def alone(corpus: dict) -> list[str]:
    """PocketSphinx's own transcripts of the clean files, in corpus order."""
    return [pocketsphinx_alone(clean) for _, clean, _ in corpus["rows"].values()]


@needs_espeak
@pytest.mark.slow
def test_counts_equal_wer_of_pocketsphinx_alone_and_noise_scores_worse(corpus: dict, alone: list[str]) -> None:
    metric = Intelligibility(case="fold", per_utterance=True)
    result = metric({"ref": corpus["ref"], "hyp": corpus["hyp"]}, "dev")
    expected = WER(case="fold")
    expected.update(ref=[text.upper() for text, _, _ in corpus["rows"].values()], hyp=alone)
    assert result == expected.compute()
    assert metric.state()["substitutions"] == expected.state()["substitutions"]
    assert [r.utt_id for r in metric.utterance_records()] == sorted(corpus["rows"])
    noisy = Intelligibility(case="fold")({"ref": corpus["ref2"], "hyp": corpus["noisy"]}, "dev")
    clean = WER(case="fold")
    clean.update(ref=[text for text, _, _ in list(corpus["rows"].values())[:2]], hyp=alone[:2])
    assert noisy["WER"] > clean.compute()["WER"] + 10, (noisy, clean.compute())


@needs_espeak
@pytest.mark.slow
def test_transcripts_do_not_depend_on_the_files_before(corpus: dict, alone: list[str]) -> None:
    recognizer = PocketsphinxRecognizer()
    waves = [sf.read(clean, dtype="float32")[0] for _, clean, _ in list(corpus["rows"].values())[:2]]
    backward = [recognizer(wave, 16000) for wave in waves[::-1]][::-1]  # the second file first
    assert backward == alone[:2]


@needs_espeak
def test_cer_with_interval_and_a_normalizer(corpus: dict, alone: list[str]) -> None:
    # PocketSphinx's transcripts, looked up by length: this test is about the error-rate options
    lengths = [sf.info(clean).frames for _, clean, _ in corpus["rows"].values()]
    known = dict(zip(lengths, alone))
    data = {"ref": corpus["ref"], "hyp": corpus["hyp"]}
    metric = Intelligibility(
        lambda wave, rate: known[wave.size], "CER", normalize="whisper_english", ci=0.9, bootstrap=200
    )
    result = metric(data, "dev")
    expected = CER(normalize="whisper_english")
    expected.update(ref=[text.upper() for text, _, _ in corpus["rows"].values()], hyp=alone)
    assert {k: v for k, v in result.items() if "_ci_" not in k} == expected.compute()
    assert result["CER_ci_low"] <= result["CER"] <= result["CER_ci_high"]


def test_a_recognizer_from_a_callable_or_a_checked_target(tmp_path) -> None:
    sf.write(tmp_path / "a.wav", np.full(1600, 0.1), 16000)
    (tmp_path / "ref.scp").write_text("u1 a b c\n")
    (tmp_path / "hyp.scp").write_text(f"u1 {tmp_path / 'a.wav'}\n")
    data = {"ref": tmp_path / "ref.scp", "hyp": tmp_path / "hyp.scp"}
    assert Intelligibility(recognizer=lambda wave, rate: "a b")(data, "dev")["WER_del"] == 1
    config = {"_target_": "lightscore.audio.recognizers.PocketsphinxRecognizer", "samprate": 16000}
    assert build_recognizer(config).config == {"samprate": 16000}
    with pytest.raises(TypeError, match="_target_ shutil.rmtree is not a recognizer class.*refused, not called"):
        Intelligibility(recognizer={"_target_": "shutil.rmtree", "path": str(tmp_path)})
    assert (tmp_path / "a.wav").exists()


def test_bad_input_names_the_utterance_and_file(tmp_path) -> None:
    (tmp_path / "ref.scp").write_text("u1 a b\n")
    (tmp_path / "hyp.scp").write_text(f"u1 {tmp_path / 'missing.wav'}\n")
    data = {"ref": tmp_path / "ref.scp", "hyp": tmp_path / "hyp.scp"}
    with pytest.raises(ValueError, match=r"Intelligibility: utterance 'u1'.*cannot read .*missing.wav"):
        Intelligibility(recognizer=lambda wave, rate: "")(data, "dev")
    sf.write(tmp_path / "missing.wav", np.full(1600, 0.1), 16000)
    with pytest.raises(ValueError, match=r"utterance 'u1'.*the recognizer returned int, not text"):
        Intelligibility(recognizer=lambda wave, rate: 3)(data, "dev")
    with pytest.raises(ValueError, match="pocketsphinx: the decoder takes 16000 Hz audio, got 8000 Hz"):
        Intelligibility(sample_rate=8000)(data, "dev")
    with pytest.raises(ValueError, match="Intelligibility: rate must be one of WER, CER, got 'TER'"):
        Intelligibility(rate="TER")
