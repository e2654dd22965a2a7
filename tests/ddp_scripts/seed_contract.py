"""The seed's ``MyWER`` (``update(self, *, ref, hyp)``) in MetricCallback on 1 or 2 processes.

Usage: ``python seed_contract.py OUT_DIR --devices N``. Each rank writes ``OUT_DIR/rank<r>.json``
with the validate results of ``MyWER`` (prefix ``my/``) and of ``WER`` (prefix ``val/``), both with a
bootstrap interval (per-utterance state, so utterance ids must reach ``MyWER`` too).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from seed_metrics import MyWER  # noqa: E402
from toy_asr import ToyASR, Utterances, cpu_trainer, loader, run_as_script  # noqa: E402

from lightscore.lightning import MetricCallback  # noqa: E402
from lightscore.metrics import WER  # noqa: E402


def run(out: Path, devices: int) -> dict:
    mine = MetricCallback([MyWER(ci=0.95, bootstrap=200, seed=3)], prefix="my/")
    plain = MetricCallback([WER(ci=0.95, bootstrap=200, seed=3)])
    trainer = cpu_trainer(
        devices,
        [mine, plain],
    )
    trainer.validate(ToyASR(), dataloaders=loader(Utterances("dev", 21)))
    return {"rank": trainer.global_rank, "mine": mine.results["validate"], "plain": plain.results["validate"]}


if __name__ == "__main__":
    run_as_script(run)
