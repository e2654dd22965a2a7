"""One road: every result passes through `merged_result`, on one process and on two, and no metric is copied."""

from __future__ import annotations

import json

import lightning.pytorch as pl
import pytest
from ddp_scripts import one_road
from ddp_scripts.launch import free_port, run_scripts
from ddp_scripts.toy_asr import ToyASR, Utterances, counting_merges, loader

from lightscore import BaseMetric, Field, MeasureError, measure
from lightscore.lightning import MetricCallback
from lightscore.metrics import WER


@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    out = tmp_path_factory.mktemp("one_road")
    (run,) = run_scripts([["one_road.py", str(out), "--devices", "2"]], free_port())
    assert run.returncode == 0, run.stderr[-3000:]
    return [json.loads((out / f"rank{r}.json").read_text()) for r in (0, 1)]


def test_one_process_measure_merges_through_merged_result(tmp_path) -> None:
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "ref.scp").write_text("u1 the cat sat\nu2 a dog\n")
    (tmp_path / "dev" / "hyp.scp").write_text("u1 the cat\nu2 a dog\n")
    metrics = [{"metric": {"_target_": f"lightscore.metrics.{m}"}, "inputs": ["ref", "hyp"]} for m in ("WER", "CER")]
    with counting_merges() as merges:
        measure({"inference_dir": str(tmp_path), "metrics": metrics})
    assert merges[0] == 2  # one per (metric, test set), also with one process


class BrokenMerge(WER):
    """A WER whose merge_states fails: once that showed only on several ranks, now on one too."""

    def merge_states(self, states):
        raise ValueError("BrokenMerge cannot merge")


def test_a_broken_merge_fails_on_one_process(tmp_path) -> None:
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "ref.scp").write_text("u1 a b\n")
    (tmp_path / "dev" / "hyp.scp").write_text("u1 a b\n")
    entry = {"metric": {"_target_": f"{__name__}.BrokenMerge"}, "inputs": ["ref", "hyp"]}
    with pytest.raises(MeasureError, match="BrokenMerge cannot merge"):
        measure({"inference_dir": str(tmp_path), "metrics": [entry]})


def test_one_process_callback_epoch_merges_through_merged_result() -> None:
    callback = MetricCallback([WER(), one_road.LockedWordCount()])
    trainer = pl.Trainer(callbacks=[callback], logger=False, enable_progress_bar=False, enable_model_summary=False)
    with counting_merges() as merges:
        trainer.validate(ToyASR(), dataloaders=loader(Utterances("dev", 21)))
    assert merges[0] == 2
    assert (
        callback.results["validate"]["val/hyp_words"]
        == sum(len(Utterances("dev", 21)[i]["ref"].split()) for i in range(21))
        + callback.results["validate"]["val/WER_ins"]
        - callback.results["validate"]["val/WER_del"]
    )


def test_a_metric_that_cannot_be_copied_works_on_two_processes(two_ranks: list[dict]) -> None:
    callback = MetricCallback(one_road.metrics())
    trainer = pl.Trainer(callbacks=[callback], logger=False, enable_progress_bar=False, enable_model_summary=False)
    trainer.validate(ToyASR(), dataloaders=loader(Utterances("dev", 21)))
    results = callback.results["validate"]
    assert results["val/WER_ci_low"] < results["val/WER"] < results["val/WER_ci_high"]
    for record in two_ranks:
        assert record["results"] == results  # the bootstrap interval too: the same on 1 and 2 ranks
        assert record["merges"] == 2  # WER and the locked metric, once each, on every rank


def test_a_failing_rank_makes_every_rank_raise_the_same_clear_error(two_ranks: list[dict]) -> None:
    errors = {record["error"] for record in two_ranks}
    assert len(errors) == 1
    (error,) = errors
    assert error.startswith("ValueError: MetricCallback: rank 1, validate dataloader 0, batch 2: metric ")
    assert "LockedWordCount" in error and error.endswith("the embedder ran out of memory")


def test_a_metric_with_a_lock_is_still_a_base_metric() -> None:
    metric = one_road.LockedWordCount()
    assert isinstance(metric, BaseMetric) and metric.inputs == (Field("hyp", "text"),)
    with pytest.raises(TypeError, match="cannot be copied"):
        __import__("copy").deepcopy(metric)


def test_an_unwritable_save_dir_makes_every_rank_raise_the_same_error(two_ranks: list[dict]) -> None:
    errors = {record["save_error"] for record in two_ranks}
    assert len(errors) == 1
    (error,) = errors
    assert error.startswith("OSError: MetricCallback: rank 0 cannot write the scored rows into save_dir ")
    assert "a-file/decode" in error
