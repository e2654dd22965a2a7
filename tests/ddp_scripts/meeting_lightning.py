"""Meeting metrics in a real Lightning run on 1 or 2 gloo processes: ``validation_step`` returns segments.

Usage: ``python meeting_lightning.py OUT_DIR --devices N``; each rank writes ``OUT_DIR/rank<r>.json`` with
the validate results of cpWER, ORC-WER, tcpWER, DER and JER over 11 generated sessions (uneven on 2
ranks: Lightning's DistributedSampler repeats one session, which the callback drops). Each step
returns, per session, the reference as a list of `Segment` and the hypothesis as SegLST dicts.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import lightning.pytorch as pl
from torch.utils.data import DataLoader, Dataset

sys.path.insert(0, str(Path(__file__).resolve().parent))
from toy_asr import ToyASR, run_as_script  # noqa: E402

from lightscore.lightning import MetricCallback  # noqa: E402
from lightscore.metrics.meeting import CPWER, DER, JER, ORCWER, TCPWER  # noqa: E402
from lightscore.segments import Segment  # noqa: E402

WORDS = "a b c d the cat".split()


def turns(rng: random.Random, prefix: str, min_gap: int = 0) -> list[Segment]:
    """1-3 speakers, each with turns ``min_gap`` ms or more apart (negative: a speaker may overlap itself)."""
    out = []
    for k in range(rng.randint(1, 3)):
        t = rng.randint(0, 2000)
        for _ in range(rng.randint(1, 3)):
            length = rng.randint(300, 3000)
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5)))
            out.append(Segment(f"{prefix}{k}", t / 1000, (t + length) / 1000, words))
            t += length + rng.randint(min_gap, 2000)
    return out


def corpus() -> dict[str, tuple[list[Segment], list[Segment]]]:
    rng = random.Random(11)
    return {f"s{i:02d}": (turns(rng, "r"), turns(rng, "h")) for i in range(11)}


def metrics() -> list:
    return [CPWER(), ORCWER(), TCPWER(collar=1.0), DER(collar=0.25), JER(convention="pyannote")]


class Sessions(Dataset):
    def __init__(self) -> None:
        self.items = list(corpus().items())

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: int) -> dict:
        session, (ref, hyp) = self.items[i]
        return {"session_id": session, "ref": ref, "hyp": hyp}


def collate(items: list[dict]) -> dict[str, list]:
    """Keep each session's segments as they are (default_collate would transpose the tuples)."""
    return {key: [item[key] for item in items] for key in items[0]}


class MeetingModule(ToyASR):
    def validation_step(self, batch: dict, batch_idx: int, dataloader_idx: int = 0) -> dict:
        hyp = [
            [{"speaker": s.speaker, "start_time": s.start, "end_time": s.end, "words": s.words} for s in session]
            for session in batch["hyp"]
        ]
        return {"ref": batch["ref"], "hyp": hyp, "utt_id": batch["session_id"]}


def run(out: Path, devices: int) -> dict:
    callback = MetricCallback(metrics())
    trainer = pl.Trainer(
        accelerator="cpu",
        devices=devices,
        strategy="ddp" if devices > 1 else "auto",
        callbacks=[callback],
        logger=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    trainer.validate(MeetingModule(), dataloaders=DataLoader(Sessions(), batch_size=2, collate_fn=collate))
    return {"rank": trainer.global_rank, "results": callback.results["validate"]}


if __name__ == "__main__":
    run_as_script(run)
