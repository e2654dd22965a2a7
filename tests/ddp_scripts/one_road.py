"""One road on 1 or 2 processes: a metric that cannot be deep-copied, merged_result's calls, a failing rank.

Usage: ``python one_road.py OUT_DIR --devices N``. Each rank writes ``OUT_DIR/rank<r>.json`` with:
- ``results``: MetricCallback's validate results for WER (with a bootstrap interval) and a metric holding a
  lock (deepcopy raises);
- ``merges``: how many times `lightscore.core.merge.merged_result` ran in that validate epoch;
- ``error``: the error every rank raised when the lock metric fails on the last rank's third batch;
- ``save_error``: the error every rank raised when rank 0 cannot write ``save_dir``.
"""

from __future__ import annotations

import copy
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import lightning.pytorch as pl
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from toy_asr import ToyASR, Utterances, counting_merges, cpu_trainer, loader, run_as_script  # noqa: E402

from lightscore import BaseMetric, Field  # noqa: E402
from lightscore.lightning import MetricCallback  # noqa: E402
from lightscore.metrics import WER  # noqa: E402


class LockedWordCount(BaseMetric):
    """Counts hypothesis words while holding a lock, like a model with a thread or a device handle."""

    inputs = (Field("hyp", "text"),)
    outputs = (Field("hyp_words", "number"),)

    def __init__(self, fail_at: int | None = None) -> None:
        self.lock = threading.Lock()
        self.fail_at = fail_at  # update call (on the last rank) that raises, or None
        self.calls = 0
        self.add_state("hyp_words", 0, "sum")
        super().__init__()

    def __deepcopy__(self, memo: dict) -> LockedWordCount:
        raise TypeError("LockedWordCount holds a lock and cannot be copied")

    def update(self, *, hyp: Sequence[str]) -> None:
        self.calls += 1
        rank = torch.distributed.get_rank() if torch.distributed.is_initialized() else 0
        last = (torch.distributed.get_world_size() - 1) if torch.distributed.is_initialized() else 0
        if self.fail_at is not None and rank == last and self.calls == self.fail_at:
            raise ValueError("the embedder ran out of memory")
        with self.lock:
            self.hyp_words += sum(len(h.split()) for h in hyp)

    def compute(self) -> dict[str, int]:
        return {"hyp_words": self.hyp_words}


def metrics() -> list[BaseMetric]:
    """The good run's metrics: a WER with a bootstrap interval (per-utterance state) and the locked one."""
    return [WER(ci=0.95, bootstrap=200, seed=3), LockedWordCount()]


def trainer(devices: int, callback: MetricCallback) -> pl.Trainer:
    return cpu_trainer(
        devices,
        [callback],
    )


def run(out: Path, devices: int) -> dict:
    assert copy.deepcopy  # the metric below must never reach it
    good = MetricCallback(metrics())
    t = trainer(devices, good)
    with counting_merges() as merges:
        t.validate(ToyASR(), dataloaders=loader(Utterances("dev", 21)))
    record = {"rank": t.global_rank, "results": good.results["validate"], "merges": merges[0]}
    failing = MetricCallback([WER(), LockedWordCount(fail_at=3)])
    try:
        trainer(devices, failing).validate(ToyASR(), dataloaders=loader(Utterances("dev", 21)))
        record["error"] = None
    except Exception as e:
        record["error"] = f"{type(e).__name__}: {e}"
    blocked = out / "a-file"
    blocked.write_text("save_dir cannot be made under a file\n")
    saving = MetricCallback([WER()], save_dir=blocked / "decode")
    try:
        trainer(devices, saving).validate(ToyASR(), dataloaders=loader(Utterances("dev", 21)))
        record["save_error"] = None
    except Exception as e:
        record["save_error"] = f"{type(e).__name__}: {e}"
    return record


if __name__ == "__main__":
    run_as_script(run)
