"""Bad inputs and empty ranks in MetricCallback on 1 or 2 processes: every rank must fail alike, at once.

Usage: ``python input_guarantees.py OUT_DIR --devices N``. Each rank writes ``OUT_DIR/rank<r>.json`` with:
- ``numpy_results``: validate results on 21 utterances whose texts and ids are ``numpy.str_``
  (a dataset of numpy strings through ``default_collate``), with ``save_dir``;
- ``surrogate_error``: the error when utterance dev-0005's hypothesis (rank 1's, on 2 ranks) holds a
  lone surrogate, with ``save_dir`` (it used to fail on rank 0 while writing, after the gather);
- ``zero_validate_error`` / ``zero_fit_error``: the error when the validation dataloader gives
  rank 1 no batch (Lightning then skips rank 1's whole loop) in ``validate()`` and in ``fit()``;
- ``empty_error``: the error when the validation dataset is empty on every rank;
- ``seconds``: how long each failing call took.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import lightning.pytorch as pl
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, Sampler

sys.path.insert(0, str(Path(__file__).resolve().parent))
from toy_asr import ToyASR, Utterances, cpu_trainer, loader, run_as_script  # noqa: E402

from lightscore.lightning import MetricCallback  # noqa: E402
from lightscore.metrics import WER  # noqa: E402

SURROGATE_UTTERANCE = "dev-0005"


class NumpyTexts(Dataset):
    """The toy utterances with every text a ``numpy.str_``, as a dataset holding numpy arrays gives them."""

    def __init__(self, n: int) -> None:
        self.items = Utterances("dev", n)

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: int) -> dict:
        item = self.items[i]
        return {key: np.array([value])[0] for key, value in item.items()}


class Surrogate(ToyASR):
    """Decodes like ToyASR, but one utterance's hypothesis ends in a lone surrogate."""

    def validation_step(self, batch: dict, batch_idx: int, dataloader_idx: int = 0) -> dict:
        out = self.decode(batch)
        out["hyp"] = [h + "\ud800" if u == SURROGATE_UTTERANCE else h for u, h in zip(out["utt_id"], out["hyp"])]
        return out


class ZeroLengthAllowed(ToyASR):
    """Lets a rank have an empty dataloader (Lightning refuses one otherwise); Lightning then skips its loop."""

    def __init__(self) -> None:
        super().__init__()
        self.allow_zero_length_dataloader_with_multiple_devices = True


class FirstRankOnly(Sampler):
    """Every index on rank 0, none on the others: their dataloader has no batch."""

    def __init__(self, n: int) -> None:
        self.n = n

    def _mine(self) -> range:
        rank = torch.distributed.get_rank() if torch.distributed.is_initialized() else 0
        return range(self.n) if rank == 0 else range(0)

    def __iter__(self):
        return iter(self._mine())

    def __len__(self) -> int:
        return len(self._mine())


def trainer(devices: int, callback: MetricCallback, **options) -> pl.Trainer:
    return cpu_trainer(
        devices,
        [callback],
        **options,
    )


def failure(call) -> tuple[str | None, float]:
    """``(error text or None, seconds)`` of ``call()``."""
    start = time.monotonic()
    try:
        call()
        error = None
    except Exception as e:
        error = f"{type(e).__name__}: {e}"
    return error, round(time.monotonic() - start, 1)


def run(out: Path, devices: int) -> dict:
    numpy_cb = MetricCallback(WER(), save_dir=out / "numpy")
    t = trainer(devices, numpy_cb)
    t.validate(ToyASR(), dataloaders=DataLoader(NumpyTexts(21), batch_size=4))
    record = {"rank": t.global_rank, "numpy_results": numpy_cb.results["validate"], "seconds": {}}
    cases = {
        "surrogate_error": lambda: trainer(devices, MetricCallback(WER(), save_dir=out / "surrogate")).validate(
            Surrogate(), dataloaders=loader(Utterances("dev", 21))
        ),
        "zero_validate_error": lambda: trainer(devices, MetricCallback(WER()), use_distributed_sampler=False).validate(
            ZeroLengthAllowed(), dataloaders=DataLoader(Utterances("dev", 5), sampler=FirstRankOnly(5), batch_size=2)
        ),
        "zero_fit_error": lambda: trainer(
            devices, MetricCallback(WER()), use_distributed_sampler=False, max_epochs=1, num_sanity_val_steps=0
        ).fit(
            ZeroLengthAllowed(),
            val_dataloaders=DataLoader(Utterances("dev", 5), sampler=FirstRankOnly(5), batch_size=2),
        ),
        "empty_error": lambda: trainer(devices, MetricCallback(WER())).validate(
            ToyASR(), dataloaders=loader(Utterances("dev", 0))
        ),
    }
    for key, call in cases.items():
        record[key], record["seconds"][key] = failure(call)
        print(f"case {key}: {record[key]}", file=sys.stderr, flush=True)
    return record


if __name__ == "__main__":
    run_as_script(run)
