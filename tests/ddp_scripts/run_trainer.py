"""Run the toy model through fit(), test() and validate() with a MetricCallback; write what each rank saw.

Usage: ``python run_trainer.py OUT_DIR --devices N [--sanity-steps K]``.
With ``--devices 2`` Lightning's ddp launcher starts this script again as rank 1.
Each rank writes ``OUT_DIR/rank<r>.json``; the callback's SCP files go to
``OUT_DIR/fit`` (validation during fit) and ``OUT_DIR/eval`` (test and validate).

The run, in one launch to keep the multi-process tests quick:
1. fit(): 3 epochs, validation on 101 utterances (batch size 4) with the
   sanity check, ModelCheckpoint(monitor="val/WER", mode="min");
2. test() on the same 101 utterances;
3. validate() on three dataloaders: the 101 utterances, a 1-utterance set
   (one rank gets only padding) and an IterableDataset (not coverable: warns).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import lightning.pytorch as pl
import torch
import torch.distributed as dist
from lightning.pytorch.callbacks import Callback, ModelCheckpoint

sys.path.insert(0, str(Path(__file__).resolve().parent))
from toy_asr import ToyASR, Utterances, UtteranceStream, cpu_trainer, loader  # noqa: E402

from lightscore.lightning import MetricCallback  # noqa: E402
from lightscore.metrics import CER, WER  # noqa: E402

GATHERS = {"count": 0}


def count_gathers() -> None:
    """Count every torch.distributed.all_gather_object call in this process."""
    original = dist.all_gather_object

    def counted(*args, **kwargs):
        GATHERS["count"] += 1
        return original(*args, **kwargs)

    dist.all_gather_object = counted


def logged(trainer: pl.Trainer) -> dict[str, float]:
    return {k: float(v) for k, v in trainer.callback_metrics.items() if k.startswith(("val/", "test/"))}


class Recorder(Callback):
    """Notes what the MetricCallback (listed before it) produced, and the collectives of each epoch."""

    def __init__(self, metric_callback: MetricCallback, save_dirs: list[Path]) -> None:
        self.cb, self.save_dirs = metric_callback, save_dirs
        self.record: dict = {"epochs": []}

    def on_sanity_check_start(self, trainer, pl_module) -> None:
        GATHERS["count"] = 0

    def on_sanity_check_end(self, trainer, pl_module) -> None:
        self.record["sanity"] = {
            "results": dict(self.cb.results),
            "logged": logged(trainer),
            "gathers": GATHERS["count"],
            "saved_anything": any(d.exists() for d in self.save_dirs),
        }

    def on_validation_epoch_start(self, trainer, pl_module) -> None:
        GATHERS["count"] = 0

    def on_validation_end(self, trainer, pl_module) -> None:
        if trainer.sanity_checking:
            return
        self.record["epochs"].append(
            {
                "epoch": trainer.current_epoch,
                "results": dict(self.cb.results.get("validate", {})),
                "logged": logged(trainer),
                "gathers": GATHERS["count"],
            }
        )

    def on_test_epoch_start(self, trainer, pl_module) -> None:
        GATHERS["count"] = 0

    def on_test_end(self, trainer, pl_module) -> None:
        self.record["test"] = {
            "results": dict(self.cb.results["test"]),
            "logged": logged(trainer),
            "gathers": GATHERS["count"],
        }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--devices", type=int, default=1)
    parser.add_argument("--sanity-steps", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(1)
    count_gathers()
    record = run(args.out, args.devices, args.sanity_steps)
    (args.out / f"rank{record['rank']}.json").write_text(json.dumps(record, indent=1))
    if torch.distributed.is_initialized():
        # Leave together: a gloo group still up at interpreter exit can abort a rank that leaves first.
        torch.distributed.barrier()
        torch.distributed.destroy_process_group()


def run(out: Path, devices: int, sanity_steps: int) -> dict:
    """Fit, test and validate; return what this rank recorded."""
    metric_cb = MetricCallback(
        [WER(), CER()],
        save_dir=out / "fit",
        test_names={"validate": ["dev", "one", "stream"], "test": "test"},
    )
    recorder = Recorder(metric_cb, [out / "fit", out / "eval"])
    checkpoint = ModelCheckpoint(dirpath=out / "ckpt", filename="{epoch}", monitor="val/WER", mode="min")
    trainer = cpu_trainer(
        devices,
        [metric_cb, recorder, checkpoint],
        max_epochs=3,
        num_sanity_val_steps=sanity_steps,
    )
    model = ToyASR()
    dev = loader(Utterances("dev", 101))
    trainer.fit(model, val_dataloaders=dev)
    metric_cb.save_dir = out / "eval"
    trainer.test(model, dataloaders=loader(Utterances("dev", 101)))
    GATHERS["count"] = 0
    returned = trainer.validate(
        model,
        dataloaders=[dev, loader(Utterances("one", 1)), loader(UtteranceStream("stream", 5))],
    )
    return {
        **recorder.record,
        "rank": trainer.global_rank,
        "world_size": trainer.world_size,
        "best_model_path": Path(checkpoint.best_model_path).name,
        "best_model_score": float(checkpoint.best_model_score),
        "validate": {"results": metric_cb.results["validate"], "returned": returned, "gathers": GATHERS["count"]},
    }


if __name__ == "__main__":
    main()
