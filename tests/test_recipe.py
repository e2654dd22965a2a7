"""The example recipe (examples/lightning_recipe), run the way a user runs it.

The smoke tests start ``python examples/lightning_recipe/run.py`` as a real
subprocess from the repository root: 1 epoch on 7 synthetic utterances per
split (an odd count, so DDP's sampler pads a rank), on 1 device and with 2 DDP
processes, then a 2-process test() of the 1-device checkpoint. The loader
tests write a tiny LibriSpeech-layout corpus with real FLAC files.
"""

from __future__ import annotations

import doctest
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))  # the recipe is not an installed package

from lightning_recipe import bpe, corpus, data, librispeech, model, report, synth
from lightning_recipe.data import FEATURE_RATE, SpeechDataset, collate
from lightning_recipe.librispeech import read_librispeech

from lightscore.scp import read_scp

ROOT = Path(__file__).resolve().parents[1]
UTTS = 7
SUFFIXES = ("", "_sub", "_del", "_ins", "_hit", "_ref_len", "_utts", "_utt_err")
SHARED = [f"{m}{suffix}" for m in ("WER", "CER") for suffix in SUFFIXES]
MEASURE_ONLY = [f"TER{suffix}" for suffix in SUFFIXES]


def run_recipe(exp_dir: Path, *args: str) -> subprocess.CompletedProcess:
    """Run the recipe from the repository root, as the README does; fail with its output if it fails."""
    command = [sys.executable, "examples/lightning_recipe/run.py", "--exp-dir", str(exp_dir), *args]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{' '.join(command)} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


def table(stdout: str) -> dict[str, tuple[str, str, str]]:
    """The equality table the recipe prints: output -> (MetricCallback, measure(), check)."""
    rows = {}
    for line in stdout.splitlines():
        match = re.fullmatch(r"((?:WER|CER|TER)\w*)\s+(\S+)\s+(\S+)\s+(same|DIFFERENT|measure only)", line.strip())
        if match:
            rows[match[1]] = (match[2], match[3], match[4])
    return rows


def smoke(exp_dir: Path, *args: str) -> str:
    return run_recipe(exp_dir, "--epochs", "1", "--max-utts", str(UTTS), *args).stdout


@pytest.fixture(scope="module")
def one_device(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    exp_dir = tmp_path_factory.mktemp("recipe") / "one_device"
    return exp_dir, smoke(exp_dir, "--devices", "1")


def check_run(exp_dir: Path, stdout: str) -> dict:
    """The checks every run passes: equal table, SCP files of the test set, metrics.json with the table's numbers."""
    rows = table(stdout)
    assert list(rows) == SHARED + MEASURE_ONLY, stdout
    assert all(rows[name][2] == "same" and rows[name][0] == rows[name][1] for name in SHARED), stdout
    assert all(rows[name][2] == "measure only" and rows[name][0] == "-" for name in MEASURE_ONLY), stdout
    assert "All numbers the two share are equal." in stdout

    test_dir = exp_dir / "decode" / "test"
    refs = [(utt_id, text) for _, utt_id, text in read_scp(test_dir / "ref.scp")]
    hyps = [utt_id for _, utt_id, _ in read_scp(test_dir / "hyp.scp")]
    expected = sorted((utt_id, text) for _, utt_id, text in read_scp(exp_dir / "data/synthetic/test/text"))
    assert refs == expected and len(refs) == UTTS  # every utterance once, sorted, although a rank was padded
    assert hyps == [utt_id for utt_id, _ in refs]

    scores = json.loads((exp_dir / "decode" / "metrics.json").read_text())
    assert sorted(scores) == ["CER", "TER", "WER"]
    assert int(rows["WER_ref_len"][1]) == scores["WER"]["test"]["WER_ref_len"] == sum(len(t.split()) for _, t in refs)
    assert f"{scores['CER']['test']['CER']:.4f}" == rows["CER"][1]
    return scores


def test_one_device_run_scores_alike_in_the_callback_and_measure(one_device: tuple[Path, str]) -> None:
    exp_dir, stdout = one_device
    check_run(exp_dir, stdout)
    log_dir = exp_dir / "logs" / "version_0"
    assert (log_dir / "val_error_rates.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(list((log_dir / "checkpoints").glob("*.ckpt"))) == 1
    assert (exp_dir / "bpe" / "bpe.model").is_file()
    assert f"Plot:    {log_dir / 'val_error_rates.png'}" in stdout
    worst = log_dir / "val_WER_worst_epoch0.tsv"
    assert f"Worst:   {worst}" in stdout
    header, *rows = worst.read_text().splitlines()
    assert header.split("\t") == ["utt_id", "errors", "ref", "hyp", "alignment"] and 0 < len(rows) <= 5
    errors = [int(row.split("\t")[1]) for row in rows]
    assert errors == sorted(errors, reverse=True)
    assert re.search(r"epoch 0: \d+/\d+ training batches", stdout)  # progress inside the epoch, without a terminal


def test_two_device_ddp_run_scores_alike_in_the_callback_and_measure(tmp_path: Path) -> None:
    check_run(tmp_path, smoke(tmp_path, "--devices", "2"))


def test_two_devices_test_a_checkpoint_exactly_as_one_device(one_device: tuple[Path, str], tmp_path: Path) -> None:
    exp_dir, stdout = one_device
    (checkpoint,) = (exp_dir / "logs" / "version_0" / "checkpoints").glob("*.ckpt")
    two = smoke(tmp_path, "--devices", "2", "--ckpt", str(checkpoint))
    assert check_run(tmp_path, two) == check_run(exp_dir, stdout)
    assert table(two) == table(stdout)
    for name in ("ref.scp", "hyp.scp"):
        assert (tmp_path / "decode/test" / name).read_text() == (exp_dir / "decode/test" / name).read_text()


@pytest.mark.slow
def test_quick_run_learns(tmp_path: Path) -> None:
    """``--quick`` (the CI-sized demo) must still show a model learning: the best val/WER well below the first."""
    stdout = run_recipe(tmp_path, "--quick").stdout
    first, best = map(float, re.search(r"val/WER (\S+) after epoch 0, best (\S+) after epoch", stdout).groups())
    assert best < first - 20, stdout
    curve = report.read_validation_curve(tmp_path / "logs" / "version_0" / "metrics.csv")
    assert curve["epoch"] == [0, 1, 2, 3, 4] and min(curve["val/WER"]) == pytest.approx(best, abs=0.005)


# -- LibriSpeech layout -------------------------------------------------------------------------

CHAPTERS = {  # speaker -> chapter -> transcripts, as LibriSpeech writes them (upper case)
    "dev-clean": {"84": {"121123": ["ONE TWO", "NINE"]}, "174": {"50561": ["SIX SEVEN EIGHT"]}},
    "test-clean": {"1089": {"134686": ["ZERO FOUR", "FIVE"]}},
}


def write_librispeech(root: Path, rate: int = 16000) -> None:
    """A tiny corpus in LibriSpeech layout: FLAC audio (the words spoken by the synthetic voice) and trans.txt."""
    rng = np.random.default_rng(0)
    for split, speakers in CHAPTERS.items():
        for speaker, chapters in speakers.items():
            for chapter, texts in chapters.items():
                folder = root / split / speaker / chapter
                folder.mkdir(parents=True)
                lines = []
                for n, text in enumerate(texts):
                    utt_id = f"{speaker}-{chapter}-{n:04d}"
                    wave = synth.speak(text.lower(), rng)
                    if rate != synth.SAMPLE_RATE:
                        wave = wave[:: synth.SAMPLE_RATE // rate]
                    soundfile.write(folder / f"{utt_id}.flac", wave, rate)
                    lines.append(f"{utt_id} {text}\n")
                (folder / f"{speaker}-{chapter}.trans.txt").write_text("".join(lines))


def test_librispeech_layout_is_read_into_utterances_and_features(tmp_path: Path) -> None:
    write_librispeech(tmp_path)
    dev = read_librispeech(tmp_path, "dev-clean")
    assert [(u.utt_id, u.text) for u in dev] == [
        ("174-50561-0000", "SIX SEVEN EIGHT"),
        ("84-121123-0000", "ONE TWO"),
        ("84-121123-0001", "NINE"),
    ]
    assert dev[1].audio == tmp_path / "dev-clean/84/121123/84-121123-0000.flac"

    batch = collate([SpeechDataset(dev)[i] for i in range(3)])
    samples = [soundfile.info(str(u.audio)).frames for u in dev]
    assert batch["utt_id"] == [u.utt_id for u in dev]
    assert batch["feats"].shape[2] == data.NUM_MEL_BINS
    assert batch["feat_lens"].tolist() == [1 + (n - 400) // 160 for n in samples]  # 25 ms frames every 10 ms


def test_librispeech_audio_at_another_rate_is_resampled(tmp_path: Path) -> None:
    write_librispeech(tmp_path, rate=8000)
    (utt, *_) = read_librispeech(tmp_path, "test-clean")
    wave = data.load_audio(str(utt.audio))
    assert len(wave) == 2 * soundfile.info(str(utt.audio)).frames and FEATURE_RATE == 16000


def test_librispeech_errors_name_the_file_and_line(tmp_path: Path) -> None:
    write_librispeech(tmp_path)
    (tmp_path / "dev-clean/84/121123/84-121123-0001.flac").unlink()
    with pytest.raises(FileNotFoundError, match=r"84-121123\.trans\.txt:2: utterance '84-121123-0001' has no audio"):
        read_librispeech(tmp_path, "dev-clean")
    with pytest.raises(FileNotFoundError, match="train-clean-100: no LibriSpeech split here"):
        read_librispeech(tmp_path, "train-clean-100")


def test_recipe_trains_on_a_librispeech_layout_corpus(tmp_path: Path) -> None:
    write_librispeech(tmp_path / "corpus")
    splits = ["--train-split", "dev-clean", "--dev-split", "test-clean", "--test-split", "test-clean"]
    stdout = run_recipe(tmp_path / "exp", "--data-dir", str(tmp_path / "corpus"), "--epochs", "1", *splits).stdout
    assert "train: 3 utterances, dev: 2 utterances, test: 2 utterances" in stdout
    assert all(check == "same" for _, _, check in list(table(stdout).values())[:12])
    refs = [text for _, _, text in read_scp(tmp_path / "exp/decode/test/ref.scp")]
    assert refs == ["ZERO FOUR", "FIVE"]


# -- the recipe's own docstring examples ---------------------------------------------------------


@pytest.mark.parametrize("module", [bpe, corpus, data, librispeech, model, report, synth], ids=lambda m: m.__name__)
def test_recipe_docstring_examples(module) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0
