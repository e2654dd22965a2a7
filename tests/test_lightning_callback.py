"""MetricCallback: a real 2-process DDP run against a 1-process run, the expected counts and measure().

One launch of ``ddp_scripts/run_trainer.py`` on 2 gloo processes runs fit() (3 epochs,
sanity check, ModelCheckpoint on val/WER), test(), and validate() on three dataloaders;
the same script runs in this process on one device without a sanity check. Every
number is also recomputed from the toy model's known hypotheses.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import lightning.pytorch as pl
import pytest
import torch
from ddp_scripts import run_trainer
from ddp_scripts.launch import free_port, run_scripts
from ddp_scripts.toy_asr import ToyASR, Utterances, UtteranceStream, hypothesis, loader, pairs
from torch.utils.data import BatchSampler, DataLoader, DistributedSampler, SequentialSampler

import lightscore
from lightscore import BaseMetric, Field
from lightscore.lightning import MetricCallback, inexact_cause, rows_to_score
from lightscore.metrics import CER, WER

EPOCHS = (0, 1, 2)
AFTER_FIT = 3  # current_epoch of test() and validate() after fit()


def expected(name: str, n: int, epoch: int, prefix: str, suffix: str = "", repeat: int = 1) -> dict:
    """What WER and CER give on every utterance of a set (``repeat`` times), logged as the callback names it."""
    refs, hyps = pairs(name, n, epoch)
    result = {}
    for metric in (WER(), CER()):
        for _ in range(repeat):
            metric.update(ref=refs, hyp=hyps)
        result.update({f"{prefix}{k}{suffix}": v for k, v in metric.compute().items()})
    return result


def combined(sets: list[tuple[str, int]], epoch: int, prefix: str) -> dict:
    """The pooled (WER and CER over all the sets' utterances) and macro (mean over the sets) results, as logged."""
    refs, hyps = [], []
    for name, n in sets:
        r, h = pairs(name, n, epoch)
        refs, hyps = refs + r, hyps + h
    pooled = {**expected_pairs(refs, hyps)}
    per_set = [expected(name, n, epoch, "") for name, n in sets]
    macro = {key: sum(result[key] for result in per_set) / len(per_set) for key in per_set[0]}
    return {f"{prefix}{k}/pooled": v for k, v in pooled.items()} | {f"{prefix}{k}/macro": v for k, v in macro.items()}


def expected_pairs(refs: list[str], hyps: list[str]) -> dict:
    result = {}
    for metric in (WER(), CER()):
        metric.update(ref=refs, hyp=hyps)
        result.update(metric.compute())
    return result


def rescore(directory: Path, prefix: str, suffix: str = "") -> dict[str, dict]:
    """measure() over the callback's SCP files: {test_name: {logged name: value}}."""
    metrics = [{"metric": {"_target_": f"lightscore.metrics.{m}"}, "inputs": ["ref", "hyp"]} for m in ("WER", "CER")]
    by_test: dict[str, dict] = {}
    for per_test in lightscore.measure({"inference_dir": str(directory), "metrics": metrics}).values():
        for test, values in per_test.items():
            by_test.setdefault(test, {}).update({f"{prefix}{k}{suffix}": v for k, v in values.items()})
    return by_test


@pytest.fixture(scope="module")
def ddp(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("ddp")
    port = free_port()
    (run,) = run_scripts([["run_trainer.py", str(out), "--devices", "2"]], port)
    assert run.returncode == 0, run.stderr[-5000:]
    ranks = [json.loads((out / f"rank{r}.json").read_text()) for r in (0, 1)]
    return {"out": out, "ranks": ranks, "stderr": run.stderr}


@pytest.fixture(scope="module")
def single(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("single")
    record = run_trainer.run(out, devices=1, sanity_steps=0)
    return {"out": out, "record": record}


def test_both_ranks_ran_and_agree(ddp: dict) -> None:
    rank0, rank1 = ddp["ranks"]
    assert (rank0["rank"], rank1["rank"], rank0["world_size"]) == (0, 1, 2)
    for key in ("epochs", "test", "validate", "best_model_path", "best_model_score"):
        assert rank0[key] == rank1[key], key


def test_fit_validation_is_exact_under_padding(ddp: dict, single: dict) -> None:
    fit_epochs = ddp["ranks"][0]["epochs"][:3]
    assert [e["epoch"] for e in fit_epochs] == list(EPOCHS)
    for epoch, ddp_epoch, single_epoch in zip(EPOCHS, fit_epochs, single["record"]["epochs"]):
        want = expected("dev", 101, epoch, "val/")
        assert ddp_epoch["results"] == want == single_epoch["results"]
        assert ddp_epoch["logged"] == want == single_epoch["logged"]  # float64 logging keeps every digit
    # 101 rows on 2 ranks: rank 1 gets dev-0000 again as padding, and it always has an error,
    # so scoring the padding would have changed the counts.
    ref0 = Utterances("dev", 1)[0]["ref"]
    assert all(hypothesis(ref0, 0, epoch) != ref0 for epoch in EPOCHS)


def test_test_stage_is_exact(ddp: dict, single: dict) -> None:
    want = expected("dev", 101, AFTER_FIT, "test/")
    for record in (*ddp["ranks"], single["record"]):
        assert record["test"]["results"] == want
        assert record["test"]["logged"] == want


def test_one_gather_per_epoch_end_and_none_per_batch(ddp: dict) -> None:
    for record in ddp["ranks"]:
        assert [e["gathers"] for e in record["epochs"]] == [1, 1, 1, 1]  # 3 fit epochs, then validate()
        assert record["test"]["gathers"] == 1
        assert record["validate"]["gathers"] == 1  # three dataloaders, still one gather


def test_sanity_check_leaves_no_trace(ddp: dict, single: dict) -> None:
    for record in ddp["ranks"]:
        assert record["sanity"] == {"results": {}, "logged": {}, "gathers": 0, "saved_anything": False}
    # num_sanity_val_steps=0: no sanity check at all, and every epoch still scored.
    assert "sanity" not in single["record"]
    assert len(single["record"]["epochs"]) == 4


def test_model_checkpoint_keeps_the_lowest_wer_epoch(ddp: dict, single: dict) -> None:
    wers = [expected("dev", 101, epoch, "val/")["val/WER"] for epoch in EPOCHS]
    assert wers.index(min(wers)) == 1 and len(set(wers)) == 3
    for record in (*ddp["ranks"], single["record"]):
        assert record["best_model_path"] == "epoch=1.ckpt"
        assert record["best_model_score"] == min(wers)


def test_validation_dataloaders_get_suffixed_results(ddp: dict, single: dict) -> None:
    after = AFTER_FIT
    dev = expected("dev", 101, after, "val/", "/dataloader_idx_0")
    one = expected("one", 1, after, "val/", "/dataloader_idx_1")
    stream = expected("stream", 5, after, "val/", "/dataloader_idx_2")
    # With several dataloaders: the pooled result (the merged states: the concatenated sets) and the macro mean.
    both = combined([("dev", 101), ("one", 1), ("stream", 5)], after, "val/")
    assert both["val/WER/pooled"] != both["val/WER/macro"]
    assert single["record"]["validate"]["results"] == pytest.approx(dev | one | stream | both, rel=1e-12)
    for record in ddp["ranks"]:
        # The 1-utterance set: rank 1 only got padding, the result is still exact. The stream deals
        # its items between the ranks itself, so it is exact too (and still warned about, below).
        assert record["validate"]["results"] == single["record"]["validate"]["results"]
        assert set(record["epochs"][3]["logged"]) == set(dev | one | stream | both)


def test_iterable_dataset_warns_once_naming_the_cause(ddp: dict) -> None:
    warnings = re.findall(r"MetricCallback: the validate dataloader (\d) may not score.*: (.*)\.", ddp["stderr"])
    assert warnings == [("2", "its dataset is an IterableDataset, which no sampler splits between ranks")]


def test_saved_scps_rescore_to_the_logged_numbers(ddp: dict, single: dict) -> None:
    ranks = ddp["ranks"][0]
    fit = rescore(ddp["out"] / "fit", "val/")
    assert fit == {"dev": ranks["epochs"][2]["results"]}
    evaluated = rescore(ddp["out"] / "eval", "test/")
    assert evaluated.pop("test") == ranks["test"]["results"]
    validated = ranks["validate"]["results"]
    for idx, name in enumerate(("dev", "one", "stream")):
        values = {k.replace("test/", "val/") + f"/dataloader_idx_{idx}": v for k, v in evaluated[name].items()}
        assert values == {k: v for k, v in validated.items() if k.endswith(f"_{idx}")}


def test_pooled_over_dataloaders_equals_measure_over_the_saved_sets(ddp: dict, tmp_path: Path) -> None:
    for name in ("dev", "one", "stream"):
        shutil.copytree(ddp["out"] / "eval" / name, tmp_path / name)
    metrics = [{"metric": {"_target_": f"lightscore.metrics.{m}"}, "inputs": ["ref", "hyp"]} for m in ("WER", "CER")]
    results = lightscore.measure({"inference_dir": str(tmp_path), "metrics": metrics, "scoreboard": True})
    validated = ddp["ranks"][1]["validate"]["results"]
    for per_test in results.values():
        for row in ("pooled", "macro"):
            for key, value in per_test[row].items():
                assert validated[f"val/{key}/{row}"] == pytest.approx(value, rel=1e-12)
        assert per_test["pooled"] == {k[4:-7]: v for k, v in validated.items() if k.endswith("/pooled") and
                                      k[4:-7] in per_test["pooled"]}  # fmt: skip
    assert (tmp_path / "scoreboard.csv").read_text().splitlines()[-2].startswith("pooled,")


def test_saved_scps_equal_the_single_process_ones(ddp: dict, single: dict) -> None:
    for path in ("fit/dev/hyp.scp", "fit/dev/ref.scp", "eval/test/hyp.scp", "eval/dev/ref.scp", "eval/one/hyp.scp"):
        text = (ddp["out"] / path).read_text()
        assert text == (single["out"] / path).read_text(), path
        ids = [line.split()[0] for line in text.splitlines()]
        assert ids == sorted(set(ids))
    assert len((ddp["out"] / "fit/dev/hyp.scp").read_text().splitlines()) == 101


# -- the padding rule on its own ---------------------------------------------------------


@pytest.mark.parametrize("shuffle", [False, True])
def test_rows_to_score_keeps_every_index_once(shuffle: bool) -> None:
    for n in range(0, 14):
        for replicas in (1, 2, 3, 4):
            kept = []
            for rank in range(replicas):
                sampler = DistributedSampler(range(n), num_replicas=replicas, rank=rank, shuffle=shuffle, seed=n)
                real = rows_to_score(DataLoader(range(n), sampler=sampler, batch_size=3))
                kept += list(sampler)[:real]
            assert sorted(kept) == list(range(n)), (n, replicas)


def test_inexact_cause_names_each_uncovered_loader() -> None:
    data = list(range(6))
    sampler = DistributedSampler(data, num_replicas=2, rank=0)

    class Buckets(BatchSampler):
        pass

    cases = {
        "IterableDataset": loader(UtteranceStream("s", 3)),
        "custom batch sampler Buckets": DataLoader(data, batch_sampler=Buckets(sampler, 2, False)),
        "not a DistributedSampler": DataLoader(data, sampler=SequentialSampler(data)),
        "drop_last=True": DataLoader(data, sampler=sampler, batch_size=4, drop_last=True),
        "not a torch DataLoader": [data],
    }
    for cause, case in cases.items():
        assert cause in inexact_cause(case, 2)
        assert inexact_cause(case, 1) is None
    assert inexact_cause(DataLoader(data, sampler=sampler, batch_size=4), 2) is None


# -- in this process: errors and options ---------------------------------------------------


def trainer(callback: MetricCallback, tmp_path: Path) -> pl.Trainer:
    return pl.Trainer(
        accelerator="cpu",
        devices=1,
        callbacks=[callback],
        logger=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        default_root_dir=tmp_path,
    )


class Renamed(ToyASR):
    """Returns its hypotheses under "prediction" and no utterance ids."""

    def validation_step(self, batch: dict, batch_idx: int, dataloader_idx: int = 0) -> dict:
        out = self.decode(batch)
        return {"ref": out["ref"], "prediction": out["hyp"]}


class NoRefs(BaseMetric):
    """Fails at compute(), to show the other metrics' results survive."""

    inputs = (Field("ref", "text"),)
    outputs = (Field("refs", "number"),)

    def update(self, *, ref):
        pass

    def compute(self):
        raise ValueError("nothing to score")


def test_inputs_map_step_keys_and_prefix_and_stages(tmp_path: Path) -> None:
    callback = MetricCallback(WER(), inputs={"hyp": "prediction"}, prefix={"validate": "dev/"}, stages="validate")
    trainer(callback, tmp_path).validate(Renamed(), loader(Utterances("dev", 9)))
    want = {k: v for k, v in expected("dev", 9, 0, "dev/").items() if "WER" in k}
    assert callback.results == {"validate": want}
    trainer(callback, tmp_path).test(Renamed(), loader(Utterances("dev", 9)))
    assert "test" not in callback.results


def test_missing_key_names_step_key_and_keys_present(tmp_path: Path) -> None:
    callback = MetricCallback(WER())
    with pytest.raises(ValueError, match=r"validation_step returned no 'hyp' .*keys 'ref', 'prediction'"):
        trainer(callback, tmp_path).validate(Renamed(), loader(Utterances("dev", 3)))


def test_save_dir_needs_utterance_ids(tmp_path: Path) -> None:
    callback = MetricCallback(WER(), inputs={"hyp": "prediction"}, save_dir=tmp_path / "scp")
    with pytest.raises(ValueError, match=r"save_dir needs utterance ids.*no 'utt_id'"):
        trainer(callback, tmp_path).validate(Renamed(), loader(Utterances("dev", 3)))


def test_a_failing_metric_keeps_the_others_results(tmp_path: Path) -> None:
    callback = MetricCallback({"wer": WER(), "broken": NoRefs()})
    with pytest.raises(ValueError, match=r"broken on validate dataloader 0: nothing to score"):
        trainer(callback, tmp_path).validate(ToyASR(), loader(Utterances("dev", 5)))
    assert callback.results["validate"]["val/WER"] == expected("dev", 5, 0, "val/")["val/WER"]


def test_log_uses_float64(tmp_path: Path) -> None:
    callback = MetricCallback(CER())
    run = trainer(callback, tmp_path)
    run.validate(ToyASR(), loader(Utterances("dev", 7)))
    assert run.callback_metrics["val/CER"].dtype == torch.float64


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"metrics": [WER(), WER()]}, "listed twice"),
        ({"metrics": {"a": WER(), "b": WER(case="fold")}}, "'a' and 'b' both return 'WER'"),
        ({"metrics": [object()]}, "not a BaseMetric"),
        ({"metrics": []}, "at least one metric"),
        ({"metrics": WER(), "inputs": {"text": "x"}}, "no metric declares"),
        ({"metrics": WER(), "stages": ("fit",)}, "not among"),
        ({"metrics": WER(), "test_names": {"test": "../up"}}, "not a plain token"),
    ],
)
def test_bad_configuration_is_refused(kwargs: dict, message: str) -> None:
    with pytest.raises((ValueError, TypeError), match=re.escape(message)):
        MetricCallback(**kwargs)


def test_save_stages_limits_saving_to_the_stages_named():
    callback = MetricCallback(WER(), save_dir="exp/decode", save_stages=("test",))
    assert callback._saves("test") and not callback._saves("validate")
    assert MetricCallback(WER(), save_dir="exp/decode")._saves("validate")
    with pytest.raises(ValueError, match="stages"):
        MetricCallback(WER(), save_dir="exp/decode", save_stages=("train",))
