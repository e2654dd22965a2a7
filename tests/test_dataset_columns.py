"""``dataset:<column>`` sources: text inline, audio as real WAV files, ids checked, files cached by fingerprint."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import fixtures_datasets
import numpy as np
import pytest
import soundfile
import torch
import torchaudio.functional

from lightscore import MeasureError, measure
from lightscore.offline.dataset_columns import column_scp, write_column

TESTS_DIR = Path(__file__).parent
WER_KEY = "lightscore.metrics.error_rate.WER"
AUDIO_KEY = "fixtures_datasets.AudioSeconds"
TEXTS = {"u1": "the cat sat", "u2": "a dog"}


def text_dataset(texts=TEXTS, **extra) -> dict:
    return {"_target_": "fixtures_datasets.TextDataset", "texts": dict(texts), **extra}


def tone_dataset(**extra) -> dict:
    return {"_target_": "fixtures_datasets.ToneDataset", "ids": ["u1", "u2"], **extra}


def text_config(root: Path, dataset: dict, **extra) -> dict:
    return {
        "inference_dir": str(root),
        "dataset": {"test": [{"name": "test-clean", "dataset": dataset}]},
        "metrics": [
            {"metric": {"_target_": "lightscore.metrics.WER"}, "inputs": {"ref": "dataset:text", "hyp": "hyp"}}
        ],
        **extra,
    }


def audio_config(root: Path, dataset: dict, sample_rate: int | None = 16000) -> dict:
    artifacts = {"speech": {"sample_rate": sample_rate}} if sample_rate else {}
    return {
        "inference_dir": str(root),
        "dataset": {"test": [{"name": "dev", "dataset": dataset}]},
        "dataset_artifacts": artifacts,
        "metrics": [{"metric": {"_target_": "fixtures_datasets.AudioSeconds"}, "inputs": {"speech": "dataset:speech"}}],
    }


@pytest.fixture
def decode(tmp_path: Path) -> Path:
    root = tmp_path / "decode"
    (root / "test-clean").mkdir(parents=True)
    (root / "test-clean" / "hyp.scp").write_text("u1 the bat sat down\nu2 a dog\n")
    return root


def test_text_column_goes_inline(decode):
    result = measure(text_config(decode, text_dataset()))
    assert result[WER_KEY]["test-clean"]["WER"] == pytest.approx(40.0)
    assert (decode / "test-clean" / "dataset" / "text.scp").read_text() == "u1 the cat sat\nu2 a dog\n"
    assert not (decode / "test-clean" / "dataset" / "text").exists()
    assert not [p for p in (decode / "test-clean" / "dataset").iterdir() if p.name.startswith(".")]


def test_idx_key_names_the_id_field(decode):
    dataset = text_dataset(id_key="key")
    config = text_config(decode, dataset)
    with pytest.raises(MeasureError, match=r"dataset item 0 \(TextDataset\): no id under 'utt_id' \(keys: key, text\)"):
        measure(config)
    config["dataset"]["test"][0]["idx_key"] = "key"
    assert measure(config)[WER_KEY]["test-clean"]["WER"] == pytest.approx(40.0)
    config["dataset"] = {"idx_key": "key", "test": [{"name": "test-clean", "dataset": text_dataset(id_key="key")}]}
    assert measure(config)[WER_KEY]["test-clean"]["WER"] == pytest.approx(40.0)


def test_cached_column_is_reused_while_the_fingerprint_matches(decode):
    fixtures_datasets.TextDataset.builds = 0
    measure(text_config(decode, text_dataset()))
    scp = decode / "test-clean" / "dataset" / "text.scp"
    stamp_before = scp.with_suffix(".fingerprint").read_text()
    measure(text_config(decode, text_dataset()))
    assert fixtures_datasets.TextDataset.builds == 1
    changed = measure(text_config(decode, text_dataset({"u1": "the bat sat down", "u2": "a dog"})))
    assert fixtures_datasets.TextDataset.builds == 2
    assert scp.read_text() == "u1 the bat sat down\nu2 a dog\n"
    assert scp.with_suffix(".fingerprint").read_text() != stamp_before
    assert changed[WER_KEY]["test-clean"]["WER"] == 0.0


def test_a_file_without_its_fingerprint_is_rewritten(tmp_path):
    scp = tmp_path / "dataset" / "text.scp"
    column_scp(tmp_path, "text", {"_target_": "demo"}, lambda: [{"utt_id": "u1", "text": "new"}])
    scp.with_suffix(".fingerprint").unlink()
    scp.write_text("u1 stale\n")
    column_scp(tmp_path, "text", {"_target_": "demo"}, lambda: [{"utt_id": "u1", "text": "new"}])
    assert scp.read_text() == "u1 new\n"


def test_audio_column_is_written_at_the_configured_rate_and_resampled(decode):
    result = measure(audio_config(decode, tone_dataset(rate=8000, seconds=0.5)))
    assert result[AUDIO_KEY]["dev"] == {"seconds": pytest.approx(1.0), "files": 2}
    wav_dir = (decode / "dev" / "dataset" / "speech").resolve()
    lines = (decode / "dev" / "dataset" / "speech.scp").read_text().splitlines()
    assert lines == [f"u1 {wav_dir / 'u1.wav'}", f"u2 {wav_dir / 'u2.wav'}"]
    wave, rate = soundfile.read(wav_dir / "u1.wav", dtype="float32")
    assert rate == 16000 and wave.shape == (8000,)
    source = fixtures_datasets.tone(440, 8000, 0.5).astype(np.float32)
    expected = torchaudio.functional.resample(torch.from_numpy(source), 8000, 16000).numpy()
    np.testing.assert_allclose(wave, expected, atol=2 / 32768)  # PCM_16 quantisation
    # Away from the edges, the resampled tone is the same tone sampled at 16 kHz.
    analytic = fixtures_datasets.tone(440, 16000, 0.5)
    np.testing.assert_allclose(wave[400:-400], analytic[400:-400], atol=5e-3)
    assert np.argmax(np.abs(np.fft.rfft(wave))) * rate / len(wave) == pytest.approx(440, abs=2)


@pytest.mark.parametrize("form", ["tuple", "dict", "torch"])
def test_audio_forms_at_their_own_rate_are_written_unchanged(tmp_path, form):
    scp = tmp_path / "dataset" / "speech.scp"
    dataset = fixtures_datasets.ToneDataset(["u1"], rate=16000, form=form)
    write_column(dataset, "speech", scp, options={"sample_rate": 16000})
    wave, rate = soundfile.read(tmp_path / "dataset" / "speech" / "u1.wav", dtype="float32")
    assert rate == 16000
    np.testing.assert_allclose(wave, fixtures_datasets.tone(440, 16000, 0.5), atol=1 / 32768)


def test_channels_first_audio_keeps_its_channels_and_its_own_rate(tmp_path):
    scp = tmp_path / "dataset" / "speech.scp"
    write_column(fixtures_datasets.ToneDataset(["u1"], rate=8000, channels=2), "speech", scp)
    info = soundfile.info(tmp_path / "dataset" / "speech" / "u1.wav")
    assert (info.samplerate, info.channels, info.frames, info.subtype) == (8000, 2, 4000, "PCM_16")


def test_a_changed_sample_rate_rewrites_the_wavs(decode):
    measure(audio_config(decode, tone_dataset(rate=8000), sample_rate=16000))
    measure(audio_config(decode, tone_dataset(rate=8000), sample_rate=22050))
    assert soundfile.info(decode / "dev" / "dataset" / "speech" / "u2.wav").samplerate == 22050


@pytest.mark.parametrize("bad_id", ["", ".", "..", "a b", "a/b", "a\\b", "../../escape"])
def test_bad_ids_are_refused_before_anything_is_written(tmp_path, bad_id):
    dataset = fixtures_datasets.ToneDataset(["u1", bad_id], rate=8000)
    scp = tmp_path / "dataset" / "speech.scp"
    with pytest.raises(ValueError, match=r"dataset item 1 \(ToneDataset\): utterance id .* is not a plain token"):
        write_column(dataset, "speech", scp, options={"sample_rate": 16000})
    assert [p for p in tmp_path.rglob("*") if not p.is_dir()] == []
    assert not (tmp_path.parent / "escape").exists()


def test_a_rewrite_that_fails_keeps_the_old_files(tmp_path):
    scp = tmp_path / "dataset" / "text.scp"
    write_column([{"utt_id": "u1", "text": "old"}], "text", scp)
    with pytest.raises(ValueError, match="appears twice"):
        write_column([{"utt_id": "u1", "text": "a"}, {"utt_id": "u1", "text": "b"}], "text", scp)
    assert scp.read_text() == "u1 old\n"


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ([{"utt_id": "u1", "txt": "a"}], r"item 0 \(list\), utterance 'u1': no column 'text' \(columns: utt_id, txt\)"),
        ([{"utt_id": "u1", "text": None}], "column 'text' holds a NoneType; expected text, a number"),
        ([{"utt_id": "u1", "text": "a"}, {"utt_id": "u2", "text": (np.zeros(4), 8000)}], "mixes audio and text"),
        ([{"utt_id": "u1", "text": (np.zeros(4, dtype=np.int16), 8000)}], "audio must be a float waveform"),
        ([{"utt_id": "u1", "text": {"array": np.zeros(4), "sampling_rate": 0}}], "rate must be a positive integer"),
        (["u1 a"], r"dataset item 0 \(list\): items must be dicts, got str"),
    ],
)
def test_bad_values_name_the_item_and_utterance(tmp_path, items, message):
    with pytest.raises(ValueError, match=message):
        write_column(items, "text", tmp_path / "dataset" / "text.scp")
    assert not (tmp_path / "dataset" / "text.scp").exists()


def test_numbers_go_inline_as_text(tmp_path):
    scp = write_column([{"utt_id": "u1", "text": 3}, {"utt_id": 7, "text": 0.5}], "text", tmp_path / "text.scp")
    assert scp.read_text() == "u1 3\n7 0.5\n"


def test_dataset_artifacts_options_are_checked(decode):
    config = audio_config(decode, tone_dataset())
    config["dataset_artifacts"] = {"speech": {"sample_rate": 16000, "subtype": "MP3ISH"}}
    with pytest.raises(ValueError, match=r"dataset_artifacts\.speech\.subtype: 'MP3ISH' is not a WAV subtype"):
        measure(config)
    config["dataset_artifacts"] = {"speech": {"rate": 16000}}
    with pytest.raises(ValueError, match=r"dataset_artifacts\.speech: unknown key\(s\) rate"):
        measure(config)


def test_a_dataset_source_needs_a_dataset_config(decode):
    config = text_config(decode, text_dataset())
    del config["dataset"]
    with pytest.raises(ValueError, match=r"source 'dataset:text' needs a dataset config for test set\(s\) test-clean"):
        measure(config)


def test_a_dataset_that_cannot_be_built_fails_its_pairs(decode):
    message = "dataset of test set test-clean: cannot (build|import _target_) fixtures_datasets.Nope"
    with pytest.raises(MeasureError, match=message):
        measure(text_config(decode, {"_target_": "fixtures_datasets.Nope"}))
    assert json.loads((decode / "metrics.json").read_text()) == {}


def test_text_columns_import_no_torch(decode):
    code = (
        "import json, sys, lightscore\n"
        f"config = json.loads({json.dumps(json.dumps(text_config(decode, text_dataset())))})\n"
        "print(lightscore.measure(config)['" + WER_KEY + "']['test-clean']['WER'])\n"
        "print(sorted(m for m in ('torch', 'torchaudio', 'lightning') if m in sys.modules))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS_DIR), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert out.splitlines() == ["40.0", "[]"]
