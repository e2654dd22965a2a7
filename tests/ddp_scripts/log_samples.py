"""The worst utterances logged to real Lightning loggers, on 1 or 2 processes.

Usage: ``python log_samples.py OUT_DIR --devices N``. Rank 0 logs to a TensorBoardLogger, a CSVLogger and,
when wandb is installed, an offline WandbLogger under OUT_DIR; every rank writes ``OUT_DIR/rank<r>.json``
with the rows the callback chose (``MetricCallback.samples``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from lightning.pytorch.loggers import CSVLogger, TensorBoardLogger

sys.path.insert(0, str(Path(__file__).resolve().parent))
from toy_asr import ToyASR, Utterances, cpu_trainer, loader, run_as_script  # noqa: E402

from lightscore.lightning import MetricCallback  # noqa: E402
from lightscore.metrics import CER, WER  # noqa: E402

N_SAMPLES = 4


def loggers(out: Path) -> list:
    found = [TensorBoardLogger(out, name="tb", version=0), CSVLogger(out, name="csv", version=0)]
    try:
        import wandb  # noqa: F401
        from lightning.pytorch.loggers import WandbLogger
    except ImportError:
        return found
    os.environ.setdefault("WANDB_SILENT", "true")
    return [*found, WandbLogger(save_dir=str(out), offline=True, project="lightscore-test")]


def run(out: Path, devices: int) -> dict:
    callback = MetricCallback([WER(), CER()], log_samples=N_SAMPLES)
    trainer = cpu_trainer(
        devices,
        [callback],
        max_epochs=1,
        limit_train_batches=1,
        num_sanity_val_steps=0,
        logger=loggers(out),
        enable_checkpointing=False,
    )
    trainer.fit(ToyASR(), val_dataloaders=loader(Utterances("dev", 31)))
    samples = {tag: [list(row) for row in rows] for tag, rows in callback.samples.items()}
    for logger in trainer.loggers:
        logger.finalize("success")
    return {"rank": trainer.global_rank, "samples": samples}


if __name__ == "__main__":
    run_as_script(run)
