"""log_samples: the worst utterances reach TensorBoard, CSV and W&B (offline), the same on 1 and 2 processes."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import lightning.pytorch as pl
import pytest
from ddp_scripts.launch import free_port, run_scripts
from ddp_scripts.log_samples import N_SAMPLES
from ddp_scripts.toy_asr import ToyASR, Utterances, hypothesis, loader

from lightscore.lightning import MetricCallback
from lightscore.lightning.samples import markdown_table
from lightscore.metrics import CER, WER
from lightscore.text.alignment import alignment_text

TAGS = ("val/WER_worst", "val/CER_worst")


def by_hand(metric, n: int = 31, epoch: int = 0) -> list[list]:
    """Every utterance aligned on its own, sorted by errors (then id), the first N_SAMPLES kept."""
    rows = []
    for i in range(n):
        item = Utterances("dev", n)[i]
        hyp = hypothesis(item["ref"], i, epoch)
        pairs = metric.align(item["ref"], hyp)
        rows.append([item["utt_id"], sum(m != "C" for _, _, m in pairs), item["ref"], hyp, alignment_text(pairs)])
    return sorted(rows, key=lambda r: (-r[1], r[0]))[:N_SAMPLES]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict]:
    found = {}
    for devices in (1, 2):
        out = tmp_path_factory.mktemp(f"samples{devices}")
        (run,) = run_scripts([["log_samples.py", str(out), "--devices", str(devices)]], free_port())
        assert run.returncode == 0, run.stderr[-3000:]
        found[devices] = {"out": out, "ranks": [json.loads(p.read_text()) for p in sorted(out.glob("rank*.json"))]}
    return found


def test_the_rows_are_the_worst_utterances_on_1_and_2_processes(runs: dict) -> None:
    expected = {"val/WER_worst": by_hand(WER()), "val/CER_worst": by_hand(CER())}
    assert max(row[1] for row in expected["val/CER_worst"]) > 1  # not all ties: the order is tested
    for devices in (1, 2):
        for record in runs[devices]["ranks"]:
            assert record["samples"] == expected


def test_tensorboard_holds_a_markdown_table_per_tag(runs: dict) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    for devices in (1, 2):
        events = EventAccumulator(str(runs[devices]["out"] / "tb" / "version_0"), size_guidance={"tensors": 0})
        events.Reload()
        for tag in TAGS:
            [text] = events.Tensors(f"{tag}/text_summary")
            rows = runs[devices]["ranks"][0]["samples"][tag]
            assert text.tensor_proto.string_val[0].decode() == markdown_table([tuple(r) for r in rows])


def test_csv_logger_gets_a_tsv_per_epoch_beside_metrics_csv(runs: dict) -> None:
    for devices in (1, 2):
        log_dir = runs[devices]["out"] / "csv" / "version_0"
        assert (log_dir / "metrics.csv").is_file()
        for tag in TAGS:
            with open(log_dir / f"{tag.replace('/', '_')}_epoch0.tsv", newline="") as f:
                rows = list(csv.reader(f, delimiter="\t"))
            expected = runs[devices]["ranks"][0]["samples"][tag]
            assert rows == [["utt_id", "errors", "ref", "hyp", "alignment"], *[[str(v) for v in r] for r in expected]]


def test_wandb_offline_gets_a_table(runs: dict) -> None:
    pytest.importorskip("wandb", reason="wandb is not installed: its logger is not tested")
    for devices in (1, 2):
        for tag in TAGS:
            [table] = (runs[devices]["out"] / "wandb").glob(f"offline-run-*/files/media/table/{tag}_*.table.json")
            data = json.loads(table.read_text())
            assert data["columns"] == ["utt_id", "errors", "ref", "hyp", "alignment"]
            assert data["data"] == runs[devices]["ranks"][0]["samples"][tag]


def test_an_unknown_logger_is_named_once(tmp_path: Path) -> None:
    from lightning.pytorch.loggers import Logger

    class Quiet(Logger):
        name, version = "quiet", 0

        def log_metrics(self, metrics, step=None):
            pass

        def log_hyperparams(self, params, *args, **kwargs):
            pass

    callback = MetricCallback(WER(), log_samples=2)
    trainer = pl.Trainer(callbacks=[callback], logger=Quiet(), enable_progress_bar=False, enable_model_summary=False)
    with pytest.warns(UserWarning, match="log_samples does not know the logger.s. Quiet") as caught:
        trainer.validate(ToyASR(), dataloaders=loader(Utterances("dev", 7)))
        trainer.validate(ToyASR(), dataloaders=loader(Utterances("dev", 7)))
    assert sum("log_samples does not know" in str(w.message) for w in caught) == 1


class Doubled(ToyASR):
    """A validation step that returns every row twice."""

    def validation_step(self, batch: dict, batch_idx: int, dataloader_idx: int = 0) -> dict:
        out = self.decode(batch)
        return {key: values + values for key, values in out.items()}


def test_a_step_that_returns_more_rows_than_its_batch_fails_clearly() -> None:
    callback = MetricCallback(WER())
    trainer = pl.Trainer(callbacks=[callback], logger=False, enable_progress_bar=False, enable_model_summary=False)
    message = "validation_step returned 14 rows over the epoch, but the sampler delivered 7"
    with pytest.raises(ValueError, match=message):
        trainer.validate(Doubled(), dataloaders=loader(Utterances("dev", 7)))


def test_metric_settings_are_logged_as_hyperparameters(tmp_path: Path) -> None:
    from lightning.pytorch.loggers import CSVLogger

    logger = CSVLogger(tmp_path, name="csv", version=0)
    callback = MetricCallback({"wer": WER(aligner="sclite", normalize="whisper_basic"), "cer": CER(case="fold")})
    trainer = pl.Trainer(callbacks=[callback], logger=logger, enable_progress_bar=False, enable_model_summary=False)
    trainer.validate(ToyASR(), dataloaders=loader(Utterances("dev", 7)))
    text = (tmp_path / "csv" / "version_0" / "hparams.yaml").read_text()
    assert "lightscore/wer: WER case=sclite aligner=sclite normalize=whisper_basic (whisper-normalizer" in text
    assert "lightscore/cer: CER case=fold aligner=unit normalize=none" in text
