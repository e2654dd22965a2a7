"""The seeds' contract on every road: ``WER().inputs`` is ref and hyp, and a subclass written to the seed works.

``class MyWER(WER): def update(self, *, ref, hyp)`` is scored by ``__call__``, ``measure()`` (one process and
torchrun) and ``MetricCallback`` (1 and 2 real gloo processes); utterance ids reach its per-utterance state
without being a declared input. ``collect_artifacts`` is True while ``__call__`` runs with an output_dir.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import lightning.pytorch as pl
import pytest
from ddp_scripts.launch import free_port, run_scripts
from ddp_scripts.seed_metrics import MyWER, SeesCollect
from ddp_scripts.toy_asr import ToyASR, Utterances, loader

from lightscore import measure
from lightscore.lightning import MetricCallback
from lightscore.metrics import CER, TER, WER

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
REF = "u1 the cat sat on the mat\nu2 a dog ran\nu3 over the hill\nu4 green tree\n"
HYP = "u1 the cat sat on a mat\nu2 a dog\nu3 over the hill now\nu4 green tree\n"


@pytest.fixture
def decode(tmp_path: Path) -> Path:
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "ref.scp").write_text(REF)
    (tmp_path / "dev" / "hyp.scp").write_text(HYP)
    return tmp_path


def test_error_rates_declare_ref_and_hyp_as_the_seeds_do() -> None:
    for metric in (WER(), CER(), WER(ci=0.95)):
        assert [(f.name, f.optional) for f in metric.inputs] == [("ref", False), ("hyp", False)]
    assert [f.name for f in TER.inputs] == ["ref", "hyp"]


def test_the_seed_subclass_scores_in_call_with_ids_for_its_intervals(decode: Path) -> None:
    data = {"ref": decode / "dev" / "ref.scp", "hyp": decode / "dev" / "hyp.scp"}
    mine = MyWER(ci=0.95, bootstrap=100, seed=1)(data, "dev", decode / "out")
    plain = WER(ci=0.95, bootstrap=100, seed=1)(data, "dev")
    assert mine == plain and mine["WER"] == pytest.approx(100 * 3 / 14)
    assert "u2" in (decode / "out" / "dev" / "wer_alignment").read_text()


def test_the_seed_subclass_scores_in_measure(decode: Path) -> None:
    entry = {"metric": {"_target_": "ddp_scripts.seed_metrics.MyWER", "ci": 0.9}, "inputs": ["ref", "hyp"]}
    results = measure({"inference_dir": str(decode), "metrics": [entry]})
    assert results["ddp_scripts.seed_metrics.MyWER"]["dev"]["WER"] == pytest.approx(100 * 3 / 14)


def test_the_seed_subclass_scores_in_a_torchrun_measure_like_one_process(decode: Path, tmp_path: Path) -> None:
    config = decode / "metrics.yaml"
    config.write_text(
        f"inference_dir: {decode}\nmetrics:\n"
        "  - metric: {_target_: ddp_scripts.seed_metrics.MyWER, ci: 0.9, bootstrap: 200}\n    inputs: [ref, hyp]\n"
    )
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(HERE)}
    one = subprocess.run([str(BIN / "lightscore"), "measure", str(config)], env=env, capture_output=True, text=True)
    assert one.returncode == 0, one.stderr[-2000:]
    alone = json.loads((decode / "metrics.json").read_text())
    (decode / "metrics.json").unlink()
    torchrun = [str(BIN / "torchrun"), "--standalone", "--nproc_per_node=2", "--no-python"]
    two = subprocess.run(
        [*torchrun, str(BIN / "lightscore"), "measure", str(config)], env=env, capture_output=True, text=True
    )
    assert two.returncode == 0, two.stderr[-2000:]
    assert json.loads((decode / "metrics.json").read_text()) == alone


def test_collect_artifacts_is_true_while_call_runs_with_an_output_dir(decode: Path) -> None:
    data = {"ref": decode / "dev" / "ref.scp", "hyp": decode / "dev" / "hyp.scp"}
    metric = SeesCollect()
    metric(data, "dev", decode / "out")
    assert set(metric.seen) == {("update", True), ("write_artifacts", True)}
    metric.seen.clear()
    metric(data, "dev")
    assert set(metric.seen) == {("update", False)}
    assert metric.collect_artifacts is False


@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    out = tmp_path_factory.mktemp("seed_contract")
    (run,) = run_scripts([["seed_contract.py", str(out), "--devices", "2"]], free_port())
    assert run.returncode == 0, run.stderr[-3000:]
    return [json.loads((out / f"rank{r}.json").read_text()) for r in (0, 1)]


def test_the_seed_subclass_in_the_callback_on_one_and_two_processes(two_ranks: list[dict]) -> None:
    mine = MetricCallback([MyWER(ci=0.95, bootstrap=200, seed=3)], prefix="my/")
    trainer = pl.Trainer(callbacks=[mine], logger=False, enable_progress_bar=False, enable_model_summary=False)
    trainer.validate(ToyASR(), dataloaders=loader(Utterances("dev", 21)))
    one = mine.results["validate"]
    assert one["my/WER_ci_low"] < one["my/WER"] < one["my/WER_ci_high"]
    for record in two_ranks:
        assert record["mine"] == one
        assert {k.replace("my/", "val/"): v for k, v in one.items()} == record["plain"]
