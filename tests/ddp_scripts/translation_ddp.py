"""A toy speech-translation model validated with BLEU, chrF++ and TransTER by MetricCallback; writes what a rank saw.

Usage: ``python translation_ddp.py OUT_DIR --devices N``. Validation runs on 101 utterances
(batch size 4: with 2 ranks DistributedSampler pads one row) with two references per
utterance, for 2 epochs, with ModelCheckpoint(monitor="val/BLEU", mode="max").
"""

from __future__ import annotations

import sys
from pathlib import Path

from lightning.pytorch.callbacks import ModelCheckpoint

sys.path.insert(0, str(Path(__file__).resolve().parent))
from toy_asr import ToyASR, Utterances, cpu_trainer, loader, run_as_script  # noqa: E402

from lightscore.lightning import MetricCallback  # noqa: E402
from lightscore.metrics.translation import BLEU, ChrF, TranslationEditRate  # noqa: E402


def second_reference(ref: str) -> str:
    """Each utterance's other translation: the words reversed, the first word dropped."""
    return " ".join(ref.split()[::-1][1:])


def metrics() -> dict:
    return {
        "BLEU": BLEU(references=2),
        "chrF": ChrF(word_order=2, references=2),
        "TransTER": TranslationEditRate(references=2),
    }


class ToyST(ToyASR):
    """ToyASR's fixed hypotheses, with a second reference for every utterance."""

    def decode(self, batch: dict) -> dict:
        out = super().decode(batch)
        return {**out, "ref2": [second_reference(r) for r in batch["ref"]]}


def run(out: Path, devices: int) -> dict:
    callback = MetricCallback(metrics())
    checkpoint = ModelCheckpoint(dirpath=out / "ckpt", filename="{epoch}", monitor="val/BLEU", mode="max")
    trainer = cpu_trainer(
        devices,
        [callback, checkpoint],
        max_epochs=2,
        num_sanity_val_steps=0,
    )
    trainer.fit(ToyST(), val_dataloaders=loader(Utterances("dev", 101)))
    return {
        "rank": trainer.global_rank,
        "results": callback.results["validate"],
        "logged": {k: float(v) for k, v in trainer.callback_metrics.items() if k.startswith("val/")},
        "settings": callback.settings,
        "best": Path(checkpoint.best_model_path).name,
    }


if __name__ == "__main__":
    run_as_script(run)
