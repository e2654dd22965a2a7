"""Per-group error rates in MetricCallback on 1 or 2 processes: the step returns a ``lang`` label per utterance.

Usage: ``python groups_ddp.py OUT_DIR --devices N``; each rank writes ``OUT_DIR/rank<r>.json`` with the
validate results of ``WER(group_by="lang", groups=LANGS, ci=0.9)`` over 23 utterances (uneven on 2 ranks).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from toy_asr import ToyASR, Utterances, cpu_trainer, index_of, loader, run_as_script  # noqa: E402

from lightscore.lightning import MetricCallback  # noqa: E402
from lightscore.metrics import WER  # noqa: E402
from lightscore.metrics.speed import RTFx  # noqa: E402

LANGS = ["en", "de", "fr-CA"]


def lang(utt_id: str) -> str:
    """Each utterance's label, from its index: not contiguous, so every rank sees every label."""
    return LANGS[index_of(utt_id) % 3 if index_of(utt_id) % 5 else 0]


class LabelledASR(ToyASR):
    def validation_step(self, batch: dict, batch_idx: int, dataloader_idx: int = 0) -> dict:
        out = {**self.decode(batch), "lang": [lang(u) for u in batch["utt_id"]]}
        return {**out, "audio_seconds": [seconds(u)[0] for u in batch["utt_id"]],
                "decode_seconds": [seconds(u)[1] for u in batch["utt_id"]]}  # fmt: skip


def seconds(utt_id: str) -> tuple[float, float]:
    """(audio, decoding) seconds of one utterance: made up, not round numbers."""
    k = index_of(utt_id)
    return 1.0 + k * 0.37, 0.01 + (k % 7) * 0.0013


def metric() -> WER:
    return WER(group_by="lang", groups=LANGS, ci=0.9, bootstrap=200, seed=5)


def run(out: Path, devices: int) -> dict:
    callback = MetricCallback([metric(), RTFx()])
    trainer = cpu_trainer(
        devices,
        [callback],
    )
    trainer.validate(LabelledASR(), dataloaders=loader(Utterances("dev", 23)))
    return {"rank": trainer.global_rank, "results": callback.results["validate"]}


if __name__ == "__main__":
    run_as_script(run)
