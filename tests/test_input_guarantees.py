"""Inputs, configs and ranks (issue 19, round 3): each bad input fails where it enters, clearly, on every rank.

The 2-process cases launch ``ddp_scripts/input_guarantees.py`` once on real gloo ranks; the rendezvous
cases start one rank of a world of two as a real process. Everything else runs here on real files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import lightning.pytorch as pl
import numpy as np
import pytest
from ddp_scripts.launch import child_env, free_port, run_scripts
from ddp_scripts.toy_asr import ToyASR, Utterances, loader, pairs

import lightscore
from lightscore.core.batch import feed
from lightscore.lightning import MetricCallback
from lightscore.metrics import WER
from lightscore.offline import config as config_module
from lightscore.text.normalize import NormalizerError, get_normalizer

WER_TARGET = {"_target_": "lightscore.metrics.WER"}


# -- 2 real gloo ranks ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("input_guarantees")
    # A hang (the old behaviour of an empty rank) fails here instead of running on.
    (run,) = run_scripts([["input_guarantees.py", str(out), "--devices", "2"]], free_port(), timeout=240)
    assert run.returncode == 0, run.stderr[-5000:]
    return {"out": out, "ranks": [json.loads((out / f"rank{r}.json").read_text()) for r in (0, 1)]}


def wer_of(refs: list[str], hyps: list[str]) -> dict:
    metric = WER()
    metric.update(ref=refs, hyp=hyps)
    return {f"val/{k}": v for k, v in metric.compute().items()}


@pytest.mark.slow
def test_numpy_strings_score_like_plain_strings_on_two_ranks(two_ranks: dict) -> None:
    want = wer_of(*pairs("dev", 21, 0))
    for record in two_ranks["ranks"]:
        assert record["numpy_results"] == want
    saved = (two_ranks["out"] / "numpy" / "validate" / "hyp.scp").read_text().splitlines()
    assert len(saved) == 21 and saved[0].startswith("dev-0000 ")


@pytest.mark.slow
def test_a_lone_surrogate_fails_every_rank_alike_naming_the_utterance(two_ranks: dict) -> None:
    rank0, rank1 = two_ranks["ranks"]
    assert rank0["surrogate_error"] == rank1["surrogate_error"]
    error = rank0["surrogate_error"]
    assert error.startswith("ValueError: MetricCallback: rank 1, validate dataloader 0")
    assert "utterance 'dev-0005'" in error and "lone surrogate" in error and "Connection closed" not in error
    assert not list((two_ranks["out"]).glob("surrogate/**/*.scp"))  # refused before anything is written


@pytest.mark.slow
@pytest.mark.parametrize("case", ["zero_validate_error", "zero_fit_error"])
def test_a_rank_with_no_batch_fails_every_rank_at_once(two_ranks: dict, case: str) -> None:
    rank0, rank1 = two_ranks["ranks"]
    assert rank0[case] == rank1[case]
    assert "have no batch on rank(s) 1 of 2" in rank0[case]
    assert max(rank0["seconds"][case], rank1["seconds"][case]) < 60


@pytest.mark.slow
def test_an_empty_dataset_fails_every_rank_alike(two_ranks: dict) -> None:
    rank0, rank1 = two_ranks["ranks"]
    assert rank0["empty_error"] == rank1["empty_error"]
    assert "have no batch on any of the 2 ranks (an empty dataset?)" in rank0["empty_error"]


# -- the callback on one device -----------------------------------------------------------------


def trainer(tmp_path: Path, **options) -> pl.Trainer:
    return pl.Trainer(
        accelerator="cpu",
        devices=1,
        logger=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        default_root_dir=tmp_path,
        **options,
    )


class OneString(ToyASR):
    """Returns its hypotheses joined into one string, a common slip."""

    def validation_step(self, batch: dict, batch_idx: int, dataloader_idx: int = 0) -> dict:
        out = self.decode(batch)
        return {"ref": out["ref"], "hyp": " ".join(out["hyp"])}


def test_a_string_where_a_list_is_needed_is_named(tmp_path: Path) -> None:
    callback = MetricCallback(WER())
    with pytest.raises(ValueError, match=r"returned 'hyp' as a str \(.*\), where a list of strings is needed"):
        trainer(tmp_path, callbacks=[callback]).validate(OneString(), loader(Utterances("dev", 4)))


def test_an_empty_validation_set_is_an_error_not_a_missing_number(tmp_path: Path) -> None:
    callback = MetricCallback(WER())
    with pytest.raises(ValueError, match=r"validate dataloader\(s\) have no batch \(an empty dataset\?\)"):
        trainer(tmp_path, callbacks=[callback]).validate(ToyASR(), loader(Utterances("dev", 0)))
    with pytest.raises(ValueError, match=r"test dataloader\(s\) have no batch"):
        trainer(tmp_path, callbacks=[callback]).test(ToyASR(), loader(Utterances("dev", 0)))
    fit = trainer(tmp_path, callbacks=[callback], max_epochs=1)
    with pytest.raises(ValueError, match=r"validate dataloader\(s\) have no batch"):
        fit.fit(ToyASR(), val_dataloaders=loader(Utterances("dev", 0)))
    # Validation switched off is not an empty validation set.
    trainer(tmp_path, callbacks=[callback], max_epochs=1, limit_val_batches=0).fit(
        ToyASR(), val_dataloaders=loader(Utterances("dev", 3))
    )


def test_one_empty_dataloader_of_two_is_named_and_the_other_still_logged(tmp_path: Path) -> None:
    callback = MetricCallback(WER())
    loaders = [loader(Utterances("dev", 3)), loader(Utterances("none", 0))]
    with pytest.raises(ValueError, match=r"validate dataloader 1 gave no batch on any rank"):
        trainer(tmp_path, callbacks=[callback]).validate(ToyASR(), loaders)
    want = {f"{k}/dataloader_idx_0": v for k, v in wer_of(*pairs("dev", 3, 0)).items()}
    assert callback.results["validate"] == want


# -- the one batch check ----------------------------------------------------------------------------


def test_str_subclasses_are_text_and_reach_update_as_plain_str() -> None:
    refs, hyps = pairs("dev", 9, 0)
    seen = []

    class Spy(WER):
        def update(self, *, ref, hyp):
            seen.extend(type(v) for v in (*ref, *hyp))
            super().update(ref=ref, hyp=hyp)

    metric = Spy()
    metric.update(ref=list(np.array(refs)), hyp=tuple(np.array(hyps)))
    assert set(seen) == {str}
    plain = WER()
    plain.update(ref=refs, hyp=hyps)
    assert metric.compute() == plain.compute()


def test_a_lone_surrogate_is_refused_naming_the_utterance_on_every_road(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"utterance 'u2' \(hyp\.txt\): input 'hyp' holds a lone surrogate"):
        feed(WER(), {"ref": ["a", "b"], "hyp": ["a", "b\udc80"]}, ["u1", "u2"], "hyp.txt")
    with pytest.raises(ValueError, match=r"WER\.update\(\): row 1 of the batch: input 'ref' holds a lone surrogate"):
        WER().update(ref=["a", "\ud83d"], hyp=["a", "b"])
    # A surrogate pair written as two code points is two lone surrogates in Python, refused too.
    with pytest.raises(ValueError, match="lone surrogate"):
        WER().update(ref=["\ud83d\ude00"], hyp=["x"])
    WER().update(ref=["\U0001f600 ok"], hyp=["\U0001f600"])  # the real character is fine


# -- rule files --------------------------------------------------------------------------------------


def test_a_bom_does_not_disable_the_first_rule(tmp_path: Path) -> None:
    plain, bom = tmp_path / "plain", tmp_path / "bom"
    for folder, head in ((plain, b""), (bom, b"\xef\xbb\xbf")):
        folder.mkdir()
        (folder / "subs.tsv").write_bytes(head + b"colour\tcolor\ngrey\tgray\n")
        (folder / "fillers.txt").write_bytes(head + b"um\nuh\n")
    made = {
        folder: get_normalizer("none", substitutions=folder / "subs.tsv", fillers=folder / "fillers.txt")
        for folder in (plain, bom)
    }
    for norm in made.values():
        assert norm("um the colour uh grey") == "the color gray"
    described = made[bom].describe()
    assert "substitutions subs.tsv (sha1 " in described and "fillers fillers.txt (sha1 " in described
    assert described != made[plain].describe()  # the sha1 is the file's own bytes
    # Through the metric and measure(): WER 0, not 66.67.
    test = tmp_path / "exp" / "dev"
    test.mkdir(parents=True)
    (test / "ref.scp").write_text("u1 um the colour\n")
    (test / "hyp.scp").write_text("u1 the color\n")
    metric = {**WER_TARGET, "substitutions": str(bom / "subs.tsv"), "fillers": str(bom / "fillers.txt")}
    config = {"inference_dir": str(tmp_path / "exp"), "metrics": [{"metric": metric, "inputs": ["ref", "hyp"]}]}
    result = lightscore.measure(config)
    assert result["lightscore.metrics.error_rate.WER"]["dev"]["WER"] == 0


def test_a_rule_file_that_is_not_a_regular_file_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "fillers.fifo"
    os.mkfifo(fifo)
    outcome: list[BaseException] = []

    def build() -> None:
        try:
            get_normalizer("none", fillers=fifo)
        except BaseException as e:
            outcome.append(e)

    worker = threading.Thread(target=build, daemon=True)
    worker.start()
    worker.join(10)
    if worker.is_alive():  # the old code blocks opening the FIFO: let it go, then fail
        with open(fifo, "w"):
            pass
        worker.join(10)
        pytest.fail("reading a FIFO rule file blocked")
    assert isinstance(outcome[0], NormalizerError) and "is not a regular file" in str(outcome[0])
    with pytest.raises(NormalizerError, match="substitutions file '/dev/zero' is not a regular file"):
        get_normalizer("none", substitutions="/dev/zero")
    with pytest.raises(FileNotFoundError, match="nowhere.txt"):
        get_normalizer("none", fillers=tmp_path / "nowhere.txt")


def test_fillers_that_are_not_words_are_named() -> None:
    with pytest.raises(NormalizerError, match=r"fillers\[0\]: a filler is a word \(a string\), got 1"):
        get_normalizer("none", fillers=[1, 2])
    with pytest.raises(NormalizerError, match=r"substitutions\['ok'\]: a substitution maps a string to a string"):
        get_normalizer("none", substitutions={"ok": 3})


# -- metrics configs ----------------------------------------------------------------------------------


@pytest.fixture
def decode(tmp_path: Path) -> Path:
    for test in ("dev", "test"):
        (tmp_path / test).mkdir()
        (tmp_path / test / "ref.scp").write_text("u1 the cat sat\n")
        (tmp_path / test / "hyp.scp").write_text("u1 the cat\n")
    return tmp_path


def entry(**options) -> dict:
    return {"metric": WER_TARGET, "inputs": ["ref", "hyp"], **options}


@pytest.mark.parametrize(
    "config, message",
    [
        ({"dataset": {"test": [{"name": None}]}}, "dataset.test[0].name must be a string"),
        ({"dataset": {"test": [{"name": ["t1"]}]}}, "dataset.test[0].name must be a string"),
        ({"metrics": [entry(inputs={"ref": None, "hyp": "hyp"})]}, "inputs.ref must be a file stem"),
        ({"metrics": [entry(inputs=["ref", 3])]}, "inputs[1] must be a file stem"),
        ({"metrics": [entry(apply_to=[])]}, "apply_to is empty, so the entry would score nothing"),
        ({"metrics": [entry(metric={**WER_TARGET, "fillers": [1, 2]})]}, "fillers[0]: a filler is a word"),
        ({"metrics": [entry(metric={**WER_TARGET, "fillers": "/dev/zero"})]}, "'/dev/zero' is not a regular file"),
    ],
)
def test_a_wrong_config_value_gets_an_error_naming_its_key(decode: Path, config: dict, message: str) -> None:
    full = {"inference_dir": str(decode), "metrics": [entry()], **config}
    with pytest.raises(ValueError) as caught:
        lightscore.measure(full)
    assert message in str(caught.value)
    assert "None.scp" not in str(caught.value)
    assert not (decode / "metrics.json").exists()


BOMB = """
from lightscore.offline.config import load_config
try:
    load_config({path!r})
    print("loaded")
except ValueError as e:
    print(e)
"""


def test_a_yaml_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    levels = ['  a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for previous, name in zip("abcdefg", "bcdefgh"):
        levels.append(f"  {name}: &{name} [{', '.join([f'*{previous}'] * 9)}]")
    config = tmp_path / "metrics.yaml"
    config.write_text("inference_dir: exp\nunused:\n" + "\n".join(levels) + "\nmetrics: []\n")
    # In a process of its own: expanding 9**8 values would run for minutes (the old behaviour).
    start = time.monotonic()
    run = subprocess.run(
        [sys.executable, "-c", BOMB.format(path=str(config))], capture_output=True, text=True, timeout=60
    )
    assert f"{config}: its YAML aliases (*name) expand to more than 100000 values" in run.stdout
    assert time.monotonic() - start < 30
    config.write_text("inference_dir: exp\nbase: &base {case: fold}\nother: *base\n")  # a few aliases are fine
    assert config_module.load_config(config)[0].other.case == "fold"


def test_a_badly_named_test_folder_fails_only_that_test_set(decode: Path) -> None:
    (decode / "my dir").mkdir()
    with pytest.raises(lightscore.MeasureError) as caught:
        lightscore.measure({"inference_dir": str(decode), "metrics": [entry(name="wer")]})
    [(key, test, error)] = caught.value.failures
    assert (key, test) == ("wer", "my dir") and "test set folder name 'my dir' is not a plain token" in str(error)
    written = json.loads((decode / "metrics.json").read_text())
    assert sorted(written["wer"]) == ["dev", "test"]


def test_an_inference_dir_that_takes_no_files_says_so(tmp_path: Path) -> None:
    with pytest.raises(OSError) as caught:
        lightscore.measure({"inference_dir": "/proc", "metrics": [entry()]})
    text = str(caught.value)
    assert "cannot write results into /proc" in text and "as /proc and /sys do" in text
    assert not isinstance(caught.value, FileNotFoundError)


# -- the torchrun rendezvous ------------------------------------------------------------------------

ONE_RANK = """
import time
from lightscore.offline.stage import process_group
start = time.monotonic()
try:
    with process_group():
        print("joined")
except RuntimeError as e:
    print(f"{time.monotonic() - start:.1f} {e}")
"""


@pytest.mark.slow
@pytest.mark.parametrize("rank", [0, 1])
def test_a_peer_that_never_starts_fails_within_the_rendezvous_timeout(rank: int) -> None:
    port = free_port()
    env = {**child_env(port), "WORLD_SIZE": "2", "RANK": str(rank), "LOCAL_RANK": str(rank)}
    env["LIGHTSCORE_RENDEZVOUS_TIMEOUT"] = "2"
    run = subprocess.run([sys.executable, "-c", ONE_RANK], env=env, capture_output=True, text=True, timeout=120)
    seconds, _, message = run.stdout.strip().partition(" ")
    assert f"the process group at 127.0.0.1:{port} (MASTER_ADDR:MASTER_PORT, world size 2) within 2 s" in message
    assert f"rank {rank} of 2" in message and "LIGHTSCORE_RENDEZVOUS_TIMEOUT" in message
    assert float(seconds) < 30


def test_the_rendezvous_timeout_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    from lightscore.offline.stage import rendezvous_timeout

    assert rendezvous_timeout() == 300
    monkeypatch.setenv("LIGHTSCORE_RENDEZVOUS_TIMEOUT", "12.5")
    assert rendezvous_timeout() == 12.5
    for bad in ("0", "-1", "soon", "inf", "nan"):
        monkeypatch.setenv("LIGHTSCORE_RENDEZVOUS_TIMEOUT", bad)
        with pytest.raises(ValueError, match="LIGHTSCORE_RENDEZVOUS_TIMEOUT"):
            rendezvous_timeout()
